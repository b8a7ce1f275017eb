"""Incremental Hamming and subset 0/1 losses of a growing additive rule model.

After a rule is added only the covered examples' scores change, so only their predictions
are recomputed (eq. 18 or eq. 19) and the error totals are updated by the difference."""
from __future__ import annotations

import numpy as np

from .core.boosting import add_head_scores, example_wise_errors, label_wise_errors, label_wise_errors_of_head
from .core.label_vectors import build_index
from .core.losses import LOSS_CODES, score_threshold
from .model import label_vector_index


class ErrorTotals:
    """Hamming and subset 0/1 losses from running totals of wrong labels and wrong examples over ``Y``."""

    Y: np.ndarray
    wrong_labels: int
    wrong_examples: int

    @property
    def hamming(self) -> float:
        return self.wrong_labels / self.Y.size

    @property
    def subset(self) -> float:
        return self.wrong_examples / self.Y.shape[0]


class LossTracker(ErrorTotals):
    def __init__(self, Y: np.ndarray, prediction: str, loss: str | None = None,
                 label_vectors: np.ndarray | None = None, F: np.ndarray | None = None):
        self.Y = np.ascontiguousarray(Y, dtype=np.uint8)
        n, k = self.Y.shape
        self.F = np.zeros((n, k)) if F is None else F
        self.example_wise = prediction == "example-wise"
        self.loss_code = LOSS_CODES.get(loss, 0)
        self.threshold = score_threshold(loss)  # of output-wise predictions
        if self.example_wise:
            self.vectors = np.ascontiguousarray(label_vectors, dtype=np.uint8)
            self.vec_ptr, self.vec_idx = label_vector_index(self.vectors)
            self.vec_keys, self.vec_hashes, self.vec_table = build_index(self.vectors, self.vec_ptr, self.vec_idx)
        self.errors = np.zeros(n, dtype=np.int64)
        self.wrong_labels = 0
        self.wrong_examples = 0
        self.refresh(np.arange(n, dtype=np.int64))

    def refresh(self, rows: np.ndarray, n_rows: int | None = None) -> None:
        """Recompute predictions of ``rows[:n_rows]`` from the current scores ``F``."""
        n_rows = len(rows) if n_rows is None else n_rows
        if self.example_wise:
            dl, de = example_wise_errors(self.loss_code, self.F, self.Y, rows, n_rows, *self.kernel_vectors(),
                                         self.errors)
        else:
            dl, de = label_wise_errors(self.F, self.Y, rows, n_rows, self.errors, self.threshold)
        self.count(dl, de)

    def add_head(self, rows: np.ndarray, n_rows: int, head_labels: np.ndarray, head_scores: np.ndarray,
                 apply=None) -> None:
        """Add ``head`` to the scores ``F`` of ``rows[:n_rows]`` and update the error totals.  ``apply()``
        adds it when given (the training scores, whose statistics follow them: ``apply_head``)."""
        if not self.example_wise:  # counted before: afterwards F - head need not be the old score
            dl, de = label_wise_errors_of_head(self.F, self.Y, rows, n_rows, head_labels, head_scores, self.errors,
                                               self.threshold)
        if apply is None:
            add_head_scores(self.F, rows, n_rows, head_labels, head_scores, 1.0)
        else:
            apply()
        if self.example_wise:
            self.refresh(rows, n_rows)
            return
        self.count(dl, de)

    def count(self, d_labels: int, d_examples: int) -> None:
        """Add changes of the error totals computed by a kernel (see :meth:`kernel_vectors`)."""
        self.wrong_labels += d_labels
        self.wrong_examples += d_examples

    def kernel_vectors(self):
        """(label vectors, CSR pointer, label indices, hash keys, hashes, table) for eq. (19) kernels
        (see :mod:`engine.core.label_vectors`); empty when label-wise."""
        if self.example_wise:
            return self.vectors, self.vec_ptr, self.vec_idx, self.vec_keys, self.vec_hashes, self.vec_table
        K = self.Y.shape[1]
        return (np.zeros((0, K), dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                np.zeros(K, dtype=np.uint64), np.zeros(0, dtype=np.uint64), np.full(16, -1, dtype=np.int64))
