"""Label binning's per-candidate system (engine.core.head_variants._binned_system): the bins and the summed
statistics equal, bit for bit, those of the plain pairwise loop over the packed Hessian (every pair (k, l),
k <= l, in order), written out here in Python, for one bin per sign and for several, with labels of score 0."""
import math

import numpy as np
import pytest

from engine.core.head_variants import _binned_system, assign_bins, side_bins
from engine.core.losses import packed_index


def _criterion(g, h, k, K, l2):
    d = h[packed_index(k, k, K)] + l2
    return -g[k] / d if d > 0.0 else 0.0


def _plain_bins(g, h, K, params, l2):
    """Equal-width bins per sign, every label's bin from the division of the formula (-1: score 0)."""
    crit = [_criterion(g, h, k, K, l2) for k in range(K)]
    neg = [w for w in crit if w < 0.0]
    pos = [w for w in crit if w > 0.0]
    b_neg = side_bins(len(neg), params[4], params[5], params[6])
    b_pos = side_bins(len(pos), params[4], params[5], params[6])

    def of(w, values, n_bins):
        low, high = min(values), max(values)
        span = (high - low) / n_bins
        return 0 if span <= 0.0 else min(int(math.floor((w - low) / span)), n_bins - 1)

    bins = [of(w, neg, b_neg) if w < 0.0 else (b_neg + of(w, pos, b_pos) if w > 0.0 else -1) for w in crit]
    return bins, b_neg + b_pos


def _plain_system(g, h, K, bins, n_bins, l2):
    """The binned system by the pairwise loop: rows of the non-empty bins in order."""
    sizes = [bins.count(b) for b in range(n_bins)]
    row = {b: r for r, b in enumerate(b for b in range(n_bins) if sizes[b] > 0)}
    m = len(row)
    sub_g, sub_h = [0.0] * m, [0.0] * (m * (m + 1) // 2)
    for k in range(K):
        if bins[k] < 0:
            continue
        a = row[bins[k]]
        sub_g[a] += g[k]
        for l in range(k, K):
            if bins[l] < 0:
                continue
            c = row[bins[l]]
            v = h[packed_index(k, l, K)]
            if a != c:
                sub_h[packed_index(min(a, c), max(a, c), m)] += v
            elif l == k:
                sub_h[packed_index(a, a, m)] += v
    for b, r in row.items():
        sub_h[packed_index(r, r, m)] += l2 * (sizes[b] - 1)
    return m, sub_g, sub_h


@pytest.mark.parametrize("K,ratio,zeros", [(20, 0.04, 0), (20, 0.04, 3), (12, 0.3, 2), (40, 0.15, 5), (7, 1.0, 0)])
def test_binned_system_equals_the_pairwise_loop_bit_for_bit(K, ratio, zeros):
    rng = np.random.default_rng(K + zeros)
    l2 = 1.0
    params = np.array([0, 0, 0, side_bins(K, ratio, 1, 0), ratio, 1, 0], dtype=np.float64)
    for trial in range(20):
        A = rng.normal(size=(K + 3, K))
        full = A.T @ A  # positive definite, with entries of both signs off the diagonal
        g = rng.normal(size=K) * 3.0
        g[rng.choice(K, zeros, replace=False)] = 0.0  # labels of score 0: no bin
        h = full[np.triu_indices(K)].copy()  # row-wise packed upper triangle
        bins_expected, n_bins = _plain_bins(g, h, K, params, l2)
        m_expected, g_expected, h_expected = _plain_system(g, h, K, bins_expected, n_bins, l2)
        size = K + 6 * int(params[3]) + 1
        bins, sizes, slot = (np.full(size, -7, dtype=np.int64) for _ in range(3))
        sub_g, sub_h = np.full(K, np.nan), np.full(K * (K + 1) // 2, np.nan)
        m = _binned_system(g, h, True, params, l2, 0.0, bins, sizes, slot, sub_g, sub_h)
        assert m == m_expected
        assert bins[:K].tolist() == bins_expected
        assert sub_g[:m].tolist() == g_expected  # exact: the same sums in the same order
        assert sub_h[:m * (m + 1) // 2].tolist() == h_expected
        short = [np.empty(max(K, 2 * int(params[3])), dtype=np.int64) for _ in range(3)]  # no room: scratch allocated
        sub_g2, sub_h2 = np.empty(K), np.empty(K * (K + 1) // 2)
        assert _binned_system(g, h, True, params, l2, 0.0, *short, sub_g2, sub_h2) == m
        assert sub_h2[:m * (m + 1) // 2].tolist() == h_expected
        sizes_only = np.zeros(size, dtype=np.int64)
        assert assign_bins(g, h, True, params, l2, 0.0, np.empty(K, dtype=np.int64), sizes_only) == n_bins
        assert sizes_only[:n_bins].tolist() == [bins_expected.count(b) for b in range(n_bins)]
