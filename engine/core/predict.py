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


@njit(cache=True, nogil=True, parallel=True)
def sum_of_heads(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, F):
    """Eq. (2): add every active covering rule's head to ``F`` (N x K)."""
    N = X.shape[0]
    R = cond_ptr.shape[0] - 1
    for i in prange(N):
        x = X[i]
        for r in range(R):
            if active[r] and _covers(x, attrs, ops, thrs, cond_ptr[r], cond_ptr[r + 1]):
                for c in range(head_ptr[r], head_ptr[r + 1]):
                    F[i, head_labels[c]] += head_scores[c]


@njit(cache=True, nogil=True, parallel=True)
def first_covering(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, out, decided):
    """Decision lists: in rule order, each label takes the vote of the first covering rule
    that predicts it; ``decided`` marks labels already set."""
    N = X.shape[0]
    R = cond_ptr.shape[0] - 1
    for i in prange(N):
        x = X[i]
        for r in range(R):
            if active[r] and _covers(x, attrs, ops, thrs, cond_ptr[r], cond_ptr[r + 1]):
                for c in range(head_ptr[r], head_ptr[r + 1]):
                    k = head_labels[c]
                    if not decided[i, k]:
                        out[i, k] = head_scores[c]
                        decided[i, k] = 1
