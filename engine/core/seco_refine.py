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
from numba import njit

from .borrowed import borrowed
from .seco_search import (HEAD_PARTIAL_ALL, HEAD_SINGLE_MODE, MH_ACCURACY, MH_F_MEASURE, MH_LAPLACE, MH_M_ESTIMATE,
                          MH_PRECISION, MH_RECALL, MH_WRA, _mean32, _same32, label_quality)

# a thread's best candidate: rows of out_f (float64) and out_i (int64)
BEST_Q, BEST_THR = 0, 1
HAVE, ATTR, SEQ, OP, COUNT, START, END, INVERSE, EVALS = 0, 1, 2, 3, 4, 5, 6, 7, 8
N_BEST_I = 9
# top-k mode (a beam's refinement step, engine.seco): out_i longer than N_BEST_I holds the width k and the
# offsets of the current attribute's list; per attribute (its position o in ``order``) out_i has at
# N_TOP_I + o (1 + 6 k) the list's length, then k slots (SEQ, OP, COUNT, START, END, INVERSE), and out_f
# at 2 + 2 k o k slots (quality, threshold)
TOP_K, TOP_AT_I, TOP_AT_F = 9, 10, 11
N_TOP_I = 12
# a thread's scratch: rows of the int32 counts (S_*), of the float64 state (SH_*)
S_SIDE, S_NEG, S_SAVED, S_VALID, S_COVERED = 0, 1, 2, 3, 4
SH_ALL, SH_TEST, SH_SCORE = 0, 1, 2  # the best of all threads seen, the test's threshold, the attribute's best
_MARGIN = 1e-5  # relative, and 1e-6 per label: far above float32's rounding of a quality
# windows of thresholds: at least 16, at most 64, else 1/4 of the smaller of side and rest (where either is
# small its counts change fastest relative to their size and a window's bound is loosest)
WINDOWS = np.array([16, 64, 2], dtype=np.int64)
# Below this much work (entries of the attributes' vectors times the counts added per entry) a step runs in
# one thread: a second costs more than it saves (as for BOOMER's steps, engine.core.refinement).
PARALLEL_MIN_WORK = 1_000_000


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


