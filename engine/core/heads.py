"""Optimal heads of the second-order objective (Rapp et al. 2020, eqs. 14-17).

For summed gradients ``g`` and Hessians ``H`` of the covered examples, a head ``p``
scores ``g.p + 1/2 p'Hp + lambda/2 |p|^2 + alpha |p|_1`` (eq. 14 with the L2 term of
eq. 15 and an optional L1 term).  Lower is better; an empty head scores 0.

- diagonal ``H`` (decomposable losses, eq. 17): p_k = -g_k / (h_kk + lambda), quality
  -1/2 g_k^2 / (h_kk + lambda) per label;
- full ``H`` (non-decomposable losses, complete heads, eq. 16): (H + lambda I) p = -g, solved by a
  Cholesky factorisation; if the matrix is not positive definite the diagonal solution (eq. 17) is
  used instead.

The L1 weight ``alpha`` (not in the paper) has mlrl-boomer 0.15.6's meaning, which is not the
minimiser of the objective: a label-wise score is p_k = -(g_k + alpha sign g_k) / (h_kk + lambda)
where |g_k| > alpha, else -g_k / (h_kk + lambda) (its ``calculateOutputWiseScore``: the weight moves
the score away from zero), with quality g_k p_k + (h_kk + lambda) p_k^2 / 2 + alpha |p_k| (its
``calculateOutputWiseQuality``); a full system solves (H + lambda I) p = -g' with g'_k = g_k - alpha
sign g_k where |g_k| > alpha, else g_k (its ``addL1RegularizationWeight``: towards zero, but never
to zero), and its quality is g.p + p'Hp / 2 + lambda |p|^2 / 2 + alpha |p|_1.
- single-label heads take the label with the lowest eq. (17) quality, for every loss (Alg. 2
  line 5: the best single-label prediction w.r.t. eq. 13), or, as mlrl-boomer 0.15 does, the label
  with the largest absolute eq. (17) score, ranked by that label's quality.
"""
from __future__ import annotations

import math

from numba import njit

from .indefinite import indefinite_head
from .losses import packed_index


@njit(cache=True, nogil=True)
def _label_wise_numerator(g, alpha):
    """Minus the numerator of a label-wise score under L1 weight ``alpha``, mlrl-boomer 0.15.6's:
    g + alpha sign g where |g| > alpha, else g."""
    if g > alpha:
        return g + alpha
    if g < -alpha:
        return g - alpha
    return g


@njit(cache=True, nogil=True)
def system_gradient(g, alpha):
    """The gradient a full system is solved for under L1 weight ``alpha``, mlrl-boomer 0.15.6's:
    g - alpha sign g where |g| > alpha, else g."""
    if g > alpha:
        return g - alpha
    if g < -alpha:
        return g + alpha
    return g


@njit(cache=True, nogil=True)
def label_quality(g, h, l2, l1):
    """Eq. (17) objective of one label's score (:func:`label_score`): -1/2 g^2 / (h + lambda) without
    L1 (the optimum, <= 0); with L1 g p + (h + lambda) p^2 / 2 + alpha |p| at mlrl-boomer's score."""
    d = h + l2
    if d <= 0.0:
        return 0.0
    if l1 == 0.0:
        return -0.5 * g * g / d
    p = label_score(g, h, l2, l1)
    return g * p + 0.5 * h * p * p + l1 * abs(p) + 0.5 * l2 * p * p


@njit(cache=True, nogil=True)
def label_score(g, h, l2, l1):
    """Eq. (17) score for one label, -g / (h + lambda), with mlrl-boomer 0.15.6's L1 term (module
    docstring); 0 where it is not finite (no curvature, lambda = 0)."""
    d = h + l2
    if d <= 0.0:
        return 0.0
    p = -_label_wise_numerator(g, l1) / d
    return p if math.isfinite(p) else 0.0


@njit(cache=True, nogil=True)
def diagonal_position(k, n_labels, full_hessian):
    return packed_index(k, k, n_labels) if full_hessian else k


@njit(cache=True, nogil=True)
def single_quality(g, h, full_hessian, l2, l1):
    """Best single-label head: returns (quality, label)."""
    K = g.shape[0]
    best = 0.0
    best_k = -1
    for k in range(K):
        q = label_quality(g[k], h[diagonal_position(k, K, full_hessian)], l2, l1)
        if q < best:
            best = q
            best_k = k
    return best, best_k


@njit(cache=True, nogil=True)
def largest_score_quality(g, h, full_hessian, l2, l1):
    """Single-label head on the label whose eq. (17) score is largest in absolute value (the first
    such label), as mlrl-boomer 0.15.6 chooses it: returns (that label's quality, label)."""
    K = g.shape[0]
    best = 0.0
    best_k = -1
    for k in range(K):
        s = abs(label_score(g[k], h[diagonal_position(k, K, full_hessian)], l2, l1))
        if s > best:
            best = s
            best_k = k
    if best_k < 0:
        return 0.0, -1
    return label_quality(g[best_k], h[diagonal_position(best_k, K, full_hessian)], l2, l1), best_k


@njit(cache=True, nogil=True)
def diagonal_complete_quality(g, h, full_hessian, l2, l1):
    K = g.shape[0]
    total = 0.0
    for k in range(K):
        total += label_quality(g[k], h[diagonal_position(k, K, full_hessian)], l2, l1)
    return total


# From this many labels on, :func:`cholesky_quality` computes a column's entries eight rows at a time (below,
# the plain loop is as fast or faster: 0.11 against 0.13 us at 6 labels, equal at 24-28).
CHOLESKY_BLOCKED_MIN_LABELS = 32


