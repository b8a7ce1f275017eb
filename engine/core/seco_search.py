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
def clear_bit(bits, i):
    bits[i >> 6] &= ~(_ONE << np.uint64(i & 63))


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


@njit(cache=True, nogil=True)
def _confusion(v, c1, c0, u1, u0, out):
    """Add label's TP, FP, FN, TN for head value ``v`` to ``out``."""
    if v == 1:
        out[0] += c1
        out[1] += c0
        out[2] += u1 - c1
        out[3] += u0 - c0
    else:
        out[0] += c0
        out[1] += c1
        out[2] += u0 - c0
        out[3] += u1 - c1


@njit(cache=True, nogil=True)
def _set_words(P, V, comp, out):
    """out = P (comp == 0) or V and not P (comp == 1)."""
    for w in range(out.shape[0]):
        out[w] = (V[w] & ~P[w]) if comp else P[w]


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
def head_search(heuristic, beta2, exhaustive, c1, c0, U1, U0, n_S, G1, G0, P, V, comp, out_labels,
                out_values):
    """:func:`head_search_into` with scratch space of its own (for calls outside the sweeps)."""
    K = c1.shape[0]
    return head_search_into(heuristic, beta2, exhaustive, c1, c0, U1, U0, n_S, G1, G0, P, V, comp, out_labels,
                            out_values, np.empty((3, K), dtype=np.int64), np.empty(K + 4))


@njit(cache=True, nogil=True)
def head_search_into(heuristic, beta2, exhaustive, c1, c0, U1, U0, n_S, G1, G0, P, V, comp, out_labels,
                     out_values, iscratch, fscratch):
    """Best head for a body covering ``n_S`` examples with countable covered counts ``c1``/``c0``.

    ``P``, ``V``, ``comp`` give the covered set as a bitset (``P``, or ``V`` minus ``P``); only
    subset accuracy uses it.  Writes the head's labels (ascending) and values (1 present, 0
    absent) and returns (heuristic value, head size, covered countable pairs of the head labels,
    head evaluations); value -1 and size 0 when no label is eligible.  ``iscratch`` (3 x K int64) and
    ``fscratch`` (K + 4) are scratch space: the sweeps call this at every threshold."""
    K = c1.shape[0]
    W = G1.shape[1]
    elig = iscratch[0]
    vals = iscratch[1]
    counts = iscratch[2]
    single = fscratch[:K]
    conf = fscratch[K:K + 4]
    for l in range(K):
        vals[l] = 0
        counts[l] = 0
        single[l] = 0.0
    n_elig = 0
    evals = 0
    best_single = -1.0
    best_count = 0
    for l in range(K):
        if c1[l] + c0[l] == 0:
            continue
        elig[n_elig] = l
        n_elig += 1
        evals += 2
        if heuristic == H_SUBSET:
            if c1[l] > c0[l]:
                vals[l] = 1
                counts[l] = c1[l]
            else:
                counts[l] = c0[l]
            single[l] = counts[l] / n_S
            if counts[l] > best_count:
                best_count = counts[l]
        else:
            conf[:] = 0.0
            _confusion(1, c1[l], c0[l], U1[l], U0[l], conf)
            a = micro_value(heuristic, beta2, conf[0], conf[1], conf[2], conf[3])
            conf[:] = 0.0
            _confusion(0, c1[l], c0[l], U1[l], U0[l], conf)
            b = micro_value(heuristic, beta2, conf[0], conf[1], conf[2], conf[3])
            if a > b:
                vals[l] = 1
                single[l] = a
            else:
                single[l] = b
            if single[l] > best_single:
                best_single = single[l]
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
            _set_words(P, V, comp, masks[0])
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
            l = elig[pos]
            size = depth + 1
            if size >= 2:
                evals += 1
            better = False
            if heuristic == H_SUBSET:
                G = G1 if vals[l] == 1 else G0
                cnt = _and_count(masks[depth], G, l, masks[depth + 1])
                if cnt > best_cnt or (cnt == best_cnt and size > n_head):
                    better = True
                    best_cnt = cnt
                    best_value = cnt / n_S
            else:
                for q in range(4):
                    sums[depth + 1, q] = sums[depth, q]
                _confusion(vals[l], c1[l], c0[l], U1[l], U0[l], sums[depth + 1])
                v = micro_value(heuristic, beta2, sums[depth + 1, 0], sums[depth + 1, 1], sums[depth + 1, 2],
                                sums[depth + 1, 3])
                if v > best_value + TOL or (v >= best_value - TOL and size > n_head):
                    better = True
                    best_value = v if v > best_value else best_value
            if better:
                n_head = size
                for q in range(size):
                    out_labels[q] = elig[pos_stack[q]]
            depth += 1
            pos_stack[depth] = pos + 1
        value = best_value
    elif heuristic == H_SUBSET:
        # Pruned search (module doc); only labels tied with the best single-label head can occur.
        n_tied = 0
        for e in range(n_elig):
            if counts[elig[e]] == best_count:
                n_tied += 1
        if n_tied == 1:
            for e in range(n_elig):
                if counts[elig[e]] == best_count:
                    out_labels[0] = elig[e]
            n_head = 1
        else:
            S = np.empty(W, dtype=np.uint64)
            _set_words(P, V, comp, S)
            cur = np.empty(W, dtype=np.uint64)
            tmp = np.empty(W, dtype=np.uint64)
            absorbed = np.zeros(K, dtype=np.uint8)
            head = np.empty(K, dtype=np.int64)
            for e in range(n_elig):
                s = elig[e]
                if counts[s] != best_count or absorbed[s]:
                    continue
                G = G1 if vals[s] == 1 else G0
                _and_count(S, G, s, cur)
                size = 1
                head[0] = s
                for f in range(e + 1, n_elig):
                    a = elig[f]
                    if counts[a] != best_count:
                        continue  # bound: any head with this label is worse than the best single
                    evals += 1
                    G = G1 if vals[a] == 1 else G0
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
                        out_labels[q] = head[q]
        value = best_count / n_S
    else:
        # Decomposable: all labels with the best single-label value.
        conf[:] = 0.0
        for e in range(n_elig):
            l = elig[e]
            if single[l] >= best_single - TOL:
                out_labels[n_head] = l
                n_head += 1
                _confusion(vals[l], c1[l], c0[l], U1[l], U0[l], conf)
        if n_head > 1:
            evals += 1
            value = micro_value(heuristic, beta2, conf[0], conf[1], conf[2], conf[3])
        else:
            value = best_single
    pairs = 0
    for q in range(n_head):
        l = out_labels[q]
        out_values[q] = vals[l]
        pairs += c1[l] + c0[l]
    return value, n_head, pairs, evals


