"""Feature binning (``feature_binning``): where a condition may split an attribute.

mlrl-boomer 0.15.6's arithmetic ('equal-width', 'equal-frequency'; written from its description, see
:func:`equal_width_bins`, :func:`equal_frequency_bins`): ``n_bins = ceil(bin_ratio * N)`` over the N
training examples (float32 product), clamped to [min(min_bins, N), max_bins]; its bins of each numeric
attribute, its thresholds (equal width: from a bin's position after empty bins are dropped, so a threshold
can lie below its bin's values; equal frequency: the mean of the values around a bin boundary), and its
*sparse bin* (the bin of 0).  :func:`reference_binned_matrix` replaces each value by its bin's number
counted from the sparse bin, so the kernels' search and coverage work on bins (a split ``b + 0.5`` between
bins); :class:`BinThresholds` gives the model the reference's thresholds.  How the reference searches
the bins after a rule's first condition: :mod:`.sweep` (``SEARCH_BINNED_FILTERED``).

Ours ('equal-width-midpoint', 'equal-frequency-midpoint'; :func:`bin_keys`): a *key* per sorted
entry of the feature index, its bin; the sweep evaluates a threshold only where the key changes between
adjacent examples, at the midpoint of their raw values, so a rule covers the same training examples whether
it is applied to raw or binned values.  Zeros (implicit in the index) and missing values are handled as in
the exact search: zero is its own block, missing values are never covered.

- ``equal-width``: ``n_bins`` intervals of equal width between a feature's least and greatest
  value;
- ``equal-frequency``: the values in ascending order (zeros included) cut into ``n_bins`` runs
  of equal length, equal values always in the same bin;

with ``n_bins = clamp(ceil(bin_ratio * distinct values), min_bins, max_bins)`` (``max_bins`` 0:
no upper limit).  A feature with no more distinct values than bins keeps its exact keys (its
values).  Nominal features are never binned.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from numba import njit

EQUAL_WIDTH, EQUAL_FREQUENCY = 1, 2
# ours; SeCo's 'equal-width' and 'equal-frequency' are still ours too (engine.seco.covering)
METHOD_CODES = {"equal-width-midpoint": EQUAL_WIDTH, "equal-frequency-midpoint": EQUAL_FREQUENCY,
                "equal-width": EQUAL_WIDTH, "equal-frequency": EQUAL_FREQUENCY}


@njit(cache=True, nogil=True)
def number_of_bins(distinct, bin_ratio, min_bins, max_bins):
    n = int(math.ceil(bin_ratio * distinct))
    if n < min_bins:
        n = min_bins
    if max_bins > 0 and n > max_bins:
        n = max_bins
    return n


@njit(cache=True, nogil=True)
def _bin_feature(values, a, b, n_zero, method, bin_ratio, min_bins, max_bins, keys):
    """Keys of the sorted non-zero entries ``values[a:b]`` of one feature (``n_zero`` zeros)."""
    distinct = 1 if n_zero > 0 else 0
    for idx in range(a, b):
        if idx == a or values[idx] != values[idx - 1]:
            distinct += 1
    n_bins = number_of_bins(distinct, bin_ratio, min_bins, max_bins)
    if n_bins >= distinct or b == a:
        for idx in range(a, b):
            keys[idx] = values[idx]
        return
    if method == EQUAL_WIDTH:
        lo = float(values[a])
        hi = float(values[b - 1])
        if n_zero > 0:
            lo = min(lo, 0.0)
            hi = max(hi, 0.0)
        width = (hi - lo) / n_bins
        for idx in range(a, b):
            k = int((float(values[idx]) - lo) / width) if width > 0.0 else 0
            keys[idx] = min(max(k, 0), n_bins - 1)
        return
    # equal frequency: rank in ascending order (the zero block sits between negatives and positives)
    n_valid = (b - a) + n_zero
    rank = 0
    zeros_passed = n_zero == 0
    previous_key = -1.0
    for idx in range(a, b):
        v = values[idx]
        if not zeros_passed and v > 0.0:
            rank += n_zero
            zeros_passed = True
        if idx > a and v == values[idx - 1]:
            keys[idx] = previous_key
        else:
            previous_key = float((rank * n_bins) // n_valid)
            keys[idx] = previous_key
        rank += 1


@njit(cache=True, nogil=True)
def bin_keys(ptr, values, missing_ptr, nominal, n_examples, method, bin_ratio, min_bins, max_bins):
    """Split keys (float32, aligned with ``values``) for every feature of a sorted index."""
    keys = np.empty(values.shape[0], dtype=np.float32)
    for j in range(ptr.shape[0] - 1):
        a = ptr[j]
        b = ptr[j + 1]
        if nominal[j]:
            for idx in range(a, b):
                keys[idx] = values[idx]
            continue
        n_zero = n_examples - (b - a) - (missing_ptr[j + 1] - missing_ptr[j])
        _bin_feature(values, a, b, n_zero, method, bin_ratio, min_bins, max_bins, keys)
    return keys


# ---------------------------------------------------------------------------------------------------------------
# mlrl-boomer 0.15.6's arithmetic ('equal-width', 'equal-frequency'), written from its description
# ---------------------------------------------------------------------------------------------------------------

F32_EPS = np.float32(np.finfo(np.float32).eps)
# the number of the values of the reference's sparse bin that it lists (equal-frequency on its sparse
# format: the positives after the zeros), the others' being 0: one bin in a search of the whole vector, apart
# in a filtered one (engine.core.sweep.SEARCH_BINNED_FILTERED)
LISTED_IN_SPARSE_BIN = np.float32(0.25)


def reference_bin_count(n_examples: int, bin_ratio: float, min_bins: int, max_bins: int) -> int:
    """mlrl-boomer's number of bins: ``ceil(bin_ratio * n_examples)`` (the product in float32; every
    training example counts, missing ones too), at least ``min(min_bins, n_examples)``, at most
    ``max_bins`` unless that is 0."""
    n = int(math.ceil(float(np.float32(bin_ratio) * np.float32(n_examples))))
    lowest = min(min_bins, n_examples)
    if n < lowest:
        return lowest
    if max_bins >= min_bins and n > max_bins:
        return max_bins
    return n


@njit(cache=True, nogil=True)
def _f32_equal(a, b):
    """mlrl-boomer's ``isEqual`` of two float32 values: within float32's epsilon times the larger
    magnitude (at least 1)."""
    return abs(np.float32(a - b)) <= F32_EPS * max(np.float32(1.0), max(abs(a), abs(b)))


@njit(cache=True, nogil=True)
def _f32_mean(small, large):
    """mlrl-boomer's ``arithmeticMean`` of float32 values: the difference in float32, the rest in double."""
    return np.float32(np.float64(small) + np.float64(np.float32(large - small)) * 0.5)


