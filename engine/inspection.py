"""Questions a user asks of a learned model: which rules explain a prediction, and what
happens to the losses when rules are switched off (without retraining)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core.boosting import add_head_scores
from .model import RuleModel, rule_coverage
from .tracking import LossTracker


@dataclass(frozen=True)
class Explanation:
    """Per covering rule its contribution to each label's score; they sum to ``scores``."""

    rule_indices: np.ndarray  # covering rules in model order
    contributions: np.ndarray  # len(rule_indices) x K
    scores: np.ndarray  # K
    prediction: np.ndarray  # K, 0/1
    probabilities: np.ndarray | None = None  # K, the model's predict_proba where it has probabilities


def explain(model: RuleModel, x, active: np.ndarray | None = None) -> Explanation:
    """Eq. (2) taken apart for one example ``x`` (a row of attribute values).

    For decision lists a rule contributes to a label only where it is the first covering
    rule that predicts the label."""
    x = np.asarray(x, dtype=np.float32).reshape(1, -1)
    K = model.n_labels
    act = np.ones(len(model.rules), bool) if active is None else np.asarray(active, bool)
    indices, rows = [], []
    decided = np.zeros(K, bool)
    for r, rule in enumerate(model.rules):
        if not act[r] or not rule_coverage(rule, x)[0]:
            continue
        head = rule.dense_head(K)
        if model.prediction == "decision-list":
            mask = np.zeros(K, bool)
            mask[rule.head_labels] = True
            mask &= ~decided
            decided |= mask
            head = np.where(mask, head, 0.0)
        indices.append(r)
        rows.append(head)
    contributions = np.array(rows).reshape(len(rows), K)
    scores = model.scores(x, act.astype(np.uint8))[0]
    probabilities = None
    if model.predictors is not None:
        try:
            probabilities = model.predictors.probabilities(scores[None, :])[0]
        except AttributeError:  # a loss without probabilities
            probabilities = None
    return Explanation(np.array(indices, dtype=np.int64), contributions, scores,
                       model.predict_from_scores(scores[None, :])[0], probabilities)


def predictor_text(model: RuleModel) -> str | None:
    """How a model with mlrl-boomer's predictors (engine.predictors) turns scores into a prediction,
    when that is not the score's sign or eq. (19) by the loss; None otherwise."""
    p = model.predictors
    if p is None or not p.probabilistic:
        return None
    calibrated = " (calibrated)" if p.binary_calibrated and (p.marginal is not None or p.joint is not None) else ""
    if p.binary == "gfm":
        return ("GFM prediction: the label set of the largest expected F-measure under the joint probabilities"
                f"{calibrated} of the known training label vectors.")
    if p.binary == "example-wise":
        return f"Example-wise prediction: the known training label vector of the largest joint probability{calibrated}."
    return f"A label is predicted relevant when its probability{calibrated} exceeds 0.5."


class WhatIf:
    """Switch rules of an additive model off and on; training and test losses follow
    incrementally (only the switched rule's covered examples are re-predicted)."""

    def __init__(self, model: RuleModel, X_train, Y_train, X_test=None, Y_test=None):
        if model.prediction == "decision-list":
            raise ValueError("switching rules is supported for additive (boosted) models only")
        self.model = model
        self.active = np.ones(len(model.rules), dtype=bool)
        self._sets = [self._make(X_train, Y_train)]
        if X_test is not None:
            self._sets.append(self._make(X_test, Y_test))

    def _make(self, X, Y):
        F = self.model.scores(X)
        tracker = LossTracker(Y, self.model.prediction, self.model.loss, self.model.label_vectors, F)
        cover = [np.flatnonzero(rule_coverage(r, X)).astype(np.int64) for r in self.model.rules]
        return tracker, cover

    def set_active(self, index: int, active: bool) -> None:
        if bool(self.active[index]) == bool(active):
            return
        self.active[index] = active
        rule = self.model.rules[index]
        sign = 1.0 if active else -1.0
        for tracker, cover in self._sets:
            rows = cover[index]
            add_head_scores(tracker.F, rows, len(rows), rule.head_labels, rule.head_scores, sign)
            tracker.refresh(rows)

    def losses(self) -> dict:
        """``{'train_hamming', 'train_subset'[, 'test_hamming', 'test_subset']}``."""
        out = {}
        for name, (tracker, _) in zip(("train", "test"), self._sets):
            out[f"{name}_hamming"] = tracker.hamming
            out[f"{name}_subset"] = tracker.subset
        return out


def nearest_label_vectors(model: RuleModel, scores: np.ndarray, n: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (19) spelled out for one example: the ``n`` known label vectors with the smallest loss
    at ``scores`` (indices into ``model.label_vectors``, nearest first) and those losses.  The
    first is the example-wise prediction; the gap to the second says how close the call was."""
    from .core.losses import LOSS_CODES, example_loss

    if model.label_vectors is None or model.loss not in LOSS_CODES:
        raise ValueError("the model predicts label-wise: it has no known label vectors")
    code = LOSS_CODES[model.loss]
    f = np.ascontiguousarray(scores, dtype=np.float64)
    vectors = np.ascontiguousarray(np.asarray(model.label_vectors) > 0, dtype=np.uint8)
    losses = np.array([example_loss(code, vectors[v], f) for v in range(len(vectors))])
    order = np.argsort(losses, kind="stable")[:n]
    return order, losses[order]
