"""Gradients and Hessians of every loss against central finite differences (eq. 12)."""
import numpy as np
import pytest

from engine.core.losses import LOSS_CODES, LOSSES, example_loss, example_statistics, is_decomposable, packed_index


def _numeric_derivatives(code, y, f, eps=1e-5):
    K = len(f)
    grad = np.zeros(K)
    hess = np.zeros((K, K))
    for k in range(K):
        e = np.zeros(K)
        e[k] = eps
        grad[k] = (example_loss(code, y, f + e) - example_loss(code, y, f - e)) / (2 * eps)
        for l in range(K):
            d = np.zeros(K)
            d[l] = eps
            hess[k, l] = (example_loss(code, y, f + e + d) - example_loss(code, y, f + e - d)
                          - example_loss(code, y, f - e + d) + example_loss(code, y, f - e - d)) / (4 * eps * eps)
    return grad, hess


# The decomposable squared losses' statistics are those of half the loss (mlrl-boomer's g = f - y, h = 1)
HALVED = ("squared-error-decomposable", "squared-hinge-decomposable")


def _hinge_margin(y, f):
    """Labels inside the squared hinge's margin (zero residual): relevant with f >= 1, irrelevant with f <= 0."""
    return np.where(y == 1, f >= 1.0, f <= 0.0)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_and_hessian_match_finite_differences(loss, seed):
    """The statistics are the derivatives of the loss (of half of it for :data:`HALVED`); a squared hinge
    label inside its margin, where the loss is flat, has the Hessian 1 and no coupling (the reference's)."""
    rng = np.random.default_rng(seed)
    K = 4
    y = rng.choice(np.array([0, 1], dtype=np.uint8), K)
    # stay away from the hinge kinks (f = 1 for a relevant label, f = 0 for an irrelevant one)
    f = rng.uniform(-2.0, 2.0, K)
    if "hinge" in loss:
        kink = np.where(y == 1, 1.0, 0.0)
        f = np.where(np.abs(f - kink) < 0.2, f + 0.5, f)
    code = LOSS_CODES[loss]
    dec = is_decomposable(loss)
    g = np.zeros(K)
    h = np.zeros(K if dec else K * (K + 1) // 2)
    example_statistics(code, y, f, g, h)
    num_g, num_h = _numeric_derivatives(code, y, f)
    if loss in HALVED:
        num_g, num_h = num_g / 2, num_h / 2
    flat = _hinge_margin(y, f) if "hinge" in loss else np.zeros(K, dtype=bool)
    num_h[flat, flat] = 1.0  # the reference's Hessian of a label inside the margin
    np.testing.assert_allclose(g, num_g, rtol=1e-5, atol=1e-6)
    full = np.zeros((K, K))
    if dec:
        full[np.diag_indices(K)] = h
        # decomposable: the numerical Hessian is diagonal
        np.testing.assert_allclose(num_h - np.diag(np.diag(num_h)), 0, atol=1e-4)
    else:
        for k in range(K):
            for l in range(k, K):
                full[k, l] = full[l, k] = h[packed_index(k, l, K)]
    np.testing.assert_allclose(full, num_h, rtol=1e-3, atol=1e-4)


def test_logistic_losses_hand_computed():
    y = np.array([1, 0], dtype=np.uint8)
    f = np.array([0.0, 0.0])
    # label-wise: 2 * log(2); example-wise: log(1 + 1 + 1) = log 3
    assert example_loss(LOSS_CODES["logistic-decomposable"], y, f) == pytest.approx(2 * np.log(2))
    assert example_loss(LOSS_CODES["logistic-non-decomposable"], y, f) == pytest.approx(np.log(3))
    g = np.zeros(2)
    h = np.zeros(3)
    example_statistics(LOSS_CODES["logistic-non-decomposable"], y, f, g, h)
    # g_k = -y_k * 1/3, H_kk = 1/3 - 1/9, H_01 = -y0*y1/9 = +1/9
    np.testing.assert_allclose(g, [-1 / 3, 1 / 3])
    np.testing.assert_allclose(h, [2 / 9, 1 / 9, 2 / 9])


def test_labels_enter_as_zero_one_and_count_as_signs():
    """A 0/1 label is the sign -1/+1 of the logistic and squared error losses and the target 0/1 of the
    squared hinge losses (mlrl-boomer's meanings): hand-computed at f = (0.5, 0.5)."""
    y = np.array([1, 0], dtype=np.uint8)
    f = np.array([0.5, 0.5])
    # squared error: (1 - 0.5)^2 + (-1 - 0.5)^2; squared hinge: (1 - 0.5)^2 (relevant, below 1) + 0.5^2
    # (irrelevant, above 0)
    assert example_loss(LOSS_CODES["squared-error-decomposable"], y, f) == pytest.approx(2.5)
    assert example_loss(LOSS_CODES["squared-hinge-decomposable"], y, f) == pytest.approx(0.5)
    assert example_loss(LOSS_CODES["squared-error-non-decomposable"], y, f) == pytest.approx(np.sqrt(2.5))
    assert example_loss(LOSS_CODES["squared-hinge-non-decomposable"], y, f) == pytest.approx(np.sqrt(0.5))
    # logistic: log(1 + e^-0.5) + log(1 + e^0.5)
    assert example_loss(LOSS_CODES["logistic-decomposable"], y, f) == pytest.approx(
        np.log1p(np.exp(-0.5)) + np.log1p(np.exp(0.5)))
    g, h = np.zeros(2), np.zeros(2)
    example_statistics(LOSS_CODES["squared-error-decomposable"], y, f, g, h)  # g = f - y, h = 1
    np.testing.assert_allclose(g, [0.5 - 1, 0.5 + 1])
    np.testing.assert_allclose(h, [1.0, 1.0])
    example_statistics(LOSS_CODES["squared-hinge-decomposable"], y, f, g, h)  # g = f - 1 / f, h = 1
    np.testing.assert_allclose(g, [-0.5, 0.5])
    np.testing.assert_allclose(h, [1.0, 1.0])


def test_squared_hinge_hand_computed_with_labels_in_the_margin():
    """Relevant at f = 1.5 and irrelevant at f = -0.5 are inside the margin: gradient 0, Hessian 1 (the
    reference's), and no coupling in the non-decomposable loss; the other two labels give
    v = (0.2 - 1, 0.6) = (-0.8, 0.6), D = 1, so g = v, H_kk = D - v_k^2, H_kl = -v_k v_l."""
    y = np.array([1, 0, 1, 0], dtype=np.uint8)
    f = np.array([1.5, -0.5, 0.2, 0.6])
    g, h = np.zeros(4), np.zeros(4)
    example_statistics(LOSS_CODES["squared-hinge-decomposable"], y, f, g, h)
    np.testing.assert_allclose(g, [0.0, 0.0, -0.8, 0.6])
    np.testing.assert_array_equal(h, [1.0, 1.0, 1.0, 1.0])
    h = np.zeros(10)
    example_statistics(LOSS_CODES["squared-hinge-non-decomposable"], y, f, g, h)
    np.testing.assert_allclose(g, [0.0, 0.0, -0.8, 0.6], atol=1e-15)
    full = np.zeros((4, 4))
    for k in range(4):
        for l in range(k, 4):
            full[k, l] = full[l, k] = h[packed_index(k, l, 4)]
    expected = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1 - 0.64, 0.48], [0, 0, 0.48, 1 - 0.36]])
    np.testing.assert_allclose(full, expected, atol=1e-12)
    # every label inside the margin: D = 0, no division, gradient 0 and Hessian I
    f = np.array([2.0, -1.0, 1.0, 0.0])
    example_statistics(LOSS_CODES["squared-hinge-non-decomposable"], y, f, g, h)
    np.testing.assert_array_equal(g, 0.0)
    np.testing.assert_array_equal(h, [1, 0, 0, 0, 1, 0, 0, 1, 0, 1])


