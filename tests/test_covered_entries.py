"""A rule's covered entries found from its covered examples (engine.core.covered_entries) are the
entries the sweep's own walk compacts, and fits learn the same rules with them as without."""
import numpy as np
import pytest

import engine.boomer.fit_state as boomer_fit_state
from engine.boomer import BoomerClassifier
from engine.core.covered_entries import MISSING, compact_covered, rank_entries
from engine.core.features import build_feature_index
from engine.core.head_variants import HEAD_SINGLE
from engine.core.refinement import (ACCUMULATOR_ROWS, GRADIENT_ACCUMULATOR_ROWS, _sweep_attribute_fast, apply_condition,
                                    restrict_covered)
from engine.core.sweep import OP_GT, OP_GT_NEG, OP_GT_ZERO, OP_LEQ, OP_LEQ_NEG, OP_LEQ_ZERO, OUT_OF_SAMPLE


def _data(seed, n=60, d=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float32)  # negatives, zeros, positives, ties
    X[:, 1] = rng.normal(size=n)
    X[:, 2] = np.abs(X[:, 2])  # no negatives
    X[:, 3] = -np.abs(X[:, 3]) - 1  # only negatives
    X[rng.random((n, d)) < 0.1] = np.nan  # missing values
    X[rng.random(n) < 0.8, 4] = 0.0  # sparse: fewer stored entries than the ranked share
    return X


def _segments(index):
    seg = np.zeros((index.n_features, 5), np.int64)  # column 3: our own numeric search (0)
    return seg


def test_ranks_are_each_examples_position_in_the_sorted_entries():
    X = _data(0)
    index = build_feature_index(X, np.zeros(X.shape[1], np.uint8))
    seg = _segments(index)
    ranks = rank_entries(index, seg)
    stored = np.diff(index.ptr)
    kinds = set()
    for j in range(X.shape[1]):
        r = seg[j, 4]
        if stored[j] < 0.25 * X.shape[0]:
            assert r == -1
            continue
        expected = np.full(X.shape[0], -1)  # the value 0
        expected[np.isnan(X[:, j])] = MISSING
        expected[index.rows[index.ptr[j]:index.ptr[j + 1]]] = np.arange(index.ptr[j], index.ptr[j + 1])
        assert np.array_equal(ranks[r], expected)
        kinds.update(np.unique(expected[expected < 0]).tolist())
    assert kinds == {-1, MISSING}  # zeros and missing values were both ranked
    assert (seg[:, 4] == -1).sum() == 1  # the sparse attribute 4


def test_no_ranks_beyond_the_budget():
    X = _data(1)
    index = build_feature_index(X, np.zeros(X.shape[1], np.uint8))
    seg = _segments(index)
    ranks = rank_entries(index, seg, budget=100)
    assert ranks.shape == (0, X.shape[0]) and (seg[:, 4] == -1).all()


