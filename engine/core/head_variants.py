"""Partial heads and gradient-based label binning: heads between single-label and complete.

Modes (the ``head`` code of the refinement kernels; >= 0 is a fixed single label, ``HEAD_SINGLE`` and
``HEAD_SINGLE_LARGEST_SCORE`` the two ways of choosing a single label, ``HEAD_COMPLETE`` all labels;
the codes below ``HEAD_COMPLETE`` are this module's):

- ``HEAD_PARTIAL_FIXED``: the ``n`` labels whose eq. (17) qualities are best (most negative);
- ``HEAD_PARTIAL_DYNAMIC``: every label k with ``(q_k / q_best) ** exponent >= threshold``, where
  ``q_best`` is the best label's quality (our reading of mlrl-boomer's dynamic partial heads:
  a larger exponent or threshold keeps fewer labels);
- ``HEAD_BINNED``: a complete head with gradient-based label binning (Rapp et al., ECML-PKDD
  2021) as mlrl-boomer 0.15.6 bins: each label's individually optimal score ``-g_k / (h_kk + lambda)``
  puts it into one of ceil(ratio x n) equal-width bins spanning the range of the n negative scores,
  or of the positive ones (:func:`assign_bins`); labels of a bin share one score, so the eq. (16)
  system shrinks to the bins: ``g_b = sum g_k``, ``H_bc = sum h_kl`` over k in b and l in c,
  ``H_bb = sum h_kk`` (the entries between labels of one bin are left out) and the L2 term
  ``lambda * |b|`` on the diagonal.  Labels with score 0 predict 0.  With an L1 weight ``alpha``
  (mlrl-boomer 0.15.6's term, :mod:`.heads`): the scores that bin the labels are
  :func:`.heads.label_score`'s; a bin of a diagonal Hessian is one label with weights ``alpha * |b|``
  and ``lambda * |b|``; for a full Hessian a bin's gradient beyond ``+-alpha`` is shifted towards zero
  by ``alpha * |b|`` and the objective adds ``alpha * |b| * |score|`` (:func:`binned_solve`).

For a full Hessian (non-decomposable losses) partial heads pick their labels by eq. (17) and
then solve eq. (16) on those labels' sub-system exactly.  Partial heads and label binning
re-select their labels at every candidate condition.  ``params`` = [n, threshold, exponent, B,
bin_ratio, min_bins, max_bins], B the most bins of one sign.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .heads import complete_quality, complete_scores, diagonal_position, label_quality, label_score
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
def _bin_criterion(g, h, full_hessian, k, l2, l1):
    """The score that bins label k: eq. (17)'s, with mlrl-boomer's L1 term (:func:`.heads.label_score`)."""
    if l1 > 0.0:
        return label_score(g[k], h[diagonal_position(k, g.shape[0], full_hessian)], l2, l1)
    d = h[diagonal_position(k, g.shape[0], full_hessian)] + l2
    return -g[k] / d if d > 0.0 else 0.0


@njit(cache=True, nogil=True)
def side_bins(n_labels, bin_ratio, min_bins, max_bins):
    """Bins for the ``n_labels`` labels of one sign: ceil(ratio x n) in single precision, at least
    ``min_bins`` (at most n), at most ``max_bins`` (0: no bound), as mlrl-boomer sizes them."""
    if n_labels == 0:
        return 0
    n = int(math.ceil(np.float32(bin_ratio) * np.float32(n_labels)))
    low = min(int(min_bins), n_labels)
    if n < low:
        return low
    if max_bins >= min_bins and max_bins > 0 and n > max_bins:
        return int(max_bins)
    return n


@njit(cache=True, nogil=True)
def _bin_of(w, low, high, n_bins):
    """Equal-width bin of ``w`` among ``n_bins`` over [low, high] (one bin when the span is 0)."""
    span = (high - low) / n_bins
    if span <= 0.0:
        return 0
    return min(int(math.floor((w - low) / span)), n_bins - 1)


@njit(cache=True, nogil=True)
def assign_bins(g, h, full_hessian, params, l2, l1, bins, sizes):
    """GBLB (Rapp et al. 2021) as mlrl-boomer's equal-width label binning: every label's optimal score
    (:func:`_bin_criterion`) puts it into one of ceil(ratio x n-) equal-width bins spanning the
    negative scores' range or one of ceil(ratio x n+) spanning the positive ones (``params[4:7]``:
    ratio, min and max bins; :func:`side_bins`); -1: score 0, no bin.  Returns the number of bins
    (negatives first), with label counts in ``sizes``; ``bins``/``sizes`` slots up to
    2 x ``params[3]`` are reset."""
    K = g.shape[0]
    n_neg = 0
    n_pos = 0
    min_neg = 0.0
    max_neg = -math.inf
    min_pos = math.inf
    max_pos = 0.0
    for k in range(K):
        w = _bin_criterion(g, h, full_hessian, k, l2, l1)
        if w < 0.0:
            n_neg += 1
            min_neg = min(min_neg, w)
            max_neg = max(max_neg, w)
        elif w > 0.0:
            n_pos += 1
            min_pos = min(min_pos, w)
            max_pos = max(max_pos, w)
    b_neg = side_bins(n_neg, params[4], params[5], params[6])
    b_pos = side_bins(n_pos, params[4], params[5], params[6])
    for b in range(max(2 * int(params[3]), b_neg + b_pos)):
        sizes[b] = 0
    for k in range(K):
        w = _bin_criterion(g, h, full_hessian, k, l2, l1)
        if w < 0.0:
            b = _bin_of(w, min_neg, max_neg, b_neg)
        elif w > 0.0:
            b = b_neg + _bin_of(w, min_pos, max_pos, b_pos)
        else:
            bins[k] = -1
            continue
        bins[k] = b
        sizes[b] += 1
    return b_neg + b_pos


@njit(cache=True, nogil=True)
def _binned_system(g, h, full_hessian, params, l2, l1, bins, sizes, slot, sub_g, sub_h):
    """Aggregate the statistics per non-empty bin; ``slot`` maps a bin to its row.  Returns the
    number of non-empty bins; the L2 weight of a bin is lambda * size (added as lambda * (size - 1)
    because the solvers add lambda once).  As in mlrl-boomer 0.15.6 a bin's diagonal entry sums its
    labels' diagonal entries only: the Hessian entries between two labels of one bin are left out."""
    K = g.shape[0]
    total = assign_bins(g, h, full_hessian, params, l2, l1, bins, sizes)
    m = 0
    for b in range(max(total, 2 * int(params[3]))):
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
                    if l == k:
                        sub_h[packed_index(a, a, m)] += v
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
def binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, n_slots, chol, out, scores):
    """Quality of the binned system's optimum (rows ``sub_g[:m]``, packed or diagonal ``sub_h``, the L2
    weight lambda * (size - 1) on its diagonal, :func:`_binned_system`); with ``scores`` the bin
    scores are written to ``out`` (and 0.0 returned), else ``out`` is scratch (m entries for a full
    Hessian).

    With L1 weight ``alpha`` > 0 the weight of bin b is its size n_b (``sizes`` by bin; ``slot``: a
    bin's row, for the first ``n_slots`` bins): a diagonal system is eq. (17) per bin with
    ``alpha * n_b``; a full one solves for the gradient shifted by ``alpha * n_b`` where it exceeds
    ``+-alpha``, and its quality is g'p + p'Hp / 2 + sum_b n_b (alpha |p_b| + lambda p_b^2 / 2)."""
    n_h = m * (m + 1) // 2 if full_hessian else m
    if l1 == 0.0:
        if scores:
            complete_scores(sub_g[:m], sub_h[:n_h], full_hessian, l2, 0.0, chol, out)
            return 0.0
        return complete_quality(sub_g[:m], sub_h[:n_h], full_hessian, l2, 0.0, chol, out)
    weight = np.zeros(m)
    for b in range(n_slots):
        if slot[b] >= 0:
            weight[slot[b]] = sizes[b]
    if not full_hessian:
        q = 0.0
        for a in range(m):
            if scores:
                out[a] = label_score(sub_g[a], sub_h[a], l2, l1 * weight[a])
            else:
                q += label_quality(sub_g[a], sub_h[a], l2, l1 * weight[a])
        return q
    shifted = np.empty(m)
    for a in range(m):
        shift = l1 * weight[a]
        shifted[a] = sub_g[a] - shift if sub_g[a] > l1 else (sub_g[a] + shift if sub_g[a] < -l1 else sub_g[a])
    complete_scores(shifted, sub_h[:n_h], True, l2, 0.0, chol, out)
    if scores:
        return 0.0
    q = 0.0
    for a in range(m):
        q += sub_g[a] * out[a] + weight[a] * l1 * abs(out[a]) + 0.5 * l2 * out[a] * out[a]
        q += 0.5 * sub_h[packed_index(a, a, m)] * out[a] * out[a]
        for c in range(a + 1, m):
            q += sub_h[packed_index(a, c, m)] * out[a] * out[c]
    return q


@njit(cache=True, nogil=True)
def variant_quality(g, h, full_hessian, mode, params, l2, l1, chol, z, labels, sizes, slot, sub_g, sub_h):
    """Eq. (14) quality of the best head of a partial or binned ``mode``; scratch: ``labels``,
    ``sizes``, ``slot`` (int, >= max(K, 2B)), ``sub_g`` (K), ``sub_h`` (packed K)."""
    if mode == HEAD_BINNED:
        m = _binned_system(g, h, full_hessian, params, l2, l1, labels, sizes, slot, sub_g, sub_h)
        if m == 0:
            return math.inf
        return binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, 2 * int(params[3]), chol, z, False)
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
        m = _binned_system(g, h, full_hessian, params, l2, l1, labels, sizes, slot, sub_g, sub_h)
        binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, 2 * int(params[3]), chol, out_scores, True)
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
