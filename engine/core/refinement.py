"""Greedy top-down rule refinement (Rapp et al. 2020, Alg. 2 and 3).

Each refinement step samples attributes (Alg. 3 line 2), sweeps every sampled attribute
once over its pre-sorted covered examples while accumulating weighted gradient and Hessian
sums, and evaluates each threshold (midpoint between adjacent distinct values) in O(K), or
with one K x K Cholesky solve for complete heads of non-decomposable losses.  The best
condition is added while it improves the objective (eq. 14); examples with a missing value
are never covered by a condition on that attribute.

Operator codes: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=`` (:mod:`.sweep`).

BOOMER's sweep walks the index as :mod:`.sweep` does, written out with its statistics as plain
arguments: reached through a tuple of arrays, as the shared walk's hooks are, every access in the
inner loop costs reference counting (340 increments in the compiled walk against 46 here), which
made fitting 2.5 times slower on emotions (single-label heads).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit, prange

from .head_variants import HEAD_PARTIAL_FIXED, variant_quality
from .heads import diagonal_position, head_quality, label_quality

from .sweep import CANCEL_POLL_MASK, OP_EQ, OP_GT, OP_LEQ, OP_NEQ, rebound  # noqa: F401 - the operator codes


@njit(cache=True, nogil=True)
def rng_next(state):
    """xorshift64* step; ``state`` is a one-element uint64 array."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True, nogil=True)