@pytest.mark.parametrize("seed", range(6))
def test_covered_entries_are_those_the_walk_compacts(seed):
    rng = np.random.default_rng(seed)
    X = _data(seed)
    n, d = X.shape
    K = 2
    index = build_feature_index(X, np.zeros(d, np.uint8))
    G = rng.normal(size=(n, K))
    H = rng.random((n, K)) + 0.1
    cw = np.where(rng.random(n) < rng.uniform(0.1, 0.9), rng.integers(1, 3, n), 0).astype(np.float64)
    # covered examples out of the sample (odd seeds): the walk keeps their entries too (.sweep.OUT_OF_SAMPLE)
    cw[(cw == 0) & (rng.random(n) < 0.5 * (seed % 2))] = OUT_OF_SAMPLE
    T_g, T_h = (np.maximum(cw, 0)[:, None] * G).sum(0), (np.maximum(cw, 0)[:, None] * H).sum(0)
    seg_ranks = _segments(index)
    ranks = rank_entries(index, seg_ranks)
    rows = np.flatnonzero(cw > 0).astype(np.int64)
    out_rows = np.flatnonzero(cw < 0).astype(np.int64)
    for j in range(d):
        if seg_ranks[j, 4] < 0:
            continue
        walked, seg = np.full(len(index.rows), -1, np.int32), _segments(index)
        scratch = (np.empty((GRADIENT_ACCUMULATOR_ROWS, K)), np.empty((ACCUMULATOR_ROWS, K)), np.zeros((1, 1)),
                   np.zeros(K), np.zeros(4), np.empty((3, K), np.int64), np.empty(K), np.empty(K),
                   np.zeros(1, np.uint8), np.inf)
        _sweep_attribute_fast(j, index.ptr, index.rows, index.values, index.values, walked, seg, index.missing_ptr,
                              index.missing_rows, index.nominal, cw, G, H, T_g, T_h, len(rows), False, HEAD_SINGLE,
                              1.0, 0.0, 1, np.zeros(K), np.zeros(K), *scratch)
        assert seg[j, 0] == 1  # the walk compacted the covered entries
        found, seg_found = np.full(len(index.rows), -1, np.int32), seg_ranks.copy()
        compact_covered(j, index.ptr, index.values, ranks, found, seg_found, (rows, out_rows),
                        (len(rows), len(out_rows)), np.empty((n + 63) // 64, np.uint64), np.empty(n, np.int64))
        assert np.array_equal(seg_found[j, :3], seg[j, :3])
        start, end = index.ptr[j], index.ptr[j + 1]
        negatives, others = slice(start, seg[j, 1]), slice(seg[j, 2], end)
        assert np.array_equal(found[negatives], walked[negatives])
        assert np.array_equal(found[others], walked[others])
        covered_entries = np.flatnonzero(cw[index.rows[start:end]] != 0) + start
        assert np.array_equal(np.sort(np.concatenate([found[negatives], found[others]])), covered_entries)


@pytest.mark.parametrize("seed", range(4))
def test_a_condition_restricts_the_covered_list_as_the_mask(seed):
    """restrict_covered (the covered examples' values looked up by rank, or the attribute's entries
    applied where it has no ranks) leaves the coverage apply_condition leaves, and lists it."""
    rng = np.random.default_rng(seed)
    X = _data(seed)
    n, d = X.shape
    index = build_feature_index(X, np.zeros(d, np.uint8))
    seg = _segments(index)
    ranks = rank_entries(index, seg)
    ops = (OP_LEQ, OP_GT, OP_LEQ_NEG, OP_GT_NEG, OP_LEQ_ZERO, OP_GT_ZERO)
    for j in range(d):
        for op in ops:
            for threshold in (-1.5, -0.25, 0.0, 0.5, 2.5):
                covered = (rng.random(n) < 0.7).astype(np.uint8)
                expected = covered.copy()
                apply_condition(j, op, threshold, index.ptr, index.rows, index.values, index.missing_ptr,
                                index.missing_rows, expected)
                all_rows = np.flatnonzero(covered).astype(np.int64)
                n_all = restrict_covered(j, op, threshold, index.ptr, index.rows, index.values, index.missing_ptr,
                                         index.missing_rows, ranks, seg, covered, all_rows, len(all_rows))
                assert np.array_equal(covered, expected), (j, op, threshold)
                assert np.array_equal(all_rows[:n_all], np.flatnonzero(expected))
    assert (seg[:, 4] >= 0).sum() == d - 1  # both paths: the sparse attribute has no ranks


@pytest.mark.parametrize("settings", [
    dict(loss="logistic-decomposable", head_type="single", single_label_choice="largest-score"),
    dict(loss="logistic-decomposable", head_type="complete"),
    dict(loss="logistic-non-decomposable", head_type="complete"),
], ids=["single", "complete", "example-wise"])
def test_fits_learn_the_same_rules_with_and_without_ranks(settings, monkeypatch):
    rng = np.random.default_rng(3)
    n, d, K = 300, 8, 4
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.random((n, d)) < 0.05] = np.nan
    Y = ((X[:, :K] + 0.5 * rng.normal(size=(n, K))) > 0).astype(np.uint8)
    built = []

    def recording(index, seg):
        ranks = rank_entries(index, seg)
        built.append(ranks.shape[0])
        return ranks

    def fit():
        est = BoomerClassifier(max_rules=60, random_state=2, instance_sampling="with-replacement{sample_size=0.66}",
                               feature_sampling="without-replacement", **settings)
        return [(tuple((c.attribute, c.operator, c.threshold) for c in r.rule.conditions),
                 tuple(r.rule.head_labels), tuple(r.rule.head_scores)) for r in est.fit(X, Y).records_]

    monkeypatch.setattr(boomer_fit_state, "rank_entries", recording)
    with_ranks = fit()
    assert built == [d]  # every attribute is dense: all have ranks
    monkeypatch.setattr(boomer_fit_state, "rank_entries", lambda index, seg: np.empty((0, index.n_examples), np.int32))
    assert fit() == with_ranks
    assert max(len(conditions) for conditions, _, _ in with_ranks) >= 3  # rules of several conditions
