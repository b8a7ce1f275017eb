"""A refinement step swept attribute after attribute, each sweep bounded by the best of the attributes
before it (engine.core.refinement._best_conditions_in_turn), chooses the condition the unbounded
sweeps choose, with the same quality, threshold, head label, coverage and statistics."""
import numpy as np
import pytest

from engine.core.features import build_feature_index
from engine.core.head_variants import HEAD_COMPLETE, HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE
from engine.core.losses import LOSS_CODES, n_hessian_entries, update_statistics
from engine.core.refinement import (ACCUMULATOR_ROWS, GRADIENT_ACCUMULATOR_ROWS, TIE_TOLERANCE, _best_conditions_fast,
                                    _best_conditions_fast_serial)


def _choice(q, op):
    """The candidate engine.core.refinement._refine_rule chooses."""
    best = -1
    for c in range(len(q)):
        if op[c] >= 0 and (best < 0 or q[c] < q[best] - TIE_TOLERANCE * abs(q[best])):
            best = c
    return best


def _step(kernel, index, cw, G, H, head, min_coverage):
    m, K, S = index.n_features, G.shape[1], H.shape[1]
    T_g, T_h = (cw[:, None] * G).sum(0), (cw[:, None] * H).sum(0)
    out = dict(q=np.empty(m), op=np.empty(m, np.int64), thr=np.empty(m), label=np.empty(m, np.int64),
               cnt=np.empty(m, np.int64), g=np.empty((m, K)), h=np.empty((m, S)))
    kernel(np.arange(m, dtype=np.int64), m, index.ptr, index.rows, index.values, index.values,
           np.empty(len(index.rows), np.int32), np.zeros((m, 5), np.int64), index.missing_ptr, index.missing_rows,
           index.nominal, cw, G, H, T_g, T_h, int((cw > 0).sum()), False, np.int64(head), 1.0, 0.0,
           np.int64(min_coverage), out["q"], out["op"], out["thr"], out["label"], out["cnt"], out["g"], out["h"],
           np.empty((m, GRADIENT_ACCUMULATOR_ROWS, K)), np.empty((m, ACCUMULATOR_ROWS, S)), np.zeros((m, 1, 1)),
           np.zeros((m, K)), np.zeros(4), np.empty((0, 3, K), np.int64), np.empty((0, K)), np.empty((0, S)),
           np.zeros(1, np.uint8))
    return out


@pytest.mark.parametrize("head", [HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE, HEAD_COMPLETE, 1],
                         ids=["single", "largest-score", "complete", "fixed-label"])
@pytest.mark.parametrize("loss", ["logistic-decomposable", "squared-error-decomposable"])
@pytest.mark.parametrize("K", [5, 9], ids=["5 labels", "9 labels (snapshot bounds)"])
def test_bounded_sweeps_choose_what_unbounded_sweeps_choose(head, loss, K):
    skipped = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n, d = 120, 14
        X = rng.normal(size=(n, d)).astype(np.float32)
        X[:, :4] = np.round(X[:, :4])  # ties
        X[:, 4] = np.abs(X[:, 4]) * (rng.random(n) < 0.3)  # sparse, only positives
        X[rng.random((n, d)) < 0.05] = np.nan
        index = build_feature_index(X, np.zeros(d, np.uint8))
        Y = (rng.random((n, K)) < 0.3).astype(np.uint8)
        F = rng.normal(scale=0.7, size=(n, K))
        G = np.empty((n, K))
        H = np.empty((n, n_hessian_entries(K, True)))
        update_statistics(LOSS_CODES[loss], (Y > 0).astype(np.uint8), F, np.arange(n), n, G, H)
        cw = np.where(rng.random(n) < 0.7, rng.integers(1, 3, n), 0).astype(np.float64)
        min_coverage = int(rng.integers(1, 6))
        free = _step(_best_conditions_fast, index, cw, G, H, head, min_coverage)
        bounded = _step(_best_conditions_fast_serial, index, cw, G, H, head, min_coverage)
        c = _choice(free["q"], free["op"])
        assert _choice(bounded["q"], bounded["op"]) == c
        if c >= 0:
            for key in ("q", "op", "thr", "label", "cnt", "g", "h"):
                assert np.array_equal(bounded[key][c], free[key][c]), key
        reported = bounded["op"] >= 0
        for key in ("q", "op", "thr", "label", "cnt"):  # what a bounded sweep reports is its attribute's best
            assert np.array_equal(bounded[key][reported], free[key][reported]), key
        skipped += int(((free["op"] >= 0) & ~reported).sum())
    assert skipped > 0  # the bounds ruled attributes out


