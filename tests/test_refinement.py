"""The refinement sweep against a brute-force search over all (attribute, threshold) candidates."""
import numpy as np
import pytest

from engine.core.features import build_feature_index
from engine.core.head_variants import HEAD_COMPLETE, HEAD_SINGLE
from engine.core.heads import head_quality
from engine.core.losses import LOSS_CODES, n_hessian_entries, update_statistics
from engine.core.refinement import (ACCUMULATOR_ROWS, GRADIENT_ACCUMULATOR_ROWS, OP_EQ, OP_GT, OP_LEQ, OP_NEQ,
                                    _sweep_attribute_fast, _sweep_attribute_variants, apply_condition, refine_rule)


def _stats(loss, F, Y):
    n, K = Y.shape
    full = loss.endswith("non-decomposable")
    G = np.empty((n, K))
    H = np.empty((n, n_hessian_entries(K, not full)))
    update_statistics(LOSS_CODES[loss], (Y > 0).astype(np.uint8), F, np.arange(n), n, G, H)
    return G, H, full


def _quality(mask, w, G, H, full, single, l2):
    g = (w[mask, None] * G[mask]).sum(0)
    h = (w[mask, None] * H[mask]).sum(0)
    K = G.shape[1]
    return head_quality(g, h, full, single, l2, 0.0, np.zeros((K, K)), np.zeros(K))[0]


def _cache(index):
    """The sweep's cache of covered entries (empty: every attribute is walked in full), typed as a
    fit's (int32 below 2**31 entries), so the kernels a fit compiles serve these tests too."""
    return np.empty(len(index.rows), np.int32), np.zeros((index.n_features, 3), np.int64)


def _no_ranks(index):
    """No example's entry positions (engine.core.covered_entries): every attribute is walked."""
    return np.empty((0, index.n_examples), np.int32)


def _scratch(G, H, params=None):
    K, S = G.shape[1], H.shape[1]
    params = np.zeros(4) if params is None else params
    n_variant = max(K, 2 * int(params[3]))
    return (np.empty((GRADIENT_ACCUMULATOR_ROWS, K)), np.empty((ACCUMULATOR_ROWS, S)), np.zeros((K, K)), np.zeros(K),
            params, np.empty((3, n_variant), np.int64), np.empty(K), np.empty(S), np.zeros(1, np.uint8), np.inf)


def _brute_force(x, nominal, active, w, G, H, full, single, l2, min_cov):
    T_cnt = active.sum()
    valid = active & ~np.isnan(x)
    vals = np.unique(x[valid])
    candidates = []
    if nominal:
        for v in vals:
            candidates += [(OP_EQ, v, valid & (x == v)), (OP_NEQ, v, valid & (x != v))]
    else:
        for a, b in zip(vals[:-1], vals[1:]):
            t = 0.5 * (float(a) + float(b))
            candidates += [(OP_LEQ, t, valid & (x <= t)), (OP_GT, t, valid & (x > t))]
    best = np.inf
    for op, t, mask in candidates:
        c = mask.sum()
        if c == 0 or c >= T_cnt or c < min_cov:
            continue
        best = min(best, _quality(mask, w, G, H, full, single, l2))
    return best


