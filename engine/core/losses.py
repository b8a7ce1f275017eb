"""Loss functions with exact gradients and Hessians (Rapp et al. 2020, eq. 12), with mlrl-boomer
0.15.6's meanings (read from its C++ ``mlrl/boosting/losses/``; our own code).

Labels enter the kernels as they are kept, 0/1 (uint8, N x K); the logistic and squared-error losses
use their signs ``y`` = 2 * label - 1 in {-1, +1} (:func:`label_sign`), formed where they are read, so
a fit keeps no second N x K array of signs; the squared hinge losses use the 0/1 labels themselves.
Scores ``F`` are in the statistics' type.  Decomposable losses have a diagonal Hessian, stored as
N x K.  Non-decomposable losses store the symmetric K x K Hessian packed row-wise as its upper
triangle (N x K(K+1)/2, see :func:`packed_index`).

Definitions (per example, f = scores, y = signs, z = 0/1 labels), the value :func:`example_loss`
gives and the statistics :func:`example_statistics` gives:

- ``logistic-decomposable`` (eq. 6): sum_k log(1 + exp(-y_k f_k)); its exact derivatives.
- ``logistic-non-decomposable`` (eq. 7): log(1 + sum_k exp(-y_k f_k)); its exact derivatives.
- ``squared-error-decomposable``: sum_k (f_k - y_k)^2; the statistics of half of it,
  g_k = f_k - y_k, h_k = 1 (the reference's; so ``l2_regularization_weight`` weighs against h = 1).
- ``squared-error-non-decomposable``: sqrt(D), D = sum_k x_k, x_k = (f_k - y_k)^2 (computed as
  f_k^2 - 2 y_k f_k + 1); g_k = (f_k - y_k) / sqrt(D), H_kk = (D - x_k) / D^1.5,
  H_kl = -(f_k - y_k)(f_l - y_l) / D^1.5, each quotient 0 where it is not finite.
- ``squared-hinge-decomposable``: sum_k v_k^2 with the residual v_k = f_k - 1 for a relevant label
  with f_k < 1, v_k = f_k for an irrelevant label with f_k > 0, else 0 (targets {0, 1}, margin 1/2
  around the threshold 0.5); the statistics of half of it, g_k = v_k, h_k = 1 (also where v_k = 0).
- ``squared-hinge-non-decomposable``: sqrt(D), D = sum_k v_k^2; where v_k != 0, g_k = v_k / sqrt(D),
  H_kk = (D - v_k^2) / D^1.5, H_kl = -v_k v_l / D^1.5; where v_k = 0, g_k = 0, H_kk = 1, H_kl = 0.

Predictions: a label is relevant when its score exceeds :func:`score_threshold` (0.5 for the squared
hinge losses, 0 for the others: the reference's ``getDefaultPrediction``).  Every example-wise loss is
a monotone function of sum_k c(z_k, f_k) with per-label costs ``c`` (:func:`label_costs`), which makes
the eq. (19) prediction a cheap search.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

from .regression_losses import SQERR_REG_DEC, regression_example_loss, regression_statistics

LOSSES = (
    "logistic-decomposable",
    "logistic-non-decomposable",
    "squared-error-decomposable",
    "squared-error-non-decomposable",
    "squared-hinge-decomposable",
    "squared-hinge-non-decomposable",
)
LOSS_CODES = {name: code for code, name in enumerate(LOSSES)}
LOGISTIC_DEC, LOGISTIC_NONDEC, SQERR_DEC, SQERR_NONDEC, SQHINGE_DEC, SQHINGE_NONDEC = range(6)


SCORE_THRESHOLDS = {"squared-hinge-decomposable": 0.5, "squared-hinge-non-decomposable": 0.5}


def score_threshold(loss: str | None) -> float:
    """The score above which a label is predicted relevant (output-wise, not by probabilities):
    mlrl-boomer's ``getDefaultPrediction`` of the loss, 0.5 for the squared hinge losses, else 0."""
    return SCORE_THRESHOLDS.get(loss, 0.0)


@njit(cache=True, nogil=True, inline="always")
def code_threshold(loss):
    """:func:`score_threshold` of a loss code, in kernels."""
    return 0.5 if loss == SQHINGE_DEC or loss == SQHINGE_NONDEC else 0.0


