"""Heads (eqs. 14-17) against a numerical minimiser of the regularised objective; with an L1 weight,
against mlrl-boomer 0.15.6's formulas written out (its L1 term is not the objective's minimiser)."""
import numpy as np
import pytest
from scipy.optimize import minimize

from engine.core.heads import (CHOLESKY_BLOCKED_MIN_LABELS, complete_quality, complete_scores, label_quality,
                               label_score, single_quality)
from engine.core.losses import packed_index


def _objective(p, g, Hfull, l2, l1):
    return g @ p + 0.5 * p @ Hfull @ p + 0.5 * l2 * p @ p + l1 * np.abs(p).sum()


def _random_problem(rng, K):
    A = rng.normal(size=(K, K))
    Hfull = A @ A.T / K
    g = rng.normal(size=K)
    packed = np.array([Hfull[k, l] for k in range(K) for l in range(k, K)])
    return g, Hfull, packed


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("l1", [0.0, 0.3])
def test_complete_head_minimises_objective_full_hessian(seed, l1):
    rng = np.random.default_rng(seed)
    K = 5
    g, Hfull, packed = _random_problem(rng, K)
    g[0] = 0.1  # below the L1 weight
    l2 = 0.7
    p = np.zeros(K)
    complete_scores(g, packed, True, l2, l1, np.zeros((K, K)), p)
    q = complete_quality(g, packed, True, l2, l1, np.zeros((K, K)), np.zeros(K))
    assert q == pytest.approx(_objective(p, g, Hfull, l2, l1), rel=1e-9, abs=1e-12)
    if l1 == 0.0:
        best = minimize(_objective, np.zeros(K), args=(g, Hfull, l2, l1), method="BFGS", tol=1e-12)
        np.testing.assert_allclose(p, best.x, atol=1e-5)
        assert q == pytest.approx(best.fun, abs=1e-8)
    else:
        # mlrl-boomer's system: (H + lambda I) p = -g' with g' = g - alpha sign g where |g| > alpha,
        # else g (a small gradient is kept, not zeroed)
        g_shifted = np.where(np.abs(g) > l1, g - l1 * np.sign(g), g)
        assert (np.abs(g) <= l1).any() and (np.abs(g) > l1).any()  # both cases occur
        np.testing.assert_allclose((Hfull + l2 * np.eye(K)) @ p, -g_shifted, atol=1e-10)


@pytest.mark.parametrize("l1", [0.0, 0.4])
def test_decomposable_heads_minimise_per_label(l1):
    rng = np.random.default_rng(3)
    K = 6
    g = rng.normal(size=K)
    h = rng.uniform(0.1, 2.0, K)
    l2 = 1.0
    p = np.zeros(K)
    complete_scores(g, h, False, l2, l1, np.zeros((K, K)), p)
    for k in range(K):
        if l1 == 0.0:
            res = minimize(lambda x: g[k] * x[0] + 0.5 * (h[k] + l2) * x[0] ** 2, [0.0],
                           method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14})
            assert p[k] == pytest.approx(res.x[0], abs=1e-5)
        assert label_score(g[k], h[k], l2, l1) == pytest.approx(p[k])
    q, k = single_quality(g, h, False, l2, l1)
    per_label = [label_quality(g[j], h[j], l2, l1) for j in range(K)]
    assert k == int(np.argmin(per_label)) and q == pytest.approx(min(per_label))


@pytest.mark.parametrize("g, expected_numerator", [(2.0, -2.5), (-2.0, 2.5), (0.3, -0.3), (-0.5, 0.5), (0.0, 0.0)])
def test_l1_has_mlrl_boomers_label_wise_meaning(g, expected_numerator):
    """mlrl-boomer 0.15.6 (calculateOutputWiseScore, calculateOutputWiseQuality): with alpha = 0.5 the
    score is (-g - alpha sign g) / (h + lambda) where |g| > alpha, else -g / (h + lambda), and the
    quality g p + h p^2 / 2 + alpha |p| + lambda p^2 / 2 at that score (by hand: h = 1.5, lambda = 1)."""
    h, l2, l1 = 1.5, 1.0, 0.5
    p = expected_numerator / 2.5
    assert label_score(g, h, l2, l1) == pytest.approx(p, rel=1e-15)
    assert label_quality(g, h, l2, l1) == pytest.approx(g * p + 0.75 * p * p + 0.5 * abs(p) + 0.5 * p * p,
                                                        rel=1e-15, abs=1e-300)
    if abs(g) <= l1 and g != 0.0:
        assert label_quality(g, h, l2, l1) > 0.0  # a small gradient's score is worse than none there


