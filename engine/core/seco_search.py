"""Kernels of the separate-and-conquer learner with multi-label heads (Rapp, Loza Mencía &
Fürnkranz, PAKDD 2018): head search and the attribute sweep that scores candidate bodies.

Counting convention (the learner's module doc explains it in full).  Only *countable* pairs
count: (example, label) pairs of examples still in the training set whose label no earlier rule
has predicted.  ``C1[i, l]`` / ``C0[i, l]`` mark countable pairs with the label present / absent;
``G1[l]`` / ``G0[l]`` are the same as bitsets over examples; ``U1[l]`` / ``U0[l]`` count them.
For a candidate body covering the set ``S``, ``c1[l]`` / ``c0[l]`` count the countable pairs of
label ``l`` inside ``S``.  A head assigns a value ``v`` in {1 (present), 0 (absent)} to each of its
labels; per head label the micro-averaged confusion matrix gets

    TP = countable covered pairs with y = v      FP = countable covered pairs with y != v
    FN = countable uncovered pairs with y = v    TN = countable uncovered pairs with y != v

Labels outside the head contribute nothing.  Subset accuracy is example-based:
``|{i in S : every head label l of i is countable and y_il = v_l}| / |S|`` (a pair an earlier
rule already predicted cannot be predicted correctly again, so it never counts as correct).

Head search.  Every label with at least one countable covered pair ("eligible") is evaluated as
a single-label head with both values; its value ``v_l`` is the better one (absent on a tie).  All
multi-label heads use these values.  Heads are compared by heuristic value, then by size (more
labels is better), then lexicographically (smaller sorted label tuple).

- precision, Hamming accuracy, recall, F-measure (decomposable): micro-averaging makes a head's
  value a ratio of sums, i.e. a weighted mean of its labels' single-label values, so the best
  head is the set of all labels whose single-label value is maximal (the paper's result).
- subset accuracy (anti-monotone: adding a label never raises the value) - pruned search: a head
  containing a label whose single-label value is below the best single-label value cannot be
  optimal and is never evaluated; from each best single-label head (in label order) labels are
  added in ascending order, a branch is pruned as soon as adding a label lowers the value, and a
  label that leaves the value unchanged is absorbed (for subset accuracy it then leaves every
  superset unchanged too); a start already absorbed by an earlier start is skipped, so no head is
  evaluated twice.  ``exhaustive`` evaluates every subset of the eligible labels instead.

Sweeps.  :func:`best_conditions` scores every condition with :func:`head_search_into` (any
heuristic; subset accuracy needs the covered set as bitsets); :func:`best_conditions_decomposable`
serves the decomposable heuristics from the counts alone, in one pass per head without scratch
arrays or bitsets, and measured 3-4 times faster.  Both compact the covered entries of each
attribute as they pass, so a rule's later conditions visit only those.

Operators: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=``.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from .sweep import specialise

H_PRECISION, H_HAMMING, H_RECALL, H_FMEASURE, H_SUBSET = 0, 1, 2, 3, 4
TOL = 1e-12

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@njit(cache=True, nogil=True)
def popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@njit(cache=True, nogil=True)
def set_bit(bits, i):
    bits[i >> 6] |= _ONE << np.uint64(i & 63)


@njit(cache=True, nogil=True)
def mask_bitset(mask, n_words):
    """Bitset (uint64 words) of the indices with ``mask[i] != 0``."""
    out = np.zeros(n_words, dtype=np.uint64)
    for i in range(mask.shape[0]):
        if mask[i]:
            set_bit(out, i)
    return out


@njit(cache=True, nogil=True)
def label_bitsets(C, n_words):
    """K x W bitsets: row ``l`` holds the examples with ``C[i, l] != 0``."""
    N, K = C.shape
    out = np.zeros((K, n_words), dtype=np.uint64)
    for i in range(N):
        w = i >> 6
        bit = _ONE << np.uint64(i & 63)
        for k in range(K):
            if C[i, k]:
                out[k, w] |= bit
    return out


@njit(cache=True, nogil=True)
def micro_value(heuristic, beta2, tp, fp, fn, tn):
    """A rule learning heuristic on a (micro-averaged) confusion matrix; 0 where undefined."""
    if heuristic == H_PRECISION:
        den = tp + fp
        return tp / den if den > 0 else 0.0
    if heuristic == H_HAMMING:
        den = tp + fp + fn + tn
        return (tp + tn) / den if den > 0 else 0.0
    if heuristic == H_RECALL:
        den = tp + fn
        return tp / den if den > 0 else 0.0
    num = (1.0 + beta2) * tp
    den = num + beta2 * fn + fp
    return num / den if den > 0 else 0.0


# Rows of the count matrices ``N1`` / ``N0`` (int64, ROWS x K: countable pairs with the label present /
# absent) that the sweep and the head search share, and of the bitsets ``B`` (uint64, 3 x words).
# One matrix per kind, indexed by row, instead of a vector per row: a row taken as a view, or an array
# taken from a tuple, costs reference counting at every threshold of the sweep.
SIDE0, SIDE1, VALID, REST, TOTAL = 0, 1, 2, 3, 4  # the walk's two sides, the valid covered examples,
N_ROWS = 5                                        # scratch for VALID - side, the training set's totals (U)
# rows of the int scratch ``I`` (int64, 5 x K): eligible labels, single-label values, counts, head labels, head values
_ELIG, _VALS, _COUNTS, HEAD_LABELS, HEAD_VALUES = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _confusion(v, c1, c0, u1, u0):
    """A label's (TP, FP, FN, TN) for head value ``v``."""
    if v == 1:
        return c1, c0, u1 - c1, u0 - c0
    return c0, c1, u0 - c0, u1 - c1


@njit(cache=True, nogil=True)
def _set_words(B, side, comp, out):
    """out = B[side] (comp == 0) or B[VALID] and not B[side] (comp == 1)."""
    for w in range(out.shape[0]):
        out[w] = (B[VALID, w] & ~B[side, w]) if comp else B[side, w]


@njit(cache=True, nogil=True)
def _and_count(a, G, l, out):
    """out = a & G[l]; returns the number of set bits."""
    cnt = 0
    for w in range(out.shape[0]):
        x = a[w] & G[l, w]
        out[w] = x
        cnt += popcount(x)
    return cnt


@njit(cache=True, nogil=True)
def count_matrices(row, c1, c0, U1, U0):
    """The count matrices N1, N0 with ``c1``/``c0`` in ``row``, the totals ``U1``/``U0`` in ``TOTAL``
    and zeros elsewhere."""
    N1 = np.zeros((N_ROWS, c1.shape[0]), dtype=np.int64)
    N0 = np.zeros((N_ROWS, c1.shape[0]), dtype=np.int64)
    for k in range(c1.shape[0]):  # loops, not slice assignments: those compile an error message's formatting
        N1[row, k] = c1[k]
        N0[row, k] = c0[k]
        N1[TOTAL, k] = U1[k]
        N0[TOTAL, k] = U0[k]
    return N1, N0


