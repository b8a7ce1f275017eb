"""Feature binning: split keys for the sorted index (mlrl-boomer's ``feature_binning``).

Binning never changes a value; it decides where a condition may split.  For every sorted entry
of the feature index it gives a *key*: the entry's bin.  The sweep (``refinement``) evaluates a
threshold only where the key changes between adjacent examples, at the midpoint of their raw
values, so a rule covers the same training examples whether it is applied to raw or binned
values.  Zeros (implicit in the index) and missing values are handled as in the exact search:
zero is its own block, missing values are never covered.

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

import numpy as np
from numba import njit

EQUAL_WIDTH, EQUAL_FREQUENCY = 1, 2
METHOD_CODES = {"equal-width": EQUAL_WIDTH, "equal-frequency": EQUAL_FREQUENCY}


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
