"""Partial heads with mlrl-boomer 0.15.6's meaning (``head_type='partial-fixed{...}'`` and
``'partial-dynamic{...}'``): the label selection against hand-computed and brute-force selections, and
the learned rules against the reference in its own interpreter (``tests/mlrl_reference_driver.py``;
``MLRL_REFERENCE_PYTHON`` names it, without it those tests are skipped, saying why).

The meaning (``engine/core/head_variants.py``): a fixed head predicts the n labels with the largest
absolute individual scores, n = ceil(output_ratio x K) in single precision bounded by min/max_outputs
(ratio 0: the average label cardinality / K), ties ordered as libstdc++'s ``std::partial_sort`` leaves
them; a dynamic head every label with (|s_k| - min|s|)^e >= (1 - t) (max|s| - min|s|)^e; a
non-decomposable loss solves the chosen labels' sub-system as the reference builds it and rates the
solution with the leading gradients and Hessian block (its quirks, reproduced); after the first
condition (``max_head_refinements=1``) the labels are fixed; with output sampling every sampled output
is predicted.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.core.head_variants import (HEAD_BINNED_DYNAMIC, HEAD_BINNED_FIXED, HEAD_PARTIAL_DYNAMIC, HEAD_PARTIAL_FIXED,
                                       gather_as_reference, label_cardinality32, leading_block_quality,
                                       partial_fixed_size, partial_sort_by_magnitude, select_labels, solve_as_sysv,
                                       variant_head, variant_quality)
from engine.core.losses import packed_index
from engine.model import rule_coverage
from test_mlrl_parity import _WHY, DETERMINISTIC, _ask, _negative_data

reference = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


# -- label selection ---------------------------------------------------------------------------------

def _select(scores, mode, params):
    """select_labels on statistics whose individual scores are ``scores`` (g = -s, h = 0, lambda = 1)."""
    s = np.asarray(scores, dtype=float)
    K = len(s)
    selected, keys = np.empty(K, np.int64), np.empty(K)
    n = select_labels(-s, np.zeros(K), False, mode, np.asarray(params, dtype=float), 1.0, 0.0, selected, keys)
    return list(selected[:n])


# (scores, n, the labels in the order libstdc++'s std::partial_sort with |a| > |b| leaves them: printed by
# a program compiled with g++ 13, which also agreed with partial_sort_by_magnitude on 3000 random cases)
LIBSTDCXX_ORDERS = [
    ([1, 1, 1, 1, 1, 1], 3, [0, 1, 2]),
    ([1, 1, 1, 1, 1, 1], 6, [3, 4, 1, 0, 2, 5]),
    ([-1, 1, -1, 1, 0.5], 2, [0, 1]),
    ([0, 2, -2, 0, 2, 1, -2], 3, [4, 1, 2]),
    ([0, 0, 0, 0, 0, 0, 0, 0], 4, [1, 3, 0, 2]),
]


@pytest.mark.parametrize("scores, n, expected", LIBSTDCXX_ORDERS)
def test_fixed_heads_break_ties_as_the_references_partial_sort(scores, n, expected):
    keys = -np.abs(np.asarray(scores, dtype=float))
    labels = np.arange(len(scores), dtype=np.int64)
    partial_sort_by_magnitude(keys, labels, n, len(scores))
    assert list(labels[:n]) == expected
    assert _select(scores, HEAD_PARTIAL_FIXED, [n, 0, 0]) == expected  # zero scores are predicted too


def test_fixed_heads_are_the_n_largest_absolute_scores_largest_first():
    rng = np.random.default_rng(3)
    for _ in range(200):
        K = int(rng.integers(1, 12))
        s = rng.normal(size=K)
        n = int(rng.integers(1, K + 1))
        assert _select(s, HEAD_PARTIAL_FIXED, [n, 0, 0]) == list(np.argsort(-np.abs(s), kind="stable")[:n])


@pytest.mark.parametrize("threshold, exponent, expected", [
    (0.02, 2.0, [1]),  # bound 0.98 x 0.5^2 = 0.245: only 0.5^2 = 0.25
    (0.2, 2.0, [1, 4]),  # bound 0.2: 0.45^2 = 0.2025 too
    (0.7, 2.0, [1, 2, 4]),  # bound 0.075: 0.3^2 = 0.09 too, 0.1^2 not
    (0.02, 1.0, [1]),  # bound 0.49
    (0.85, 1.0, [0, 1, 2, 4]),  # bound 0.075: 0.1 too, the zero not
])
def test_dynamic_heads_by_hand(threshold, exponent, expected):
    """Scores [0.1, -0.5, 0.3, 0, 0.45]: min |s| 0, max 0.5; kept if |s|^e >= (1 - t) 0.5^e."""
    assert _select([0.1, -0.5, 0.3, 0.0, 0.45], HEAD_PARTIAL_DYNAMIC, [0, threshold, exponent]) == expected


def test_dynamic_heads_range_over_min_and_max_and_take_one_minus_threshold_in_single_precision():
    # min |s| = 0.2 is subtracted: (0.5 - 0.2) / (0.6 - 0.2) = 0.75 >= 0.7 (t = 0.3), 0.4 -> 0.5 not
    assert _select([0.2, -0.6, 0.5, 0.4], HEAD_PARTIAL_DYNAMIC, [0, 0.3, 1.0]) == [1, 2]
    # equal |scores| (all zero too): every label, as (x - min)^e = 0 >= (1 - t) 0^e
    assert _select([0.3, -0.3, 0.3], HEAD_PARTIAL_DYNAMIC, [0, 0.02, 2.0]) == [0, 1, 2]
    assert _select([0.0, 0.0], HEAD_PARTIAL_DYNAMIC, [0, 0.5, 1.5]) == [0, 1]
    # 1 - 0.1f = 0.899999988 in single precision: 0.89999998 is kept (0.9 in double would drop it)
    assert _select([0.0, 1.0, 0.89999998], HEAD_PARTIAL_DYNAMIC, [0, 0.1, 1.0]) == [1, 2]
    assert not 0.89999998 >= 1.0 - 0.1


def test_the_number_of_labels_of_fixed_heads_as_the_reference_bounds_it():
    """calculateBoundedFraction: ceil(ratio x K) in single precision, at least min (K if fewer), at most
    max when max >= min (0: none)."""
    assert partial_fixed_size(8, 0.4, 2, 0) == 4  # 3.2 -> 4 (our former rounding gave 3)
    assert partial_fixed_size(8, 0.25, 2, 0) == 2
    assert partial_fixed_size(8, 0.1, 2, 0) == 2  # the minimum
    assert partial_fixed_size(8, 0.5, 2, 3) == 3  # the maximum
    assert partial_fixed_size(8, 0.9, 2, 0) == 8
    assert partial_fixed_size(1, 0.5, 2, 0) == 1  # a minimum above K is K
    assert partial_fixed_size(25, 0.28, 2, 0) == 7  # 0.28f x 25 = 7 in float32 (7.000000000000001 in double)
    assert partial_fixed_size(25, 0.6, 2, 0) == 16  # 0.6f x 25 = 15.000001 in float32 (15 in double)
    counts = np.array([1, 2, 2, 3, 0, 1], dtype=np.float32)
    mean = np.float32(0.0)
    for i, x in enumerate(counts):
        mean = np.float32(mean + (x - mean) / np.float32(i + 1))
    assert label_cardinality32(counts) == mean == pytest.approx(1.5, rel=1e-6)


def test_non_decomposable_partial_heads_are_solved_and_rated_as_the_reference_does():
    """The sub-system of labels [2, 0] (a fixed head's order) reads the entry of positions (0, 1) at
    tri(0) + 2 = 2 of the column-wise packed triangle, i.e. H[1, 1] instead of H[2, 0]; the solution is
    rated with g[0:2] and the leading block H[0:2, 0:2]; an indefinite system is solved as sysv does."""
    K = 3
    Hd = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.7], [0.5, -0.7, 5.0]])
    h = np.array([Hd[a, b] for a in range(K) for b in range(a, K)])  # row-wise packed upper (ours)
    assert all(h[packed_index(a, b, K)] == Hd[a, b] for a in range(K) for b in range(a, K))
    g = np.array([-1.0, 2.0, -3.0])
    labels = np.array([2, 0], dtype=np.int64)
    sub_g, sub_h = np.empty(K), np.empty(K * (K + 1) // 2)
    gather_as_reference(g, h, labels, 2, sub_g, sub_h)
    assert list(sub_g[:2]) == [-3.0, -1.0]
    assert list(sub_h[:3]) == [Hd[2, 2], Hd[1, 1], Hd[0, 0]]  # (0, 0), (0, 1) garbled, (1, 1)
    p = np.empty(K)
    solve_as_sysv(sub_g, sub_h, 2, 1.0, 0.0, np.zeros((K, K)), p)
    system = np.array([[Hd[2, 2], Hd[1, 1]], [Hd[1, 1], Hd[0, 0]]]) + np.eye(2)
    np.testing.assert_allclose(p[:2], np.linalg.solve(system, [3.0, 1.0]), rtol=1e-12)
    q = leading_block_quality(p, g, h, 2, 1.0, 0.0)
    assert q == pytest.approx(g[:2] @ p[:2] + 0.5 * p[:2] @ Hd[:2, :2] @ p[:2] + 0.5 * p[:2] @ p[:2], rel=1e-12)
    # an indefinite system (no Cholesky factor): Gaussian elimination, as LAPACK's sysv solves it
    indefinite = np.array([1.0, 5.0, 1.0])  # [[1, 5], [5, 1]] packed, eigenvalues 6 and -4
    solve_as_sysv(np.array([1.0, 2.0]), indefinite, 2, 0.0, 0.0, np.zeros((2, 2)), p)
    np.testing.assert_allclose(p[:2], np.linalg.solve([[1.0, 5.0], [5.0, 1.0]], [-1.0, -2.0]), rtol=1e-12)


def _binned(g, h, mode, params):
    K = len(g)
    scratch = np.empty((3, 8), np.int64)
    q = variant_quality(g, h, False, mode, np.asarray(params, float), 1.0, 0.0, np.zeros((K, K)), np.zeros(K),
                        scratch[0], scratch[1], scratch[2], np.empty(8), np.empty(8))
    labels, scores = np.empty(K, np.int64), np.empty(K)
    n = variant_head(g, h, False, mode, np.asarray(params, float), 1.0, 0.0, 1.0, np.zeros((K, K)), scratch[0],
                     scratch[1], scratch[2], np.empty(8), np.empty(8), labels, scores)
    return q, list(labels[:n]), list(scores[:n])


def test_binned_partial_heads_bin_the_chosen_labels_but_sum_the_first_labels_statistics():
    """Label binning of a partial head as mlrl-boomer 0.15.6 does it: scores [0.1, 0.5, -0.4, 0.45] (g = -s,
    h = 0, lambda = 1); two labels with the largest |score|, 1 and 3, one bin (ratio 0.5 of 2 positive
    scores); the bin sums the statistics of the selection's positions 0 and 1, i.e. of labels 0 and 1:
    g = -0.6, L2 weight 2: score 0.3 for both (the chosen labels' own sum, -0.95, would give 0.475)."""
    g = -np.array([0.1, 0.5, -0.4, 0.45])
    h = np.zeros(4)
    q, labels, scores = _binned(g, h, HEAD_BINNED_FIXED, [2, 0, 0, 2, 0.5, 1, 0])
    assert labels == [1, 3] and scores == pytest.approx([0.3, 0.3]) and q == pytest.approx(-0.5 * 0.36 / 2)
    # dynamic (t = 0.5: |s| - 0.1 >= 0.2): labels 1, 2, 3 at positions 0, 1, 2; bins: -0.4 alone (label 2,
    # position 1: label 1's statistics, g = -0.5: score 0.5), 0.5 and 0.45 share one (positions 0, 2:
    # labels 0 and 2, g = -0.1 + 0.4, L2 weight 2: score -0.15)
    q, labels, scores = _binned(g, h, HEAD_BINNED_DYNAMIC, [0, 0.5, 1.0, 2, 0.5, 1, 0])
    assert labels == [1, 2, 3] and scores == pytest.approx([-0.15, 0.5, -0.15])
    assert q == pytest.approx(-0.5 * 0.09 / 2 - 0.5 * 0.25 / 1)


# -- the rules against the reference ---------------------------------------------------------------

def _conditions(conditions):
    return sorted((a, op, round(t, 5)) for a, op, t in conditions)


def _reference_covers(conditions, X):
    X32 = np.asarray(X, dtype=np.float32)
    mask = np.ones(len(X), bool)
    for a, op, t in conditions:
        mask &= (X32[:, a] <= np.float32(t)) if op == "<=" else (X32[:, a] > np.float32(t))
    return mask


def _rules_until_a_tie(settings, tmp_path, k=8, seed=0):
    """Fit both on 200 examples; compare rule by rule.  Every rule has the reference's head (labels and
    scores); its conditions are the reference's too, up to the first rule where the two chose different
    conditions that cover the same training examples (an exact tie of the qualities, which each learner
    breaks by its own rounding).  Returns (rules equal before that tie, rules)."""
    X, Y = _negative_data(n=300, d=6, k=k, seed=seed)
    data = tmp_path / "data.npz"
    np.savez(data, X_train=X[:200], Y_train=Y[:200], X_test=X[200:])
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "rules": True}, tmp_path)
    ours = BoomerClassifier(**settings).fit(X[:200], Y[:200])
    assert ref["n_rules"] == len(ours.rules_)
    for i, (theirs, mine) in enumerate(zip(ref["rules"], ours.rules_)):
        labels = list(range(k)) if theirs["labels"] is None else theirs["labels"]
        assert list(mine.head_labels) == labels, i
        np.testing.assert_allclose(mine.head_scores, theirs["scores"], rtol=1e-6, atol=1e-7, err_msg=str(i))
        mine_conditions = [(c.attribute, c.operator, c.threshold) for c in mine.conditions]
        if _conditions(theirs["conditions"]) != _conditions(mine_conditions):
            np.testing.assert_array_equal(rule_coverage(mine, X[:200]),
                                          _reference_covers(theirs["conditions"], X[:200]), err_msg=str(i))
            return i, len(ours.rules_)
    np.testing.assert_allclose(ours.decision_function(X[200:]), np.asarray(ref["scores"]), rtol=1e-6, atol=1e-7)
    return len(ours.rules_), len(ours.rules_)


