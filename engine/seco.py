"""Separate-and-conquer rule learning with multi-label heads (Rapp, Loza Mencía & Fürnkranz,
"Exploiting anti-monotonicity of multi-label evaluation measures for inducing multi-label
rules", PAKDD 2018).

**Covering loop.**  Rules are learned one after another.  A rule sets the labels of its head
for every example it covers, except labels an earlier rule already set for that example
(decision-list semantics: earlier rules win).  An example leaves the training set once the
fraction of its labels that are set reaches ``label_coverage_threshold`` (1.0: all labels).
Learning stops after ``max_rules - 1`` rules (``max_rules`` counts the default rule, as BOOMER's and
mlrl-seco's do), when at most ``max_uncovered`` (a fraction of the
training examples) remain, or when no rule sets a new label.  A default rule closes the list:
an empty body predicting, per label, the majority value of the training data (absent on a tie).
The model predicts with the rule model's ``'decision-list'`` strategy (head score +1 present,
-1 absent), so ``save``/``from_model_dict`` reproduce it exactly.  If training is stopped early
the model still ends with the default rule.

**Counting convention.**  Only *countable* (example, label) pairs are counted: pairs of examples
still in the training set whose label no earlier rule has set.  For a head assigning value ``v``
(1 present, 0 absent) to label ``l``, the countable pairs of ``l`` give

    TP: covered, y_il = v     FP: covered, y_il != v
    FN: not covered, y_il = v TN: not covered, y_il != v

and labels outside the head contribute nothing.  Confusion matrices are summed over the head's
labels (micro-averaging) and scored by the ``heuristic``:

- ``'precision'`` TP / (TP + FP); ``'recall'`` TP / (TP + FN);
  ``'hamming-accuracy'`` (TP + TN) / (TP + FP + FN + TN);
  ``'f-measure'`` (1 + β²) TP / ((1 + β²) TP + β² FN + FP) with ``beta``;
- ``'subset-accuracy'`` (example-based): the fraction of the covered training examples for which
  every head label is countable and correctly predicted (a label an earlier rule already set can
  not be set again, so it never counts as correct; with this reading the measure is exactly
  anti-monotone: adding a label to a head never raises its value).

**Head search** (see :mod:`engine.core.seco_search`).  Each label with a countable covered pair is
evaluated as a single-label head predicting presence and absence; it keeps the better value
(absence on a tie) in every multi-label head.  For the four micro-averaged heuristics a head's
value is a weighted mean of its labels' single-label values, so the best head is the set of all
labels with the best single-label value (the paper's result for decomposable measures).  For
subset accuracy ``head_search='pruned'`` explores label combinations, pruning a branch as soon
as adding a label lowers the value and never evaluating a head twice; ``'exhaustive'`` evaluates
all 2^K' - 1 combinations of the K' eligible labels.  Both return the same head: best value,
then most labels, then the lexicographically smallest label tuple.  Every heuristic value
computed for a head counts as one head evaluation (``n_head_evaluations_``, and per rule in
``RuleRecord.extra['head_evaluations']``).

**Bodies** are grown top-down greedily: each step adds the condition (``<=``/``>`` on numeric,
``==``/``!=`` on nominal attributes, thresholds between adjacent values of the pre-sorted
attributes) whose body's best head has the best heuristic value (ties: more countable covered
pairs in the head), while the value strictly improves, each condition covering at least
``min_coverage`` training examples.  ``RuleRecord.improvement`` is the decrease of the training
Hamming loss the rule causes; ``extra`` holds ``heuristic`` (the rule's value),
``head_evaluations``, ``head_size``, ``new_pairs`` (labels newly set on training examples) and
``remaining`` (examples left in the training set).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .core.features import build_feature_index
from .core.refinement import apply_condition
from .core.seco_search import (H_FMEASURE, H_HAMMING, H_PRECISION, H_RECALL, H_SUBSET, TOL, best_conditions,
                        best_conditions_decomposable, covered_counts, head_search, label_bitsets, mask_bitset)
from .learner import RuleLearner, RuleRecord, TrainingData
from .model import RuleModel, rule_coverage
from .tracking import ErrorTotals
from .rules import OPERATORS, Condition, Rule
from .parameters import FROM_INIT, Parameter
from .validation import check_choice

HEURISTICS = ("subset-accuracy", "f-measure", "hamming-accuracy", "precision", "recall")
HEURISTIC_CODES = {"precision": H_PRECISION, "hamming-accuracy": H_HAMMING, "recall": H_RECALL,
                   "f-measure": H_FMEASURE, "subset-accuracy": H_SUBSET}
HEAD_SEARCH = ("pruned", "exhaustive")
MAX_EXHAUSTIVE_LABELS = 24
_MAX_CONDITIONS_CAP = 256


@dataclass(frozen=True)
class Head:
    """Result of a head search: labels (ascending), their values (1 present, 0 absent), the
    heuristic value, the covered countable pairs of the head's labels and the evaluations made."""

    labels: np.ndarray
    values: np.ndarray
    value: float
    pairs: int
    evaluations: int


