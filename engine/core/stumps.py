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

Attributes are swept once by the shared walk of :mod:`engine.core.sweep` (negative values
ascending, positive values descending, the implicit zeros in between), with the weighted label
sums as its accumulators, so every threshold costs O(K).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .sweep import specialise

MODE_STUMP, MODE_RULE = 0, 1


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


# The accumulators are rows of ``S`` (3 x K: the two sides, then V, the valid covered examples) and
# entries of ``W`` (the sides' and V's weights), indexed in place and passed as plain arguments: a row
# taken as a view, or an array taken from a tuple, in the inner loop would cost reference-count updates
# per candidate threshold.  The best split so far is the walk's ``best``: (Z, threshold, operator).
_V = 2  # the row of S and the entry of W that hold V's sums


@njit(cache=True, nogil=True)
def _z_rule(S, side, W, W_all):
    """Z of a hypothesis voting sign(S_l) on a set of weight W and abstaining elsewhere."""
    r = 0.0
    for k in range(S.shape[1]):
        r += abs(S[side, k])
    q = W * W - r * r
    return (W_all - W) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _z_rule_complement(S, side, W_a, W_V, W_all):
    """Like :func:`_z_rule` for the set V minus a (sums given as V and a)."""
    r = 0.0
    for k in range(S.shape[1]):
        r += abs(S[_V, k] - S[side, k])
    W = W_V - W_a
    q = W * W - r * r
    return (W_all - W) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _z_stump(S, side, W_V, W_all):
    """Z of a stump voting on side a and on V minus a, abstaining outside V."""
    r = 0.0
    for k in range(S.shape[1]):
        r += abs(S[side, k]) + abs(S[_V, k] - S[side, k])
    q = W_V * W_V - r * r
    return (W_all - W_V) + math.sqrt(q if q > 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _score_split(mode, S, side, W_a, n_a, a_op, c_op, W_V, n_V, n_T, W_all):
    """Best Z and operator for the split of the valid covered examples into a set ``a`` (the sums
    ``S[side]``, reached with operator ``a_op``) and its complement (``c_op``).  Stumps are reported
    with the canonical first side (``<=`` or ``==``)."""
    if mode == MODE_STUMP:
        return _z_stump(S, side, W_V, W_all), min(a_op, c_op)
    best_z = math.inf
    best_op = -1
    if 0 < n_a < n_T:
        best_z = _z_rule(S, side, W_a, W_all)
        best_op = a_op
    n_c = n_V - n_a
    if 0 < n_c < n_T:
        z = _z_rule_complement(S, side, W_a, W_V, W_all)
        if z < best_z:
            best_z = z
            best_op = c_op
    return best_z, best_op


# -- the walk's hooks (engine.core.sweep): S1 = A (N x K), S2 = d (N), A1 = S (3 x K), A2 = W (3);
#    ctx = (n_T, W_all, mode)
@njit(cache=True, nogil=True, inline="always")
def _drop(ctx, A, d, S, W, i, w):
    for k in range(S.shape[1]):
        S[_V, k] -= A[i, k]
    W[_V] -= d[i]


@njit(cache=True, nogil=True, inline="always")
def _reset(ctx, S, W, side):
    for k in range(S.shape[1]):
        S[side, k] = 0.0
    W[side] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _add(ctx, A, d, S, W, side, i, w):
    for k in range(S.shape[1]):
        S[side, k] += A[i, k]
    W[side] += d[i]


@njit(cache=True, nogil=True, inline="always")
def _merge(ctx, S, W):
    for k in range(S.shape[1]):
        S[1, k] += S[0, k]
    W[1] += W[0]


@njit(cache=True, nogil=True, inline="always")
def _consider(ctx, S, W, side, count, n_valid, op_side, op_rest, threshold, best):
    if not 0 < count < n_valid:
        return best
    n_T, W_all, mode = ctx
    z, op = _score_split(mode, S, side, W[side], count, op_side, op_rest, W[_V], n_valid, n_T, W_all)
    if op >= 0 and z < best[0]:
        return z, threshold, op
    return best


_walk = specialise("_walk_stumps", _drop=_drop, _reset=_reset, _add=_add, _merge=_merge, _consider=_consider)


@njit(cache=True, nogil=True)
def sweep_attribute(j, ptr, rows, values, miss_ptr, miss_rows, nominal, cov, A, d, S_T, W_T, n_T,
                    W_all, mode, cancel):
    """Best split of attribute ``j`` over the covered examples: returns (Z, operator, threshold);
    operator -1 when the attribute takes a single value there or ``cancel[0]`` was set."""
    K = A.shape[1]
    S = np.zeros((3, K))
    S[_V] = S_T
    W = np.array([0.0, 0.0, W_T])
    no_cache = np.empty(0, dtype=np.int64)  # no compaction: a stump is one condition
    ok, (z, thr, op) = _walk(j, ptr, rows, values, values, no_cache, no_cache.reshape(0, 3), miss_ptr, miss_rows,
                             nominal, cov, n_T, A, d, S, W, (n_T, W_all, mode), (math.inf, 0.0, -1), cancel)
    return z, op if ok else -1, thr


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