@njit(cache=True, nogil=True)
def head_search(heuristic, beta2, exhaustive, c1, c0, U1, U0, n_S, G1, G0, P, V, comp, out_labels,
                out_values):
    """:func:`head_search_into` for count vectors (body ``c1``/``c0``, totals ``U1``/``U0``) and
    bitsets (``P``; ``V`` minus ``P`` with ``comp``), with scratch space of its own (for calls
    outside the sweeps); the head is written to ``out_labels``, ``out_values``."""
    K = c1.shape[0]
    N1, N0 = count_matrices(np.int64(SIDE0), c1, c0, U1, U0)
    B = np.zeros((3, P.shape[0]), dtype=np.uint64)
    for w in range(P.shape[0]):
        B[SIDE0, w] = P[w]
        B[VALID, w] = V[w]
    I = np.empty((5, K), dtype=np.int64)
    value, n_head, pairs, evals = head_search_into(heuristic, beta2, exhaustive, N1, N0, np.int64(SIDE0), n_S, G1, G0,
                                                   B, np.int64(SIDE0), np.int64(comp), I, np.empty(K))
    for q in range(n_head):
        out_labels[q] = I[HEAD_LABELS, q]
        out_values[q] = I[HEAD_VALUES, q]
    return value, n_head, pairs, evals


@njit(cache=True, nogil=True)
def _label_values(heuristic, beta2, N1, N0, row, n_S, I, F):
    """Every eligible label (at least one countable covered pair) as a single-label head with both values:
    the eligible labels in ``I[_ELIG]``, each label's better value in ``I[_VALS]`` (absent on a tie), its
    count of correct pairs in ``I[_COUNTS]`` (subset accuracy) and its value in ``F``.  Returns (eligible
    labels, evaluations, best single-label value, best count)."""
    K = N1.shape[1]
    for l in range(K):
        I[_VALS, l] = 0
        I[_COUNTS, l] = 0
        F[l] = 0.0
    n_elig = 0
    evals = 0
    best_single = -1.0
    best_count = 0
    for l in range(K):
        c1 = N1[row, l]
        c0 = N0[row, l]
        if c1 + c0 == 0:
            continue
        I[_ELIG, n_elig] = l
        n_elig += 1
        evals += 2
        if heuristic == H_SUBSET:
            if c1 > c0:
                I[_VALS, l] = 1
                I[_COUNTS, l] = c1
            else:
                I[_COUNTS, l] = c0
            F[l] = I[_COUNTS, l] / n_S
            if I[_COUNTS, l] > best_count:
                best_count = I[_COUNTS, l]
        else:
            u1 = N1[TOTAL, l]
            u0 = N0[TOTAL, l]
            tp, fp, fn, tn = _confusion(np.int64(1), c1, c0, u1, u0)
            a = micro_value(heuristic, beta2, np.float64(tp), np.float64(fp), np.float64(fn), np.float64(tn))
            tp, fp, fn, tn = _confusion(np.int64(0), c1, c0, u1, u0)
            b = micro_value(heuristic, beta2, np.float64(tp), np.float64(fp), np.float64(fn), np.float64(tn))
            if a > b:
                I[_VALS, l] = 1
                F[l] = a
            else:
                F[l] = b
            if F[l] > best_single:
                best_single = F[l]
    return n_elig, evals, best_single, best_count


@njit(cache=True, nogil=True)
def _exhaustive_head(heuristic, beta2, N1, N0, row, n_S, G1, G0, B, side, comp, I, n_elig):
    """Every non-empty subset of the eligible labels, in lexicographic preorder: (value, head size,
    evaluations); the head's labels in ``I[HEAD_LABELS]``."""
    W = G1.shape[1]
    pos_stack = np.zeros(n_elig + 1, dtype=np.int64)
    sums = np.zeros((n_elig + 1, 4))
    masks = np.empty((n_elig + 1, W), dtype=np.uint64)
    if heuristic == H_SUBSET:
        _set_words(B, side, comp, masks[0])
    n_head = 0
    evals = 0
    best_value = -1.0
    best_cnt = -1
    depth = 0
    while depth >= 0:
        pos = pos_stack[depth]
        if pos >= n_elig:
            depth -= 1
            if depth >= 0:
                pos_stack[depth] += 1
            continue
        l = I[_ELIG, pos]
        size = depth + 1
        if size >= 2:
            evals += 1
        better = False
        if heuristic == H_SUBSET:
            G = G1 if I[_VALS, l] == 1 else G0
            cnt = _and_count(masks[depth], G, l, masks[depth + 1])
            if cnt > best_cnt or (cnt == best_cnt and size > n_head):
                better = True
                best_cnt = cnt
                best_value = cnt / n_S
        else:
            tp, fp, fn, tn = _confusion(I[_VALS, l], N1[row, l], N0[row, l], N1[TOTAL, l], N0[TOTAL, l])
            sums[depth + 1, 0] = sums[depth, 0] + tp
            sums[depth + 1, 1] = sums[depth, 1] + fp
            sums[depth + 1, 2] = sums[depth, 2] + fn
            sums[depth + 1, 3] = sums[depth, 3] + tn
            v = micro_value(heuristic, beta2, sums[depth + 1, 0], sums[depth + 1, 1], sums[depth + 1, 2],
                            sums[depth + 1, 3])
            if v > best_value + TOL or (v >= best_value - TOL and size > n_head):
                better = True
                best_value = v if v > best_value else best_value
        if better:
            n_head = size
            for q in range(size):
                I[HEAD_LABELS, q] = I[_ELIG, pos_stack[q]]
        depth += 1
        pos_stack[depth] = pos + 1
    return best_value, n_head, evals


@njit(cache=True, nogil=True)
def _subset_head(n_elig, best_count, n_S, G1, G0, B, side, comp, I):
    """Subset accuracy's pruned search (module doc); only labels tied with the best single-label head can
    occur: (value, head size, evaluations); the head's labels in ``I[HEAD_LABELS]``."""
    K = I.shape[1]
    W = G1.shape[1]
    n_head = 0
    evals = 0
    n_tied = 0
    for e in range(n_elig):
        if I[_COUNTS, I[_ELIG, e]] == best_count:
            n_tied += 1
    if n_tied == 1:
        for e in range(n_elig):
            if I[_COUNTS, I[_ELIG, e]] == best_count:
                I[HEAD_LABELS, 0] = I[_ELIG, e]
        return best_count / n_S, 1, evals
    S = np.empty(W, dtype=np.uint64)
    _set_words(B, side, comp, S)
    cur = np.empty(W, dtype=np.uint64)
    tmp = np.empty(W, dtype=np.uint64)
    absorbed = np.zeros(K, dtype=np.uint8)
    head = np.empty(K, dtype=np.int64)
    for e in range(n_elig):
        s = I[_ELIG, e]
        if I[_COUNTS, s] != best_count or absorbed[s]:
            continue
        G = G1 if I[_VALS, s] == 1 else G0
        _and_count(S, G, s, cur)
        size = 1
        head[0] = s
        for f in range(e + 1, n_elig):
            a = I[_ELIG, f]
            if I[_COUNTS, a] != best_count:
                continue  # bound: any head with this label is worse than the best single
            evals += 1
            G = G1 if I[_VALS, a] == 1 else G0
            cnt = _and_count(cur, G, a, tmp)
            if cnt == best_count:  # unchanged value: absorb
                for w in range(W):
                    cur[w] = tmp[w]
                head[size] = a
                size += 1
                absorbed[a] = 1
            # else: adding ``a`` lowers the value - pruned
        if size > n_head:
            n_head = size
            for q in range(size):
                I[HEAD_LABELS, q] = head[q]
    return best_count / n_S, n_head, evals


@njit(cache=True, nogil=True)
def _decomposable_best(heuristic, beta2, N1, N0, row, I, F, n_elig, best_single):
    """A decomposable heuristic's head: all labels with the best single-label value (value, head size,
    evaluations); the head's labels in ``I[HEAD_LABELS]``."""
    n_head = 0
    tp = fp = fn = tn = 0.0
    for e in range(n_elig):
        l = I[_ELIG, e]
        if F[l] >= best_single - TOL:
            I[HEAD_LABELS, n_head] = l
            n_head += 1
            a, b, d, f = _confusion(I[_VALS, l], N1[row, l], N0[row, l], N1[TOTAL, l], N0[TOTAL, l])
            tp += a
            fp += b
            fn += d
            tn += f
    if n_head > 1:
        return micro_value(heuristic, beta2, tp, fp, fn, tn), n_head, 1
    return best_single, n_head, 0


