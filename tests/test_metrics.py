"""Evaluation measures: hand-computed tiny cases, edge-case conventions, scikit-learn cross-checks."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from engine.metrics import (average_precision, coverage, example_f1, hamming_loss, macro_f1, micro_f1,
                            one_error, rank_loss, subset_zero_one_loss)

sk = pytest.importorskip("sklearn.metrics")

# --------------------------------------------------------------------------- bipartitions by hand
Y = np.array([[1, 0, 1],
              [0, 1, 0],
              [0, 0, 0]])
P = np.array([[1, 1, 0],
              [0, 1, 0],
              [0, 0, 0]])
BIPARTITION = [
    # wrong entries: row 0 columns 1 and 2 -> 2 of 9
    (hamming_loss, 2 / 9),
    # only row 0 is not exactly right -> 1 of 3
    (subset_zero_one_loss, 1 / 3),
    # row 0: tp 1, fp 1, fn 1 -> 2/(2+1+1) = 0.5; row 1: 1; row 2: empty vs empty -> 1; mean 2.5/3
    (example_f1, 2.5 / 3),
    # pooled tp 2, fp 1, fn 1 -> 4/6
    (micro_f1, 4 / 6),
    # label 0: tp 1 -> 1; label 1: tp 1, fp 1 -> 2/3; label 2: fn 1 -> 0; mean (1 + 2/3 + 0)/3 = 5/9
    (macro_f1, 5 / 9),
]


@pytest.mark.parametrize("measure, expected", BIPARTITION, ids=[m.__name__ for m, _ in BIPARTITION])
def test_bipartition_measures_by_hand(measure, expected):
    assert measure(Y, P) == pytest.approx(expected)
    assert measure(2 * Y - 1, 2 * P - 1) == pytest.approx(expected)  # -1/+1 coding
    assert measure(Y.astype(bool), P.astype(bool)) == pytest.approx(expected)
    assert measure(sp.csr_matrix(Y), sp.csr_matrix(P)) == pytest.approx(expected)


def test_f1_conventions_for_empty_sets():
    empty = np.zeros((2, 3), dtype=int)
    assert example_f1(empty, empty) == 1.0  # no relevant, none predicted: 1 per example
    assert micro_f1(empty, empty) == 1.0
    assert macro_f1(empty, empty) == 1.0
    # label 1 is never relevant and never predicted -> 1; label 0 right -> 1; label 2 predicted wrongly -> 0
    assert macro_f1([[1, 0, 0]], [[1, 0, 1]]) == pytest.approx(2 / 3)
    # predicted something when nothing was relevant -> 0 for that example
    assert example_f1([[0, 0]], [[1, 0]]) == 0.0


# --------------------------------------------------------------------------- rankings by hand
YR = np.array([[1, 0, 1, 0],
               [0, 1, 0, 0],
               [0, 0, 0, 0],    # no relevant label: skipped by every ranking measure
               [1, 1, 1, 1]])   # all relevant: no pairs, skipped by rank_loss only
S = np.array([[0.9, 0.5, 0.2, 0.2],
              [0.3, 0.1, 0.3, 0.0],
              [0.4, 0.3, 0.2, 0.1],
              [0.1, 0.2, 0.3, 0.4]])
RANKING = [
    # ex 0: pairs (0,1) ok, (0,3) ok, (2,1) wrong, (2,3) tied -> 1.5/4 = 0.375
    # ex 1: relevant 1 (0.1) below irrelevant 0 and 2 (0.3), above 3 (0.0) -> 2/3
    # mean over examples 0 and 1: (0.375 + 2/3) / 2
    (rank_loss, (0.375 + 2 / 3) / 2),
    # ex 0: top label 0 relevant -> 0; ex 1: top labels 0 and 2 (tied) irrelevant -> 1; ex 3 -> 0; 1/3
    (one_error, 1 / 3),
    # rank = number of labels scored at least as high; ex 0: label 2 has rank 4 -> 3;
    # ex 1: label 1 rank 3 -> 2; ex 3: label 0 rank 4 -> 3; mean 8/3
    (coverage, 8 / 3),
    # ex 0: label 0: 1/1, label 2: 2 relevant among rank 4 -> 2/4; mean 0.75
    # ex 1: label 1: 1 relevant among rank 3 -> 1/3; ex 3: all relevant -> 1; mean (0.75 + 1/3 + 1)/3
    (average_precision, (0.75 + 1 / 3 + 1) / 3),
]


@pytest.mark.parametrize("measure, expected", RANKING, ids=[m.__name__ for m, _ in RANKING])
def test_ranking_measures_by_hand(measure, expected):
    assert measure(YR, S) == pytest.approx(expected)
    assert measure(2 * YR - 1, S) == pytest.approx(expected)
    assert measure(sp.csr_matrix(YR), sp.csr_matrix(S)) == pytest.approx(expected)
    # only the order of the scores matters, infinities included
    assert measure(YR, np.where(S == S.max(axis=1, keepdims=True), np.inf, 10 * S - 3)) == pytest.approx(expected)


def test_ties_at_the_top_are_pessimistic():
    assert one_error([[1, 0]], [[0.5, 0.5]]) == 1.0
    assert coverage([[1, 0]], [[0.5, 0.5]]) == 1.0           # the relevant label ranks second
    assert average_precision([[1, 0]], [[0.5, 0.5]]) == 0.5  # 1 relevant among rank 2
    assert rank_loss([[1, 0]], [[0.5, 0.5]]) == 0.5          # the tied pair counts half


def test_ranking_measures_without_any_usable_example_are_nan():
    for measure in (rank_loss, one_error, coverage, average_precision):
        assert math.isnan(measure([[0, 0]], [[0.1, 0.2]]))
    assert math.isnan(rank_loss([[1, 1]], [[0.1, 0.2]]))


# --------------------------------------------------------------------------- validation
def test_validation_errors():
    with pytest.raises(ValueError, match=r"Y_true has shape \(1, 2\) but predictions have shape \(1, 3\)"):
        hamming_loss([[1, 0]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="must be a 2-D array"):
        hamming_loss([1, 0], [1, 0])
    with pytest.raises(ValueError, match=r"must hold 0/1 or -1/\+1 values, found \[2\]"):
        micro_f1([[1, 0]], [[2, 0]])
    with pytest.raises(ValueError, match="both 0 and -1"):
        micro_f1([[1, 0, -1]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="scores contain NaN"):
        rank_loss([[1, 0]], [[np.nan, 0.0]])
    with pytest.raises(ValueError, match="Y_true has shape"):
        coverage([[1, 0]], [[0.1, 0.2], [0.3, 0.4]])


# --------------------------------------------------------------------------- scikit-learn cross-checks
def random_case(seed, n=300, k=8, ties=False):
    """Every example has at least one relevant and one irrelevant label (sklearn scores the others 0 or 1
    and averages them in, where these measures skip them)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, k)) < 0.3).astype(int)
    Y[np.arange(n), rng.integers(0, k, n)] = 1
    Y[Y.sum(axis=1) == k, 0] = 0
    scores = rng.random((n, k))
    if ties:
        scores = np.round(scores, 1)
    predictions = (rng.random((n, k)) < 0.35).astype(int)
    return Y, scores, predictions


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bipartition_measures_match_sklearn(seed):
    Y, _, P = random_case(seed)
    P[:, 0] = 0
    Y[:, 0] = 0  # a label never relevant, never predicted: F1 1 here and with zero_division=1
    assert hamming_loss(Y, P) == pytest.approx(sk.hamming_loss(Y, P))
    assert subset_zero_one_loss(Y, P) == pytest.approx(1 - sk.accuracy_score(Y, P))
    assert micro_f1(Y, P) == pytest.approx(sk.f1_score(Y, P, average="micro"))
    assert macro_f1(Y, P) == pytest.approx(sk.f1_score(Y, P, average="macro", zero_division=1))
    assert example_f1(Y, P) == pytest.approx(sk.f1_score(Y, P, average="samples", zero_division=1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranking_measures_match_sklearn(seed):
    Y, S, _ = random_case(seed)  # continuous scores: no ties
    assert rank_loss(Y, S) == pytest.approx(sk.label_ranking_loss(Y, S))
    assert coverage(Y, S) == pytest.approx(sk.coverage_error(Y, S) - 1)  # Mulan convention: sklearn - 1
    assert average_precision(Y, S) == pytest.approx(sk.label_ranking_average_precision_score(Y, S))
    top = S.argmax(axis=1)
    assert one_error(Y, S) == pytest.approx(np.mean(Y[np.arange(len(Y)), top] == 0))


def test_pessimistic_ties_match_sklearn():
    Y, S, _ = random_case(5, ties=True)  # scores rounded to 0.1: many ties
    assert coverage(Y, S) == pytest.approx(sk.coverage_error(Y, S) - 1)
    assert average_precision(Y, S) == pytest.approx(sk.label_ranking_average_precision_score(Y, S))
    # sklearn counts a tied pair as a whole error, these measures as half an error
    assert rank_loss(Y, S) < sk.label_ranking_loss(Y, S)
