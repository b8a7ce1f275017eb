"""What if a condition's threshold were another value: the rule's coverage, its head and the model's
losses after the edit, computed incrementally (issue 59, item 2).

:class:`ThresholdEditor` keeps the original model's score matrix and per-example errors on the
training data and, optionally, the test data.  An edit of condition ``c`` of rule ``r`` to threshold
``t`` covers ``rest & (x_a op t)``, where ``rest`` is what the rule's other conditions cover
(computed once per selected condition).  Only the examples whose scores change are rescored: those
whose coverage changed when the head is kept, those covered before or after when it is re-optimised;
their scores are the original ones minus the old head (where it applied) plus the new one, and only
they are predicted again.  Every edit starts from the original model (edits never accumulate
rounding).  A decision list (the first covering rule decides) rescores those examples with the
edited model instead.

A re-optimised head (BOOMER only) keeps the rule's head labels; its scores are the closed-form
optimum (:func:`engine.head_solution.head_solution`, the learner's formula for the loss, L1 and L2)
of the gradients and Hessians summed over the covered training examples (less a holdout set), at the
scores of all *other* rules, times the shrinkage.  (With label binning the learner solved a binned
system; the exact optimum is used here.)

Losses are Hamming and subset 0/1; coverage is computed as the model predicts (values as float32,
missing values never covered)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from .core.losses import LOSS_CODES, is_decomposable, n_hessian_entries, update_statistics
from .head_solution import head_solution
from .model import RuleModel
from .rules import Condition, Rule

LOSSES = ("hamming", "subset")
PARTS = ("train", "test")
NOMINAL_OPERATORS = ("==", "!=")


@dataclass(frozen=True)
class HeadParameters:
    """What the learner's closed form needs: its loss, L2 and L1 weights, shrinkage, and the training
    rows its statistics leave out (a holdout set)."""

    loss: str
    l2: float
    l1: float
    shrinkage: float
    excluded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def head_parameters(estimator) -> HeadParameters | None:
    """The head parameters of a fitted BOOMER estimator; None for a learner whose heads are not
    computed from gradient statistics."""
    model = getattr(estimator, "model_", None)
    if model is None or not hasattr(estimator, "l2_regularization_weight") or model.loss not in LOSS_CODES:
        return None
    values = estimator.effective() if hasattr(estimator, "effective") else estimator
    holdout = getattr(estimator, "holdout_indices_", None)
    excluded = np.zeros(0, dtype=np.int64) if holdout is None else np.asarray(holdout, dtype=np.int64)
    return HeadParameters(model.loss, float(values.l2_regularization_weight),
                          float(getattr(values, "l1_regularization_weight", 0.0)), float(values.shrinkage), excluded)


@dataclass(frozen=True)
class Histogram:
    """The training values of a condition's attribute, counted per bin: covered by the rule's other
    conditions, or not (``n_missing`` values are missing)."""

    attribute: int
    operator: str
    threshold: float
    edges: np.ndarray
    covered: np.ndarray
    other: np.ndarray
    n_missing: int
    nominal: bool


@dataclass(frozen=True)
class ThresholdEdit:
    """The result of one edit; ``losses[part][measure]`` for part ``train`` (and ``test``)."""

    rule_index: int
    condition_index: int
    threshold: float
    original_threshold: float
    rule: Rule  # the edited rule (its new condition and head)
    original_rule: Rule
    reoptimised: bool
    covered: np.ndarray  # training examples the edited rule covers (mask)
    n_covered: dict  # part -> examples covered
    losses: dict  # part -> measure -> loss
    n_rescored: int  # examples (all parts) whose scores changed

    @property
    def changed(self) -> bool:
        return self.threshold != self.original_threshold or self.reoptimised


def _column(X, j: int) -> np.ndarray:
    """Attribute ``j`` as the model's kernels compare it: float32 values, widened."""
    col = X[:, j].toarray().ravel() if sp.issparse(X) else np.asarray(X[:, j])
    return col.astype(np.float32).astype(np.float64)