@njit(cache=True, nogil=True)
def head_search_into(heuristic, beta2, exhaustive, N1, N0, row, n_S, G1, G0, B, side, comp, I, F):
    """Best head for a body covering ``n_S`` examples with countable covered counts ``N1[row]`` /
    ``N0[row]`` (totals ``N1[TOTAL]`` / ``N0[TOTAL]``).

    ``B[side]`` (or, with ``comp``, ``B[VALID]`` minus ``B[side]``) is the covered set as a bitset;
    only subset accuracy uses it.  Writes the head's labels (ascending) and values (1 present, 0
    absent) to ``I[HEAD_LABELS]`` and ``I[HEAD_VALUES]`` and returns (heuristic value, head size,
    covered countable pairs of the head labels, head evaluations); value -1 and size 0 when no label
    is eligible.  ``I`` (5 x K int64) and ``F`` (K: single-label values) are scratch space: the sweeps call this at
    every threshold."""
    n_elig, evals, best_single, best_count = _label_values(heuristic, beta2, N1, N0, row, n_S, I, F)
    if n_elig == 0:
        return -1.0, 0, 0, evals
    if exhaustive:
        value, n_head, more = _exhaustive_head(heuristic, beta2, N1, N0, row, n_S, G1, G0, B, side, comp, I, n_elig)
    elif heuristic == H_SUBSET:
        value, n_head, more = _subset_head(n_elig, best_count, n_S, G1, G0, B, side, comp, I)
    else:
        value, n_head, more = _decomposable_best(heuristic, beta2, N1, N0, row, I, F, n_elig, best_single)
    pairs = 0
    for q in range(n_head):
        l = I[HEAD_LABELS, q]
        I[HEAD_VALUES, q] = I[_VALS, l]
        pairs += N1[row, l] + N0[row, l]
    return value, n_head, pairs, evals + more


@njit(cache=True, nogil=True)
def _add_example(i, C1, C0, a1, a0):
    for k in range(a1.shape[0]):
        a1[k] += C1[i, k]
        a0[k] += C0[i, k]


@njit(cache=True, nogil=True)
def _better(v, p, best_v, best_p):
    """Whether value ``v`` with ``p`` covered pairs beats the best so far (ties: more pairs)."""
    return v > best_v + TOL or (v >= best_v - TOL and p > best_p)


@njit(cache=True, nogil=True)
def _score_split(ctx, N1, N0, side, n_a, a_op, c_op, n_V):
    """Best of the two conditions splitting the valid covered examples (``N1[VALID]``, ``N0[VALID]``)
    into ``side`` (``n_a`` examples, operator ``a_op``) and the rest (``c_op``); ``ctx``: the walk's (below).
    Returns (value, pairs, operator, evaluations); operator -1 if neither side qualifies."""
    B, G1, G0, I, F, n_T, heuristic, beta2, exhaustive, min_coverage, _ = ctx
    best_v = -1.0
    best_p = np.int64(-1)
    best_op = np.int64(-1)
    evals = np.int64(0)
    if min_coverage <= n_a < n_T:
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, N1, N0, side, n_a, G1, G0, B, side,
                                       np.int64(0), I, F)
        evals += e
        if nh > 0:
            best_v, best_p, best_op = v, p, a_op
    n_c = n_V - n_a
    if min_coverage <= n_c < n_T:
        for k in range(N1.shape[1]):
            N1[REST, k] = N1[VALID, k] - N1[side, k]
            N0[REST, k] = N0[VALID, k] - N0[side, k]
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, N1, N0, np.int64(REST), n_c, G1, G0, B, side,
                                       np.int64(1), I, F)
        evals += e
        if nh > 0 and (best_op < 0 or _better(v, p, best_v, best_p)):
            best_v, best_p, best_op = v, p, c_op
    return best_v, best_p, best_op, evals


# -- the count matrices' updates, the hooks of both walks below share them
@njit(cache=True, nogil=True, inline="always")
def _drop_counts(ctx, C1, C0, N1, N0, i, w):
    for k in range(N1.shape[1]):
        N1[VALID, k] -= C1[i, k]
        N0[VALID, k] -= C0[i, k]


@njit(cache=True, nogil=True, inline="always")
def _reset_counts(ctx, N1, N0, side):
    for k in range(N1.shape[1]):
        N1[side, k] = 0
        N0[side, k] = 0


@njit(cache=True, nogil=True, inline="always")
def _add_counts(ctx, C1, C0, N1, N0, side, i, w):
    for k in range(N1.shape[1]):
        N1[side, k] += C1[i, k]
        N0[side, k] += C0[i, k]


@njit(cache=True, nogil=True, inline="always")
def _merge_counts(ctx, N1, N0):
    for k in range(N1.shape[1]):
        N1[SIDE1, k] += N1[SIDE0, k]
        N0[SIDE1, k] += N0[SIDE0, k]


# -- the walk's hooks (engine.core.sweep): S1 = C1, S2 = C0 (N x K); A1 = N1, A0 = N0 (the count matrices,
#    rows SIDE0 .. TOTAL); ctx = (B, G1, G0, I, F, n_T, heuristic, beta2, exhaustive, min_coverage, use_bits);
#    best = (value, threshold, pairs, operator, head evaluations).
@njit(cache=True, nogil=True, inline="always")
def _drop(ctx, C1, C0, N1, N0, i, w):
    _drop_counts(ctx, C1, C0, N1, N0, i, w)
    B = ctx[0]
    B[VALID, i >> 6] &= ~(_ONE << np.uint64(i & 63))


@njit(cache=True, nogil=True, inline="always")
def _reset(ctx, N1, N0, side):
    _reset_counts(ctx, N1, N0, side)
    if ctx[10]:
        B = ctx[0]
        for q in range(B.shape[1]):
            B[side, q] = 0


@njit(cache=True, nogil=True, inline="always")
def _add(ctx, C1, C0, N1, N0, side, i, w):
    _add_counts(ctx, C1, C0, N1, N0, side, i, w)
    if ctx[10]:
        B = ctx[0]
        B[side, i >> 6] |= _ONE << np.uint64(i & 63)


@njit(cache=True, nogil=True, inline="always")
def _merge(ctx, N1, N0):
    _merge_counts(ctx, N1, N0)
    if ctx[10]:
        B = ctx[0]
        for q in range(B.shape[1]):
            B[SIDE1, q] |= B[SIDE0, q]


@njit(cache=True, nogil=True, inline="always")
def _consider(ctx, N1, N0, side, count, n_valid, op_side, op_rest, threshold, best):
    best_v, best_thr, best_p, best_op, evals = best
    if count == 0:
        return best
    val, p, op, e = _score_split(ctx, N1, N0, np.int64(side), np.int64(count), np.int64(op_side), np.int64(op_rest),
                                 np.int64(n_valid))
    if op >= 0 and (best_op < 0 or _better(val, p, best_v, best_p)):
        return val, threshold, p, op, evals + e
    return best_v, best_thr, best_p, best_op, evals + e


_walk = specialise("_walk_seco", compact=True, _drop=_drop, _reset=_reset, _add=_add, _merge=_merge,
                   _consider=_consider)


