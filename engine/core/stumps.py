"""Sweep kernels of AdaBoost.MH's weak learners (Schapire & Singer 1999, sections 3 and 7).

The learner keeps a distribution ``D`` over (example, label) pairs.  A kernel receives
``A = D * y`` (``y`` in {-1, +1}, N x K) and the row sums ``d_i = sum_l D(i, l)``; for any set
``S`` of examples the weighted label sums ``s_l(S) = sum_{i in S} A(i, l)`` decide the best
±1 vote per label (its sign) and its edge ``r(S) = sum_l |s_l(S)|``.

Two kinds of weak hypotheses are scored by the normaliser ``Z`` they reach with their optimal
confidence ``alpha = 1/2 ln(W+ / W-)`` (W+ / W- / W0: weight of the pairs the hypothesis
votes on correctly / wrongly / abstains on), which is ``Z = W0 + 2 sqrt(W+ W-)``:

- a *stump* votes on both sides of a split of the examples with a known value (``x <= t`` vs
  ``x > t``; ``x == v`` vs ``x != v`` for nominal attributes) and abstains on examples whose
  value is missing, so ``Z = W_missing + sqrt(W_valid^2 - (r_left + r_right)^2)``; without
  missing values this is ``sqrt(1 - r^2)`` and minimising it is maximising ``|r|``;
- a *rule* votes on the examples its body covers and abstains elsewhere, so one candidate
  condition restricting the current coverage to ``S`` scores
  ``Z = (W_all - W(S)) + sqrt(W(S)^2 - r(S)^2)``.

Attributes are swept once over the pre-sorted :mod:`engine.core.features` index: negative
values ascending (prefix sums), positive values descending (suffix sums), the implicit zeros in
between as the remainder, so every threshold costs O(K).  Operator codes are those of
:mod:`engine.core.refinement`: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

MODE_STUMP, MODE_RULE = 0, 1
OP_LEQ, OP_GT, OP_EQ, OP_NEQ = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def covered_totals(cov, A, d, S_out):
    """Sums of ``A`` rows and ``d`` over the examples with ``cov[i] != 0``; returns (W, count)."""
    K = A.shape[1]
    for k in range(K):
        S_out[k] = 0.0
    W = 0.0
    n = 0
    for i in range(A.shape[0]):
        if cov[i]:
            for k in range(K):
                S_out[k] += A[i, k]
            W += d[i]
            n += 1
    return W, n


@njit(cache=True, nogil=True)
def _add_row(i, A, d, S):
    for k in range(S.shape[0]):
        S[k] += A[i, k]
    return d[i]


@njit(cache=True, nogil=True)
def _z_rule(S, W, W_all):
    """Z of a hypothesis voting sign(S_l) on a set of weight W and abstaining elsewhere."""
    r = 0.0
    for k in range(S.shape[0]):
        r += abs(S[k])
    q = W * W - r * r
    return (W_all - W) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _z_rule_complement(S_a, W_a, S_V, W_V, W_all):
    """Like :func:`_z_rule` for the set V minus a (sums given as V and a)."""
    r = 0.0
    for k in range(S_a.shape[0]):
        r += abs(S_V[k] - S_a[k])
    W = W_V - W_a
    q = W * W - r * r
    return (W_all - W) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _z_stump(S_a, S_V, W_V, W_all):
    """Z of a stump voting on side a and on V minus a, abstaining outside V."""
    r = 0.0
    for k in range(S_a.shape[0]):
        r += abs(S_a[k]) + abs(S_V[k] - S_a[k])
    q = W_V * W_V - r * r
    return (W_all - W_V) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _score_split(mode, S_a, W_a, n_a, a_op, c_op, S_V, W_V, n_V, n_T, W_all):
    """Best Z and operator for the split of the valid covered examples into a set ``a`` (reached
    with operator ``a_op``) and its complement (``c_op``).  Stumps are reported with the
    canonical first side (``<=`` or ``==``)."""
    if mode == MODE_STUMP:
        return _z_stump(S_a, S_V, W_V, W_all), min(a_op, c_op)
    best_z = math.inf
    best_op = -1
    if 0 < n_a < n_T:
        best_z = _z_rule(S_a, W_a, W_all)
        best_op = a_op
    n_c = n_V - n_a
    if 0 < n_c < n_T:
        z = _z_rule_complement(S_a, W_a, S_V, W_V, W_all)
        if z < best_z:
            best_z = z
            best_op = c_op
    return best_z, best_op


@njit(cache=True, nogil=True)
def sweep_attribute(j, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, A, d, S_T, W_T, n_T,
                    W_all, mode, cancel):
    """Best split of attribute ``j`` over the covered examples: returns (Z, operator, threshold);
    operator -1 when the attribute takes a single value there or ``cancel[0]`` was set (polled
    at every candidate)."""
    K = A.shape[1]
    S_V = S_T.copy()
    W_V = W_T
    n_V = n_T
    for r in range(miss_ptr[j], miss_ptr[j + 1]):
        i = miss_rows[r]
        if cov[i]:
            for k in range(K):
                S_V[k] -= A[i, k]
            W_V -= d[i]
            n_V -= 1
    best_z = math.inf
    best_op = -1
    best_thr = 0.0
    start = ptr[j]
    end = ptr[j + 1]
    P = np.zeros(K)
    Q = np.zeros(K)

    if nominal[j]:
        # Groups of equal codes; code 0 is implicit (the valid examples outside every group).
        W_Q = 0.0
        n_Q = 0
        idx = start
        while idx < end:
            v = values[idx]
            P[:] = 0.0
            W_P = 0.0
            n_P = 0
            while idx < end and values[idx] == v:
                i = rows[idx]
                if cov[i]:
                    W_P += _add_row(i, A, d, P)
                    n_P += 1
                idx += 1
            if n_P == 0:
                continue
            for k in range(K):
                Q[k] += P[k]
            W_Q += W_P
            n_Q += n_P
            if n_P < n_V:
                if cancel[0] != 0:
                    return best_z, -1, best_thr
                z, op = _score_split(mode, P, W_P, n_P, OP_EQ, OP_NEQ, S_V, W_V, n_V, n_T, W_all)
                if op >= 0 and z < best_z:
                    best_z, best_op, best_thr = z, op, float(v)
        if 0 < n_Q < n_V:
            if cancel[0] != 0:
                return best_z, -1, best_thr
            z, op = _score_split(mode, Q, W_Q, n_Q, OP_NEQ, OP_EQ, S_V, W_V, n_V, n_T, W_all)
            if op >= 0 and z < best_z:
                best_z, best_op, best_thr = z, op, 0.0
        return best_z, best_op, best_thr

    # Numeric: negatives ascending; prefix P is the side "x <= thr".
    W_P = 0.0
    n_P = 0
    prev = 0.0
    idx = start
    while idx < end and values[idx] < 0.0:
        i = rows[idx]
        v = values[idx]
        idx += 1
        if not cov[i]:
            continue
        if n_P > 0 and v != prev:
            if cancel[0] != 0:
                return best_z, -1, best_thr
            z, op = _score_split(mode, P, W_P, n_P, OP_LEQ, OP_GT, S_V, W_V, n_V, n_T, W_all)
            if op >= 0 and z < best_z:
                best_z, best_op, best_thr = z, op, 0.5 * (float(prev) + float(v))
        W_P += _add_row(i, A, d, P)
        n_P += 1
        prev = v
    last_negative = prev
    neg_end = idx

    # Positives descending; suffix Q is the side "x > thr".
    W_Q = 0.0
    n_Q = 0
    prev = 0.0
    idx = end - 1
    while idx >= neg_end:
        i = rows[idx]
        v = values[idx]
        idx -= 1
        if not cov[i]:
            continue
        if n_Q > 0 and v != prev:
            if cancel[0] != 0:
                return best_z, -1, best_thr
            z, op = _score_split(mode, Q, W_Q, n_Q, OP_GT, OP_LEQ, S_V, W_V, n_V, n_T, W_all)
            if op >= 0 and z < best_z:
                best_z, best_op, best_thr = z, op, 0.5 * (float(prev) + float(v))
        W_Q += _add_row(i, A, d, Q)
        n_Q += 1
        prev = v
    first_positive = prev

    n_Z = n_V - n_P - n_Q
    if n_P > 0 and (n_Z > 0 or n_Q > 0):
        thr = 0.5 * float(last_negative) if n_Z > 0 else 0.5 * (float(last_negative) + float(first_positive))
        if cancel[0] != 0:
            return best_z, -1, best_thr
        z, op = _score_split(mode, P, W_P, n_P, OP_LEQ, OP_GT, S_V, W_V, n_V, n_T, W_all)
        if op >= 0 and z < best_z:
            best_z, best_op, best_thr = z, op, thr
    if n_Q > 0 and n_Z > 0:
        if cancel[0] != 0:
            return best_z, -1, best_thr
        z, op = _score_split(mode, Q, W_Q, n_Q, OP_GT, OP_LEQ, S_V, W_V, n_V, n_T, W_all)
        if op >= 0 and z < best_z:
            best_z, best_op, best_thr = z, op, 0.5 * float(first_positive)
    return best_z, best_op, best_thr


@njit(cache=True, nogil=True, parallel=True)
def best_splits(candidates, n_candidates, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, A, d,
                S_T, W_T, n_T, W_all, mode, out_z, out_op, out_thr, cancel):
    """:func:`sweep_attribute` for ``candidates[:n_candidates]``, in parallel."""
    for c in prange(n_candidates):
        z, op, thr = sweep_attribute(candidates[c], ptr, rows, values, miss_ptr, miss_rows, nominal, cov, A,
                                     d, S_T, W_T, n_T, W_all, mode, cancel)
        out_z[c] = z
        out_op[c] = op
        out_thr[c] = thr


@njit(cache=True, nogil=True)
def vote_statistics(D, Ysign, rows, n_rows, votes):
    """Weights of the pairs of ``rows[:n_rows]`` that ``votes`` (length K, ±1) gets right and wrong."""
    w_plus = 0.0
    w_minus = 0.0
    K = D.shape[1]
    for r in range(n_rows):
        i = rows[r]
        for k in range(K):
            if Ysign[i, k] == votes[k]:
                w_plus += D[i, k]
            else:
                w_minus += D[i, k]
    return w_plus, w_minus


@njit(cache=True, nogil=True)
def reweight(D, Ysign, rows, n_rows, votes, alpha):
    """``D(i, l) *= exp(-alpha y_il vote_l)`` on ``rows[:n_rows]`` (unnormalised)."""
    K = D.shape[1]
    down = math.exp(-alpha)
    up = math.exp(alpha)
    for r in range(n_rows):
        i = rows[r]
        for k in range(K):
            if Ysign[i, k] == votes[k]:
                D[i, k] *= down
            else:
                D[i, k] *= up
