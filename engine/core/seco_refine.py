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

from collections import namedtuple

import numpy as np
from numba import njit

from .borrowed import borrowed
from .seco_search import (HEAD_PARTIAL_ALL, HEAD_SINGLE_MODE, MH_ACCURACY, MH_F_MEASURE, MH_LAPLACE, MH_M_ESTIMATE,
                          MH_PRECISION, MH_RECALL, MH_WRA, _mean32, _same32, label_quality, select_head)

# The arrays that travel together, as records Numba compiles (a namedtuple of arrays is typed as a tuple):
# every attribute's vector in the reference's order, with all examples covered (``bptr``/``brows``/``bvals``)
# and filtered to a rule's covered examples (``wrows``/``wvals``, ``wlen`` entries, valid for the rule
# ``wstamp[j]``), the examples missing a value, and which attributes are dense
Vectors = namedtuple("Vectors", "bptr brows bvals wrows wvals wlen wstamp miss_ptr miss_rows dense")
# the rule being refined: its number (``wstamp``), whether it covers every example, its coverage, the weights
Body = namedtuple("Body", "rule_id full covered w")
# the counts of a rule's candidate labels (module doc): Wm (examples x 2 Kc), their sums U, majority values
LabelCounts = namedtuple("LabelCounts", "Wm U maj")
# a thread's best candidate (rows BEST_* of ``f``, HAVE .. EVALS of ``i``) and its scratch (rows S_* of
# ``counts``, label qualities ``qbuf``, head positions ``head``, the window test ``C``, ``shared``: SH_*)
Out = namedtuple("Out", "f i")
Scratch = namedtuple("Scratch", "counts qbuf head C shared")
# what the search of one step reads: the counts, the heuristic (engine.core.seco_search.Heuristic), the
# minimum coverage, the largest quality (:func:`_cap`), whether the first candidate is the best, the windows
Search = namedtuple("Search", "labels heu min_cov cap first_only shape")

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
def _wanted(j, S_end, S_start, V, search, out, scratch):
    """Whether candidates of attribute ``j`` between two thresholds of a pass whose side counts are
    ``S_start`` and ``S_end`` may still be chosen (``V``: the valid examples' counts).  Not if the best so
    far reaches the largest possible quality at an attribute not after this one (the attributes are
    searched once each, the windows of one in order); else by the test against the best of this thread
    or, if higher, of all threads.  The side's correct counts are largest and its wrong counts smallest
    at the ends, the rest's the other way round."""
    best_f, best_i, shared, C = out.f, out.i, scratch.shared, scratch.C
    if best_i[HAVE] != 0 and best_f[BEST_Q] >= search.cap and j >= best_i[ATTR]:
        return False
    Kc = S_end.shape[0] // 2
    g = max(best_f[BEST_Q], shared[SH_ALL])
    if g != shared[SH_TEST]:
        heu = search.heu
        _coefficients(heu.h, np.float64(heu.p), heu.mode, heu.lift, Kc, g, search.labels.U, C)
        shared[SH_TEST] = g
    hits = 0
    for c in range(Kc):
        side = C[0, c] * S_end[c] + C[1, c] * S_start[Kc + c] + C[2, c]
        rest = C[0, c] * (V[c] - S_start[c]) + C[1, c] * (V[Kc + c] - S_end[Kc + c]) + C[2, c]
        hits += (side >= 0) + (rest >= 0)
    return hits > 0


