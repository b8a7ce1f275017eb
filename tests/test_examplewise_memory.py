"""Example-wise statistics kept as a diagonal plus rank one (engine.core.examplewise_stats, issue 33
item 2, issue 34 item 3): the gradients and Hessians against finite differences and the packed
statistics, the binned system built per example against the one from the summed K x K Hessian, and
whole fits against fits on packed per-example Hessians (the same rules and scores)."""
import numpy as np
import pytest

from engine.boomer import settings as boomer_settings
from engine.boomer import BoomerClassifier, _check_statistics_memory, statistics_bytes
from engine.core.examplewise_stats import (binned_system_on_rows, compact_covered_sums, compact_example_statistics,
                                           compact_update_statistics, compact_width)
from engine.core.head_variants import _binned_system, side_bins
from engine.core.losses import LOSS_CODES, LOSSES, example_loss, example_statistics, is_decomposable, packed_index
from engine.datasets import load

EXAMPLE_WISE = [loss for loss in LOSSES if not is_decomposable(loss)]


def _full(c, g):
    """H = diag(c[:K]) - c[K] g g' as a dense matrix."""
    return np.diag(c[:-1]) - c[-1] * np.outer(g, g)


def _unpack(h, K):
    full = np.zeros((K, K))
    for k in range(K):
        for l in range(k, K):
            full[k, l] = full[l, k] = h[packed_index(k, l, K)]
    return full


def _scores(rng, K, loss):
    y = rng.choice(np.array([0, 1], dtype=np.uint8), K)
    f = rng.uniform(-2.0, 2.0, K)
    if "hinge" in loss:  # away from the kinks (1 relevant, 0 irrelevant), where the second derivative jumps
        kink = np.where(y == 1, 1.0, 0.0)
        f = np.where(np.abs(f - kink) < 0.2, f + 0.5, f)
    return y, f