PARTIAL_SETTINGS = [  # (loss, head_type, rule_induction, rules equal before the first exact tie)
    ("logistic-decomposable", "partial-fixed", None, 12),
    ("logistic-decomposable", "partial-fixed{output_ratio=0.4}", None, 12),
    ("logistic-decomposable", "partial-fixed{output_ratio=0.5,min_outputs=2,max_outputs=3}", None, 3),
    ("logistic-decomposable", "partial-dynamic", None, 8),
    ("logistic-decomposable", "partial-dynamic{threshold=0.3,exponent=1.5}", None, 12),
    ("logistic-non-decomposable", "partial-fixed", None, 10),
    ("logistic-non-decomposable", "partial-fixed{output_ratio=0.3}", None, 3),
    ("logistic-non-decomposable", "partial-dynamic", None, 12),
    ("logistic-non-decomposable", "partial-dynamic{threshold=0.3,exponent=1.5}", None, 12),
    # labels never fixed (engine.core.induction): a non-decomposable fixed head keeps the reference's
    # sub-system of its last condition
    ("logistic-decomposable", "partial-fixed{output_ratio=0.4}", "top-down-greedy{max_head_refinements=0}", 7),
    ("logistic-non-decomposable", "partial-fixed", "top-down-greedy{max_head_refinements=0}", 12),
    ("logistic-non-decomposable", "partial-dynamic", "top-down-greedy{max_head_refinements=2}", 12),
]


