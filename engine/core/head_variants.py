"""Partial heads and gradient-based label binning: heads between single-label and complete.

Modes (the ``head`` code of the refinement kernels; >= 0 is a fixed single label, ``HEAD_SINGLE`` and
``HEAD_SINGLE_LARGEST_SCORE`` the two ways of choosing a single label, ``HEAD_COMPLETE`` all labels;
the codes below ``HEAD_COMPLETE`` are this module's):

- ``HEAD_PARTIAL_FIXED``: the ``n`` labels whose eq. (17) qualities are best (most negative);
- ``HEAD_PARTIAL_DYNAMIC``: every label k with ``(q_k / q_best) ** exponent >= threshold``, where
  ``q_best`` is the best label's quality (our reading of mlrl-boomer's dynamic partial heads:
  a larger exponent or threshold keeps fewer labels);
- ``HEAD_BINNED``: a complete head with gradient-based label binning (Rapp et al., ECML-PKDD
  2021): each label's individually optimal score ``-g_k / (h_kk + lambda)`` puts it into one of
  ``B`` equal-width bins over the negative and ``B`` over the positive scores; labels of a bin
  share one score, so the eq. (16) system shrinks to the bins: ``g_b = sum g_k``,
  ``H_bc = sum h_kl`` and the L2 term ``lambda * |b|`` on the diagonal.  Labels with score 0
  predict 0.

For a full Hessian (non-decomposable losses) partial heads pick their labels by eq. (17) and
then solve eq. (16) on those labels' sub-system exactly.  Partial heads and label binning
re-select their labels at every candidate condition.  ``params`` = [n, threshold, exponent, B].
"""
from __future__ import annotations

import math

from numba import njit

from .heads import complete_quality, complete_scores, diagonal_position, label_quality
from .losses import packed_index

(HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE, HEAD_COMPLETE, HEAD_PARTIAL_FIXED, HEAD_PARTIAL_DYNAMIC,
 HEAD_BINNED) = -1, -2, -3, -4, -5, -6


@njit(cache=True, nogil=True)
def _quality(g, h, full_hessian, k, l2, l1):
    return label_quality(g[k], h[diagonal_position(k, g.shape[0], full_hessian)], l2, l1)


@njit(cache=True, nogil=True)
def select_labels(g, h, full_hessian, mode, params, l2, l1, selected):
    """Partial heads: the labels to predict (written to ``selected``); returns their number."""
    K = g.shape[0]
    if mode == HEAD_PARTIAL_FIXED:
        n = min(int(params[0]), K)
        count = 0
        for k in range(K):  # insertion into the best n so far, best first (n is small)
            q = _quality(g, h, full_hessian, k, l2, l1)
            if q >= 0.0 or (count == n and q >= _quality(g, h, full_hessian, selected[n - 1], l2, l1)):
                continue
            pos = count if count < n else n - 1
            while pos > 0 and _quality(g, h, full_hessian, selected[pos - 1], l2, l1) > q:
                selected[pos] = selected[pos - 1]
                pos -= 1
            selected[pos] = k
            if count < n:
                count += 1
        return count
    best = 0.0
    for k in range(K):
        q = _quality(g, h, full_hessian, k, l2, l1)
        if q < best:
            best = q
    if best >= 0.0:
        return 0
    threshold, exponent = params[1], params[2]
    count = 0
    for k in range(K):
        q = _quality(g, h, full_hessian, k, l2, l1)
        if q < 0.0 and (q / best) ** exponent >= threshold:
            selected[count] = k
            count += 1
    return count


@njit(cache=True, nogil=True)
def _gather(g, h, full_hessian, labels, n, sub_g, sub_h):
    """The statistics of ``labels[:n]``: gradient and packed (or diagonal) Hessian."""
    K = g.shape[0]
    for a in range(n):
        sub_g[a] = g[labels[a]]
        if full_hessian:
            for b in range(a, n):
                ka, kb = labels[a], labels[b]
                if ka > kb:
                    ka, kb = kb, ka
                sub_h[packed_index(a, b, n)] = h[packed_index(ka, kb, K)]
        else:
            sub_h[a] = h[labels[a]]


@njit(cache=True, nogil=True)
def assign_bins(g, h, full_hessian, n_bins, l2, bins, sizes):
    """GBLB: bin of every label by its optimal score (-1: score 0, no bin); returns the number
    of bins (2 * ``n_bins`` slots, negatives first), with label counts in ``sizes``."""
    K = g.shape[0]
    lo = 0.0
    hi = 0.0
    for k in range(K):
        d = h[diagonal_position(k, K, full_hessian)] + l2
        w = -g[k] / d if d > 0.0 else 0.0
        lo = min(lo, w)
        hi = max(hi, w)
    for b in range(2 * n_bins):
        sizes[b] = 0
    for k in range(K):
        d = h[diagonal_position(k, K, full_hessian)] + l2
        w = -g[k] / d if d > 0.0 else 0.0
        if w < 0.0:
            b = min(int((w - lo) / (-lo) * n_bins), n_bins - 1)
        elif w > 0.0:
            b = n_bins + min(int(w / hi * n_bins), n_bins - 1)
        else:
            bins[k] = -1
            continue
        bins[k] = b
        sizes[b] += 1
    return 2 * n_bins


