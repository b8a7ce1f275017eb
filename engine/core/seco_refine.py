"""mlrl-seco's search of numeric attributes (engine.seco's default ``search='mlrl-seco'``): the candidates,
their order and quirks of :func:`engine.core.seco_search.mlrl_numeric_sweep` (the reference's), found with
far fewer evaluations.  None of what makes it fast changes a result:

- **Vectors kept per rule.**  Each attribute's vector of covered values in the reference's order is built
  once per fit (every example covered); after a condition the vectors are filtered to the covered
  examples as the next step passes them, so a step visits only the covered entries.
- **Counts over the candidate labels only.**  ``Wm`` (examples x 2 Kc, int32) holds, per candidate label,
  the example's weight where the pair is uncovered and the label has its minority value (a *correct*
  pair of a head: columns ``0 .. Kc-1``) or its majority value (*wrong*: ``Kc .. 2 Kc-1``), else 0; once
  a rule's head is fixed (mlrl-seco's default: after the first condition) that is one label.
- **Tests instead of evaluations.**  Every heuristic is, in exact arithmetic, non-decreasing in a label's
  covered correct pairs and non-increasing in its covered wrong pairs (the totals fixed; 0.15.6's accuracy
  does not depend on them at all), and a head's quality is at most its largest label quality times a
  lift.  Within a pass the side's counts only grow, so over a *window* of consecutive thresholds the
  side's correct counts are largest at its last threshold and its wrong counts smallest at its first
  (the rest: the other way round), which bounds every candidate in the window.  Whether that bound
  reaches the best quality so far, less a margin far above float32's rounding of the reference's
  arithmetic, is a linear test per label (:func:`_coefficients`: every quality is a ratio, or linear, in
  the counts), without a division.  A window that passes is walked again and every threshold in it
  tested the same way; only a threshold that passes is evaluated as the reference evaluates it (float32,
  :func:`head_quality`).  Each thread searches its share of the attributes, those where earlier steps
  found the best qualities first, so the best so far is soon high and few windows pass.

The best is the reference's choice: the highest quality, ties to the smaller attribute, then to the
earlier candidate of the attribute's search; only qualities above ``floor`` (the rule's quality so far,
which a refinement must beat) count.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .borrowed import borrowed
from .sweep import rebound
from .seco_search import (HEAD_PARTIAL_ALL, HEAD_SINGLE_MODE, MH_ACCURACY, MH_F_MEASURE, MH_LAPLACE, MH_M_ESTIMATE,
                          MH_PRECISION, MH_RECALL, MH_WRA, _mean32, _same32, label_quality)

# the best candidate: best_f (float64) and best_i (int64) entries
BEST_Q, BEST_THR = 0, 1
HAVE, ATTR, SEQ, OP, COUNT, START, END, INVERSE, EVALS = 0, 1, 2, 3, 4, 5, 6, 7, 8
N_BEST_I = 9
_MARGIN = 1e-5  # relative, and 1e-6 per label: far above float32's rounding of a quality
# windows of thresholds: at least 4, at most 32, else 1/8 of the smaller of side and rest (where either is
# small its counts change fastest relative to their size and a window's bound is loosest)
WINDOWS = np.array([4, 32, 3], dtype=np.int64)


@njit(cache=True, nogil=True)
def _coefficients(h, p, mode, lift, Kc, G, U, C):
    """The window test for threshold ``G`` (the best quality so far): column c of ``C`` (rows a, b, d) holds
    a test ``a ce + b cn + d >= 0`` on candidate label c's covered correct / wrong pairs (``ce``/``cn``)
    that holds wherever the label's quality, in exact arithmetic, reaches the least label quality a head
    would need to reach ``G`` less the rounding margin (module doc).  Each heuristic's quality is a
    ratio, or linear, in ``ce``/``cn``, so the test needs no division."""
    g = G - (_MARGIN + 1e-6 * Kc) * (1.0 + abs(G))
    if mode == HEAD_SINGLE_MODE:
        gl = g
    else:  # a head's quality is at most its largest label quality times a lift
        lo = np.inf
        hi = -np.inf
        never = False
        for n in range(1, Kc + 1):
            if mode == HEAD_PARTIAL_ALL and n != Kc:
                continue
            lift_n = np.float64(lift[n])
            if lift_n != lift_n:
                never = mode == HEAD_PARTIAL_ALL  # NaN: such a quality is never taken
                continue
            lo = min(lo, lift_n)
            hi = max(hi, lift_n)
        if never:
            gl = np.inf
        elif lo < 0 or hi != hi or hi == -np.inf:
            gl = -np.inf
        elif g >= 0:
            gl = g / hi if hi > 0 else (np.inf if g > 0 else -np.inf)
        else:
            gl = g / lo if lo > 0 else -np.inf
    for c in range(Kc):
        ue = np.float64(U[c])
        un = np.float64(U[Kc + c])
        a = 0.0
        b = 0.0
        if gl == -np.inf:
            d = 1.0
        elif gl == np.inf:
            d = -1.0
        elif h == MH_ACCURACY:  # (ce + ue) / (ce + cn + ue + un): the body does not matter
            d = (ue / (ue + un) if ue + un != 0 else 0.0) - gl
        elif h == MH_RECALL or (h == MH_F_MEASURE and np.isinf(p)):  # ce / UE
            a, d = (1.0, -gl * ue) if ue != 0 else (0.0, -gl)
        elif h == MH_LAPLACE:  # (ce + 1) / (ce + cn + 2)
            a, b, d = 1.0 - gl, -gl, 1.0 - 2.0 * gl
        elif h == MH_WRA or (h == MH_M_ESTIMATE and np.isinf(p)):  # (ce (1 - r) - cn r) / T, r = UE / T
            total = ue + un
            if total > 0:
                r = ue / total
                a, b, d = 1.0 - r, -r, -gl * total
            else:
                d = -gl
        elif h == MH_F_MEASURE and p > 0:  # (1 + b2) ce / (ce + b2 UE + cn)
            b2 = p * p
            a, b, d = 1.0 + b2 - gl, -gl, -gl * b2 * ue
        elif h == MH_M_ESTIMATE and p > 0:  # (ce + m r) / (ce + cn + m)
            total = ue + un
            if total > 0:
                a, b, d = 1.0 - gl, -gl, p * (ue / total) - gl * p
            else:
                d = -gl
        else:  # precision, and the F-measure and m-estimate with 0: ce / (ce + cn)
            a, b, d = 1.0 - gl, -gl, 0.0
        C[0, c] = a
        C[1, c] = b
        C[2, c] = d


@njit(cache=True, nogil=True, inline="always")
def _test(S_end, S_start, V, Kc, C):
    """Whether a candidate between two thresholds of a pass whose side counts are ``S_start`` and ``S_end``
    may reach the test's threshold: the side's correct counts are largest and wrong counts smallest at
    the ends, the rest's the other way round (``V``: the valid examples' counts)."""
    hits = 0
    for c in range(Kc):
        side = C[0, c] * S_end[c] + C[1, c] * S_start[Kc + c] + C[2, c]
        rest = C[0, c] * (V[c] - S_start[c]) + C[1, c] * (V[Kc + c] - S_end[Kc + c]) + C[2, c]
        hits += (side >= 0) + (rest >= 0)
    return hits > 0


@njit(cache=True, nogil=True, inline="always")
def _wanted(j, S_end, S_start, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
    """Whether candidates of attribute ``j`` between two thresholds (side counts ``S_start``, ``S_end``) may
    still be chosen: not if the best so far reaches the largest possible quality at an attribute not after
    this one (the attributes are searched once each, the windows of one in order), else by the test against
    the best of this thread or, if higher, of all threads (``shared``)."""
    if best_i[HAVE] != 0 and best_f[BEST_Q] >= cap and j >= best_i[ATTR]:
        return False
    g = max(best_f[BEST_Q], shared[0])
    if g != shared[1]:  # the threshold of the test in C
        _coefficients(h, np.float64(p), mode, lift, Kc, g, U, C)
        shared[1] = g
    return _test(S_end, S_start, V, Kc, C)


@njit(cache=True, nogil=True)
def head_quality(h, p, mode, maj, Kc, S, comp, V, U, lift, max_lift, qbuf, order):
    """:func:`engine.core.seco_search.mlrl_head` on the counts ``S`` (correct pairs of the candidate labels,
    then wrong ones) or, with ``comp``, ``V`` minus them: (quality, head size); the head's candidate
    positions are ``order[:size]``."""
    for c in range(Kc):
        if comp:
            ce = V[c] - S[c]
            cn = V[Kc + c] - S[Kc + c]
        else:
            ce = S[c]
            cn = S[Kc + c]
        if maj[c] == 0:  # the head predicts present: the correct pairs have the label present
            qbuf[c] = label_quality(h, p, maj[c], np.float64(ce), np.float64(cn), np.float64(U[c]),
                                    np.float64(U[Kc + c]))
        else:
            qbuf[c] = label_quality(h, p, maj[c], np.float64(cn), np.float64(ce), np.float64(U[Kc + c]),
                                    np.float64(U[c]))
    if mode == HEAD_SINGLE_MODE:
        best = 0
        for c in range(1, Kc):
            if qbuf[c] > qbuf[best]:
                best = c
        order[0] = best
        return qbuf[best], 1
    if mode == HEAD_PARTIAL_ALL:
        total = np.float32(0.0)
        for c in range(Kc):
            total += qbuf[c]
            order[c] = c
        return (total / np.float32(Kc)) * lift[Kc], Kc
    for c in range(Kc):  # insertion sort by quality, descending, stable
        order[c] = c
    for a in range(1, Kc):
        x = order[a]
        b = a - 1
        while b >= 0 and qbuf[order[b]] < qbuf[x]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x
    total = qbuf[order[0]]
    best_q = (total / np.float32(1.0)) * lift[1]
    best_n = 1
    bound = max_lift[1]
    for c in range(1, Kc):
        n = c + 1
        total += qbuf[order[c]]
        q = (total / np.float32(n)) * lift[n]
        if q > best_q:
            best_q = q
            best_n = n
            if best_n < Kc:
                bound = max_lift[best_n]
        if q * bound < best_q:
            break
    return best_q, best_n


@njit(cache=True, nogil=True)
def _offer(q, j, seq, op, thr, count, start, end, inverse, best_f, best_i):
    better = q > best_f[BEST_Q]
    if not better and best_i[HAVE] != 0 and q == best_f[BEST_Q]:
        better = j < best_i[ATTR] or (j == best_i[ATTR] and seq < best_i[SEQ])
    if better:
        best_f[BEST_Q] = q
        best_f[BEST_THR] = thr
        best_i[HAVE] = 1
        best_i[ATTR] = j
        best_i[SEQ] = seq
        best_i[OP] = op
        best_i[COUNT] = count
        best_i[START] = start
        best_i[END] = end
        best_i[INVERSE] = inverse


@njit(cache=True, nogil=True)
def _exact(S, V, U, maj, Kc, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, op_side, op_rest, thr, start,
           end, best_f, best_i, qbuf, order, shared):
    """The two candidates of one threshold, as the reference evaluates them: the side (``S``, ``n_cov``
    examples) and the rest of the valid examples.  ``shared[2]``: the largest quality seen (the
    attribute's score for the next step's order)."""
    if n_cov >= min_cov:
        q, _ = head_quality(h, p, mode, maj, Kc, S, False, V, U, lift, max_lift, qbuf, order)
        best_i[EVALS] += 1
        shared[2] = max(shared[2], q)
        _offer(q, j, 2 * seq, op_side, thr, n_cov, start, end, 0, best_f, best_i)
    if n_nz - n_cov >= min_cov:
        q, _ = head_quality(h, p, mode, maj, Kc, S, True, V, U, lift, max_lift, qbuf, order)
        best_i[EVALS] += 1
        shared[2] = max(shared[2], q)
        _offer(q, j, 2 * seq + 1, op_rest, thr, n_nz - n_cov, start, end, 1, best_f, best_i)


@njit(cache=True, nogil=True)
def _window(n_cov, n_nz, shape):
    """Thresholds in the window that starts here (``shape``: :data:`WINDOWS`)."""
    return min(shape[1], max(shape[0], min(n_cov, n_nz - n_cov) >> shape[2]))


@njit(cache=True, nogil=True)
def _scan(asc, t, stop, n_cov, prev, seq, j, rows, vals, n, w, Wm, S, Ssv, V, U, maj, n_nz, min_cov, h, p, mode, lift,
          max_lift, cap, first_only, best_f, best_i, shared, qbuf, order, C, shape):
    """The reference's pass over the negatives (``asc``: ascending from ``t``) or over the values >= 0
    (descending from ``t`` down to, not including, ``stop``), by windows of thresholds: a window whose
    test passes (:func:`_wanted`) is walked again, each threshold tested and, if it passes, evaluated.
    Returns (t, n_cov, prev, seq, stopped)."""
    rows, vals, w, Wm, S, Ssv, V, U, maj = borrowed((rows, vals, w, Wm, S, Ssv, V, U, maj))
    lift, max_lift, best_f, best_i, shared, qbuf, order, C = borrowed((lift, max_lift, best_f, best_i, shared, qbuf,
                                                                      order, C))
    shape = borrowed(shape)
    K2 = S.shape[0]
    Kc = K2 // 2
    ev = 0
    size = 1
    exact = False
    sv_t, sv_cov, sv_prev, sv_seq = t, n_cov, prev, seq
    while True:
        if (asc and (t >= n or not vals[t] < 0)) or (not asc and not t > stop):
            if ev > 0 and not exact and _wanted(j, S, Ssv, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
                t, n_cov, prev, seq = sv_t, sv_cov, sv_prev, sv_seq
                for k in range(K2):
                    S[k] = Ssv[k]
                exact = True
                ev = 0
                continue
            break
        v = vals[t]
        i = rows[t]
        if w[i] > 0:
            if not _same32(prev, v):
                if ev == 0:
                    sv_t, sv_cov, sv_prev, sv_seq = t, n_cov, prev, seq
                    for k in range(K2):
                        Ssv[k] = S[k]
                    size = _window(n_cov, n_nz, shape)
                if exact and _wanted(j, S, S, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
                    if asc:
                        _exact(S, V, U, maj, Kc, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, 0, 1,
                               _mean32(prev, v), 0, t, best_f, best_i, qbuf, order, shared)
                    else:
                        _exact(S, V, U, maj, Kc, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, 1, 0,
                               _mean32(v, prev), t + 1, n, best_f, best_i, qbuf, order, shared)
                    if first_only and best_i[EVALS] > 0:
                        return t, n_cov, prev, seq, True
                seq += 1
                ev += 1
                if ev == size:
                    ev = 0
                    if exact:
                        exact = False
                    elif _wanted(j, S, Ssv, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
                        t, n_cov, prev, seq = sv_t, sv_cov, sv_prev, sv_seq
                        for k in range(K2):
                            S[k] = Ssv[k]
                        exact = True
                        continue
            for k in range(K2):
                S[k] += Wm[i, k]
            n_cov += 1
        prev = v
        t += 1 if asc else -1
    return t, n_cov, prev, seq, False


@njit(cache=True, nogil=True)
def _lone(S, V, U, maj, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, cap, j, seq, op_side, op_rest, thr, start,
          end, best_f, best_i, shared, qbuf, order, C):
    """A threshold outside the passes (the sparse block, the negatives against the rest): its candidates,
    evaluated if their test passes."""
    Kc = S.shape[0] // 2
    if _wanted(j, S, S, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
        _exact(S, V, U, maj, Kc, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, op_side, op_rest, thr,
               start, end, best_f, best_i, qbuf, order, shared)


@njit(cache=True, nogil=True)
def _attribute(j, rows, vals, n, dense, w, Wm, V, U, maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap, first_only,
               best_f, best_i, shared, S, Sneg, Ssv, qbuf, order, C, shape):
    """The reference's search of numeric attribute ``j`` over its vector ``rows``/``vals`` (``n`` entries,
    :func:`engine.core.seco_search.covered_order`): the candidates that may be the best are offered to
    ``best_f``/``best_i``.  Candidates are numbered in the reference's order (``seq``: thresholds; 2 seq
    the side, 2 seq + 1 the rest)."""
    K2 = S.shape[0]
    for k in range(K2):
        S[k] = 0
        Sneg[k] = 0
    seq = 0
    stopped = False
    # ascending over the negatives
    prev = np.float32(0.0)
    n_cov = 0
    t = 0
    while t < n:
        v = vals[t]
        if not v < 0:
            break
        i = rows[t]
        if w[i] > 0:
            for k in range(K2):
                S[k] += Wm[i, k]
            n_cov = 1
            prev = v
            break
        t += 1
    if n_cov > 0:
        t, n_cov, prev, seq, stopped = _scan(True, t + 1, 0, n_cov, prev, seq, j, rows, vals, n, w, Wm, S, Ssv, V, U,
                                             maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap, first_only, best_f,
                                             best_i, shared, qbuf, order, C, shape)
        if stopped:
            return
        for k in range(K2):  # the negatives' sums are kept and the side reset
            Sneg[k] = S[k]
            S[k] = 0
    last_neg = prev
    first_ge = t
    n_neg = n_cov
    # descending over the values >= 0, not down to the smallest (the reference's loop stops one entry early)
    n_cov = 0
    t = n - 1
    while t >= first_ge:
        i = rows[t]
        if w[i] > 0:
            for k in range(K2):
                S[k] += Wm[i, k]
            n_cov = 1
            prev = vals[t]
            break
        t -= 1
    if n_cov > 0 and t > 0:
        t, n_cov, prev, seq, stopped = _scan(False, t - 1, first_ge, n_cov, prev, seq, j, rows, vals, n, w, Wm, S, Ssv,
                                             V, U, maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap, first_only,
                                             best_f, best_i, shared, qbuf, order, C, shape)
        if stopped:
            return
    if not dense:  # a sparse attribute: the non-zero values against the implicit zeros
        _lone(S, V, U, maj, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, cap, j, seq, 1, 0,
              _mean32(np.float32(0.0), prev), first_ge, n, best_f, best_i, shared, qbuf, order, C)
        seq += 1
        if first_only and best_i[EVALS] > 0:
            return
    if n_neg > 0 and n_neg < n_nz:  # the negatives against the rest
        above = prev if dense else np.float32(0.0)
        _lone(Sneg, V, U, maj, n_neg, n_nz, min_cov, h, p, mode, lift, max_lift, cap, j, seq, 0, 1,
              _mean32(last_neg, above), 0, first_ge, best_f, best_i, shared, qbuf, order, C)


@njit(cache=True, nogil=True)
def _valid(j, T, n_w, miss_ptr, miss_rows, covered, w, Wm, V):
    """The counts of the covered examples with a weight and a value of attribute ``j`` (into ``V``) and
    their number: ``T``/``n_w`` of all covered weighted examples less those missing the value."""
    for k in range(T.shape[0]):
        V[k] = T[k]
    n_nz = n_w
    for r in range(miss_ptr[j], miss_ptr[j + 1]):
        i = miss_rows[r]
        if covered[i] and w[i] > 0:
            for k in range(T.shape[0]):
                V[k] -= Wm[i, k]
            n_nz -= 1
    return n_nz


@njit(cache=True, nogil=True)
def _cap(h, mode, lift, Kc):
    """The largest quality a head can reach where the reference's arithmetic keeps a label's at most 1
    (a float32 ratio of a sum to a sum of it and more; a mean of such values times a lift)."""
    if not (h == MH_ACCURACY or h == MH_PRECISION or h == MH_RECALL or h == MH_LAPLACE or h == MH_F_MEASURE):
        return np.inf
    if mode == HEAD_SINGLE_MODE:
        return 1.0
    hi = -np.inf
    for n in range(1, Kc + 1):
        if mode == HEAD_PARTIAL_ALL and n != Kc:
            continue
        lift_n = np.float64(lift[n])
        if lift_n != lift_n:
            continue
        if lift_n < 0:
            return np.inf
        hi = max(hi, lift_n)
    return hi if hi > -np.inf else np.inf


def _refine(feats, bptr, brows, bvals, wrows, wvals, wlen, wstamp, rule_id, full, miss_ptr, miss_rows, dense,
                covered, w, Wm, U, maj, min_cov, h, p, mode, lift, max_lift, floor, score, best_f, best_i, cancel,
                shape, n_threads):
    """One refinement step over the numeric attributes ``feats``: the best condition whose quality is above
    ``floor``, into ``best_f`` (quality, threshold) and ``best_i`` (found, attribute, candidate number,
    operator, covered count, start, end, inverse, evaluations); ``start``/``end``/``inverse`` are the
    covered positions of the attribute's vector (:func:`mlrl_apply`).

    ``bptr``/``brows``/``bvals``: every attribute's vector with all examples covered
    (:func:`engine.core.seco_search.covered_order`); ``wrows``/``wvals`` the same layout, the vectors of the
    covered examples (``wlen`` entries, valid for the rule ``wstamp[j]``), filtered here from the base
    vectors or their last filtering unless ``full`` (all examples covered: the base vectors are read).
    ``Wm``/``U``/``maj``: the counts of the candidate labels (:func:`mlrl_label_counts`).  Each thread
    searches its share of the attributes, those of the highest ``score`` first (the largest quality
    evaluated there in an earlier step, updated here): the sooner a good candidate is found, the fewer
    windows pass their test.  ``n_threads``: Numba's threads (``numba.get_num_threads()``; read inside,
    it would make the kernel uncacheable)."""
    K2 = Wm.shape[1]
    Kc = K2 // 2
    N = covered.shape[0]
    T = np.zeros(K2, np.int32)
    n_w = 0
    for i in range(N):
        if covered[i] and w[i] > 0:
            n_w += 1
            for k in range(K2):
                T[k] += Wm[i, k]
    cap = _cap(h, mode, lift, Kc)
    first_only = h == MH_ACCURACY  # every candidate has the same quality: the first one is the best
    m = feats.shape[0]
    if first_only:
        order = np.arange(m)
    else:
        keys = np.empty(m)
        for c in range(m):
            keys[c] = -score[feats[c]]
        order = np.argsort(keys, kind="mergesort")
    n_threads = max(1, min(n_threads, m))
    bf = np.empty((n_threads, 2))
    bi = np.zeros((n_threads, N_BEST_I), np.int64)
    shared = np.empty((n_threads, 3))  # per thread: the best of all threads seen, the test's threshold, scratch
    best = np.full(1, floor)  # the best of all threads (read and raised without locks: only ever a real quality)
    for tt in prange(n_threads):
        bf[tt, BEST_Q] = floor
        bf[tt, BEST_THR] = 0.0
        S = np.empty(K2, np.int32)
        Sneg = np.empty(K2, np.int32)
        Ssv = np.empty(K2, np.int32)
        V = np.empty(K2, np.int32)
        qbuf = np.empty(Kc, np.float32)
        head = np.empty(Kc, np.int64)
        C = np.empty((3, Kc))
        sh = shared[tt]
        sh[1] = np.nan
        for o in range(tt, m, n_threads):
            c = order[o]
            j = feats[c]
            if cancel[0] != 0 or (first_only and bi[tt, EVALS] > 0):
                break
            a = bptr[j]
            if full:
                n = bptr[j + 1] - a
                rows = brows[a:a + n]
                vals = bvals[a:a + n]
            else:
                if wstamp[j] != rule_id:
                    src_rows = brows[a:bptr[j + 1]]
                    src_vals = bvals[a:bptr[j + 1]]
                    wstamp[j] = rule_id
                else:
                    src_rows = wrows[a:a + wlen[j]]
                    src_vals = wvals[a:a + wlen[j]]
                n = 0
                for t in range(src_rows.shape[0]):
                    i = src_rows[t]
                    if covered[i]:
                        wrows[a + n] = i
                        wvals[a + n] = src_vals[t]
                        n += 1
                wlen[j] = n
                rows = wrows[a:a + n]
                vals = wvals[a:a + n]
            n_nz = _valid(j, T, n_w, miss_ptr, miss_rows, covered, w, Wm, V)
            sh[0] = best[0]
            sh[2] = -np.inf
            _attribute(j, rows, vals, n, dense[j] != 0, w, Wm, V, U, maj, n_nz, min_cov, h, p, mode, lift, max_lift,
                       cap, first_only, bf[tt], bi[tt], sh, S, Sneg, Ssv, qbuf, head, C, shape)
            score[j] = sh[2]
            if bf[tt, BEST_Q] > best[0]:
                best[0] = bf[tt, BEST_Q]
    best_f[BEST_Q] = floor
    best_f[BEST_THR] = 0.0
    for k in range(N_BEST_I):
        best_i[k] = 0
    for tt in range(n_threads):
        best_i[EVALS] += bi[tt, EVALS]
        if bi[tt, HAVE] != 0:
            evals = best_i[EVALS]
            _offer(bf[tt, BEST_Q], bi[tt, ATTR], bi[tt, SEQ], bi[tt, OP], bf[tt, BEST_THR], bi[tt, COUNT],
                   bi[tt, START], bi[tt, END], bi[tt, INVERSE], best_f, best_i)
            best_i[EVALS] = evals


# Below this much work (entries of the attributes' vectors times the counts added per entry) a step runs
# serially: waking the second thread and waiting for it costs more than it saves (as for BOOMER's steps,
# engine.core.refinement.PARALLEL_MIN_WORK).
PARALLEL_MIN_WORK = 1_000_000
mlrl_refine = njit(cache=True, nogil=True, parallel=True)(rebound(_refine, "mlrl_refine"))
mlrl_refine_serial = njit(cache=True, nogil=True)(rebound(_refine, "mlrl_refine_serial"))


@njit(cache=True, nogil=True)
def mlrl_apply(j, full, bptr, brows, wrows, miss_ptr, miss_rows, covered, start, end, inverse):
    """Restrict ``covered`` to the positions ``[start, end)`` of attribute ``j``'s current vector (the base
    vector if ``full``), or with ``inverse`` drop those positions and the examples missing the value."""
    a = bptr[j]
    rows = brows if full else wrows
    if inverse:
        for t in range(start, end):
            covered[rows[a + t]] = 0
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            covered[miss_rows[r]] = 0
        return
    for i in range(covered.shape[0]):
        covered[i] = 0
    for t in range(start, end):
        covered[rows[a + t]] = 1


@njit(cache=True, nogil=True)
def mlrl_covered_head(covered, Wm, U, maj, h, p, mode, lift, max_lift, out_positions):
    """The head of the covered examples (its candidate positions into ``out_positions``): (quality, size)."""
    K2 = Wm.shape[1]
    Kc = K2 // 2
    S = np.zeros(K2, np.int32)
    for i in range(covered.shape[0]):
        if covered[i]:
            for k in range(K2):
                S[k] += Wm[i, k]
    q, size = head_quality(h, p, mode, maj, Kc, S, False, S, U, lift, max_lift, np.empty(Kc, np.float32),
                           out_positions)
    return q, size


@njit(cache=True, nogil=True)
def mlrl_label_counts(Y, coverage, w, cand, majority, Wm, U):
    """``Wm`` (examples x 2 Kc) of the candidate labels ``cand``: an example's weight where the pair is
    uncovered and the label has its minority value (a correct pair of a head, column c) or its majority
    value (a wrong pair, column Kc + c), else 0; ``U`` its column sums."""
    Kc = cand.shape[0]
    for k in range(2 * Kc):
        U[k] = 0
    for i in range(Y.shape[0]):
        wi = w[i]
        for c in range(Kc):
            label = cand[c]
            if wi > 0 and coverage[i, label] == 0:
                if (Y[i, label] != 0) != (majority[label] != 0):
                    Wm[i, c] = wi
                    Wm[i, Kc + c] = 0
                    U[c] += wi
                else:
                    Wm[i, c] = 0
                    Wm[i, Kc + c] = wi
                    U[Kc + c] += wi
            else:
                Wm[i, c] = 0
                Wm[i, Kc + c] = 0


@njit(cache=True, nogil=True)
def base_vectors(features, ptr, rows, values, miss_ptr, miss_rows, dense, N, bptr, brows, bvals):
    """Every attribute's vector with all examples covered (:func:`engine.core.seco_search.covered_order`),
    for the attributes ``features`` (``bptr`` sized for them, 0 entries for the others)."""
    mark = np.zeros(N, np.uint8)
    for j in features:
        n = 0
        a = bptr[j]
        t = ptr[j]
        b = ptr[j + 1]
        while t < b and values[t] < 0:
            brows[a + n] = rows[t]
            bvals[a + n] = values[t]
            n += 1
            t += 1
        if dense[j]:
            for s in range(ptr[j], ptr[j + 1]):
                mark[rows[s]] = 1
            for r in range(miss_ptr[j], miss_ptr[j + 1]):
                mark[miss_rows[r]] = 1
            for i in range(N):
                if mark[i] == 0:
                    brows[a + n] = i
                    bvals[a + n] = np.float32(0.0)
                    n += 1
            for s in range(ptr[j], ptr[j + 1]):
                mark[rows[s]] = 0
            for r in range(miss_ptr[j], miss_ptr[j + 1]):
                mark[miss_rows[r]] = 0
        while t < b:
            brows[a + n] = rows[t]
            bvals[a + n] = values[t]
            n += 1
            t += 1