# -- the decomposable heuristics' walk (precision, Hamming accuracy, recall, F-measure): their best head
#    needs only the counts (module doc), so these hooks take no array from ctx (no reference counting per
#    threshold) and keep no bitsets; ctx = (n_T, heuristic, beta2, min_coverage).
@njit(cache=True, nogil=True, inline="always")
def _covered(N1, N0, row, comp, l):
    """Label ``l``'s covered counts in row ``row`` of the count matrices or, with ``comp``, the valid
    examples' counts minus them."""
    if comp:
        return N1[VALID, l] - N1[row, l], N0[VALID, l] - N0[row, l]
    return N1[row, l], N0[row, l]


@njit(cache=True, nogil=True, inline="always")
def _decomposable_head(heuristic, beta2, N1, N0, side, comp):
    """:func:`head_search_into` for a decomposable heuristic, in one pass without scratch space: the
    labels tied (within ``TOL``) with the best single-label value so far are summed as they come.
    The covered counts are ``N1[side]``, ``N0[side]`` or, with ``comp``, the valid examples' counts
    minus them.  Returns (value, head size, covered pairs of the head labels, head evaluations)."""
    best_single = -1.0
    n_head = np.int64(0)
    pairs = np.int64(0)
    evals = np.int64(0)
    tp = fp = fn = tn = 0.0
    for l in range(N1.shape[1]):
        c1, c0 = _covered(N1, N0, side, comp, l)
        if c1 + c0 == 0:
            continue
        evals += 2
        u1 = N1[TOTAL, l]
        u0 = N0[TOTAL, l]
        a = micro_value(heuristic, beta2, np.float64(c1), np.float64(c0), np.float64(u1 - c1), np.float64(u0 - c0))
        b = micro_value(heuristic, beta2, np.float64(c0), np.float64(c1), np.float64(u0 - c0), np.float64(u1 - c1))
        f = a if a > b else b
        if f > best_single + TOL:
            best_single = f
            n_head = 0
            pairs = 0
            tp = fp = fn = tn = 0.0
        elif f < best_single - TOL:
            continue
        elif f > best_single:
            best_single = f
        n_head += 1
        pairs += c1 + c0
        if a > b:
            tp += c1
            fp += c0
            fn += u1 - c1
            tn += u0 - c0
        else:
            tp += c0
            fp += c1
            fn += u0 - c0
            tn += u1 - c1
    if n_head > 1:
        return micro_value(heuristic, beta2, tp, fp, fn, tn), n_head, pairs, evals + 1
    return best_single, n_head, pairs, evals


@njit(cache=True, nogil=True, inline="always")
def _consider_decomposable(ctx, N1, N0, side, count, n_valid, op_side, op_rest, threshold, best):
    """:func:`_score_split` and :func:`_consider` for a decomposable heuristic: the condition reaching
    ``side`` and then the one reaching the rest are each compared with the best so far; the rest's
    counts are taken as the valid examples' minus the side's where they are read."""
    best_v, best_thr, best_p, best_op, evals = best
    if count == 0:
        return best
    n_T, heuristic, beta2, min_coverage = ctx
    if min_coverage <= count < n_T:
        v, nh, p, e = _decomposable_head(heuristic, beta2, N1, N0, side, False)
        evals += e
        if nh > 0 and (best_op < 0 or _better(v, p, best_v, best_p)):
            best_v, best_thr, best_p, best_op = v, threshold, p, op_side
    n_c = n_valid - count
    if min_coverage <= n_c < n_T:
        v, nh, p, e = _decomposable_head(heuristic, beta2, N1, N0, side, True)
        evals += e
        if nh > 0 and (best_op < 0 or _better(v, p, best_v, best_p)):
            best_v, best_thr, best_p, best_op = v, threshold, p, op_rest
    return best_v, best_thr, best_p, best_op, evals


_walk_decomposable = specialise("_walk_seco_decomposable", compact=True, _drop=_drop_counts, _reset=_reset_counts,
                                _add=_add_counts, _merge=_merge_counts, _consider=_consider_decomposable)


@njit(cache=True, nogil=True)
def sweep_attribute(j, index, cov, cov_bits, n_T, pairs, G, settings, cancel):
    """Best condition on attribute ``j`` of ``index`` (:class:`Walked`) for the covered examples ``cov``
    (``cov_bits`` as a bitset; ``pairs``: :class:`Pairs`; ``G``: (G1, G0); ``settings``: (heuristic, beta2,
    exhaustive, min_coverage)): returns (value, pairs, operator, threshold, head evaluations); operator -1 if
    none qualifies or ``cancel[0]`` was set.  The covered entries are compacted into ``cache`` (``seg``: see
    :mod:`engine.core.sweep`), so a rule's later conditions visit only them; clear ``seg[:, 0]`` when a rule
    starts."""
    heuristic, beta2, exhaustive, min_coverage = settings
    K = pairs.C1.shape[1]
    W = cov_bits.shape[0]
    N1, N0 = count_matrices(np.int64(VALID), pairs.T1, pairs.T0, pairs.U1, pairs.U0)
    B = np.zeros((3, W), dtype=np.uint64)
    for w in range(W):
        B[VALID, w] = cov_bits[w]
    ctx = (B, G[0], G[1], np.empty((5, K), dtype=np.int64), np.empty(K), n_T, heuristic, beta2, exhaustive,
           min_coverage, heuristic == H_SUBSET)
    ok, (value, threshold, n_pairs, op, evals) = _walk(
        j, index.ptr, index.rows, index.values, index.keys, index.cache, index.seg, index.miss_ptr, index.miss_rows,
        index.nominal, cov, n_T, pairs.C1, pairs.C0, N1, N0, ctx, (-1.0, 0.0, np.int64(-1), np.int64(-1),
                                                                   np.int64(0)), cancel)
    return value, n_pairs, op if ok else -1, threshold, evals


@njit(cache=True, nogil=True)
def _put(out, j, found):
    """Attribute ``j``'s best condition ``found`` (value, pairs, operator, threshold, head evaluations) into
    the output arrays ``out``."""
    out[0][j] = found[0]
    out[1][j] = found[1]
    out[2][j] = found[2]
    out[3][j] = found[3]
    out[4][j] = found[4]


@njit(cache=True, nogil=True, parallel=True)
def best_conditions(n_features, index, cov, cov_bits, n_T, pairs, G, settings, out, cancel):
    """:func:`sweep_attribute` for every attribute, in parallel, into ``out``: (value, pairs, operator,
    threshold, head evaluations) per attribute."""
    for jj in prange(n_features):
        j = np.int64(jj)  # the parallel loop's index is unsigned: typed once, the sweep is compiled once
        _put(out, j, sweep_attribute(j, index, cov, cov_bits, n_T, pairs, G, settings, cancel))


@njit(cache=True, nogil=True)
def covered_counts(cov, C1, C0, T1, T0):
    """Countable pair counts of the covered examples; returns the number of covered examples."""
    K = C1.shape[1]
    for k in range(K):
        T1[k] = 0
        T0[k] = 0
    n = 0
    for i in range(cov.shape[0]):
        if cov[i]:
            _add_example(i, C1, C0, T1, T0)
            n += 1
    return n


@njit(cache=True, nogil=True)
def sweep_attribute_decomposable(j, index, cov, n_T, pairs, settings, cancel):
    """:func:`sweep_attribute` for a decomposable heuristic (no bitsets)."""
    heuristic, beta2, _, min_coverage = settings
    N1, N0 = count_matrices(np.int64(VALID), pairs.T1, pairs.T0, pairs.U1, pairs.U0)
    ok, (value, threshold, n_pairs, op, evals) = _walk_decomposable(
        j, index.ptr, index.rows, index.values, index.keys, index.cache, index.seg, index.miss_ptr, index.miss_rows,
        index.nominal, cov, n_T, pairs.C1, pairs.C0, N1, N0, (n_T, heuristic, beta2, min_coverage),
        (-1.0, 0.0, np.int64(-1), np.int64(-1), np.int64(0)), cancel)
    return value, n_pairs, op if ok else -1, threshold, evals


