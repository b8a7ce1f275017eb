"""mlrl-boomer 0.15.6's random generator and the sampling methods it draws with, so that a sampled setting
draws the same samples as the reference for the same ``random_state`` (written from the description of
its public source, ``mlrl/common/random/rng.cpp`` and ``mlrl/common/sampling/``).

The generator is a 32-bit xorshift (shifts 13, 17, 5) whose state is the seed (``random_state``; a state
of 0 becomes 1 before a step).  An integer in [lo, hi) is lo + ((x mod 2**31) mod (hi - lo)) for the new
state x; a coin is an integer in [0, 2) that is not 0.  Every sampler of the reference (features,
instances, outputs, the holdout split) has a generator of its own, each started from the seed, so their
draws do not interleave.  Here a generator is a slot of a uint64 array (the kernels keep the
attributes' generator in the random state's third entry, :func:`feature_sample`).

Sampling ``count`` of ``total`` indices without replacement (attributes, outputs), with the ratio
count / total deciding the method as there:

- below 0.06, tracking selection: draw indices in [0, total) until one not drawn before comes up;
- above 0.5, reservoir sampling: the first ``count`` indices, then index i (count <= i < total) replaces
  slot j of the sample for j = an integer in [0, i + 1) when j < count;
- otherwise a partial random permutation of 0 .. total - 1: position i (< count) swaps with position
  j = an integer in [i, total).

Weights without replacement (instances): tracking selection below a ratio of 0.06, else a pool: draw
j in [0, total - i) for the i-th draw, take pool[j] and move the pool's last live entry to j.  Draws with
replacement: ``n_draws`` integers in [0, total), each adding the example's weight.
"""
from __future__ import annotations

import numpy as np
from numba import njit

MASK32 = 0xFFFFFFFF
TRACKING_RATIO = 0.06  # below: tracking selection (indices and weights)
RESERVOIR_RATIO = 0.5  # above: reservoir sampling (indices)
FEATURE_SLOT = 2  # the random state's entry that holds the attributes' generator


class RNG:
    """The reference's generator in Python (one object per sampler, started from the seed)."""

    def __init__(self, seed: int):
        self.state = int(seed) & MASK32

    def next(self) -> int:
        """The next 32-bit state."""
        x = self.state or 1
        x ^= (x << 13) & MASK32
        x ^= x >> 17
        x ^= (x << 5) & MASK32
        self.state = x
        return x

    def random_int(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi)."""
        return lo + (self.next() & 0x7FFFFFFF) % (hi - lo)

    def random_bool(self) -> bool:
        return self.random_int(0, 2) != 0

    def as_state(self) -> np.ndarray:
        """A one-slot state array for the compiled samplers (write it back with :meth:`take`)."""
        return np.array([self.state], dtype=np.uint64)

    def take(self, state: np.ndarray) -> None:
        self.state = int(state[0])


@njit(cache=True, nogil=True)
def next_state(state, slot):
    """One xorshift step of the generator in ``state[slot]``; the new 32-bit state."""
    x = np.uint32(state[slot])
    if x == 0:
        x = np.uint32(1)
    x ^= np.uint32(x << np.uint32(13))
    x ^= np.uint32(x >> np.uint32(17))
    x ^= np.uint32(x << np.uint32(5))
    state[slot] = np.uint64(x)
    return x


@njit(cache=True, nogil=True)
def random_int(state, slot, lo, hi):
    """An integer in [lo, hi) drawn from ``state[slot]``."""
    x = np.int64(next_state(state, slot) & np.uint32(0x7FFFFFFF))
    return np.int64(lo) + x % (np.int64(hi) - np.int64(lo))


@njit(cache=True, nogil=True)
def sample_indices(out, start, count, total, state, slot):
    """``out[start:start + count]``: ``count`` of the indices 0 .. total - 1 without replacement, in the
    reference's order (tracking selection, a partial permutation or reservoir sampling by the ratio)."""
    ratio = count / total if total > 0 else 1.0
    if ratio < TRACKING_RATIO:
        seen = np.zeros(total, dtype=np.bool_)
        for i in range(count):
            j = random_int(state, slot, 0, total)
            while seen[j]:
                j = random_int(state, slot, 0, total)
            seen[j] = True
            out[start + i] = j
    elif ratio > RESERVOIR_RATIO:
        for i in range(count):
            out[start + i] = i
        for i in range(count, total):
            j = random_int(state, slot, 0, i + 1)
            if j < count:
                out[start + j] = i
    else:
        pool = np.arange(total)
        for i in range(count):
            j = random_int(state, slot, i, total)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
            out[start + i] = pool[i]