@njit(cache=True, nogil=True)
def head_quality(heu, maj, S, comp, V, U, qbuf, order):
    """:func:`engine.core.seco_search.mlrl_head` on the counts ``S`` (correct pairs of the candidate labels,
    then wrong ones) or, with ``comp``, ``V`` minus them: (quality, head size); the head's candidate
    positions are ``order[:size]`` (:func:`engine.core.seco_search.select_head`)."""
    Kc = S.shape[0] // 2
    h, p = heu.h, heu.p
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
    return select_head(heu.mode, qbuf, Kc, heu.lift, heu.max_lift, order)


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
def _exact(S, V, n_cov, n_nz, j, cand, search, out, scratch):
    """The two candidates of one threshold, as the reference evaluates them: the side (``S``, ``n_cov``
    examples; operator ``op_side``) and the rest of the valid examples (the other operator), offered in
    this order; their positions in the attribute's vector are ``[start, end)`` (the rest: the others).
    ``cand``: (seq, op_side, thr, start, end)."""
    seq, op_side, thr, start, end = cand
    best_f, best_i, shared = out.f, out.i, scratch.shared
    labels = search.labels
    for rest in range(2):
        count = n_nz - n_cov if rest else n_cov
        if count < search.min_cov:
            continue
        q, _ = head_quality(search.heu, labels.maj, S, rest == 1, V, labels.U, scratch.qbuf, scratch.head)
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
def _scan(step, at, stop, j, rows, vals, w, n_nz, search, out, scratch):
    """The reference's pass over the negatives (``step`` 1: ascending from ``t``) or over the values >= 0
    (``step`` -1: descending from ``t`` down to, not including, ``stop``), by windows of thresholds: a
    window whose test passes (:func:`_wanted`) is walked again, each threshold tested and, if it passes,
    evaluated.  ``at``: (t, n_cov, prev, seq) where the pass starts.  Returns (t, n_cov, prev, seq, stopped)."""
    rows, vals, w, search, out, scratch = borrowed((rows, vals, w, search, out, scratch))
    t, n_cov, prev, seq = at
    n = rows.shape[0]
    counts = scratch.counts
    S = counts[S_SIDE]
    Ssv = counts[S_SAVED]
    V = counts[S_VALID]
    Wm = search.labels.Wm
    shape = search.shape
    K2 = S.shape[0]
    asc = step > 0
    op_side = np.int64(0) if asc else np.int64(1)
    ev = 0
    size = 1
    exact = False
    sv_t, sv_cov, sv_prev, sv_seq = t, n_cov, prev, seq
    while True:
        if (t >= n or not vals[t] < 0) if asc else not t > stop:
            if ev > 0 and not exact and _wanted(j, S, Ssv, V, search, out, scratch):
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
                if exact and _wanted(j, S, S, V, search, out, scratch):
                    thr = _mean32(prev, v) if asc else _mean32(v, prev)
                    start = np.int64(0) if asc else t + 1
                    end = t if asc else n
                    _exact(S, V, n_cov, n_nz, j, (seq, op_side, thr, start, end), search, out, scratch)
                    if search.first_only and scratch.shared[SH_SCORE] != -np.inf:  # evaluated: the attribute's first
                        return t, n_cov, prev, seq, True
                seq += 1
                ev += 1
                if ev == size:
                    ev = 0
                    if exact:
                        exact = False
                    elif _wanted(j, S, Ssv, V, search, out, scratch):
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
def _first_weighted(rows, vals, w, Wm, S, t, stop, step, asc):
    """From ``t`` on by ``step`` (ascending: while the values are negative; descending: down to ``stop``),
    the first entry of positive weight, added to ``S``: (its position, 1, its value), or (where the walk
    stopped, 0, 0)."""
    while (t < rows.shape[0] and vals[t] < 0) if asc else t >= stop:
        i = rows[t]
        if w[i] > 0:
            for k in range(S.shape[0]):
                S[k] += Wm[i, k]
            return t, np.int64(1), vals[t]
        t += step
    return t, np.int64(0), np.float32(0.0)


