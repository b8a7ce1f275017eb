"""mlrl-seco's heuristics, lift functions, heads and IREP in engine.seco, against values computed by hand
(the parity with the reference itself: tests/test_mlrl_seco_parity.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.core.seco_search import (HEAD_PARTIAL_ALL, HEAD_PARTIAL_SEARCH, HEAD_SINGLE_MODE, Heuristic, label_quality,
                                     mlrl_head_of)
from engine.seco import MLRL_HEURISTICS, SeCoClassifier, lift_tables

F32 = np.float32


def q(name, majority, c1, c0, u1, u0, p=0.0):
    return float(label_quality(MLRL_HEURISTICS[name], F32(p), majority, c1, c0, u1, u0))


def test_heuristics_by_hand():
    """A head predicting 'present' (majority absent) covering 3 relevant and 1 irrelevant of 10 relevant and 30
    irrelevant uncovered pairs: crp 3, cip 1, urp 7, uip 29."""
    assert q("precision", 0, 3, 1, 10, 30) == pytest.approx(3 / 4)
    assert q("recall", 0, 3, 1, 10, 30) == pytest.approx(3 / 10)
    assert q("laplace", 0, 3, 1, 10, 30) == pytest.approx(4 / 6)
    # WRA: covered/total x (covered correct/covered - equal/total) = 4/40 x (3/4 - 10/40)
    assert q("weighted-relative-accuracy", 0, 3, 1, 10, 30) == pytest.approx(0.1 * 0.5)
    # F-measure, beta 0.25 (the default): (1 + b2) 3 / ((1 + b2) 3 + b2 7 + 1)
    b2 = 0.0625
    assert q("f-measure", 0, 3, 1, 10, 30, 0.25) == pytest.approx((1 + b2) * 3 / ((1 + b2) * 3 + b2 * 7 + 1), rel=1e-6)
    assert q("f-measure", 0, 3, 1, 10, 30, math.inf) == q("recall", 0, 3, 1, 10, 30)
    assert q("f-measure", 0, 3, 1, 10, 30, 0.0) == q("precision", 0, 3, 1, 10, 30)
    # m-estimate: (3 + m x 10/40) / (4 + m)
    assert q("m-estimate", 0, 3, 1, 10, 30, 22.466) == pytest.approx((3 + 22.466 * 0.25) / (4 + 22.466), rel=1e-6)
    assert q("m-estimate", 0, 3, 1, 10, 30, math.inf) == q("weighted-relative-accuracy", 0, 3, 1, 10, 30)
    # accuracy as mlrl-seco 0.15.6 has it: (crp + urp) / all = the predicted value's share, whatever the body
    assert q("accuracy", 0, 3, 1, 10, 30) == pytest.approx(10 / 40) == q("accuracy", 0, 0, 5, 10, 30)
    # majority present: the head predicts absent, the irrelevant pairs are the correct ones (cin 1, crn 3)
    assert q("precision", 1, 3, 1, 10, 30) == pytest.approx(1 / 4)
    assert q("recall", 1, 3, 1, 10, 30) == pytest.approx(1 / 30)
    # nothing covered and nothing to cover: 0 (divide or zero), Laplace 1/2
    assert q("precision", 0, 0, 0, 0, 0) == 0.0 and q("laplace", 0, 0, 0, 0, 0) == 0.5


def test_lift_functions_by_hand():
    Y = np.zeros((10, 6), np.uint8)
    Y[:, :3] = 1  # label cardinality 3
    lift, bound = lift_tables("none", 6, Y)
    assert (lift == 1).all() and (bound == 1).all()
    lift, bound = lift_tables("kln{k=0.5}", 6, Y)
    assert lift[1] == 1 and lift[4] == pytest.approx(1 + 0.5 * math.log(4)) and bound[1] == pytest.approx(1 + 0.5 * math.log(6))
    lift, bound = lift_tables("peak", 6, Y)  # peak 2, max lift 1.08, curvature 1
    assert lift[2] == pytest.approx(1.08) and lift[1] == pytest.approx(1.0)
    # above the peak the reference's normalisation (n - K)/(K - peak) is negative: 1 - 0.08 x (6 - n)/4
    assert lift[3] == pytest.approx(1 - 0.08 * 3 / 4) and lift[6] == pytest.approx(1.0)
    assert bound[1] == pytest.approx(1.08) and bound[5] == pytest.approx(1 - 0.08 / 4)
    lift, _ = lift_tables("peak{peak_label=0,max_lift=1.5,curvature=2}", 6, Y)  # peak = cardinality 3
    assert lift[3] == pytest.approx(1.5) and lift[2] == pytest.approx(1 + math.sqrt(0.5) * 0.5)
    assert math.isnan(lift[4])  # (negative)^(1/2), as in the reference


def _head(mode, T1, T0, U1, U0, majority, lift=None, cand=None):
    K = len(T1)
    lift = np.ones(K + 1, F32) if lift is None else lift
    cand = np.arange(K, dtype=np.int64) if cand is None else np.asarray(cand, np.int64)
    labels = np.empty(K, np.int64)
    heu = Heuristic(MLRL_HEURISTICS["precision"], F32(0), mode, lift, np.ones(K + 1, F32) * lift.max())
    value, size = mlrl_head_of(heu, np.asarray(majority, np.uint8), cand, len(cand), np.asarray(T1, float),
                               np.asarray(T0, float), np.asarray(U1, float), np.asarray(U0, float), labels)
    return float(value), sorted(labels[:size].tolist())


def test_single_and_partial_heads_by_hand():
    # precision per label: 0.5, 0.9, 0.8, 0.9 (labels 1 and 3 tie: the first wins a single head)
    T1, T0 = [5, 9, 8, 9], [5, 1, 2, 1]
    U1, U0 = [20, 20, 20, 20], [20, 20, 20, 20]
    maj = [0, 0, 0, 0]
    assert _head(HEAD_SINGLE_MODE, T1, T0, U1, U0, maj) == (pytest.approx(0.9), [1])
    # partial without lift: a longer prefix must be strictly better, a tie does not grow the head
    assert _head(HEAD_PARTIAL_SEARCH, T1, T0, U1, U0, maj) == (pytest.approx(0.9), [1])
    lift = np.array([1, 1, 1.01, 1, 1], F32)  # a small lift for two labels: the tied pair wins
    assert _head(HEAD_PARTIAL_SEARCH, T1, T0, U1, U0, maj, lift) == (pytest.approx(0.909, rel=1e-6), [1, 3])
    # a lift of 1.2 for three labels: (0.9 + 0.9 + 0.8)/3 x 1.2 = 1.04 beats 0.9
    lift = np.array([1, 1, 1, 1.2, 1], F32)
    value, labels = _head(HEAD_PARTIAL_SEARCH, T1, T0, U1, U0, maj, lift)
    assert value == pytest.approx(2.6 / 3 * 1.2, rel=1e-6) and labels == [1, 2, 3]
    # a fixed head: the mean over its labels times lift(size)
    value, labels = _head(HEAD_PARTIAL_ALL, T1, T0, U1, U0, maj, lift, cand=[0, 2])
    assert value == pytest.approx(0.65) and labels == [0, 2]


def test_irep_keeps_the_prefix_best_on_the_examples_out_of_the_sample():
    """Precision of the fixed head (label 0 present) on the examples out of the sample (weight 0), for
    the full body and each shorter prefix; a strictly better prefix wins, and the first prefix also on a
    tie with the full body."""
    X = np.array([[0.1, 0.1], [0.2, 0.9], [0.3, 0.2], [0.8, 0.1], [0.9, 0.9]])
    Y = np.array([[1], [1], [0], [0], [0]], np.uint8)
    from engine.core.features import build_feature_index
    from engine.rules import Condition

    index = build_feature_index(X.astype(np.float32), np.zeros(2, bool))
    C1 = np.ascontiguousarray(Y == 1, dtype=np.uint8)
    C0 = np.ascontiguousarray(Y == 0, dtype=np.uint8)
    lift = np.ones(2, F32)
    args = (C1, C0, np.zeros(1, np.uint8), MLRL_HEURISTICS["precision"], F32(0), False, lift, lift, index, np.ones(2, np.uint8),
            5)

    def keep(conditions, weights):
        return SeCoClassifier._irep(conditions, [None] * len(conditions), np.array([0]), np.array(weights), *args)

    low0, low1, high1 = Condition(0, "<=", 0.5), Condition(1, "<=", 0.5), Condition(1, ">", 0.5)
    # out: rows 0, 1, 2; x0 <= 0.5 covers all three (2/3), with x1 <= 0.5 rows 0, 2 (1/2): the prefix wins
    assert keep([low0, low1], [0, 0, 0, 1, 1]) == 1
    # out: rows 1, 2; x0 <= 0.5: 1/2; with x1 > 0.5 row 1 alone: 1/1 - the full body stays
    assert keep([low0, high1], [1, 0, 0, 1, 1]) == 2
    # out: rows 0, 1; x0 <= 0.5: 2/2; with x1 <= 0.5 row 0: 1/1 - a tie, the shorter body wins
    assert keep([low0, low1], [0, 0, 1, 1, 1]) == 1
    # three conditions: out rows 1, 2, 4; the prefix of two (x0 <= 0.5, x1 > 0.5: row 1, 1/1) beats the full
    # body (also x0 > 0.15: row 1, 1/1 - tie, but the first better prefix is kept) and the first condition (1/2)
    assert keep([low0, high1, Condition(0, ">", 0.15)], [1, 0, 0, 1, 0]) == 2


def test_irep_prunes_only_with_examples_out_of_the_sample():
    rng = np.random.default_rng(3)
    X = rng.random((200, 4))
    Y = ((X[:, :3] + 0.3 * rng.random((200, 3))) > 0.7).astype(np.uint8)
    plain = SeCoClassifier(instance_sampling="none", max_rules=30, random_state=2).fit(X, Y)
    assert all(r.extra["pruned_conditions"] == 0 for r in plain.records_)
    pruned = SeCoClassifier(instance_sampling="without-replacement{sample_size=0.5}", max_rules=30,
                            random_state=2).fit(X, Y)
    unpruned = SeCoClassifier(instance_sampling="without-replacement{sample_size=0.5}", max_rules=30,
                              random_state=2, rule_pruning="none").fit(X, Y)
    assert sum(r.extra["pruned_conditions"] for r in pruned.records_) > 0
    assert unpruned.records_[0].rule.conditions[:len(pruned.records_[0].rule.conditions)] == \
        pruned.records_[0].rule.conditions  # the same sample, a prefix of the grown body


def test_stopping_by_coverage_and_by_rules():
    """Training ends once no uncovered minority pair is left (the reference's coverage criterion), or after
    max_rules (the default rule counted; 0: no limit)."""
    X = np.arange(8, dtype=float)[:, None]
    Y = np.array([[1], [1], [0], [0], [0], [0], [0], [0]], np.uint8)
    est = SeCoClassifier(instance_sampling="none", max_rules=0).fit(X, Y)
    assert est.stop_reason_ == "coverage" and len(est.rules_) == 2
    assert est.rules_[0].conditions[0].operator == "<=" and est.rules_[0].conditions[0].threshold == 1.5
    np.testing.assert_array_equal(est.predict(X), Y)
    assert len(SeCoClassifier(instance_sampling="none", max_rules=1).fit(X, Y).rules_) == 1


def test_tracked_losses_and_coverage_are_the_models_own():
    """The training losses and coverage recorded per rule are those of the model's predictions (its
    thresholds), also where the reference's training coverage differs (sparse attributes here)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    X = rng.random((150, 5))
    X[rng.random(X.shape) < 0.3] = 0.0
    Y = ((X[:, :3] + 0.2 * rng.random((150, 3))) > 0.5).astype(np.uint8)
    from engine.model import rule_coverage

    est = SeCoClassifier(instance_sampling="none", max_rules=40).fit(sp.csc_matrix(X), Y)
    for record in est.records_:
        assert record.coverage == int(rule_coverage(record.rule, X).sum())
    P = est.predict(X)
    assert est.records_[-1].train_hamming == pytest.approx(float((P != Y).mean()))
