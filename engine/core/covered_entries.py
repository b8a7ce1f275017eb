"""A rule's covered entries of one attribute, found from the covered examples instead of by a walk
over all of the attribute's entries.

A refinement step sweeps each sampled attribute over its entries in sorted order (:mod:`.sweep`);
the first time in a rule it walks every stored entry and skips those of uncovered examples,
compacting the covered ones into ``cache`` (``seg[j]``: valid, end of the negatives, start of the
non-negatives) for later steps.  Once a rule's conditions cover a small part of the data (yeast's
single-label rules: 112 of 1,619 examples at their later steps, on average), that first walk costs
O(entries) where O(covered) would do.  Here the covered entries of a dense attribute are found from
each covered example's position in the attribute's sorted order (``ranks``, built once a fit): their
positions are set in a bitmap, which is read back in ascending order (the walk's order) and written
to ``cache`` as the walk itself would have compacted them.  The sweep that follows is the same walk
over the same entries in the same order, so the rule is the same.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

# Attributes with at least this share of the examples stored get ranks (sparser ones are walked in
# full: their walk is short); at most this many bytes of ranks a fit.
RANKED_MIN_SHARE = 0.25
RANKS_BUDGET = 256 * 2**20
# An attribute's covered entries are found from the covered examples when there are fewer than this
# share of its stored entries (each costs a gathered position and a bit more than a walked entry).
COMPACT_MAX_SHARE = 0.75
MISSING = -2  # the rank of an example whose value is missing (-1: its value is 0, not stored)


def rank_entries(index, seg: np.ndarray, budget: int = RANKS_BUDGET) -> np.ndarray:
    """Each example's position in the sorted entries of every dense numeric attribute: ``ranks[r, i]``
    is the index entry of example ``i`` for the attribute whose ``seg[j, 4]`` is ``r`` (-1: the value
    0, not stored; -2: missing).  Sets ``seg[:, 4]`` (-1: no ranks for the attribute; all of them when
    the ranks would take more than ``budget`` bytes).  ``seg`` needs a fifth column
    (:func:`.refinement.search_segments`)."""
    n = index.n_examples
    stored = np.diff(index.ptr)
    dtype = np.int32 if len(index.rows) < 2**31 else np.int64
    ranked = (stored >= RANKED_MIN_SHARE * n) & (index.nominal == 0) & (stored > 0)
    n_ranked = int(ranked.sum())
    seg[:, 4] = -1
    if n_ranked == 0 or n_ranked * n * np.dtype(dtype).itemsize > budget:
        return np.empty((0, n), dtype=dtype)
    row_of = np.cumsum(ranked) - 1
    seg[ranked, 4] = row_of[ranked]
    ranks = np.full((n_ranked, n), -1, dtype=dtype)
    for j in np.flatnonzero(ranked):  # one attribute at a time: no temporary of all entries
        start, end = index.ptr[j], index.ptr[j + 1]
        ranks[row_of[j], index.rows[start:end]] = np.arange(start, end, dtype=dtype)
        ranks[row_of[j], index.missing_rows[index.missing_ptr[j]:index.missing_ptr[j + 1]]] = MISSING
    return ranks


@intrinsic
def _trailing_zeros(typingctx, word):
    """The number of trailing zero bits of a non-zero uint64 (LLVM's ``cttz``: one instruction)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])
    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def compact_covered(j, ptr, values, ranks, cache, seg, row_lists, counts, bits, found):
    """Write the entries of attribute ``j`` whose examples are ``row_lists[q][:counts[q]]`` (the covered
    examples in the sample and those out of it) to ``cache`` as the walk compacts them (:mod:`.sweep`: the
    negatives ascending from ``ptr[j]``, the others ascending up to ``ptr[j + 1]``) and mark them valid in
    ``seg[j]``.  ``bits`` (at least entries / 64 words) and ``found`` (at least the examples) are scratch."""
    start = ptr[j]
    end = ptr[j + 1]
    rank_row = seg[j, 4]
    n_words = (end - start + 63) >> 6
    for w in range(n_words):
        bits[w] = 0
    one = np.uint64(1)
    for q in range(len(row_lists)):
        rows = row_lists[q]
        for r in range(counts[q]):
            t = ranks[rank_row, rows[r]]
            if t >= 0:
                p = t - start
                bits[p >> 6] |= one << np.uint64(p & 63)
    n_found = 0
    for w in range(n_words):
        word = bits[w]
        while word != 0:
            found[n_found] = start + (w << 6) + np.int64(_trailing_zeros(word))
            n_found += 1
            word &= word - one  # clear the lowest set bit
    n_negative = 0
    while n_negative < n_found and values[found[n_negative]] < 0.0:
        n_negative += 1
    for r in range(n_negative):
        cache[start + r] = found[r]
    first = end - (n_found - n_negative)
    for r in range(n_negative, n_found):
        cache[first + r - n_negative] = found[r]
    seg[j, 1] = start + n_negative
    seg[j, 2] = first
    seg[j, 0] = 1