def is_decomposable(loss: str) -> bool:
    return loss.endswith("-decomposable") and not loss.endswith("non-decomposable")


def n_hessian_entries(n_labels: int, decomposable: bool) -> int:
    return n_labels if decomposable else n_labels * (n_labels + 1) // 2


@njit(cache=True, nogil=True)
def packed_index(k, l, n_labels):
    """Position of entry (k, l), k <= l, in the row-wise packed upper triangle."""
    return k * n_labels - (k * (k - 1)) // 2 + (l - k)


@intrinsic
def _bits_as_float64(typingctx, bits):
    """The float64 whose IEEE-754 bits are the int64 ``bits`` (an LLVM bitcast: no memory round trip,
    so loops around it stay vectorisable)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(cache=True, nogil=True, inline="always")
def _power_of_two(n):
    """2**n for -1022 <= n <= 1023, exactly."""
    return _bits_as_float64((n + 1023) << 52)


@njit(cache=True, nogil=True, inline="always")
def exp_nonpositive(x):
    """exp(x) for x <= 0, at most one unit in the last place from libm's ``exp`` (which LLVM's ``exp``
    calls, one value at a time): x = n ln 2 + r with |r| <= ln(2) / 2 (Cody and
    Waite's two-part ln 2), exp(r) = 1 + (r + r^2 q(r)) with q the Taylor polynomial to r^11, scaled by
    2^n in two exact steps so that subnormal results are right too.  Branch-free and call-free, so
    the statistics' loops vectorise.  Rounded to float32 statistics it gave libm's sigmoid, gradient
    and Hessian for every one of 2 * 10^6 normal scores (sd 4)."""
    x = max(x, -745.2)  # exp(-745.2) rounds to 0, as below
    n = np.floor(x * 1.4426950408889634 + 0.5)
    r = (x - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10
    q = 1.0 / 6227020800.0
    q = q * r + 1.0 / 479001600.0
    q = q * r + 1.0 / 39916800.0
    q = q * r + 1.0 / 3628800.0
    q = q * r + 1.0 / 362880.0
    q = q * r + 1.0 / 40320.0
    q = q * r + 1.0 / 5040.0
    q = q * r + 1.0 / 720.0
    q = q * r + 1.0 / 120.0
    q = q * r + 1.0 / 24.0
    q = q * r + 1.0 / 6.0
    q = q * r + 0.5
    p = 1.0 + (r + r * r * q)
    k = np.int64(n)
    high = max(k, -1022)
    return p * _power_of_two(high) * _power_of_two(k - high)


@njit(cache=True, nogil=True, inline="always")
def _sigmoid(x):
    """1 / (1 + exp(-x)), as e / (1 + e) with e = exp(x) for x < 0 (no overflow either way)."""
    e = exp_nonpositive(-abs(x))
    return (1.0 if x >= 0.0 else e) / (1.0 + e)


def label_sign(label):
    """The sign y of a label in the loss functions: +1 for a relevant label (non-zero), -1 otherwise; a real
    target (a float: regression, :mod:`.regression_losses`) is its own value."""
    return label if isinstance(label, (float, np.floating)) else (1 if label else -1)


@overload(label_sign, jit_options={"cache": True, "nogil": True})
def _label_sign(label):
    if isinstance(label, types.Float):
        return lambda label: label
    return lambda label: 1 if label else -1


@njit(cache=True, nogil=True, inline="always")
def label_statistics(loss, yk, fk):
    """Gradient and Hessian of one label's term of a decomposable loss (``yk``: the label's sign, or a real
    target for the regression codes, whose statistics are the classifier's squared error's,
    :func:`.regression_losses.regression_label_statistics`)."""
    if loss >= SQERR_REG_DEC:  # real-valued targets
        return fk - yk, 1.0
    if loss == LOGISTIC_DEC:
        s = _sigmoid(-yk * fk)
        return -yk * s, s * (1.0 - s)
    if loss == SQERR_DEC:
        return fk - yk, 1.0
    return hinge_residual(yk > 0.0, fk), 1.0


@njit(cache=True, nogil=True, inline="always")
def hinge_residual(relevant, fk):
    """The squared hinge loss's residual v of one label (module docstring): f - 1 for a relevant label
    below 1, f for an irrelevant label above 0, else 0."""
    if relevant:
        return fk - 1.0 if fk < 1.0 else 0.0
    return fk if fk > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def divide_or_zero(a, b):
    """a / b, or 0 where the quotient is not finite (the reference's ``divideOrZero``)."""
    q = a / b
    return q if math.isfinite(q) else 0.0


def targets_are_real(labels) -> bool:
    """Whether ``labels`` are real-valued targets (floats: regression, :mod:`.regression_losses`), not 0/1
    labels.  In kernels the choice between the two losses' code is made from this when they compile, so a
    classifier's kernels contain none of the regression code, and a regressor's none of the classifier's."""
    return np.asarray(labels).dtype.kind == "f"


def real_targets_statistics(loss, labels, f, g, h) -> bool:
    """For real targets (:func:`targets_are_real`), write their statistics (:mod:`.regression_losses`) and
    return True; for 0/1 labels do nothing and return False (in kernels decided when they compile: a
    classifier's kernels contain none of the regression code)."""
    if targets_are_real(labels):
        regression_statistics(loss, labels, f, g, h)
        return True
    return False


@overload(real_targets_statistics, jit_options={"cache": True, "nogil": True}, inline="always")
def _real_targets_statistics_overload(loss, labels, f, g, h):
    if isinstance(labels.dtype, types.Float):
        def regression(loss, labels, f, g, h):
            regression_statistics(loss, labels, f, g, h)
            return True
        return regression
    return lambda loss, labels, f, g, h: False


@njit(cache=True, nogil=True, error_model="numpy")  # no divisor is 0; vectorised loops
def example_statistics(loss, labels, f, g, h):
    """Gradient ``g`` (K) and Hessian ``h`` (K or packed K(K+1)/2) of one example's loss at ``f``
    (``labels``: the example's 0/1 labels, or its real targets: :func:`targets_are_real`)."""
    if real_targets_statistics(loss, labels, f, g, h):
        return
    K = f.shape[0]
    if loss == LOGISTIC_DEC or loss == SQERR_DEC or loss == SQHINGE_DEC:
        for k in range(K):
            g[k], h[k] = label_statistics(loss, float(label_sign(labels[k])), f[k])
    elif loss == LOGISTIC_NONDEC:
        # z_k = exp(-y_k f_k); S = 1 + sum z; work with z_k / S computed stably.
        # (the sum with libm's exp: a reduction stays scalar, where the polynomial is no faster)
        m = 0.0
        for k in range(K):
            a = -label_sign(labels[k]) * f[k]
            if a > m:
                m = a
        total = math.exp(-m)
        for k in range(K):
            total += math.exp(-label_sign(labels[k]) * f[k] - m)
        log_s = m + math.log(total)  # total >= 1: log_s >= m >= every -y_k f_k
        for k in range(K):
            yk = label_sign(labels[k])
            g[k] = -yk * exp_nonpositive(-yk * f[k] - log_s)  # g_k = -y_k p_k
        # H_kk = p_k (1 - p_k), H_kl = -y_k y_l p_k p_l = -g_k g_l: the packed rows in order, the
        # off-diagonal part of each row one contiguous product over slices (a loop from 0 to a length:
        # Numba's range(k + 1, K) indexes may be negative, and LLVM does not vectorise it; 3.7 times as fast)
        idx = 0
        for k in range(K):
            gk = g[k]
            pk = abs(gk)
            h[idx] = pk - pk * pk
            idx += 1
            row = h[idx:idx + K - 1 - k]
            rest = g[k + 1:K]
            for l in range(rest.shape[0]):
                row[l] = -gk * rest[l]
            idx += K - 1 - k
    else:
        _norm_statistics(loss == SQHINGE_NONDEC, labels, f, g, h)


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _norm_statistics(hinge, labels, f, g, h):
    """The statistics of the non-decomposable squared error or squared hinge loss (module docstring), in
    the reference's arithmetic: the x_k first (kept in ``g``), then D, sqrt(D) and D^1.5."""
    K = f.shape[0]
    total = 0.0
    for k in range(K):
        fk = f[k]
        if hinge:
            if labels[k]:
                x = fk * fk - 2.0 * fk + 1.0 if fk < 1.0 else 0.0
            else:
                x = fk * fk if fk > 0.0 else 0.0
        else:
            x = fk * fk + (-2.0 * label_sign(labels[k]) * fk) + 1.0
        g[k] = x
        total += x
    root = math.sqrt(total)
    power = total ** 1.5
    idx = 0
    for k in range(K):
        v = hinge_residual(labels[k], f[k]) if hinge else f[k] - label_sign(labels[k])
        active = v != 0.0 if hinge else True
        h[idx] = divide_or_zero(total - g[k], power) if active else 1.0
        for l in range(k + 1, K):
            w = hinge_residual(labels[l], f[l]) if hinge else f[l] - label_sign(labels[l])
            h[idx + l - k] = divide_or_zero(-v * w, power) if active else 0.0
        idx += K - k
        g[k] = divide_or_zero(v, root) if active else 0.0


@njit(cache=True, nogil=True)
def example_loss(loss, labels, f):
    """The loss of one example with 0/1 ``labels`` at the scores ``f`` (eq. 6 and 7 for the logistic losses),
    or with real targets (:func:`targets_are_real`, :func:`.regression_losses.regression_example_loss`)."""
    return _example_loss(loss, labels, f)


def _example_loss(loss, labels, f):
    """:func:`example_loss` of 0/1 labels or of real targets."""
    return (regression_example_loss if targets_are_real(labels) else label_example_loss)(loss, labels, f)


@overload(_example_loss, jit_options={"cache": True, "nogil": True}, inline="always")
def _example_loss_overload(loss, labels, f):
    if isinstance(labels.dtype, types.Float):
        return lambda loss, labels, f: regression_example_loss(loss, labels, f)
    return lambda loss, labels, f: label_example_loss(loss, labels, f)


@njit(cache=True, nogil=True, inline="always")
def label_example_loss(loss, labels, f):
    """:func:`example_loss` of 0/1 ``labels`` (a classification loss)."""
    K = f.shape[0]
    if loss == LOGISTIC_DEC:
        total = 0.0
        for k in range(K):
            a = -label_sign(labels[k]) * f[k]
            total += max(a, 0.0) + math.log1p(math.exp(-abs(a)))
        return total
    if loss == LOGISTIC_NONDEC:
        m = 0.0
        for k in range(K):
            m = max(m, -label_sign(labels[k]) * f[k])
        total = math.exp(-m)
        for k in range(K):
            total += math.exp(-label_sign(labels[k]) * f[k] - m)
        return m + math.log(total)
    total = 0.0
    for k in range(K):
        if loss == SQERR_DEC or loss == SQERR_NONDEC:
            v = label_sign(labels[k]) - f[k]
        else:
            v = hinge_residual(labels[k], f[k])
        total += v * v
    if loss == SQERR_NONDEC or loss == SQHINGE_NONDEC:
        return math.sqrt(total)
    return total


@njit(cache=True, nogil=True)
def update_statistics(loss, Y, F, rows, n_rows, G, H):
    """Recompute gradients and Hessians of ``rows[:n_rows]`` (0/1 labels ``Y``) after their scores changed."""
    for r in range(n_rows):
        i = rows[r]
        example_statistics(loss, Y[i], F[i], G[i], H[i])


@njit(cache=True, nogil=True)
def label_costs(loss, f, cost_pos, cost_neg):
    """Per-label costs c(relevant, f_k), c(irrelevant, f_k) whose sum the example-wise loss increases with
    (the squared terms of :func:`example_loss`).

    Logistic costs are scaled by a common factor exp(-max|f|) to avoid overflow; the
    arg-min over label vectors is unchanged by it.
    """
    K = f.shape[0]
    if loss == LOGISTIC_NONDEC or loss == LOGISTIC_DEC:
        m = 0.0
        for k in range(K):
            m = max(m, abs(f[k]))
        for k in range(K):
            cost_pos[k] = math.exp(-f[k] - m)
            cost_neg[k] = math.exp(f[k] - m)
    elif loss == SQERR_NONDEC or loss == SQERR_DEC:
        for k in range(K):
            cost_pos[k] = (f[k] - 1.0) ** 2
            cost_neg[k] = (f[k] + 1.0) ** 2
    else:
        for k in range(K):
            cost_pos[k] = hinge_residual(True, f[k]) ** 2
            cost_neg[k] = hinge_residual(False, f[k]) ** 2
