"""What mlrl-boomer 0.15.6 samples per rule besides the training examples: example weights in the
draws, the outputs a rule may predict, and the attributes retained in every feature sample.

- ``sample_weight`` (``fit``): mlrl-boomer passes the weights to its instance sampling only.  With
  ``instance_sampling='with-replacement'`` every draw of an example adds the example's weight (not 1)
  to its weight in the sample (:func:`engine.core.reference_random.draws_with_replacement`); the
  refinement sums the sampled examples' gradients and Hessians times these weights and
  ``min_coverage`` counts the examples of non-zero weight.  Every other instance sampling ('none', 'without-replacement', both stratified ones) gives
  the sampled examples weight 1 whatever ``sample_weight`` says, and the default rule and the heads,
  computed from every covered training example (``recalculate_predictions``), are unweighted.  So
  ``sample_weight`` changes nothing without sampling with replacement (checked against the reference
  in tests/test_mlrl_parity_weights.py), and scikit-learn's check that integer weights equal
  repeated rows cannot hold.
- ``output_sampling``: 'none', 'without-replacement{sample_size,min_samples,max_samples}' (a new
  sample of ceil(sample_size x K) outputs per rule, bounded by ``min_samples`` and ``max_samples``,
  0: no upper bound; the defaults 0.33, 1 and 1 give one output) or 'round-robin' (the outputs 0, 1,
  ..., K - 1, 0, ... in turn, one per rule).  A rule's head predicts only sampled outputs: a single-
  label head the best of them, a complete head all of them, partial heads and label binning choose
  among them (:func:`output_sample_statistics` hands the refinement the sampled outputs' statistics).
- ``feature_sampling``'s ``num_retained``: as in mlrl-boomer the last ``num_retained`` attributes are
  in every sample (first, so they win ties), and the sample size (log2 or ``sample_size``) is computed
  from the other attributes and drawn among them (:func:`feature_sample_plan` gives those sizes; the
  refinement kernels keep the retained attributes at the front of their permutation,
  :func:`engine.core.refinement.sample_features`).
"""
from __future__ import annotations

import math

import numpy as np

from .core.losses import packed_index
from .core.reference_random import sample_indices


class OutputSampler:
    """The outputs each rule may predict (``output_sampling``): :meth:`next` gives them sorted, or
    None without sampling.  'without-replacement' draws as mlrl-boomer does (its generator seeded with
    ``random_state``, continued rule by rule, :func:`engine.core.reference_random.sample_indices`)."""

    def __init__(self, name: str, options: dict, n_outputs: int, random_state: int = 1):
        self.name, self.K = name, n_outputs
        self.state = np.array([int(random_state) & 0xFFFFFFFF], dtype=np.uint64)  # mlrl-boomer's generator
        self._next = 0
        self.size = n_outputs
        if name == "without-replacement":
            self.size = bounded_count(n_outputs, options["sample_size"], options["min_samples"],
                                      options["max_samples"])
        elif name == "round-robin":
            self.size = 1

    @property
    def active(self) -> bool:
        return self.name != "none"

    def next(self) -> np.ndarray | None:
        if self.name == "none":
            return None
        if self.name == "round-robin":
            label = self._next
            self._next = (self._next + 1) % self.K
            return np.array([label], dtype=np.int64)
        sample = np.empty(self.size, dtype=np.int64)  # the reference's draws, then ascending
        sample_indices(sample, 0, self.size, self.K, self.state, 0)
        return np.sort(sample)


def bounded_count(n: int, fraction: float, minimum: int, maximum: int) -> int:
    """ceil(fraction x n), at least ``minimum`` (or n if smaller), at most ``maximum`` (0: no bound): how
    mlrl-boomer sizes samples of examples, attributes and outputs."""
    count = int(math.ceil(fraction * n - 1e-9))
    count = max(count, min(minimum, n))
    if maximum > 0:
        count = min(count, max(maximum, min(minimum, n)))
    return min(count, n)


def sampled_feature_count(n_features: int, sample_size: float = 0.0, min_samples: int = 1,
                          max_samples: int = 0) -> int:
    """Attributes per refinement step: with ``sample_size`` 0, floor(log2(D - 1) + 1) (Alg. 3 line 2,
    at least 1), else ceil(sample_size x D) bounded by ``min_samples`` and ``max_samples`` (0: none)."""
    if sample_size <= 0.0:
        if n_features <= 2:
            return 1
        return min(n_features, int(math.floor(math.log2(n_features - 1) + 1)))
    return bounded_count(n_features, sample_size, min_samples, max_samples)


def sub_packed_columns(labels: np.ndarray, n_labels: int) -> np.ndarray:
    """Columns of a packed K x K Hessian holding the principal submatrix of ``labels``, in the packed
    order of that submatrix."""
    s = len(labels)
    cols = np.empty(s * (s + 1) // 2, dtype=np.int64)
    for a in range(s):
        for b in range(a, s):
            cols[packed_index(a, b, s)] = packed_index(int(labels[a]), int(labels[b]), n_labels)
    return cols


def output_sample_statistics(G: np.ndarray, H: np.ndarray, labels: np.ndarray, full_hessian: bool):
    """(gradients, Hessians) of the sampled outputs only, C-contiguous in the statistics' type: the
    refinement and the head of a rule restricted to them.  ``H`` holds one column per label
    (diagonal Hessians) or the packed K x K Hessian (``full_hessian``)."""
    K = G.shape[1]
    G_sub = np.ascontiguousarray(G[:, labels])
    cols = sub_packed_columns(labels, K) if full_hessian else labels
    H_sub = np.ascontiguousarray(H[:, cols])
    return G_sub, H_sub


def feature_sample_plan(n_features: int, sample_size: float, min_samples: int, max_samples: int,
                        num_retained: int) -> tuple[int, int]:
    """(attributes drawn per refinement step, attributes retained): with ``num_retained`` R > 0 the
    last min(R, D) attributes are always in the sample and the drawn count is computed from the
    other D - R as without retained ones (floor(log2(D - R - 1) + 1) for ``sample_size`` 0, else
    ceil(sample_size x (D - R)) bounded by ``min_samples``/``max_samples``)."""
    retained = min(num_retained, n_features)
    rest = n_features - retained
    if rest <= 0:
        return 0, retained
    return sampled_feature_count(rest, sample_size, min_samples, max_samples), retained