def test_score_thresholds_are_the_references_default_predictions():
    from engine.core.losses import score_threshold
    assert [score_threshold(loss) for loss in LOSSES] == [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]


def test_logistic_is_stable_for_large_scores():
    y = np.array([1, 0, 1], dtype=np.uint8)
    f = np.array([800.0, 900.0, -700.0])
    for loss in ("logistic-decomposable", "logistic-non-decomposable"):
        code = LOSS_CODES[loss]
        g = np.zeros(3)
        h = np.zeros(3 if is_decomposable(loss) else 6)
        example_statistics(code, y, f, g, h)
        assert np.isfinite(g).all() and np.isfinite(h).all()
        assert np.isfinite(example_loss(code, y, f))


def test_exp_of_nonpositive_arguments_within_one_ulp_of_libm():
    """The vectorisable exp of the logistic statistics against libm's (``math.exp``) from 0 down to the
    subnormal results and to where they round to 0."""
    import math

    from numba import njit

    from engine.core.losses import exp_nonpositive

    @njit
    def exp_all(x, out):
        for i in range(x.shape[0]):
            out[i] = exp_nonpositive(x[i])

    rng = np.random.default_rng(0)
    x = np.concatenate([-np.abs(rng.normal(scale=5.0, size=20000)), -rng.uniform(0, 746, 5000),
                        [0.0, -0.0, -1e-300, -0.5 * math.log(2), -math.log(2), -708.39, -709.0, -740.0, -744.4,
                         -745.2, -800.0, -math.inf]])
    out = np.empty_like(x)
    exp_all(x, out)
    expected = np.array([math.exp(v) for v in x])
    ulps = np.abs(out - expected) / np.spacing(np.maximum(expected, 5e-324))
    assert ulps.max() <= 1.0
    assert out[x <= -745.2].tolist() == [0.0] * int((x <= -745.2).sum())
    assert out[x == 0].tolist() == [1.0, 1.0]


