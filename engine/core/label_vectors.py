"""Eq. (19) without scanning every known label vector: a hash index and a best-first search.

The example-wise losses are sums of per-label costs, so with ``delta_k = cost(y_k=1) - cost(y_k=0)``
the unconstrained minimiser is ``y* = {k : delta_k < 0}`` and any label vector ``y`` costs
``cost(y*) + sum_{k in y xor y*} |delta_k|``.  The best *known* vector is therefore the one reached
from ``y*`` by the cheapest set of flips.  Flip sets are enumerated in nondecreasing total penalty
(labels sorted by ``|delta|``; from ``(sum, last)`` the successors ``(sum + p[last+1], last+1)`` and
``(sum - p[last] + p[last+1], last+1)`` visit every subset once) and looked up by Zobrist hashing
(a vector's hash is the XOR of random keys of its positive labels; a flip XORs one key).  The first
hit is optimal.  After ``budget`` probes the search falls back to the linear scan, so the result is
always exact; typically y* or a near neighbour is known and the cost per example is O(K log K)
instead of O(M K)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .losses import label_costs

SEARCH_BUDGET = 512
_KEY_SEED = 20200914


def label_vector_keys(n_labels: int) -> np.ndarray:
    """Random 64-bit Zobrist keys, one per label (fixed seed: indexes are reproducible)."""
    return np.random.default_rng(_KEY_SEED).integers(1, 2 ** 63 - 1, size=n_labels, dtype=np.int64).astype(np.uint64)


@njit(cache=True, nogil=True)
def _hash_rows(vec_ptr, vec_idx, keys):
    M = vec_ptr.shape[0] - 1
    out = np.zeros(M, dtype=np.uint64)
    for m in range(M):
        h = np.uint64(0)
        for t in range(vec_ptr[m], vec_ptr[m + 1]):
            h ^= keys[vec_idx[t]]
        out[m] = h
    return out


@njit(cache=True, nogil=True)
def _slot(h, mask):
    return np.int64((h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)) & mask


@njit(cache=True, nogil=True)
def build_table(hashes, size):
    """Open-addressing table (``size`` a power of two > M) of vector indices by hash; -1 = empty.
    Equal hashes (duplicate vectors) keep the first index, as the linear scan would choose it."""
    table = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    for m in range(hashes.shape[0]):
        s = _slot(hashes[m], mask)
        while table[s] >= 0 and hashes[table[s]] != hashes[m]:
            s = (s + 1) & mask
        if table[s] < 0:
            table[s] = m
    return table


def build_index(vectors: np.ndarray, vec_ptr: np.ndarray, vec_idx: np.ndarray):
    """(keys, hashes, table) for :func:`best_label_vector`."""
    K = vectors.shape[1]
    keys = label_vector_keys(K)
    hashes = _hash_rows(vec_ptr, vec_idx, keys)
    size = 1 << max(4, int(2 * max(len(hashes), 1) - 1).bit_length())
    return keys, hashes, build_table(hashes, size)


@njit(cache=True, nogil=True)
def _lookup(h, hashes, table):
    mask = table.shape[0] - 1
    s = _slot(h, mask)
    while table[s] >= 0:
        if hashes[table[s]] == h:
            return table[s]
        s = (s + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def _vector_cost(m, base, vec_ptr, vec_idx, cost_pos, cost_neg):
    c = base
    for t in range(vec_ptr[m], vec_ptr[m + 1]):
        k = vec_idx[t]
        c += cost_pos[k] - cost_neg[k]
    return c


@njit(cache=True, nogil=True)
def linear_best(base, vec_ptr, vec_idx, cost_pos, cost_neg):
    """The reference: scan every known vector (first index among equal costs)."""
    best = -1
    best_cost = math.inf
    for m in range(vec_ptr.shape[0] - 1):
        c = _vector_cost(m, base, vec_ptr, vec_idx, cost_pos, cost_neg)
        if c < best_cost:
            best_cost = c
            best = m
    return best


@njit(cache=True, nogil=True)
def _swap(hs, hl, hh, i, j):
    hs[i], hs[j] = hs[j], hs[i]
    hl[i], hl[j] = hl[j], hl[i]
    hh[i], hh[j] = hh[j], hh[i]


@njit(cache=True, nogil=True)
def _heap_push(hs, hl, hh, n, s, last, h):
    """A binary min-heap on ``hs`` in three parallel arrays (sum, last label, hash)."""
    i = n
    hs[i], hl[i], hh[i] = s, last, h
    while i > 0:
        p = (i - 1) >> 1
        if hs[p] <= hs[i]:
            break
        _swap(hs, hl, hh, p, i)
        i = p
    return n + 1


@njit(cache=True, nogil=True)
def _heap_pop(hs, hl, hh, n):
    """Remove the minimum (moved to index ``n - 1``); returns the new size."""
    n -= 1
    _swap(hs, hl, hh, 0, n)
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and hs[c + 1] < hs[c]:
            c += 1
        if hs[i] <= hs[c]:
            break
        _swap(hs, hl, hh, c, i)
        i = c
    return n


@njit(cache=True, nogil=True)
def search_scratch(K, budget):
    """Work space of :func:`best_label_vector_into`: per-label costs and penalties, and the heap."""
    size = 2 * budget + 2
    return (np.empty(K), np.empty(K), np.empty(K), np.empty(size), np.empty(size, dtype=np.int64),
            np.empty(size, dtype=np.uint64))


@njit(cache=True, nogil=True)
def best_label_vector(loss, f, vec_ptr, vec_idx, keys, hashes, table, cost_pos, cost_neg, budget):
    """Eq. (19): index of the known label vector minimising the example-wise loss of scores ``f``."""
    _, _, pen, hs, hl, hh = search_scratch(f.shape[0], budget)
    return best_label_vector_into(loss, f, vec_ptr, vec_idx, keys, hashes, table, cost_pos, cost_neg, pen, hs,
                                  hl, hh)


@njit(cache=True, nogil=True)
def best_label_vector_into(loss, f, vec_ptr, vec_idx, keys, hashes, table, cost_pos, cost_neg, pen, hs, hl, hh):
    """:func:`best_label_vector` with preallocated work space (see :func:`search_scratch`); the
    probe budget is ``(len(hs) - 2) // 2``."""
    K = f.shape[0]
    budget = (hs.shape[0] - 2) // 2
    label_costs(loss, f, cost_pos, cost_neg)
    base = 0.0
    star = 0.0  # cost of y*
    h0 = np.uint64(0)
    for k in range(K):
        base += cost_neg[k]
        d = cost_pos[k] - cost_neg[k]
        if d < 0.0:
            h0 ^= keys[k]
            star += d
        pen[k] = abs(d)
    star += base
    m = _lookup(h0, hashes, table)
    if m >= 0 and abs(_vector_cost(m, base, vec_ptr, vec_idx, cost_pos, cost_neg) - star) <= 1e-9 * (1.0 + abs(star)):
        return m
    order = np.argsort(pen, kind="mergesort")
    n = 0
    if K > 0:
        n = _heap_push(hs, hl, hh, n, pen[order[0]], 0, h0 ^ keys[order[0]])
    probes = 0
    while n > 0 and probes < budget:
        n = _heap_pop(hs, hl, hh, n)
        s, last, h = hs[n], hl[n], hh[n]
        probes += 1
        m = _lookup(h, hashes, table)
        if m >= 0:
            c = _vector_cost(m, base, vec_ptr, vec_idx, cost_pos, cost_neg)
            if abs(c - (star + s)) <= 1e-9 * (1.0 + abs(star) + s):
                return m
        if last + 1 < K:
            nxt = order[last + 1]
            n = _heap_push(hs, hl, hh, n, s + pen[nxt], last + 1, h ^ keys[nxt])
            n = _heap_push(hs, hl, hh, n, s - pen[order[last]] + pen[nxt], last + 1,
                           h ^ keys[order[last]] ^ keys[nxt])
    return linear_best(base, vec_ptr, vec_idx, cost_pos, cost_neg)
