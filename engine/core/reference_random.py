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