@njit(cache=True, nogil=True)
def _add_example(i, C1, C0, a1, a0):
    for k in range(a1.shape[0]):
        a1[k] += C1[i, k]
        a0[k] += C0[i, k]


@njit(cache=True, nogil=True)
def _score_split(a1, a0, n_a, a_bits, a_op, c_op, V1, V0, n_V, V_bits, n_T, heuristic, beta2, exhaustive,
                 min_coverage, U1, U0, G1, G0, t1, t0, labels, values, iscratch, fscratch):
    """Best of the two conditions splitting the valid covered examples into ``a`` and the rest.
    Returns (value, pairs, operator, evaluations); operator -1 if neither side qualifies."""
    best_v = -1.0
    best_p = -1
    best_op = -1
    evals = 0
    if min_coverage <= n_a < n_T:
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, a1, a0, U1, U0, n_a, G1, G0, a_bits,
                                       V_bits, 0, labels, values, iscratch, fscratch)
        evals += e
        if nh > 0:
            best_v, best_p, best_op = v, p, a_op
    n_c = n_V - n_a
    if min_coverage <= n_c < n_T:
        for k in range(a1.shape[0]):
            t1[k] = V1[k] - a1[k]
            t0[k] = V0[k] - a0[k]
        v, nh, p, e = head_search_into(heuristic, beta2, exhaustive, t1, t0, U1, U0, n_c, G1, G0, a_bits,
                                       V_bits, 1, labels, values, iscratch, fscratch)
        evals += e
        if nh > 0 and (best_op < 0 or v > best_v + TOL or (v >= best_v - TOL and p > best_p)):
            best_v, best_p, best_op = v, p, c_op
    return best_v, best_p, best_op, evals


@njit(cache=True, nogil=True)
def _better(v, p, best_v, best_p):
    return v > best_v + TOL or (v >= best_v - TOL and p > best_p)


