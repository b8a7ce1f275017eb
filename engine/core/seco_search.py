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
    N1[row] = c1
    N0[row] = c0
    N1[TOTAL] = U1
    N0[TOTAL] = U0
    return N1, N0


@njit(cache=True, nogil=True)
def head_search(heuristic, beta2, exhaustive, c1, c0, U1, U0, n_S, G1, G0, P, V, comp, out_labels,
                out_values):
    """:func:`head_search_into` for count vectors (body ``c1``/``c0``, totals ``U1``/``U0``) and
    bitsets (``P``; ``V`` minus ``P`` with ``comp``), with scratch space of its own (for calls
    outside the sweeps); the head is written to ``out_labels``, ``out_values``."""
    K = c1.shape[0]
    N1, N0 = count_matrices(SIDE0, c1, c0, U1, U0)
    B = np.zeros((3, P.shape[0]), dtype=np.uint64)
    B[SIDE0] = P
    B[VALID] = V
    I = np.empty((5, K), dtype=np.int64)
    value, n_head, pairs, evals = head_search_into(heuristic, beta2, exhaustive, N1, N0, SIDE0, n_S, G1, G0, B,
                                                   SIDE0, comp, I, np.empty(K))
    for q in range(n_head):
        out_labels[q] = I[HEAD_LABELS, q]
        out_values[q] = I[HEAD_VALUES, q]
    return value, n_head, pairs, evals


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
    K = N1.shape[1]
    W = G1.shape[1]
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
            tp, fp, fn, tn = _confusion(1, c1, c0, u1, u0)
            a = micro_value(heuristic, beta2, tp, fp, fn, tn)
            tp, fp, fn, tn = _confusion(0, c1, c0, u1, u0)
            b = micro_value(heuristic, beta2, tp, fp, fn, tn)
            if a > b:
                I[_VALS, l] = 1
                F[l] = a
            else:
                F[l] = b
            if F[l] > best_single:
                best_single = F[l]
    if n_elig == 0:
        return -1.0, 0, 0, evals

    n_head = 0
    value = -1.0
    if exhaustive:
        # Every non-empty subset of the eligible labels, in lexicographic preorder.
        pos_stack = np.zeros(n_elig + 1, dtype=np.int64)
        sums = np.zeros((n_elig + 1, 4))
        masks = np.empty((n_elig + 1, W), dtype=np.uint64)
        if heuristic == H_SUBSET:
            _set_words(B, side, comp, masks[0])
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
        value = best_value
    elif heuristic == H_SUBSET:
        # Pruned search (module doc); only labels tied with the best single-label head can occur.
        n_tied = 0
        for e in range(n_elig):
            if I[_COUNTS, I[_ELIG, e]] == best_count:
                n_tied += 1
        if n_tied == 1:
            for e in range(n_elig):
                if I[_COUNTS, I[_ELIG, e]] == best_count:
                    I[HEAD_LABELS, 0] = I[_ELIG, e]
            n_head = 1
        else:
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
        value = best_count / n_S
    else:
        # Decomposable: all labels with the best single-label value.
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
            evals += 1
            value = micro_value(heuristic, beta2, tp, fp, fn, tn)
        else:
            value = best_single
    pairs = 0
    for q in range(n_head):
        l = I[HEAD_LABELS, q]
        I[HEAD_VALUES, q] = I[_VALS, l]
        pairs += N1[row, l] + N0[row, l]
    return value, n_head, pairs, evals


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
def _score_split(N1, N0, side, n_a, a_op, c_op, n_V, n_T, heuristic, beta2, exhaustive, min_coverage, G1, G0, B,
                 I, F):
    """Best of the two conditions splitting the valid covered examples (``N1[VALID]``, ``N0[VALID]``)
    into ``side`` and the rest.  Returns (value, pairs, operator, evaluations); operator -1 if
    neither side qualifies."""
    best_v = -1.0
    best_p = -1
    best_op = -1
    evals = 0
    if min_coverage <= n_a < n_T:
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, N1, N0, side, n_a, G1, G0, B, side, 0, I, F)
        evals += e
        if nh > 0:
            best_v, best_p, best_op = v, p, a_op
    n_c = n_V - n_a
    if min_coverage <= n_c < n_T:
        for k in range(N1.shape[1]):
            N1[REST, k] = N1[VALID, k] - N1[side, k]
            N0[REST, k] = N0[VALID, k] - N0[side, k]
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, N1, N0, REST, n_c, G1, G0, B, side, 1, I, F)
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
    B, G1, G0, I, F, n_T, heuristic, beta2, exhaustive, min_coverage, use_bits = ctx
    val, p, op, e = _score_split(N1, N0, side, count, op_side, op_rest, n_valid, n_T, heuristic, beta2, exhaustive,
                                 min_coverage, G1, G0, B, I, F)
    if op >= 0 and (best_op < 0 or _better(val, p, best_v, best_p)):
        return val, threshold, p, op, evals + e
    return best_v, best_thr, best_p, best_op, evals + e


_walk = specialise("_walk_seco", compact=True, _drop=_drop, _reset=_reset, _add=_add, _merge=_merge,
                   _consider=_consider)


