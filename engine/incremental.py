"""Predictions of every model size, rule by rule: mlrl-boomer 0.15.6's incremental prediction API.

``est.predict_incrementally(X)``, ``est.decision_function_incrementally(X)`` and
``est.predict_proba_incrementally(X)`` (keyword arguments ``max_rules``, 0: every rule, and ``dtype``, as the
reference's) return an :class:`IncrementalPredictor`: ``apply_next(step_size)`` adds the next ``step_size``
rules' heads to the running scores of the examples they cover and returns the predictions of the model of
the rules used so far; ``get_num_next()`` and ``has_next()`` say how many rules remain.  Iterating over it
yields the predictions after each rule (model sizes 1, 2, ...; the first rule is the default rule of a
boosting model).  Each step touches only the examples and labels of the added rules' heads, in rule order,
so the scores after n rules equal those of ``predict`` on the model's first n rules exactly.  A decision
list (SeCo, mlrl-seco's ``predict_incrementally``) starts from its default rule and adds the learned rules
in order, each deciding the labels no earlier rule decided: after n rules, the first n - 1 and the default."""
from __future__ import annotations

import numbers
from typing import Callable, Iterator

import numpy as np
import scipy.sparse as sp
from sklearn.utils.metaestimators import available_if

from .model import RuleModel, rule_coverage

_KWARGS = ("max_rules", "dtype")


class IncrementalPredictor:
    """The predictions of a rule model's first 1, 2, ... rules for the rows of ``X`` (already checked):
    the running scores of an additive model (label-wise or example-wise prediction) turned into the
    wanted predictions by ``output`` after each step."""

    def __init__(self, model: RuleModel, X, output: Callable[[np.ndarray], np.ndarray], max_rules: int = 0,
                 dtype=None):
        n_rules = len(model.rules)
        self.model, self.output, self.dtype = model, output, dtype
        self.order = _decision_list_order(model) if model.prediction == "decision-list" else None
        self.decided = np.zeros((X.shape[0], model.n_labels), dtype=bool) if self.order is not None else None
        self.X = sp.csc_matrix(X) if sp.issparse(X) else X
        self.n_total = min(n_rules, max_rules) if max_rules > 0 else n_rules
        self.n_used = 0
        self.scores = np.zeros((X.shape[0], model.n_labels))

    def get_num_next(self) -> int:
        """The rules not used yet."""
        return self.n_total - self.n_used

    def has_next(self) -> bool:
        """Whether rules remain."""
        return self.get_num_next() > 0

    def apply_next(self, step_size: int):
        """The predictions after adding the next ``step_size`` rules (fewer when fewer remain)."""
        if not isinstance(step_size, numbers.Integral) or isinstance(step_size, bool) or step_size < 1:
            raise ValueError(f"step_size must be an integer >= 1, got {step_size!r}")
        end = min(self.n_total, self.n_used + int(step_size))
        F = self.scores
        for j in range(self.n_used, end):
            if self.order is not None:
                self._first_covering(self.model.rules[self.order[j]], j == 0 and not self.model.rules[-1].conditions)
                continue
            rule = self.model.rules[j]
            rows = np.flatnonzero(rule_coverage(rule, self.X)) if rule.conditions else np.arange(F.shape[0])
            F[np.ix_(rows, rule.head_labels)] += rule.head_scores
        self.n_used = end
        out = self.output(F.copy())
        return out.astype(self.dtype, copy=False) if self.dtype is not None else out

    def _first_covering(self, rule, fallback: bool) -> None:
        """A decision list's next rule: the default rule (``fallback``) sets every example's values of its
        labels without deciding them; a learned rule decides the labels of its head on the covered examples
        no earlier rule decided."""
        F = self.scores
        if fallback:
            F[:, rule.head_labels] = rule.head_scores
            return
        rows = np.flatnonzero(rule_coverage(rule, self.X)) if rule.conditions else np.arange(F.shape[0])
        block = np.ix_(rows, rule.head_labels)
        open_ = ~self.decided[block]
        F[block] = np.where(open_, rule.head_scores, F[block])
        self.decided[block] = True

    def __iter__(self) -> Iterator:
        """The predictions after each further rule, until none remains."""
        while self.has_next():
            yield self.apply_next(1)


def _decision_list_order(model: RuleModel) -> list[int]:
    """The order a decision list's rules are added in, as mlrl-seco's incremental prediction adds them: its
    default rule (the last, without conditions) first, as the fallback of every example, then the learned
    rules in order; the predictions after n rules are those of the first n - 1 rules and the default rule."""
    n = len(model.rules)
    if n and not model.rules[-1].conditions:
        return [n - 1, *range(n - 1)]
    return list(range(n))


def _has_probabilities(est) -> bool:
    return bool(est.PROBABILITIES)


def _options(kwargs: dict) -> tuple[int, object]:
    unknown = sorted(set(kwargs) - set(_KWARGS))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {', '.join(unknown)}; incremental prediction takes "
                        f"{', '.join(_KWARGS)}")
    max_rules = kwargs.get("max_rules", 0)
    if not isinstance(max_rules, numbers.Integral) or isinstance(max_rules, bool) or max_rules < 0:
        raise ValueError(f"max_rules must be an integer >= 1, or 0 for every rule, got {max_rules!r}")
    return int(max_rules), kwargs.get("dtype")


class IncrementalPrediction:
    """Mixin of the rule learners (BOOMER, AdaBoost.MH, and SeCo's decision lists): the
    reference's ``*_incrementally`` methods.  The outputs are those of ``predict``, ``decision_function``
    and ``predict_proba`` (``_binary_output``, ``_score_output``, ``_probability_output``)."""

    def _incremental(self, X, output, kwargs) -> IncrementalPredictor:
        max_rules, dtype = _options(kwargs)
        model, Xc = self._checked(X)
        return IncrementalPredictor(model, Xc, output, max_rules, dtype)

    def predict_incrementally(self, X, **kwargs) -> IncrementalPredictor:
        """Binary predictions of the models of 1, 2, ... rules (see :class:`IncrementalPredictor`)."""
        model = self._model()
        return self._incremental(X, lambda F: self._binary_output(model.predict_from_scores(F)), kwargs)

    def decision_function_incrementally(self, X, **kwargs) -> IncrementalPredictor:
        """Scores of the models of 1, 2, ... rules (see :class:`IncrementalPredictor`)."""
        return self._incremental(X, self._score_output, kwargs)

    @available_if(_has_probabilities)
    def predict_proba_incrementally(self, X, **kwargs) -> IncrementalPredictor:
        """Probabilities of the models of 1, 2, ... rules (see :class:`IncrementalPredictor`);
        AttributeError for a loss without probabilities, as ``predict_proba``."""
        model = self._model()
        model.probabilities_from_scores(np.zeros((1, model.n_labels)))  # refuses a loss without probabilities
        return self._incremental(X, lambda F: self._probability_output(model.probabilities_from_scores(F)), kwargs)
