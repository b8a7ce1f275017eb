"""Kernels of the boosting loop (Rapp et al. 2020, Alg. 1): heads on the full coverage,
score and statistics updates for covered examples only, and incremental loss tracking."""
from __future__ import annotations

import numpy as np
from numba import njit

from .heads import complete_scores, label_score, diagonal_position
from .label_vectors import SEARCH_BUDGET, best_label_vector_into, search_scratch
from .losses import (LOGISTIC_NONDEC, SQERR_NONDEC, SQHINGE_NONDEC, code_threshold, example_loss, example_statistics,
                     label_sign, label_statistics)
from .regression_losses import SQERR_REG_NONDEC


@njit(cache=True, nogil=True)
def covered_rows(covered, out_rows):
    """The examples ``covered`` marks (bit 0; bit 1 is :data:`.refinement.STATISTICS_DIFFER`), in order."""
    n = 0
    for i in range(covered.shape[0]):
        if covered[i] & 1:
            out_rows[n] = i
            n += 1
    return n


@njit(cache=True, nogil=True)
def covered_sums(G, H, rows, n_rows):
    """Summed gradients and Hessians of the examples ``rows[:n_rows]`` (unit weights)."""
    g = np.zeros(G.shape[1])
    h = np.zeros(H.shape[1])
    for r in range(n_rows):
        i = rows[r]
        for k in range(G.shape[1]):
            g[k] += G[i, k]
        for k in range(H.shape[1]):
            h[k] += H[i, k]
    return g, h


@njit(cache=True, nogil=True)
def head_on_rows(G, H, rows, n_rows, full_hessian, label, l2, l1, scale, out):
    """Alg. 1 line 7: the head re-computed from all covered training examples (unit weights).

    ``label`` >= 0 gives a single-label head for that label (eq. 17); -1 a complete head
    (eq. 16/17).  Scores are multiplied by the shrinkage ``scale``."""
    K = G.shape[1]
    if label >= 0:
        d = diagonal_position(label, K, full_hessian)
        gs = 0.0
        hs = 0.0
        for r in range(n_rows):
            gs += G[rows[r], label]
            hs += H[rows[r], d]
        out[0] = scale * label_score(gs, hs, l2, l1)
        return
    g, h = covered_sums(G, H, rows, n_rows)
    chol = np.zeros((K, K))
    complete_scores(g, h, full_hessian, l2, l1, chol, out)
    for k in range(K):
        out[k] *= scale


@njit(cache=True, nogil=True)
def apply_head(loss, Y, F, G, H, rows, n_rows, head_labels, head_scores):
    """Add the head to the covered examples' scores and refresh their statistics (eq. 12).

    For decomposable losses only the head's labels change, so only they are recomputed."""
    _apply(loss, Y, F, G, H, rows, n_rows, head_labels, head_scores, Y, np.empty(0, dtype=np.int64), False)


@njit(cache=True, nogil=True)
def apply_head_tracked(loss, Y, F, G, H, rows, n_rows, head_labels, head_scores, track_Y, errors):
    """:func:`apply_head` and :func:`label_wise_errors_of_head` in one pass over the covered examples
    (each score is read once, for its old and new prediction); returns the change of (wrong labels,
    wrong examples).  The same arithmetic as the two, so the same statistics and counts."""
    return _apply(loss, Y, F, G, H, rows, n_rows, head_labels, head_scores, track_Y, errors, True)


@njit(cache=True, nogil=True, inline="always")
def _count_change(old, new, label, before, threshold):
    """Wrong labels of an example once one score moves from ``old`` to ``new`` (eq. 18: a label is
    predicted where its score exceeds ``threshold``, :func:`.losses.score_threshold`)."""
    return before + int((1 if new > threshold else 0) != label) - int((1 if old > threshold else 0) != label)


@njit(cache=True, nogil=True, error_model="numpy")  # (1 + e > 0: no divisor is 0; vectorised)
def _apply(loss, Y, F, G, H, rows, n_rows, head_labels, head_scores, track_Y, errors, track):
    """:func:`apply_head`, with ``track`` also :func:`label_wise_errors_of_head`'s counts.  A decomposable
    loss's complete head is applied row by row (contiguous: LLVM vectorises the statistics), any other
    of its heads label by label: the covered examples' new scores of a label gathered into a buffer,
    their statistics computed there and scattered back.  The changes of the wrong examples add up
    label by label to the change from before the head to after it."""
    decomposable = not (loss == LOGISTIC_NONDEC or loss == SQERR_NONDEC or loss == SQHINGE_NONDEC
                         or loss == SQERR_REG_NONDEC)
    threshold = code_threshold(loss)
    n_head = head_labels.shape[0]
    d_labels = 0
    d_examples = 0
    complete = n_head == F.shape[1]
    for c in range(n_head if complete else 0):
        complete = complete and head_labels[c] == c  # the labels 0..K-1 in order
    if decomposable and not complete:
        f = np.empty(n_rows)
        y = np.empty(n_rows)
        g = np.empty(n_rows)
        h = np.empty(n_rows)
        for c in range(n_head):
            k = head_labels[c]
            for r in range(n_rows):
                i = rows[r]
                old = F[i, k]
                new = old + head_scores[c]
                if track:
                    before = errors[i]
                    e = _count_change(old, new, track_Y[i, k], before, threshold)
                    d_labels += e - before
                    d_examples += (1 if e > 0 else 0) - (1 if before > 0 else 0)
                    errors[i] = e
                F[i, k] = new
                f[r] = F[i, k]  # the score as stored (float32 scores: rounded)
                y[r] = label_sign(Y[i, k])
            for r in range(n_rows):
                g[r], h[r] = label_statistics(loss, y[r], f[r])
            for r in range(n_rows):
                i = rows[r]
                G[i, k] = g[r]
                H[i, k] = h[r]
        return d_labels, d_examples
    for r in range(n_rows):
        i = rows[r]
        before = errors[i] if track else 0
        e = before
        if complete and decomposable:  # a loop of its own, over contiguous entries: vectorised
            for k in range(n_head):
                old = F[i, k]
                new = old + head_scores[k]
                e = _count_change(old, new, track_Y[i, k], e, threshold)
                F[i, k] = new
                G[i, k], H[i, k] = label_statistics(loss, float(label_sign(Y[i, k])), F[i, k])
        else:
            for c in range(n_head):
                k = head_labels[c]
                old = F[i, k]
                new = old + head_scores[c]
                if track:
                    e = _count_change(old, new, track_Y[i, k], e, threshold)
                F[i, k] = new
        if not decomposable:
            example_statistics(loss, Y[i], F[i], G[i], H[i])
        if track:
            d_labels += e - before
            d_examples += (1 if e > 0 else 0) - (1 if before > 0 else 0)
            errors[i] = e
    return d_labels, d_examples