def test_single_head_uses_diagonal_for_full_hessian():
    rng = np.random.default_rng(4)
    K = 4
    g, Hfull, packed = _random_problem(rng, K)
    q, k = single_quality(g, packed, True, 1.0, 0.0)
    per = -0.5 * g ** 2 / (np.diag(Hfull) + 1.0)
    assert k == int(np.argmin(per)) and q == pytest.approx(per.min())


def test_an_indefinite_system_is_solved_as_the_reference_does():
    """mlrl-boomer solves every complete head's system with LAPACK's symmetric indefinite solver: an
    indefinite H + lambda I (the non-decomposable squared error of real-valued targets, engine.core.indefinite)
    gets its solution, rated by the objective there (positive semi-definite ones keep the Cholesky path)."""
    K = 2
    Hfull = np.array([[1.0, 3.0], [3.0, 1.0]])  # indefinite
    packed = np.array([Hfull[0, 0], Hfull[0, 1], Hfull[1, 1]])
    g = np.array([1.0, -2.0])
    p = np.zeros(K)
    complete_scores(g, packed, True, 0.0, 0.0, np.zeros((K, K)), p)
    np.testing.assert_allclose(p, [0.875, -0.625])  # (H p = -g by hand: H^-1 = -1/8 [[1, -3], [-3, 1]])
    q = complete_quality(g, packed, True, 0.0, 0.0, np.zeros((K, K)), np.zeros(K))
    assert q == pytest.approx(g @ p + 0.5 * p @ Hfull @ p) and q == pytest.approx(1.0625)
    assert packed_index(1, 1, 2) == 2


def test_heads_stay_finite_without_regularisation():
    """lambda = 0 and a Hessian that underflows (saturated logistic examples): the Newton step
    would be infinite; the head falls back to a finite score (0 for that label)."""
    import math

    from engine.core.heads import complete_scores, label_score
    from engine.core.losses import packed_index

    assert label_score(1.0, 1e-320, 0.0, 0.0) == 0.0  # -1 / 1e-320 overflows
    assert label_score(1.0, 2.0, 0.0, 0.0) == -0.5
    K = 3
    g = np.array([1.0, -2.0, 0.5])
    h = np.zeros(K * (K + 1) // 2)
    h[packed_index(0, 0, K)] = 1e-320  # nearly singular: the Cholesky solve overflows
    h[packed_index(1, 1, K)] = 4.0
    h[packed_index(2, 2, K)] = 1.0
    out = np.empty(K)
    complete_scores(g, h, True, 0.0, 0.0, np.zeros((K, K)), out)
    assert all(math.isfinite(v) for v in out)
    assert out[1] == pytest.approx(0.5) and out[2] == pytest.approx(-0.5)


def _plain_cholesky(packed, l2, K):
    """The textbook column-by-column Cholesky factor of H + l2 I, each entry's subtractions in ascending order."""
    L = np.zeros((K, K))
    for j in range(K):
        s = packed[packed_index(j, j, K)] + l2
        for m in range(j):
            s -= L[j, m] * L[j, m]
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, K):
            t = packed[packed_index(j, i, K)]
            for m in range(j):
                t -= L[i, m] * L[j, m]
            L[i, j] = t / L[j, j]
    return L


@pytest.mark.parametrize("K", [CHOLESKY_BLOCKED_MIN_LABELS - 1, CHOLESKY_BLOCKED_MIN_LABELS,
                               CHOLESKY_BLOCKED_MIN_LABELS + 5, 53])
def test_blocked_cholesky_gives_the_plain_factor_bit_for_bit(K):
    """From CHOLESKY_BLOCKED_MIN_LABELS labels on, eight rows of a column share a pass: the factor, the
    quality and the head are still the plain loop's numbers exactly, and solve the system."""
    g, Hfull, packed = _random_problem(np.random.default_rng(K), K)
    chol, z = np.zeros((K, K)), np.zeros(K)
    q = complete_quality(g, packed, True, 1.0, 0.0, chol, z)
    L = _plain_cholesky(packed, 1.0, K)
    assert np.array_equal(np.tril(chol), L)
    z_plain = np.zeros(K)
    for i in range(K):
        z_plain[i] = (g[i] - L[i, :i] @ z_plain[:i]) / L[i, i] if i else g[0] / L[0, 0]
    p = np.zeros(K)
    complete_scores(g, packed, True, 1.0, 0.0, np.zeros((K, K)), p)
    np.testing.assert_allclose(p, np.linalg.solve(Hfull + np.eye(K), -g), rtol=1e-10, atol=1e-12)
    assert q == pytest.approx(-0.5 * z_plain @ z_plain, rel=1e-13)
