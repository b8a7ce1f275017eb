"""Each rule's instance sample (``instance_sampling``), drawn the same way in training and in
post-optimization: a seed per rule, then bagging in the kernel, a subset's weights, or weighted draws."""
from __future__ import annotations

import numpy as np

from ..holdout import split_holdout
from ..sampling import weighted_draws

SUBSET_METHODS = ("without-replacement", "stratified-output-wise", "stratified-example-wise")


class RuleSeeds:
    """Per-rule seeds drawn from ``rng`` in chunks: the same sequence as drawing ``max_rules`` of them
    at once, without allocating for a budget of millions of rules up front."""

    CHUNK = 4096

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._chunk = np.empty(0, dtype=np.int64)
        self._pos = 0

    def next(self) -> int:
        if self._pos == len(self._chunk):
            self._chunk = self._rng.integers(1, 2**63 - 1, size=self.CHUNK)
            self._pos = 0
        self._pos += 1
        return self._chunk[self._pos - 1]


class InstanceSampler:
    """The weights each rule is learned with.  ``bagging`` is the number of draws with replacement the
    kernel makes itself (0: none); a subset (without replacement, stratified) is weighted here, and with
    sample weights the draws with replacement are made here too (:func:`engine.sampling.weighted_draws`)."""

    def __init__(self, method: str, n_drawn: int, Y: np.ndarray, sample_weight, seeds: RuleSeeds,
                 rng_state: np.ndarray):
        n = Y.shape[0]
        self.method, self.n_drawn, self.Y, self.sample_weight = method, n_drawn, Y, sample_weight
        self.seeds, self.rng_state = seeds, rng_state
        # float64 like the weighted draws of sample weights: one compiled kernel serves both
        self.weights = np.ones(n, dtype=np.float64)
        self.bagging = n_drawn if method == "with-replacement" else 0
        self.drawn_weights = None  # weighted draws: drawn here, the kernel takes them as given
        if self.bagging and sample_weight is not None:
            self.drawn_weights, self.bagging = np.zeros(n, dtype=np.float64), 0
        self.subset = method in SUBSET_METHODS

    def draw(self) -> np.ndarray:
        """The next rule's seed (into the random state's first entry) and the weights it is learned with."""
        self.rng_state[0] = self.seeds.next()
        if self.subset:
            subset_weights(self.weights, self.Y, self.method, self.n_drawn, self.rng_state[0])
        if self.drawn_weights is None:
            return self.weights
        weighted_draws(self.drawn_weights, self.n_drawn, self.rng_state, self.sample_weight)
        return self.drawn_weights


def subset_weights(weights: np.ndarray, Y: np.ndarray, method: str, size: int, seed) -> None:
    """Per rule, weight 1 for ``size`` examples chosen without replacement (uniformly, or stratified
    by labels with engine.holdout's output-wise or example-wise stratification), 0 for the others."""
    n = Y.shape[0]
    weights[:] = 0
    if size >= n:
        weights[:] = 1
        return
    rng = np.random.default_rng(int(seed))
    if method == "without-replacement":
        weights[rng.choice(n, size, replace=False)] = 1
        return
    # the stratified split's "holdout" part is the sample (of n - size examples set aside)
    kind = "stratified-output-wise" if method == "stratified-output-wise" else "stratified-example-wise"
    _, sample = split_holdout(Y, kind, size / n, int(rng.integers(2**63 - 1)))
    weights[sample] = 1
