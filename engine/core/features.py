"""Attributes sorted once: a column-wise index over the training features.

For each attribute ``j`` the index stores the examples with a non-zero, non-missing
value sorted by value (``rows[ptr[j]:ptr[j+1]]``, ``values[...]``) and the examples with a
missing value (``missing_rows[missing_ptr[j]:missing_ptr[j+1]]``).  Zeros are implicit:
their statistics are the covered total minus everything else, so sparse attributes cost
only their non-zeros in a sweep (dense input works the same, with few zeros).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class FeatureIndex:
    ptr: np.ndarray  # int64, D + 1
    rows: np.ndarray  # int32
    values: np.ndarray  # float32, ascending within each attribute
    missing_ptr: np.ndarray  # int64, D + 1
    missing_rows: np.ndarray  # int32
    nominal: np.ndarray  # uint8, D
    n_examples: int
    constant: np.ndarray | None = None  # bool, D: at most one distinct non-missing value

    @property
    def n_features(self) -> int:
        return int(self.ptr.shape[0] - 1)

    def column(self, j: int) -> np.ndarray:
        """Dense float64 column ``j`` (NaN = missing)."""
        col = np.zeros(self.n_examples)
        a, b = self.ptr[j], self.ptr[j + 1]
        col[self.rows[a:b]] = self.values[a:b]
        col[self.missing_rows[self.missing_ptr[j]:self.missing_ptr[j + 1]]] = np.nan
        return col

    def constant_attributes(self) -> np.ndarray:
        """Mask of attributes taking at most one distinct non-missing value."""
        if self.constant is not None:
            return self.constant
        out = np.zeros(self.n_features, dtype=bool)
        for j in range(self.n_features):
            a, b = self.ptr[j], self.ptr[j + 1]
            n_missing = self.missing_ptr[j + 1] - self.missing_ptr[j]
            n_zero = self.n_examples - n_missing - (b - a)
            distinct = (len(np.unique(self.values[a:b])) if b > a else 0) + (1 if n_zero > 0 else 0)
            out[j] = distinct <= 1
        return out


def build_feature_index(X, nominal: np.ndarray) -> FeatureIndex:
    """Sort every attribute once; accepts dense arrays and SciPy sparse matrices."""
    n, d = X.shape
    rows_parts, vals_parts, miss_parts = [], [], []
    ptr = np.zeros(d + 1, dtype=np.int64)
    missing_ptr = np.zeros(d + 1, dtype=np.int64)
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        Xc.sum_duplicates()
        for j in range(d):
            a, b = Xc.indptr[j], Xc.indptr[j + 1]
            r = Xc.indices[a:b].astype(np.int32)
            v = Xc.data[a:b].astype(np.float32)
            _append_column(r, v, rows_parts, vals_parts, miss_parts, ptr, missing_ptr, j)
    else:
        return _dense_index(np.asarray(X, dtype=np.float32), nominal)
    cat = lambda parts, dt: np.ascontiguousarray(np.concatenate(parts), dtype=dt) if parts else np.zeros(0, dt)
    return FeatureIndex(
        ptr=ptr, rows=cat(rows_parts, np.int32), values=cat(vals_parts, np.float32),
        missing_ptr=missing_ptr, missing_rows=cat(miss_parts, np.int32),
        nominal=np.ascontiguousarray(nominal, dtype=np.uint8), n_examples=n,
    )


def _append_column(r, v, rows_parts, vals_parts, miss_parts, ptr, missing_ptr, j):
    missing = np.isnan(v)
    miss_parts.append(r[missing])
    r, v = r[~missing], v[~missing]
    order = np.argsort(v, kind="stable")
    rows_parts.append(r[order])
    vals_parts.append(v[order])
    ptr[j + 1] = ptr[j] + len(r)
    missing_ptr[j + 1] = missing_ptr[j] + int(missing.sum())


def _dense_index(X: np.ndarray, nominal: np.ndarray) -> FeatureIndex:
    """Vectorised build for dense input, by whichever sort is cheaper for its share of zeros."""
    if X.size and np.count_nonzero(X) < 0.5 * X.size:
        return _index_by_nonzero_sort(X, nominal)
    return _index_by_column_sort(X, nominal)


def _index_by_nonzero_sort(X: np.ndarray, nominal: np.ndarray) -> FeatureIndex:
    """Dense build for mostly-zero data: only the non-zero values are sorted (one lexsort by
    attribute, value and example)."""
    n, d = X.shape
    Xt = X.T
    missing = np.isnan(Xt)
    cols, rows = np.nonzero((Xt != 0) & ~missing)  # attribute-major, examples ascending
    vals = Xt[cols, rows]
    order = np.lexsort((rows, vals, cols))
    cols, rows, vals = cols[order], rows[order], vals[order]
    counts = np.bincount(cols, minlength=d)
    ptr = np.zeros(d + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    mcols, mrows = np.nonzero(missing)
    missing_ptr = np.zeros(d + 1, dtype=np.int64)
    missing_ptr[1:] = np.cumsum(np.bincount(mcols, minlength=d))
    # distinct non-missing values per attribute: starts of runs among the sorted non-zeros, plus zero
    new_run = np.ones(len(vals), dtype=bool)
    new_run[1:] = (vals[1:] != vals[:-1]) | (cols[1:] != cols[:-1])
    distinct = np.bincount(cols[new_run], minlength=d)
    distinct += (n - counts - (missing_ptr[1:] - missing_ptr[:-1])) > 0
    return FeatureIndex(ptr, np.ascontiguousarray(rows, dtype=np.int32), np.ascontiguousarray(vals, dtype=np.float32),
                        missing_ptr, np.ascontiguousarray(mrows, dtype=np.int32),
                        np.ascontiguousarray(nominal, dtype=np.uint8), n, distinct <= 1)


def _index_by_column_sort(X: np.ndarray, nominal: np.ndarray) -> FeatureIndex:
    """Dense build for mostly non-zero data: one column-wise argsort (NaN sorts last)."""
    n, d = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    vals = np.take_along_axis(X, order, axis=0)
    missing = np.isnan(vals)
    keep = (vals != 0) & ~missing
    ptr = np.zeros(d + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(keep.sum(axis=0))
    missing_ptr = np.zeros(d + 1, dtype=np.int64)
    missing_ptr[1:] = np.cumsum(missing.sum(axis=0))
    # column-major flattening keeps each attribute's entries together, in sorted order
    rows = np.ascontiguousarray(order.T[keep.T], dtype=np.int32)
    values = np.ascontiguousarray(vals.T[keep.T], dtype=np.float32)
    missing_rows = np.ascontiguousarray(order.T[missing.T], dtype=np.int32)
    valid = ~missing
    changes = ((vals[1:] != vals[:-1]) & valid[1:]).sum(axis=0) if n > 1 else np.zeros(d, dtype=np.int64)
    distinct = np.where(valid.any(axis=0), 1 + changes, 0)
    return FeatureIndex(ptr, rows, values, missing_ptr, missing_rows,
                        np.ascontiguousarray(nominal, dtype=np.uint8), n, distinct <= 1)
