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
def _add_heads(X, rules, active, F, decided, first):
    """Every active rule of ``rules`` (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores) that
    covers a row of ``X`` adds its head to the row of ``F`` (N x K) or, with ``first`` (decision lists), sets
    each label ``decided`` (N x K) does not mark yet, in rule order, and marks it."""
    # by index: Numba 0.68 unpacking a tuple of arrays before a parallel loop gives the loop copies
    cond_ptr = rules[0]
    attrs = rules[1]
    ops = rules[2]
    thrs = rules[3]
    head_ptr = rules[4]
    head_labels = rules[5]
    head_scores = rules[6]
    N = X.shape[0]
    R = cond_ptr.shape[0] - 1
    for i in prange(N):
        x = X[i]
        for r in range(R):
            if active[r] and _covers(x, attrs, ops, thrs, cond_ptr[r], cond_ptr[r + 1]):
                for c in range(head_ptr[r], head_ptr[r + 1]):
                    k = head_labels[c]
                    if not first:
                        F[i, k] += head_scores[c]
                    elif not decided[i, k]:
                        F[i, k] = head_scores[c]
                        decided[i, k] = 1


_UNDECIDED = np.zeros((1, 1), dtype=np.uint8)  # sum_of_heads' ``decided``: never read


def sum_of_heads(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, F):
    """Eq. (2): add every active covering rule's head to ``F`` (N x K)."""
    _add_heads(X, (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores), active, F, _UNDECIDED, False)


def first_covering(X, cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores, active, out, decided):
    """Decision lists: in rule order, each label takes the vote of the first covering rule
    that predicts it; ``decided`` marks labels already set."""
    _add_heads(X, (cond_ptr, attrs, ops, thrs, head_ptr, head_labels, head_scores), active, out, decided, True)