@njit(cache=True, nogil=True, parallel=True)
def best_conditions_decomposable(n_features, index, cov, n_T, pairs, settings, out, cancel):
    """:func:`sweep_attribute_decomposable` for every attribute, in parallel (``out``: as
    :func:`best_conditions`')."""
    for jj in prange(n_features):
        j = np.int64(jj)  # see best_conditions
        _put(out, j, sweep_attribute_decomposable(j, index, cov, n_T, pairs, settings, cancel))


# ================================================================================================
# mlrl-seco 0.15.6's rule search (engine.seco's default ``search='mlrl-seco'``).
#
# Statistics: per label the majority value m_l over the training examples (relevant if present in more
# than half of them); a rule's head predicts the minority value 1 - m_l for each of its labels.  A pair
# (example, label) is *uncovered* while no rule has predicted its label for the example; only uncovered
# pairs are counted.  For label l and the examples covered by a body, with weights w_i (instance
# sampling), ``c1``/``c0`` are the weighted uncovered pairs with the label present/absent among the
# covered examples and ``u1``/``u0`` the same among all examples of the sample.  The label's confusion
# matrix (c = covered, u = uncovered by the body; i/r = irrelevant/relevant; n/p = the rule predicts
# absent/present) is, for m_l = 0 (the rule predicts present): crp = c1, cip = c0, urp = u1 - c1,
# uip = u0 - c0; for m_l = 1: crn = c1, cin = c0, urn = u1 - c1, uin = u0 - c0; the rest 0.  Heuristics
# (:func:`mlrl_heuristic`, higher is better) are computed in float32 as the reference computes them.
# ================================================================================================
MH_ACCURACY, MH_PRECISION, MH_RECALL, MH_LAPLACE, MH_WRA, MH_F_MEASURE, MH_M_ESTIMATE = 0, 1, 2, 3, 4, 5, 6
HEAD_SINGLE_MODE, HEAD_PARTIAL_SEARCH, HEAD_PARTIAL_ALL = 0, 1, 2
# how heads are evaluated and chosen: the heuristic (MH_*) and its parameter (float32: the F-measure's beta,
# the m-estimate's m), the head mode (HEAD_*), the lift per head size and its bound (float32, K + 1)
Heuristic = namedtuple("Heuristic", "h p mode lift max_lift")
# the feature index a sweep walks (engine.core.sweep: ``keys`` the values it sorts by, ``cache``/``seg`` the
# covered entries it compacts) and the columns of mlrl-seco's own numeric search (covered_order)
Walked = namedtuple("Walked", "ptr rows values keys cache seg miss_ptr miss_rows nominal")
Columns = namedtuple("Columns", "ptr rows values miss_ptr miss_rows")
# countable or uncovered pairs per example with the label present / absent (N x K), their sums over the
# covered examples and over the training set
Pairs = namedtuple("Pairs", "C1 C0 T1 T0 U1 U0")
_F0 = np.float32(0.0)
_F1 = np.float32(1.0)
_F2 = np.float32(2.0)


@njit(cache=True, nogil=True)
def _div0(a, b):
    """a / b, or 0 where the result is not finite (the reference's divideOrZero)."""
    if b == 0:
        return _F0
    r = a / b
    return r if np.isfinite(r) else _F0


@njit(cache=True, nogil=True)
def _precision(cin, cip, crn, crp):
    correct = cin + crp
    return _div0(correct, correct + cip + crn)


@njit(cache=True, nogil=True)
def _recall(cin, crp, uin, urp):
    equal = cin + crp
    return _div0(equal, equal + uin + urp)


@njit(cache=True, nogil=True)
def _wra(cin, cip, crn, crp, uin, uip, urn, urp):
    covered_equal = cin + crp
    uncovered_equal = uin + urp
    equal = uncovered_equal + covered_equal
    covered = covered_equal + cip + crn
    uncovered = uncovered_equal + uip + urn
    total = covered + uncovered
    if covered > 0 and total > 0:
        return (covered / total) * ((covered_equal / covered) - (equal / total))
    return _F0


@njit(cache=True, nogil=True)
def mlrl_heuristic(h, p, cin, cip, crn, crp, uin, uip, urn, urp):
    """mlrl-seco's heuristics on one confusion matrix (float32 arguments; ``p`` is the F-measure's beta
    or the m-estimate's m)."""
    if h == MH_ACCURACY:
        correct = cin + crp + uin + urp  # mlrl-seco 0.15.6 (its 'Fix accuracy heuristic')
        return _div0(correct, correct + cip + crn + urn + uip)
    if h == MH_PRECISION:
        return _precision(cin, cip, crn, crp)
    if h == MH_RECALL:
        return _recall(cin, crp, uin, urp)
    if h == MH_LAPLACE:
        correct = cin + crp
        return (correct + _F1) / (correct + cip + crn + _F2)
    if h == MH_WRA:
        return _wra(cin, cip, crn, crp, uin, uip, urn, urp)
    if h == MH_F_MEASURE:
        if np.isinf(p):
            return _recall(cin, crp, uin, urp)
        if p > 0:
            b2 = p * p
            num = (_F1 + b2) * (cin + crp)
            return _div0(num, num + b2 * (uin + urp) + (cip + crn))
        return _precision(cin, cip, crn, crp)
    # m-estimate
    if np.isinf(p):
        return _wra(cin, cip, crn, crp, uin, uip, urn, urp)
    if p > 0:
        covered_equal = cin + crp
        covered = covered_equal + cip + crn
        uncovered_equal = uin + urp
        equal = covered_equal + uncovered_equal
        total = covered + uncovered_equal + uip + urn
        if total > 0:
            return (covered_equal + p * (equal / total)) / (covered + p)
        return _F0
    return _precision(cin, cip, crn, crp)


@njit(cache=True, nogil=True)
def label_quality(h, p, majority, c1, c0, u1, u0):
    """The heuristic of a head predicting the minority value of a label (module section above)."""
    a1 = np.float32(c1)
    a0 = np.float32(c0)
    r1 = np.float32(u1 - c1)
    r0 = np.float32(u0 - c0)
    if majority == 0:  # predicts present: (cin, cip, crn, crp, uin, uip, urn, urp)
        return mlrl_heuristic(h, p, _F0, a0, _F0, a1, _F0, r0, _F0, r1)
    return mlrl_heuristic(h, p, a0, _F0, a1, _F0, r0, _F0, r1, _F0)


@njit(cache=True, nogil=True)
def select_head(mode, qbuf, n, lift, max_lift, order):
    """mlrl-seco's head from the qualities ``qbuf[:n]`` of the candidate labels: (quality, size), the head's
    candidate positions in ``order[:size]``.

    ``mode`` HEAD_SINGLE_MODE: the candidate of the best quality (the first on ties); HEAD_PARTIAL_SEARCH:
    candidates sorted by quality (descending, stable), the prefix of n labels whose mean quality times
    ``lift[n]`` is best, the scan stopping once a prefix's lifted quality times ``max_lift[best n]`` falls
    below the best (the reference's bound); HEAD_PARTIAL_ALL: every candidate (a head fixed by an earlier
    condition, or sampled labels), mean quality times ``lift[n]``."""
    if mode == HEAD_SINGLE_MODE:
        best = 0
        for e in range(1, n):
            if qbuf[e] > qbuf[best]:
                best = e
        order[0] = best
        return qbuf[best], 1
    if mode == HEAD_PARTIAL_ALL:
        total = _F0
        for e in range(n):
            total += qbuf[e]
            order[e] = e
        return (total / np.float32(n)) * lift[n], n
    # partial search: insertion sort of the candidates by quality, descending, stable
    for e in range(n):
        order[e] = e
    for a in range(1, n):
        x = order[a]
        b = a - 1
        while b >= 0 and qbuf[order[b]] < qbuf[x]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x
    total = qbuf[order[0]]
    best_q = (total / _F1) * lift[1]
    best_n = 1
    bound = max_lift[1]
    for e in range(1, n):
        size = e + 1
        total += qbuf[order[e]]
        q = (total / np.float32(size)) * lift[size]
        if q > best_q:
            best_q = q
            best_n = size
            if best_n < n:
                bound = max_lift[best_n]
        if q * bound < best_q:
            break
    return best_q, best_n


