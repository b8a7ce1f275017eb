"""Each rule's instance sample (``instance_sampling``), drawn the same way in training and in
post-optimization, with mlrl-boomer 0.15.6's generator and methods (:mod:`engine.core.reference_random`):
one generator for the fit's instance samples, started from ``random_state``, continued rule by rule."""
from __future__ import annotations

import numpy as np

from ..core.reference_random import (draws_with_replacement, output_wise_columns, stratified_weights,
                                     weights_without_replacement)
from ..holdout import split_holdout

STRATIFIED_METHODS = ("stratified-output-wise", "stratified-example-wise")
SUBSET_METHODS = ("without-replacement", *STRATIFIED_METHODS)
_NO_WEIGHTS = np.empty(0, dtype=np.float64)


class InstanceSampler:
    """The weights each rule is learned with.  ``order`` is the training examples (rows of ``Y``) in the
    reference's order of its training partition (ascending without a holdout set; after a holdout split the
    order the split left them in, which its draws index).  ``bagging`` is always 0: every draw is made here.
    With replacement each draw adds the example's ``sample_weight`` (1 without); without replacement and
    output-wise stratified as the reference; example-wise stratified with NumPy's draws (not yet the
    reference's: its strata follow the iteration order of a C++ hash map of label vectors)."""

    def __init__(self, method: str, n_drawn: int, Y: np.ndarray, sample_weight, random_state: int,
                 order: np.ndarray | None = None, sample_size: float = 1.0):
        n = Y.shape[0]
        self.method, self.n_drawn, self.Y = method, n_drawn, Y
        self.sample_weight = _NO_WEIGHTS if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.order = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
        self.state = np.array([int(random_state) & 0xFFFFFFFF], dtype=np.uint64)  # the sampler's generator
        # float64 like the weighted draws of sample weights: one compiled kernel serves both
        self.weights = np.ones(n, dtype=np.float64)
        self.bagging = 0
        self.subset = method in SUBSET_METHODS
        self._numpy = np.random.default_rng(random_state)
        self.sample_size = sample_size
        if method == "stratified-output-wise":  # the reference's columns, permuted in place rule by rule
            self.columns = output_wise_columns(Y, self.order)

    def draw(self) -> np.ndarray:
        """The weights the next rule is learned with (the generator moves on)."""
        if self.method == "with-replacement":
            draws_with_replacement(self.weights, self.n_drawn, self.order, self.sample_weight, self.state, 0)
        elif self.method == "without-replacement":
            weights_without_replacement(self.weights, min(self.n_drawn, len(self.order)), self.order, self.state, 0)
        elif self.method == "stratified-output-wise":
            stratified_weights(self.weights, *self.columns, self.sample_size, self.n_drawn, self.state, 0)
        elif self.method == "stratified-example-wise":
            subset_weights(self.weights, self.Y, self.method, self.n_drawn, int(self._numpy.integers(2**63 - 1)))
        return self.weights


def subset_weights(weights: np.ndarray, Y: np.ndarray, method: str, size: int, seed) -> None:
    """Weight 1 for ``size`` examples of engine.holdout's stratification ``method`` (NumPy's draws from
    ``seed``), 0 for the others."""
    n = Y.shape[0]
    weights[:] = 0
    if size >= n:
        weights[:] = 1
        return
    _, sample = split_holdout(Y, method, size / n, int(seed))
    weights[sample] = 1
