"""Holdout sets (mlrl-boomer's ``holdout``): part of the training data set aside to judge rules.

- ``random``: mlrl-boomer's draws (:func:`reference_random_split`, its generator seeded with ``seed``):
  floor(size x N) examples (float32 arithmetic, at least 1, at most N - 1);
- ``stratified-example-wise``: every distinct label vector contributes its share (largest
  remainders round the shares to the holdout size), so label combinations keep their frequency;
- ``stratified-output-wise``: iterative stratification (Sechidis et al., ECML-PKDD 2011, one
  split): labels from the rarest up, each label's still unassigned positives are split so the
  holdout receives ``size`` of that label's positives; the rest is filled at random.  (SeCo's; BOOMER
  splits with mlrl-boomer's own, :func:`reference_stratified_split`.)

Every method returns sorted (train, holdout) index arrays; both are non-empty when N >= 2.
"""
from __future__ import annotations

import numpy as np

from .core.reference_random import RNG, output_wise_columns, random_permutation, stratified_bipartition
from .predictors import unique_rows

HOLDOUT_METHODS = ("none", "random", "stratified-output-wise", "stratified-example-wise")


def split_holdout(Y: np.ndarray, method: str, size: float, seed) -> tuple[np.ndarray, np.ndarray]:
    n = Y.shape[0]
    if n < 2:
        raise ValueError(f"a holdout set needs at least 2 training examples, got {n}")
    if method == "random":
        _, holdout = reference_random_split(n, size, seed)
        return _sorted_split(n, holdout)
    target = min(max(int(round(size * n)), 1), n - 1)
    rng = np.random.default_rng(seed)
    if method == "stratified-example-wise":
        holdout = _example_wise(Y, target, rng)
    elif method == "stratified-output-wise":
        holdout = _output_wise(Y, target, size, rng)
    else:
        raise ValueError(f"unknown holdout method {method!r}; known: {', '.join(HOLDOUT_METHODS[1:])}")
    return _sorted_split(n, holdout)


def reference_stratified_split(Y: np.ndarray, size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """mlrl-boomer's output-wise stratified holdout split: the stratification of every example
    (:func:`engine.core.reference_random.output_wise_columns`) split into N - H training examples and
    H = floor(float32(size) x N) (here at least 1, at most N - 1) by its generator seeded with ``seed``
    (:func:`engine.core.reference_random.stratified_bipartition`); the training examples in its order."""
    n = Y.shape[0]
    n_holdout = min(max(int(np.float32(size) * np.float32(n)), 1), n - 1)
    indices, indptr = output_wise_columns(Y, np.arange(n))
    order = stratified_bipartition(indices, indptr, n - n_holdout, RNG(seed))
    return order[:n - n_holdout], order[n - n_holdout:]


def _sorted_split(n: int, holdout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(n, dtype=bool)
    mask[holdout] = True
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def reference_random_split(n: int, size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """mlrl-boomer's random holdout split: H = floor(float32(size) x N) holdout examples (here at least 1, at
    most N - 1); 0 .. N - 1 permuted by N - H Fisher-Yates steps of its generator seeded with ``seed``; the
    first N - H are the training examples in that order (the order its instance sampling draws into), the
    rest the holdout set."""
    n_holdout = min(max(int(np.float32(size) * np.float32(n)), 1), n - 1)
    order = random_permutation(n, n - n_holdout, RNG(seed))
    return order[:n - n_holdout], order[n - n_holdout:]


def _example_wise(Y, target, rng):
    _, group = unique_rows(Y, return_inverse=True)
    group = group.ravel()
    counts = np.bincount(group)
    share = counts * (target / Y.shape[0])
    take = np.floor(share).astype(int)
    order = np.argsort(-(share - take), kind="stable")  # largest remainders first
    take[order[:target - take.sum()]] += 1
    chosen = []
    for g in range(len(counts)):
        members = np.flatnonzero(group == g)
        chosen.append(rng.permutation(members)[:take[g]])
    return np.concatenate(chosen)


def _output_wise(Y, target, size, rng):
    n, K = Y.shape
    assigned = np.zeros(n, dtype=np.int8)  # 0 unassigned, 1 train, 2 holdout
    positives = Y.sum(axis=0)
    for k in np.argsort(positives, kind="stable"):
        if positives[k] == 0:
            continue
        members = np.flatnonzero(Y[:, k] > 0)
        free = rng.permutation(members[assigned[members] == 0])
        want = int(round(size * positives[k])) - int((assigned[members] == 2).sum())
        room = target - int((assigned == 2).sum())
        want = max(0, min(want, len(free), room))
        assigned[free[:want]] = 2
        assigned[free[want:]] = 1
    holdout = np.flatnonzero(assigned == 2)
    # fill up with examples no label placed (those without positives) first, then at random
    rest = np.concatenate([rng.permutation(np.flatnonzero(assigned == 0)),
                           rng.permutation(np.flatnonzero(assigned == 1))])
    return np.concatenate([holdout, rest[:target - len(holdout)]])
