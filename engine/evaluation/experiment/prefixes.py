"""Predictions of every prefix of one rule model: Table 1's BOOMER configurations T = step, 2·step, …
rules (SPEC C.2), each the first T rules (the default rule included) of one long model, predicted
incrementally (:mod:`engine.incremental`) and never refitted."""
from __future__ import annotations

import numpy as np

from ...incremental import IncrementalPrediction


def prefix_sizes(max_rules: int, step: int) -> list[int]:
    """T = step, 2·step, … up to ``max_rules`` (one size, ``max_rules``, when the step exceeds it)."""
    return list(range(step, max_rules + 1, step)) or [max_rules]


def supports_prefixes(estimator) -> bool:
    """Whether the estimator predicts incrementally (BOOMER, AdaBoost.MH; SeCo: its first rules and its
    default rule), so that its prefixes can be predicted."""
    return isinstance(estimator, IncrementalPrediction)


def prefix_predictions(estimator, X, sizes: list[int]) -> np.ndarray:
    """The fitted ``estimator``'s test predictions of its first T rules for every T in ``sizes``
    (ascending): len(sizes) x N x K, uint8.  A model that stopped learning before T rules predicts
    with all of its rules for every longer prefix."""
    steps = estimator.predict_incrementally(X)
    out = None
    used = 0
    P = None
    for i, size in enumerate(sizes):
        if size > used and steps.has_next():
            P = np.asarray(steps.apply_next(size - used), dtype=np.uint8)
            used = size
        elif P is None:  # a model of fewer rules than the first prefix
            P = np.asarray(estimator.predict(X), dtype=np.uint8)
        if out is None:
            out = np.empty((len(sizes), *P.shape), dtype=np.uint8)
        out[i] = P
    return out
