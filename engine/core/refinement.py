"""Greedy top-down rule refinement (Rapp et al. 2020, Alg. 2 and 3).

Each refinement step samples attributes (Alg. 3 line 2), sweeps every sampled attribute
once over its pre-sorted covered examples while accumulating weighted gradient and Hessian
sums, and evaluates each threshold (midpoint between adjacent distinct values) in O(K), or
with one K x K Cholesky solve for complete heads of non-decomposable losses.  The best
condition is added while it improves the objective (eq. 14); examples with a missing value
are never covered by a condition on that attribute.

Operator codes: 0 ``<=``, 1 ``>``, 2 ``==``, 3 ``!=`` (:mod:`.sweep`).

Each attribute is swept by the shared walk of :mod:`.sweep` with BOOMER's hooks: the gradient and
Hessian sums of the two sides and of the valid covered examples are rows of two accumulator
matrices, indexed in place, and the best condition so far is a tuple of scalars, so the hot path
(a threshold's quality) takes no array from a tuple and no row as a view: each would cost reference
counting at every threshold, which once made fitting 2.5 times slower (single-label heads).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from .head_variants import (HEAD_BINNED, HEAD_BINNED_DYNAMIC, HEAD_BINNED_FIXED, HEAD_COMPLETE, HEAD_PARTIAL_DYNAMIC,
                            HEAD_PARTIAL_FIXED, HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE, select_labels, sort_ascending,
                            variant_quality)
from .borrowed import borrowed
from .covered_entries import COMPACT_MAX_SHARE, MISSING, compact_covered
from .gnu_sort import gnu_order
from .heads import diagonal_position, head_quality, label_quality, largest_score_quality
from .losses import packed_index
from .reference_random import FEATURE_SLOT, feature_sample

from .sweep import (OP_EQ, OP_GT, OP_GT_NEG, OP_GT_OR_ZERO, OP_GT_ZERO, OP_LEQ, OP_LEQ_NEG,  # noqa: F401 - the codes
                    OP_LEQ_NONZERO, OP_LEQ_ZERO, OP_NEQ, SEARCH_BINNED, SEARCH_BINNED_EXACT, SEARCH_BINNED_FILTERED,
                    SEARCH_DENSE, SEARCH_OURS, SEARCH_SPARSE, OUT_OF_SAMPLE, model_operator, rebound, specialise)


@njit(cache=True, nogil=True)
def rng_next(state):
    """xorshift64* step; ``state`` is a one-element uint64 array."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(cache=True, nogil=True)