@njit(cache=True, nogil=True)
def add_head_scores(F, rows, n_rows, head_labels, head_scores, sign):
    for r in range(n_rows):
        i = rows[r]
        for c in range(head_labels.shape[0]):
            F[i, head_labels[c]] += sign * head_scores[c]


@njit(cache=True, nogil=True)
def label_wise_errors(F, Y, rows, n_rows, errors, threshold):
    """Eq. (18) predictions F > ``threshold`` (:func:`.losses.score_threshold`) for ``rows``; updates
    per-example wrong-label counts and returns the change of (wrong labels, wrong examples)."""
    d_labels = 0
    d_examples = 0
    K = F.shape[1]
    for r in range(n_rows):
        i = rows[r]
        e = 0
        for k in range(K):
            pred = 1 if F[i, k] > threshold else 0
            if pred != Y[i, k]:
                e += 1
        d_labels += e - errors[i]
        d_examples += (1 if e > 0 else 0) - (1 if errors[i] > 0 else 0)
        errors[i] = e
    return d_labels, d_examples


@njit(cache=True, nogil=True)
def label_wise_errors_of_head(F, Y, rows, n_rows, head_labels, head_scores, errors, threshold):
    """Like :func:`label_wise_errors` for the predictions once ``head`` is added to ``F``, called
    before it is (float32 scores: ``F - head`` afterwards would not give back the old score): only the
    head's labels can change their prediction, so only they are compared.  The sum's sign is that of
    the score stored in float32 but for sums below float32's smallest subnormal, which round to 0."""
    d_labels = 0
    d_examples = 0
    for r in range(n_rows):
        i = rows[r]
        e = errors[i]
        for c in range(head_labels.shape[0]):
            k = head_labels[c]
            e = _count_change(F[i, k], F[i, k] + head_scores[c], Y[i, k], e, threshold)
        d_labels += e - errors[i]
        d_examples += (1 if e > 0 else 0) - (1 if errors[i] > 0 else 0)
        errors[i] = e
    return d_labels, d_examples


@njit(cache=True, nogil=True)
def _same_row(F, i, j):
    for k in range(F.shape[1]):
        if F[i, k] != F[j, k]:
            return False
    return True


@njit(cache=True, nogil=True)
def example_wise_errors(loss, F, Y, rows, n_rows, vectors, vec_ptr, vec_idx, keys, hashes, table, errors):
    """Like :func:`label_wise_errors` for eq. (19) predictions (see :mod:`.label_vectors`)."""
    K = F.shape[1]
    cost_pos, cost_neg, pen, hs, hl, hh = search_scratch(K, SEARCH_BUDGET)
    d_labels = 0
    d_examples = 0
    m = -1
    for r in range(n_rows):
        i = rows[r]
        if m < 0 or not _same_row(F, i, rows[r - 1]):  # rows with equal scores share the search
            m = best_label_vector_into(loss, F[i], vec_ptr, vec_idx, keys, hashes, table, cost_pos, cost_neg, pen,
                                       hs, hl, hh)
        e = 0
        for k in range(K):
            if vectors[m, k] != Y[i, k]:
                e += 1
        d_labels += e - errors[i]
        d_examples += (1 if e > 0 else 0) - (1 if errors[i] > 0 else 0)
        errors[i] = e
    return d_labels, d_examples


@njit(cache=True, nogil=True)
def example_wise_predict(loss, F, vectors, vec_ptr, vec_idx, keys, hashes, table):
    N, K = F.shape
    out = np.empty((N, K), dtype=np.uint8)
    cost_pos, cost_neg, pen, hs, hl, hh = search_scratch(K, SEARCH_BUDGET)
    m = -1
    for i in range(N):
        if m < 0 or not _same_row(F, i, i - 1):
            m = best_label_vector_into(loss, F[i], vec_ptr, vec_idx, keys, hashes, table, cost_pos, cost_neg, pen,
                                       hs, hl, hh)
        out[i] = vectors[m]
    return out


@njit(cache=True, nogil=True)
def refresh_example_losses(loss, Y, F, rows, n_rows, losses):
    """Recompute the loss of ``rows[:n_rows]`` from the scores ``F``; returns the change of the
    sum of ``losses`` (global pruning watches the mean loss on the holdout set)."""
    change = 0.0
    for r in range(n_rows):
        i = rows[r]
        value = example_loss(loss, Y[i], F[i])
        change += value - losses[i]
        losses[i] = value
    return change
