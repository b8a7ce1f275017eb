"""Example-wise statistics in O(K) per example: the Hessian as a diagonal plus rank one.

Each non-decomposable loss of :mod:`.losses` has, per example, a Hessian of the form

    H = diag(a) - s g g'        (g: the example's gradient, K entries; a: K entries; s: a scalar)

- ``logistic-non-decomposable`` (eq. 7), with p_k = exp(-y_k f_k) / (1 + sum_l exp(-y_l f_l)):
  g_k = -y_k p_k, H_kk = p_k - p_k^2, H_kl = -g_k g_l, so a_k = p_k = |g_k| and s = 1;
- the Euclidean norms r = |v| of the residuals v (squared error v = f - y, squared hinge v as in
  :mod:`.losses`): g_k = v_k / r, H = diag(a) - g g' / r with a_k = 1 / r, but a_k = 1 for a label
  of the squared hinge inside its margin (v_k = 0, the reference's Hessian there), and s = 1 / r
  (every quotient 0 where it is not finite, r = 0).

So an example keeps ``G[i]`` (K) and ``C[i]`` = [a_0, ..., a_{K-1}, s] (K + 1) instead of the K(K+1)/2
packed Hessian entries of :func:`.losses.example_statistics`: 983 labels and 10,000 examples take 157 MB
(64-bit) instead of 38.7 GB.  Everything summed over examples is unchanged:

- complete heads without label binning sum the covered examples into one packed K x K matrix
  (:func:`compact_covered_sums`): one aggregated matrix per sum, never one per example;
- the refinement's sweep (the same walk, :func:`compact_boosting_kernel`) adds an example to a side's
  packed sums from its O(K) statistics (:func:`_add_compact`).  Label binning chooses the bins of each
  candidate condition from that candidate's summed gradients and Hessian diagonal (Rapp et al. 2021, as
  :mod:`.head_variants` and mlrl-boomer do), so a side's sums keep the K x K rank-one part: a constant
  number of such sums (five per sampled attribute), O(K^2) time per example and threshold;
- the head of a binned rule (Alg. 1 line 7) is solved on the bins directly
  (:func:`compact_variant_on_rows`): the bins from the covered examples' summed gradients and Hessian
  diagonal, then per example the B x B system sum_i [diag(P a_i) - s_i (P g_i)(P g_i)'] (P sums labels
  into bins), O(K + B^2) per covered example, never a K x K matrix.

The results equal those of the packed statistics up to the order of floating-point sums
(``tests/test_examplewise_memory.py``).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import boosting_step, refinement
from .boosting import label_wise_errors_of_head
from .head_variants import HEAD_BINNED, assign_bins, binned_solve, variant_head
from .heads import complete_scores
from .losses import (LOGISTIC_NONDEC, SQHINGE_NONDEC, code_threshold, divide_or_zero, example_loss, exp_nonpositive,
                     hinge_residual, label_sign, packed_index)
from .refinement import _VALID
from .sweep import rebound


def compact_width(n_labels: int) -> int:
    """Columns of ``C`` per example: the diagonal part and the rank-one weight."""
    return n_labels + 1


@njit(cache=True, nogil=True, error_model="numpy")  # (quotients not finite become 0; vectorised)
def compact_example_statistics(loss, labels, f, g, c):
    """Gradient ``g`` (K) and the Hessian's diagonal part and rank-one weight ``c`` (K + 1) of one
    example's non-decomposable loss at ``f`` (0/1 ``labels``): H = diag(c[:K]) - c[K] g g'."""
    K = f.shape[0]
    if loss == LOGISTIC_NONDEC:
        log_z = example_loss(loss, labels, f)  # log(1 + sum_k exp(-y_k f_k)), computed stably
        for k in range(K):
            yk = label_sign(labels[k])
            p = exp_nonpositive(-yk * f[k] - log_z)  # log_z >= every -y_k f_k
            g[k] = -yk * p
            c[k] = p
        c[K] = 1.0
        return
    hinge = loss == SQHINGE_NONDEC
    r = example_loss(loss, labels, f)  # the norm of the residuals
    s = divide_or_zero(1.0, r)
    for k in range(K):
        if hinge:
            v = hinge_residual(labels[k], f[k])
            g[k] = divide_or_zero(v, r) if v != 0.0 else 0.0
            c[k] = s if v != 0.0 else 1.0  # the reference's Hessian of a label inside the margin: 1
        else:
            g[k] = divide_or_zero(f[k] - label_sign(labels[k]), r)
            c[k] = s
    c[K] = s


@njit(cache=True, nogil=True)
def compact_apply_head(loss, Y, F, G, C, rows, n_rows, head_labels, head_scores):
    """:func:`.boosting.apply_head` for compact statistics (non-decomposable losses)."""
    for r in range(n_rows):
        i = rows[r]
        for c in range(head_labels.shape[0]):
            F[i, head_labels[c]] += head_scores[c]
        compact_example_statistics(loss, Y[i], F[i], G[i], C[i])


@njit(cache=True, nogil=True)
def compact_apply_head_tracked(loss, Y, F, G, C, rows, n_rows, head_labels, head_scores, track_Y, errors):
    """:func:`.boosting.apply_head_tracked` for compact statistics: the label-wise errors of the new
    scores, then the head applied."""
    changes = label_wise_errors_of_head(F, track_Y, rows, n_rows, head_labels, head_scores, errors,
                                        code_threshold(loss))
    compact_apply_head(loss, Y, F, G, C, rows, n_rows, head_labels, head_scores)
    return changes


def compact_update_statistics(loss, Y, F, rows, n_rows, G, C):
    """:func:`.losses.update_statistics` for compact statistics (an empty head applied)."""
    compact_apply_head(loss, Y, F, G, C, rows, n_rows, np.empty(0, dtype=np.int64), np.empty(0))


@njit(cache=True, nogil=True, inline="always")
def _add_packed(acc, row, G, C, i, w):
    """Row ``row`` of the packed sums ``acc`` += w H_i, from example ``i``'s compact statistics."""
    K = G.shape[1]
    ws = w * C[i, K]
    start = 0
    for k in range(K):
        gk = G[i, k]
        t = ws * gk
        acc[row, start] += w * C[i, k] - t * gk
        # entries (k, k + 1 ...) of the packed row-wise upper triangle: one contiguous product over slices
        # (Numba's range(k + 1, K) indexes may be negative, and LLVM does not vectorise that loop)
        out = acc[row, start + 1:start + K - k]
        rest = G[i, k + 1:K]
        for l in range(rest.shape[0]):
            out[l] -= t * rest[l]
        start += K - k