def find_head(Y, covered, *, heuristic="subset-accuracy", beta=1.0, exhaustive=False, predicted=None,
              active=None) -> Head:
    """Best head for a body covering the rows ``covered`` (boolean mask) of the 0/1 label matrix
    ``Y``; ``predicted`` marks pairs an earlier rule set, ``active`` the examples still in the
    training set (default: none set, all active).  Same search as :class:`SeCoClassifier`."""
    check_choice("heuristic", heuristic, HEURISTICS)
    Y = np.asarray(Y, dtype=np.uint8)
    n, K = Y.shape
    covered = np.asarray(covered, dtype=bool)
    if covered.shape != (n,):
        raise ValueError(f"covered must be a mask of length {n}")
    predicted = np.zeros((n, K), bool) if predicted is None else np.asarray(predicted, bool)
    active = np.ones(n, bool) if active is None else np.asarray(active, bool)
    C1, C0, G1, G0, U1, U0 = _countable(Y, predicted, active)
    cov = (covered & active).astype(np.uint8)
    T1 = np.empty(K, np.int64)
    T0 = np.empty(K, np.int64)
    n_S = covered_counts(cov, C1, C0, T1, T0)
    bits = mask_bitset(cov, G1.shape[1])
    labels = np.empty(K, np.int64)
    values = np.empty(K, np.int64)
    value, size, pairs, evals = head_search(HEURISTIC_CODES[heuristic], float(beta) ** 2, bool(exhaustive), T1, T0,
                                            U1, U0, max(n_S, 1), G1, G0, bits, bits, 0, labels, values)
    return Head(labels[:size].copy(), values[:size].copy(), float(value), int(pairs), int(evals))