def rng_below(state, n):
    """Uniform integer in [0, n) for n < 2**32 (multiply-shift, no division)."""
    return np.int64(((rng_next(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True)
def sample_features(perm, m, state):
    """Partial Fisher-Yates: the first ``m`` entries of ``perm`` become a uniform sample.  A second entry
    of ``state`` r > 0 (mlrl-boomer's ``num_retained``) keeps ``perm[:r]`` (the retained attributes, first
    in every sample, as there) and draws the other ``m - r`` among the rest.  A third entry is mlrl-boomer's
    attributes' generator: then the reference's draws (:func:`.reference_random.feature_sample`)."""
    if state.shape[0] > FEATURE_SLOT:
        feature_sample(perm, m, state)
        return
    d = perm.shape[0]
    r = np.int64(state[1]) if state.shape[0] > 1 else np.int64(0)
    for i in range(r, m):
        j = i + rng_below(state, d - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t


@njit(cache=True, nogil=True)
def _fixed_label_quality(g, h, l2, bound):
    """Eq. (17) quality of one label without L1, or +inf when it cannot be below ``bound``
    (decided by a multiplication: most thresholds of a sweep are not the best so far)."""
    d = h + l2
    if d <= 0.0:
        return 0.0
    n = g * g
    if n > -2.0 * bound * d:
        return -0.5 * n / d
    return math.inf


# Rows of the accumulators ``A_g`` (5 x K) and ``A_h`` (5 x S): the walk's two sides (0: the prefix
# "x <= t" or a nominal group, 1: the suffix "x > t" or all nominal groups), the valid covered examples,
# scratch for their difference, and the statistics of the best condition so far.  Indexed in place: a
# row taken as a view costs reference counting.
_VALID, _REST, _BEST = 2, 3, 4
ACCUMULATOR_ROWS = 5
# Rows of ``A_g`` after those (the fast sweeps' complete heads, see _complete_bound): per side, 1/(h + lambda)
# of the side and of its complement at their last exact sums, and the side's Hessians then
# (column 0 of rows _SNAP_TAKEN: 2 when the side has a snapshot since its reset, 1 after one exact sum)
_SNAP_SIDE, _SNAP_REST, _SNAP_H, _SNAP_TAKEN = 5, 7, 9, 11
GRADIENT_ACCUMULATOR_ROWS = ACCUMULATOR_ROWS + 8  # the rows of A_g
# below this many labels (emotions: 6) the snapshots cost more than they save (15 %); yeast (14): 26 % faster
SNAPSHOT_MIN_LABELS = 8
TIE_TOLERANCE = 1e-12  # relative difference of two qualities below which the earlier candidate wins
# A bound of a complete head's quality rules a side out only by this margin (far above the rounding of
# a sum of K terms): what it rules out is not within rounding of the bound.
_BOUND_MARGIN = 1.0 + 1e-9


@njit(cache=True, nogil=True)
def _allowed(cnt_x, n_valid, T_cnt, min_coverage):
    """Whether a condition covering ``cnt_x`` of the ``n_valid`` examples, and its complement, may
    be chosen: it must cover at least ``min_coverage`` examples and fewer than all ``T_cnt``."""
    cnt_r = n_valid - cnt_x
    return (cnt_x > 0 and cnt_x >= min_coverage and cnt_x < T_cnt,
            cnt_r > 0 and cnt_r >= min_coverage and cnt_r < T_cnt)


@njit(cache=True, nogil=True)
def _is_fast(cfg):
    """Whether :func:`_fast_quality` serves the heads of ``cfg``: a label fixed by the rule's first
    condition, or single-label and complete heads with diagonal Hessians, L2 and no L1 (eq. 17)."""
    head = cfg[2]
    return head >= 0 or (head >= HEAD_COMPLETE and not cfg[1] and cfg[4] == 0.0 and cfg[3] > 0.0)


# Ulps of the largest fraction within which a label is a candidate of _best_label: at least a relative 1e-12
# (an ulp of a double is between 2^-53 and 2^-52 of it), far above the rounding of a cross product.
_CANDIDATE_ULPS = 9008


@njit(cache=True, nogil=True, inline="always")
def _fraction_terms(A_g, A_h, x, k, complement, by_score):
    """Label k's numerator (|g| by score, else g^2) and Hessian in row ``x`` or its complement."""
    g = A_g[x, k]
    h = A_h[x, k]
    if complement:
        g = A_g[_VALID, k] - g
        h = A_h[_VALID, k] - h
    return (abs(g) if by_score else g * g), h


@njit(cache=True, nogil=True, error_model="numpy")  # (no divisor is 0: lambda > 0; Python's check of each
def _fractions(A_g, A_h, x, complement, l2, by_score):  # one kept the loop scalar)
    """Row ``_REST`` of ``A_g`` (scratch in the fast sweeps) := (|g| by score, else g^2) / (h + lambda) of
    row ``x`` or its complement, a division per label (vectorised); returns the largest one's bits.
    The fractions are not negative, so their int64 bit patterns order as they do: an integer maximum,
    which vectorises (a floating-point one does not here)."""
    for k in range(A_g.shape[1]):
        n, h = _fraction_terms(A_g, A_h, x, k, complement, by_score)
        A_g[_REST, k] = n / (h + l2)
    bits = A_g[_REST].view(np.int64)
    largest = 0
    for k in range(bits.shape[0]):
        b = bits[k]
        largest = b if b > largest else largest
    return largest


@njit(cache=True, nogil=True)
def _best_label(A_g, A_h, x, complement, l2, by_score):
    """The label with the largest fraction (|g| by score, else g^2) / (h + lambda) in row ``x`` or
    its complement among the valid examples, the first on a tie: (numerator, denominator, label;
    -1 if no label's numerator is positive), by a running best that compares fractions by their
    cross products.  It runs over the labels within _CANDIDATE_ULPS of the largest fraction only
    (:func:`_fractions`): the others could not replace any of those in it (rounding is far smaller),
    and the first of those replaces whatever came before it, so the result is the scan's over every
    label (all fractions 0: every label).  Not inlined (a copy in every sweep cost seconds of compile
    time): the sweep calls it only for the sides its bound keeps."""
    low = _fractions(A_g, A_h, x, complement, l2, by_score) - _CANDIDATE_ULPS
    bits = A_g[_REST].view(np.int64)
    best_n = 0.0
    best_d = 1.0
    best_k = -1
    for k in range(A_g.shape[1]):
        if bits[k] < low:
            continue
        n, h = _fraction_terms(A_g, A_h, x, k, complement, by_score)
        d = h + l2
        if n * best_d > best_n * d:
            best_n = n
            best_d = d
            best_k = k
    return best_n, best_d, best_k


@njit(cache=True, nogil=True)
def _complete_sums(A_g, A_h, x, l2):
    """Both sides' sums of g^2 / (h + lambda) over the labels (eq. 17): a complete head's quality is
    -1/2 times its side's sum.  Not inlined: the sweep calls it only for the sides its bound keeps."""
    sx = 0.0
    sr = 0.0
    for k in range(A_g.shape[1]):
        gx = A_g[x, k]
        gr = A_g[_VALID, k] - gx
        sx += gx * gx / (A_h[x, k] + l2)
        sr += gr * gr / (A_h[_VALID, k] - A_h[x, k] + l2)
    return sx, sr


# Its result only rules out sides by _BOUND_MARGIN, so its sums may be reordered (vectorised): the rounding of
# K non-negative terms in any order is far below the margin.
@njit(cache=True, nogil=True, fastmath={"reassoc", "nnan", "ninf", "nsz", "contract"})
def _complete_bound(A_g, A_h, x):
    """Upper bounds of both sides' sums of g^2 / (h + lambda) (eq. 17), without a division: a side's
    Hessians only grow during a walk, so 1 / (h + lambda) at its last exact sum (row _SNAP_SIDE) bounds
    it; the complement's shrink by the growth d of the side's since then, and 1 / (a - d) <= (1 + 2u) / a
    with u = d / a while u <= 1/2 (row _SNAP_REST: 1 / a; _SNAP_H: the side's Hessians then).
    Returns (bound of the side, bound of the complement, the number of labels whose u exceeds 1/2: the
    latter bound holds only if there is none; a count, not the largest u, so that the loop vectorises)."""
    bx = 0.0
    br = 0.0
    n_far = 0
    for k in range(A_g.shape[1]):
        gx = A_g[x, k]
        gr = A_g[_VALID, k] - gx
        c = A_g[_SNAP_REST + x, k]
        u = (A_h[x, k] - A_g[_SNAP_H + x, k]) * c
        n_far += 1 if u > 0.5 else 0
        bx += gx * gx * A_g[_SNAP_SIDE + x, k]
        br += gr * gr * c * (1.0 + 2.0 * u)
    return bx, br, n_far


@njit(cache=True, nogil=True, error_model="numpy")  # (lambda > 0: no divisor is 0; vectorised)
def _snapshot(A_g, A_h, x, l2):
    """Rows _SNAP_* of side ``x`` from its statistics now (:func:`_complete_bound`)."""
    for k in range(A_g.shape[1]):
        h = A_h[x, k]
        A_g[_SNAP_SIDE + x, k] = 1.0 / (h + l2)
        A_g[_SNAP_REST + x, k] = 1.0 / (A_h[_VALID, k] - h + l2)
        A_g[_SNAP_H + x, k] = h
    A_g[_SNAP_TAKEN + x, 0] = 2.0


@njit(cache=True, nogil=True, inline="always")
def _fast_quality(A_g, A_h, x, cnt_x, n_valid, cfg, bound, snapshots):
    """Eq. (14) qualities of the examples accumulated in row ``x`` and of their complement among the
    valid covered examples (row ``_VALID``), for the heads :func:`_is_fast` names; +inf where a
    side's coverage is not allowed.  The sweep keeps a side only if it is below ``bound`` (its best
    quality so far): where that is cheap to rule out, +inf is returned instead of the quality.
    ``cfg`` = (covered count, full Hessian, head, L2, L1, min coverage); ``snapshots``: the walk keeps
    rows _SNAP_* of ``A_g`` (:func:`_reset_fast`), which bound complete heads far more tightly once a
    side's sums were taken exactly (until then, and in other walks, the minimal Hessian bounds them).
    Returns (quality X, label X, quality rest, label rest)."""
    T_cnt, full_hessian, head, l2, l1, min_coverage = cfg
    ok_x, ok_r = _allowed(cnt_x, n_valid, T_cnt, min_coverage)
    qx = math.inf
    qr = math.inf
    lx = -1
    lr = -1
    if head >= 0:
        # single-label head whose label was fixed by the rule's first condition
        d = diagonal_position(head, A_g.shape[1], full_hessian)
        gx = A_g[x, head]
        hx = A_h[x, d]
        gr = A_g[_VALID, head] - gx
        hr = A_h[_VALID, d] - hx
        if l1 == 0.0:
            if ok_x:
                qx, lx = _fixed_label_quality(gx, hx, l2, bound), head
            if ok_r:
                qr, lr = _fixed_label_quality(gr, hr, l2, bound), head
            return qx, lx, qr, lr
        if ok_x:
            qx, lx = label_quality(gx, hx, l2, l1), head
        if ok_r:
            qr, lr = label_quality(gr, hr, l2, l1), head
        return qx, lx, qr, lr
    # diagonal Hessians, L2 and no L1 (eq. 17): both sides in one branch-free pass
    K = A_g.shape[1]
    limit = -2.0 * bound
    if head == HEAD_SINGLE or head == HEAD_SINGLE_LARGEST_SCORE:
        # the best label by g^2 / (h + lambda) (eq. 17), or with the largest |score| = |g| / (h + lambda)
        # (mlrl-boomer's choice, ranked by its quality), compared as fractions (a / b > c / d iff
        # a d > c b, denominators positive): no division per label.  A side's best label is searched
        # only if some label's quality is below the bound (g^2 > limit (h + lambda), as tested at the
        # end): that test has no running best to wait for, and most thresholds fail it
        by_score = head == HEAD_SINGLE_LARGEST_SCORE
        search_x = ok_x
        search_r = ok_r
        if bound < math.inf:
            hits_x = 0
            hits_r = 0
            for k in range(K):
                gx = A_g[x, k]
                gr = A_g[_VALID, k] - gx
                hits_x += 1 if gx * gx > limit * (A_h[x, k] + l2) else 0
                hits_r += 1 if gr * gr > limit * (A_h[_VALID, k] - A_h[x, k] + l2) else 0
            search_x = search_x and hits_x > 0
            search_r = search_r and hits_r > 0
        if search_x:
            bxn, bxd, lx = _best_label(A_g, A_h, x, False, l2, by_score)
            if by_score:  # the numerator is |g|: the quality's is g^2
                bxn *= bxn
            if lx >= 0 and bxn > limit * bxd:
                qx = -0.5 * bxn / bxd
        if search_r:
            brn, brd, lr = _best_label(A_g, A_h, x, True, l2, by_score)
            if by_score:
                brn *= brn
            if lr >= 0 and brn > limit * brd:
                qr = -0.5 * brn / brd
    else:
        # complete heads: a side is below the bound only if its sum of g^2 / (h + lambda) exceeds the
        # limit; the snapshot bound (_complete_bound) or, before a side's snapshot and with few labels,
        # sum g^2 / (min h + lambda) is at least that sum (Hessians of decomposable losses are not
        # negative), without a division per label.  Their margin covers the rounding of either sum, so
        # a side they rule out could not have been kept.
        need_x = ok_x
        need_r = ok_r
        snapshots = snapshots and K >= SNAPSHOT_MIN_LABELS
        if bound < math.inf and snapshots and A_g[_SNAP_TAKEN + x, 0] == 2.0:
            # on a 10^4 x 50 x 20 fit, 3 % of the thresholds the bound below keeps (it keeps 96 %)
            bx, br, n_far = _complete_bound(A_g, A_h, x)
            if bx * _BOUND_MARGIN <= limit:
                need_x = False
            if n_far == 0 and br * _BOUND_MARGIN <= limit:
                need_r = False
        elif bound < math.inf:
            ggx = 0.0
            ggr = 0.0
            hx_min = math.inf
            hr_min = math.inf
            for k in range(K):
                gx = A_g[x, k]
                gr = A_g[_VALID, k] - gx
                hx = A_h[x, k]
                ggx += gx * gx
                ggr += gr * gr
                hx_min = min(hx_min, hx)
                hr_min = min(hr_min, A_h[_VALID, k] - hx)
            if hx_min + l2 > 0.0 and ggx * _BOUND_MARGIN <= limit * (hx_min + l2):
                need_x = False
            if hr_min + l2 > 0.0 and ggr * _BOUND_MARGIN <= limit * (hr_min + l2):
                need_r = False
        if need_x or need_r:
            sx, sr = _complete_sums(A_g, A_h, x, l2)
            if snapshots:  # from the second exact sums of a walk's side on (enron's walks have one or two)
                if A_g[_SNAP_TAKEN + x, 0] != 0.0:
                    _snapshot(A_g, A_h, x, l2)
                else:
                    A_g[_SNAP_TAKEN + x, 0] = 1.0
            if need_x:
                qx = -0.5 * sx
            if need_r:
                qr = -0.5 * sr
    return qx, lx, qr, lr


@njit(cache=True, nogil=True)
def _split_quality(A_g, A_h, x, cnt_x, n_valid, ctx, bound):
    """:func:`_fast_quality` for every single-label and complete head; ``ctx`` is the walk's (see
    the hooks).  Full Hessians and L1 cost O(K^2) or more per threshold, so the rows are taken as
    vectors here."""
    cfg = ctx[0]
    if _is_fast(cfg):
        return _fast_quality(A_g, A_h, x, cnt_x, n_valid, cfg, bound, False)
    T_cnt, full_hessian, head, l2, l1, min_coverage = cfg
    chol = ctx[1]
    z = ctx[2]
    ok_x, ok_r = _allowed(cnt_x, n_valid, T_cnt, min_coverage)
    qx, lx, qr, lr = math.inf, -1, math.inf, -1
    if ok_x:
        qx, lx = _side_quality(A_g[x], A_h[x], full_hessian, head, l2, l1, chol, z)
    if ok_r:
        _rest(A_g, A_h, x)
        qr, lr = _side_quality(A_g[_REST], A_h[_REST], full_hessian, head, l2, l1, chol, z)
    return qx, lx, qr, lr


@njit(cache=True, nogil=True)
def _side_quality(g, h, full_hessian, head, l2, l1, chol, z):
    """(quality, label or -1) of one side's optimal head: single-label by either choice, or complete."""
    if head == HEAD_SINGLE_LARGEST_SCORE:
        return largest_score_quality(g, h, full_hessian, l2, l1)
    return head_quality(g, h, full_hessian, head == HEAD_SINGLE, l2, l1, chol, z)


@njit(cache=True, nogil=True)
def _rest(A_g, A_h, x):
    """Row ``_REST`` = row ``_VALID`` - row ``x``: the statistics of the complement."""
    for k in range(A_g.shape[1]):
        A_g[_REST, k] = A_g[_VALID, k] - A_g[x, k]
    for k in range(A_h.shape[1]):
        A_h[_REST, k] = A_h[_VALID, k] - A_h[x, k]


@njit(cache=True, nogil=True)
def _split_quality_variants(A_g, A_h, x, cnt_x, n_valid, ctx, bound):
    """:func:`_split_quality` for partial heads and label binning (``head`` a mode of
    :mod:`.head_variants`; ``ctx`` holds their scratch).  A separate function, so the sweeps of the
    other heads are compiled without this code (it would stop their inlining)."""
    T_cnt, full_hessian, head, l2, l1, min_coverage = ctx[0]
    if head > HEAD_PARTIAL_FIXED:
        return _split_quality(A_g, A_h, x, cnt_x, n_valid, ctx, bound)
    chol, z, params, vi, vg, vh = ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6]
    ok_x, ok_r = _allowed(cnt_x, n_valid, T_cnt, min_coverage)
    qx = math.inf
    qr = math.inf
    if ok_x:
        qx = variant_quality(A_g[x], A_h[x], full_hessian, head, params, l2, l1, chol, z, vi[0], vi[1], vi[2], vg, vh)
    if ok_r:
        _rest(A_g, A_h, x)
        qr = variant_quality(A_g[_REST], A_h[_REST], full_hessian, head, params, l2, l1, chol, z, vi[0], vi[1], vi[2],
                             vg, vh)
    return qx, -1, qr, -1


@njit(cache=True, nogil=True)
def _keep(A_g, A_h, x, complement):
    """Remember the statistics of the best condition so far (row ``x``, or its complement) in row
    ``_BEST``."""
    if complement:
        for k in range(A_g.shape[1]):
            A_g[_BEST, k] = A_g[_VALID, k] - A_g[x, k]
        for k in range(A_h.shape[1]):
            A_h[_BEST, k] = A_h[_VALID, k] - A_h[x, k]
    else:
        for k in range(A_g.shape[1]):
            A_g[_BEST, k] = A_g[x, k]
        for k in range(A_h.shape[1]):
            A_h[_BEST, k] = A_h[x, k]


# -- the walk's hooks (engine.core.sweep): S1 = G (N x K), S2 = H (N x S), A1 = A_g (5 x K), A2 = A_h (5 x S);
#    ctx = (cfg, chol, z, params, vi, vg, vh) with cfg = (T_cnt, full_hessian, head, l2, l1, min_coverage),
#    its arrays taken out only where a rare branch needs them; best = (quality, operator, threshold, label,
#    covered).  The statistics of the best condition are kept in the accumulators (row _BEST), not in
#    arrays of ctx: taking them out of the tuple keeps Numba from pruning reference counting (see
#    _consider_fast).
@njit(cache=True, nogil=True, inline="always")
def _drop(ctx, G, H, A_g, A_h, i, w):
    for k in range(A_g.shape[1]):
        A_g[_VALID, k] -= w * G[i, k]
    for k in range(A_h.shape[1]):
        A_h[_VALID, k] -= w * H[i, k]


@njit(cache=True, nogil=True, inline="always")
def _reset(ctx, A_g, A_h, side):
    for k in range(A_g.shape[1]):
        A_g[side, k] = 0.0
    for k in range(A_h.shape[1]):
        A_h[side, k] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _reset_fast(ctx, A_g, A_h, side):
    """:func:`_reset`, and the side has no snapshot (:func:`_complete_bound`): one is taken at its second
    exact sums (a division per label, which a walk of few thresholds would not repay)."""
    for k in range(A_g.shape[1]):
        A_g[side, k] = 0.0
    for k in range(A_h.shape[1]):
        A_h[side, k] = 0.0
    A_g[_SNAP_TAKEN + side, 0] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _add(ctx, G, H, A_g, A_h, side, i, w):
    for k in range(A_g.shape[1]):
        A_g[side, k] += w * G[i, k]
    for k in range(A_h.shape[1]):
        A_h[side, k] += w * H[i, k]


@njit(cache=True, nogil=True, inline="always")
def _merge(ctx, A_g, A_h):
    for k in range(A_g.shape[1]):
        A_g[1, k] += A_g[0, k]
    for k in range(A_h.shape[1]):
        A_h[1, k] += A_h[0, k]


@njit(cache=True, nogil=True, inline="always")
def _consider(ctx, A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best):
    """Offer the condition covering row ``side`` (``op_side``) and its complement among the valid
    examples (``op_rest``) at ``threshold``; the statistics of a new best go to row ``_BEST``."""
    cfg = ctx[0]
    if _is_fast(cfg):
        qx, lx, qr, lr = _fast_quality(A_g, A_h, side, count, n_valid, cfg, best[0], False)
    else:
        qx, lx, qr, lr = _split_quality(A_g, A_h, side, count, n_valid, ctx, best[0])
    return _offer(A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best, qx, lx, qr, lr)


@njit(cache=True, nogil=True, inline="always")
def _consider_fast(ctx, A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best):
    """:func:`_consider` for the heads :func:`_is_fast` names.  Its own hook, so that its sweeps hold
    no call that takes arrays: such a call (here the one to :func:`_split_quality`, even where it is
    never reached) keeps Numba from pruning the reference counting of the arrays the inlined hooks
    see, about 20 calls to NRT_incref and NRT_decref per threshold, which took half of the sweep's
    time."""
    qx, lx, qr, lr = _fast_quality(A_g, A_h, side, count, n_valid, ctx[0], best[0], True)
    return _offer(A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best, qx, lx, qr, lr)


@njit(cache=True, nogil=True, inline="always")
def _offer(A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best, qx, lx, qr, lr):
    """``best``, or the condition of quality ``qx`` (row ``side``, ``op_side``) or ``qr`` (its
    complement, ``op_rest``) if better.  The zero block of a nominal attribute ('!= 0' covers the
    row) offers '== 0' first."""
    best_q, best_op, best_thr, best_label, best_cnt = best
    rest_first = op_side == OP_NEQ
    if rest_first and qr < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qr, op_rest, threshold, lr, n_valid - count
        _keep(A_g, A_h, side, True)
    if qx < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qx, op_side, threshold, lx, count
        _keep(A_g, A_h, side, False)
    if not rest_first and qr < best_q:
        best_q, best_op, best_thr, best_label, best_cnt = qr, op_rest, threshold, lr, n_valid - count
        _keep(A_g, A_h, side, True)
    return best_q, best_op, best_thr, best_label, best_cnt


_walk = specialise("_walk_boomer", compact=True, reference=True, _drop=_drop, _reset=_reset, _add=_add,
                   _merge=_merge, _consider=_consider)


@njit(cache=True, nogil=True)
def _sweep_attribute(j, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, G, H,
                     T_g, T_h, T_cnt, full_hessian, head, l2, l1, min_coverage, best_g, best_h,
                     work_g, work_h, chol, z, params, vi, vg, vh, cancel, bound):
    """Best condition on attribute ``j`` (Alg. 2, one attribute) of quality below ``bound``: returns
    (quality, operator, threshold, head label, covered count), operator -1 if none; its statistics
    are written to ``best_g``, ``best_h``.
    ``work_g`` (5 x K), ``work_h`` (5 x S), ``chol`` (K x K for full Hessians) and ``z`` (K) are
    scratch space.  When ``cancel[0]`` is set (polled every few examples) it returns at once with
    no condition.  The covered entries are compacted into ``cache`` as the walk passes, so later
    steps of the rule visit only those (:mod:`.sweep`)."""
    for k in range(work_g.shape[1]):
        work_g[_VALID, k] = T_g[k]
    for k in range(work_h.shape[1]):
        work_h[_VALID, k] = T_h[k]
    ctx = ((T_cnt, full_hessian, head, l2, l1, min_coverage), chol, z, params, vi, vg, vh)
    ok, best = _walk(j, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, T_cnt, G, H, work_g,
                     work_h, ctx, (bound, -1, 0.0, -1, 0), cancel)
    if not ok or best[1] < 0:
        return math.inf, -1, 0.0, -1, 0
    for k in range(work_g.shape[1]):
        best_g[k] = work_g[_BEST, k]
    for k in range(work_h.shape[1]):
        best_h[k] = work_h[_BEST, k]
    return best


# Bit 1 of the coverage mask ``covered`` (bit 0: covered) after a rule: the head's statistics differ
# from the coverage for this example.  mlrl-boomer keeps the head its search rated when no example is
# out of the sample, and its boundary of a sparse vector with the zeros rates the positives without the
# smallest one while covering it ('>'), or with it while leaving it out ('<='), so the head of a rule that
# ends with such a condition takes that example's statistics out, or in (:func:`head_rows`).
STATISTICS_DIFFER = 2


@njit(cache=True, nogil=True, inline="always")
def smallest_positive(j, ptr, rows, values, weight):
    """The example of the smallest positive value of attribute ``j`` among the covered ones (in the sample or
    not, :data:`.sweep.OUT_OF_SAMPLE`), or -1 (also when that example is out of the sample: the reference's
    boundary with the zeros then rates every sampled positive)."""
    for idx in range(ptr[j], ptr[j + 1]):
        if values[idx] > 0.0 and weight[rows[idx]] != 0:
            return rows[idx] if weight[rows[idx]] > 0 else -1
    return -1


@njit(cache=True, nogil=True, inline="always")
def head_rows(covered, rows, n_rows):
    """The examples whose statistics make a rule's head: its covered ``rows[:n_rows]``, with the example
    :data:`STATISTICS_DIFFER` marks added or removed (a new array then).  Returns (rows, count)."""
    marked = -1
    for i in range(covered.shape[0]):
        if covered[i] & STATISTICS_DIFFER:
            marked = i
            break
    if marked < 0:
        return rows, n_rows
    out = np.empty(n_rows + 1, dtype=rows.dtype)
    n = 0
    for r in range(n_rows):
        if rows[r] != marked:
            out[n] = rows[r]
            n += 1
    if not covered[marked] & 1:
        out[n] = marked
        n += 1
    return out, n


def reference_sparse_format(X, feature_format=None) -> bool:
    """Whether mlrl-boomer 0.15.6 keeps the training attributes ``X`` in its sparse (CSC) format (zeros
    implicit; else its dense format stores every value), as its ``feature_format`` decides: never for
    dense input or 'dense'; SciPy sparse input with 'sparse'; unset or 'auto' sparse input whose stored
    entries take less memory than a dense float32 matrix."""
    if not sp.issparse(X) or feature_format == "dense":
        return False
    if feature_format == "sparse":
        return True
    n, d = X.shape
    return X.nnz * 8 + d * 4 < n * d * 4


def search_segments(index, sparse_format: bool, binned: bool | str = False, ordinal=None) -> np.ndarray:
    """``seg`` of BOOMER's walks (:mod:`.sweep`): the compaction state of each attribute, in the
    fifth column its row of ranks (-1: none yet, :func:`.covered_entries.rank_entries`) and, in the
    fourth column, how its numeric thresholds are searched: as mlrl-boomer 0.15.6 does on its dense
    vectors, or on its sparse ones (``sparse_format``, :func:`reference_sparse_format`) where an
    attribute has implicit zeros or missing values (mlrl-boomer's 'sparse' vectors hold fewer entries
    than examples); our own search for binned attributes and ``ordinal`` ones (a mask; mlrl-boomer
    searches both differently, :mod:`engine.ordinal`).  ``binned`` 'reference': the index holds mlrl-boomer's
    bins (:func:`.binning.reference_binned_matrix`), searched as :data:`.sweep.SEARCH_BINNED` (ordinal
    attributes as ours); 'reference-exact': a binning that lists every example in its bins (no filtered
    search, :data:`.sweep.SEARCH_BINNED_EXACT`)."""
    seg = np.zeros((index.n_features, 5), dtype=np.int64)
    seg[:, 4] = -1  # no ranks (.covered_entries.rank_entries)
    if binned == "reference" or binned == "reference-exact":
        seg[:, 3] = SEARCH_BINNED if binned == "reference" else SEARCH_BINNED_EXACT
        if ordinal is not None:
            seg[np.asarray(ordinal, dtype=bool), 3] = SEARCH_OURS
        return seg
    if binned:
        return seg
    if sparse_format:
        stored = np.diff(index.ptr)  # non-zero, non-missing values
        seg[:, 3] = np.where(stored < index.n_examples, SEARCH_SPARSE, SEARCH_DENSE)
    else:
        seg[:, 3] = SEARCH_DENSE
    if ordinal is not None:
        seg[np.asarray(ordinal, dtype=bool), 3] = SEARCH_OURS
    return seg


def order_as_reference(index, seg) -> None:
    """Equal values of the numeric attributes searched as mlrl-boomer's sparse vectors (``seg[j, 3]``,
    :func:`search_segments`) put in the order its vectors hold them (GCC's ``std::sort`` of the entries
    in row order, :func:`engine.core.gnu_sort.gnu_order`): the first covered one is the entry its
    search leaves out of the block against the zeros (:mod:`.sweep`), so which example that is
    decides the rule (on binary attributes, every time)."""
    numeric_sparse = (seg[:, 3] == SEARCH_SPARSE) & (index.nominal == 0)
    if numeric_sparse.any():
        gnu_order(index.ptr, index.rows, index.values, np.flatnonzero(numeric_sparse).astype(np.int64))


@njit(cache=True, nogil=True)
def binned_search_after(j, op, seg):
    """How mlrl-boomer searches its binned attributes after a condition on attribute ``j`` (``seg[:, 3]``,
    :mod:`.sweep`): every other one on a vector filtered by the new coverage; ``j`` on the bins the
    condition kept, whole bins unless it was a '>' on a filtered vector (then its sparse bin stays with
    the highest one)."""
    if seg.shape[1] <= 3:
        return
    for jj in range(seg.shape[0]):
        if jj != j and seg[jj, 3] == SEARCH_BINNED:
            seg[jj, 3] = SEARCH_BINNED_FILTERED
    if seg[j, 3] == SEARCH_BINNED_FILTERED and (op == OP_LEQ or op == OP_LEQ_NONZERO):
        seg[j, 3] = SEARCH_BINNED


@njit(cache=True, nogil=True)
def satisfies(op, threshold, v):
    """Whether a value satisfies a condition of the walk's operator ``op`` while training (mlrl-boomer's
    conditions next to the zeros, ``OP_*_NEG``/``OP_*_ZERO``, cover by the sign of the value)."""
    if op == OP_LEQ:
        return v <= threshold
    if op == OP_GT:
        return v > threshold
    if op == OP_EQ:
        return v == threshold
    if op == OP_NEQ:
        return v != threshold
    if op == OP_LEQ_NEG:
        return v < 0.0
    if op == OP_GT_NEG:
        return v >= 0.0
    if op == OP_LEQ_ZERO:
        return v <= 0.0
    if op == OP_LEQ_NONZERO:
        return v <= threshold and v != 0.0
    if op == OP_GT_OR_ZERO:
        return v > threshold or v == 0.0
    return v > 0.0


@njit(cache=True, nogil=True)
def apply_condition(j, op, threshold, ptr, rows, values, miss_ptr, miss_rows, covered):
    """Restrict the coverage mask (over all training examples) by one condition."""
    zero_ok = satisfies(op, threshold, 0.0)
    if not zero_ok:
        # Only non-zero values can satisfy: keep covered examples among them.
        keep = np.zeros(covered.shape[0], dtype=np.uint8)
        for idx in range(ptr[j], ptr[j + 1]):
            i = rows[idx]
            if covered[i] and satisfies(op, threshold, values[idx]):
                keep[i] = 1
        for i in range(covered.shape[0]):  # a loop: an array assignment compiles a shape check with messages
            covered[i] = keep[i]
    else:
        for idx in range(ptr[j], ptr[j + 1]):
            i = rows[idx]
            if covered[i] and not satisfies(op, threshold, values[idx]):
                covered[i] = 0
        for r in range(miss_ptr[j], miss_ptr[j + 1]):
            covered[miss_rows[r]] = 0


@njit(cache=True, nogil=True)
def restrict_covered(j, op, threshold, ptr, rows, values, miss_ptr, miss_rows, ranks, seg, covered, all_rows, n_all):
    """:func:`apply_condition` for a rule that covers the examples ``all_rows[:n_all]`` (in the sample
    or not): the list is shortened to those the condition keeps.  On an attribute with ``ranks``
    (:mod:`.covered_entries`) each covered example's value is looked up, O(covered) instead of O(N);
    otherwise the attribute's entries are applied and the list filtered (a fit without ranks keeps no
    list: ``n_all`` 0).  Returns the new count."""
    r = seg[j, 4] if ranks.shape[0] > 0 else -1
    n = 0
    if r < 0:
        apply_condition(j, op, threshold, ptr, rows, values, miss_ptr, miss_rows, covered)
        for q in range(n_all):
            i = all_rows[q]
            if covered[i]:
                all_rows[n] = i
                n += 1
        return n
    for q in range(n_all):
        i = all_rows[q]
        t = ranks[r, i]
        if t >= 0:
            keep = satisfies(op, threshold, values[t])
        else:
            keep = t != MISSING and satisfies(op, threshold, 0.0)
        if keep:
            all_rows[n] = i
            n += 1
        else:
            covered[i] = 0
    return n


@njit(cache=True, nogil=True, parallel=True)
def _best_conditions(candidates, n_candidates, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw,
                     G, H, T_g, T_h, T_cnt, full_hessian, head, l2, l1, min_coverage,
                     out_q, out_op, out_thr, out_label, out_cnt, out_g, out_h, work_g, work_h, chol, z,
                     params, vi, vg, vh, cancel):
    for c in prange(n_candidates):
        q, op, thr, lab, cnt = _sweep_attribute(candidates[c], ptr, rows, values, keys, cache, seg, miss_ptr,
                                                miss_rows, nominal, cw, G, H, T_g, T_h, T_cnt, full_hessian, head,
                                                l2, l1, min_coverage, out_g[c], out_h[c], work_g[c], work_h[c], chol[c],
                                                z[c], params, vi[c], vg[c], vh[c], cancel, math.inf)
        out_q[c] = q
        out_op[c] = op
        out_thr[c] = thr
        out_label[c] = lab
        out_cnt[c] = cnt


def _best_conditions_in_turn(candidates, n_candidates, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows,
                             nominal, cw, G, H, T_g, T_h, T_cnt, full_hessian, head, l2, l1, min_coverage,
                             out_q, out_op, out_thr, out_label, out_cnt, out_g, out_h, work_g, work_h, chol, z,
                             params, vi, vg, vh, cancel):
    """:func:`_best_conditions` one attribute after the other (a step too small for threads): each
    attribute's sweep keeps only conditions better than the best of the attributes before it by the
    tie tolerance, as :func:`_refine_rule` chooses among them, so most thresholds are ruled out by
    the bound.  Candidates with nothing better report no condition; the choice is the same."""
    bound = math.inf
    for c in range(n_candidates):
        q, op, thr, lab, cnt = _sweep_attribute(candidates[c], ptr, rows, values, keys, cache, seg, miss_ptr,
                                                miss_rows, nominal, cw, G, H, T_g, T_h, T_cnt, full_hessian, head,
                                                l2, l1, min_coverage, out_g[c], out_h[c], work_g[c], work_h[c], chol[c],
                                                z[c], params, vi[c], vg[c], vh[c], cancel, bound)
        out_q[c] = q
        out_op[c] = op
        out_thr[c] = thr
        out_label[c] = lab
        out_cnt[c] = cnt
        if op >= 0:
            bound = q - TIE_TOLERANCE * abs(q)


def _step_kernels(name: str, **hooks):
    """The refinement step on the walk with BOOMER's hooks, some replaced by ``hooks``: (threaded,
    serial, the sweep of one attribute), compiled and cached under names ending in ``name``.  The
    serial kernel is for steps too small to repay waking a second thread (prange is a plain range
    outside parallel=True)."""
    walk = specialise("_walk_boomer_" + name, compact=True, reference=True,
                      **{"_drop": _drop, "_reset": _reset, "_add": _add, "_merge": _merge, "_consider": _consider,
                         **hooks})
    sweep = njit(cache=True, nogil=True)(rebound(_sweep_attribute.py_func, "_sweep_attribute_" + name, _walk=walk))
    threaded = njit(cache=True, nogil=True, parallel=True)(
        rebound(_best_conditions.py_func, "_best_conditions_" + name, _sweep_attribute=sweep))
    serial = njit(cache=True, nogil=True)(
        rebound(_best_conditions_in_turn, "_best_conditions_" + name + "_serial", _sweep_attribute=sweep))
    return threaded, serial, sweep


# The sweeps of partial heads and label binning, and of the heads the fast sweep (below) does not serve
# (full Hessians, L1): the same walk, with their quality function.
_consider_variants = njit(cache=True, nogil=True, inline="always")(
    rebound(_consider.py_func, "_consider_variants", _split_quality=_split_quality_variants))
_best_conditions_variants, _best_conditions_variants_serial, _sweep_attribute_variants = _step_kernels(
    "variants", _consider=_consider_variants)
# The sweeps of the heads _is_fast names (single-label and complete heads with diagonal Hessians, L2
# and no L1): the same walk without the general quality's branch.
_best_conditions_fast, _best_conditions_fast_serial, _sweep_attribute_fast = _step_kernels(
    "fast", _consider=_consider_fast, _reset=_reset_fast)


# The sweep of a label fixed by a rule's first condition: the hooks read the weighted gradient and
# Hessian of example i from row i of one N x 2 matrix (S1 and S2 are both that matrix; the walk's
# ``weight`` still tells which examples are covered).
@njit(cache=True, nogil=True, inline="always")
def _drop_one(ctx, WGH, _, A_g, A_h, i, w):
    A_g[_VALID, 0] -= WGH[i, 0]
    A_h[_VALID, 0] -= WGH[i, 1]


@njit(cache=True, nogil=True, inline="always")
def _add_one(ctx, WGH, _, A_g, A_h, side, i, w):
    A_g[side, 0] += WGH[i, 0]
    A_h[side, 0] += WGH[i, 1]


# (a fixed label: _consider_fast never reaches the complete heads that need _reset_fast's rows)
_best_conditions_one, _best_conditions_one_serial, _ = _step_kernels("one", _drop=_drop_one, _add=_add_one,
                                                                     _consider=_consider_fast)
# From this many training examples on, a fixed label's sweep reads interleaved rows (see refine_rule).
INTERLEAVE_MIN_EXAMPLES = 8192
# Below this much work a refinement step runs serially: covered entries of the sampled attributes
# times the statistics accumulated per entry.  Waking the second thread and waiting for it costs
# more than it saves below about this much: enron's first steps (10 sparse attributes, 53 labels:
# about 100,000) took the same time threaded when the machine was idle (fits 0.17-0.19 s either
# way) and far longer when another process kept a core busy (0.64-0.87 s threaded against
# 0.24-0.31 s serial); yeast's (7 dense attributes, 14 labels: about 200,000) are faster threaded.
PARALLEL_MIN_WORK = 150_000


@njit(cache=True, nogil=True)
def bagging_weights(weights, n_draws, state):
    """Alg. 1 line 5: how often each example is drawn in ``n_draws`` draws with replacement (the
    paper draws N; mlrl-boomer's ``sample_size`` draws a fraction of N)."""
    n = weights.shape[0]
    weights[:] = 0
    for _ in range(n_draws):
        weights[rng_below(state, n)] += 1


@njit(cache=True, nogil=True)
def _fix_label(label, d, G, H, cw, cov_rows, n_cov, interleave, WGH, G_one, H_one):
    """Once a single-label rule's first condition has chosen ``label`` (Hessian column ``d``): its
    covered examples' statistics copied for the later sweeps, weighted into rows of ``WGH`` with
    ``interleave``, else into the columns ``G_one``, ``H_one``."""
    for r in range(n_cov):
        i = cov_rows[r]
        if interleave:
            WGH[i, 0] = cw[i] * G[i, label]
            WGH[i, 1] = cw[i] * H[i, d]
        else:
            G_one[i, 0] = G[i, label]
            H_one[i, 0] = H[i, d]


@njit(cache=True, nogil=True)
def _sample_rows(covered, weights, cw, cov_rows, oob_rows):
    """A rule's start: ``cw`` the weight of each covered example in the sample, :data:`.sweep.OUT_OF_SAMPLE`
    for the other covered ones (mlrl-boomer's searches still see them), and their ascending lists
    ``cov_rows`` and ``oob_rows``.  Returns the two counts."""
    n_cov = n_oob = np.int64(0)  # typed: a literal 0 reaching a callee compiles it a second time
    for i in range(cw.shape[0]):
        if covered[i] and weights[i] > 0:
            cw[i] = float(weights[i])
            cov_rows[n_cov] = i
            n_cov += 1
        elif covered[i]:
            cw[i] = OUT_OF_SAMPLE
            oob_rows[n_oob] = i
            n_oob += 1
    return n_cov, n_oob


@njit(cache=True, nogil=True)
def _still_covered(covered, cw, cov_rows, n_cov):
    """After a condition: the weights ``cw`` of the examples it leaves out set to 0 and the list
    ``cov_rows[:n_cov]`` of covered examples in the sample shortened to those it keeps (O(covered),
    not O(N)).  Returns the new count."""
    n = 0
    for r in range(n_cov):
        i = cov_rows[r]
        if covered[i]:
            cov_rows[n] = i
            n += 1
        else:
            cw[i] = 0.0
    return n


@njit(cache=True, nogil=True)
def _covering_condition(perm, m, ptr, rows, values, nominal, cw, miss_ptr, miss_rows):
    """The first of the ``m`` sampled attributes on which every sampled example (``cw`` > 0) has the
    implicit value 0 while some training example has another: (attribute, operator) of the condition
    that covers exactly the value 0 ('<= 0' if the other values are all positive, else '== 0'), or
    (-1, -1).  An example with a missing value is never covered, so one in the sample rules it out."""
    for c in range(m):
        j = perm[c]
        if ptr[j + 1] == ptr[j]:
            continue  # only zeros (or missing values): the condition would exclude nothing
        ok = True
        positive = True
        for idx in range(ptr[j], ptr[j + 1]):
            if cw[rows[idx]] > 0.0:
                ok = False
                break
            if values[idx] < 0.0:
                positive = False
        if ok:
            for r in range(miss_ptr[j], miss_ptr[j + 1]):
                if cw[miss_rows[r]] > 0.0:
                    ok = False
                    break
        if ok:
            return j, (OP_LEQ if positive and not nominal[j] else OP_EQ)
    return -1, -1


@njit(cache=True, nogil=True)
def _all_sampled_quality(T_g, T_h, full_hessian, head, head_params, l2, l1, sc):
    """(quality, label or -1) of the best head of ``head`` on the statistics ``T_g``, ``T_h``."""
    if head <= HEAD_PARTIAL_FIXED:
        return variant_quality(T_g, T_h, full_hessian, head, head_params, l2, l1, sc.chol[0], sc.z[0], sc.vi[0, 0],
                               sc.vi[0, 1], sc.vi[0, 2], sc.vg[0], sc.vh[0]), -1
    return _side_quality(T_g, T_h, full_hessian, head, l2, l1, sc.chol[0], sc.z[0])


# Per-step scratch of :func:`refine_rule`: covered statistics T, per-candidate results and sweep space.
_Scratch = namedtuple("_Scratch", "T_g T_h q op thr label cnt g h work_g work_h chol z vi vg vh")


@njit(cache=True, nogil=True)
def _scratch(m, K, S, n_chol, n_variant, n_sub):
    """``n_variant`` > 0 adds the scratch of partial heads and label binning (``vi``, ``vg``, ``vh``: ``n_sub``
    Hessian entries of the sub-system)."""
    nv = m if n_variant > 0 else 0
    return _Scratch(np.zeros(K), np.zeros(S), np.empty(m), np.empty(m, dtype=np.int64), np.empty(m),
                    np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty((m, K)), np.empty((m, S)),
                    np.empty((m, GRADIENT_ACCUMULATOR_ROWS, K)), np.empty((m, ACCUMULATOR_ROWS, S)),
                    np.zeros((m, n_chol, n_chol)), np.zeros((m, K)),
                    np.empty((nv, 3, n_variant), dtype=np.int64), np.empty((nv, K)), np.empty((nv, n_sub)))


@njit(cache=True, nogil=True)
def _fix_partial_labels(g_rated, h_rated, T_g, T_h, full_hessian, head_mode, head_params, l2, l1, G, H, cov_rows,
                        n_cov, m, out_labels):
    """Once a partial head's first condition is chosen (mlrl-boomer 0.15.6's ``max_head_refinements=1``):
    the labels of that refinement's head (chosen on its rated statistics ``g_rated``, ``h_rated``) go to
    ``out_labels`` in ascending order, as mlrl-boomer sorts a refinement's head, and the later steps
    search a complete head on them (binned for a partial head with label binning: mlrl-boomer then rates
    the fixed labels with its complete binned evaluation).  Returns (their number n, the covered sampled
    examples' gradients and (packed) Hessians of those labels (other rows 0), the step scratch for n
    labels with the rule's sums ``T_g``, ``T_h`` of them)."""
    N, K = G.shape
    keys = np.empty(K)
    n = select_labels(g_rated, h_rated, full_hessian, head_mode, head_params, l2, l1, out_labels, keys)
    sort_ascending(out_labels, n)
    S_n = n * (n + 1) // 2 if full_hessian else n
    cols = np.empty(S_n, dtype=np.int64)
    for a in range(n):
        if full_hessian:
            for b in range(a, n):
                cols[packed_index(a, b, n)] = packed_index(out_labels[a], out_labels[b], K)
        else:
            cols[a] = out_labels[a]
    G_fix = np.zeros((N, n), dtype=G.dtype)
    H_fix = np.zeros((N, S_n), dtype=H.dtype)
    for r in range(n_cov):
        i = cov_rows[r]
        for a in range(n):
            G_fix[i, a] = G[i, out_labels[a]]
        for c in range(S_n):
            H_fix[i, c] = H[i, cols[c]]
    binned = head_mode == HEAD_BINNED_FIXED or head_mode == HEAD_BINNED_DYNAMIC
    sc = _scratch(m, n, S_n, n if full_hessian else 1, max(n, 2 * int(head_params[3])) if binned else 0,
                  S_n if binned else 1)
    for a in range(n):
        sc.T_g[a] = T_g[out_labels[a]]
    for c in range(S_n):
        sc.T_h[c] = T_h[cols[c]]
    return n, G_fix, H_fix, sc


@njit(cache=True, nogil=True)
def _simple_sampled_quality(T_g, T_h, full_hessian, head, head_params, l2, l1, sc):
    """:func:`_all_sampled_quality` for the families whose heads are single-label or complete."""
    return _side_quality(T_g, T_h, full_hessian, head, l2, l1, sc.chol[0], sc.z[0])


@njit(cache=True, nogil=True)
def _no_partial_labels(g_rated, h_rated, T_g, T_h, full_hessian, head_mode, head_params, l2, l1, G, H, cov_rows,
                       n_cov, m, out_labels):
    """:func:`_fix_partial_labels` for the families without partial heads (never called)."""
    zero, one = np.int64(0), np.int64(1)  # typed like the other calls' sizes: literals compile _scratch again
    return 0, G, H, _scratch(m, zero, zero, one, zero, one)


def _unbound(*args):  # pragma: no cover - replaced by rule_refinement()
    raise NotImplementedError


# rebound per kernel family by rule_refinement(): the step kernels and whether a fixed label's sweep
# may read interleaved rows
_first_threaded = _first_serial = _column_threaded = _column_serial = _fixed_threaded = _fixed_serial = _unbound
_INTERLEAVE = False
# whether a partial head's labels are fixed after the rule's first condition (:func:`_fix_partial_labels`);
# False for the compact statistics of :mod:`.examplewise_stats`, whose partial heads choose their labels
# at every condition
_FIX_PARTIAL = True


# rebound by :mod:`.examplewise_stats` for statistics kept as a diagonal plus rank one (K + 1 columns of
# ``H`` per example, not the packed Hessian): the packed width of the sums, and one example's packed sum
@njit(cache=True, nogil=True, inline="always")
def _hessian_width(K, H):
    return H.shape[1]


@njit(cache=True, nogil=True, inline="always")
def _add_hessian(T_h, G, H, i, w):
    for k in range(T_h.shape[0]):
        T_h[k] += w * H[i, k]


def _refine_rule(ptr, rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal, G, H, full_hessian, single,
                head_mode, head_params, weights, bagging, l2, l1, n_sampled_features, max_conditions, min_coverage,
                rng_state, perm, covered, out_attr, out_op, out_thr, cancel, out_labels):
    """Alg. 2: grow one rule greedily (compiled per kernel family, see :func:`rule_refinement`).
    ``covered`` (uint8, all ones on entry) holds the final coverage over all training examples.  Returns (number of
    conditions, quality, head label for single heads or, for partial heads, the number n of labels their first
    condition fixed, written to ``out_labels[:n]`` (ascending; at least K entries); 0 if they were not fixed).
    With ``bagging`` > 0 the ``weights`` are drawn first (that many draws).

    Single-label and partial heads keep the labels the rule's first condition chose (mlrl-boomer 0.15.6's
    default ``max_head_refinements=1``): later conditions are searched for those labels only (a
    complete head on them), on copies of their statistics.

    The covered statistics are summed once; after each refinement they are the chosen
    condition's statistics from the sweep, so later steps never re-scan the examples.  A sampled
    attribute with ``ranks`` (``seg[j, 4]`` >= 0, :mod:`.covered_entries`) whose entries far outnumber
    the covered examples gets its covered entries from them before its first sweep in the rule."""
    # borrowed views (.borrowed) of the arrays the caller holds: every refinement step passes some 40 arrays
    # to its step kernel as one tuple, which slices them per attribute; with owned arrays each of those is an
    # atomic count and its release (8 % of a fit with complete heads on emotions, perf)
    ptr, rows, values, keys, cache, seg, ranks = borrowed((ptr, rows, values, keys, cache, seg, ranks))
    miss_ptr, miss_rows, nominal, G, H, head_params = borrowed((miss_ptr, miss_rows, nominal, G, H, head_params))
    weights, rng_state, perm, covered, cancel = borrowed((weights, rng_state, perm, covered, cancel))
    N = G.shape[0]
    K = G.shape[1]
    S = _hessian_width(K, H)
    D = perm.shape[0]
    m = D if n_sampled_features <= 0 or n_sampled_features > D else n_sampled_features
    if bagging > 0:
        bagging_weights(weights, bagging, rng_state)
    n_chol = K if full_hessian else 1  # Cholesky scratch (complete heads of non-decomposable losses)
    n_variant = K + 6 * int(head_params[3]) + 1 if head_mode <= HEAD_PARTIAL_FIXED else 0  # past 2B: scratch
    n_sub = S
    if head_mode == HEAD_BINNED:  # the binned system has at most 2B rows
        n_chol = min(n_chol, 2 * int(head_params[3]))
        n_sub = min(S, n_chol * (n_chol + 1) // 2) if full_hessian else min(S, 2 * int(head_params[3]))
    sc_all = _scratch(m, K, S, n_chol, n_variant, n_sub)
    T_g = sc_all.T_g
    T_h = sc_all.T_h
    cw = np.zeros(N)
    cov_rows = np.empty(N, dtype=np.int64)  # the covered examples in the sample (cw > 0), ascending
    oob_rows = np.empty(N, dtype=np.int64)  # the covered ones out of it (cw OUT_OF_SAMPLE), ascending
    n_cov, n_oob = _sample_rows(covered, weights, cw, cov_rows, oob_rows)
    for r in range(n_cov):
        i = cov_rows[r]
        for k in range(K):  # inline loops on local sums vectorise; a helper call did not
            T_g[k] += cw[i] * G[i, k]
        _add_hessian(T_h, G, H, i, cw[i])
    T_cnt = n_cov  # never a literal: a literal 0 would compile every sweep a second time
    ranked = ranks.shape[0] > 0  # then seg has their fifth column (.covered_entries.rank_entries)
    # with ranks, every covered example (in the sample or not), ascending: a condition restricts the
    # coverage in O(covered) (restrict_covered); without, none (the attribute's entries are applied)
    all_rows = np.empty(N if ranked else 0, dtype=np.int64)
    n_all = np.int64(0)
    if ranked:
        for i in range(N):
            if covered[i]:
                all_rows[n_all] = i
                n_all += 1
    bits = np.empty((N + 63) >> 6 if ranked else 0, dtype=np.uint64)
    found = np.empty(N if ranked else 0, dtype=np.int64)
    # Scratch for sweeps over all labels (K gradient, S Hessian entries per example) and, once a
    # single-label rule's first condition has fixed its label, over that label alone: its
    # statistics are then copied once, so later sweeps do not read two strided rows per example.
    # From INTERLEAVE_MIN_EXAMPLES on they go to one row of ``WGH`` per example, pre-multiplied by
    # its weight: the walk visits examples in the random order of an attribute's values, and the
    # weight, gradient and Hessian columns cost three cache misses per example at large N.  Below,
    # the columns ``G_one``, ``H_one`` stay in cache and the generic sweep on them measured faster
    # (yeast: up to 15 %).
    interleave = _INTERLEAVE and single and N >= INTERLEAVE_MIN_EXAMPLES
    n_one = N if single else 0
    one = np.int64(1)
    sc_one = _scratch(m, one, one, one, np.int64(0), one)
    WGH = np.empty((n_one if interleave else 0, 2), dtype=G.dtype)
    G_one = np.empty((0 if interleave else n_one, 1), dtype=G.dtype)
    H_one = np.empty((0 if interleave else n_one, 1), dtype=H.dtype)
    for j in range(seg.shape[0]):
        seg[j, 0] = 0  # no attribute's covered entries are cached yet for this rule
        if seg.shape[1] > 3 and seg[j, 3] == SEARCH_BINNED_FILTERED:
            seg[j, 3] = SEARCH_BINNED  # mlrl-boomer's whole bin vectors again
    current = 0.0  # the empty head's objective; a condition must do better
    label = -1
    # the fixed label's sweeps see one label (column 0) and its diagonal; typed like the first step's
    # arguments (bool, int64), not as the literals False and 0, which would compile each sweep again
    no_full = full_hessian and not full_hessian
    column = np.int64(0)
    # the single label's choice (HEAD_SINGLE or HEAD_SINGLE_LARGEST_SCORE), else complete or a
    # head_variants mode; a label >= 0 once a single-label rule's first condition has fixed it
    head = (head_mode if head_mode == HEAD_SINGLE_LARGEST_SCORE else HEAD_SINGLE) if single else head_mode
    n_conditions = 0
    # partial heads: their labels once the first condition fixed them (out_labels[:n_fixed]), the
    # statistics of those labels and the step scratch for them (the rule's own until then)
    partial = _FIX_PARTIAL and not single and (head_mode == HEAD_PARTIAL_FIXED or head_mode == HEAD_PARTIAL_DYNAMIC
                                               or head_mode == HEAD_BINNED_FIXED or head_mode == HEAD_BINNED_DYNAMIC)
    fixed_head = HEAD_COMPLETE if head_mode == HEAD_PARTIAL_FIXED or head_mode == HEAD_PARTIAL_DYNAMIC else HEAD_BINNED
    n_fixed = 0
    G_fix = G
    H_fix = H
    sc_fix = sc_all
    unsampled = T_cnt == N  # no example out of the sample: mlrl-boomer keeps the head it searched
    toggled = -1  # an example the last condition covers but its statistics leave out, or the other way round
    limit = max_conditions if max_conditions > 0 else out_attr.shape[0]
    while n_conditions < limit:
        if T_cnt < 2 or T_cnt <= min_coverage:
            break
        if m < D:
            sample_features(perm, m, rng_state)
        fixed = head >= 0
        if ranked:
            for c in range(m):
                j = perm[c]
                if seg[j, 4] >= 0 and seg[j, 0] == 0 and n_cov + n_oob < COMPACT_MAX_SHARE * (ptr[j + 1] - ptr[j]):
                    compact_covered(j, ptr, values, ranks, cache, seg, (cov_rows, oob_rows), (n_cov, n_oob), bits,
                                    found)
        work = 0
        for c in range(m):
            n_c = ptr[perm[c] + 1] - ptr[perm[c]]
            work += n_c if n_c < T_cnt else T_cnt
        work *= 2 if fixed else G_fix.shape[1] + sc_fix.T_h.shape[0]
        # a second thread needs two candidates to share; a K x K solve per threshold (full Hessians)
        # always repays it
        threads = m > 1 and (work >= PARALLEL_MIN_WORK or (full_hessian and not fixed))
        # borrowed for this step (the owned arrays live on in the loop: no atomic counts for the step's calls)
        cw_step = borrowed(cw)
        if fixed:  # the fixed label's sweep, on WGH or G_one, H_one (see above)
            sc = borrowed(sc_one)
            if interleave:
                WGH_step = borrowed(WGH)
                args_one = (perm, m, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw_step,
                            WGH_step, WGH_step,
                            sc.T_g, sc.T_h, T_cnt, no_full, column, l2, l1, min_coverage, sc.q, sc.op, sc.thr, sc.label,
                            sc.cnt, sc.g, sc.h, sc.work_g, sc.work_h, sc.chol, sc.z, head_params, sc.vi, sc.vg, sc.vh,
                            cancel)
                if threads:
                    _fixed_threaded(*args_one)
                else:
                    _fixed_serial(*args_one)
            else:
                args_sep = (perm, m, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw_step,
                            borrowed(G_one), borrowed(H_one), sc.T_g, sc.T_h, T_cnt, no_full, column, l2, l1,
                            min_coverage, sc.q, sc.op, sc.thr, sc.label, sc.cnt, sc.g, sc.h, sc.work_g, sc.work_h,
                            sc.chol, sc.z, head_params, sc.vi, sc.vg, sc.vh, cancel)
                if threads:
                    _column_threaded(*args_sep)
                else:
                    _column_serial(*args_sep)
        else:
            sc = borrowed(sc_fix)  # sc_all, or a partial head's fixed labels'
            full_step = full_hessian
            args = (perm, m, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw_step,
                    borrowed(G_fix), borrowed(H_fix),
                    sc.T_g, sc.T_h, T_cnt, full_step, head, l2, l1, min_coverage, sc.q, sc.op, sc.thr, sc.label, sc.cnt,
                    sc.g, sc.h, sc.work_g, sc.work_h, sc.chol, sc.z, head_params, sc.vi, sc.vg, sc.vh, cancel)
            if threads:
                _first_threaded(*args)
            else:
                _first_serial(*args)
        if cancel[0] != 0:
            return 0, current, -1  # cancelled: no rule
        best = -1
        for c in range(m):
            # qualities within a relative 1e-12 are a tie, won by the earlier candidate (the lower
            # attribute without feature sampling): two conditions covering the same examples differ
            # only by the order their sums were added in, and that must not decide
            if sc.op[c] >= 0 and (best < 0 or sc.q[c] < sc.q[best] - TIE_TOLERANCE * abs(sc.q[best])):
                best = c
        if best < 0 and n_conditions == 0 and T_cnt < N:
            # Examples out of the sample (zero weight): as mlrl-boomer does, a first condition may cover
            # every sampled example if it excludes some training example (an attribute whose entries
            # all lie out of the sample); without it a sample on sparse data often has no condition
            # at all and training would end early.  The first such attribute in sample order.
            j, op = _covering_condition(perm, m, ptr, rows, values, nominal, cw, miss_ptr, miss_rows)
            if j >= 0:
                current, label = _all_sampled_quality(T_g, T_h, full_hessian, head, head_params, l2, l1, sc_all)
                if current < 0.0:
                    out_attr[0] = j
                    out_op[0] = op
                    out_thr[0] = 0.0
                    n_all = restrict_covered(j, op, 0.0, ptr, rows, values, miss_ptr, miss_rows, ranks, seg,
                                             covered, all_rows, n_all)
                    n_conditions = 1
                    n_cov = _still_covered(covered, cw, cov_rows, n_cov)
                    n_oob = _still_covered(covered, cw, oob_rows, n_oob)
                    if single:
                        d = diagonal_position(label, K, full_hessian)
                        _fix_label(label, d, G, H, cw, cov_rows, n_cov, interleave, WGH, G_one, H_one)
                        sc_one.T_g[0] = T_g[label]
                        sc_one.T_h[0] = T_h[d]
                        head = label
                    elif partial:
                        n_fixed, G_fix, H_fix, sc_fix = _fix_partial_labels(
                            T_g, T_h, T_g, T_h, full_hessian, head_mode, head_params, l2, l1, G, H, cov_rows, n_cov, m,
                            out_labels)
                        head = fixed_head
                    for jj in range(seg.shape[0]):
                        seg[jj, 0] = 0  # the coverage changed outside the sweeps: no cached entries
                    continue
            break
        if best < 0 or not sc.q[best] < current:
            break
        current = sc.q[best]
        if not fixed:
            label = sc.label[best]
        j = perm[best]
        op = sc.op[best]
        out_attr[n_conditions] = j
        out_op[n_conditions] = model_operator(op)
        out_thr[n_conditions] = sc.thr[best]
        toggled = smallest_positive(j, ptr, rows, values, cw) if OP_LEQ_ZERO <= op <= OP_GT_ZERO else -1
        binned_search_after(j, op, seg)
        w_toggled = cw[toggled] if toggled >= 0 else 0.0
        n_all = restrict_covered(j, op, sc.thr[best], ptr, rows, values, miss_ptr, miss_rows, ranks, seg, covered,
                                 all_rows, n_all)
        n_conditions += 1
        for k in range(sc.T_g.shape[0]):  # loops, not slice assignments (their shape checks cost seconds of compile)
            sc.T_g[k] = sc.g[best, k]
        for k in range(sc.T_h.shape[0]):
            sc.T_h[k] = sc.h[best, k]
        T_cnt = sc.cnt[best]
        n_cov = _still_covered(covered, cw, cov_rows, n_cov)
        n_oob = _still_covered(covered, cw, oob_rows, n_oob)
        if toggled >= 0:
            # mlrl-boomer's boundary of a sparse vector with its zeros was rated without the smallest
            # positive, which the condition covers (or with it, and it leaves it): the rule goes on from
            # the sums of what it covers, that example's statistics added (or taken out), but from the
            # count it rated, as there (its next search and its minimum coverage count that many)
            w = w_toggled if covered[toggled] else -w_toggled
            if fixed:
                d = diagonal_position(label, K, full_hessian)
                sc.T_g[0] += w * G[toggled, label]
                sc.T_h[0] += w * H[toggled, d]
            else:
                for k in range(sc.T_g.shape[0]):
                    sc.T_g[k] += w * G_fix[toggled, k]
                _add_hessian(sc.T_h, G_fix, H_fix, toggled, w)
        if single and not fixed:
            # later conditions refine the rule for the label its first condition chose
            d = diagonal_position(label, K, full_hessian)
            _fix_label(label, d, G, H, cw, cov_rows, n_cov, interleave, WGH, G_one, H_one)
            sc_one.T_g[0] = sc.T_g[label]
            sc_one.T_h[0] = sc.T_h[d]
            head = label
        elif partial and n_fixed == 0:
            # later conditions refine the rule for the labels of its first condition's head (rated)
            n_fixed, G_fix, H_fix, sc_fix = _fix_partial_labels(
                sc.g[best], sc.h[best], sc.T_g, sc.T_h, full_hessian, head_mode, head_params, l2, l1, G, H, cov_rows,
                n_cov, m, out_labels)
            head = fixed_head
    if toggled >= 0 and unsampled:
        covered[toggled] |= STATISTICS_DIFFER
    return n_conditions, current, n_fixed if partial else label


# -- kernel families: each setting compiles only the refinement step kernels it calls -------------
FIRST_STEP = {"fast": (_best_conditions_fast, _best_conditions_fast_serial),
              "variants": (_best_conditions_variants, _best_conditions_variants_serial)}
FIXED_LABEL = ("one", "columns", "none")


def first_step_family(head_mode: int, full_hessian: bool, l2: float, l1: float) -> str:
    """The sweep of a rule's first refinement step (all labels): 'fast' for single-label and complete
    heads with diagonal Hessians, L2 and no L1 (:func:`_is_fast`), else 'variants' (partial heads,
    label binning, full Hessians, L1)."""
    simple = head_mode in (HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE, HEAD_COMPLETE)
    return "fast" if simple and not full_hessian and l1 == 0.0 and l2 > 0.0 else "variants"


def fixed_label_family(single: bool, n_examples: int) -> str:
    """How a single-label rule's later steps sweep its label: 'one' (the interleaved rows of
    :data:`INTERLEAVE_MIN_EXAMPLES` or more examples), 'columns' (the fast sweep on one column), or
    'none' (not a single-label head)."""
    if not single:
        return "none"
    return "one" if n_examples >= INTERLEAVE_MIN_EXAMPLES else "columns"


def may_thread(n_examples: int, n_sampled: int, n_labels: int, n_hessian: int, full_hessian: bool) -> bool:
    """Whether any refinement step of a fit can run threaded: two or more attributes to share
    between threads, and a full Hessian or work that can reach :data:`PARALLEL_MIN_WORK` (an upper
    bound of :func:`_refine_rule`'s estimate).  If not, the fit needs no threaded kernel at all."""
    if n_sampled < 2:
        return False
    return full_hessian or n_sampled * n_examples * (n_labels + n_hessian) >= PARALLEL_MIN_WORK


_FAMILIES: dict = {}


def rule_refinement(first: str, fixed: str, threaded: bool):
    """Alg. 2 compiled with only the step kernels of one family: the first step's sweep ``first``
    (:func:`first_step_family`), the fixed label's sweep ``fixed`` (:func:`fixed_label_family`) and,
    with ``threaded``, the threaded kernels besides the serial ones.  Compiling every variant into one
    kernel took minutes on a fresh install; a family compiles a fraction of that
    (``python -m engine.bench.cold_start``).  Sweeps a family never calls are bound to ones it
    compiles anyway, with the same argument types, so they add nothing to the compile."""
    if first not in FIRST_STEP or fixed not in FIXED_LABEL:
        raise ValueError(f"unknown kernel family {first!r}, {fixed!r}")
    key = (first, fixed, bool(threaded))
    if key not in _FAMILIES:
        first_kernels = FIRST_STEP[first]
        column_kernels = FIRST_STEP["fast"] if fixed != "none" else first_kernels
        one_kernels = (_best_conditions_one, _best_conditions_one_serial) if fixed == "one" else column_kernels
        if not threaded:  # the serial kernel in both places
            first_kernels, column_kernels, one_kernels = ((k[1], k[1]) for k in (first_kernels, column_kernels,
                                                                                 one_kernels))
        name = f"refine_rule_{first}_{fixed}" + ("_threaded" if threaded else "")
        # the fast family's heads are single-label or complete: none of the partial heads' and label
        # binning's code (reachable from these two otherwise: 16 kernels, about 10 s on an empty cache)
        simple = {"_all_sampled_quality": _simple_sampled_quality,
                  "_fix_partial_labels": _no_partial_labels} if first == "fast" else {}
        _FAMILIES[key] = njit(cache=True, nogil=True)(rebound(
            _refine_rule, name, _INTERLEAVE=fixed == "one", **simple,
            _first_threaded=first_kernels[0], _first_serial=first_kernels[1],
            _column_threaded=column_kernels[0], _column_serial=column_kernels[1],
            _fixed_threaded=one_kernels[0], _fixed_serial=one_kernels[1]))
    return _FAMILIES[key]


def refine_rule(ptr, rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal, G, H, full_hessian, single,
                head_mode, head_params, weights, bagging, l2, l1, *rest):
    """:func:`_refine_rule` with the kernel family a fit with these arguments calls (for callers in
    Python): threaded only if a step can be large enough (:func:`may_thread`).  ``out_labels`` (a partial
    head's fixed labels) may be left out after ``cancel``."""
    if len(rest) == 10:
        rest = (*rest, np.empty(G.shape[1], dtype=np.int64))
    n_sampled, perm = rest[0], rest[4]
    m = perm.shape[0] if n_sampled <= 0 or n_sampled > perm.shape[0] else n_sampled
    threaded = may_thread(G.shape[0], m, G.shape[1], H.shape[1], full_hessian)
    kernel = rule_refinement(first_step_family(head_mode, full_hessian, l2, l1),
                             fixed_label_family(single, G.shape[0]), threaded)
    return kernel(ptr, rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal, G, H, full_hessian, single,
                  head_mode, head_params, weights, bagging, l2, l1, *rest)
