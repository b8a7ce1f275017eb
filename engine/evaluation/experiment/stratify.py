"""Iterative stratification of multi-label data (Sechidis, Tsoumakas & Vlahavas, ECML-PKDD 2011,
Algorithm 1): the label with the fewest examples left is distributed first, each of its examples
going to the subset that still wants most of that label (ties: the subset that wants most examples,
then at random); examples without labels fill the subsets that want most examples."""
from __future__ import annotations

import numpy as np


def iterative_assignment(Y, proportions, seed: int = 1) -> np.ndarray:
    """The subset (0..len(proportions)-1) of every example of the N x K 0/1 matrix ``Y``."""
    Y = np.asarray(Y).astype(bool)
    r = np.asarray(proportions, dtype=np.float64)
    if Y.ndim != 2 or r.ndim != 1 or len(r) < 2 or np.any(r <= 0):
        raise ValueError("iterative stratification needs an N x K label matrix and two or more positive proportions")
    r = r / r.sum()
    n, K = Y.shape
    rng = np.random.default_rng(seed)
    wanted = n * r  # c_j: examples each subset still wants
    wanted_per_label = np.outer(r, Y.sum(axis=0))  # c_j^i
    assignment = np.full(n, -1, dtype=np.int64)
    left = Y.copy()  # labels of the examples not yet assigned
    remaining = left.sum(axis=0)
    while remaining.any():
        candidates = np.flatnonzero(remaining == remaining[remaining > 0].min())
        label = int(rng.choice(candidates))
        examples = np.flatnonzero(left[:, label])
        for i in rng.permutation(examples):
            j = _pick(wanted_per_label[:, label], wanted, rng)
            assignment[i] = j
            wanted_per_label[j] -= Y[i]
            wanted[j] -= 1
            remaining -= left[i]
            left[i] = False
    for i in rng.permutation(np.flatnonzero(assignment < 0)):  # examples without a label
        j = _pick(wanted, wanted, rng)
        assignment[i] = j
        wanted[j] -= 1
    return assignment


def _pick(first: np.ndarray, second: np.ndarray, rng) -> int:
    """The subset with the largest ``first``, ties by the largest ``second``, then at random."""
    best = np.flatnonzero(first == first.max())
    if len(best) > 1:
        best = best[second[best] == second[best].max()]
    return int(best[0] if len(best) == 1 else rng.choice(best))


def stratified_folds(Y, n_folds: int, seed: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row indices of ``n_folds`` iteratively stratified folds."""
    n = np.asarray(Y).shape[0]
    if n_folds < 2 or n_folds > n:
        raise ValueError(f"cannot split {n} examples into {n_folds} folds")
    fold = iterative_assignment(Y, np.full(n_folds, 1.0 / n_folds), seed)
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(n_folds)]


def stratified_split(Y, test_size: float, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) row indices with a ``test_size`` share of the examples in the test part."""
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    part = iterative_assignment(Y, (1.0 - test_size, test_size), seed)
    return np.flatnonzero(part == 0), np.flatnonzero(part == 1)
