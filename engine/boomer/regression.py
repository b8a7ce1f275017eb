"""What a regressor's fit needs besides the classifier's machinery: real-valued targets checked into the
form the kernels read (float32 N x T, as mlrl-boomer keeps its regression matrix), and the mean squared
error tracked rule by rule where a classifier tracks its Hamming and subset 0/1 losses."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ..core.boosting import add_head_scores
from ..regression_tracking import RegressionErrors
from ..validation import check_sparse

FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_targets(Y, n_examples: int | None = None, name: str = "y") -> np.ndarray:
    """Real-valued targets (1-D for one output, N x T for several; dense or SciPy sparse) as float32
    N x T.  One ValueError naming the problem for anything else: non-numeric values, NaN or infinite
    targets, values beyond float32's range, a wrong number of rows."""
    if Y is None:
        raise ValueError(f"{name} is missing: a regressor needs its targets")
    Ya = check_sparse(Y, name).toarray() if sp.issparse(Y) else np.asarray(Y)  # a crafted matrix: one error
    if Ya.ndim == 1:
        Ya = Ya[:, None]
    if Ya.ndim != 2:
        raise ValueError(f"{name} must be 1-D or two-dimensional (examples x targets), got shape {Ya.shape}")
    if Ya.shape[1] == 0:
        raise ValueError(f"{name} has zero targets")
    if n_examples is not None and Ya.shape[0] != n_examples:
        raise ValueError(f"X has {n_examples} examples but {name} has {Ya.shape[0]}")
    if Ya.dtype.kind not in "biuf":
        try:
            Ya = Ya.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold numbers (real-valued targets), got values of type "
                             f"{Ya.dtype}") from None
    Yf = Ya.astype(np.float64)
    bad = ~np.isfinite(Yf)
    if bad.any():
        row, col = (int(v[0]) for v in np.nonzero(bad))
        what = "NaN" if np.isnan(Yf[row, col]) else "an infinite value"
        raise ValueError(f"{name} contains {what} (example {row}, target {col}); every target must be a finite number")
    if Yf.size and np.abs(Yf).max() > FLOAT32_MAX:
        raise ValueError(f"{name} contains values beyond the float32 range (±3.4e38)")
    return np.ascontiguousarray(Yf, dtype=np.float32)


class RegressionTracker:
    """The mean squared error of a growing additive model on targets ``Y``, over all outputs; the interface
    of :class:`engine.tracking.LossTracker` (``F`` the scores, shared with the statistics for the training
    set).  The kernels' label-wise error counts are not read (their ``Y`` is zeros here)."""

    example_wise = False
    hamming = subset = math.nan  # a classifier's measures: undefined for real-valued targets

    def __init__(self, Y: np.ndarray, prediction: str = "label-wise", loss: str | None = None,
                 label_vectors=None, F: np.ndarray | None = None):
        self.targets = np.asarray(Y, dtype=np.float64)
        n, k = self.targets.shape
        self.F = np.zeros((n, k)) if F is None else F
        self.Y = np.zeros((n, k), dtype=np.uint8)  # what the fused kernel's error counting reads
        self.errors = np.zeros(n, dtype=np.int64)
        self.measured = RegressionErrors(self.targets)  # MSE and MAE of the model's float64 predictions

    @property
    def mse(self) -> float:
        """Mean squared error of the current scores over every example and output."""
        return float(np.mean((np.asarray(self.F, dtype=np.float64) - self.targets) ** 2))

    def rule_added(self, rule, rows: np.ndarray, n_rows: int) -> dict:
        """The MSE and MAE once ``rule`` (covering ``rows[:n_rows]``) is part of the model, updated from
        the covered rows only (:class:`engine.regression_tracking.RegressionErrors`)."""
        return self.head_added(rows, n_rows, rule.head_labels, rule.head_scores)

    def head_added(self, rows: np.ndarray, n_rows: int, labels: np.ndarray, scores: np.ndarray) -> dict:
        """The MSE and MAE once ``scores`` are added to the predictions of ``rows[:n_rows]`` (negative: a
        rule taken back, as post-optimization replaces one)."""
        self.measured.add_head(rows, n_rows, labels, scores)
        return self.measured.measures()

    def refresh(self, rows: np.ndarray, n_rows: int | None = None) -> None:
        """Nothing to refresh: :attr:`mse` is computed from the scores when asked."""

    def add_head(self, rows: np.ndarray, n_rows: int, head_labels: np.ndarray, head_scores: np.ndarray,
                 apply=None) -> None:
        """Add ``head`` to the scores of ``rows[:n_rows]`` (by ``apply()`` when given: the training scores)."""
        if apply is None:
            add_head_scores(self.F, rows, n_rows, head_labels, head_scores, 1.0)
        else:
            apply()

    def count(self, d_labels: int, d_examples: int) -> None:
        """The kernels' error counts: not a regressor's measure."""

    def kernel_vectors(self):
        """No label vectors (the fused kernel's empty arguments, as a label-wise tracker's)."""
        K = self.targets.shape[1]
        return (np.zeros((0, K), dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                np.zeros(K, dtype=np.uint64), np.zeros(0, dtype=np.uint64), np.full(16, -1, dtype=np.int64))