# -- the decomposable heuristics' walk (precision, Hamming accuracy, recall, F-measure): their best head
#    needs only the counts (module doc), so these hooks take no array from ctx (no reference counting per
#    threshold) and keep no bitsets; ctx = (n_T, heuristic, beta2, min_coverage).
@njit(cache=True, nogil=True, inline="always")
def _decomposable_head(heuristic, beta2, N1, N0, side, comp):
    """:func:`head_search_into` for a decomposable heuristic, in one pass without scratch space: the
    labels tied (within ``TOL``) with the best single-label value so far are summed as they come.
    The covered counts are ``N1[side]``, ``N0[side]`` or, with ``comp``, the valid examples' counts
    minus them.  Returns (value, head size, covered pairs of the head labels, head evaluations)."""
    best_single = -1.0
    n_head = 0
    pairs = 0
    evals = 0
    tp = fp = fn = tn = 0.0
    for l in range(N1.shape[1]):
        if comp:
            c1 = N1[VALID, l] - N1[side, l]
            c0 = N0[VALID, l] - N0[side, l]
        else:
            c1 = N1[side, l]
            c0 = N0[side, l]
        if c1 + c0 == 0:
            continue
        evals += 2
        u1 = N1[TOTAL, l]
        u0 = N0[TOTAL, l]
        a = micro_value(heuristic, beta2, c1, c0, u1 - c1, u0 - c0)
        b = micro_value(heuristic, beta2, c0, c1, u0 - c0, u1 - c1)
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
def sweep_attribute(j, ptr, rows, values, cache, seg, miss_ptr, miss_rows, nominal, cov, cov_bits, C1, C0, T1, T0,
                    n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, cancel):
    """Best condition on attribute ``j`` for the covered examples ``cov``: returns
    (value, pairs, operator, threshold, head evaluations); operator -1 if none qualifies or
    ``cancel[0]`` was set.  The covered entries are compacted into ``cache`` (``seg``: see
    :mod:`engine.core.sweep`), so a rule's later conditions visit only them; clear ``seg[:, 0]``
    when a rule starts."""
    K = C1.shape[1]
    W = cov_bits.shape[0]
    N1, N0 = count_matrices(VALID, T1, T0, U1, U0)
    B = np.zeros((3, W), dtype=np.uint64)
    B[VALID] = cov_bits
    ctx = (B, G1, G0, np.empty((5, K), dtype=np.int64), np.empty(K), n_T, heuristic, beta2, exhaustive,
           min_coverage, heuristic == H_SUBSET)
    ok, (value, threshold, pairs, op, evals) = _walk(
        j, ptr, rows, values, values, cache, seg, miss_ptr, miss_rows, nominal, cov, n_T, C1, C0, N1, N0, ctx,
        (-1.0, 0.0, -1, -1, 0), cancel)
    return value, pairs, op if ok else -1, threshold, evals


@njit(cache=True, nogil=True, parallel=True)
def best_conditions(n_features, ptr, rows, values, cache, seg, miss_ptr, miss_rows, nominal, cov, cov_bits, C1, C0,
                    T1, T0, n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, out_v, out_p, out_op,
                    out_thr, out_evals, cancel):
    """:func:`sweep_attribute` for every attribute, in parallel."""
    for jj in prange(n_features):
        j = np.int64(jj)  # the parallel loop's index is unsigned: typed once, the sweep is compiled once
        v, p, op, thr, e = sweep_attribute(j, ptr, rows, values, cache, seg, miss_ptr, miss_rows, nominal, cov,
                                           cov_bits, C1, C0, T1, T0, n_T, U1, U0, G1, G0, heuristic, beta2,
                                           exhaustive, min_coverage, cancel)
        out_v[j] = v
        out_p[j] = p
        out_op[j] = op
        out_thr[j] = thr
        out_evals[j] = e


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
def sweep_attribute_decomposable(j, ptr, rows, values, cache, seg, miss_ptr, miss_rows, nominal, cov, C1, C0, T1,
                                 T0, n_T, U1, U0, heuristic, beta2, min_coverage, cancel):
    """:func:`sweep_attribute` for a decomposable heuristic (no bitsets)."""
    N1, N0 = count_matrices(VALID, T1, T0, U1, U0)
    ok, (value, threshold, pairs, op, evals) = _walk_decomposable(
        j, ptr, rows, values, values, cache, seg, miss_ptr, miss_rows, nominal, cov, n_T, C1, C0, N1, N0,
        (n_T, heuristic, beta2, min_coverage), (-1.0, 0.0, -1, -1, 0), cancel)
    return value, pairs, op if ok else -1, threshold, evals


@njit(cache=True, nogil=True, parallel=True)
def best_conditions_decomposable(n_features, ptr, rows, values, cache, seg, miss_ptr, miss_rows, nominal, cov, C1,
                                 C0, T1, T0, n_T, U1, U0, heuristic, beta2, min_coverage, out_v, out_p, out_op,
                                 out_thr, out_evals, cancel):
    """:func:`sweep_attribute_decomposable` for every attribute, in parallel."""
    for jj in prange(n_features):
        j = np.int64(jj)  # see best_conditions
        v, p, op, thr, e = sweep_attribute_decomposable(j, ptr, rows, values, cache, seg, miss_ptr, miss_rows,
                                                        nominal, cov, C1, C0, T1, T0, n_T, U1, U0, heuristic, beta2,
                                                        min_coverage, cancel)
        out_v[j] = v
        out_p[j] = p
        out_op[j] = op
        out_thr[j] = thr
        out_evals[j] = e