def test_the_snapshot_bounds_of_complete_heads_hold_along_a_walk():
    """engine.core.refinement._complete_bound: along a walk (a side growing by examples of non-negative
    Hessians, snapshots taken at random thresholds as the sweep takes them at its exact sums) the side's
    bound is at least its sum of g^2 / (h + lambda), and so is the complement's whenever the growth
    since the snapshot is at most half its denominator then; at a snapshot both are the sums."""
    from engine.core.refinement import _SNAP_H, _SNAP_REST, _VALID, _complete_bound, _snapshot
    rng = np.random.default_rng(3)
    checked_rest = 0
    for trial in range(20):
        n, K, l2 = 60, 7, float(rng.choice([0.1, 1.0]))
        G = rng.normal(size=(n, K)) * rng.random(K)
        H = rng.random((n, K)) ** 3 * rng.random(K)
        A_g, A_h = np.zeros((GRADIENT_ACCUMULATOR_ROWS, K)), np.zeros((ACCUMULATOR_ROWS, K))
        A_g[_VALID], A_h[_VALID] = G.sum(0), H.sum(0)
        x = trial % 2
        _snapshot(A_g, A_h, x, l2)  # of the empty side
        for i in rng.permutation(n):
            A_g[x] += G[i]
            A_h[x] += H[i]
            bx, br, n_far = _complete_bound(A_g, A_h, x)
            u = (A_h[x] - A_g[_SNAP_H + x]) * A_g[_SNAP_REST + x]
            assert n_far == (u > 0.5).sum()
            gr, hr = A_g[_VALID] - A_g[x], A_h[_VALID] - A_h[x]
            sx, sr = (A_g[x] ** 2 / (A_h[x] + l2)).sum(), (gr ** 2 / (hr + l2)).sum()
            assert bx >= sx * (1 - 1e-12)
            if n_far == 0:
                assert br >= sr * (1 - 1e-12)
                checked_rest += 1
            if rng.random() < 0.2:
                _snapshot(A_g, A_h, x, l2)
                bx, br, n_far = _complete_bound(A_g, A_h, x)
                assert n_far == 0 and bx == pytest.approx(sx, rel=1e-12) and br == pytest.approx(sr, rel=1e-12)
    assert checked_rest > 300


def _running_best(g, d):
    """The plain scan _best_label shortens: a running best of g/d by cross products, first on a tie."""
    best_n, best_d, best_k = 0.0, 1.0, -1
    for k in range(len(g)):
        if g[k] * best_d > best_n * d[k]:
            best_n, best_d, best_k = g[k], d[k], k
    return best_n, best_d, best_k


@pytest.mark.parametrize("by_score", [True, False])
def test_the_best_label_is_the_plain_scans_with_ties_and_near_ties(by_score):
    """engine.core.refinement._best_label scans only the labels near the largest fraction: the same
    (numerator, denominator, label) as the running best over every label, on statistics with exact
    ties (copied labels), ties up to rounding (scaled copies), zeros and 200 labels."""
    from engine.core.refinement import _REST, _VALID, _best_label
    rng = np.random.default_rng(11)
    for trial in range(300):
        K = int(rng.choice([1, 3, 9, 200]))
        A_g = rng.normal(size=(GRADIENT_ACCUMULATOR_ROWS, K)) * rng.choice([1.0, 1e-200, 1e100])
        A_h = rng.random((ACCUMULATOR_ROWS, K)) * 5
        A_h[_VALID] += 30  # the complement's Hessians stay positive
        if K > 3:
            src = rng.integers(0, K, 4)
            dst = rng.integers(0, K, 4)
            A_g[:, dst], A_h[:, dst] = A_g[:, src], A_h[:, src]  # exact ties
            A_g[:, dst[:2]] *= 1 + 1e-15  # nearly ties
            for x in (0, 1):  # ties up to rounding: the same fraction with other numerator and denominator
                src, dst = rng.integers(0, K, 3), rng.integers(0, K, 3)
                c = rng.uniform(0.5, 2.0, 3)
                A_g[x, dst] = A_g[x, src] * (c if by_score else np.sqrt(c))
                A_h[x, dst] = (A_h[x, src] + 1.0) * c - 1.0
            A_g[:, rng.integers(0, K, 2)] = 0.0
        if trial % 50 == 0:
            A_g[:] = 0.0
        for x in (0, 1):
            for complement in (False, True):
                g = (A_g[_VALID] - A_g[x]) if complement else A_g[x]
                h = (A_h[_VALID] - A_h[x]) if complement else A_h[x]
                n = np.abs(g) if by_score else g * g
                expected = _running_best(n, h + 1.0)
                assert _best_label(A_g, A_h, x, complement, 1.0, by_score) == expected
                assert A_g[_REST].shape == (K,)  # only the scratch row was written