@reference
@pytest.mark.parametrize("loss, head_type, rule_induction, n_equal", PARTIAL_SETTINGS)
def test_partial_heads_learn_the_references_rules(loss, head_type, rule_induction, n_equal, tmp_path):
    """Deterministic settings (no sampling, 64-bit statistics), 12 rules, 8 labels: the reference's heads
    throughout, its conditions up to an exact tie (see _rules_until_a_tie)."""
    settings = {**DETERMINISTIC, "loss": loss, "head_type": head_type, "max_rules": 12}
    if rule_induction:
        settings["rule_induction"] = rule_induction
    equal, total = _rules_until_a_tie(settings, tmp_path)
    assert total == 12 and equal >= n_equal


BINNED_SETTINGS = [  # (loss, head_type, label_binning (None: the default, auto), rule_induction, rules equal
    # before a tie); max_head_refinements other than 1: engine.core.induction
    ("logistic-non-decomposable", "partial-fixed", None, None, 12),
    ("logistic-non-decomposable", "partial-dynamic", None, None, 12),
    ("logistic-non-decomposable", "partial-fixed{output_ratio=0.5}", "equal-width{bin_ratio=0.5}", None, 10),
    ("logistic-decomposable", "partial-fixed{output_ratio=0.5}", "equal-width{bin_ratio=0.5}", None, 12),
    ("logistic-decomposable", "partial-dynamic{threshold=0.3}", "equal-width{bin_ratio=0.5}", None, 12),
    ("logistic-non-decomposable", "partial-fixed", None, "top-down-greedy{max_head_refinements=0}", 12),
    ("logistic-non-decomposable", "partial-dynamic", None, "top-down-greedy{max_head_refinements=2}", 12),
    ("logistic-decomposable", "partial-fixed{output_ratio=0.5}", "equal-width{bin_ratio=0.5}",
     "top-down-greedy{max_head_refinements=0}", 12),
]


