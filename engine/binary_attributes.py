"""Nominal attributes with two values, written as mlrl-boomer and mlrl-seco 0.15.6 write them.

The references treat a nominal attribute with exactly two distinct (non-missing) values in the
training data as *binary*: its two conditions are ``== a`` and ``== b``.  Our sweeps offer a
nominal attribute's ``== v`` and ``!= v`` for every value; on a binary attribute ``!= a`` covers the
training examples ``== b`` covers, so a learned ``!= a`` is written ``== b`` (:func:`as_equalities`):
the same rule on the training data, and the reference's rule on new data too (a value neither seen
in training is covered by ``!= a``, not by ``== b``).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .rules import Condition


def binary_values(X, nominal: np.ndarray) -> dict[int, tuple[float, float]]:
    """The nominal attributes of ``X`` (dense, or CSC with implicit zeros) with exactly two distinct
    non-missing values: attribute -> (smaller, larger)."""
    out = {}
    n = X.shape[0]
    for j in np.flatnonzero(nominal):
        if sp.issparse(X):
            stored = X.data[X.indptr[j]:X.indptr[j + 1]]
            values = np.unique(stored[~np.isnan(stored)])
            if len(stored) < n:  # implicit zeros
                values = np.union1d(values, [0.0])
        else:
            column = np.asarray(X[:, j], dtype=np.float64)
            values = np.unique(column[~np.isnan(column)])
        if len(values) == 2:
            out[int(j)] = (float(values[0]), float(values[1]))
    return out


def as_equalities(conditions: tuple, values: dict[int, tuple[float, float]]) -> tuple:
    """``conditions`` with each ``!= a`` on a binary attribute (``values``: :func:`binary_values`)
    written ``== b``, the attribute's other value."""
    if not values or not any(c.operator == "!=" and c.attribute in values for c in conditions):
        return conditions
    out = []
    for c in conditions:
        pair = values.get(c.attribute) if c.operator == "!=" else None
        if pair is not None and c.threshold in pair:
            c = Condition(c.attribute, "==", pair[1] if c.threshold == pair[0] else pair[0])
        out.append(c)
    return tuple(out)