@njit(cache=True, nogil=True)
def mlrl_head(heu, majority, cand, n_cand, N1, N0, row, comp, qbuf, order, out_labels):
    """The head of a body whose covered counts are ``N1[row]``/``N0[row]`` (or, with ``comp``, the
    ``VALID`` row minus them), the sample's totals in row ``TOTAL``; candidate labels ``cand[:n_cand]``,
    heads chosen as :func:`select_head` does (``heu``: :class:`Heuristic`).  Returns (quality, head size);
    the labels (ascending for HEAD_PARTIAL_SEARCH's prefix: sorted by the caller) go to ``out_labels``."""
    for e in range(n_cand):
        l = cand[e]
        c1, c0 = _covered(N1, N0, row, comp, l)
        qbuf[e] = label_quality(heu.h, heu.p, majority[l], c1, c0, N1[TOTAL, l], N0[TOTAL, l])
    q, size = select_head(heu.mode, qbuf, n_cand, heu.lift, heu.max_lift, order)
    for e in range(size):
        out_labels[e] = cand[order[e]]
    return q, size


# -- the walk's hooks for mlrl-seco: S1 = C1, S2 = C0 (uncovered pairs, label present/absent; N x K
#    uint8); A1 = N1, A0 = N0 (float64, rows SIDE0 .. TOTAL, weighted counts); ctx = (n_T, min_coverage,
#    h, p, mode, majority, cand, n_cand, lift, max_lift, qbuf, order, labels, skip_lo, skip_hi);
#    best = (quality, threshold, operator, covered count).
@njit(cache=True, nogil=True, inline="always")
def _drop_w(ctx, C1, C0, N1, N0, i, w):
    for k in range(N1.shape[1]):
        N1[VALID, k] -= w * C1[i, k]
        N0[VALID, k] -= w * C0[i, k]


@njit(cache=True, nogil=True, inline="always")
def _add_w(ctx, C1, C0, N1, N0, side, i, w):
    for k in range(N1.shape[1]):
        N1[side, k] += w * C1[i, k]
        N0[side, k] += w * C0[i, k]


@njit(cache=True, nogil=True, inline="always")
def _consider_mlrl(ctx, N1, N0, side, count, n_valid, op_side, op_rest, threshold, best):
    """The condition reaching ``side`` and the one reaching the rest, each offered if it covers at least
    ``min_coverage`` and fewer than all ``n_T`` examples, and kept if strictly better (the zero block of
    a nominal attribute offers the rest, '== 0', first)."""
    best_q, best_thr, best_op, best_cnt = best
    if count == 0:
        return best
    n_T, min_coverage, heads, qbuf, order, labels, skip_lo, skip_hi = ctx
    if op_side == 1 and skip_lo < threshold < skip_hi:  # OP_GT: the reference's descending pass stops early
        return best
    n_c = n_valid - count
    ok_x = count >= min_coverage and count < n_T
    ok_r = n_c > 0 and n_c >= min_coverage and n_c < n_T
    qx = np.float32(-np.inf)
    qr = np.float32(-np.inf)
    heu, majority, cand, n_cand = heads
    if ok_x:
        qx, _ = mlrl_head(heu, majority, cand, n_cand, N1, N0, np.int64(side), np.bool_(False), qbuf, order, labels)
    if ok_r:
        qr, _ = mlrl_head(heu, majority, cand, n_cand, N1, N0, np.int64(side), np.bool_(True), qbuf, order, labels)
    rest_first = op_side == 3  # OP_NEQ
    if rest_first and ok_r and (best_op < 0 or qr > best_q):
        best_q, best_thr, best_op, best_cnt = qr, threshold, op_rest, n_c
    if ok_x and (best_op < 0 or qx > best_q):
        best_q, best_thr, best_op, best_cnt = qx, threshold, op_side, count
    if not rest_first and ok_r and (best_op < 0 or qr > best_q):
        best_q, best_thr, best_op, best_cnt = qr, threshold, op_rest, n_c
    return best_q, best_thr, best_op, best_cnt


_walk_mlrl = specialise("_walk_seco_mlrl", compact=True, _drop=_drop_w, _reset=_reset_counts, _add=_add_w,
                        _merge=_merge_counts, _consider=_consider_mlrl)


@njit(cache=True, nogil=True)
def _skipped(j, index, cw, n_T):
    """The threshold the reference never offers on numeric attribute ``j`` when every covered value (weights
    ``cw``) is positive: (lo, hi), the two smallest covered values, else (inf, -inf)."""
    ptr, rows, values = index.ptr, index.rows, index.values
    if index.nominal[j]:
        return np.inf, -np.inf
    v0, v1 = np.inf, np.inf
    n_pos = 0
    for idx in range(ptr[j], ptr[j + 1]):
        i = rows[idx]
        if cw[i] > 0:
            v = values[idx]
            if v <= 0.0:
                n_pos = -1
                break
            n_pos += 1
            if v < v0:
                v1 = v0
                v0 = v
            elif v0 < v < v1:
                v1 = v
    n_miss = 0
    for r in range(index.miss_ptr[j], index.miss_ptr[j + 1]):
        if cw[index.miss_rows[r]] > 0:
            n_miss += 1
    if n_pos > 0 and n_pos + n_miss == n_T and v1 < np.inf:
        return v0, v1
    return np.inf, -np.inf


@njit(cache=True, nogil=True)
def mlrl_sweep_attribute(j, index, cw, n_T, pairs, min_coverage, heads, cancel):
    """Best condition on attribute ``j`` of ``index`` (:class:`Walked`) for the covered examples (weights
    ``cw``, 0 outside the body or the sample; ``pairs``: :class:`Pairs`; ``heads``: (:class:`Heuristic`,
    majority, candidate labels, their number)): (quality, operator, threshold, covered count); operator -1
    if none qualifies or ``cancel[0]`` was set.  As the reference, a numeric attribute whose covered values
    are all positive never offers the threshold between its two smallest covered values (mlrl's descending
    pass stops one entry early)."""
    skip_lo, skip_hi = _skipped(j, index, cw, n_T)
    C1, C0 = pairs.C1, pairs.C0
    K = C1.shape[1]
    N1 = np.zeros((N_ROWS, K))
    N0 = np.zeros((N_ROWS, K))
    for k in range(K):
        N1[VALID, k] = pairs.T1[k]
        N0[VALID, k] = pairs.T0[k]
        N1[TOTAL, k] = pairs.U1[k]
        N0[TOTAL, k] = pairs.U0[k]
    ctx = (n_T, min_coverage, heads, np.empty(K, np.float32), np.empty(K, np.int64), np.empty(K, np.int64), skip_lo,
           skip_hi)
    ok, (q, thr, op, cnt) = _walk_mlrl(j, index.ptr, index.rows, index.values, index.keys, index.cache, index.seg,
                                       index.miss_ptr, index.miss_rows, index.nominal, cw, n_T, C1, C0, N1, N0, ctx,
                                       (np.float32(-np.inf), 0.0, np.int64(-1), np.int64(0)), cancel)
    return q, (op if ok else -1), thr, cnt


