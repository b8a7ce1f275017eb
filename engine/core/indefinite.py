"""Complete heads whose system ``(H + lambda I) p = -g'`` is indefinite (eq. 16 without a minimum).

The classification losses' Hessians are positive semi-definite, so :mod:`.heads` solves their systems by a
Cholesky factorisation.  mlrl-boomer 0.15.6 solves every system with LAPACK's symmetric indefinite solver
(``sysv``), and the Hessians of its non-decomposable squared error on real-valued targets
(:mod:`.regression_losses`) can be indefinite: there the head is the system's solution, a saddle point of
the objective, rated by the objective's value ``g.p + p'Hp / 2 + lambda |p|^2 / 2 + alpha |p|_1``.
A matrix is taken as indefinite when its smallest eigenvalue is below -1e-9 (1 + max |H_kk|): far below the
rounding of a positive semi-definite one, whose systems keep the Cholesky path's treatment.  The eigenvalues
and the solution are LAPACK's (:mod:`.lapack`: the routines of ``np.linalg.eigvalsh`` and ``np.linalg.solve``,
called without Numba's wrappers, which compiled for about 4 s in every classifier's process too)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lapack import solve_symmetric, symmetric_eigenvalues
from .losses import packed_index

INDEFINITE_MARGIN = 1e-9


@njit(cache=True, nogil=True)
def _system(h, l2, K):
    A = np.empty((K, K))
    for k in range(K):
        for m in range(k, K):
            v = h[packed_index(k, m, K)]
            A[k, m] = v
            A[m, k] = v
        A[k, k] += l2
    return A


@njit(cache=True, nogil=True)
def indefinite_head(g, h, l2, l1, out):
    """Write the solution of an indefinite system into ``out`` and return its objective (see the module
    docstring); +inf (``out`` untouched) when the matrix is not clearly indefinite (or not finite, or LAPACK
    fails) or the solution is not finite (or the matrix exactly singular)."""
    K = g.shape[0]
    A = _system(h, l2, K)
    largest = 0.0
    finite = True
    for k in range(K):
        largest = max(largest, abs(A[k, k] - l2))
        for m in range(K):
            finite = finite and math.isfinite(A[k, m])
    if K == 0 or not finite:
        return math.inf
    eigenvalues = np.empty(K)
    if symmetric_eigenvalues(A.copy(), eigenvalues) != 0 or eigenvalues[0] >= -INDEFINITE_MARGIN * (1.0 + largest):
        return math.inf
    p = np.empty(K)
    for k in range(K):
        gk = g[k]
        p[k] = -(gk - l1 if gk > l1 else (gk + l1 if gk < -l1 else gk))
    if solve_symmetric(A, p) != 0:
        return math.inf
    quality = 0.0
    for k in range(K):
        if not math.isfinite(p[k]):
            return math.inf
        quality += g[k] * p[k] + l1 * abs(p[k]) + 0.5 * l2 * p[k] * p[k]
        for m in range(K):
            quality += 0.5 * p[k] * h[packed_index(min(k, m), max(k, m), K)] * p[m]
    for k in range(K):
        out[k] = p[k]
    return quality
