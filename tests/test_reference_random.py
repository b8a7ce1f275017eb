"""mlrl-boomer's generator and sampling methods (engine/core/reference_random.py) against values worked out
by hand from their description; their draws against the reference itself are in
tests/test_mlrl_parity_random.py."""
from __future__ import annotations

import numpy as np
import pytest

from engine.core.reference_random import (RNG, draws_with_replacement, feature_sample, next_state, random_int,
                                          random_permutation, sample_indices, weights_without_replacement)
from engine.holdout import reference_random_split, split_holdout
from engine.sampling import OutputSampler

# xorshift32 (13, 17, 5) from the state 1, by hand: 1 ^ 1 << 13 = 8193; 8193 >> 17 = 0; 8193 ^ 8193 << 5 = 270369;
# the next ones are Marsaglia's published sequence
FIRST = [270369, 67634689, 2647435461, 307599695, 2398689233]


def test_the_first_states_are_xorshift32s_from_the_seed():
    rng = RNG(1)
    assert [rng.next() for _ in range(5)] == FIRST
    zero = RNG(0)  # a zero state is taken as 1 before a step
    assert zero.next() == FIRST[0]


def test_an_integer_is_lo_plus_the_31_low_bits_modulo_the_range():
    rng = RNG(1)
    assert rng.random_int(0, 10) == 270369 % 10 == 9
    assert rng.random_int(5, 12) == 5 + 67634689 % 7
    # 2647435461 has its top bit set: the 31 low bits are 499951813
    assert rng.random_int(0, 1000) == 499951813 % 1000 == 813
    assert RNG(1).random_bool() is True  # 270369 % 2 = 1


@pytest.mark.parametrize("seed", [0, 1, 7, 2**32 - 1])
def test_the_compiled_generator_is_the_python_one(seed):
    rng, state = RNG(seed), np.array([0, 0, seed], dtype=np.uint64)
    assert [next_state(state, 2) for _ in range(200)] == [rng.next() for _ in range(200)]
    assert state[0] == 0 and state[1] == 0  # other slots untouched
    assert [random_int(state, 2, 3, 17) for _ in range(50)] == [rng.random_int(3, 17) for _ in range(50)]


def test_indices_by_partial_permutation_for_a_middle_ratio():
    """3 of 10 (ratio 0.3): position i swaps with i + x mod (10 - i): 0 <-> 9, 1 <-> 1 + 67634689 mod 9 = 5,
    2 <-> 2 + 499951813 mod 8 = 7."""
    out = np.full(5, -1)
    sample_indices(out, 1, 3, 10, np.array([1], dtype=np.uint64), 0)
    assert out.tolist() == [-1, 9, 5, 7, -1]


def test_indices_by_reservoir_sampling_above_half():
    """6 of 10: 0..5, then index i replaces slot x mod (i + 1) when below 6: i=6 -> 270369 mod 7 = 1,
    i=7 -> 67634689 mod 8 = 1, i=8 -> 499951813 mod 9 = 4, i=9 -> 307599695 mod 10 = 5."""
    out = np.empty(6, dtype=np.int64)
    sample_indices(out, 0, 6, 10, np.array([1], dtype=np.uint64), 0)
    assert out.tolist() == [0, 7, 2, 3, 8, 9]


def test_indices_by_tracking_selection_below_six_percent():
    """1 of 20 (0.05): 270369 mod 20 = 9; 2 of 40: 270369 mod 40 = 9, 67634689 mod 40 = 9 is drawn again,
    so the next, 499951813 mod 40 = 13."""
    out = np.empty(2, dtype=np.int64)
    sample_indices(out, 0, 1, 20, np.array([1], dtype=np.uint64), 0)
    assert out[0] == 9
    sample_indices(out, 0, 2, 40, np.array([1], dtype=np.uint64), 0)
    assert out.tolist() == [9, 13]