@njit(cache=True, nogil=True)
def _attribute(j, rows, vals, dense, w, n_nz, search, out, scratch):
    """The reference's search of numeric attribute ``j`` over its vector ``rows``/``vals``
    (:func:`engine.core.seco_search.covered_order`): the candidates that may be the best are offered to
    ``out``.  Candidates are numbered in the reference's order (``seq``: thresholds; 2 seq the side,
    2 seq + 1 the rest).  ``scratch.counts``: rows ``S_*``, the valid examples' counts in ``S_VALID``."""
    counts = scratch.counts
    S = counts[S_SIDE]
    Sneg = counts[S_NEG]
    V = counts[S_VALID]
    Wm = search.labels.Wm
    n = rows.shape[0]
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
    t, n_cov, prev = _first_weighted(rows, vals, w, Wm, S, np.int64(0), np.int64(0), np.int64(1), True)
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
            t, n_cov, found = _first_weighted(rows, vals, w, Wm, S, n - 1, first_ge, np.int64(-1), False)
            if n_cov > 0:
                prev = found
            if not (n_cov > 0 and t > 0):
                continue
            t -= 1
            stop = first_ge
        t, n_cov, prev, seq, stopped = _scan(step, (t, n_cov, prev, seq), stop, j, rows, vals, w, n_nz, search, out,
                                             scratch)
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
        if _wanted(j, side, side, V, search, out, scratch):
            _exact(side, V, count, n_nz, j, (seq, op_side, thr, start, end), search, out, scratch)
        seq += 1
        if search.first_only and scratch.shared[SH_SCORE] != -np.inf:
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
def _vector(j, vec, body):
    """Attribute ``j``'s vector of the covered examples (rows, values): the base vector if the body covers
    every example, else filtered from the base vector or its last filtering (``wstamp[j]``: the rule it
    was filtered for) to the covered examples."""
    a = vec.bptr[j]
    if body.full:
        b = vec.bptr[j + 1]
        return vec.brows[a:b], vec.bvals[a:b]
    wrows, wvals, covered = vec.wrows, vec.wvals, body.covered
    if vec.wstamp[j] != body.rule_id:
        src_rows = vec.brows[a:vec.bptr[j + 1]]
        src_vals = vec.bvals[a:vec.bptr[j + 1]]
        vec.wstamp[j] = body.rule_id
    else:
        src_rows = wrows[a:a + vec.wlen[j]]
        src_vals = wvals[a:a + vec.wlen[j]]
    n = np.int64(0)
    for t in range(src_rows.shape[0]):
        i = src_rows[t]
        if covered[i]:
            wrows[a + n] = i
            wvals[a + n] = src_vals[t]
            n += 1
    vec.wlen[j] = n
    return wrows[a:a + n], wvals[a:a + n]


@njit(cache=True, nogil=True)
def _valid(j, vec, body, labels, V, T, n_w):
    """The counts ``V`` of the valid examples (the covered weighted ones with a value of attribute ``j``)
    from those of the covered weighted ones (``T``, ``n_w`` examples); returns their number."""
    Wm, covered, w = labels.Wm, body.covered, body.w
    for k in range(V.shape[0]):
        V[k] = T[k]
    n_nz = n_w
    for r in range(vec.miss_ptr[j], vec.miss_ptr[j + 1]):
        i = vec.miss_rows[r]
        if covered[i] and w[i] > 0:
            for k in range(V.shape[0]):
                V[k] -= Wm[i, k]
            n_nz -= 1
    return n_nz


