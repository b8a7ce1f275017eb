"""GCC's ``std::sort`` order, emulated: the mlrl packages (mlrl-boomer and mlrl-seco 0.15.6) sort each
attribute's entries (in the order of the input's rows) by value with libstdc++'s introsort, which is not
stable, and which example stands first among equal values decides their searches of sparse attributes
(the entry their descending pass leaves out of the block against the zeros): :func:`gnu_sort`."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _gnu_median_first(vals, rows, to, a, b, c):
    """Move the median of the values at ``a``, ``b``, ``c`` to position ``to`` (a swap)."""
    if vals[a] < vals[b]:
        m = b if vals[b] < vals[c] else (c if vals[a] < vals[c] else a)
    elif vals[a] < vals[c]:
        m = a
    else:
        m = c if vals[b] < vals[c] else b
    vals[to], vals[m] = vals[m], vals[to]
    rows[to], rows[m] = rows[m], rows[to]


@njit(cache=True, nogil=True)
def _gnu_sift(vals, rows, base, hole, length, v, r):
    """Heap of ``length`` entries from ``base`` (the larger value on top): fill the hole at ``hole`` by
    moving it down to a leaf along the larger children, then let ``(v, r)`` rise from there."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * child + 2
        if vals[base + child] < vals[base + child - 1]:
            child -= 1
        vals[base + hole] = vals[base + child]
        rows[base + hole] = rows[base + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * child + 2
        vals[base + hole] = vals[base + child - 1]
        rows[base + hole] = rows[base + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and vals[base + parent] < v:
        vals[base + hole] = vals[base + parent]
        rows[base + hole] = rows[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    vals[base + hole] = v
    rows[base + hole] = r


@njit(cache=True, nogil=True)
def _gnu_heapsort(vals, rows, first, last):
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _gnu_sift(vals, rows, first, parent, length, vals[first + parent], rows[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:
        last -= 1
        v, r = vals[last], rows[last]
        vals[last], rows[last] = vals[first], rows[first]
        _gnu_sift(vals, rows, first, 0, last - first, v, r)


@njit(cache=True, nogil=True)
def _gnu_insert(vals, rows, i):
    """Insert the entry at ``i`` into the sorted entries before it (a smaller one exists before it)."""
    v, r = vals[i], rows[i]
    while v < vals[i - 1]:
        vals[i] = vals[i - 1]
        rows[i] = rows[i - 1]
        i -= 1
    vals[i] = v
    rows[i] = r


@njit(cache=True, nogil=True)
def _gnu_insertion_sort(vals, rows, first, last):
    for i in range(first + 1, last):
        if vals[i] < vals[first]:
            v, r = vals[i], rows[i]
            for k in range(i, first, -1):
                vals[k] = vals[k - 1]
                rows[k] = rows[k - 1]
            vals[first] = v
            rows[first] = r
        else:
            _gnu_insert(vals, rows, i)


@njit(cache=True, nogil=True)
def gnu_sort(vals, rows):
    """Sort ``vals`` ascending in place, ``rows`` along, leaving equal values in the order GCC's
    ``std::sort`` (libstdc++: introsort - median-of-three pivots, ranges of at most 16 left to a final
    insertion sort, heapsort below a depth of 2 log2 n) leaves them.  Both mlrl packages sort each
    attribute's vector so (its entries in the order of the input's rows), and which example is where
    among equal values decides a sparse attribute's search (:func:`gnu_order`)."""
    n = vals.shape[0]
    if n < 2:
        return
    depth0 = np.int64(0)
    while (np.int64(1) << (depth0 + 1)) <= n:
        depth0 += 1
    # the introsort's ranges (independent of each other once split), each with its depth budget left
    stack = np.empty((2 * depth0 + 2, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, n, 2 * depth0
    top = 1
    while top > 0:
        top -= 1
        first, last, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while last - first > 16:
            if depth == 0:
                _gnu_heapsort(vals, rows, first, last)
                break
            depth -= 1
            _gnu_median_first(vals, rows, first, first + 1, first + (last - first) // 2, last - 1)
            lo, hi = first + 1, last
            while True:  # partition around the pivot at ``first``, no bounds checks (the pivot stops both)
                while vals[lo] < vals[first]:
                    lo += 1
                hi -= 1
                while vals[first] < vals[hi]:
                    hi -= 1
                if not lo < hi:
                    break
                vals[lo], vals[hi] = vals[hi], vals[lo]
                rows[lo], rows[hi] = rows[hi], rows[lo]
                lo += 1
            stack[top, 0], stack[top, 1], stack[top, 2] = lo, last, depth
            top += 1
            last = lo
    if n > 16:
        _gnu_insertion_sort(vals, rows, 0, 16)
        for i in range(16, n):
            _gnu_insert(vals, rows, i)
    else:
        _gnu_insertion_sort(vals, rows, 0, n)


@njit(cache=True, nogil=True)
def gnu_order(ptr, rows, values, attributes):
    """Reorder, in place, the entries of each of ``attributes`` in a column-wise index (``rows``,
    ``values`` sorted by value within ``ptr[j]:ptr[j + 1]``) as :func:`gnu_sort` leaves them when
    it sorts them in the order of their rows: equal values then stand as in the mlrl packages'
    vectors.  Attributes without equal values keep their order (there is only one)."""
    for a in range(attributes.shape[0]):
        j = attributes[a]
        start = ptr[j]
        end = ptr[j + 1]
        ties = False
        for t in range(start + 1, end):
            if values[t] == values[t - 1]:
                ties = True
                break
        if not ties:
            continue
        by_row = np.argsort(rows[start:end])
        in_rows = np.empty(end - start, dtype=np.int32)
        in_values = np.empty(end - start, dtype=np.float32)
        for t in range(end - start):
            in_rows[t] = rows[start + by_row[t]]
            in_values[t] = values[start + by_row[t]]
        gnu_sort(in_values, in_rows)
        for t in range(end - start):
            rows[start + t] = in_rows[t]