def _countable(Y, predicted, active):
    n, K = Y.shape
    free = (~predicted) & active[:, None]
    C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
    C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
    W = max(1, (n + 63) // 64)
    return (C1, C0, label_bitsets(C1, W), label_bitsets(C0, W), C1.sum(axis=0).astype(np.int64),
            C0.sum(axis=0).astype(np.int64))


class SeCoClassifier(RuleLearner):
    """Separate-and-conquer multi-label rules, a decision list (see the module doc).

    ``heuristic`` in :data:`HEURISTICS` (``beta`` for the F-measure); ``head_search`` 'pruned' or
    'exhaustive' (subset accuracy; at most 24 labels); ``max_rules`` counts rules including the
    default rule (1: the default rule alone); ``max_conditions`` None means no limit; ``min_coverage`` is the least number of
    training examples (still in the training set) a body must cover;
    ``label_coverage_threshold`` in (0, 1] and ``max_uncovered`` in [0, 1) as in the module doc.

    Defaults serve a new user: the F-measure with rules of at most 5 conditions (on emotions and
    yeast better test losses than mlrl-seco's defaults, ``python -m engine.bench.seco
    --reference-python PY``).  The paper's setting is ``heuristic='subset-accuracy',
    max_conditions=None``.
    """

    LEARNER_NAME = "seco"

    PARAMETERS = (
            Parameter("heuristic", "choice", FROM_INIT, "Heuristic", "rule quality on micro-averaged "
                      "confusion matrices (subset accuracy: example-based)", choices=HEURISTICS),
            Parameter("beta", "float", FROM_INIT, "F-measure β", "weight of recall in the F-measure", minimum=0.0,
                      low_open=True, applies=lambda p: p.get("heuristic") == "f-measure"),
            Parameter("head_search", "choice", FROM_INIT, "Head search", "pruned (anti-monotonicity) or exhaustive "
                      "over all label combinations", choices=HEAD_SEARCH),
            Parameter("max_rules", "int", FROM_INIT, "Rules", "rules including the default rule", minimum=1),
            Parameter("max_conditions", "int", FROM_INIT, "Max conditions", "empty = no limit", minimum=1, optional=True),
            Parameter("min_coverage", "int", FROM_INIT, "Min coverage", "training examples a rule must cover", minimum=1),
            Parameter("label_coverage_threshold", "float", FROM_INIT, "Label coverage", "fraction of an example's labels "
                      "that must be predicted before it leaves the training set", minimum=0.0, maximum=1.0,
                      low_open=True),
            Parameter("max_uncovered", "float", FROM_INIT, "Max uncovered", "stop when at most this fraction of the "
                      "training examples remains (below 1)", minimum=0.0, maximum=0.999),
    )

    def __init__(self, heuristic="f-measure", beta=1.0, head_search="pruned", max_rules=100,
                 max_conditions=5, min_coverage=1, label_coverage_threshold=1.0, max_uncovered=0.0):
        self.heuristic = heuristic
        self.beta = beta
        self.head_search = head_search
        self.max_rules = max_rules
        self.max_conditions = max_conditions
        self.min_coverage = min_coverage
        self.label_coverage_threshold = label_coverage_threshold
        self.max_uncovered = max_uncovered

    # -- model -----------------------------------------------------------------------------
    @staticmethod
    def default_rule(Y: np.ndarray, schema=None) -> Rule:
        """Empty body; per label +1 if the label is present in more than half of ``Y``, else -1."""
        Y = np.asarray(Y, dtype=np.float64)
        K = Y.shape[1]
        scores = np.where(Y.mean(axis=0) > 0.5, 1.0, -1.0)
        return Rule((), np.arange(K, dtype=np.int64), scores, schema)

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        rules = list(rules)
        default = self.default_rule(data.Y, data.schema)
        if not rules or rules[-1] != default:
            rules.append(default)
        return RuleModel(rules, data.X.shape[1], data.Y.shape[1], "decision-list", None, None, data.schema,
                         data.nominal)

    # -- covering loop ---------------------------------------------------------------------
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        X, Y = data.X, data.Y
        n, K = Y.shape
        if self.head_search == "exhaustive" and K > MAX_EXHAUSTIVE_LABELS:
            raise ValueError(f"head_search='exhaustive' evaluates 2^K heads; K={K} labels is too many "
                             f"(at most {MAX_EXHAUSTIVE_LABELS})")
        heuristic = HEURISTIC_CODES[self.heuristic]
        beta2 = float(self.beta) ** 2
        exhaustive = self.head_search == "exhaustive"
        index = build_feature_index(X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: rules can only have empty bodies",
                          RuntimeWarning, stacklevel=3)
        D = index.n_features
        W = max(1, (n + 63) // 64)
        max_conditions = self.max_conditions or _MAX_CONDITIONS_CAP
        min_coverage = int(self.min_coverage)
        self.n_head_evaluations_ = 0

        default = self.default_rule(Y, data.schema)
        default_values = (default.head_scores > 0).astype(np.uint8)
        train = _DecisionListTracker(Y, default_values)
        val = _DecisionListTracker(data.Y_test, default_values) if data.X_test is not None else None
        active = np.ones(n, dtype=bool)
        min_remaining = self.max_uncovered * n

        out_v = np.empty(D)
        out_p = np.empty(D, dtype=np.int64)
        out_op = np.empty(D, dtype=np.int64)
        out_thr = np.empty(D)
        out_evals = np.empty(D, dtype=np.int64)
        outputs = (out_v, out_p, out_op, out_thr, out_evals)
        T1 = np.empty(K, np.int64)
        T0 = np.empty(K, np.int64)
        labels = np.empty(K, np.int64)
        values = np.empty(K, np.int64)
        cond_args = (index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows)
        # the sweeps compact each attribute's covered entries as they pass (engine.core.sweep)
        cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
        seg = np.zeros((D, 3), dtype=np.int64)
        index_args = (index.ptr, index.rows, index.values, cache, seg, index.missing_ptr, index.missing_rows,
                      index.nominal)

        for t in range(self.max_rules - 1):  # the default rule is the last of max_rules
            n_active = int(active.sum())
            if n_active == 0 or n_active <= min_remaining:
                break
            C1, C0, G1, G0, U1, U0 = _countable(Y, train.decided.astype(bool), active)
            cov = active.astype(np.uint8)
            n_T = covered_counts(cov, C1, C0, T1, T0)
            bits = mask_bitset(cov, W)
            value, size, pairs, evals = head_search(heuristic, beta2, exhaustive, T1, T0, U1, U0, n_T, G1, G0,
                                                    bits, bits, 0, labels, values)
            rule_evals = int(evals)
            if size == 0:
                break
            conditions = []
            seg[:, 0] = 0  # a new rule: no compacted entries yet
            # every heuristic is at most 1: a rule that reaches 1 cannot be improved, its sweep is skipped
            while len(conditions) < max_conditions and n_T > min_coverage and value < 1.0 - TOL:
                if heuristic == H_SUBSET:
                    best_conditions(D, *index_args, cov, bits, C1, C0, T1, T0, n_T, U1, U0, G1, G0, heuristic,
                                    beta2, exhaustive, min_coverage, *outputs, data.cancel)
                else:  # the head depends on the counts alone: a sweep without bitsets
                    best_conditions_decomposable(D, *index_args, cov, C1, C0, T1, T0, n_T, U1, U0, heuristic, beta2,
                                                 min_coverage, *outputs, data.cancel)
                if data.cancelled:
                    return  # the unfinished rule is dropped
                rule_evals += int(out_evals.sum())
                best = -1
                for j in range(D):
                    if out_op[j] >= 0 and (best < 0 or out_v[j] > out_v[best] + TOL
                                           or (out_v[j] >= out_v[best] - TOL and out_p[j] > out_p[best])):
                        best = j
                if best < 0 or not out_v[best] > value + TOL:
                    break
                op, thr = int(out_op[best]), float(out_thr[best])
                conditions.append(Condition(best, OPERATORS[op], thr))
                apply_condition(best, op, thr, *cond_args, cov)
                n_T = covered_counts(cov, C1, C0, T1, T0)
                bits = mask_bitset(cov, W)
                value = out_v[best]
            # The chosen body's head (already evaluated during the sweep: not counted again).
            value, size, pairs, _ = head_search(heuristic, beta2, exhaustive, T1, T0, U1, U0, n_T, G1, G0, bits,
                                                bits, 0, labels, values)
            if size == 0:
                break
            self.n_head_evaluations_ += rule_evals
            head_labels = labels[:size].copy()
            head_values = values[:size].copy()
            rule = Rule(tuple(conditions), head_labels, np.where(head_values > 0, 1.0, -1.0), data.schema)

            covered_all = np.ones(n, dtype=np.uint8)
            for c in conditions:
                apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, *cond_args, covered_all)
            covered_rows = np.flatnonzero(covered_all)
            before = train.hamming
            new_pairs = train.apply(covered_rows, head_labels, head_values)
            if self.label_coverage_threshold >= 1.0:
                active &= ~train.decided.all(axis=1)
            else:
                active &= train.decided.mean(axis=1) < self.label_coverage_threshold - 1e-12
            record = dict(index=t, rule=rule, coverage=int(len(covered_rows)),
                          improvement=float(before - train.hamming), train_hamming=train.hamming,
                          train_subset=train.subset)
            if val is not None:
                val.apply(np.flatnonzero(rule_coverage(rule, data.X_test)), head_labels, head_values)
                record.update(test_hamming=val.hamming, test_subset=val.subset)
            record["extra"] = {"heuristic": float(value), "head_evaluations": float(rule_evals),
                               "head_size": float(size), "new_pairs": float(new_pairs),
                               "remaining": float(active.sum())}
            yield RuleRecord(**record)

        record = dict(index=len(self.records_), rule=default, coverage=n, improvement=0.0,
                      train_hamming=train.hamming, train_subset=train.subset,
                      extra={"heuristic": math.nan, "head_evaluations": 0.0, "head_size": float(K),
                             "new_pairs": float(int((train.decided == 0).sum())), "remaining": float(active.sum())})
        if val is not None:
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        yield RuleRecord(**record)


class _DecisionListTracker(ErrorTotals):
    """Predictions of a growing decision list that ends with a fixed default rule: only newly set
    (example, label) pairs change, so the losses are updated incrementally."""

    def __init__(self, Y, default_values):
        self.Y = np.ascontiguousarray(Y, dtype=np.uint8)
        n, K = self.Y.shape
        self.decided = np.zeros((n, K), dtype=np.uint8)
        self.pred = np.repeat(default_values[None, :], n, axis=0).astype(np.uint8)
        self.errors = (self.pred != self.Y).sum(axis=1).astype(np.int64)
        self.wrong_labels = int(self.errors.sum())
        self.wrong_examples = int((self.errors > 0).sum())

    def apply(self, rows, labels, values) -> int:
        """Set the still undecided ``labels`` of ``rows`` to ``values``; returns how many were set."""
        if len(rows) == 0:
            return 0
        sub = np.ix_(rows, labels)
        free = self.decided[sub] == 0
        new = np.where(free, values[None, :], self.pred[sub]).astype(np.uint8)
        self.pred[sub] = new
        self.decided[sub] = 1
        errors = (self.pred[rows] != self.Y[rows]).sum(axis=1)
        self.wrong_labels += int(errors.sum() - self.errors[rows].sum())
        self.wrong_examples += int((errors > 0).sum() - (self.errors[rows] > 0).sum())
        self.errors[rows] = errors
        return int(free.sum())