@reference
@pytest.mark.parametrize("loss, head_type, label_binning, rule_induction, n_equal", BINNED_SETTINGS)
def test_binned_partial_heads_learn_the_references_rules(loss, head_type, label_binning, rule_induction, n_equal,
                                                         tmp_path):
    """Label binning of partial heads (the default for non-decomposable losses): the reference's heads,
    the default rule's binned complete head included, and its conditions up to an exact tie."""
    settings = {**DETERMINISTIC, "loss": loss, "head_type": head_type, "max_rules": 12}
    settings.pop("label_binning")
    if label_binning:
        settings["label_binning"] = label_binning
    if rule_induction:
        settings["rule_induction"] = rule_induction
    assert BoomerClassifier(**settings).label_binning_used
    equal, total = _rules_until_a_tie(settings, tmp_path)
    assert total == 12 and equal >= n_equal


@reference
@pytest.mark.parametrize("loss, head_type", [("logistic-decomposable", "partial-fixed{output_ratio=0.25}"),
                                             ("logistic-non-decomposable", "partial-dynamic")])
def test_with_output_sampling_partial_heads_predict_every_sampled_output(loss, head_type, tmp_path):
    """The reference rates a rule for a sample of outputs with its complete evaluation: each rule
    predicts the 4 sampled outputs of 8 (which ones differs: another random generator)."""
    settings = {**DETERMINISTIC, "loss": loss, "head_type": head_type, "max_rules": 5,
                "output_sampling": "without-replacement{sample_size=0.5,max_samples=0}"}
    X, Y = _negative_data(n=300, d=6, k=8)
    data = tmp_path / "data.npz"
    np.savez(data, X_train=X[:200], Y_train=Y[:200], X_test=X[200:])
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "rules": True}, tmp_path)
    ours = BoomerClassifier(**settings).fit(X[:200], Y[:200])
    assert {len(r["labels"]) for r in ref["rules"][1:]} == {len(r.head_labels) for r in ours.rules_[1:]} == {4}


