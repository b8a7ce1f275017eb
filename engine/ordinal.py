"""Ordinal attributes, as mlrl-boomer 0.15.6 has them (``fit(..., ordinal_feature_indices=[...])``).

An ordinal attribute's values are integers (mlrl-boomer casts them to int32: the fraction is cut
off, towards zero).  With three or more distinct values its conditions are ``<= v`` and ``> v`` where
``v`` is one of the values (not a midpoint, as for numeric attributes): the largest value on the
covered side of ``<=``.  With two values it is a binary attribute: ``== v`` conditions like a nominal
one with two values; with one value it offers no condition.  Missing values (NaN) stay missing.

The learner searches an ordinal attribute as a numeric one on the cut-off values
(:func:`ordinal_view`) and then moves each threshold from the midpoint between two values down to
the lower one among the examples the rule's earlier conditions cover (:func:`ordinal_conditions`):
the same examples are covered, and the threshold is the reference's.  Prediction compares the
given value with that threshold; the reference cuts the fraction off a query's value first, so the
two differ only for non-integer values of an ordinal attribute (none in the training data, where
both cut them off).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .rules import Condition


def _column(X, j: int) -> np.ndarray:
    if sp.issparse(X):
        return np.asarray(X[:, j].toarray()).ravel()
    return np.asarray(X[:, j])


def ordinal_view(X, ordinal: np.ndarray):
    """``X`` with the fraction of every ordinal attribute's values cut off (towards zero; a copy in
    the same layout when there are ordinal attributes)."""
    if not ordinal.any():
        return X
    if sp.issparse(X):
        X = sp.csc_matrix(X, copy=True)
        for j in np.flatnonzero(ordinal):
            start, end = X.indptr[j], X.indptr[j + 1]
            X.data[start:end] = np.trunc(X.data[start:end])
        X.eliminate_zeros()
        return X
    X = np.array(X, copy=True)
    X[:, ordinal] = np.trunc(X[:, ordinal])
    return X


def binary_ordinal(X, ordinal: np.ndarray) -> np.ndarray:
    """The ordinal attributes with at most two distinct (non-missing) values: mlrl-boomer treats them
    as binary, with nominal conditions."""
    out = np.zeros(len(ordinal), dtype=bool)
    for j in np.flatnonzero(ordinal):
        values = _column(X, j)
        out[j] = len(np.unique(values[~np.isnan(values)])) <= 2
    return out


def ordinal_conditions(conditions: tuple, X, ordinal: np.ndarray) -> tuple:
    """``conditions`` (in the order they were added) with the thresholds of ordinal ``<=``/``>``
    conditions moved down to the largest value at most the threshold among the training examples the
    earlier conditions cover (a binary ordinal attribute is nominal: :mod:`engine.binary_attributes`
    writes its conditions).  ``X``: the training attributes as :func:`ordinal_view` gives them."""
    if not any(ordinal[c.attribute] and c.operator in ("<=", ">") for c in conditions):
        return conditions
    n = X.shape[0]
    covered = np.ones(n, dtype=bool)
    out = []
    for c in conditions:
        values = _column(X, c.attribute)
        if ordinal[c.attribute] and c.operator in ("<=", ">"):
            below = values[covered & (values <= c.threshold)]
            if below.size:
                c = Condition(c.attribute, c.operator, float(below.max()))
        out.append(c)
        covered &= c.covers(values)
    return tuple(out)