@njit(cache=True, nogil=True)
def feature_sample(perm, m, state):
    """One refinement step's attributes in ``perm[:m]`` as the reference samples them: the ``state[1]``
    retained attributes (the last ones, kept at the front of ``perm``) and m - state[1] drawn among the
    others (0 .. D - R - 1) by :func:`sample_indices` from the generator in ``state[2]``; ``perm[m:]`` the
    attributes not drawn, ascending (``perm`` stays a permutation)."""
    d = perm.shape[0]
    r = np.int64(state[1])
    total = d - r
    sample_indices(perm, r, m - r, total, state, FEATURE_SLOT)
    drawn = np.zeros(total, dtype=np.bool_)
    for i in range(r, m):
        drawn[perm[i]] = True
    k = m
    for j in range(total):
        if not drawn[j]:
            perm[k] = j
            k += 1


@njit(cache=True, nogil=True)
def draws_with_replacement(weights, n_draws, order, example_weights, state, slot):
    """``weights``: ``n_draws`` draws with replacement among the examples ``order`` (the reference's order
    of the training examples), each draw of example i adding ``example_weights[i]`` (1 if it is empty)."""
    weights[:] = 0
    n = order.shape[0]
    weighted = example_weights.shape[0] > 0
    for _ in range(n_draws):
        i = order[random_int(state, slot, 0, n)]
        weights[i] += example_weights[i] if weighted else 1.0


@njit(cache=True, nogil=True)
def weights_without_replacement(weights, count, order, state, slot):
    """``weights``: 1 for ``count`` of the examples ``order`` drawn without replacement (tracking selection
    or the pool, by the ratio), 0 for the others."""
    weights[:] = 0
    total = order.shape[0]
    ratio = count / total if total > 0 else 1.0
    if ratio < TRACKING_RATIO:
        for _ in range(count):
            i = order[random_int(state, slot, 0, total)]
            while weights[i] != 0:
                i = order[random_int(state, slot, 0, total)]
            weights[i] = 1
        return
    pool = order.copy()
    for k in range(count):
        j = random_int(state, slot, 0, total - k)
        weights[pool[j]] = 1
        pool[j] = pool[total - k - 1]


def random_permutation(total: int, n_swaps: int, rng: RNG) -> np.ndarray:
    """0 .. total - 1 after ``n_swaps`` steps of Fisher-Yates (position i swaps with an integer in
    [i, total)): the reference's random holdout split keeps the first part for training."""
    order = np.arange(total, dtype=np.int64)
    for i in range(n_swaps):
        j = rng.random_int(i, total)
        order[i], order[j] = order[j], order[i]
    return order


# -- output-wise stratification ---------------------------------------------------------------------------

