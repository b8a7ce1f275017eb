"""Multi-label evaluation measures, vectorised over examples.

Every function takes ``(Y_true, Y_pred)`` or ``(Y_true, scores)``: N x K dense arrays or scipy sparse
matrices.  Truth and binary predictions may be 0/1, -1/+1 or boolean; scores are real, higher meaning
more relevant (NaN is rejected).  Losses are in [0, 1] (coverage in [0, K-1]); lower is better for
losses, higher for F1 and average precision.

Conventions
-----------
* ``example_f1``: an example with no relevant and no predicted label scores 1.
* ``micro_f1``: 1 if there is no relevant and no predicted label at all.
* ``macro_f1``: a label never relevant and never predicted scores 1 (scikit-learn's ``zero_division=1``).
* Ranking measures (``rank_loss``, ``one_error``, ``coverage``, ``average_precision``) skip examples
  without relevant labels; ``rank_loss`` also skips examples whose labels are all relevant (no pairs).
  With no example left they return NaN.
* Ties: ``rank_loss`` counts a tied (relevant, irrelevant) pair as half an error.  The others are
  pessimistic: a label's rank is the number of labels scored at least as high (so ties rank a relevant
  label below its tied rivals), and ``one_error`` counts an error if any top-scored label is irrelevant.
* ``coverage`` follows Mulan: the rank of the lowest-ranked relevant label minus 1 (scikit-learn's
  ``coverage_error`` is 1 larger).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

__all__ = ["hamming_loss", "subset_zero_one_loss", "example_f1", "micro_f1", "macro_f1",
           "rank_loss", "one_error", "coverage", "average_precision", "truth_and_scores"]


# ------------------------------------------------------------------------------------ validation
def _dense(A, what: str) -> np.ndarray:
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (examples x labels), got shape {A.shape}")
    return A


def _binary(A, what: str) -> np.ndarray:
    """Boolean version of a 0/1, -1/+1 or boolean matrix."""
    A = _dense(A, what)
    if A.dtype == bool:
        return A
    if not np.issubdtype(A.dtype, np.number):
        raise ValueError(f"{what} must be numeric or boolean, got dtype {A.dtype}")
    positive = A == 1
    if np.all(positive | (A == 0)):
        return positive
    if np.all(positive | (A == -1)):
        return positive
    bad = np.unique(A[~(positive | (A == 0) | (A == -1))])[:5]
    raise ValueError(f"{what} must hold 0/1 or -1/+1 values, found {bad.tolist() or 'both 0 and -1'}")


def truth_and_scores(Y_true, scores) -> tuple[np.ndarray, np.ndarray]:
    """``Y_true`` as booleans and ``scores`` as floats, checked (shape, values, no NaN)."""
    return _pair(Y_true, scores, "scores", binary=False)


def _pair(Y_true, other, what: str, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    Y = _binary(Y_true, "Y_true")
    if binary:
        P = _binary(other, what)
    else:
        P = _dense(other, what).astype(np.float64)
        if np.isnan(P).any():
            raise ValueError(f"{what} contain NaN")
    if Y.shape != P.shape:
        raise ValueError(f"Y_true has shape {Y.shape} but {what} have shape {P.shape}")
    return Y, P


# ------------------------------------------------------------------------------ bipartition losses
def hamming_loss(Y_true, Y_pred) -> float:
    """Fraction of wrongly predicted label entries."""
    Y, P = _pair(Y_true, Y_pred, "predictions", binary=True)
    return float(np.mean(Y != P)) if Y.size else 0.0


def subset_zero_one_loss(Y_true, Y_pred) -> float:
    """Fraction of examples whose predicted label set is not exactly right."""
    Y, P = _pair(Y_true, Y_pred, "predictions", binary=True)
    return float(np.mean(np.any(Y != P, axis=1))) if Y.shape[0] else 0.0


def _ratio(num, den) -> np.ndarray:
    """num / den, 1 where den is 0 (scikit-learn's ``zero_division=1``)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


LABEL_SET_FORMULAS = {  # (tp, fp, fn) -> value
    "precision": lambda tp, fp, fn: _ratio(tp, tp + fp),
    "recall": lambda tp, fp, fn: _ratio(tp, tp + fn),
    "f1": lambda tp, fp, fn: _ratio(2 * tp, 2 * tp + fp + fn),
    "jaccard": lambda tp, fp, fn: _ratio(tp, tp + fp + fn),
}


def label_set_measure(formula: str, average: str, Y, P) -> float:
    """Precision, recall, F1 or Jaccard (``formula``) of 0/1 truth ``Y`` and predictions ``P``,
    averaged per example ('example'), per label ('macro') or over all pooled pairs ('micro'); a
    ratio with denominator 0 is 1, and so is the mean of nothing."""
    Y = np.asarray(Y, dtype=bool)
    P = np.asarray(P, dtype=bool)
    axis = {"micro": None, "example": 1, "macro": 0}[average]
    counts = (np.sum(Y & P, axis=axis), np.sum(~Y & P, axis=axis), np.sum(Y & ~P, axis=axis))
    values = LABEL_SET_FORMULAS[formula](*counts)
    if average == "micro":
        return float(values)
    return float(np.mean(values)) if values.size else 1.0


def example_f1(Y_true, Y_pred) -> float:
    """Mean over examples of the F1 between true and predicted label sets."""
    return label_set_measure("f1", "example", *_pair(Y_true, Y_pred, "predictions", binary=True))


def micro_f1(Y_true, Y_pred) -> float:
    """F1 over all label entries pooled."""
    return label_set_measure("f1", "micro", *_pair(Y_true, Y_pred, "predictions", binary=True))


def macro_f1(Y_true, Y_pred) -> float:
    """Mean over labels of each label's F1."""
    return label_set_measure("f1", "macro", *_pair(Y_true, Y_pred, "predictions", binary=True))


def _ranks(Y: np.ndarray, S: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (1 = highest score) of every label among all labels and among the relevant labels only."""
    dense = rankdata(S, method="dense", axis=1)  # finite stand-ins for the scores, >= 1
    among_all = rankdata(-dense, method=method, axis=1)
    among_relevant = rankdata(-np.where(Y, dense, 0), method=method, axis=1)  # irrelevant sink to the bottom
    return among_all, among_relevant


def _mean_or_nan(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else float("nan")


def _rank_loss_values(Y: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n_relevant = Y.sum(axis=1)
    keep = (n_relevant > 0) & (n_relevant < Y.shape[1])
    values = np.zeros(Y.shape[0])
    if keep.any():
        Yk, Sk, nk = Y[keep], S[keep], n_relevant[keep]
        among_all, among_relevant = _ranks(Yk, Sk, "average")
        # for a relevant label: (#irrelevant scored higher) + (#irrelevant tied) / 2
        wrong = np.sum(np.where(Yk, among_all - among_relevant, 0.0), axis=1)
        values[keep] = wrong / (nk * (Y.shape[1] - nk))
    return values, keep


def _one_error_values(Y: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = Y.any(axis=1)
    top = S == S.max(axis=1, keepdims=True) if S.shape[1] else np.zeros(S.shape, dtype=bool)
    return np.where(keep, np.any(top & ~Y, axis=1), False).astype(np.float64), keep


def _coverage_values(Y: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = Y.any(axis=1)
    values = np.zeros(Y.shape[0])
    if keep.any():
        among_all, _ = _ranks(Y[keep], S[keep], "max")
        values[keep] = np.max(np.where(Y[keep], among_all, 0), axis=1) - 1.0
    return values, keep


def _precision_values(Y: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = Y.any(axis=1)
    values = np.zeros(Y.shape[0])
    if keep.any():
        Yk = Y[keep]
        among_all, among_relevant = _ranks(Yk, S[keep], "max")
        values[keep] = np.where(Yk, among_relevant / among_all, 0.0).sum(axis=1) / Yk.sum(axis=1)
    return values, keep


def ndcg_values(Y_true, scores, k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per example NDCG@k (k None: all labels; gain 1/log2(1 + rank); among equal scores the
    irrelevant labels first) and whether it counts (a relevant label)."""
    Y, S = truth_and_scores(Y_true, scores)
    keep = Y.any(axis=1)
    values = np.zeros(Y.shape[0])
    if keep.any():
        Yk, Sk = Y[keep], S[keep]
        K = Y.shape[1]
        depth = K if k is None else min(k, K)
        order = np.lexsort((Yk.astype(np.int8), -Sk))  # row by row, along the labels
        gains = np.take_along_axis(Yk, order, axis=1)[:, :depth].astype(np.float64)
        discount = 1.0 / np.log2(np.arange(2, depth + 2))
        n_relevant = np.minimum(Yk.sum(axis=1), depth)
        values[keep] = (gains @ discount) / np.cumsum(discount)[n_relevant - 1]
    return values, keep


RANKING_VALUES = {"rank-loss": _rank_loss_values, "one-error": _one_error_values, "coverage": _coverage_values,
                  "lrap": _precision_values}


def ranking_values(name: str, Y_true, scores) -> tuple[np.ndarray, np.ndarray]:
    """Per example the ranking measure ``name`` (rank-loss, one-error, coverage, lrap) and whether the
    example counts (rank loss: some but not all labels relevant; the others: a relevant label); the
    measure is the mean of the counted values."""
    Y, S = _pair(Y_true, scores, "scores", binary=False)
    return RANKING_VALUES[name](Y, S)


def _counted_mean(name: str, Y_true, scores) -> float:
    values, keep = ranking_values(name, Y_true, scores)
    return _mean_or_nan(values[keep])


def rank_loss(Y_true, scores) -> float:
    """Mean fraction of (relevant, irrelevant) label pairs ranked the wrong way; ties count half."""
    return _counted_mean("rank-loss", Y_true, scores)


def one_error(Y_true, scores) -> float:
    """Fraction of examples whose top-scored label is irrelevant (any irrelevant label tied at the top)."""
    return _counted_mean("one-error", Y_true, scores)


def coverage(Y_true, scores) -> float:
    """Mean number of steps down the ranking needed to cover all relevant labels (Mulan: max rank - 1)."""
    return _counted_mean("coverage", Y_true, scores)


def average_precision(Y_true, scores) -> float:
    """Mean over examples and their relevant labels of the fraction of relevant labels ranked at or above."""
    return _counted_mean("lrap", Y_true, scores)