def test_a_feature_sample_keeps_the_retained_attributes_first_and_a_permutation():
    d, r, m = 12, 2, 5  # 3 drawn of the 10 others (ratio 0.3: the partial permutation above)
    perm = np.roll(np.arange(d), r)
    state = np.array([0, r, 1], dtype=np.uint64)
    feature_sample(perm, m, state)
    assert perm[:m].tolist() == [10, 11, 9, 5, 7]
    assert sorted(perm.tolist()) == list(range(d)) and perm[m:].tolist() == [0, 1, 2, 3, 4, 6, 8]
    feature_sample(perm, m, state)  # the generator moves on: the next sample starts from 0 .. D - R - 1 again
    rng, pool = RNG(1), list(range(10))
    for _ in range(3):
        rng.next()
    for i in range(3):
        j = rng.random_int(i, 10)
        pool[i], pool[j] = pool[j], pool[i]
    assert perm[r:m].tolist() == pool[:3]


def test_weights_without_replacement_by_pool_and_by_tracking():
    """Pool (4 of 10): the k-th draw takes pool[x mod (10 - k)] and moves the last live entry there:
    270369 mod 10 = 9; 67634689 mod 9 = 4 (8 moves to 4); 499951813 mod 8 = 5 (7 moves to 5);
    307599695 mod 7 = 4, which now holds 8."""
    order = np.arange(10, dtype=np.int64)
    w = np.full(10, 7.0)
    weights_without_replacement(w, 4, order, np.array([1], dtype=np.uint64), 0)
    assert np.flatnonzero(w).tolist() == [4, 5, 8, 9] and w.sum() == 4
    # the draws index the given order (a training partition's): the same positions, other examples
    w2 = np.zeros(10)
    weights_without_replacement(w2, 4, order[::-1].copy(), np.array([1], dtype=np.uint64), 0)
    assert np.flatnonzero(w2).tolist() == [0, 1, 4, 5]
    # tracking selection (1 of 20): 270369 mod 20 = 9
    w3 = np.zeros(20)
    weights_without_replacement(w3, 1, np.arange(20, dtype=np.int64), np.array([1], dtype=np.uint64), 0)
    assert np.flatnonzero(w3).tolist() == [9]


def test_draws_with_replacement_count_each_draw():
    w = np.zeros(10)
    draws_with_replacement(w, 3, np.arange(10, dtype=np.int64), np.empty(0), np.array([1], dtype=np.uint64), 0)
    # 270369 mod 10 = 9, 67634689 mod 10 = 9, 499951813 mod 10 = 3
    assert w.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 2]


def test_the_random_holdout_split_is_a_partial_permutation():
    """N = 10, size 0.33: floor(3.3) = 3 held out; 7 Fisher-Yates steps; the first 7 train (in that order)."""
    train, holdout = reference_random_split(10, 0.33, 1)
    rng, order = RNG(1), list(range(10))
    for i in range(7):
        j = rng.random_int(i, 10)
        order[i], order[j] = order[j], order[i]
    assert train.tolist() == order[:7] and holdout.tolist() == order[7:]
    assert random_permutation(10, 7, RNG(1)).tolist() == order
    sorted_train, sorted_holdout = split_holdout(np.zeros((10, 2), dtype=np.uint8), "random", 0.33, 1)
    assert sorted_holdout.tolist() == sorted(order[7:]) and sorted_train.tolist() == sorted(order[:7])
    # float32 arithmetic as there: 0.33f x 120 = 39.6 -> 39 (round would give 40)
    assert len(reference_random_split(120, 0.33, 1)[1]) == 39


def test_output_samples_continue_one_generator_rule_by_rule():
    sampler = OutputSampler("without-replacement", {"sample_size": 0.33, "min_samples": 1, "max_samples": 1}, 6, 1)
    # one of 6 (ratio 1/6: the partial permutation, one step per sample): 270369 mod 6, 67634689 mod 6, ...
    assert [int(sampler.next()[0]) for _ in range(3)] == [270369 % 6, 67634689 % 6, 499951813 % 6]