def rng_below(state, n):
    """Uniform integer in [0, n) for n < 2**32 (multiply-shift, no division)."""
    return np.int64(((rng_next(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True)
def sample_features(perm, m, state):
    """Partial Fisher-Yates: the first ``m`` entries of ``perm`` become a uniform sample."""
    d = perm.shape[0]
    for i in range(m):
        j = i + rng_below(state, d - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t


@njit(cache=True, nogil=True)
def _accumulate(i, w, G, H, acc_g, acc_h):
    for k in range(acc_g.shape[0]):
        acc_g[k] += w * G[i, k]
    for k in range(acc_h.shape[0]):
        acc_h[k] += w * H[i, k]


@njit(cache=True, nogil=True)
def _fixed_label_quality(g, h, l2, bound):
    """Eq. (17) quality of one label without L1, or +inf when it cannot be below ``bound``
    (decided by a multiplication: most thresholds of a sweep are not the best so far)."""
    d = h + l2
    if d <= 0.0:
        return 0.0
    n = g * g
    if n > -2.0 * bound * d:
        return -0.5 * n / d
    return math.inf


@njit(cache=True, nogil=True)
def _split_quality(X_g, X_h, cnt_x, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage,
                   R_g, R_h, chol, z, params, vi, vg, vh, bound):
    """Eq. (14) qualities of the examples with statistics X and of their complement V - X
    among the non-missing covered examples; +inf where a side's coverage is not allowed.
    The sweep keeps a side only if it is below ``bound`` (its best quality so far): where
    that is cheap to rule out, +inf is returned instead of the quality.
    Returns (quality X, label X, quality rest, label rest)."""
    cnt_r = n_valid - cnt_x
    ok_x = cnt_x > 0 and cnt_x >= min_coverage and cnt_x < T_cnt
    ok_r = cnt_r > 0 and cnt_r >= min_coverage and cnt_r < T_cnt
    qx = math.inf
    qr = math.inf
    lx = -1
    lr = -1
    if head >= 0:
        # single-label head whose label was fixed by the rule's first condition
        d = diagonal_position(head, X_g.shape[0], full_hessian)
        if l1 == 0.0:
            if ok_x:
                qx, lx = _fixed_label_quality(X_g[head], X_h[d], l2, bound), head
            if ok_r:
                qr, lr = _fixed_label_quality(V_g[head] - X_g[head], V_h[d] - X_h[d], l2, bound), head
            return qx, lx, qr, lr
        if ok_x:
            qx, lx = label_quality(X_g[head], X_h[d], l2, l1), head
        if ok_r:
            qr, lr = label_quality(V_g[head] - X_g[head], V_h[d] - X_h[d], l2, l1), head
        return qx, lx, qr, lr
    single = head == -1
    if not full_hessian and l1 == 0.0 and l2 > 0.0:
        # Fast path for diagonal Hessians (eq. 17): both sides in one branch-free pass.
        K = X_g.shape[0]
        if single:
            # the best label by g^2 / (h + lambda), compared as fractions (a / b > c / d iff a d > c b,
            # denominators positive): no division per label
            bxn = 0.0
            bxd = 1.0
            brn = 0.0
            brd = 1.0
            for k in range(K):
                gx = X_g[k]
                gr = V_g[k] - gx
                nx = gx * gx
                dx = X_h[k] + l2
                nr = gr * gr
                dr = V_h[k] - X_h[k] + l2
                if nx * bxd > bxn * dx:
                    bxn = nx
                    bxd = dx
                    lx = k
                if nr * brd > brn * dr:
                    brn = nr
                    brd = dr
                    lr = k
            limit = -2.0 * bound
            if ok_x and lx >= 0 and bxn > limit * bxd:
                qx = -0.5 * bxn / bxd
            if ok_r and lr >= 0 and brn > limit * brd:
                qr = -0.5 * brn / brd
        else:
            sx = 0.0
            sr = 0.0
            for k in range(K):
                gx = X_g[k]
                gr = V_g[k] - gx
                sx += gx * gx / (X_h[k] + l2)
                sr += gr * gr / (V_h[k] - X_h[k] + l2)
            if ok_x:
                qx = -0.5 * sx
            if ok_r:
                qr = -0.5 * sr
        return qx, lx, qr, lr
    if ok_x:
        qx, lx = head_quality(X_g, X_h, full_hessian, single, l2, l1, chol, z)
    if ok_r:
        for k in range(V_g.shape[0]):
            R_g[k] = V_g[k] - X_g[k]
        for k in range(V_h.shape[0]):
            R_h[k] = V_h[k] - X_h[k]
        qr, lr = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
    return qx, lx, qr, lr


@njit(cache=True, nogil=True)
def _split_quality_variants(X_g, X_h, cnt_x, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage,
                            R_g, R_h, chol, z, params, vi, vg, vh, bound):
    """:func:`_split_quality` for partial heads and label binning (``head`` a mode of
    :mod:`.head_variants`; ``vi``, ``vg``, ``vh`` are their scratch).  A separate function, so the
    sweeps of the other heads are compiled without this code (it would stop their inlining)."""
    if head > HEAD_PARTIAL_FIXED:
        return _split_quality(X_g, X_h, cnt_x, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage,
                              R_g, R_h, chol, z, params, vi, vg, vh, bound)
    cnt_r = n_valid - cnt_x
    qx = math.inf
    qr = math.inf
    if cnt_x > 0 and cnt_x >= min_coverage and cnt_x < T_cnt:
        qx = variant_quality(X_g, X_h, full_hessian, head, params, l2, l1, chol, z, vi[0], vi[1], vi[2], vg, vh)
    if cnt_r > 0 and cnt_r >= min_coverage and cnt_r < T_cnt:
        for k in range(V_g.shape[0]):
            R_g[k] = V_g[k] - X_g[k]
        for k in range(V_h.shape[0]):
            R_h[k] = V_h[k] - X_h[k]
        qr = variant_quality(R_g, R_h, full_hessian, head, params, l2, l1, chol, z, vi[0], vi[1], vi[2], vg, vh)
    return qx, -1, qr, -1


@njit(cache=True, nogil=True)
def _keep(X_g, X_h, V_g, V_h, complement, out_g, out_h):
    """Remember the statistics of the best condition so far (X, or its complement V - X)."""
    if complement:
        for k in range(X_g.shape[0]):
            out_g[k] = V_g[k] - X_g[k]
        for k in range(X_h.shape[0]):
            out_h[k] = V_h[k] - X_h[k]
    else:
        out_g[:] = X_g
        out_h[:] = X_h


@njit(cache=True, nogil=True, inline="always")
def _offer(X_g, X_h, cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage, R_g, R_h, chol, z,
           params, vi, vg, vh, best_g, best_h, op_side, op_rest, threshold, best_q, best_op, best_thr,
           best_label, best_cnt):
    """Offer the condition covering X (``op_side``) and its complement among the valid examples
    (``op_rest``) at ``threshold``: returns the best (quality, operator, threshold, label, covered
    count) so far, whose statistics are kept in ``best_g``, ``best_h``.  The zero block of a nominal
    attribute ('!= 0' covers X) offers '== 0', the rest, first.  At most 30 parameters: a call with
    more is compiled as ``f(*args)``, which Numba cannot inline."""
    rest_first = op_side == OP_NEQ
    qx, lx, qr, lr = _split_quality(X_g, X_h, cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1,
                                    min_coverage, R_g, R_h, chol, z, params, vi, vg, vh, best_q)
    if rest_first and qr < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qr, op_rest, threshold, lr, n_valid - cnt
        _keep(X_g, X_h, V_g, V_h, True, best_g, best_h)
    if qx < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qx, op_side, threshold, lx, cnt
        _keep(X_g, X_h, V_g, V_h, False, best_g, best_h)
    if not rest_first and qr < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qr, op_rest, threshold, lr, n_valid - cnt
        _keep(X_g, X_h, V_g, V_h, True, best_g, best_h)
    return best_q, best_op, best_thr, best_label, best_cnt


_STEP = 1  # rebound per direction: 1 walks the negatives ascending, -1 the positives descending


def _numeric_side(t, t_stop, use_cache, cache, rows, values, keys, cw, G, H, work_g, work_h, n_valid, cfg, chol, z,
                  params, vi, vg, vh, best_g, best_h, best, cancel):
    """One direction of the numeric sweep of :func:`_sweep_attribute` (Alg. 2): ascending over the
    negatives from ``t`` (prefix sums in ``work[1]``, conditions ``x <= thr`` and their complements,
    stopping at the first value >= 0 unless cached), or descending over the positives down to
    ``t_stop`` (suffix sums in ``work[2]``, ``x > thr``).  Visits the covered entries cached for the
    attribute (``use_cache``), else every entry, and compacts those still covered into ``cache`` (in
    place: later steps of the rule visit only those).  ``cfg`` holds the scalar settings and ``best``
    the best (quality, operator, threshold, label, covered count) so far, whose statistics are in
    ``best_g``, ``best_h``.  Returns (not cancelled, examples accumulated, last value, next compaction
    slot, where the walk stopped, best).  Compiled once per direction (``_STEP``, a constant)."""
    T_cnt, full_hessian, head, l2, l1, min_coverage = cfg
    best_q, best_op, best_thr, best_label, best_cnt = best
    side = 1 if _STEP > 0 else 2
    op_side = OP_LEQ if _STEP > 0 else OP_GT
    op_rest = OP_GT if _STEP > 0 else OP_LEQ
    X_g = work_g[side]
    X_h = work_h[side]
    V_g = work_g[0]
    V_h = work_h[0]
    R_g = work_g[3]
    R_h = work_h[3]
    cnt = 0
    prev = 0.0
    prev_key = np.float32(0.0)
    w = t
    while (t < t_stop) if _STEP > 0 else (t >= t_stop):
        idx = cache[t] if use_cache else t
        if _STEP > 0 and not use_cache and values[idx] >= 0.0:
            break
        if (t & CANCEL_POLL_MASK) == 0 and cancel[0] != 0:
            return False, cnt, prev, w, t, (best_q, best_op, best_thr, best_label, best_cnt)
        t += _STEP
        i = rows[idx]
        if cw[i] <= 0.0:
            continue
        cache[w] = idx
        w += _STEP
        v = values[idx]
        key = keys[idx]
        if cnt > 0 and key != prev_key:
            if cancel[0] != 0:
                return False, cnt, prev, w, t, (best_q, best_op, best_thr, best_label, best_cnt)
            thr = 0.5 * (prev + v)
            # the hot path, written out (as :func:`_offer`)
            qx, lx, qr, lr = _split_quality(X_g, X_h, cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2,
                                            l1, min_coverage, R_g, R_h, chol, z, params, vi, vg, vh, best_q)
            if qx < best_q:
                best_q, best_op, best_thr, best_label, best_cnt = qx, op_side, thr, lx, cnt
                _keep(X_g, X_h, V_g, V_h, False, best_g, best_h)
            if qr < best_q:
                best_q, best_op, best_thr, best_label, best_cnt = qr, op_rest, thr, lr, n_valid - cnt
                _keep(X_g, X_h, V_g, V_h, True, best_g, best_h)
        _accumulate(i, cw[i], G, H, X_g, X_h)
        cnt += 1
        prev = v
        prev_key = key
    return True, cnt, prev, w, t, (best_q, best_op, best_thr, best_label, best_cnt)


_negatives_side = njit(cache=True, nogil=True)(rebound(_numeric_side, "_negatives_side", _STEP=1))
_positives_side = njit(cache=True, nogil=True)(rebound(_numeric_side, "_positives_side", _STEP=-1))


@njit(cache=True, nogil=True)
def _sweep_attribute(j, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, G, H,
                     T_g, T_h, T_cnt, full_hessian, head, l2, l1, min_coverage, best_g, best_h,
                     work_g, work_h, chol, z, params, vi, vg, vh, cancel):
    """Best condition on attribute ``j``: returns (quality, operator, threshold, head label,
    covered count); its statistics are written to ``best_g``, ``best_h``.  ``work_g`` (4 x K),
    ``work_h`` (4 x S), ``chol`` (K x K for full Hessians) and ``z`` (K) are scratch space.
    When ``cancel[0]`` is set (polled every few examples) it returns at once with no condition.
    Thresholds lie where the split ``keys`` change (the values themselves, or their bins:
    ``binning``), at the midpoint of the adjacent raw values."""
    K = G.shape[1]
    S = H.shape[1]
    V_g = work_g[0]  # statistics of the covered examples with a value for attribute j
    V_h = work_h[0]
    V_g[:] = T_g
    V_h[:] = T_h
    P_g = work_g[1]
    P_h = work_h[1]
    Q_g = work_g[2]
    Q_h = work_h[2]
    R_g = work_g[3]
    R_h = work_h[3]
    P_g[:] = 0.0
    P_h[:] = 0.0
    Q_g[:] = 0.0
    Q_h[:] = 0.0
    best_q = math.inf
    best_op = -1
    best_thr = 0.0
    best_label = -1
    best_cnt = 0

    M_cnt = 0
    for r in range(miss_ptr[j], miss_ptr[j + 1]):
        i = miss_rows[r]
        if cw[i] > 0.0:
            _accumulate(i, -cw[i], G, H, V_g, V_h)
            M_cnt += 1
    n_valid = T_cnt - M_cnt
    start = ptr[j]
    end = ptr[j + 1]

    if nominal[j]:
        # Groups of equal values; '== v' covers the group, '!= v' the other non-missing examples.
        NZ_cnt = 0
        idx = start
        while idx < end:
            if cancel[0] != 0:
                return math.inf, -1, 0.0, -1, 0
            v = values[idx]
            P_g[:] = 0.0
            P_h[:] = 0.0
            cnt = 0
            while idx < end and values[idx] == v:
                i = rows[idx]
                if cw[i] > 0.0:
                    _accumulate(i, cw[i], G, H, P_g, P_h)
                    cnt += 1
                idx += 1
            if cnt == 0:
                continue
            for k in range(K):
                Q_g[k] += P_g[k]
            for k in range(S):
                Q_h[k] += P_h[k]
            NZ_cnt += cnt
            best_q, best_op, best_thr, best_label, best_cnt = _offer(
                P_g, P_h, cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage, R_g, R_h,
                chol, z, params, vi, vg, vh, best_g, best_h, OP_EQ, OP_NEQ, v, best_q, best_op, best_thr,
                best_label, best_cnt)
        if n_valid - NZ_cnt > 0:
            # the implicit zeros: '== 0' covers V - Q, '!= 0' covers Q
            best_q, best_op, best_thr, best_label, best_cnt = _offer(
                Q_g, Q_h, NZ_cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage, R_g, R_h,
                chol, z, params, vi, vg, vh, best_g, best_h, OP_NEQ, OP_EQ, 0.0, best_q, best_op, best_thr,
                best_label, best_cnt)
        return best_q, best_op, best_thr, best_label, best_cnt

    # Numeric: negatives ascending (prefix sums P), positives descending (suffix sums Q),
    # the implicit zeros in between (:func:`_numeric_side`).  ``cache[ptr[j]:seg[j, 1]]`` are the
    # covered negatives, ``cache[seg[j, 2]:ptr[j+1]]`` the covered positives.
    use_cache = seg[j, 0] != 0
    seg[j, 0] = 0  # invalid while being rewritten (e.g. if cancelled)
    cfg = (T_cnt, full_hessian, head, l2, l1, min_coverage)
    best = (best_q, best_op, best_thr, best_label, best_cnt)
    ok, P_cnt, last_negative, negatives_end, negatives_stop, best = _negatives_side(
        start, seg[j, 1] if use_cache else end, use_cache, cache, rows, values, keys, cw, G, H, work_g, work_h,
        n_valid, cfg, chol, z, params, vi, vg, vh, best_g, best_h, best, cancel)
    if not ok:
        return math.inf, -1, 0.0, -1, 0
    ok, Q_cnt, first_positive, positives_start, _, best = _positives_side(
        end - 1, seg[j, 2] if use_cache else negatives_stop, use_cache, cache, rows, values, keys, cw, G, H, work_g,
        work_h, n_valid, cfg, chol, z, params, vi, vg, vh, best_g, best_h, best, cancel)
    if not ok:
        return math.inf, -1, 0.0, -1, 0
    seg[j, 1] = negatives_end
    seg[j, 2] = positives_start + 1
    seg[j, 0] = 1
    best_q, best_op, best_thr, best_label, best_cnt = best

    Z_cnt = n_valid - P_cnt - Q_cnt
    # Boundaries next to the zero block (or between negatives and positives without zeros).
    if P_cnt > 0 and (Z_cnt > 0 or Q_cnt > 0):
        thr = 0.5 * last_negative if Z_cnt > 0 else 0.5 * (last_negative + first_positive)
        best_q, best_op, best_thr, best_label, best_cnt = _offer(
            P_g, P_h, P_cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage, R_g, R_h,
            chol, z, params, vi, vg, vh, best_g, best_h, OP_LEQ, OP_GT, thr, best_q, best_op, best_thr,
            best_label, best_cnt)
    if Q_cnt > 0 and Z_cnt > 0:
        thr = 0.5 * first_positive
        best_q, best_op, best_thr, best_label, best_cnt = _offer(
            Q_g, Q_h, Q_cnt, V_g, V_h, n_valid, T_cnt, full_hessian, head, l2, l1, min_coverage, R_g, R_h,
            chol, z, params, vi, vg, vh, best_g, best_h, OP_GT, OP_LEQ, thr, best_q, best_op, best_thr,
            best_label, best_cnt)
    return best_q, best_op, best_thr, best_label, best_cnt


@njit(cache=True, nogil=True)
def satisfies(op, threshold, v):
    if op == OP_LEQ:
        return v <= threshold
    if op == OP_GT:
        return v > threshold
    if op == OP_EQ:
        return v == threshold
    return v != threshold


@njit(cache=True, nogil=True)
def apply_condition(j, op, threshold, ptr, rows, values, miss_ptr, miss_rows, covered):
    """Restrict the coverage mask (over all training examples) by one condition."""
    zero_ok = satisfies(op, threshold, 0.0)
    if not zero_ok:
        # Only non-zero values can satisfy: keep covered examples among them.
        keep = np.zeros(covered.shape[0], dtype=np.uint8)
        for idx in range(ptr[j], ptr[j + 1]):
            i = rows[idx]
            if covered[i] and satisfies(op, threshold, values[idx]):
                keep[i] = 1
        covered[:] = keep
    else:
        for idx in range(ptr[j], ptr[j + 1]):
            i = rows[idx]
            if covered[i] and not satisfies(op, threshold, values[idx]):
                covered[i] = 0
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            covered[miss_rows[r]] = 0


@njit(cache=True, nogil=True, parallel=True)
def _best_conditions(candidates, n_candidates, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw,
                     G, H, T_g, T_h, T_cnt, full_hessian, head, l2, l1, min_coverage,
                     out_q, out_op, out_thr, out_label, out_cnt, out_g, out_h, work_g, work_h, chol, z,
                     params, vi, vg, vh, cancel):
    for c in prange(n_candidates):
        q, op, thr, lab, cnt = _sweep_attribute(candidates[c], ptr, rows, values, keys, cache, seg, miss_ptr,
                                                miss_rows, nominal, cw, G, H, T_g, T_h, T_cnt, full_hessian, head,
                                                l2, l1, min_coverage, out_g[c], out_h[c], work_g[c], work_h[c], chol[c],
                                                z[c], params, vi[c], vg[c], vh[c], cancel)
        out_q[c] = q
        out_op[c] = op
        out_thr[c] = thr
        out_label[c] = lab
        out_cnt[c] = cnt


# The same sweep without threads, for steps too small to repay waking a second thread
# (prange is a plain range outside parallel=True).
_best_conditions_serial = njit(cache=True, nogil=True)(_best_conditions.py_func)


# The sweeps of partial heads and label binning: the same walk, with their quality function.
_offer_variants = njit(cache=True, nogil=True, inline="always")(
    rebound(_offer.py_func, "_offer_variants", _split_quality=_split_quality_variants))
_negatives_side_variants = njit(cache=True, nogil=True)(
    rebound(_numeric_side, "_negatives_side_variants", _STEP=1, _split_quality=_split_quality_variants))
_positives_side_variants = njit(cache=True, nogil=True)(
    rebound(_numeric_side, "_positives_side_variants", _STEP=-1, _split_quality=_split_quality_variants))
_sweep_attribute_variants = njit(cache=True, nogil=True)(
    rebound(_sweep_attribute.py_func, "_sweep_attribute_variants", _offer=_offer_variants,
            _negatives_side=_negatives_side_variants, _positives_side=_positives_side_variants))
_best_conditions_variants = njit(cache=True, nogil=True, parallel=True)(
    rebound(_best_conditions.py_func, "_best_conditions_variants", _sweep_attribute=_sweep_attribute_variants))
_best_conditions_variants_serial = njit(cache=True, nogil=True)(
    rebound(_best_conditions.py_func, "_best_conditions_variants_serial",
             _sweep_attribute=_sweep_attribute_variants))
# Below this much work a refinement step runs serially (waking the second thread costs more):
# covered entries of the sampled attributes times the statistics accumulated per entry.
PARALLEL_MIN_WORK = 24_000


@njit(cache=True, nogil=True)
def bagging_weights(weights, state):
    """Alg. 1 line 5: how often each example is drawn in N draws with replacement."""
    n = weights.shape[0]
    weights[:] = 0
    for _ in range(n):
        weights[rng_below(state, n)] += 1


# Per-step scratch of :func:`refine_rule`: covered statistics T, per-candidate results and sweep space.
_Scratch = namedtuple("_Scratch", "T_g T_h q op thr label cnt g h work_g work_h chol z vi vg vh")


@njit(cache=True, nogil=True)
def _scratch(m, K, S, n_chol, n_variant):
    """``n_variant`` > 0 adds the scratch of partial heads and label binning (``vi``, ``vg``, ``vh``)."""
    nv = m if n_variant > 0 else 0
    return _Scratch(np.zeros(K), np.zeros(S), np.empty(m), np.empty(m, dtype=np.int64), np.empty(m),
                    np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty((m, K)), np.empty((m, S)),
                    np.empty((m, 4, K)), np.empty((m, 4, S)), np.zeros((m, n_chol, n_chol)), np.zeros((m, K)),
                    np.empty((nv, 3, n_variant), dtype=np.int64), np.empty((nv, K)), np.empty((nv, S)))


@njit(cache=True, nogil=True)
def refine_rule(ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, G, H, full_hessian, single,
                head_mode, head_params, weights, bagging, l2, l1, n_sampled_features, max_conditions, min_coverage,
                rng_state, perm, covered, out_attr, out_op, out_thr, cancel):
    """Alg. 2: grow one rule greedily.  ``covered`` (uint8, all ones on entry) holds the
    final coverage over all training examples.  Returns (number of conditions, quality,
    head label for single heads).  With ``bagging`` the ``weights`` are drawn first.

    The covered statistics are summed once; after each refinement they are the chosen
    condition's statistics from the sweep, so later steps never re-scan the examples."""
    N = G.shape[0]
    K = G.shape[1]
    S = H.shape[1]
    D = perm.shape[0]
    m = D if n_sampled_features <= 0 or n_sampled_features > D else n_sampled_features
    if bagging:
        bagging_weights(weights, rng_state)
    n_chol = K if full_hessian else 1  # Cholesky scratch (complete heads of non-decomposable losses)
    n_variant = max(K, 2 * int(head_params[3])) if head_mode <= HEAD_PARTIAL_FIXED else 0
    sc_all = _scratch(m, K, S, n_chol, n_variant)
    T_g = sc_all.T_g
    T_h = sc_all.T_h
    cw = np.zeros(N)
    T_cnt = 0
    for i in range(N):
        wi = weights[i]
        if covered[i] and wi > 0:
            w = float(wi)
            cw[i] = w
            for k in range(K):  # inline loops on local sums vectorise; a helper call did not
                T_g[k] += w * G[i, k]
            for k in range(S):
                T_h[k] += w * H[i, k]
            T_cnt += 1
    # Scratch for sweeps over all labels (K gradient, S Hessian entries per example) and, once a
    # single-label rule's first condition has fixed its label, over that label alone: its
    # statistics are then copied into contiguous columns (one pass), so later sweeps read 16
    # bytes per example instead of two strided rows.
    n_one = N if single else 0
    sc_one = _scratch(m, 1, 1, 1, 0)
    G_one = np.empty((n_one, 1), dtype=G.dtype)
    H_one = np.empty((n_one, 1), dtype=H.dtype)
    for j in range(seg.shape[0]):
        seg[j, 0] = 0  # no attribute's covered entries are cached yet for this rule
    current = 0.0  # the empty head's objective; a condition must do better
    label = -1
    head = -1 if single else head_mode  # -1 best single label, else complete or a head_variants mode
    n_conditions = 0
    limit = max_conditions if max_conditions > 0 else out_attr.shape[0]
    while n_conditions < limit:
        if T_cnt < 2 or T_cnt <= min_coverage:
            break
        if m < D:
            sample_features(perm, m, rng_state)
        fixed = head >= 0
        work = 0
        for c in range(m):
            n_c = ptr[perm[c] + 1] - ptr[perm[c]]
            work += n_c if n_c < T_cnt else T_cnt
        work *= 2 if fixed else K + S
        sc = sc_one if fixed else sc_all
        Gs = G_one if fixed else G
        Hs = H_one if fixed else H
        full_step = full_hessian and not fixed
        head_step = 0 if fixed else head
        args = (perm, m, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, Gs, Hs, sc.T_g,
                sc.T_h, T_cnt, full_step, head_step, l2, l1, min_coverage, sc.q, sc.op, sc.thr, sc.label, sc.cnt,
                sc.g, sc.h, sc.work_g, sc.work_h, sc.chol, sc.z, head_params, sc.vi, sc.vg, sc.vh, cancel)
        threads = full_step or work >= PARALLEL_MIN_WORK
        if head_step <= HEAD_PARTIAL_FIXED:
            if threads:
                _best_conditions_variants(*args)
            else:
                _best_conditions_variants_serial(*args)
        elif threads:
            _best_conditions(*args)
        else:
            _best_conditions_serial(*args)
        if cancel[0] != 0:
            return 0, current, -1  # cancelled: no rule
        best = -1
        for c in range(m):
            if sc.op[c] >= 0 and (best < 0 or sc.q[c] < sc.q[best]):
                best = c
        if best < 0 or not sc.q[best] < current:
            break
        current = sc.q[best]
        if not fixed:
            label = sc.label[best]
        j = perm[best]
        out_attr[n_conditions] = j
        out_op[n_conditions] = sc.op[best]
        out_thr[n_conditions] = sc.thr[best]
        apply_condition(j, sc.op[best], sc.thr[best], ptr, rows, values, miss_ptr, miss_rows, covered)
        n_conditions += 1
        sc.T_g[:] = sc.g[best]
        sc.T_h[:] = sc.h[best]
        T_cnt = sc.cnt[best]
        for i in range(N):
            if not covered[i]:
                cw[i] = 0.0
        if single and not fixed:
            # later conditions refine the rule for the label its first condition chose
            d = diagonal_position(label, K, full_hessian)
            for i in range(N):
                if cw[i] > 0.0:
                    G_one[i, 0] = G[i, label]
                    H_one[i, 0] = H[i, d]
            sc_one.T_g[0] = sc.T_g[label]
            sc_one.T_h[0] = sc.T_h[d]
            head = label
    return n_conditions, current, label