@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable", "squared-hinge-decomposable"])
@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fast", [False, True], ids=["general", "fast"])
@pytest.mark.parametrize("K", [3, 9])
def test_sweep_matches_brute_force(loss, single, seed, fast, K):
    """Both sweeps, the general one and the one for diagonal Hessians, L2 and no L1 (from
    SNAPSHOT_MIN_LABELS labels on, its complete heads bounded by snapshots)."""
    if fast and loss == "logistic-non-decomposable":
        pytest.skip("full Hessians are not the fast sweep's")
    sweep = _sweep_attribute_fast if fast else _sweep_attribute_variants
    rng = np.random.default_rng(seed)
    n, d = 40, 5
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float32)  # negatives, zeros, positives, ties
    X[:, 1] = rng.normal(size=n)
    X[rng.random((n, d)) < 0.1] = np.nan  # missing values
    X[:, 4] = rng.integers(0, 3, n)  # nominal codes
    nominal = np.array([0, 0, 0, 0, 1], dtype=np.uint8)
    Y = (rng.random((n, K)) < 0.4).astype(np.uint8)
    F = rng.normal(scale=0.5, size=(n, K))
    G, H, full = _stats(loss, F, Y)
    index = build_feature_index(X, nominal)
    w = rng.integers(0, 3, n).astype(np.float64)  # bagging weights, zeros are out of bag
    covered = rng.random(n) < 0.8
    active = covered & (w > 0)
    cw = np.where(active, w, 0.0)
    T_g = (cw[:, None] * G).sum(0)
    T_h = (cw[:, None] * H).sum(0)
    for min_cov in (1, 5):
        for j in range(d):
            best_g, best_h = np.zeros(G.shape[1]), np.zeros(H.shape[1])
            q, op, thr, lab, cnt = sweep(j, index.ptr, index.rows, index.values, index.values, *_cache(index), index.missing_ptr,
                                                    index.missing_rows, index.nominal, cw, G, H, T_g, T_h,
                                                    int(active.sum()), full, HEAD_SINGLE if single else HEAD_COMPLETE, 1.0, 0.0, min_cov, best_g,
                                                    best_h, *_scratch(G, H))
            expected = _brute_force(X[:, j], nominal[j], active, w, G, H, full, single, 1.0, min_cov)
            if np.isinf(expected):
                assert op == -1
                continue
            assert q == pytest.approx(expected, rel=1e-9, abs=1e-12)
            # the returned condition really has that quality
            x = X[:, j]
            with np.errstate(invalid="ignore"):
                mask = {OP_LEQ: x <= thr, OP_GT: x > thr, OP_EQ: x == thr, OP_NEQ: (x != thr) & ~np.isnan(x)}[op]
            assert _quality(active & mask, w, G, H, full, single, 1.0) == pytest.approx(q, rel=1e-9, abs=1e-12)
            # and the statistics handed to the next refinement step are that condition's
            assert cnt == (active & mask).sum()
            np.testing.assert_allclose(best_g, (w[active & mask, None] * G[active & mask]).sum(0), atol=1e-9)
            np.testing.assert_allclose(best_h, (w[active & mask, None] * H[active & mask]).sum(0), atol=1e-9)


def test_apply_condition_matches_direct_evaluation():
    rng = np.random.default_rng(7)
    X = rng.integers(-2, 3, size=(50, 2)).astype(np.float32)
    X[rng.random((50, 2)) < 0.2] = np.nan
    index = build_feature_index(X, np.array([0, 1], np.uint8))
    for j, op, t in [(0, OP_LEQ, 0.5), (0, OP_LEQ, -0.5), (0, OP_GT, -1.5), (0, OP_GT, 0.5),
                     (1, OP_EQ, 0.0), (1, OP_EQ, 2.0), (1, OP_NEQ, 0.0), (1, OP_NEQ, 1.0)]:
        covered = (rng.random(50) < 0.7).astype(np.uint8)
        expected = covered.astype(bool).copy()
        x = X[:, j]
        with np.errstate(invalid="ignore"):
            expected &= {OP_LEQ: x <= t, OP_GT: x > t, OP_EQ: x == t, OP_NEQ: (x != t) & ~np.isnan(x)}[op]
        apply_condition(j, op, t, index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows,
                        covered)
        np.testing.assert_array_equal(covered.astype(bool), expected)


def test_refine_rule_improves_monotonically_and_respects_limits():
    rng = np.random.default_rng(11)
    n, d, K = 200, 6, 3
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = (X[:, :K] > 0).astype(np.uint8)
    G, H, full = _stats("logistic-decomposable", np.zeros((n, K)), Y)
    index = build_feature_index(X, np.zeros(d, np.uint8))
    covered = np.ones(n, np.uint8)
    attrs, ops, thrs = np.empty(2, np.int64), np.empty(2, np.int64), np.empty(2)
    n_cond, quality, label = refine_rule(index.ptr, index.rows, index.values, index.values, *_cache(index),
                                         _no_ranks(index), index.missing_ptr, index.missing_rows,
                                         index.nominal, G, H, full, True, -1, np.zeros(4), np.ones(n), 0, 1.0, 0.0, 0, 2, 10,
                                         np.array([5], np.uint64), np.arange(d, dtype=np.int64), covered, attrs, ops,
                                         thrs, np.zeros(1, np.uint8))
    assert 1 <= n_cond <= 2 and quality < 0 and 0 <= label < K
    assert covered.sum() >= 10
    w = np.ones(n)
    assert _quality(covered.astype(bool), w, G, H, full, True, 1.0) == pytest.approx(quality)


