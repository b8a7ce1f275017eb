"""Applying rules to new examples: coverage of a body and the sum of covering heads (eq. 2)."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .refinement import satisfies


@njit(cache=True, nogil=True)
def _covers(x, attrs, ops, thrs, a, b):
    for c in range(a, b):
        v = x[attrs[c]]
        if v != v:  # missing values are never covered
            return False
        if not satisfies(ops[c], thrs[c], v):
            return False
    return True


@njit(cache=True, nogil=True)
def body_coverage(X, attrs, ops, thrs):
    """uint8 mask of the rows of dense ``X`` satisfying every condition."""
    N = X.shape[0]
    out = np.empty(N, dtype=np.uint8)
    n = attrs.shape[0]
    for i in range(N):
        out[i] = 1 if _covers(X[i], attrs, ops, thrs, 0, n) else 0
    return out


@njit(cache=True, nogil=True)
def _add_row_heads(x, rules, active, F, decided, first):
    """Every active rule of ``rules`` (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores) that
    covers example ``x`` adds its head to ``F`` (K) or, with ``first`` (decision lists), sets each label
    ``decided`` (K) does not mark yet, in rule order, and marks it."""
    cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores = rules
    for r in range(cond_ptr.shape[0] - 1):
        if active[r] and _covers(x, attrs, ops, thrs, cond_ptr[r], cond_ptr[r + 1]):
            for c in range(head_ptr[r], head_ptr[r + 1]):
                k = head_labels[c]
                if not first:
                    F[k] += head_scores[c]
                elif not decided[k]:
                    F[k] = head_scores[c]
                    decided[k] = 1


@njit(cache=True, nogil=True, parallel=True)
def _add_heads(X, rules, active, F, decided, first):
    """:func:`_add_row_heads` for every row of ``X`` (``F``, ``decided``: N x K; ``decided`` 1 x 1 unless
    ``first``), in parallel."""
    for ii in prange(X.shape[0]):
        i = np.int64(ii)  # the parallel loop's index is unsigned
        _add_row_heads(X[i], rules, active, F[i], decided[i if first else 0], first)


_UNDECIDED = np.zeros((1, 1), dtype=np.uint8)  # sum_of_heads' ``decided``: never read


def sum_of_heads(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, F):
    """Eq. (2): add every active covering rule's head to ``F`` (N x K)."""
    _add_heads(X, (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores), active, F, _UNDECIDED, False)


def first_covering(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, out, decided):
    """Decision lists: in rule order, each label takes the vote of the first covering rule
    that predicts it; ``decided`` marks labels already set."""
    _add_heads(X, (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores), active, out, decided, True)