@njit(cache=True, nogil=True)
def _wanted(j, S_end, S_start, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
    """Whether candidates of attribute ``j`` between two thresholds of a pass whose side counts are
    ``S_start`` and ``S_end`` may still be chosen (``V``: the valid examples' counts).  Not if the best so
    far reaches the largest possible quality at an attribute not after this one (the attributes are
    searched once each, the windows of one in order); else by the test against the best of this thread
    or, if higher, of all threads.  The side's correct counts are largest and its wrong counts smallest
    at the ends, the rest's the other way round."""
    if best_i[HAVE] != 0 and best_f[BEST_Q] >= cap and j >= best_i[ATTR]:
        return False
    g = max(best_f[BEST_Q], shared[SH_ALL])
    if g != shared[SH_TEST]:
        _coefficients(h, np.float64(p), mode, lift, Kc, g, U, C)
        shared[SH_TEST] = g
    hits = 0
    for c in range(Kc):
        side = C[0, c] * S_end[c] + C[1, c] * S_start[Kc + c] + C[2, c]
        rest = C[0, c] * (V[c] - S_start[c]) + C[1, c] * (V[Kc + c] - S_end[Kc + c]) + C[2, c]
        hits += (side >= 0) + (rest >= 0)
    return hits > 0


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
def _push(best_f, best_i, q, thr, seq, op, count, start, end, inverse, j):
    """Top-k mode: offer a candidate better than the list's bound to the current attribute's list, as
    mlrl-seco's fixed-size comparator does: appended while the list is not full, else in place of the
    worst, then moved before every candidate of lower quality (a stable sort); the bound (``BEST_Q``)
    becomes the list's worst quality (so while the list is not full, the first accepted one's)."""
    k = best_i[TOP_K]
    ri = best_i[TOP_AT_I]
    rf = best_i[TOP_AT_F]
    n = best_i[ri]
    p = n if n < k else k - 1
    if n < k:
        n += 1
        best_i[ri] = n
    while p > 0 and q > best_f[rf + 2 * (p - 1)]:
        best_f[rf + 2 * p] = best_f[rf + 2 * (p - 1)]
        best_f[rf + 2 * p + 1] = best_f[rf + 2 * (p - 1) + 1]
        for f in range(6):
            best_i[ri + 1 + 6 * p + f] = best_i[ri + 1 + 6 * (p - 1) + f]
        p -= 1
    best_f[rf + 2 * p] = q
    best_f[rf + 2 * p + 1] = thr
    at = ri + 1 + 6 * p
    best_i[at] = seq
    best_i[at + 1] = op
    best_i[at + 2] = count
    best_i[at + 3] = start
    best_i[at + 4] = end
    best_i[at + 5] = inverse
    best_f[BEST_Q] = best_f[rf + 2 * (n - 1)]
    best_i[HAVE] = 1
    best_i[ATTR] = j


@njit(cache=True, nogil=True)
def _exact(S, V, U, maj, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, op_side, thr, start, end, best_f,
           best_i, qbuf, order, shared):
    """The two candidates of one threshold, as the reference evaluates them: the side (``S``, ``n_cov``
    examples; operator ``op_side``) and the rest of the valid examples (the other operator), offered in
    this order; their positions in the attribute's vector are ``[start, end)`` (the rest: the others)."""
    Kc = S.shape[0] // 2
    for rest in range(2):
        count = n_nz - n_cov if rest else n_cov
        if count < min_cov:
            continue
        q, _ = head_quality(h, p, mode, maj, Kc, S, rest == 1, V, U, lift, max_lift, qbuf, order)
        best_i[EVALS] += 1
        shared[SH_SCORE] = max(shared[SH_SCORE], q)
        candidate = 2 * seq + rest
        if best_i.shape[0] > N_BEST_I:  # top-k mode: the attribute's list (mlrl-seco's fixed-size comparator)
            if q > best_f[BEST_Q]:
                _push(best_f, best_i, q, thr, candidate, op_side if rest == 0 else 1 - op_side, count, start, end,
                      rest, j)
            continue
        better = q > best_f[BEST_Q]
        if not better and best_i[HAVE] != 0 and q == best_f[BEST_Q]:
            better = j < best_i[ATTR] or (j == best_i[ATTR] and candidate < best_i[SEQ])
        if better:
            best_f[BEST_Q] = q
            best_f[BEST_THR] = thr
            best_i[HAVE] = 1
            best_i[ATTR] = j
            best_i[SEQ] = candidate
            best_i[OP] = op_side if rest == 0 else 1 - op_side
            best_i[COUNT] = count
            best_i[START] = start
            best_i[END] = end
            best_i[INVERSE] = rest


@njit(cache=True, nogil=True)
def _scan(step, t, stop, n_cov, prev, seq, j, rows, vals, n, w, Wm, S, Ssv, V, U, maj, n_nz, min_cov, h, p, mode, lift,
          max_lift, cap, first_only, best_f, best_i, shared, qbuf, order, C, shape):
    """The reference's pass over the negatives (``step`` 1: ascending from ``t``) or over the values >= 0
    (``step`` -1: descending from ``t`` down to, not including, ``stop``), by windows of thresholds: a
    window whose test passes (:func:`_wanted`) is walked again, each threshold tested and, if it passes,
    evaluated.  Returns (t, n_cov, prev, seq, stopped)."""
    rows, vals, w, Wm, S, Ssv, V, U, maj = borrowed((rows, vals, w, Wm, S, Ssv, V, U, maj))
    lift, max_lift, best_f, best_i, shared, qbuf, order, C = borrowed((lift, max_lift, best_f, best_i, shared, qbuf,
                                                                      order, C))
    K2 = S.shape[0]
    Kc = K2 // 2
    asc = step > 0
    op_side = np.int64(0) if asc else np.int64(1)
    ev = 0
    size = 1
    exact = False
    sv_t, sv_cov, sv_prev, sv_seq = t, n_cov, prev, seq
    while True:
        if (t >= n or not vals[t] < 0) if asc else not t > stop:
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
                    size = min(shape[1], max(shape[0], min(n_cov, n_nz - n_cov) >> shape[2]))
                if exact and _wanted(j, S, S, V, Kc, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
                    thr = _mean32(prev, v) if asc else _mean32(v, prev)
                    start = np.int64(0) if asc else t + 1
                    end = t if asc else n
                    _exact(S, V, U, maj, n_cov, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, op_side, thr, start,
                           end, best_f, best_i, qbuf, order, shared)
                    if first_only and shared[SH_SCORE] != -np.inf:  # evaluated here: the attribute's first
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
        t += step
    return t, n_cov, prev, seq, False


@njit(cache=True, nogil=True)
def _attribute(j, rows, vals, n, dense, w, Wm, U, maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap, first_only,
               best_f, best_i, shared, counts, qbuf, order, C, shape):
    """The reference's search of numeric attribute ``j`` over its vector ``rows``/``vals`` (``n`` entries,
    :func:`engine.core.seco_search.covered_order`): the candidates that may be the best are offered to
    ``best_f``/``best_i``.  Candidates are numbered in the reference's order (``seq``: thresholds; 2 seq
    the side, 2 seq + 1 the rest).  ``counts``: scratch rows (``S_*``), the valid examples' counts in
    ``S_VALID``."""
    S = counts[S_SIDE]
    Sneg = counts[S_NEG]
    Ssv = counts[S_SAVED]
    V = counts[S_VALID]
    K2 = S.shape[0]
    for k in range(K2):
        S[k] = 0
        Sneg[k] = 0
    # (integers start as np.int64: a literal reaching a call would compile the callee once more for it)
    seq = np.int64(0)
    stopped = False
    last_neg = np.float32(0.0)
    first_ge = np.int64(0)
    n_neg = np.int64(0)
    # ascending over the negatives
    prev = np.float32(0.0)
    n_cov = np.int64(0)
    t = np.int64(0)
    while t < n:
        v = vals[t]
        if not v < 0:
            break
        i = rows[t]
        if w[i] > 0:
            for k in range(K2):
                S[k] += Wm[i, k]
            n_cov = np.int64(1)
            prev = v
            break
        t += 1
    for step in (np.int64(1), np.int64(-1)):
        if step > 0:
            if n_cov == 0:
                continue
            t += 1
            stop = np.int64(0)
        else:
            for k in range(K2):  # the negatives' sums are kept and the side reset
                Sneg[k] = S[k]
                S[k] = 0
            last_neg = prev
            first_ge = t
            n_neg = n_cov
            # descending over the values >= 0, not down to the smallest (the reference's loop stops early)
            n_cov = np.int64(0)
            t = n - 1
            while t >= first_ge:
                i = rows[t]
                if w[i] > 0:
                    for k in range(K2):
                        S[k] += Wm[i, k]
                    n_cov = np.int64(1)
                    prev = vals[t]
                    break
                t -= 1
            if not (n_cov > 0 and t > 0):
                continue
            t -= 1
            stop = first_ge
        t, n_cov, prev, seq, stopped = _scan(step, t, stop, n_cov, prev, seq, j, rows, vals, n, w, Wm, S, Ssv, V, U,
                                             maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap, first_only, best_f,
                                             best_i, shared, qbuf, order, C, shape)
        if stopped:
            return
    # the sparse block (a sparse attribute's non-zero values against its implicit zeros), then the
    # negatives against the rest
    for block in range(2):
        if block == 0:
            if dense:
                continue
            side, count, op_side, thr, start, end = S, n_cov, np.int64(1), _mean32(np.float32(0.0), prev), first_ge, n
        else:
            if not (n_neg > 0 and n_neg < n_nz):
                continue
            above = prev if dense else np.float32(0.0)
            side, count, op_side = Sneg, n_neg, np.int64(0)
            thr, start, end = _mean32(last_neg, above), np.int64(0), first_ge
        if _wanted(j, side, side, V, K2 // 2, h, p, mode, lift, cap, U, best_f, best_i, shared, C):
            _exact(side, V, U, maj, count, n_nz, min_cov, h, p, mode, lift, max_lift, j, seq, op_side, thr, start, end,
                   best_f, best_i, qbuf, order, shared)
        seq += 1
        if first_only and shared[SH_SCORE] != -np.inf:
            return


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


@njit(cache=True, nogil=True)
def mlrl_refine(order, chunk, n_chunks, bptr, brows, bvals, wrows, wvals, wlen, wstamp, rule_id, full, miss_ptr,
                miss_rows, dense, covered, w, Wm, U, maj, min_cov, h, p, mode, lift, max_lift, floor, score, best,
                out_f, out_i, counts, qbuf, head, C, shared, cancel, shape):
    """Thread ``chunk``'s share of one refinement step over the numeric attributes ``order`` (every
    ``n_chunks``-th from ``chunk`` on, in that order): its best condition whose quality is above ``floor``,
    into ``out_f`` (quality, threshold) and ``out_i`` (found, attribute, candidate number, operator, covered
    count, start, end, inverse, evaluations); ``start``/``end``/``inverse`` are the covered positions of the
    attribute's vector (:func:`mlrl_apply`).  The threads' best is the one of the highest quality, then of
    the smallest attribute, then of the smallest candidate number.  ``best[0]``: the best quality of all
    threads so far (read and raised without a lock: it only ever holds a quality some thread found).

    ``bptr``/``brows``/``bvals``: every attribute's vector with all examples covered
    (:func:`engine.core.seco_search.covered_order`); ``wrows``/``wvals`` the same layout, the vectors of the
    covered examples (``wlen`` entries, valid for the rule ``wstamp[j]``), filtered here from the base
    vectors or their last filtering unless ``full`` (all examples covered: the base vectors are read).
    ``Wm``/``U``/``maj``: the counts of the candidate labels (module doc).  ``score[j]``: the largest
    quality evaluated on attribute ``j`` (written here; the caller orders the attributes by it, so the best
    so far is soon high and few windows pass their test).  ``counts`` (rows ``S_*``), ``qbuf``, ``head``,
    ``C``, ``shared`` (``SH_*``): this thread's scratch.

    Top-k mode (``out_i`` longer than ``N_BEST_I``, the beam search of :mod:`engine.seco`): each attribute
    keeps its own list of up to ``out_i[TOP_K]`` candidates above ``floor`` (:func:`_push`, layout at the
    ``TOP_*`` constants), searched as if alone (no bound from other attributes or threads)."""
    # borrowed views: the calls below pass them on without counting references (engine.core.borrowed)
    order, bptr, brows, bvals, wrows, wvals, wlen, wstamp = borrowed((order, bptr, brows, bvals, wrows, wvals, wlen,
                                                                      wstamp))
    miss_ptr, miss_rows, dense, covered, w, Wm, U, maj = borrowed((miss_ptr, miss_rows, dense, covered, w, Wm, U, maj))
    lift, max_lift, score, best, out_f, out_i, counts = borrowed((lift, max_lift, score, best, out_f, out_i, counts))
    qbuf, head, C, shared, cancel, shape = borrowed((qbuf, head, C, shared, cancel, shape))
    K2 = Wm.shape[1]
    Kc = K2 // 2
    T = counts[S_COVERED]
    for k in range(K2):
        T[k] = 0
    n_w = np.int64(0)
    for i in range(covered.shape[0]):
        if covered[i] and w[i] > 0:
            n_w += 1
            for k in range(K2):
                T[k] += Wm[i, k]
    V = counts[S_VALID]
    cap = _cap(h, mode, lift, Kc)
    first_only = h == MH_ACCURACY  # every candidate has the same quality: the first one is the best
    topk = out_i.shape[0] > N_BEST_I  # a list per attribute (module constants TOP_*), none across attributes
    width = out_i[TOP_K] if topk else np.int64(1)
    out_f[BEST_Q] = floor
    out_f[BEST_THR] = 0.0
    for k in range(N_BEST_I):
        out_i[k] = 0
    shared[SH_TEST] = np.nan
    for o in range(chunk, order.shape[0], n_chunks):
        j = order[o]
        if cancel[0] != 0:
            break
        if topk:  # this attribute's own list, bounded by the floor alone (each attribute searched apart)
            out_f[BEST_Q] = floor
            out_i[HAVE] = 0
            out_i[TOP_AT_I] = N_TOP_I + o * (1 + 6 * width)
            out_i[TOP_AT_F] = 2 + 2 * width * o
            out_i[out_i[TOP_AT_I]] = 0
        elif first_only and out_i[EVALS] > 0 and (out_i[HAVE] == 0 or j > out_i[ATTR]):
            continue  # the first candidate evaluated is the attribute's best; none above the floor: none is
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
            n = np.int64(0)
            for t in range(src_rows.shape[0]):
                i = src_rows[t]
                if covered[i]:
                    wrows[a + n] = i
                    wvals[a + n] = src_vals[t]
                    n += 1
            wlen[j] = n
            rows = wrows[a:a + n]
            vals = wvals[a:a + n]
        if n == 0:  # no value (a sparse attribute's zeros only): the reference's vector of equal values, not searched
            score[j] = -np.inf
            continue
        # the valid examples: the covered weighted ones with a value of attribute j
        for k in range(K2):
            V[k] = T[k]
        n_nz = n_w
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            i = miss_rows[r]
            if covered[i] and w[i] > 0:
                for k in range(K2):
                    V[k] -= Wm[i, k]
                n_nz -= 1
        shared[SH_ALL] = floor if topk else best[0]
        shared[SH_SCORE] = -np.inf
        _attribute(j, rows, vals, n, dense[j] != 0, w, Wm, U, maj, n_nz, min_cov, h, p, mode, lift, max_lift, cap,
                   first_only, out_f, out_i, shared, counts, qbuf, head, C, shape)
        score[j] = shared[SH_SCORE]
        if not topk and out_f[BEST_Q] > best[0]:
            best[0] = out_f[BEST_Q]


@njit(cache=True, nogil=True)
def mlrl_apply(j, full, bptr, brows, wrows, miss_ptr, miss_rows, covered, start, end, inverse, Wm, U, maj, h, p, mode,
               lift, max_lift, qbuf, positions):
    """Restrict ``covered`` to the positions ``[start, end)`` of attribute ``j``'s current vector (the base
    vector if ``full``), or with ``inverse`` drop those positions and the examples missing the value
    (``j`` < 0: leave it); then the head of the covered examples (the counts ``Wm``/``U``/``maj`` of the
    candidate labels): (quality, size), the head's candidate positions in ``positions[:size]``."""
    if j >= 0:
        a = bptr[j]
        rows = brows if full else wrows
        if inverse:
            for t in range(start, end):
                covered[rows[a + t]] = 0
            for r in range(miss_ptr[j], miss_ptr[j + 1]):
                covered[miss_rows[r]] = 0
        else:
            for i in range(covered.shape[0]):
                covered[i] = 0
            for t in range(start, end):
                covered[rows[a + t]] = 1
    K2 = Wm.shape[1]
    S = np.zeros(K2, np.int32)
    for i in range(covered.shape[0]):
        if covered[i]:
            for k in range(K2):
                S[k] += Wm[i, k]
    comp = K2 < 0  # False, typed as the search's (a literal would compile head_quality again)
    return head_quality(h, p, mode, maj, K2 // 2, S, comp, S, U, lift, max_lift, qbuf, positions)
