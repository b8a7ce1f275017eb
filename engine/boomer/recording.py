"""What a rule leaves behind once learned: applied to the training scores, tracked on the training,
test and watched (holdout) losses, and streamed as a :class:`~engine.learner.RuleRecord`."""
from __future__ import annotations

import numpy as np

from ..core.boosting import add_head_scores, apply_head, refresh_example_losses
from ..core.examplewise_stats import compact_apply_head
from ..learner import RuleRecord, TrainingData
from ..model import rule_coverage
from ..rules import Rule
from ..tracking import LossTracker


class WatchedLoss:
    """The mean loss (the learner's own loss function) on the holdout set, or on the training set
    (``X`` None: ``F`` is the training scores, already updated when a rule is recorded)."""

    def __init__(self, loss_code: int, X, Y: np.ndarray, F: np.ndarray | None = None):
        self.loss, self.X, self.holdout = loss_code, X, X is not None
        # the 0/1 labels the loss kernels read (a copy only if needed), or a regressor's float32 targets
        self.Y = np.require(Y, np.float32 if Y.dtype == np.float32 else np.uint8, "C")
        self.F = np.zeros(Y.shape) if F is None else F
        n = Y.shape[0]
        self.losses = np.zeros(n)
        self.total = refresh_example_losses(loss_code, self.Y, self.F, np.arange(n, dtype=np.int64), n,
                                            self.losses)

    def after(self, rule: Rule, rows: np.ndarray, n_rows: int) -> float:
        """The mean loss once ``rule`` (covering training ``rows[:n_rows]``) is part of the model."""
        if self.holdout:
            rows = np.flatnonzero(rule_coverage(rule, self.X)).astype(np.int64)
            n_rows = len(rows)
            add_head_scores(self.F, rows, n_rows, rule.head_labels, rule.head_scores, 1.0)
        self.total += refresh_example_losses(self.loss, self.Y, self.F, rows, n_rows, self.losses)
        return self.total / len(self.losses)


class Recorder:
    """Records the rules of one fit on the estimator ``est`` (whose ``records_`` count them): the
    training losses ``train``, the test losses ``val`` (None without test data), and the ``watched``
    loss with the global ``pruning`` that reads it (either None)."""

    def __init__(self, est, data: TrainingData, train: LossTracker, val: LossTracker | None = None,
                 watched: WatchedLoss | None = None, pruning=None):
        self.est, self.data, self.train, self.val = est, data, train, val
        self.watched, self.pruning = watched, pruning
        self.measures = True  # a regressor's MSE and MAE follow the rules it records

    def untracked(self) -> "Recorder":
        """A recorder of the same fit that tracks the training losses only (post-optimization's: the
        revision's MSE and MAE follow in :meth:`replaced`)."""
        recorder = Recorder(self.est, self.data, self.train)
        recorder.measures = False
        return recorder

    def replaced(self, old: Rule, old_coverage: tuple, new: Rule, new_coverage: tuple) -> dict:
        """A regressor's training and test MSE and MAE once ``new`` (covering the training rows
        ``new_coverage``: rows, count) replaced ``old`` (``old_coverage``); {} for a classifier."""
        if not hasattr(self.train, "rule_added"):
            return {}
        extra = {}
        for tracker, split, X in ((self.train, "train", None), (self.val, "test", self.data.X_test)):
            if tracker is None:
                continue
            for rule, sign, coverage in ((old, -1.0, old_coverage), (new, 1.0, new_coverage)):
                rows, n_rows = coverage
                if X is not None:
                    rows = np.flatnonzero(rule_coverage(rule, X)).astype(np.int64)
                    n_rows = len(rows)
                measures = tracker.head_added(rows, n_rows, rule.head_labels, sign * np.asarray(rule.head_scores))
            extra.update({f"{split}_{k}": v for k, v in measures.items()})
        return extra

    def add(self, rule: Rule, stats, rows: np.ndarray, n_rows: int, labels: np.ndarray, head: np.ndarray,
            improvement: float) -> tuple[RuleRecord, bool]:
        """Apply a rule to the training scores and statistics ``stats`` (:class:`.fit_state.Statistics`),
        then :meth:`record` it."""
        apply = compact_apply_head if stats.compact else apply_head
        self.train.add_head(rows, n_rows, labels, head,
                            lambda: apply(stats.loss, stats.Y, stats.F, stats.G, stats.H, rows, n_rows, labels, head))
        return self.record(rule, rows, n_rows, improvement)

    def record(self, rule: Rule, rows: np.ndarray, n_rows: int, improvement: float) -> tuple[RuleRecord, bool]:
        """The record of a rule already applied to the training scores (and now the test set's and
        the watched loss's), and whether global pruning stops training after it."""
        est, extra, stop = self.est, {}, False
        if self.watched is not None:
            value = self.watched.after(rule, rows, n_rows)
            extra["holdout_loss" if self.watched.holdout else "train_loss"] = value
            if self.pruning is not None:
                stop = self.pruning.update(len(est.records_) + 1, value)
                est.selected_steps_ = self.pruning.selected
        record = dict(index=len(est.records_), rule=rule, coverage=int(n_rows), improvement=float(improvement),
                      train_hamming=self.train.hamming, train_subset=self.train.subset, extra=extra)
        regression = self.measures and hasattr(self.train, "rule_added")  # a regressor's (engine.boomer.regression.RegressionTracker)
        if regression:
            extra.update({"train_" + k: v for k, v in self.train.rule_added(rule, rows, n_rows).items()})
        if self.val is not None:
            vrows = np.flatnonzero(rule_coverage(rule, self.data.X_test)).astype(np.int64)
            self.val.add_head(vrows, len(vrows), rule.head_labels, rule.head_scores)
            record.update(test_hamming=self.val.hamming, test_subset=self.val.subset)
            if regression:
                extra.update({"test_" + k: v for k, v in self.val.rule_added(rule, vrows, len(vrows)).items()})
        return RuleRecord(**record), stop