def test_fixed_heads_have_the_references_number_of_labels():
    """8 labels: output_ratio 0.4 gives ceil(3.2) = 4; 0 the average label cardinality (in single
    precision) over K, at least min_outputs."""
    X, Y = _negative_data(n=120, d=4, k=8)
    for head_type, expected in (("partial-fixed{output_ratio=0.4}", 4),
                                ("partial-fixed", max(2, math.ceil(np.float32(Y.sum(1).mean()))))):
        est = BoomerClassifier(**{**DETERMINISTIC, "head_type": head_type, "max_rules": 4}).fit(X, Y)
        assert {len(r.head_labels) for r in est.rules_[1:]} == {expected}


@reference
@pytest.mark.parametrize("head_type", ["partial-fixed{output_ratio=1.0}", "partial-dynamic{threshold=1.0}",
                                       "partial-fixed{min_outputs=3,max_outputs=2}"])
def test_invalid_partial_head_options_are_refused_by_both(head_type, tmp_path):
    """mlrl-boomer 0.15.6 asserts 0 < output_ratio < 1 (or 0), 0 < threshold < 1, max_outputs 0 or at
    least min_outputs (before: ours accepted ratio and threshold 1 and any max_outputs)."""
    answer = _ask({"kind": "check", "settings": {"head_type": head_type, "max_rules": 3}}, tmp_path)
    assert not answer["ok"], f"the reference accepts {head_type}"
    X, Y = _negative_data(n=40, d=4, k=3)
    with pytest.raises(ValueError):
        BoomerClassifier(head_type=head_type, max_rules=3).fit(X, Y)
