"""Greedy top-down rule refinement (Rapp et al. 2020, Alg. 2 and 3).

Each refinement step samples attributes (Alg. 3 line 2), sweeps every sampled attribute
once over its pre-sorted covered examples while accumulating weighted gradient and Hessian
sums, and evaluates each threshold (midpoint between adjacent distinct values) in O(K), or
with one K x K Cholesky solve for complete heads of non-decomposable losses.  The best
condition is added while it improves the objective (eq. 14); examples with a missing value
are never covered by a condition on that attribute.

Operator codes: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .heads import head_quality

OP_LEQ, OP_GT, OP_EQ, OP_NEQ = 0, 1, 2, 3


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
    return np.int64(rng_next(state) >> np.uint64(11)) % n


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
    gi = G[i]
    hi = H[i]
    for k in range(acc_g.shape[0]):
        acc_g[k] += w * gi[k]
    for k in range(acc_h.shape[0]):
        acc_h[k] += w * hi[k]


@njit(cache=True, nogil=True)
def _rest(T_g, T_h, M_g, M_h, P_g, P_h, out_g, out_h):
    """out = T - M - P (statistics of the complement among non-missing covered examples)."""
    for k in range(T_g.shape[0]):
        out_g[k] = T_g[k] - M_g[k] - P_g[k]
    for k in range(T_h.shape[0]):
        out_h[k] = T_h[k] - M_h[k] - P_h[k]


@njit(cache=True, nogil=True)
def _sweep_attribute(j, ptr, rows, values, miss_ptr, miss_rows, nominal, cw, G, H,
                     T_g, T_h, T_cnt, full_hessian, single, l2, l1, min_coverage):
    """Best condition on attribute ``j``: returns (quality, operator, threshold, head label)."""
    K = G.shape[1]
    S = H.shape[1]
    M_g = np.zeros(K)
    M_h = np.zeros(S)
    P_g = np.zeros(K)
    P_h = np.zeros(S)
    Q_g = np.zeros(K)
    Q_h = np.zeros(S)
    R_g = np.zeros(K)
    R_h = np.zeros(S)
    chol = np.zeros((K, K))
    z = np.zeros(K)
    best_q = math.inf
    best_op = -1
    best_thr = 0.0
    best_label = -1

    M_cnt = 0
    for r in range(miss_ptr[j], miss_ptr[j + 1]):
        i = miss_rows[r]
        if cw[i] > 0.0:
            _accumulate(i, cw[i], G, H, M_g, M_h)
            M_cnt += 1
    n_valid = T_cnt - M_cnt
    start = ptr[j]
    end = ptr[j + 1]

    if nominal[j]:
        # Groups of equal values; '== v' covers the group, '!= v' the other non-missing examples.
        NZ_cnt = 0
        idx = start
        while idx < end:
            v = values[idx]
            for k in range(K):
                P_g[k] = 0.0
            for k in range(S):
                P_h[k] = 0.0
            cnt = 0
            while idx < end and values[idx] == v:
                i = rows[idx]
                if cw[i] > 0.0:
                    _accumulate(i, cw[i], G, H, P_g, P_h)
                    _accumulate(i, cw[i], G, H, Q_g, Q_h)
                    cnt += 1
                idx += 1
            if cnt == 0:
                continue
            NZ_cnt += cnt
            if min_coverage <= cnt < T_cnt:
                q, lab = head_quality(P_g, P_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_EQ, v, lab
            if min_coverage <= n_valid - cnt < T_cnt and n_valid - cnt > 0:
                _rest(T_g, T_h, M_g, M_h, P_g, P_h, R_g, R_h)
                q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_NEQ, v, lab
        Z_cnt = n_valid - NZ_cnt
        if Z_cnt > 0:
            if min_coverage <= Z_cnt < T_cnt:
                _rest(T_g, T_h, M_g, M_h, Q_g, Q_h, R_g, R_h)
                q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_EQ, 0.0, lab
            if NZ_cnt > 0 and min_coverage <= NZ_cnt < T_cnt:
                q, lab = head_quality(Q_g, Q_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_NEQ, 0.0, lab
        return best_q, best_op, best_thr, best_label

    # Numeric: negatives ascending (prefix sums P), positives descending (suffix sums Q),
    # the implicit zeros in between.
    P_cnt = 0
    prev = 0.0
    idx = start
    while idx < end and values[idx] < 0.0:
        i = rows[idx]
        v = values[idx]
        idx += 1
        if cw[i] <= 0.0:
            continue
        if P_cnt > 0 and v != prev:
            thr = 0.5 * (prev + v)
            if min_coverage <= P_cnt:
                q, lab = head_quality(P_g, P_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_LEQ, thr, lab
            if min_coverage <= n_valid - P_cnt:
                _rest(T_g, T_h, M_g, M_h, P_g, P_h, R_g, R_h)
                q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_GT, thr, lab
        _accumulate(i, cw[i], G, H, P_g, P_h)
        P_cnt += 1
        prev = v
    last_negative = prev
    neg_end = idx

    Q_cnt = 0
    prev = 0.0
    idx = end - 1
    while idx >= neg_end:
        i = rows[idx]
        v = values[idx]
        idx -= 1
        if cw[i] <= 0.0:
            continue
        if Q_cnt > 0 and v != prev:
            thr = 0.5 * (prev + v)
            if min_coverage <= Q_cnt:
                q, lab = head_quality(Q_g, Q_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_GT, thr, lab
            if min_coverage <= n_valid - Q_cnt:
                _rest(T_g, T_h, M_g, M_h, Q_g, Q_h, R_g, R_h)
                q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
                if q < best_q:
                    best_q, best_op, best_thr, best_label = q, OP_LEQ, thr, lab
        _accumulate(i, cw[i], G, H, Q_g, Q_h)
        Q_cnt += 1
        prev = v
    first_positive = prev

    Z_cnt = n_valid - P_cnt - Q_cnt
    # Boundaries next to the zero block (or between negatives and positives without zeros).
    if P_cnt > 0 and (Z_cnt > 0 or Q_cnt > 0):
        thr = 0.5 * last_negative if Z_cnt > 0 else 0.5 * (last_negative + first_positive)
        if min_coverage <= P_cnt:
            q, lab = head_quality(P_g, P_h, full_hessian, single, l2, l1, chol, z)
            if q < best_q:
                best_q, best_op, best_thr, best_label = q, OP_LEQ, thr, lab
        if min_coverage <= n_valid - P_cnt:
            _rest(T_g, T_h, M_g, M_h, P_g, P_h, R_g, R_h)
            q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
            if q < best_q:
                best_q, best_op, best_thr, best_label = q, OP_GT, thr, lab
    if Q_cnt > 0 and Z_cnt > 0:
        thr = 0.5 * first_positive
        if min_coverage <= Q_cnt:
            q, lab = head_quality(Q_g, Q_h, full_hessian, single, l2, l1, chol, z)
            if q < best_q:
                best_q, best_op, best_thr, best_label = q, OP_GT, thr, lab
        if min_coverage <= n_valid - Q_cnt:
            _rest(T_g, T_h, M_g, M_h, Q_g, Q_h, R_g, R_h)
            q, lab = head_quality(R_g, R_h, full_hessian, single, l2, l1, chol, z)
            if q < best_q:
                best_q, best_op, best_thr, best_label = q, OP_LEQ, thr, lab
    return best_q, best_op, best_thr, best_label


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
def _best_conditions(candidates, n_candidates, ptr, rows, values, miss_ptr, miss_rows, nominal, cw,
                     G, H, T_g, T_h, T_cnt, full_hessian, single, l2, l1, min_coverage,
                     out_q, out_op, out_thr, out_label):
    for c in prange(n_candidates):
        q, op, thr, lab = _sweep_attribute(candidates[c], ptr, rows, values, miss_ptr, miss_rows, nominal,
                                           cw, G, H, T_g, T_h, T_cnt, full_hessian, single, l2, l1,
                                           min_coverage)
        out_q[c] = q
        out_op[c] = op
        out_thr[c] = thr
        out_label[c] = lab


@njit(cache=True, nogil=True)
def refine_rule(ptr, rows, values, miss_ptr, miss_rows, nominal, G, H, full_hessian, single,
                weights, l2, l1, n_sampled_features, max_conditions, min_coverage, rng_state, perm,
                covered, out_attr, out_op, out_thr):
    """Alg. 2: grow one rule greedily.  ``covered`` (uint8, all ones on entry) holds the
    final coverage over all training examples.  Returns (number of conditions, quality,
    head label for single heads)."""
    N = G.shape[0]
    K = G.shape[1]
    S = H.shape[1]
    D = perm.shape[0]
    m = D if n_sampled_features <= 0 or n_sampled_features > D else n_sampled_features
    cw = np.zeros(N)
    T_g = np.zeros(K)
    T_h = np.zeros(S)
    cand_q = np.empty(m)
    cand_op = np.empty(m, dtype=np.int64)
    cand_thr = np.empty(m)
    cand_label = np.empty(m, dtype=np.int64)
    current = 0.0  # the empty head's objective; a condition must do better
    label = -1
    n_conditions = 0
    limit = max_conditions if max_conditions > 0 else out_attr.shape[0]
    while n_conditions < limit:
        T_cnt = 0
        T_g[:] = 0.0
        T_h[:] = 0.0
        for i in range(N):
            if covered[i] and weights[i] > 0:
                cw[i] = weights[i]
                _accumulate(i, cw[i], G, H, T_g, T_h)
                T_cnt += 1
            else:
                cw[i] = 0.0
        if T_cnt < 2 or T_cnt <= min_coverage:
            break
        if m < D:
            sample_features(perm, m, rng_state)
        _best_conditions(perm, m, ptr, rows, values, miss_ptr, miss_rows, nominal, cw, G, H, T_g, T_h,
                         T_cnt, full_hessian, single, l2, l1, min_coverage, cand_q, cand_op, cand_thr, cand_label)
        best = -1
        for c in range(m):
            if cand_op[c] >= 0 and (best < 0 or cand_q[c] < cand_q[best]):
                best = c
        if best < 0 or not cand_q[best] < current:
            break
        current = cand_q[best]
        label = cand_label[best]
        j = perm[best]
        out_attr[n_conditions] = j
        out_op[n_conditions] = cand_op[best]
        out_thr[n_conditions] = cand_thr[best]
        apply_condition(j, cand_op[best], cand_thr[best], ptr, rows, values, miss_ptr, miss_rows, covered)
        n_conditions += 1
    return n_conditions, current, label
