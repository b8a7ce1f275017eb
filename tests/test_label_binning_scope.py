"""``label_binning_scope='rule'`` (issue 34 item 3): label bins chosen once per rule from its sample, and the
refinement searching the B x B systems of those bins.

Checked against mlrl-boomer's binned system (:func:`binned_system_on_rows`, label binning's semantics) and
against a brute-force search of a rule's first condition with numpy solves."""
import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.core.examplewise_stats import (binned_system_on_rows, compact_example_statistics, compact_width,
                                           covered_diagonal_sums, project_onto_bins, sample_diagonal_sums)
from engine.core.head_variants import assign_bins, side_bins
from engine.core.losses import LOSS_CODES, packed_index

LOSS = "logistic-non-decomposable"


def _statistics(rng, n, K, loss=LOSS):
    y = (rng.random((n, K)) < 0.3).astype(np.uint8)
    f = rng.normal(scale=1.5, size=(n, K))
    G = np.zeros((n, K))
    C = np.zeros((n, compact_width(K)))
    for i in range(n):
        compact_example_statistics(LOSS_CODES[loss], y[i], f[i], G[i], C[i])
    return G, C


def _params(K, ratio=0.3):
    params = np.zeros(7)
    params[4:] = ratio, 1, 0
    params[3] = side_bins(K, *params[4:])
    return params


def _bins(g, d, params, l2):
    K = g.shape[0]
    n_slots = max(K, 2 * int(params[3]))
    bins, sizes, slot = (np.zeros(n_slots, dtype=np.int64) for _ in range(3))
    total = max(assign_bins(g, d, False, params, l2, 0.0, bins, sizes), 2 * int(params[3]))
    occupied = sizes[:total] > 0
    slot[:] = -1
    slot[:total] = np.where(occupied, np.cumsum(occupied) - 1, -1)
    return bins, sizes, slot, int(occupied.sum())


def _binned_system(G, C, rows, bins, slot, m):
    """Label binning's system of the examples ``rows`` for fixed bins, built per example as mlrl-boomer does:
    the bins' summed gradients, and a Hessian with the labels' diagonal entries summed on the diagonal and
    -s (P g)_a (P g)_b off it (without the L2 terms)."""
    K = G.shape[1]
    sub_g, sub_h = np.zeros(m), np.zeros((m, m))
    for i in rows:
        s = C[i, K]
        pg, pd = np.zeros(m), np.zeros(m)
        for k in range(K):
            if bins[k] >= 0:
                pg[slot[bins[k]]] += G[i, k]
                pd[slot[bins[k]]] += C[i, k] - s * G[i, k] ** 2
        sub_g += pg
        sub_h += -s * np.outer(pg, pg)
        sub_h[np.diag_indices(m)] += pd + s * pg ** 2
    return sub_g, sub_h


def _objective(g, H):
    """The optimal objective -1/2 g' H^-1 g of a head with gradient g and regularized Hessian H (eq. 16)."""
    return -0.5 * g @ np.linalg.solve(H, g)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_projected_statistics_rate_subsets_as_the_binned_system(seed):
    """For a fixed choice of bins, the complete head's objective on the projected pseudo-labels (their
    summed compact statistics plus lambda I) equals that of label binning's B x B system of the same
    examples, built per example as mlrl-boomer does (its L2 term lambda (n_b - 1) plus the solver's lambda)."""
    rng = np.random.default_rng(seed)
    n, K, l2 = 40, 12, 0.7
    G, C = _statistics(rng, n, K)
    params = _params(K)
    g_all, d_all = covered_diagonal_sums(G, C, np.arange(n, dtype=np.int64), n)
    bins, sizes, slot, m = _bins(g_all, d_all, params, l2)
    assert 1 < m < K  # some labels share a bin
    PG, PC = np.empty((n, m)), np.empty((n, m + 1))
    project_onto_bins(G, C, bins, slot, sizes, PG, PC)
    for _ in range(5):
        rows = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
        # the binned system of these rows with the bins fixed above (binned_system_on_rows chooses its own
        # bins from the rows: built here per example with the fixed ones, as it builds them)
        sub_g, sub_h = _binned_system(G, C, rows, bins, slot, m)
        n_b = np.array([sizes[b] for b in range(len(slot)) if slot[b] >= 0], dtype=float)
        expected = _objective(sub_g, sub_h + l2 * np.diag(n_b))
        pg_sum = PG[rows].sum(axis=0)
        H = np.diag(PC[rows, :m].sum(axis=0)) - (PC[rows, m][:, None] * PG[rows]).T @ PG[rows]
        np.testing.assert_allclose(_objective(pg_sum, H + l2 * np.eye(m)), expected, rtol=1e-10)


