"""Incremental mean squared and mean absolute errors of a growing additive model on real-valued targets.

After a rule is added only the covered examples' predictions change, so only their errors are
recomputed and the totals updated by the difference (the regression counterpart of
:class:`engine.tracking.LossTracker`).  The tracker keeps its own float64 predictions, summed head by
head in the order the model sums them, so its values are the measures of the model's ``predict``."""
from __future__ import annotations

import numpy as np

MEASURES = ("mse", "mae")  # what a regression run reports per rule: train_mse, train_mae, test_mse, test_mae


class RegressionErrors:
    """Running sums of squared and absolute errors of predictions ``F`` (float64, zeros at first)
    against targets ``Y`` (N x T), over every example and target."""

    def __init__(self, Y: np.ndarray):
        self.targets = np.asarray(Y, dtype=np.float64)
        if self.targets.ndim != 2:
            raise ValueError(f"targets must be examples x targets, got shape {self.targets.shape}")
        self.F = np.zeros(self.targets.shape)
        self.squared = (self.targets ** 2).sum(axis=1)  # each example's summed errors at zero predictions
        self.absolute = np.abs(self.targets).sum(axis=1)
        self.sse, self.sae = float(self.squared.sum()), float(self.absolute.sum())

    @property
    def mse(self) -> float:
        return self.sse / self.targets.size if self.targets.size else float("nan")

    @property
    def mae(self) -> float:
        return self.sae / self.targets.size if self.targets.size else float("nan")

    def measures(self) -> dict:
        """{'mse': ..., 'mae': ...} of the current predictions."""
        return {"mse": self.mse, "mae": self.mae}

    def add_head(self, rows: np.ndarray, n_rows: int, head_labels: np.ndarray, head_scores: np.ndarray) -> None:
        """Add a rule's head to the predictions of ``rows[:n_rows]`` and update the error totals from
        those rows only."""
        rows = np.asarray(rows[:n_rows], dtype=np.int64)
        if not len(rows):
            return
        self.F[np.ix_(rows, np.asarray(head_labels, dtype=np.int64))] += np.asarray(head_scores, dtype=np.float64)
        diff = self.F[rows] - self.targets[rows]
        squared, absolute = (diff ** 2).sum(axis=1), np.abs(diff).sum(axis=1)
        self.sse += float(squared.sum() - self.squared[rows].sum())
        self.sae += float(absolute.sum() - self.absolute[rows].sum())
        self.squared[rows], self.absolute[rows] = squared, absolute