@pytest.mark.parametrize("loss", EXAMPLE_WISE)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compact_statistics_match_finite_differences(loss, seed):
    rng = np.random.default_rng(seed)
    K, eps = 5, 1e-5
    y, f = _scores(rng, K, loss)
    code = LOSS_CODES[loss]
    g = np.zeros(K)
    c = np.zeros(compact_width(K))
    compact_example_statistics(code, y, f, g, c)
    num_g = np.zeros(K)
    num_h = np.zeros((K, K))
    unit = np.eye(K) * eps
    for k in range(K):
        num_g[k] = (example_loss(code, y, f + unit[k]) - example_loss(code, y, f - unit[k])) / (2 * eps)
        for l in range(K):
            num_h[k, l] = (example_loss(code, y, f + unit[k] + unit[l]) - example_loss(code, y, f + unit[k] - unit[l])
                           - example_loss(code, y, f - unit[k] + unit[l])
                           + example_loss(code, y, f - unit[k] - unit[l])) / (4 * eps * eps)
    if "hinge" in loss:  # a label inside the margin (the loss flat there): the reference's Hessian 1
        flat = np.where(y == 1, f >= 1.0, f <= 0.0)
        num_h[flat, flat] = 1.0
    np.testing.assert_allclose(g, num_g, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_full(c, g), num_h, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("loss", EXAMPLE_WISE)
def test_compact_statistics_equal_the_packed_ones(loss):
    rng = np.random.default_rng(7)
    K = 9
    code = LOSS_CODES[loss]
    for _ in range(20):
        y, f = _scores(rng, K, loss)
        f *= rng.choice([0.01, 1.0, 30.0])  # near the optimum, ordinary, saturated
        g, c = np.zeros(K), np.zeros(compact_width(K))
        g_packed, h_packed = np.zeros(K), np.zeros(K * (K + 1) // 2)
        compact_example_statistics(code, y, f, g, c)
        example_statistics(code, y, f, g_packed, h_packed)
        np.testing.assert_allclose(g, g_packed, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(_full(c, g), _unpack(h_packed, K), rtol=1e-10, atol=1e-15)


def test_zero_residual_has_zero_statistics():
    y = np.array([1, 0, 1], dtype=np.uint8)
    g, c = np.ones(3), np.ones(4)
    compact_example_statistics(LOSS_CODES["squared-error-non-decomposable"], y, 2.0 * y - 1.0, g, c)  # f = signs
    assert not g.any() and not c.any()


def _compact_sample(n, K, seed, loss="logistic-non-decomposable"):
    rng = np.random.default_rng(seed)
    Y = rng.choice(np.array([0, 1], dtype=np.uint8), (n, K))
    F = rng.normal(scale=1.5, size=(n, K))
    G = np.empty((n, K))
    C = np.empty((n, compact_width(K)))
    rows = np.arange(n, dtype=np.int64)
    compact_update_statistics(LOSS_CODES[loss], Y, F, rows, n, G, C)
    return G, C, rows


@pytest.mark.parametrize("K,ratio", [(6, 0.34), (20, 0.15), (40, 0.03)])
def test_binned_system_per_example_equals_the_binned_sum_of_the_full_hessian(K, ratio):
    n, l2 = 50, 1.0
    params = np.array([0, 0, 0, side_bins(K, ratio, 1, 0), ratio, 1, 0])
    n_bins = int(params[3])
    G, C, rows = _compact_sample(n, K, K)
    g, h = compact_covered_sums(G, C, rows, n)
    np.testing.assert_allclose(_unpack(h, K), sum(_full(C[i], G[i]) for i in range(n)), rtol=1e-12, atol=1e-12)
    size = max(K, 2 * n_bins)
    ref = [np.empty(size, dtype=np.int64) for _ in range(3)]
    ref_g, ref_h = np.empty(K), np.empty(K * (K + 1) // 2)
    m_ref = _binned_system(g, h, True, params, l2, 0.0, *ref, ref_g, ref_h)
    new = [np.empty(size, dtype=np.int64) for _ in range(3)]
    new_g, new_h = np.empty(K), np.empty(K * (K + 1) // 2)
    m = binned_system_on_rows(G, C, rows, n, params, l2, 0.0, *new, new_g, new_h)
    assert m == m_ref
    np.testing.assert_array_equal(new[0][:K], ref[0][:K])  # the same bins
    np.testing.assert_allclose(new_g[:m], ref_g[:m], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(new_h[:m * (m + 1) // 2], ref_h[:m * (m + 1) // 2], rtol=1e-10, atol=1e-10)


def _fit(monkeypatch, compact, X, Y, **params):
    """A fit with compact statistics, or with packed per-example Hessians (the implementation before)."""
    monkeypatch.setattr(BoomerClassifier, "_compact_statistics", lambda self, n, K: compact)
    est = BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", statistic_type="64-bit",
                           instance_sampling="with-replacement{sample_size=0.66}", random_state=3, **params)
    return est.fit(X, Y)


def _assert_same_rules(a, b, tolerance):
    assert len(a.records_) == len(b.records_)
    for x, y in zip(a.records_, b.records_):
        assert x.rule.conditions == y.rule.conditions
        np.testing.assert_array_equal(x.rule.head_labels, y.rule.head_labels)
        np.testing.assert_allclose(x.rule.head_scores, y.rule.head_scores, rtol=0, atol=tolerance)


def _synthetic(n, K, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8)).astype(np.float32)
    Y = ((X @ rng.normal(size=(8, K)) + rng.normal(size=(n, K))) > 0.5).astype(np.uint8)
    return X, Y


@pytest.mark.parametrize("label_binning", ["equal-width", "none"])
def test_compact_fit_equals_the_packed_fit_on_20_labels(monkeypatch, label_binning):
    X, Y = _synthetic(500, 20)
    packed = _fit(monkeypatch, False, X, Y, label_binning=label_binning, max_rules=40)
    compact = _fit(monkeypatch, True, X, Y, label_binning=label_binning, max_rules=40)
    _assert_same_rules(packed, compact, 1e-12)
    _assert_same_predictions(packed, compact, X)


def _assert_same_predictions(a, b, X):
    """The same label vectors, but where the two chosen vectors' losses are equal within rounding (the
    scores agree to 1e-12, and mlrl-boomer's closest-vector walk takes the exactly closer one)."""
    from engine.predictors import loss_distances

    pa, pb = a.predict(X), b.predict(X)
    differ = np.flatnonzero((pa != pb).any(axis=1))
    assert len(differ) <= 0.01 * len(X)
    if not len(differ):
        return
    F = a.decision_function(X[differ])
    for i, f in zip(differ, F):
        d = loss_distances("logistic-non-decomposable", f[None], np.stack([pa[i], pb[i]]))[0]
        assert abs(d[0] - d[1]) <= 1e-12 * max(1.0, abs(d[0])), (i, d)


@pytest.mark.parametrize("label_binning", ["equal-width", "none"])
def test_compact_fit_equals_the_packed_fit_on_emotions(monkeypatch, shared_data, label_binning):
    data = load(shared_data / "emotions.arff", xml=shared_data / "emotions.xml")
    X, Y = data.X, data.Y
    packed = _fit(monkeypatch, False, X, Y, label_binning=label_binning, max_rules=60)
    compact = _fit(monkeypatch, True, X, Y, label_binning=label_binning, max_rules=60)
    _assert_same_rules(packed, compact, 1e-12)


def test_fits_whose_packed_hessians_exceed_the_budget_choose_compact_statistics():
    binned = BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", label_binning="equal-width")
    assert not binned._compact_statistics(100, 6) and binned._kernel_family(100, 5, 6)[0] == "variants"
    assert binned._compact_statistics(10_000, 983) and binned._kernel_family(10_000, 5, 983)[0] == "compact"
    exact = BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", label_binning="none")
    assert not exact._compact_statistics(100, 6) and exact._compact_statistics(10_000, 983)
    single = BoomerClassifier(loss="logistic-non-decomposable", head_type="single")
    assert not single._compact_statistics(10_000, 983)
    assert not BoomerClassifier()._compact_statistics(10_000, 983)  # label-wise


def test_983_labels_need_megabytes_not_gigabytes():
    """Issue 33 item 2: 983 labels, 10,000 examples (the fit asked numpy for 58 GiB): the statistics of
    a binned complete head take 2K + 1 numbers per example and a few K x K sums."""
    n, K, sampled = 10_000, 983, 6
    compact = statistics_bytes(n, K, True, 8, True, sampled)
    packed = statistics_bytes(n, K, True, 8, False, sampled)
    assert compact < 400 * 2**20 and packed > 36 * 2**30  # 290 MiB against 36 GiB
    _check_statistics_memory(n, K, True, 8, True, sampled)  # no MemoryError


def test_fit_on_983_labels_keeps_compact_statistics(monkeypatch):
    rng = np.random.default_rng(0)
    n, K = 120, 983
    X = rng.normal(size=(n, 3)).astype(np.float32)
    Y = (rng.random((n, K)) < 0.02).astype(np.uint8)
    Y[:, 0] = X[:, 0] > 0
    est = BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", label_binning="equal-width",
                           statistic_type="64-bit", max_rules=3, random_state=1)
    monkeypatch.setattr(boomer_settings, "PACKED_STATISTICS_BUDGET", n * 1000)  # 120 examples' packed Hessians: 464 MB
    assert est._compact_statistics(n, K)
    est.fit(X, Y)
    assert len(est.records_) == 3
    head = est.records_[1].rule
    assert len(head.head_labels) == K and np.isfinite(head.head_scores).all()