@njit(cache=True, nogil=True, parallel=True)
def mlrl_best_conditions(features, index, cw, n_T, pairs, min_coverage, heads, out, cancel):
    """:func:`mlrl_sweep_attribute` for the attributes ``features``, in parallel, into ``out`` (quality,
    operator, threshold, covered count per attribute)."""
    # A parallel loop takes records of arrays (index, pairs, out), not one that mixes arrays and numbers:
    # ``heads`` crosses it apart, by name (Numba 0.68 unpacking a tuple before the loop, ``a, b = t``, gives
    # the loop copies of its arrays).
    heu = heads[0]
    h = heu.h
    p = heu.p
    mode = heu.mode
    arrays = (heu.lift, heu.max_lift, heads[1], heads[2])
    n_cand = heads[3]
    for c in prange(features.shape[0]):
        heads_c = (Heuristic(h, p, mode, arrays[0], arrays[1]), arrays[2], arrays[3], n_cand)
        q, op, thr, cnt = mlrl_sweep_attribute(features[c], index, cw, n_T, pairs, min_coverage, heads_c, cancel)
        out[0][c] = q
        out[1][c] = op
        out[2][c] = thr
        out[3][c] = cnt


@njit(cache=True, nogil=True)
def mlrl_head_of(heu, majority, cand, n_cand, T1, T0, U1, U0, out_labels):
    """:func:`mlrl_head` for count vectors (covered ``T1``/``T0``, totals ``U1``/``U0``)."""
    K = T1.shape[0]
    N1 = np.zeros((N_ROWS, K))
    N0 = np.zeros((N_ROWS, K))
    for k in range(K):
        N1[SIDE0, k] = T1[k]
        N0[SIDE0, k] = T0[k]
        N1[TOTAL, k] = U1[k]
        N0[TOTAL, k] = U0[k]
    return mlrl_head(heu, majority, cand, n_cand, N1, N0, np.int64(SIDE0), np.bool_(False), np.empty(K, np.float32),
                     np.empty(K, np.int64), out_labels)


# -- mlrl-seco's search of a numeric attribute (the reference's, with its order and quirks) -------
_EPS32 = np.float32(np.finfo(np.float32).eps)


@njit(cache=True, nogil=True)
def _same32(a, b):
    """The reference's float32 equality: |a - b| <= eps x max(1, |a|, |b|)."""
    m = max(np.float32(1.0), max(abs(a), abs(b)))
    return abs(a - b) <= _EPS32 * m


@njit(cache=True, nogil=True)
def _mean32(small, large):
    return small + (large - small) * np.float32(0.5)


@njit(cache=True, nogil=True)
def _copy_covered(rows, values, covered, e, b, negatives, out_rows, out_vals, n):
    """The covered entries from ``e`` up to ``b`` (only while the values are negative if ``negatives``)
    appended to ``out_rows``/``out_vals`` after their ``n`` first: (where it stopped, the new length)."""
    while e < b and (values[e] < 0 or not negatives):
        i = rows[e]
        if covered[i]:
            out_rows[n] = i
            out_vals[n] = values[e]
            n += 1
        e += 1
    return e, n


@njit(cache=True, nogil=True)
def covered_order(j, columns, covered, dense, mark, out_rows, out_vals):
    """The reference's feature vector of attribute ``j`` (``columns``: :class:`Columns`) over the examples
    with ``covered[i]`` (the sample's weight-0 examples included): values ascending, missing values left
    out, zeros explicit when the input is ``dense`` (else implicit, as for sparse input).  Returns (length,
    position of the first value >= 0).  ``mark`` (N, zeros) is scratch space."""
    ptr, rows, values, miss_ptr, miss_rows = columns
    n = np.int64(0)
    a = ptr[j]
    b = ptr[j + 1]
    e, n = _copy_covered(rows, values, covered, a, b, True, out_rows, out_vals, n)
    first = n
    if dense:
        for t in range(a, b):
            mark[rows[t]] = 1
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            mark[miss_rows[r]] = 1
        for i in range(covered.shape[0]):
            if covered[i] and mark[i] == 0:
                out_rows[n] = i
                out_vals[n] = np.float32(0.0)
                n += 1
        for t in range(a, b):
            mark[rows[t]] = 0
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            mark[miss_rows[r]] = 0
    _, n = _copy_covered(rows, values, covered, e, b, False, out_rows, out_vals, n)
    return n, first


@njit(cache=True, nogil=True)
def _add_row(N1, N0, row, C1, C0, i, w):
    for k in range(N1.shape[1]):
        N1[row, k] += w * C1[i, k]
        N0[row, k] += w * C0[i, k]


@njit(cache=True, nogil=True)
def _offer(N1, N0, row, count, op_in, thr, start, end, ctx, best):
    """mlrl_numeric_sweep's two candidates of a threshold: the examples counted in ``N1[row]``/``N0[row]``
    (``count``, operator ``op_in``) and then the rest of the valid ones (the other operator), each kept if
    it covers at least ``min_coverage`` and is strictly better than ``best``; their positions are
    ``[start, end)`` (the rest: the others).  ``ctx``: (n_nz, min_coverage, heads, qbuf, order, labels)."""
    n_nz, min_coverage, heads, qbuf, order, labels = ctx
    heu, majority, cand, n_cand = heads
    if count >= min_coverage:
        q, _ = mlrl_head(heu, majority, cand, n_cand, N1, N0, row, np.bool_(False), qbuf, order, labels)
        if best[1] < 0 or q > best[0]:
            best = (q, op_in, thr, count, start, end, False)
    if n_nz - count >= min_coverage:
        q, _ = mlrl_head(heu, majority, cand, n_cand, N1, N0, row, np.bool_(True), qbuf, order, labels)
        if best[1] < 0 or q > best[0]:
            best = (q, 1 - op_in, thr, n_nz - count, start, end, True)
    return best


@njit(cache=True, nogil=True)
def _first_row(vector, N1, N0, t, stop, step):
    """From ``t`` on by ``step`` (ascending: while the values are negative; descending: down to ``stop``),
    the first entry of positive weight, added to row SIDE0: (its position, 1, its value), or (where the walk
    stopped, 0, 0)."""
    o_rows, o_vals, w, C1, C0 = vector
    n = o_rows.shape[0]
    while (t < n and o_vals[t] < 0) if step > 0 else t >= stop:
        i = o_rows[t]
        if w[i] > 0:
            _add_row(N1, N0, SIDE0, C1, C0, i, w[i])
            return t, np.int64(1), o_vals[t]
        t += step
    return t, np.int64(0), np.float32(0.0)


@njit(cache=True, nogil=True)
def _numeric_pass(step, at, stop, vector, N1, N0, ctx, best):
    """mlrl_numeric_sweep's pass over the negatives (``step`` 1: ascending from ``t``, operator ``<=`` for the
    side) or over the values >= 0 (``step`` -1: descending from ``t`` down to, not including, ``stop``;
    ``>``), row SIDE0 counting the side: both candidates at every change of value.  ``at``: (t, n_cov,
    prev).  Returns (t, n_cov, prev, best)."""
    o_rows, o_vals, w, C1, C0 = vector
    t, n_cov, prev = at
    n = o_rows.shape[0]
    asc = step > 0
    while (t < n and o_vals[t] < 0) if asc else t > stop:
        v = o_vals[t]
        i = o_rows[t]
        if w[i] > 0:
            if not _same32(prev, v):
                if asc:
                    best = _offer(N1, N0, np.int64(SIDE0), n_cov, np.int64(0), _mean32(prev, v), np.int64(0), t, ctx,
                                  best)
                else:
                    best = _offer(N1, N0, np.int64(SIDE0), n_cov, np.int64(1), _mean32(v, prev), t + 1, n, ctx, best)
            _add_row(N1, N0, SIDE0, C1, C0, i, w[i])
            n_cov += 1
        prev = v
        t += step
    return t, n_cov, prev, best