@njit(cache=True, nogil=True)
def _cholesky_column_by_eights(h, row, chol, i, j, d, K):
    """Entries ``chol[i:, j]`` of the Cholesky factor, eight rows at a time while eight are left:
    (h - sum_m L[i, m] L[j, m]) / d for the packed entries ``h[row:]`` of row j right of the diagonal.
    Eight rows share each pass over m: eight independent chains of subtractions instead of one, each in
    the order the plain loop takes (so the same numbers, bit for bit), about 1.3 times as fast at 53
    labels, 1.9 at 100 and 2.5 at 200.  Returns the first row left to the plain loop."""
    while i + 8 <= K:
        t0 = h[row]
        t1 = h[row + 1]
        t2 = h[row + 2]
        t3 = h[row + 3]
        t4 = h[row + 4]
        t5 = h[row + 5]
        t6 = h[row + 6]
        t7 = h[row + 7]
        for m in range(j):
            c = chol[j, m]
            t0 -= chol[i, m] * c
            t1 -= chol[i + 1, m] * c
            t2 -= chol[i + 2, m] * c
            t3 -= chol[i + 3, m] * c
            t4 -= chol[i + 4, m] * c
            t5 -= chol[i + 5, m] * c
            t6 -= chol[i + 6, m] * c
            t7 -= chol[i + 7, m] * c
        chol[i, j] = t0 / d
        chol[i + 1, j] = t1 / d
        chol[i + 2, j] = t2 / d
        chol[i + 3, j] = t3 / d
        chol[i + 4, j] = t4 / d
        chol[i + 5, j] = t5 / d
        chol[i + 6, j] = t6 / d
        chol[i + 7, j] = t7 / d
        i += 8
        row += 8
    return i


@njit(cache=True, nogil=True)
def cholesky_quality(g, h, l2, l1, chol, z):
    """Eq. (16) quality for a full Hessian: with L L' = H + lambda I and L z = g' (g' = g without
    L1, else :func:`system_gradient`), the optimum is -1/2 |z|^2 (no L1).  Returns +inf when H + lambda I is not positive definite.
    ``chol`` is K x K scratch (L in its lower triangle), ``z`` is K scratch."""
    K = g.shape[0]
    blocked = K >= CHOLESKY_BLOCKED_MIN_LABELS
    for j in range(K):
        jj = packed_index(j, j, K)
        s = h[jj] + l2
        for m in range(j):
            s -= chol[j, m] * chol[j, m]
        if s <= 1e-12 * (1.0 + abs(h[jj])):
            return math.inf
        d = math.sqrt(s)
        chol[j, j] = d
        rest = _cholesky_column_by_eights(h, jj + 1, chol, j + 1, j, d, K) if blocked else j + 1
        for i in range(rest, K):
            t = h[packed_index(j, i, K)]
            for m in range(j):
                t -= chol[i, m] * chol[j, m]
            chol[i, j] = t / d
    q = 0.0
    for i in range(K):
        t = system_gradient(g[i], l1)
        for m in range(i):
            t -= chol[i, m] * z[m]
        z[i] = t / chol[i, i]
        q += z[i] * z[i]
    if l1 == 0.0:
        return -0.5 * q
    # With L1 the head is p = -(H + lambda I)^-1 g'; evaluate the full objective.
    for i in range(K - 1, -1, -1):
        t = z[i]
        for m in range(i + 1, K):
            t -= chol[m, i] * z[m]
        z[i] = t / chol[i, i]
    obj = 0.0
    for k in range(K):
        p = -z[k]
        obj += g[k] * p + l1 * abs(p)
        quad = h[packed_index(k, k, K)] * p * p * 0.5 + 0.5 * l2 * p * p
        for l in range(k + 1, K):
            quad += h[packed_index(k, l, K)] * p * (-z[l])
        obj += quad
    return obj


@njit(cache=True, nogil=True)
def complete_quality(g, h, full_hessian, l2, l1, chol, z):
    if not full_hessian:
        return diagonal_complete_quality(g, h, False, l2, l1)
    q = cholesky_quality(g, h, l2, l1, chol, z)
    if q == math.inf:
        q = indefinite_head(g, h, l2, l1, z)  # +inf unless clearly indefinite (.indefinite)
    if q == math.inf:
        return diagonal_complete_quality(g, h, True, l2, l1)
    return q


@njit(cache=True, nogil=True)
def head_quality(g, h, full_hessian, single, l2, l1, chol, z):
    """Quality (eq. 14) of the optimal head and, for single heads, its label (else -1)."""
    if single:
        return single_quality(g, h, full_hessian, l2, l1)
    return complete_quality(g, h, full_hessian, l2, l1, chol, z), -1


@njit(cache=True, nogil=True)
def complete_scores(g, h, full_hessian, l2, l1, chol, out):
    """Optimal complete head (eq. 16 or 17) written into ``out``."""
    K = g.shape[0]
    if full_hessian:
        q = cholesky_quality(g, h, l2, l1, chol, out)
        if q != math.inf:
            if l1 == 0.0:  # out holds z with L z = g; finish with L' p = -z
                for i in range(K - 1, -1, -1):
                    t = out[i]
                    for m in range(i + 1, K):
                        t -= chol[m, i] * out[m]
                    out[i] = t / chol[i, i]
            finite = True
            for k in range(K):
                out[k] = -out[k]
                finite = finite and math.isfinite(out[k])
            if finite:
                return
            # a nearly singular H + lambda I (lambda = 0, saturated examples): the diagonal solution
        elif indefinite_head(g, h, l2, l1, out) != math.inf:  # .indefinite
            return
    for k in range(K):
        out[k] = label_score(g[k], h[diagonal_position(k, K, full_hessian)], l2, l1)