def test_float32_logistic_statistics_equal_libm_based_ones():
    """Rounded to the float32 statistics (the default), the gradients and Hessians of the
    decomposable logistic loss are those of libm's exp: fits are unchanged by the faster exp."""
    import math

    rng = np.random.default_rng(3)
    f = rng.normal(scale=4.0, size=20000)
    y = (rng.random(20000) < 0.5).astype(np.uint8)
    code = LOSS_CODES["logistic-decomposable"]
    g = np.zeros(len(f))
    h = np.zeros(len(f))
    example_statistics(code, y, f, g, h)
    sign = np.where(y == 1, 1.0, -1.0)
    x = -sign * f
    s = np.array([1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v)) for v in x])
    np.testing.assert_array_equal(g.astype(np.float32), (-sign * s).astype(np.float32))
    np.testing.assert_array_equal(h.astype(np.float32), (s * (1.0 - s)).astype(np.float32))


def test_the_targets_dtype_chooses_the_statistics_when_kernels_compile():
    """0/1 labels (uint8, bool) get the classification losses' code, real targets (floats) the regression
    code (engine.core.regression_losses): chosen from the type, so neither kernel compiles the other's."""
    from numba import types

    from engine.core.losses import _example_loss_overload, _real_targets_statistics_overload, targets_are_real

    def chosen(overload, dtype, n_args):
        impl = overload(types.int64, types.Array(dtype, 1, "C"), *[types.float64[::1]] * (n_args - 2))
        return set(impl.__code__.co_names)

    for dtype in (types.uint8, types.boolean):
        assert chosen(_real_targets_statistics_overload, dtype, 5) == set()  # nothing: the classification code follows
        assert chosen(_example_loss_overload, dtype, 3) == {"label_example_loss"}
    for dtype in (types.float32, types.float64):
        assert chosen(_real_targets_statistics_overload, dtype, 5) == {"regression_statistics"}
        assert chosen(_example_loss_overload, dtype, 3) == {"regression_example_loss"}
    assert targets_are_real(np.zeros(2, dtype=np.float32)) and not targets_are_real(np.zeros(2, dtype=np.uint8))