@njit(cache=True, nogil=True)
def _valid_rows(j, columns, covered, w, pairs, N1, N0):
    """The totals (row TOTAL) and the counts of the covered examples with a weight and a value (row VALID;
    implicit zeros of sparse attributes included); returns their number."""
    C1, C0, U1, U0 = pairs
    for k in range(C1.shape[1]):
        N1[TOTAL, k] = U1[k]
        N0[TOTAL, k] = U0[k]
    n_nz = 0
    for i in range(covered.shape[0]):
        if covered[i] and w[i] > 0:
            _add_row(N1, N0, VALID, C1, C0, i, w[i])
            n_nz += 1
    for r in range(columns.miss_ptr[j], columns.miss_ptr[j + 1]):
        i = columns.miss_rows[r]
        if covered[i] and w[i] > 0:
            _add_row(N1, N0, VALID, C1, C0, i, -w[i])
            n_nz -= 1
    return n_nz


@njit(cache=True, nogil=True)
def mlrl_numeric_sweep(j, columns, covered, w, dense, pairs, min_coverage, heads, scratch):
    """Best condition on numeric attribute ``j`` as mlrl's search finds it: (quality, operator, threshold,
    covered count, start, end, inverse); operator -1 if none.  The covered examples are the positions
    ``[start, end)`` of :func:`covered_order`'s vector (``inverse``: the other positions).  ``pairs``: (C1, C0,
    U1, U0) (:class:`Pairs`); ``heads``: (:class:`Heuristic`, majority, candidate labels, their number);
    ``scratch``: (mark, rows, values) of N entries each.

    The reference's order: ascending over the negative values (``<=`` then ``>`` at every change of
    value), then descending over the values >= 0 down to, but not including, the smallest of them (the
    reference's loop stops one entry early: that threshold is never offered), then (sparse input) the
    block of non-zero values against the implicit zeros, then all negatives against the rest with the
    threshold between the largest negative and the last value the descending pass saw.  Thresholds are
    float32 midpoints; a value's predecessor is the previous entry even if its weight is 0; a candidate
    replaces the best only if strictly better.  A vector without entries is not searched."""
    mark, o_rows, o_vals = scratch
    n, _ = covered_order(j, columns, covered, dense, mark, o_rows, o_vals)
    if n == 0:  # no value (a sparse attribute's zeros only): the reference's vector of equal values, not searched
        return np.float32(-np.inf), np.int64(-1), np.float32(0.0), np.int64(0), np.int64(0), np.int64(0), False
    C1 = pairs[0]
    C0 = pairs[1]
    K = C1.shape[1]
    N1 = np.zeros((N_ROWS, K))
    N0 = np.zeros((N_ROWS, K))
    n_nz = np.int64(_valid_rows(j, columns, covered, w, pairs, N1, N0))
    ctx = (n_nz, min_coverage, heads, np.empty(K, np.float32), np.empty(K, np.int64), np.empty(K, np.int64))
    vector = (o_rows[:n], o_vals[:n], w, C1, C0)
    best = (np.float32(-np.inf), np.int64(-1), np.float32(0.0), np.int64(0), np.int64(0), np.int64(0), False)
    # ascending over the negatives
    t, n_cov, prev = _first_row(vector, N1, N0, np.int64(0), np.int64(0), np.int64(1))
    if n_cov > 0:
        t, n_cov, prev, best = _numeric_pass(np.int64(1), (t + 1, n_cov, prev), np.int64(0), vector, N1, N0, ctx,
                                             best)
        for k in range(K):  # the negatives' sums are kept (accumulated) and the side reset
            N1[SIDE1, k] = N1[SIDE0, k]
            N0[SIDE1, k] = N0[SIDE0, k]
            N1[SIDE0, k] = 0.0
            N0[SIDE0, k] = 0.0
    last_neg = prev
    first_ge = t
    n_neg = n_cov
    # descending over the values >= 0
    t, n_cov, found = _first_row(vector, N1, N0, np.int64(n - 1), first_ge, np.int64(-1))
    if n_cov > 0:
        prev = found
    if n_cov > 0 and t > 0:
        t, n_cov, prev, best = _numeric_pass(np.int64(-1), (t - 1, n_cov, prev), first_ge, vector, N1, N0, ctx, best)
    if not dense:  # a sparse attribute: the non-zero values against the implicit zeros
        best = _offer(N1, N0, np.int64(SIDE0), n_cov, np.int64(1), _mean32(np.float32(0.0), prev), first_ge,
                      np.int64(n), ctx, best)
    if n_neg > 0 and n_neg < n_nz:  # the negatives against the rest
        thr = _mean32(last_neg, np.float32(0.0) if not dense else prev)
        best = _offer(N1, N0, np.int64(SIDE1), n_neg, np.int64(0), thr, np.int64(0), first_ge, ctx, best)
    return best


@njit(cache=True, nogil=True)
def mlrl_numeric_conditions(features, columns, covered, w, sparse, pairs, min_coverage, heads, out, cancel):
    """:func:`mlrl_numeric_sweep` for the attributes ``features`` (the tests' exhaustive search), into ``out``:
    (quality, operator, threshold, covered count; start, end, inverse) per attribute (``sparse[j]``: attribute
    ``j`` is sparse as the reference sees it - sparse input with implicit zeros in the training data)."""
    out_q, out_op, out_thr, out_cnt, out_range = out
    N = covered.shape[0]
    scratch = (np.zeros(N, np.uint8), np.empty(N, np.int64), np.empty(N, np.float32))
    for c in range(features.shape[0]):
        if cancel[0] != 0:
            out_op[c] = -1
            continue
        q, op, thr, cnt, s, e, inv = mlrl_numeric_sweep(features[c], columns, covered, w, sparse[features[c]] == 0,
                                                        pairs, min_coverage, heads, scratch)
        out_q[c] = q
        out_op[c] = op
        out_thr[c] = thr
        out_cnt[c] = cnt
        out_range[c, 0] = s
        out_range[c, 1] = e
        out_range[c, 2] = 1 if inv else 0


@njit(cache=True, nogil=True)
def mlrl_apply_range(j, columns, covered, dense, start, end, inverse):
    """Restrict ``covered`` to the positions ``[start, end)`` of attribute ``j``'s vector
    (:func:`covered_order`), or with ``inverse`` drop those positions and the missing values (so the
    implicit zeros of a sparse attribute stay covered) - the reference's coverage of a condition in
    training."""
    N = covered.shape[0]
    mark = np.zeros(N, np.uint8)
    o_rows = np.empty(N, np.int64)
    o_vals = np.empty(N, np.float32)
    covered_order(j, columns, covered, dense, mark, o_rows, o_vals)
    if inverse:
        for t in range(start, end):
            covered[o_rows[t]] = 0
        for r in range(columns.miss_ptr[j], columns.miss_ptr[j + 1]):
            covered[columns.miss_rows[r]] = 0
        return
    for i in range(N):
        covered[i] = 0
    for t in range(start, end):
        covered[o_rows[t]] = 1
