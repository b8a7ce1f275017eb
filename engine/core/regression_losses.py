"""Squared-error statistics of real-valued targets (multi-output regression), as mlrl-boomer 0.15.6's
``BoomerRegressor`` computes them.

Targets enter the kernels as float32 (N x T, as the reference keeps its regression matrix) where the
classification losses read 0/1 labels; :func:`engine.core.losses.label_sign` passes a real target through
unchanged, so the boosting kernels serve both.  The loss codes follow the classification ones
(:data:`engine.core.losses.LOSS_CODES`).  Per example, with scores f and targets y:

- ``squared-error-decomposable``: gradient f_k - y_k, Hessian 1 (the classifier's variant has 2 (f - y), 2);
- ``squared-error-non-decomposable``: with x_k = f_k^2 - 2 y_k f_k + 1 and s = sum_k x_k (the reference's
  arithmetic: (f_k - y_k)^2 for targets of +-1 only), gradient (f_k - y_k) / sqrt(s), Hessian diagonal
  (s - x_k) / s^1.5, off-diagonal -(f_k - y_k)(f_l - y_l) / s^1.5; a quotient that is not finite is 0.

The loss a holdout set is watched with (global pruning): sum_k (y_k - f_k)^2, and for the non-decomposable
loss sqrt(sum_k (t_k - f_k)^2) with t_k = +1 for a non-zero target and -1 for zero: the reference evaluates
that loss on a regression matrix as on labels.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import overload

REGRESSION_LOSSES = ("squared-error-decomposable", "squared-error-non-decomposable")
SQERR_REG_DEC, SQERR_REG_NONDEC = 6, 7  # after the six classification losses' codes
REGRESSION_CODES = {"squared-error-decomposable": SQERR_REG_DEC, "squared-error-non-decomposable": SQERR_REG_NONDEC}


@njit(cache=True, nogil=True, inline="always")
def _divide_or_zero(numerator, denominator):
    """``numerator / denominator``, 0 where that is not finite (the reference's ``divideOrZero``)."""
    if denominator == 0.0:
        return 0.0
    result = numerator / denominator
    return result if math.isfinite(result) else 0.0


@njit(cache=True, nogil=True, inline="always")
def regression_label_statistics(yk, fk):
    """Gradient and Hessian of one output of the decomposable squared error (real target ``yk``)."""
    return fk - yk, 1.0


def _like(value, marker):
    """``value`` in the type of ``marker`` (float32 statistics compute in float32, as the reference's)."""
    return value


@overload(_like, jit_options={"cache": True, "nogil": True})
def _like_overload(value, marker):
    if isinstance(marker, types.Float) and marker.bitwidth == 32:
        return lambda value, marker: np.float32(value)
    return lambda value, marker: np.float64(value)


@njit(cache=True, nogil=True)
def regression_example_statistics(targets, f, g, h):
    """Gradient ``g`` (T) and packed Hessian ``h`` (T(T+1)/2, upper triangle row-wise) of the
    non-decomposable squared error of one example with real ``targets`` at the scores ``f``, in the scores'
    precision (float32 statistics: float32 arithmetic, the power in double, as the reference's)."""
    T = f.shape[0]
    m = g[0]  # the statistics' type
    s = _like(0.0, m)
    for k in range(T):
        fk = _like(f[k], m)
        x = fk * fk + (_like(-2.0, m) * _like(targets[k], m) * fk) + _like(1.0, m)
        g[k] = x  # kept until the sum is known
        s += x
    root = np.sqrt(s)
    power = _like(np.float64(s) ** 1.5, m)
    for k in range(T):
        x = _like(g[k], m)
        dk = _like(f[k], m) - _like(targets[k], m)
        base = k * T - (k * (k - 1)) // 2  # row k of the packed upper triangle
        h[base] = _divide_or_zero(s - x, power)
        for l in range(k + 1, T):
            dl = _like(f[l], m) - _like(targets[l], m)
            h[base + l - k] = _divide_or_zero(-dk * dl, power)
    for k in range(T):
        g[k] = _divide_or_zero(_like(f[k], m) - _like(targets[k], m), root)


@njit(cache=True, nogil=True)
def regression_statistics(loss, targets, f, g, h):
    """Gradients and Hessians of one example for the regression ``loss`` code (see the module docstring)."""
    if loss == SQERR_REG_NONDEC:
        regression_example_statistics(targets, f, g, h)
        return
    for k in range(f.shape[0]):
        g[k], h[k] = regression_label_statistics(float(targets[k]), float(f[k]))


@njit(cache=True, nogil=True)
def regression_example_loss(loss, targets, f):
    """The loss of one example with real ``targets`` at the scores ``f`` (see the module docstring)."""
    total = 0.0
    for k in range(f.shape[0]):
        if loss == SQERR_REG_DEC:
            d = float(targets[k]) - float(f[k])
        else:
            d = (1.0 if targets[k] != 0 else -1.0) - float(f[k])
        total += d * d
    return total if loss == SQERR_REG_DEC else math.sqrt(total)