def output_wise_columns(Y: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """mlrl-boomer's output-wise stratification of the examples ``rows`` (in that order) of label matrix
    ``Y``, as (indices, indptr) columns: repeatedly the label with the fewest still unassigned examples (ties:
    the lower label) takes its unassigned examples in the order of ``rows``; the counts of every label of
    those examples go down, and labels left without examples drop out; a last column holds the examples
    with no relevant label left, ascending."""
    Y = np.asarray(Y)
    rows = np.asarray(rows, dtype=np.int64)
    unassigned = np.zeros(Y.shape[0], dtype=bool)
    unassigned[rows] = True
    relevant = Y[rows] != 0
    columns_of = [rows[relevant[:, k]] for k in range(Y.shape[1])]
    counts = relevant.sum(axis=0).astype(np.int64)
    open_labels = counts > 0
    indices, indptr = [], [0]
    while open_labels.any():
        candidates = np.flatnonzero(open_labels)
        label = int(candidates[np.argmin(counts[candidates])])  # argmin: the lowest label among equal counts
        open_labels[label] = False
        for example in columns_of[label]:
            if unassigned[example]:
                unassigned[example] = False
                indices.append(int(example))
                counts[np.flatnonzero(Y[example])] -= 1
        open_labels &= counts > 0
        indptr.append(len(indices))
    rest = np.flatnonzero(unassigned)
    if len(rest):
        indices.extend(rest.tolist())
        indptr.append(len(indices))
    return np.array(indices, dtype=np.int64), np.array(indptr, dtype=np.int64)


@njit(cache=True, nogil=True)
def _tiebreak(wanted_in, wanted_out, state, slot):
    """Round up (True) when more examples are wanted in than out, down when fewer, else a coin."""
    if wanted_in > wanted_out:
        return True
    if wanted_in < wanted_out:
        return False
    return random_int(state, slot, 0, 2) != 0


@njit(cache=True, nogil=True)
def stratified_weights(weights, indices, indptr, sample_size, n_samples, state, slot):
    """One instance sample of the stratification columns (:func:`output_wise_columns`): column by column
    float32(sample_size) x its size examples, rounded up or down by :func:`_tiebreak` on the samples still
    wanted in and out of the sample (unsigned 32-bit counts, as there), drawn by partial Fisher-Yates on the
    column in place (the next sample starts from the permuted column); weight 1 in, 0 out."""
    n_rows = indices.shape[0]
    n_out = np.int64(n_rows - n_samples)
    n_in_so_far = np.int64(0)
    n_out_so_far = np.int64(0)
    size32 = np.float32(sample_size)
    for c in range(indptr.shape[0] - 1):
        start = indptr[c]
        n_col = indptr[c + 1] - start
        decimal = size32 * np.float32(n_col)
        wanted_in = (n_samples - n_in_so_far) & 0xFFFFFFFF
        wanted_out = (n_out - n_out_so_far) & 0xFFFFFFFF
        if _tiebreak(wanted_in, wanted_out, state, slot):
            k = np.int64(np.ceil(decimal))
        else:
            k = np.int64(np.floor(decimal))
        n_in_so_far += k
        n_out_so_far += n_col - k
        for j in range(n_col):
            if j < k:
                r = random_int(state, slot, j, n_col)
                t = indices[start + r]
                indices[start + r] = indices[start + j]
                indices[start + j] = t
                weights[t] = 1
            else:
                weights[indices[start + j]] = 0


def stratified_bipartition(indices: np.ndarray, indptr: np.ndarray, n_first: int, rng: RNG) -> np.ndarray:
    """mlrl-boomer's stratified split of the stratification columns into ``n_first`` examples and the rest:
    per column the share float32(first left / examples left) of its size, rounded by the tiebreak on the
    examples left for each part and bounded by them, drawn by partial Fisher-Yates.  The examples in the
    reference's order: the first part's (column by column), then the second's."""
    indices = indices.copy()
    first, second = [], []
    n_second = len(indices) - n_first
    for c in range(len(indptr) - 1):
        column = indices[indptr[c]:indptr[c + 1]]
        n_col = len(column)
        decimal = np.float32(np.float32(n_first) / np.float32(n_first + n_second)) * np.float32(n_col)
        up = n_first > n_second or (n_first == n_second and rng.random_bool())
        k = int(np.ceil(decimal) if up else np.floor(decimal))
        if k > n_first:
            k = n_first
        elif n_col - k > n_second:
            k = n_col - n_second
        n_first -= k
        n_second -= n_col - k
        for j in range(k):
            r = rng.random_int(j, n_col)
            column[r], column[j] = column[j], column[r]
        first.extend(column[:k].tolist())
        second.extend(column[k:].tolist())
    return np.array(first + second, dtype=np.int64)
