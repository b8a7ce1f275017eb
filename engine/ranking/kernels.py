"""Numba kernels of the log-linear ranking loss: one pass over the grouped edges.

Edges come grouped by subgraph (:class:`engine.ranking.graphs.Grouping`); ``F[i, y]`` = f(x_i, y)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _shifted_sum(F, i, a, b, init, term):
    """(top, s) with log(1 + Σ_e exp(d_e)) = top + log(s), d_e = f(term) − f(init) over edges a..b−1
    of example i; top = max(0, max d_e) keeps every exponent ≤ 0 (the "1" is exp(0))."""
    top = 0.0
    for e in range(a, b):
        d = F[i, term[e]] - F[i, init[e]]
        if d > top:
            top = d
    s = np.exp(-top)
    for e in range(a, b):
        s += np.exp(F[i, term[e]] - F[i, init[e]] - top)
    return top, s


@njit(cache=True, nogil=True)
def loss_and_flows(F, g_ptr, g_example, init, term, weight, q_in, q_out):
    """L(f, S, A) of SPEC A.3 (natural log), and the edge weights q of Fig. 3 summed per vertex:
    ``q_in[i, y]`` = Σ_{e: term(e)=y} q_e / s_i and ``q_out[i, y]`` = Σ_{e: init(e)=y} q_e / s_i.

    Each subgraph's log(1 + Σ exp(d_e)), d_e = f(term) - f(init), is computed with log-sum-exp."""
    q_in[:] = 0.0
    q_out[:] = 0.0
    total = 0.0
    for g in range(len(g_ptr) - 1):
        i = g_example[g]
        w = weight[i]
        a, b = g_ptr[g], g_ptr[g + 1]
        top, s = _shifted_sum(F, i, a, b, init, term)
        total += w * (top + np.log(s))
        for e in range(a, b):
            q = w * np.exp(F[i, term[e]] - F[i, init[e]] - top) / s
            q_in[i, term[e]] += q
            q_out[i, init[e]] += q
    return total


@njit(cache=True, nogil=True)
def subgraph_loss(F, g_ptr, g_example, init, term, weight, out):
    """Per-example loss Σ_k (1/s_i) L(f(x_i), G_ik) into ``out`` (zeroed first)."""
    out[:] = 0.0
    for g in range(len(g_ptr) - 1):
        i = g_example[g]
        a, b = g_ptr[g], g_ptr[g + 1]
        top, s = _shifted_sum(F, i, a, b, init, term)
        out[i] += weight[i] * (top + np.log(s))


@njit(cache=True, nogil=True)
def disagreement(F, g_ptr, g_example, init, term, weight, out):
    """Per-example generalised error of eq. (1): Σ_k δ(f(x_i), G_ik) / s_i, where a subgraph
    disagrees if some edge has f(init) <= f(term) (ties count as errors, SPEC A.2)."""
    out[:] = 0.0
    for g in range(len(g_ptr) - 1):
        i = g_example[g]
        for e in range(g_ptr[g], g_ptr[g + 1]):
            if F[i, init[e]] <= F[i, term[e]]:
                out[i] += weight[i]
                break