def test_binned_system_of_all_rows_is_the_projection_with_its_own_bins():
    """With the bins :func:`binned_system_on_rows` chooses from the same examples, its system and the
    projection's (unscaled) agree entry by entry."""
    rng = np.random.default_rng(7)
    n, K, l2 = 30, 10, 1.0
    G, C = _statistics(rng, n, K)
    params = _params(K)
    rows = np.arange(n, dtype=np.int64)
    n_slots = max(K, 2 * int(params[3]))
    bins, sizes, slot = (np.zeros(n_slots, dtype=np.int64) for _ in range(3))
    sub_g, sub_h = np.zeros(K), np.zeros(K * (K + 1) // 2)
    m = binned_system_on_rows(G, C, rows, n, params, l2, 0.0, bins, sizes, slot, sub_g, sub_h)
    g, d = sample_diagonal_sums(G, C, np.ones(n))
    bins2, sizes2, slot2, m2 = _bins(g, d, params, l2)
    assert m2 == m and np.array_equal(bins2[:K], bins[:K])
    PG, PC = np.empty((n, m)), np.empty((n, m + 1))
    project_onto_bins(G, C, bins2, slot2, sizes2, PG, PC)
    root = np.sqrt([sizes2[b] for b in range(len(slot2)) if slot2[b] >= 0])
    np.testing.assert_allclose(PG.sum(axis=0) * root, sub_g[:m], rtol=1e-12, atol=1e-12)
    H = np.diag(PC[:, :m].sum(axis=0)) - (PC[:, m][:, None] * PG).T @ PG
    H = H * np.outer(root, root) + l2 * np.diag(root ** 2 - 1)  # unscaled, with binned_system_on_rows' L2 term
    packed = np.array([H[a, b] for a in range(m) for b in range(a, m)])  # row-wise upper triangle
    assert all(packed_index(a, b, m) == q for q, (a, b) in enumerate((a, b) for a in range(m) for b in range(a, m)))
    np.testing.assert_allclose(packed, sub_h[:len(packed)], rtol=1e-10, atol=1e-12)


def test_sample_sums_weigh_the_draws():
    rng = np.random.default_rng(3)
    G, C = _statistics(rng, 25, 6)
    w = rng.integers(0, 3, 25).astype(float)
    g, d = sample_diagonal_sums(G, C, w)
    np.testing.assert_allclose(g, (w[:, None] * G).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(d, (w[:, None] * (C[:, :6] - C[:, 6:] * G ** 2)).sum(axis=0), rtol=1e-12)


def _brute_force_first_condition(X, G, C, bins, sizes, slot, m, l2):
    """The best single condition (x_j <= t or x_j > t, t between distinct values) by the objective of the
    bins' system on the examples it covers, solved with numpy; returns (objective, covered mask)."""
    n, K = G.shape
    n_b = np.array([sizes[b] for b in range(len(slot)) if slot[b] >= 0], dtype=float)
    best = (np.inf, None)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for lo, hi in zip(values[:-1], values[1:]):
            below = X[:, j] <= 0.5 * (lo + hi)
            for mask in (below, ~below):
                sub_g, sub_h = _binned_system(G, C, np.flatnonzero(mask), bins, slot, m)
                q = _objective(sub_g, sub_h + l2 * np.diag(n_b))
                if q < best[0]:
                    best = (q, mask)
    return best


@pytest.mark.parametrize("seed", [0, 1])
def test_first_condition_is_the_best_of_the_rules_bins(seed):
    """The first rule after the default rule (no sampling, one condition) covers the examples of the best
    condition a brute-force search finds for the bins chosen from every example's statistics, and its
    improvement is that condition's objective.  Values are negative and distinct so that every threshold
    of the reference's dense search is one the brute force tries."""
    rng = np.random.default_rng(seed)
    n, D, K, l2 = 60, 3, 8, 1.0
    X = -rng.permutation(np.arange(1, n * D + 1)).reshape(n, D).astype(np.float32)
    Y = (rng.random((n, K)) < np.linspace(0.15, 0.6, K)).astype(np.uint8)
    est = BoomerClassifier(loss=LOSS, head_type="complete", label_binning="equal-width{bin_ratio=0.3}",
                           label_binning_scope="rule", max_rules=2, max_conditions=1, feature_sampling="none",
                           instance_sampling="none", statistic_type="64-bit", l2_regularization_weight=l2,
                           random_state=seed)
    est.fit(X, Y)
    assert len(est.records_) == 2
    default_head = est.records_[0].rule.head_scores
    ys = (Y > 0).astype(np.uint8)
    G, C = np.zeros((n, K)), np.zeros((n, compact_width(K)))
    for i in range(n):
        compact_example_statistics(LOSS_CODES[LOSS], ys[i], default_head.copy(), G[i], C[i])
    g, d = sample_diagonal_sums(G, C, np.ones(n))
    bins, sizes, slot, m = _bins(g, d, est._binned_head_params(K), l2)
    q, mask = _brute_force_first_condition(X, G, C, bins, sizes, slot, m, l2)
    record = est.records_[1]
    assert len(record.rule.conditions) == 1
    covered = record.rule.conditions[0].covers(X[:, record.rule.conditions[0].attribute])
    assert np.array_equal(covered, mask)
    assert record.coverage == mask.sum()
    np.testing.assert_allclose(record.improvement, -q, rtol=1e-9)


def test_rule_scope_learns_as_well_as_the_condition_scope_on_small_data():
    """Both scopes lower the training loss; bins chosen once per rule cost little of it on 20 labels."""
    rng = np.random.default_rng(0)
    n, D, K = 300, 6, 20
    X = rng.normal(size=(n, D)).astype(np.float32)
    Y = ((X[:, :1] + 0.3 * rng.normal(size=(n, K)) + np.linspace(-1, 1, K)) > 0.5).astype(np.uint8)

    def loss_after(scope):
        # 64-bit: the kernels test_examplewise_memory.py compiles for these fits anyway
        est = BoomerClassifier(loss=LOSS, head_type="complete", label_binning="equal-width",
                               label_binning_scope=scope, statistic_type="64-bit", max_rules=20,
                               random_state=1).fit(X, Y)
        return est.records_[0].train_hamming, est.records_[-1].train_hamming

    start, condition = loss_after("condition")
    _, rule = loss_after("rule")
    assert condition < start and rule < start
    assert rule <= condition + 0.02


@pytest.mark.parametrize("settings, problem", [
    (dict(loss="logistic-decomposable", label_binning="equal-width"), "example-wise"),
    (dict(loss=LOSS, label_binning="none"), "label binning"),
    (dict(loss=LOSS, head_type="single"), "complete heads"),
    (dict(loss=LOSS, l1_regularization_weight=0.5), "L1"),
    (dict(loss=LOSS, rule_induction="top-down-beam-search"), "rule_induction"),
    (dict(loss=LOSS, output_sampling="round-robin"), "output_sampling"),
    (dict(loss=LOSS, post_optimization="sequential"), "post_optimization"),
    (dict(loss=LOSS, label_binning_scope="labels"), "label_binning_scope"),
])
def test_rule_scope_refuses_what_it_does_not_serve(settings, problem):
    X = np.random.default_rng(0).normal(size=(20, 3)).astype(np.float32)
    Y = (X[:, :2] > 0).astype(np.uint8)
    est = BoomerClassifier(**{"label_binning_scope": "rule", **settings})
    with pytest.raises(ValueError, match=problem):
        est.fit(X, Y)
