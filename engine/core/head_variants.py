"""Partial heads and gradient-based label binning: heads between single-label and complete.

Modes (the ``head`` code of the refinement kernels; >= 0 is a fixed single label, ``HEAD_SINGLE`` and
``HEAD_SINGLE_LARGEST_SCORE`` the two ways of choosing a single label, ``HEAD_COMPLETE`` all labels;
the codes below ``HEAD_COMPLETE`` are this module's):

- ``HEAD_PARTIAL_FIXED``: the ``n`` labels whose individually optimal scores (eq. 17,
  :func:`.heads.label_score`) are largest in absolute value, as mlrl-boomer 0.15.6's
  ``sortOutputWiseScores`` / ``sortOutputWiseCriteria`` pick them (``std::partial_sort`` of libstdc++
  with ``CompareOutputWiseCriteria``, emulated by :func:`partial_sort_by_magnitude`, ties included);
  always ``n`` labels, zero scores too;
- ``HEAD_PARTIAL_DYNAMIC``: every label k with ``(|s_k| - min|s|) ** e >= (1 - t) * (max|s| - min|s|)
  ** e`` (``t`` the threshold, ``e`` the exponent, min and max over all labels the head may predict,
  ``1 - t`` in single precision), as mlrl-boomer 0.15.6's ``DecomposableDynamicPartialRuleEvaluation``
  (``getMinAndMaxScore``, ``calculateThreshold``, ``calculateWeightedScore``): a larger threshold keeps
  more labels; when all |s_k| are equal every label is kept;
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

For a full Hessian (non-decomposable losses) partial heads pick their labels by the Hessian's diagonal
(the same per-label scores) and then solve eq. (16) on those labels' sub-system exactly; their
quality, which ranks the refinements, is mlrl-boomer 0.15.6's (:func:`leading_block_quality`): the
sub-system's solution evaluated with the *first* n gradients and the leading n x n block of the
Hessian, not the chosen labels' (its ``calculateOverallQuality`` is handed the complete statistic
vector).  Partial heads and label binning re-select their labels at every candidate condition (the
greedy kernel fixes a partial head's labels after the rule's first condition,
``max_head_refinements=1``, :mod:`.refinement`).  ``HEAD_BINNED_FIXED`` and ``HEAD_BINNED_DYNAMIC`` are
partial heads with label binning, as mlrl-boomer 0.15.6 bins them for both kinds of losses, quirk
included (:func:`binned_partial_system`: the bins of the selected labels sum the statistics of the
first n labels).  ``params`` = [n, threshold, exponent, B, bin_ratio, min_bins, max_bins], B the most
bins of one sign.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .gnu_sort import _gnu_sift
from .heads import complete_quality, complete_scores, diagonal_position, label_quality, label_score
from .losses import packed_index

(HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE, HEAD_COMPLETE, HEAD_PARTIAL_FIXED, HEAD_PARTIAL_DYNAMIC,
 HEAD_BINNED) = -1, -2, -3, -4, -5, -6
# partial heads with label binning (:func:`binned_partial_system`): ``params`` holds both the partial
# head's (n or threshold and exponent) and the binning's
HEAD_BINNED_FIXED, HEAD_BINNED_DYNAMIC = -7, -8


def partial_fixed_size(n_labels: int, ratio, min_outputs: int, max_outputs: int) -> int:
    """How many labels a ``partial-fixed`` head predicts among ``n_labels``, as mlrl-boomer 0.15.6's
    ``calculateBoundedFraction``: ceil(ratio x n_labels) in single precision, at least ``min_outputs``
    (n_labels if fewer), at most ``max_outputs`` when that is at least ``min_outputs`` (0: no bound)."""
    n = int(math.ceil(np.float32(ratio) * np.float32(n_labels)))
    low = min(int(min_outputs), int(n_labels))
    if n < low:
        return low
    if max_outputs >= min_outputs and n > max_outputs:
        return int(max_outputs)
    return n


@njit(cache=True, nogil=True)
def label_cardinality32(counts):
    """The average of the relevant labels per example (``counts``, float32) as mlrl-boomer 0.15.6's
    ``calculateLabelCardinality``: the iterative mean ``m += (x - m) / i`` in single precision."""
    mean = np.float32(0.0)
    for i in range(counts.shape[0]):
        mean = np.float32(mean + (counts[i] - mean) / np.float32(i + 1))
    return mean


@njit(cache=True, nogil=True)
def partial_sort_by_magnitude(keys, labels, n, K):
    """libstdc++'s ``std::partial_sort(first, first + n, first + K, comp)`` (a heap of the first n, then
    every later entry that ``comp`` puts before the heap's top replaces it, then the heap sorted) with
    mlrl-boomer 0.15.6's ``CompareOutputWiseCriteria`` (``|a| > |b|``) on ``keys[:K]`` = -|score| and
    their ``labels``: afterwards the first n entries are the n largest |scores|, largest first, ties in
    the order that algorithm leaves them (not stable)."""
    if n <= 0:
        return
    if n >= 2:  # make_heap(first, middle)
        parent = (n - 2) // 2
        while True:
            _gnu_sift(keys, labels, 0, parent, n, keys[parent], labels[parent])
            if parent == 0:
                break
            parent -= 1
    for i in range(n, K):  # heap_select: comp(*i, *first) pops the top to position i
        if keys[i] < keys[0]:
            v, r = keys[i], labels[i]
            keys[i], labels[i] = keys[0], labels[0]
            _gnu_sift(keys, labels, 0, 0, n, v, r)
    last = n
    while last > 1:  # sort_heap(first, middle)
        last -= 1
        v, r = keys[last], labels[last]
        keys[last], labels[last] = keys[0], labels[0]
        _gnu_sift(keys, labels, 0, 0, last, v, r)


@njit(cache=True, nogil=True)
def _label_score(g, h, full_hessian, k, l2, l1):
    return label_score(g[k], h[diagonal_position(k, g.shape[0], full_hessian)], l2, l1)


@njit(cache=True, nogil=True)
def select_labels(g, h, full_hessian, mode, params, l2, l1, selected, keys):
    """Partial heads: the labels to predict (written to ``selected``, ``keys`` float scratch of K);
    returns their number (at least 1 for K >= 1).  ``HEAD_PARTIAL_FIXED``: ``params[0]`` labels in the
    order mlrl-boomer 0.15.6's partial sort leaves them (largest |score| first, see
    :func:`partial_sort_by_magnitude`); ``HEAD_PARTIAL_DYNAMIC``: ascending, threshold ``params[1]``,
    exponent ``params[2]`` (see the module's docstring)."""
    K = g.shape[0]
    if mode == HEAD_PARTIAL_FIXED or mode == HEAD_BINNED_FIXED:
        n = min(int(params[0]), K)
        for k in range(K):
            keys[k] = -abs(_label_score(g, h, full_hessian, k, l2, l1))
            selected[k] = k
        partial_sort_by_magnitude(keys, selected, n, K)
        return n
    if K == 0:
        return 0
    # getMinAndMaxScore: the first label's |score| starts both, later ones raise the max or lower the min
    high = abs(_label_score(g, h, full_hessian, 0, l2, l1))
    low = high
    keys[0] = high
    for k in range(1, K):
        s = abs(_label_score(g, h, full_hessian, k, l2, l1))
        keys[k] = s
        if s > high:
            high = s
        elif s < low:
            low = s
    exponent = params[2]
    factor = float(np.float32(1.0) - np.float32(params[1]))  # 1 - threshold, in single precision as there
    bound = (high - low) ** exponent * factor
    count = 0
    for k in range(K):
        if (keys[k] - low) ** exponent >= bound:
            selected[count] = k
            count += 1
    return count


@njit(cache=True, nogil=True)
def leading_block_quality(p, g, h, n, l2, l1):
    """mlrl-boomer 0.15.6's quality of a non-decomposable partial head with scores ``p[:n]`` (its
    ``calculateOverallQuality`` plus ``calculateRegularizationTerm``): ``sum_a p_a g_a + p' H p / 2 +
    l1 |p|_1 + l2 |p|^2 / 2`` with the gradients ``g[:n]`` and the leading n x n block of the packed
    Hessian ``h`` of all K labels, position a of ``p`` meeting label a, whichever labels ``p`` predicts."""
    K = g.shape[0]
    q = 0.0
    for a in range(n):
        quad = 0.5 * h[packed_index(a, a, K)] * p[a] * p[a]
        for b in range(a + 1, n):
            quad += h[packed_index(a, b, K)] * p[a] * p[b]
        q += p[a] * g[a] + quad
    reg = 0.0
    if l1 > 0.0:
        for a in range(n):
            reg += l1 * abs(p[a])
    if l2 > 0.0:
        sq = 0.0
        for a in range(n):
            sq += p[a] * p[a]
        reg += 0.5 * l2 * sq
    return q + reg


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
def gather_as_reference(g, h, labels, n, sub_g, sub_h):
    """The sub-system of ``labels[:n]`` of a full Hessian as mlrl-boomer 0.15.6's ``copyCoefficients``
    (``rule_evaluation_non_decomposable_partial_common.hpp``) builds it for a partial head: the entry of
    positions a <= b is read at ``tri(labels[b]) + labels[a]`` of its column-wise packed upper triangle
    (``tri(c) = c (c + 1) / 2``), which is entry (labels[a], labels[b]) only if ``labels[a] <= labels[b]``;
    otherwise it is the entry that position holds, of a later column.  Labels in ascending order (dynamic
    heads, fixed heads' later conditions) give the true sub-system; the descending |score| order of a
    fixed head does not."""
    K = g.shape[0]
    for a in range(n):
        sub_g[a] = g[labels[a]]
        for b in range(a, n):
            c = labels[b]
            pos = c * (c + 1) // 2 + labels[a]
            while (c + 1) * (c + 2) // 2 <= pos:
                c += 1
            r = pos - c * (c + 1) // 2
            sub_h[packed_index(a, b, n)] = h[packed_index(r, c, K)]


@njit(cache=True, nogil=True)
def solve_as_sysv(sub_g, sub_h, n, l2, l1, a, out):
    """The scores ``out[:n]`` = -(H + l2 I)^-1 g of a full sub-system (packed ``sub_h``, ``a`` n x n
    scratch) by Gaussian elimination with partial pivoting: like mlrl-boomer's LAPACK ``sysv`` it solves
    indefinite systems too (the sub-systems of :func:`gather_as_reference` need not be positive
    definite), where a Cholesky factorisation fails.  A singular or non-finite solution falls back to
    the labels' individual scores, as :func:`.heads.complete_scores` does.  With an L1 weight the
    system is :func:`.heads.complete_scores`'s (its L1 term; an indefinite one falls back there)."""
    if l1 > 0.0:
        complete_scores(sub_g[:n], sub_h[:n * (n + 1) // 2], True, l2, l1, a, out)
        return
    for i in range(n):
        for j in range(n):
            a[i, j] = sub_h[packed_index(min(i, j), max(i, j), n)]
        a[i, i] += l2
        out[i] = -sub_g[i]
    ok = True
    for c in range(n):
        p = c
        for r in range(c + 1, n):
            if abs(a[r, c]) > abs(a[p, c]):
                p = r
        if a[p, c] == 0.0:
            ok = False
            break
        if p != c:
            for j in range(c, n):
                a[c, j], a[p, j] = a[p, j], a[c, j]
            out[c], out[p] = out[p], out[c]
        for r in range(c + 1, n):
            f = a[r, c] / a[c, c]
            if f != 0.0:
                for j in range(c + 1, n):
                    a[r, j] -= f * a[c, j]
                out[r] -= f * out[c]
    if ok:
        for i in range(n - 1, -1, -1):
            t = out[i]
            for j in range(i + 1, n):
                t -= a[i, j] * out[j]
            out[i] = t / a[i, i]
            ok = ok and math.isfinite(out[i])
    if not ok:
        for i in range(n):
            out[i] = label_score(sub_g[i], sub_h[packed_index(i, i, n)], l2, l1)


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


# (count, smallest, largest) of the negative criteria, then of the positive ones: none yet
_NO_RANGES = (0, 0.0, -math.inf, 0, math.inf, 0.0)


@njit(cache=True, nogil=True, inline="always")
def _widen(ranges, w):
    """``ranges`` with criterion ``w`` counted on its sign's side (0: on neither)."""
    n_neg, min_neg, max_neg, n_pos, min_pos, max_pos = ranges
    if w < 0.0:
        return n_neg + 1, min(min_neg, w), max(max_neg, w), n_pos, min_pos, max_pos
    if w > 0.0:
        return n_neg, min_neg, max_neg, n_pos + 1, min(min_pos, w), max(max_pos, w)
    return ranges


@njit(cache=True, nogil=True, inline="always")
def _cleared_bins(ranges, params, sizes):
    """The bins of each sign (:func:`side_bins`); ``sizes`` reset up to 2 x ``params[3]`` or their sum."""
    b_neg = side_bins(ranges[0], params[4], params[5], params[6])
    b_pos = side_bins(ranges[3], params[4], params[5], params[6])
    for b in range(max(2 * int(params[3]), b_neg + b_pos)):
        sizes[b] = 0
    return b_neg, b_pos


@njit(cache=True, nogil=True, inline="always")
def _bin_index(w, ranges, b_neg, b_pos):
    """The bin of criterion ``w`` (negatives first; -1 for 0)."""
    if w < 0.0:
        return _bin_of(w, ranges[1], ranges[2], b_neg)
    if w > 0.0:
        return b_neg + _bin_of(w, ranges[4], ranges[5], b_pos)
    return -1


@njit(cache=True, nogil=True, inline="always")
def _bin_in_side(w, low, span, n_bins):
    """:func:`_bin_of` with the side's ``span`` = (high - low) / n_bins computed once; a side of one bin needs
    no division (its floor is 0 whenever w >= low)."""
    if n_bins == 1 or span <= 0.0:
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
    return assign_bins_into(g, h, full_hessian, params, l2, l1, bins, sizes, np.empty(g.shape[0]))


@njit(cache=True, nogil=True)
def assign_bins_into(g, h, full_hessian, params, l2, l1, bins, sizes, crit):
    """:func:`assign_bins` with float scratch ``crit`` (K): each label's criterion computed once (one
    division per label, the per-candidate cost of label binning), each side's bin width once."""
    K = g.shape[0]
    ranges = _NO_RANGES
    for k in range(K):
        w = _bin_criterion(g, h, full_hessian, k, l2, l1)
        crit[k] = w
        ranges = _widen(ranges, w)
    b_neg, b_pos = _cleared_bins(ranges, params, sizes)
    if b_neg <= 1 and b_pos <= 1:  # a bin per sign at most (K <= 25 at the default ratio): the bin is the sign
        for k in range(K):
            w = crit[k]
            bins[k] = 0 if w < 0.0 else (b_neg if w > 0.0 else -1)
        if b_neg == 1:
            sizes[0] = ranges[0]
        if b_pos == 1:
            sizes[b_neg] = ranges[3]
        return b_neg + b_pos
    span_neg = (ranges[2] - ranges[1]) / b_neg if b_neg > 0 else 0.0
    span_pos = (ranges[5] - ranges[4]) / b_pos if b_pos > 0 else 0.0
    for k in range(K):
        w = crit[k]
        b = -1
        if w < 0.0:
            b = _bin_in_side(w, ranges[1], span_neg, b_neg)
        elif w > 0.0:
            b = b_neg + _bin_in_side(w, ranges[4], span_pos, b_pos)
        bins[k] = b
        if b >= 0:
            sizes[b] += 1
    return b_neg + b_pos


@njit(cache=True, nogil=True)
def _empty_bin_system(sizes, total, params, full_hessian, slot, sub_g, sub_h):
    """``slot``: the row of each non-empty bin (-1: empty); the rows of ``sub_g`` and the packed (or
    diagonal) entries of ``sub_h`` zeroed for them.  Returns their number."""
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
    return m


@njit(cache=True, nogil=True, inline="always")
def _insert_by_label(out_labels, out_scores, a, v, p):
    """Label ``v`` with score ``p`` inserted into the ``a`` entries before it, sorted by label."""
    b = a
    while b > 0 and out_labels[b - 1] > v:
        out_labels[b] = out_labels[b - 1]
        out_scores[b] = out_scores[b - 1]
        b -= 1
    out_labels[b] = v
    out_scores[b] = p


@njit(cache=True, nogil=True)
def sort_ascending(labels, n):
    """``labels[:n]`` in ascending order (insertion sort: n is small), as mlrl-boomer sorts a head."""
    for a in range(1, n):
        v = labels[a]
        b = a
        while b > 0 and labels[b - 1] > v:
            labels[b] = labels[b - 1]
            b -= 1
        labels[b] = v


@njit(cache=True, nogil=True)
def _binned_system(g, h, full_hessian, params, l2, l1, bins, sizes, slot, sub_g, sub_h):
    """Aggregate the statistics per non-empty bin; ``slot`` maps a bin to its row.  Returns the
    number of non-empty bins; the L2 weight of a bin is lambda * size (added as lambda * (size - 1)
    because the solvers add lambda once).  As in mlrl-boomer 0.15.6 a bin's diagonal entry sums its
    labels' diagonal entries only: the Hessian entries between two labels of one bin are left out
    (:func:`_sum_between_bins` visits only the pairs of two bins)."""
    K = g.shape[0]
    crit = sub_g if sub_g.shape[0] >= K else np.empty(K)  # sub_g is written only after the bins are chosen
    total = assign_bins_into(g, h, full_hessian, params, l2, l1, bins, sizes, crit)
    m = _empty_bin_system(sizes, total, params, full_hessian, slot, sub_g, sub_h)
    if full_hessian:
        n_slots = max(total, 2 * int(params[3]))  # slot's entries past these are free (scratch of the sums)
        _sum_between_bins(g, h, bins, slot, m, sub_g, sub_h, slot[n_slots:])
    else:
        for k in range(K):
            if bins[k] >= 0:
                a = slot[bins[k]]
                sub_g[a] += g[k]
                sub_h[a] += h[k]
    for b in range(total):
        if slot[b] >= 0:
            a = slot[b]
            sub_h[packed_index(a, a, m) if full_hessian else a] += l2 * (sizes[b] - 1)
    return m


@njit(cache=True, nogil=True)
def _sum_between_bins(g, h, bins, slot, m, sub_g, sub_h, work):
    """The gradients and packed Hessian ``h`` of K labels summed into the m rows of their bins: a row's
    diagonal sums its labels' diagonal entries, entry (a, c) the entries between a label of row a and one
    of row c.  The labels of each row are listed in ascending order, so for each label k (ascending) the
    entries (k, l), l > k, of every other row are added in ascending l: every sum takes its terms in the
    order of the pairwise loop over (k, l), k <= l, bit for bit, without visiting the pairs inside a bin
    (most of them: at K = 20 labels and one bin of each sign, about 50 of 190 pairs lie between bins).
    ``work``: int scratch of K + 2m + 1 entries (allocated here when shorter)."""
    K = g.shape[0]
    if work.shape[0] < K + 2 * m + 1:
        work = np.empty(K + 2 * m + 1, dtype=np.int64)
    order = work[:K]
    start = work[K:K + m + 1]  # row a's labels: order[start[a]:start[a + 1]]
    nxt = work[K + m + 1:K + 2 * m + 1]  # per row: its first label above every label visited so far
    for a in range(m + 1):
        start[a] = 0
    for k in range(K):
        if bins[k] >= 0:
            start[slot[bins[k]] + 1] += 1
    for a in range(m):
        start[a + 1] += start[a]
    for a in range(m):
        nxt[a] = start[a]
    for k in range(K):
        if bins[k] >= 0:
            a = slot[bins[k]]
            order[nxt[a]] = k
            nxt[a] += 1
    for a in range(m):
        nxt[a] = start[a]
    for k in range(K):
        if bins[k] < 0:
            continue
        a = slot[bins[k]]
        nxt[a] += 1
        sub_g[a] += g[k]
        pk = packed_index(k, k, K)
        sub_h[packed_index(a, a, m)] += h[pk]
        base = pk - k  # entry (k, l) is h[base + l]
        for c in range(m):
            if c == a:
                continue
            idx = packed_index(min(a, c), max(a, c), m)
            acc = sub_h[idx]
            for q in range(nxt[c], start[c + 1]):
                acc += h[base + order[q]]
            sub_h[idx] = acc


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
def binned_partial_system(g, h, full_hessian, mode, params, l2, l1, labels, sizes, slot, sub_g, sub_h):
    """A partial head with label binning as mlrl-boomer 0.15.6 builds it (``HEAD_BINNED_FIXED``,
    ``HEAD_BINNED_DYNAMIC``; its ``rule_evaluation_*_partial_*_binned`` with the equal-width binning of
    ``label_binning_equal_width.cpp``): the labels are selected as the partial head's (written to
    ``labels``, in the selection's order), their individual scores are binned as :func:`assign_bins`
    bins a complete head's (per sign, ``params[4:7]``), and each bin's score solves the reduced system
    (L2 weighted by the bin's size, the entries between two labels of one bin left out).  That system
    is reproduced with the reference's quirk: the statistics position a of the selection adds to its
    bin are those of label a (the first n labels of the vector), not of the selected label a
    (``aggregateGradientsAndHessians`` and the decomposable ``callback`` index the statistic vector by
    the position).  Returns (n selected, m non-empty bins, the bin of each position (-1: score 0));
    ``slot`` maps a bin to its row of ``sub_g``, ``sub_h``."""
    K = g.shape[0]
    n = select_labels(g, h, full_hessian, mode, params, l2, l1, labels, sub_g)
    bins = np.empty(n, dtype=np.int64)
    crit = np.empty(n)
    ranges = _NO_RANGES
    for a in range(n):
        crit[a] = _label_score(g, h, full_hessian, labels[a], l2, l1)
        ranges = _widen(ranges, crit[a])
    b_neg, b_pos = _cleared_bins(ranges, params, sizes)
    total = b_neg + b_pos
    for a in range(n):
        bins[a] = _bin_index(crit[a], ranges, b_neg, b_pos)
        if bins[a] >= 0:
            sizes[bins[a]] += 1
    m = _empty_bin_system(sizes, total, params, full_hessian, slot, sub_g, sub_h)
    for a in range(n):  # position a adds label a's statistics (the reference's quirk)
        if bins[a] < 0:
            continue
        r = slot[bins[a]]
        sub_g[r] += g[a]
        if full_hessian:
            sub_h[packed_index(r, r, m)] += h[packed_index(a, a, K)]
            for b in range(a + 1, n):
                if bins[b] < 0 or bins[b] == bins[a]:
                    continue
                c = slot[bins[b]]
                sub_h[packed_index(min(r, c), max(r, c), m)] += h[packed_index(a, b, K)]
        else:
            sub_h[r] += h[a]
    for b in range(total):
        if slot[b] >= 0:
            r = slot[b]
            sub_h[packed_index(r, r, m) if full_hessian else r] += l2 * (sizes[b] - 1)
    return n, m, bins


@njit(cache=True, nogil=True)
def variant_quality(g, h, full_hessian, mode, params, l2, l1, chol, z, labels, sizes, slot, sub_g, sub_h):
    """Eq. (14) quality of the best head of a partial or binned ``mode`` (for partial heads of a full
    Hessian mlrl-boomer 0.15.6's, :func:`leading_block_quality`); scratch: ``labels``,
    ``sizes``, ``slot`` (int, >= max(K, 2B)), ``sub_g`` (K), ``sub_h`` (packed K)."""
    if mode == HEAD_BINNED:
        m = _binned_system(g, h, full_hessian, params, l2, l1, labels, sizes, slot, sub_g, sub_h)
        if m == 0:
            return math.inf
        return binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, 2 * int(params[3]), chol, z, False)
    if mode == HEAD_BINNED_FIXED or mode == HEAD_BINNED_DYNAMIC:
        n, m, _ = binned_partial_system(g, h, full_hessian, mode, params, l2, l1, labels, sizes, slot, sub_g, sub_h)
        if m == 0:
            return math.inf
        return binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, 2 * int(params[3]), chol, z, False)
    n = select_labels(g, h, full_hessian, mode, params, l2, l1, labels, sub_g)
    if n == 0:
        return math.inf
    if not full_hessian:  # the chosen labels' eq. (17) qualities, summed
        q = 0.0
        for a in range(n):
            q += label_quality(g[labels[a]], h[labels[a]], l2, l1)
        return q
    gather_as_reference(g, h, labels, n, sub_g, sub_h)
    solve_as_sysv(sub_g, sub_h, n, l2, l1, chol, z)
    return leading_block_quality(z, g, h, n, l2, l1)


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
    if mode == HEAD_BINNED_FIXED or mode == HEAD_BINNED_DYNAMIC:
        n, m, bins = binned_partial_system(g, h, full_hessian, mode, params, l2, l1, labels, sizes, slot, sub_g,
                                           sub_h)
        bin_scores = np.zeros(max(m, 1))
        if m > 0:
            binned_solve(sub_g, sub_h, m, full_hessian, l2, l1, sizes, slot, 2 * int(params[3]), chol, bin_scores,
                         True)
        for a in range(n):  # the selected labels with their bins' scores, sorted by label
            _insert_by_label(out_labels, out_scores, a, labels[a], bin_scores[slot[bins[a]]] if bins[a] >= 0 else 0.0)
        for a in range(n):
            out_scores[a] *= scale
        return n
    n = select_labels(g, h, full_hessian, mode, params, l2, l1, labels, sub_g)
    if full_hessian and n > 0:
        # mlrl-boomer's sub-system (:func:`gather_as_reference`) in the order of the selection, then the
        # labels and their scores sorted by label, as it sorts a refinement's head
        gather_as_reference(g, h, labels, n, sub_g, sub_h)
        solve_as_sysv(sub_g, sub_h, n, l2, l1, chol, out_scores)
        for a in range(n):
            _insert_by_label(out_labels, out_scores, a, labels[a], out_scores[a])
        for a in range(n):
            out_scores[a] *= scale
        return n
    # predict the selected labels in ascending order, as complete heads do (mlrl-boomer sorts a
    # refinement's head by label)
    sort_ascending(labels, n)
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