def equal_width_bins(values: np.ndarray, n_examples: int, sparse: bool, n_bins: int):
    """mlrl-boomer's equal-width bins of one feature: ``values`` its sorted non-missing float32 values (on
    its sparse format the stored ones, ``sparse`` when fewer than ``n_examples``: the zeros count as
    one more value).  Returns (the bin of each value, the bin of 0, the thresholds, one per bin but the
    last: a condition between two bins has the lower one's), or None when the feature allows no
    condition (one bin).

    ``n_bins`` intervals of width ``(max - min) / n_bins`` from the least value, a value's interval
    ``floor((v - min) / width)`` (the last one for anything above, and, as the reference's conversion
    of a negative float to an unsigned index does on x86-64, for anything below: 0 when every value
    is positive).  Intervals without a value are dropped, except that of 0; the threshold of the bin
    at position ``k`` after dropping is ``min + (k + 1) * width``: computed from the position, not from
    the interval, so after a dropped interval it lies below the bin's own values (the reference's)."""
    lo = values[0]
    hi = values[-1]
    if sparse:
        lo = min(lo, np.float32(0.0))
        hi = max(hi, np.float32(0.0))
    width = np.float32(np.float32(hi - lo) / np.float32(n_bins))
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = np.floor(np.float32(values - lo) / width).astype(np.float64)
        zero_raw = math.floor(float(np.float32(np.float32(0.0 - lo) / width)))
    raw = np.where((raw < 0) | (raw >= n_bins), n_bins - 1, raw).astype(np.int64)
    zero_bin = zero_raw if 0 <= zero_raw < n_bins else n_bins - 1
    counts = np.bincount(raw[raw != zero_bin], minlength=n_bins)
    kept = counts > 0
    kept[zero_bin] = True
    position = np.cumsum(kept) - 1
    n_kept = int(position[-1]) + 1
    if n_kept <= 1:
        return None
    k = np.arange(1, n_kept, dtype=np.float32)
    thresholds = (lo + (k * width).astype(np.float32)).astype(np.float32)
    return position[raw], int(position[zero_bin]), thresholds


@njit(cache=True, nogil=True)
def _equal_frequency(values, n_examples, sparse, n_bins, bins, thresholds):
    """:func:`equal_frequency_bins`' walk; fills ``bins`` and ``thresholds``, returns (bins used, bin of 0)."""
    m = values.shape[0]
    per_bin = math.ceil(m / n_bins)
    previous = np.float32(0.0)
    in_bin = 0
    b = 0
    i = 0
    while i < m and values[i] < 0.0:
        v = values[i]
        if not _f32_equal(v, previous):
            if in_bin >= per_bin:
                thresholds[b] = _f32_mean(previous, v)
                b += 1
                in_bin = 0
            previous = v
        bins[i] = b
        in_bin += 1
        i += 1
    if sparse:
        if in_bin >= per_bin:
            thresholds[b] = _f32_mean(previous, np.float32(0.0))
            b += 1
            in_bin = n_examples - m
        else:
            in_bin += n_examples - m
        previous = np.float32(0.0)
        while i < m and _f32_equal(values[i], previous):
            bins[i] = b
            in_bin += 1
            i += 1
    zero_bin = b
    while i < m:
        v = values[i]
        if not _f32_equal(v, previous):
            if in_bin >= per_bin:
                thresholds[b] = _f32_mean(previous, v)
                b += 1
                in_bin = 0
            previous = v
        bins[i] = b
        in_bin += 1
        i += 1
    return b + 1, zero_bin