@njit(cache=True, nogil=True)
def mlrl_refine(order, chunk, n_chunks, vec, body, labels, heu, min_cov, floor, score, best, out, scratch, cancel,
                shape):
    """Thread ``chunk``'s share of one refinement step over the numeric attributes ``order`` (every
    ``n_chunks``-th from ``chunk`` on, in that order): its best condition whose quality is above ``floor``,
    into ``out.f`` (quality, threshold) and ``out.i`` (found, attribute, candidate number, operator, covered
    count, start, end, inverse, evaluations); ``start``/``end``/``inverse`` are the covered positions of the
    attribute's vector (:func:`mlrl_apply`).  The threads' best is the one of the highest quality, then of
    the smallest attribute, then of the smallest candidate number.  ``best[0]``: the best quality of all
    threads so far (read and raised without a lock: it only ever holds a quality some thread found).

    ``vec`` (:class:`Vectors`): the attributes' vectors, of the covered examples filtered here (:func:`_vector`).
    ``body`` (:class:`Body`): the rule refined.  ``labels`` (:class:`LabelCounts`), ``heu``
    (engine.core.seco_search.Heuristic): the counts of the candidate labels (module doc) and the heads'
    evaluation.  ``score[j]``: the largest quality evaluated on attribute ``j`` (written here; the caller
    orders the attributes by it, so the best so far is soon high and few windows pass their test).
    ``scratch`` (:class:`Scratch`): this thread's.  ``shape``: the windows (:data:`WINDOWS`).

    Top-k mode (``out.i`` longer than ``N_BEST_I``, the beam search of :mod:`engine.seco`): each attribute
    keeps its own list of up to ``out.i[TOP_K]`` candidates above ``floor`` (:func:`_push`, layout at the
    ``TOP_*`` constants), searched as if alone (no bound from other attributes or threads)."""
    # borrowed views: the calls below pass them on without counting references (engine.core.borrowed)
    order, vec, body, labels, heu, score, best, out, scratch, cancel, shape = borrowed(
        (order, vec, body, labels, heu, score, best, out, scratch, cancel, shape))
    covered, w, Wm = body.covered, body.w, labels.Wm
    out_f, out_i, shared = out.f, out.i, scratch.shared
    K2 = Wm.shape[1]
    T = scratch.counts[S_COVERED]
    for k in range(K2):
        T[k] = 0
    n_w = np.int64(0)
    for i in range(covered.shape[0]):
        if covered[i] and w[i] > 0:
            n_w += 1
            for k in range(K2):
                T[k] += Wm[i, k]
    V = scratch.counts[S_VALID]
    # 0.15.6's accuracy: every candidate has the same quality, the first one is the best
    search = Search(labels, heu, min_cov, _cap(heu.h, heu.mode, heu.lift, K2 // 2), heu.h == MH_ACCURACY, shape)
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
        elif search.first_only and out_i[EVALS] > 0 and (out_i[HAVE] == 0 or j > out_i[ATTR]):
            continue  # the first candidate evaluated is the attribute's best; none above the floor: none is
        rows, vals = _vector(j, vec, body)
        if rows.shape[0] == 0:  # no value (a sparse attribute's zeros only): the reference's vector of equal
            score[j] = -np.inf  # values, not searched
            continue
        n_nz = _valid(j, vec, body, labels, V, T, n_w)
        shared[SH_ALL] = floor if topk else best[0]
        shared[SH_SCORE] = -np.inf
        _attribute(j, rows, vals, vec.dense[j] != 0, w, n_nz, search, out, scratch)
        score[j] = shared[SH_SCORE]
        if not topk and out_f[BEST_Q] > best[0]:
            best[0] = out_f[BEST_Q]


@njit(cache=True, nogil=True)
def mlrl_apply(j, full, vec, covered, where, labels, heu, qbuf, positions):
    """Restrict ``covered`` to the positions ``[start, end)`` of attribute ``j``'s current vector (``vec``:
    the base vector if ``full``), or with ``inverse`` drop those positions and the examples missing the value
    (``where``: (start, end, inverse); ``j`` < 0: leave it); then the head of the covered examples (the
    counts ``labels`` of the candidate labels): (quality, size), the head's candidate positions in
    ``positions[:size]``."""
    if j >= 0:
        start, end, inverse = where
        a = vec.bptr[j]
        rows = vec.brows if full else vec.wrows
        if inverse:
            for t in range(start, end):
                covered[rows[a + t]] = 0
            for r in range(vec.miss_ptr[j], vec.miss_ptr[j + 1]):
                covered[vec.miss_rows[r]] = 0
        else:
            for i in range(covered.shape[0]):
                covered[i] = 0
            for t in range(start, end):
                covered[rows[a + t]] = 1
    Wm = labels.Wm
    K2 = Wm.shape[1]
    S = np.zeros(K2, np.int32)
    for i in range(covered.shape[0]):
        if covered[i]:
            for k in range(K2):
                S[k] += Wm[i, k]
    comp = K2 < 0  # False, typed as the search's (a literal would compile head_quality again)
    return head_quality(heu, labels.maj, S, comp, S, labels.U, qbuf, positions)