@njit(cache=True, nogil=True)
def _binned_system(g, h, full_hessian, n_bins, l2, bins, sizes, slot, sub_g, sub_h):
    """Aggregate the statistics per non-empty bin; ``slot`` maps a bin to its row.  Returns the
    number of non-empty bins; the L2 weight of a bin is lambda * size (added as lambda * (size - 1)
    because the solvers add lambda once)."""
    K = g.shape[0]
    total = assign_bins(g, h, full_hessian, n_bins, l2, bins, sizes)
    m = 0
    for b in range(total):
        if sizes[b] > 0:
            slot[b] = m
            m += 1
        else:
            slot[b] = -1
    for a in range(m):
        sub_g[a] = 0.0
    n_packed = m * (m + 1) // 2 if full_hessian else m
    for a in range(n_packed):
        sub_h[a] = 0.0
    for k in range(K):
        if bins[k] < 0:
            continue
        a = slot[bins[k]]
        sub_g[a] += g[k]
        if full_hessian:
            for l in range(k, K):
                if bins[l] < 0:
                    continue
                c = slot[bins[l]]
                v = h[packed_index(k, l, K)]
                if a == c:
                    sub_h[packed_index(a, a, m)] += v if l == k else 2.0 * v
                elif a < c:
                    sub_h[packed_index(a, c, m)] += v
                else:
                    sub_h[packed_index(c, a, m)] += v
        else:
            sub_h[a] += h[k]
    for b in range(total):
        if slot[b] >= 0:
            a = slot[b]
            sub_h[packed_index(a, a, m) if full_hessian else a] += l2 * (sizes[b] - 1)
    return m


@njit(cache=True, nogil=True)
def variant_quality(g, h, full_hessian, mode, params, l2, l1, chol, z, labels, sizes, slot, sub_g, sub_h):
    """Eq. (14) quality of the best head of a partial or binned ``mode``; scratch: ``labels``,
    ``sizes``, ``slot`` (int, >= max(K, 2B)), ``sub_g`` (K), ``sub_h`` (packed K)."""
    if mode == HEAD_BINNED:
        m = _binned_system(g, h, full_hessian, int(params[3]), l2, labels, sizes, slot, sub_g, sub_h)
        if m == 0:
            return math.inf
        return complete_quality(sub_g[:m], sub_h[:m * (m + 1) // 2 if full_hessian else m], full_hessian, l2, 0.0,
                                chol, z)
    n = select_labels(g, h, full_hessian, mode, params, l2, l1, labels)
    if n == 0:
        return math.inf
    _gather(g, h, full_hessian, labels, n, sub_g, sub_h)
    return complete_quality(sub_g[:n], sub_h[:n * (n + 1) // 2 if full_hessian else n], full_hessian, l2, l1, chol,
                            z)


@njit(cache=True, nogil=True)
def variant_head(g, h, full_hessian, mode, params, l2, l1, scale, chol, labels, sizes, slot, sub_g, sub_h,
                 out_labels, out_scores):
    """The head of ``mode`` for summed statistics ``g``, ``h``: labels and (shrunk) scores are
    written to ``out_labels``/``out_scores``; returns their number (a zero head on label 0 when no
    label is worth predicting)."""
    K = g.shape[0]
    if mode == HEAD_BINNED:
        m = _binned_system(g, h, full_hessian, int(params[3]), l2, labels, sizes, slot, sub_g, sub_h)
        complete_scores(sub_g[:m], sub_h[:m * (m + 1) // 2 if full_hessian else m], full_hessian, l2, 0.0, chol,
                        out_scores)
        for a in range(m):
            sub_g[a] = out_scores[a]  # bin scores, before expanding (out_scores is overwritten below)
        for k in range(K):
            out_labels[k] = k
            out_scores[k] = scale * sub_g[slot[labels[k]]] if labels[k] >= 0 else 0.0
        return K
    n = select_labels(g, h, full_hessian, mode, params, l2, l1, labels)
    # predict the selected labels in ascending order, as complete heads do
    for a in range(1, n):
        v = labels[a]
        b = a
        while b > 0 and labels[b - 1] > v:
            labels[b] = labels[b - 1]
            b -= 1
        labels[b] = v
    if n == 0:  # no label's gradient survives the L1 threshold: an empty (zero) head on the first label
        out_labels[0] = 0
        out_scores[0] = 0.0
        return 1
    _gather(g, h, full_hessian, labels, n, sub_g, sub_h)
    complete_scores(sub_g[:n], sub_h[:n * (n + 1) // 2 if full_hessian else n], full_hessian, l2, l1, chol,
                    out_scores)
    for a in range(n):
        out_labels[a] = labels[a]
        out_scores[a] *= scale
    return n