@pytest.mark.parametrize("loss", ["logistic-decomposable", "squared-error-decomposable"])
@pytest.mark.parametrize("sweep", [_sweep_attribute_variants, _sweep_attribute_fast], ids=["general", "fast"])
def test_sweep_with_a_fixed_label_optimises_that_label_only(loss, sweep):
    """After a rule's first condition its single label is fixed; later sweeps score only that label."""
    from engine.core.heads import label_quality
    rng = np.random.default_rng(21)
    n, K = 60, 4
    X = rng.normal(size=(n, 1)).astype(np.float32)
    Y = (rng.random((n, K)) < 0.5).astype(np.uint8)
    G, H, full = _stats(loss, rng.normal(scale=0.3, size=(n, K)), Y)
    index = build_feature_index(X, np.zeros(1, np.uint8))
    cw = np.ones(n)
    T_g, T_h = G.sum(0), H.sum(0)
    for label in range(K):
        q, op, thr, lab, cnt = sweep(0, index.ptr, index.rows, index.values, index.values, *_cache(index), index.missing_ptr,
                                     index.missing_rows, index.nominal, cw, G, H, T_g, T_h, n, full,
                                     label, 1.0, 0.0, 1, np.zeros(K), np.zeros(K), *_scratch(G, H))
        x = X[:, 0]
        best = np.inf
        for t in 0.5 * (np.sort(x)[1:] + np.sort(x)[:-1]):
            for mask in (x <= t, x > t):
                best = min(best, label_quality(G[mask, label].sum(), H[mask, label].sum(), 1.0, 0.0))
        assert lab == label and q == pytest.approx(best, rel=1e-9)


def test_dense_and_sparse_feature_indices_agree():
    import dataclasses
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    X = rng.integers(-2, 3, (200, 30)).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 5] = 3
    X[:, 6] = np.nan
    X[:10, 7] = 1
    X[10:, 7] = np.nan
    dense = build_feature_index(X, np.zeros(30, np.uint8))
    sparse = build_feature_index(sp.csc_matrix(X), np.zeros(30, np.uint8))
    for name in ("ptr", "rows", "values", "missing_ptr"):
        np.testing.assert_array_equal(getattr(dense, name), getattr(sparse, name))
    np.testing.assert_array_equal(np.sort(dense.missing_rows), np.sort(sparse.missing_rows))
    np.testing.assert_array_equal(dense.constant_attributes(), sparse.constant_attributes())
    assert set(np.flatnonzero(dense.constant_attributes())) == {5, 6, 7}
    for j in (0, 7):
        np.testing.assert_array_equal(dense.column(j), np.where(np.isnan(X[:, j]), np.nan, X[:, j]))


def test_explicitly_stored_zeros_and_duplicates_of_sparse_input_are_summed_like_dense_values():
    """A CSC matrix may store zeros and duplicate entries (summed, as SciPy does): the index is the
    dense one's (a stored zero must not enter the sorted non-zeros, where the sweep would count it on
    the positive side), and the caller's matrix is left as it was."""
    import scipy.sparse as sp
    X = np.array([[1, 0], [0, 2], [-1, 0], [0, 0], [np.nan, 3]], dtype=np.float32)
    data = np.array([1, 0, -1, 0, np.nan, 0, 2, 1, 2], dtype=np.float32)
    rows = np.array([0, 1, 2, 3, 4, 0, 1, 4, 4])
    S = sp.csc_matrix((data, rows, np.array([0, 5, 9])), shape=(5, 2))
    assert not S.has_canonical_format
    before = (S.data.copy(), S.indices.copy())
    np.testing.assert_array_equal(S.toarray(), X)
    dense = build_feature_index(X, np.zeros(2, np.uint8))
    sparse = build_feature_index(S, np.zeros(2, np.uint8))
    for name in ("ptr", "rows", "values", "missing_ptr", "missing_rows", "constant"):
        np.testing.assert_array_equal(getattr(dense, name), getattr(sparse, name), err_msg=name)
    np.testing.assert_array_equal(sparse.values, [-1, 1, 2, 3])
    np.testing.assert_array_equal(S.data, before[0])
    np.testing.assert_array_equal(S.indices, before[1])