# -- the walk's hooks (engine.core.sweep): S1 = C1, S2 = C0 (N x K), A1, A0 (2 x K); ctx = (bits (2 x words),
#    V1, V0, V_bits, n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, use_bits, scratch..., best
#    (2: value, threshold), best_i (3: pairs, operator, head evaluations))
@njit(cache=True, nogil=True, inline="always")
def _drop(ctx, C1, C0, A1, A0, i, w):
    V1, V0, V_bits = ctx[1], ctx[2], ctx[3]
    for k in range(V1.shape[0]):
        V1[k] -= C1[i, k]
        V0[k] -= C0[i, k]
    clear_bit(V_bits, i)


@njit(cache=True, nogil=True, inline="always")
def _reset(ctx, A1, A0, side):
    for k in range(A1.shape[1]):
        A1[side, k] = 0
        A0[side, k] = 0
    if ctx[13]:
        bits = ctx[0]
        for q in range(bits.shape[1]):
            bits[side, q] = 0


@njit(cache=True, nogil=True, inline="always")
def _add(ctx, C1, C0, A1, A0, side, i, w):
    for k in range(A1.shape[1]):
        A1[side, k] += C1[i, k]
        A0[side, k] += C0[i, k]
    if ctx[13]:
        set_bit(ctx[0][side], i)


@njit(cache=True, nogil=True, inline="always")
def _merge(ctx, A1, A0):
    for k in range(A1.shape[1]):
        A1[1, k] += A1[0, k]
        A0[1, k] += A0[0, k]
    if ctx[13]:
        bits = ctx[0]
        for q in range(bits.shape[1]):
            bits[1, q] |= bits[0, q]


@njit(cache=True, nogil=True, inline="always")
def _consider(ctx, A1, A0, side, count, n_valid, op_side, op_rest, threshold):
    if count == 0:
        return
    (bits, V1, V0, V_bits, n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage,
     use_bits, t1, t0, labels, vals, iscratch, fscratch, best, best_i) = ctx
    val, p, op, e = _score_split(A1[side], A0[side], count, bits[side], op_side, op_rest, V1, V0, n_valid, V_bits,
                                 n_T, heuristic, beta2, exhaustive, min_coverage, U1, U0, G1, G0, t1, t0, labels,
                                 vals, iscratch, fscratch)
    best_i[2] += e
    if op >= 0 and (best_i[1] < 0 or _better(val, p, best[0], best_i[0])):
        best[0] = val
        best[1] = threshold
        best_i[0] = p
        best_i[1] = op


_walk = specialise("_walk_seco", _drop=_drop, _reset=_reset, _add=_add, _merge=_merge, _consider=_consider)


@njit(cache=True, nogil=True)
def sweep_attribute(j, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, cov_bits, C1, C0, T1, T0, n_T,
                    U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, cancel):
    """Best condition on attribute ``j`` for the covered examples ``cov``: returns
    (value, pairs, operator, threshold, head evaluations); operator -1 if none qualifies or
    ``cancel[0]`` was set."""
    K = C1.shape[1]
    W = cov_bits.shape[0]
    best = np.array([-1.0, 0.0])
    best_i = np.array([-1, -1, 0], dtype=np.int64)
    ctx = (np.zeros((2, W), dtype=np.uint64), T1.copy(), T0.copy(), cov_bits.copy(), n_T, U1, U0, G1, G0, heuristic,
           beta2, exhaustive, min_coverage, heuristic == H_SUBSET, np.empty(K, dtype=np.int64),
           np.empty(K, dtype=np.int64), np.empty(K, dtype=np.int64), np.empty(K, dtype=np.int64),
           np.empty((3, K), dtype=np.int64), np.empty(K + 4), best, best_i)
    no_cache = np.empty(0, dtype=np.int64)
    if not _walk(j, ptr, rows, values, values, no_cache, no_cache.reshape(0, 3), miss_ptr, miss_rows,
                 nominal, cov, n_T, C1, C0, np.zeros((2, K), dtype=np.int64), np.zeros((2, K), dtype=np.int64), ctx,
                 cancel):
        return best[0], best_i[0], -1, best[1], best_i[2]
    return best[0], best_i[0], best_i[1], best[1], best_i[2]


@njit(cache=True, nogil=True, parallel=True)
def best_conditions(n_features, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, cov_bits, C1, C0, T1, T0,
                    n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, out_v, out_p, out_op,
                    out_thr, out_evals, cancel):
    """:func:`sweep_attribute` for every attribute, in parallel."""
    for j in prange(n_features):
        v, p, op, thr, e = sweep_attribute(j, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, cov_bits, C1,
                                           C0, T1, T0, n_T, U1, U0, G1, G0, heuristic, beta2, exhaustive,
                                           min_coverage, cancel)
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