@njit(cache=True, nogil=True)
def compact_covered_sums(G, C, rows, n_rows):
    """Summed gradients and packed Hessian of the examples ``rows[:n_rows]`` (unit weights): the one
    K x K matrix of an unbinned complete head."""
    K = G.shape[1]
    g = np.zeros(K)
    h = np.zeros((1, K * (K + 1) // 2))
    for r in range(n_rows):
        i = rows[r]
        for k in range(K):
            g[k] += G[i, k]
        _add_packed(h, 0, G, C, i, 1.0)
    return g, h[0]


@njit(cache=True, nogil=True)
def covered_diagonal_sums(G, C, rows, n_rows):
    """Summed gradients and Hessian diagonals (a_k - s g_k^2) of ``rows[:n_rows]``: what the bins of
    label binning are chosen by."""
    K = G.shape[1]
    g = np.zeros(K)
    d = np.zeros(K)
    for r in range(n_rows):
        _add_diagonal(g, d, G, C, rows[r], 1.0)
    return g, d


@njit(cache=True, nogil=True, inline="always")
def _add_diagonal(g, d, G, C, i, w):
    """``g``, ``d`` += w times example ``i``'s gradient and Hessian diagonal (a_k - s g_k^2)."""
    K = G.shape[1]
    s = C[i, K]
    for k in range(K):
        gk = G[i, k]
        g[k] += w * gk
        d[k] += w * (C[i, k] - s * gk * gk)


@njit(cache=True, nogil=True, inline="always")
def _example_into_bins(G, C, i, bins, slot, pg, pd):
    """Example ``i``'s gradient summed into its labels' bins (``pg``) and its Hessian's diagonal entries
    a_k - s g_k^2 likewise (``pd``): ``bins[k]`` is label k's bin (-1: none), ``slot[b]`` bin b's row."""
    K = G.shape[1]
    s = C[i, K]
    for a in range(pg.shape[0]):
        pg[a] = 0.0
        pd[a] = 0.0
    for k in range(K):
        if bins[k] >= 0:
            a = slot[bins[k]]
            pg[a] += G[i, k]
            pd[a] += C[i, k] - s * G[i, k] * G[i, k]  # a bin's diagonal: its labels' diagonal entries


@njit(cache=True, nogil=True)
def choose_bins(g, d, params, l2, l1, bins, sizes, slot):
    """Label binning's bins (:func:`.head_variants.assign_bins`) for the summed gradients ``g`` and Hessian
    diagonal ``d``: label k's bin to ``bins[k]``, the bins' label counts to ``sizes`` and the row of each
    non-empty bin, in order, to ``slot`` (-1: empty).  Returns the number of non-empty bins."""
    total = max(assign_bins(g, d, False, params, l2, l1, bins, sizes), 2 * int(params[3]))
    occupied = sizes[:total] > 0
    slot[:] = -1
    slot[:total] = np.where(occupied, np.cumsum(occupied) - 1, -1)
    return int(occupied.sum())


@njit(cache=True, nogil=True)
def binned_system_on_rows(G, C, rows, n_rows, params, l2, l1, bins, sizes, slot, sub_g, sub_h):
    """The binned eq. (16) system of the examples ``rows[:n_rows]`` without a K x K matrix: bins from
    their summed gradients and Hessian diagonals (:func:`.head_variants.assign_bins`), then per example
    its gradient and Hessian summed into the bins.  Writes the bin of every label to ``bins`` and the row
    of every bin to ``slot`` (-1: empty) and returns the number of non-empty bins m; ``sub_g[:m]`` and the
    packed ``sub_h`` hold the system, with the L2 weight lambda * (size - 1) on the diagonal as in
    :func:`.head_variants._binned_system` (the solver adds lambda once)."""
    K = G.shape[1]
    g, d = covered_diagonal_sums(G, C, rows, n_rows)
    m = choose_bins(g, d, params, l2, l1, bins, sizes, slot)
    sub_g[:m] = 0.0
    sub_h[:m * (m + 1) // 2] = 0.0
    pg = np.empty(m)
    pa = np.empty(m)
    for r in range(n_rows):
        i = rows[r]
        s = C[i, K]
        _example_into_bins(G, C, i, bins, slot, pg, pa)
        start = 0
        for a in range(m):
            sub_g[a] += pg[a]
            t = s * pg[a]
            sub_h[start] += pa[a]
            base = start - a
            for b in range(a + 1, m):
                sub_h[base + b] -= t * pg[b]
            start += m - a
    for b in range(slot.shape[0]):  # slot is -1 past the bins choose_bins counted
        if slot[b] >= 0:
            sub_h[packed_index(slot[b], slot[b], m)] += l2 * (sizes[b] - 1)
    return m


@njit(cache=True, nogil=True)
def compact_head_on_rows(G, C, rows, n_rows, full_hessian, label, l2, l1, scale, out):
    """:func:`.boosting.head_on_rows` for compact statistics and complete heads (``label`` -1): eq. (16)
    on the one summed K x K matrix."""
    K = G.shape[1]
    g, h = compact_covered_sums(G, C, rows, n_rows)
    chol = np.zeros((K, K))
    complete_scores(g, h, True, l2, l1, chol, out)
    for k in range(K):
        out[k] *= scale


def compact_default_head(G, C, l2, l1, out):
    """The complete head of every example (the default rule): eq. (16) on the one summed K x K matrix,
    summed as diag(sum a) - G' diag(s) G by BLAS (the kernel's row-by-row sum takes 15 s for 10,000
    examples and 983 labels)."""
    K = G.shape[1]
    G64 = np.asarray(G, dtype=np.float64)
    full = -(G64.T * np.asarray(C[:, K], dtype=np.float64)) @ G64
    full[np.diag_indices(K)] += np.asarray(C[:, :K], dtype=np.float64).sum(axis=0)
    h = np.ascontiguousarray(full[np.triu_indices(K)])  # row-wise packed upper triangle (losses.packed_index)
    complete_scores(G64.sum(axis=0), h, True, l2, l1, np.zeros((K, K)), out)


@njit(cache=True, nogil=True)
def compact_variant_on_rows(G, C, rows, n_rows, full_hessian, mode, params, l2, l1, scale, out_labels, out_scores):
    """:func:`.boosting_step.head_variant_on_rows` for compact statistics: a binned head from the
    bins' B x B system (:func:`binned_system_on_rows`), a partial head from the summed K x K matrix."""
    K = G.shape[1]
    n_scratch = max(K, 2 * int(params[3]))
    scratch = np.empty((3, n_scratch), dtype=np.int64)
    if mode == HEAD_BINNED:
        bins, sizes, slot = scratch[0], scratch[1], scratch[2]
        n_max = min(K, 2 * int(params[3]))
        sub_g = np.empty(n_max)
        sub_h = np.empty(n_max * (n_max + 1) // 2)
        m = binned_system_on_rows(G, C, rows, n_rows, params, l2, l1, bins, sizes, slot, sub_g, sub_h)
        bin_scores = np.zeros(max(m, 1))
        if m > 0:
            binned_solve(sub_g, sub_h, m, True, l2, l1, sizes, slot, 2 * int(params[3]), np.zeros((m, m)), bin_scores,
                         True)
        for k in range(K):
            out_labels[k] = k
            out_scores[k] = scale * bin_scores[slot[bins[k]]] if bins[k] >= 0 else 0.0
        return K
    g, h = compact_covered_sums(G, C, rows, n_rows)
    return variant_head(g, h, True, mode, params, l2, l1, scale, np.zeros((K, K)), scratch[0], scratch[1],
                        scratch[2], np.empty(K), np.empty(h.shape[0]), out_labels, out_scores)


# -- the refinement's sweep on compact statistics: BOOMER's hooks (engine.core.refinement) with the
#    example's packed Hessian built as it is added; the accumulators stay packed K x K sums
@njit(cache=True, nogil=True, inline="always")
def _drop_compact(ctx, G, C, A_g, A_h, i, w):
    for k in range(A_g.shape[1]):
        A_g[_VALID, k] -= w * G[i, k]
    _add_packed(A_h, _VALID, G, C, i, -w)


@njit(cache=True, nogil=True, inline="always")
def _add_compact(ctx, G, C, A_g, A_h, side, i, w):
    for k in range(A_g.shape[1]):
        A_g[side, k] += w * G[i, k]
    _add_packed(A_h, side, G, C, i, w)


@njit(cache=True, nogil=True, inline="always")
def _compact_hessian_width(K, C):
    return K * (K + 1) // 2


@njit(cache=True, nogil=True, inline="always")
def _add_compact_hessian(T_h, G, C, i, w):
    _add_packed(T_h.reshape((1, T_h.shape[0])), 0, G, C, i, w)


@njit(cache=True, nogil=True)
def sample_diagonal_sums(G, C, weights):
    """:func:`covered_diagonal_sums` of the examples of positive ``weights``, weighted: what a rule's bins
    are chosen by when they are chosen once per rule (``label_binning_scope='rule'``)."""
    K = G.shape[1]
    g = np.zeros(K)
    d = np.zeros(K)
    for i in range(G.shape[0]):
        if weights[i] > 0:
            _add_diagonal(g, d, G, C, i, float(weights[i]))
    return g, d


@njit(cache=True, nogil=True)
def project_onto_bins(G, C, bins, slot, sizes, PG, PC):
    """Every example's compact statistics summed into the ``m`` non-empty label bins (``bins[k]``: label
    k's bin, -1: none; ``slot[b]``: bin b's row; ``sizes[b]``: its labels), as compact statistics of m
    pseudo-labels, so that the complete-head search on them rates the binned heads of those bins.

    An example's binned system (mlrl-boomer's, :func:`binned_system_on_rows`) has the gradient P g and the
    Hessian with diagonal sum_{k in b} H_kk and off-diagonal -s (P g)_a (P g)_b: diag(A) - s (P g)(P g)'
    with A_b = sum_{k in b} H_kk + s (P g)_b^2.  A bin's score serves its n_b labels, so its L2 term is
    lambda n_b (lambda (n_b - 1) there plus the solver's lambda).  Scaled by D^(-1/2), D = diag(n_b), the
    system is diag(A / n) - s g~ g~' with g~ = P g / sqrt(n) and the L2 term lambda I: a complete head's
    eq. (16) with the same objective -1/2 g' (H + lambda D)^-1 g.  Writes ``PG`` (N x m) and ``PC``
    (N x (m + 1), the last column s)."""
    K = G.shape[1]
    m = PG.shape[1]
    pg = np.empty(m)
    pd = np.empty(m)
    scale = np.empty(m)
    for b in range(slot.shape[0]):
        if slot[b] >= 0:
            scale[slot[b]] = sizes[b]
    for i in range(G.shape[0]):
        s = C[i, K]
        _example_into_bins(G, C, i, bins, slot, pg, pd)
        for a in range(m):
            n_a = scale[a]
            PG[i, a] = pg[a] / math.sqrt(n_a)
            PC[i, a] = (pd[a] + s * pg[a] * pg[a]) / n_a
        PC[i, m] = s


_compact_steps = None
_KERNELS: dict = {}
_REFINEMENTS: dict = {}


def compact_rule_refinement(threaded: bool):
    """Alg. 2 on compact statistics (:func:`.refinement.rule_refinement` with this module's sweeps and
    sums), with or without the threaded step kernels."""
    key = bool(threaded)
    if key not in _REFINEMENTS:
        threaded_step, serial_step, _ = _compact_step_kernels()
        if not threaded:
            threaded_step = serial_step
        _REFINEMENTS[key] = njit(cache=True, nogil=True)(rebound(
            refinement._refine_rule, "refine_rule_compact" + ("_threaded" if threaded else ""), _INTERLEAVE=False,
            _FIX_PARTIAL=False,
            _hessian_width=_compact_hessian_width, _add_hessian=_add_compact_hessian,
            _first_threaded=threaded_step, _first_serial=serial_step, _column_threaded=threaded_step,
            _column_serial=serial_step, _fixed_threaded=threaded_step, _fixed_serial=serial_step))
    return _REFINEMENTS[key]


def _compact_step_kernels():
    global _compact_steps
    if _compact_steps is None:
        _compact_steps = refinement._step_kernels("compact", _drop=_drop_compact, _add=_add_compact,
                                                  _consider=refinement._consider_variants)
    return _compact_steps


def compact_boosting_kernel(first: str, fixed: str, threaded: bool, variant_heads: bool, example_wise: bool):
    """:func:`.boosting_step.boosting_kernel` for compact statistics (complete, partial and binned heads
    of non-decomposable losses; ``first`` is 'compact', ``fixed`` 'none'): the same refinement and
    boosting step, with the sweeps, sums, heads and updates of this module."""
    if first != "compact" or fixed != "none":
        raise ValueError(f"compact statistics serve complete, partial and binned heads, not {first!r}, {fixed!r}")
    key = (bool(threaded), bool(variant_heads), bool(example_wise))
    if key not in _KERNELS:
        suffix = ("_threaded" if threaded else "") + ("_partial" if variant_heads else "") + (
            "_example_wise" if example_wise else "")
        refine = compact_rule_refinement(threaded)
        _KERNELS[key] = njit(cache=True, nogil=True)(rebound(
            boosting_step._boost_one_rule, "boost_one_rule_compact" + suffix, _refine_rule=refine,
            head_on_rows=compact_head_on_rows, head_variant_on_rows=compact_variant_on_rows,
            apply_head=compact_apply_head, apply_head_tracked=compact_apply_head_tracked,
            _VARIANT_HEADS=bool(variant_heads), _EXAMPLE_WISE=bool(example_wise)))
    return _KERNELS[key]


__all__ = ["choose_bins", "compact_apply_head", "compact_boosting_kernel", "compact_covered_sums",
           "compact_default_head", "compact_example_statistics", "compact_head_on_rows", "compact_rule_refinement",
           "compact_update_statistics", "compact_variant_on_rows", "compact_width", "binned_system_on_rows",
           "covered_diagonal_sums", "project_onto_bins", "sample_diagonal_sums"]