def equal_frequency_bins(values: np.ndarray, n_examples: int, sparse: bool, n_bins: int):
    """mlrl-boomer's equal-frequency bins of one feature (arguments and result as :func:`equal_width_bins`).

    The sorted values fill bins of ``ceil(len(values) / n_bins)`` values each (a value within float32's
    epsilon of the one before it stays in its bin; a full bin closes at the next different value, the
    threshold the float32 mean of the two); on the sparse format the zeros (``n_examples - len(values)``
    of them: missing values count as zeros here, as there) join the open bin unless it is full, when they
    open the next one.  On the dense format the bin of 0 is the one open when the first value >= 0 comes."""
    if n_bins <= 1:
        return None
    bins = np.empty(values.shape[0], dtype=np.int64)
    # the zeros count towards a bin's values but not towards the values per bin: there may be more bins than
    # n_bins (the reference then writes past the end of its arrays; here they are kept)
    thresholds = np.empty(values.shape[0] + 1, dtype=np.float32)
    used, zero_bin = _equal_frequency(values, n_examples, sparse, n_bins, bins, thresholds)
    if used <= 1:
        return None
    return bins, zero_bin, thresholds[:used - 1].copy()


REFERENCE_METHODS = {"equal-width": equal_width_bins, "equal-frequency": equal_frequency_bins}


@dataclass
class BinThresholds:
    """The model's thresholds of the attributes :func:`reference_binned_matrix` binned: ``tables[j]`` the
    reference's thresholds of attribute ``j`` (None: not binned), ``zero[j]`` its sparse bin (the bin
    numbered 0 in the matrix).  A kernel's threshold ``b + 0.5`` between bins lies above bin ``b``."""

    tables: list
    zero: np.ndarray

    def threshold(self, j: int, kernel_threshold: float) -> float:
        """The model's threshold of a '<=' or '>' condition the kernel learned on attribute ``j``."""
        return float(self.tables[j][math.floor(kernel_threshold) + int(self.zero[j])])

    def conditions(self, conditions: tuple) -> tuple:
        """``conditions`` with the thresholds of binned attributes the reference's."""
        return tuple(replace(c, threshold=self.threshold(c.attribute, c.threshold))
                     if self.tables[c.attribute] is not None and c.operator in ("<=", ">") else c
                     for c in conditions)


def _column_bins(method, elements: np.ndarray, n_examples: int, sparse: bool, n_bins: int):
    """The reference's bins of one column's sorted non-missing ``elements`` or None (no condition possible)."""
    m = elements.shape[0]
    if m == 0 or (not sparse and _f32_equal(elements[0], elements[-1])):
        return None
    return REFERENCE_METHODS[method](elements, n_examples, sparse, n_bins)


def reference_binned_matrix(X, sparse_format: bool, skip: np.ndarray, method: str, bin_ratio: float, min_bins: int,
                            max_bins: int):
    """``X`` with each value of a binned attribute replaced by its bin's number counted from the reference's
    sparse bin (the bin of 0; so the zeros stay zeros), and the thresholds of the bins
    (:class:`BinThresholds`).  ``sparse_format``: the reference keeps ``X`` in its sparse format (zeros
    implicit, :func:`.refinement.reference_sparse_format`); ``skip``: attributes left as they are
    (nominal, ordinal).  An attribute with a single bin becomes 0 (no condition), missing values stay
    missing."""
    n, d = X.shape
    n_bins = reference_bin_count(n, bin_ratio, min_bins, max_bins)
    csc = sp.csc_matrix(X, dtype=np.float32, copy=True) if sp.issparse(X) else None
    if csc is not None:
        csc.sum_duplicates()
        csc.eliminate_zeros()
    keep_sparse = csc is not None and sparse_format
    out = csc if keep_sparse else (csc.toarray() if csc is not None else np.array(X, dtype=np.float32))
    tables = [None] * d
    zero = np.zeros(d, dtype=np.int64)
    for j in range(d):
        if skip[j]:
            continue
        col = csc.data[csc.indptr[j]:csc.indptr[j + 1]] if keep_sparse else out[:, j]
        valid = ~np.isnan(col)
        order = np.argsort(col[valid], kind="stable")
        elements = np.ascontiguousarray(col[valid][order])
        binned = _column_bins(method, elements, n, keep_sparse and elements.shape[0] < n, n_bins)
        new = np.where(valid, np.float32(0.0), np.float32(np.nan)).astype(np.float32)  # one bin: no condition
        if binned is not None:
            bins, zero[j], tables[j] = binned
            numbers = (bins - zero[j]).astype(np.float32)
            if method == "equal-frequency" and keep_sparse:  # the positives its sparse bin lists
                numbers[(bins == zero[j]) & (elements > F32_EPS)] = LISTED_IN_SPARSE_BIN
            new[np.flatnonzero(valid)[order]] = numbers
        col[:] = new
    if keep_sparse:
        out.eliminate_zeros()
    return out, BinThresholds(tables, zero)