def _wrong(Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    return (Y != P).sum(axis=1)


class _Part:
    """One data set's scores and per-example errors under the original model."""

    def __init__(self, model: RuleModel, X, Y):
        self.X = sp.csr_matrix(X) if sp.issparse(X) else X
        self.Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y).astype(np.uint8)
        self.N, self.K = self.Y.shape
        self.F = model.scores(X)
        self.wrong = _wrong(self.Y, model.predict_from_scores(self.F))
        self.columns: dict[int, np.ndarray] = {}

    def column(self, j: int) -> np.ndarray:
        if j not in self.columns:
            self.columns[j] = _column(self.X, j)
        return self.columns[j]

    def losses(self, wrong_sum: float, subset_sum: float) -> dict:
        n = max(self.N, 1)
        return {"hamming": wrong_sum / (n * max(self.K, 1)), "subset": subset_sum / n}

    def original_losses(self) -> dict:
        return self.losses(float(self.wrong.sum()), float((self.wrong > 0).sum()))


@dataclass
class _Selection:
    """Per part: what the rule's other conditions cover, the attribute's values and the original
    coverage, for one (rule, condition)."""

    rule: int
    condition: int
    rest: dict
    values: dict
    coverage: dict


class ThresholdEditor:
    """Edits of one condition's threshold of a finished rule model (module docstring)."""

    def __init__(self, model: RuleModel, X, Y, X_test=None, Y_test=None, head: HeadParameters | None = None):
        if not isinstance(model, RuleModel) or not model.rules:
            raise ValueError("threshold editing needs a fitted rule model with rules")
        self.model, self.head = model, head
        self.parts = {"train": self._part(model, X, Y, "training")}
        if X_test is not None and Y_test is not None and X_test.shape[0]:
            self.parts["test"] = self._part(model, X_test, Y_test, "test")
        self.original_losses = {name: part.original_losses() for name, part in self.parts.items()}
        self._selection: _Selection | None = None

    @staticmethod
    def _part(model: RuleModel, X, Y, what: str) -> _Part:
        if X.ndim != 2 or X.shape[1] != model.n_features or Y.ndim != 2 or Y.shape != (X.shape[0], model.n_labels):
            raise ValueError(f"the {what} data have {X.shape[-1]} attributes and {Y.shape[-1]} labels for "
                             f"{X.shape[0]} examples; the model {model.n_features} and {model.n_labels}")
        return _Part(model, X, Y)

    def condition(self, rule: int, condition: int) -> Condition:
        """Condition ``condition`` of rule ``rule``; ValueError naming what does not exist."""
        rules = self.model.rules
        if not 0 <= rule < len(rules):
            raise ValueError(f"rule {rule} does not exist (the model has {len(rules)} rules)")
        conditions = rules[rule].conditions
        if not conditions:
            raise ValueError(f"rule {rule} has no conditions (the default rule covers every example)")
        if not 0 <= condition < len(conditions):
            raise ValueError(f"rule {rule} has no condition {condition} (it has {len(conditions)})")
        return conditions[condition]

    def _select(self, rule: int, condition: int) -> _Selection:
        s = self._selection
        if s is not None and (s.rule, s.condition) == (rule, condition):
            return s
        cond = self.condition(rule, condition)
        others = [c for i, c in enumerate(self.model.rules[rule].conditions) if i != condition]
        rest, values, coverage = {}, {}, {}
        for name, part in self.parts.items():
            mask = np.ones(part.N, dtype=bool)
            for c in others:
                mask &= c.covers(part.column(c.attribute))
            rest[name], values[name] = mask, part.column(cond.attribute)
            coverage[name] = mask & cond.covers(values[name])
        self._selection = _Selection(rule, condition, rest, values, coverage)
        return self._selection

    def histogram(self, rule: int, condition: int, bins: int = 40) -> Histogram:
        """The condition's attribute on the training data, split by the rule's other conditions."""
        s = self._select(rule, condition)
        cond = self.condition(rule, condition)
        values, rest = s.values["train"], s.rest["train"]
        known = ~np.isnan(values)
        nominal = cond.operator in NOMINAL_OPERATORS
        finite = values[known]
        lo = float(min(finite.min(initial=cond.threshold), cond.threshold))
        hi = float(max(finite.max(initial=cond.threshold), cond.threshold))
        if nominal:
            edges = np.arange(np.floor(lo) - 0.5, np.floor(hi) + 1.0, 1.0)
        else:
            span = (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)
            edges = np.histogram_bin_edges(finite, bins=max(1, int(bins)), range=span)
        covered = np.histogram(values[known & rest], bins=edges)[0]
        other = np.histogram(values[known & ~rest], bins=edges)[0]
        return Histogram(cond.attribute, cond.operator, float(cond.threshold), edges, covered, other,
                         int((~known).sum()), nominal)

    def edit(self, rule: int, condition: int, threshold: float, reoptimise: bool = False) -> ThresholdEdit:
        """Condition ``condition`` of rule ``rule`` at ``threshold``: coverage, head and losses."""
        threshold = float(threshold)
        if not np.isfinite(threshold):
            raise ValueError(f"the threshold must be a finite number, got {threshold}")
        if reoptimise and self.head is None:
            raise ValueError("the head can be re-optimised for gradient-boosted rules (BOOMER) only")
        s = self._select(rule, condition)
        original = self.model.rules[rule]
        cond = original.conditions[condition]
        new_cond = Condition(cond.attribute, cond.operator, threshold)
        coverage = {name: s.rest[name] & new_cond.covers(s.values[name]) for name in self.parts}
        scores = self._reoptimised(rule, s, coverage["train"]) if reoptimise else original.head_scores
        body = original.conditions[:condition] + (new_cond,) + original.conditions[condition + 1:]
        edited = Rule(body, original.head_labels, scores, original.schema)
        losses, rescored = {}, 0
        for name, part in self.parts.items():
            losses[name], n = self._losses(part, s.coverage[name], coverage[name], rule, edited, reoptimise)
            rescored += n
        return ThresholdEdit(rule, condition, threshold, float(cond.threshold), edited, original, bool(reoptimise),
                             coverage["train"], {name: int(c.sum()) for name, c in coverage.items()}, losses,
                             rescored)

    def _losses(self, part: _Part, before: np.ndarray, after: np.ndarray, rule: int, edited: Rule,
                head_changed: bool) -> tuple[dict, int]:
        """The part's losses after the edit, rescoring only the examples whose scores change."""
        original = self.model.rules[rule]
        rows = np.flatnonzero((before | after) if head_changed else (before != after))
        if len(rows) and self.model.prediction == "decision-list":
            F = self.edited_rules_model(rule, edited).scores(part.X[rows])
        elif len(rows):
            F = part.F[rows].copy()
            labels = original.head_labels
            F[np.ix_(before[rows], labels)] -= original.head_scores
            F[np.ix_(after[rows], labels)] += edited.head_scores
        wrong = _wrong(part.Y[rows], self.model.predict_from_scores(F, part.N)) if len(rows) else part.wrong[:0]
        old = part.wrong[rows]
        wrong_sum = float(part.wrong.sum() - old.sum() + wrong.sum())
        subset_sum = float((part.wrong > 0).sum() - (old > 0).sum() + (wrong > 0).sum())
        return part.losses(wrong_sum, subset_sum), len(rows)

    def _reoptimised(self, rule: int, s: _Selection, covered: np.ndarray) -> np.ndarray:
        """The closed-form head at the scores of the other rules over the covered training examples."""
        head, part = self.head, self.parts["train"]
        if len(head.excluded):
            covered = covered.copy()
            covered[head.excluded[head.excluded < part.N]] = False
        rows = np.flatnonzero(covered)
        original = self.model.rules[rule]
        F = np.ascontiguousarray(part.F[rows])
        F[np.ix_(s.coverage["train"][rows], original.head_labels)] -= original.head_scores
        full = not is_decomposable(head.loss)
        G = np.zeros((len(rows), part.K))
        H = np.zeros((len(rows), n_hessian_entries(part.K, not full)))
        update_statistics(LOSS_CODES[head.loss], np.ascontiguousarray(part.Y[rows]), F,
                          np.arange(len(rows), dtype=np.int64), len(rows), G, H)
        solution, _ = head_solution(G.sum(axis=0), H.sum(axis=0), original.head_labels, full, head.l2, head.l1)
        return head.shrinkage * solution

    def edited_rules_model(self, rule: int, edited: Rule) -> RuleModel:
        """The model with rule ``rule`` replaced by ``edited`` (the original model is unchanged)."""
        rules = list(self.model.rules)
        rules[rule] = edited
        return replace(self.model, rules=rules, _compiled=None, _vector_index=None)

    def edited_model(self, edit: ThresholdEdit) -> RuleModel:
        """The model an edit describes (for a what-if run)."""
        return self.edited_rules_model(edit.rule_index, edit.rule)