@pytest.mark.parametrize("density", [0.05, 0.9])
def test_both_dense_index_builds_agree(density):
    """Mostly-zero data sort only their non-zeros; mostly non-zero data sort whole columns."""
    from engine.core.features import _index_by_column_sort, _index_by_nonzero_sort
    rng = np.random.default_rng(1)
    X = ((rng.random((300, 40)) < density) * rng.integers(-3, 4, (300, 40))).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    a = _index_by_column_sort(X, np.zeros(40, np.uint8))
    b = _index_by_nonzero_sort(X, np.zeros(40, np.uint8))
    for name in ("ptr", "rows", "values", "missing_ptr", "missing_rows", "constant"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def _score(g, h, l2, l1):
    """mlrl-boomer 0.15.6's label-wise score: (-g - l1 sign g) / (h + l2) where |g| > l1, else -g / (h + l2)."""
    return -np.where(np.abs(g) > l1, g + l1 * np.sign(g), g) / (h + l2)


def _score_quality(g, h, l2, l1):
    """The objective at that score (mlrl-boomer's calculateOutputWiseQuality); -g^2 / (2 (h + l2)) without L1."""
    p = _score(g, h, l2, l1)
    return g * p + 0.5 * (h + l2) * p * p + l1 * np.abs(p)


def _greedy_brute_force(X, w, G, H, l2, max_conditions, choice="objective", l1=0.0):
    """Alg. 2 by brute force, single-label heads of a decomposable loss: every threshold of every
    attribute, by cumulative sums; the first condition chooses the label, by the lowest quality
    (``choice='objective'``) or by the largest absolute score (``'largest-score'``).  Returns
    (number of conditions, quality, label, coverage)."""
    active = w > 0
    label, current, n_cond = -1, 0.0, 0
    while n_cond < max_conditions:
        best = (np.inf, None)
        T_cnt = active.sum()
        for j in range(X.shape[1]):
            idx = np.flatnonzero(active)
            order = idx[np.argsort(X[idx, j], kind="stable")]
            xs = X[order, j].astype(np.float64)
            cg = np.cumsum(w[order, None] * G[order], 0)
            ch = np.cumsum(w[order, None] * H[order], 0)
            cut = np.flatnonzero(xs[:-1] != xs[1:])
            for g, h, count, op in ((cg[cut], ch[cut], cut + 1, OP_LEQ),
                                    (cg[-1] - cg[cut], ch[-1] - ch[cut], T_cnt - cut - 1, OP_GT)):
                q = _score_quality(g, h, l2, l1)
                if label >= 0:
                    q = q[:, label:label + 1]
                    r, k = np.unravel_index(np.argmin(q), q.shape)
                elif choice == "objective":
                    r, k = np.unravel_index(np.argmin(q), q.shape)
                else:
                    top = np.argmax(np.abs(_score(g, h, l2, l1)), axis=1)  # first label of largest |score|
                    q_top = np.where(np.abs(g)[np.arange(len(top)), top] > 0,
                                     q[np.arange(len(top)), top], np.inf)
                    r = int(np.argmin(q_top))
                    k = int(top[r])
                if count[r] < T_cnt and q[r, k] < best[0]:
                    t = 0.5 * (xs[cut[r]] + xs[cut[r] + 1])
                    best = (q[r, k], (j, op, t, label if label >= 0 else k))
        if not best[0] < current:
            break
        current, (j, op, t, label) = best
        active &= (X[:, j] <= t) if op == OP_LEQ else (X[:, j] > t)
        n_cond += 1
    return n_cond, current, label, active


def test_refine_rule_on_many_examples_matches_greedy_brute_force():
    """From INTERLEAVE_MIN_EXAMPLES training examples on, a fixed label's sweep reads interleaved
    (weighted gradient, Hessian) rows: the same rule as the brute-force greedy search, with weights."""
    from engine.core.refinement import INTERLEAVE_MIN_EXAMPLES
    rng = np.random.default_rng(5)
    n, d, K = INTERLEAVE_MIN_EXAMPLES + 1000, 3, 3
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = ((X[:, :K] + rng.normal(scale=1.5, size=(n, K))) > 0.8).astype(np.uint8)
    G, H, full = _stats("logistic-decomposable", rng.normal(scale=0.2, size=(n, K)), Y)
    weights = rng.integers(0, 3, size=n).astype(np.float64)  # drawn counts, as a fit holds them
    index = build_feature_index(X, np.zeros(d, np.uint8))
    covered = np.ones(n, np.uint8)
    attrs, ops, thrs = np.empty(6, np.int64), np.empty(6, np.int64), np.empty(6)
    n_cond, quality, label = refine_rule(index.ptr, index.rows, index.values, index.values, *_cache(index),
                                         _no_ranks(index),
                                         index.missing_ptr, index.missing_rows, index.nominal, G, H, full, True, -1,
                                         np.zeros(4), weights.copy(), 0, 1.0, 0.0, 0, 6, 1,
                                         np.array([5], np.uint64), np.arange(d, dtype=np.int64), covered, attrs, ops,
                                         thrs, np.zeros(1, np.uint8))
    expected = _greedy_brute_force(X, weights.astype(np.float64), G, H, 1.0, 6)
    assert n_cond == expected[0] >= 3
    assert quality == pytest.approx(expected[1], rel=1e-9)
    assert label == expected[2]
    assert np.array_equal(covered.astype(bool) & (weights > 0), expected[3])


@pytest.mark.parametrize("n, l1, seed", [(300, 0.0, 8), (300, 0.5, 8), (9000, 0.0, 10)])
def test_largest_score_label_choice_matches_greedy_brute_force(n, l1, seed):
    """``single_label_choice='largest-score'`` (mlrl-boomer 0.15's choice): the first condition's
    label is the one with the largest |score| at each candidate, conditions ranked by its quality;
    the same rule as the brute-force greedy search with that choice, on the fast sweep, the one
    with L1 (the generic quality) and the interleaved rows of many examples.  A rare label whose
    predictions are saturated has the largest score but not the best objective, so the two choices
    give different rules here."""
    from engine.core.head_variants import HEAD_SINGLE_LARGEST_SCORE
    rng = np.random.default_rng(seed)
    d, K = 4, 5
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = ((X[:, [0, 1, 2, 3, 0]] + rng.normal(size=(n, K))) > np.array([0.5, 3.0, 1.0, 0.0, 1.2])).astype(np.uint8)
    F = rng.normal(scale=0.2, size=(n, K)) + np.array([0.0, -6.0, -1.0, 0.0, -2.0])
    G, H, full = _stats("logistic-decomposable", F, Y)
    weights = rng.integers(0, 3, size=n).astype(np.float64)  # drawn counts, as a fit holds them
    index = build_feature_index(X, np.zeros(d, np.uint8))
    covered = np.ones(n, np.uint8)
    attrs, ops, thrs = np.empty(6, np.int64), np.empty(6, np.int64), np.empty(6)
    n_cond, quality, label = refine_rule(index.ptr, index.rows, index.values, index.values, *_cache(index),
                                         _no_ranks(index),
                                         index.missing_ptr, index.missing_rows, index.nominal, G, H, full, True,
                                         HEAD_SINGLE_LARGEST_SCORE, np.zeros(4), weights.copy(), 0, 1.0, l1, 0, 6,
                                         1, np.array([5], np.uint64), np.arange(d, dtype=np.int64), covered, attrs,
                                         ops, thrs, np.zeros(1, np.uint8))
    expected = _greedy_brute_force(X, weights.astype(np.float64), G, H, 1.0, 6, "largest-score", l1)
    objective = _greedy_brute_force(X, weights.astype(np.float64), G, H, 1.0, 6, "objective", l1)
    assert n_cond == expected[0] >= 2
    assert quality == pytest.approx(expected[1], rel=1e-9)
    assert label == expected[2]
    assert np.array_equal(covered.astype(bool) & (weights > 0), expected[3])
    assert expected[1] != pytest.approx(objective[1], rel=1e-6)  # the two choices differ here
