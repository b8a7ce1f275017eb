"""AdaBoost.MH (Schapire & Singer 1999, "Improved boosting algorithms using confidence-rated
predictions", section 7) with decision stumps or rules as weak hypotheses.

The booster keeps a distribution ``D_t`` over (example, label) pairs, ``D_1(i, l) = 1 / (N K)``.
Round ``t`` trains a weak hypothesis ``h_t(x, l)`` in {-1, 0, +1} on ``D_t``; with

    W+ = sum of D_t(i, l) over pairs with y_il h_t(x_i, l) = +1   (right)
    W- = sum of D_t(i, l) over pairs with y_il h_t(x_i, l) = -1   (wrong)
    W0 = sum of D_t(i, l) over pairs with h_t(x_i, l) = 0         (abstained)
    r_t = W+ - W- = sum_il D_t(i, l) y_il h_t(x_i, l)

the confidence minimising the normaliser is ``alpha_t = 1/2 ln(W+ / W-)`` and the normaliser
(``Z_t = sum_il D_t(i, l) exp(-alpha_t y_il h_t(x_i, l))``) becomes

    Z_t = W0 + 2 sqrt(W+ W-).

Without abstentions (W0 = 0, W+ + W- = 1) this is ``alpha_t = 1/2 ln((1 + r_t) / (1 - r_t))`` and
``Z_t = sqrt(1 - r_t^2)``.  A stump abstains exactly on the examples whose value of its
attribute is missing; a rule abstains outside its body, so the general formula is used
throughout.  Then ``D_{t+1} = D_t exp(-alpha_t y h_t) / Z_t`` and the training Hamming loss of
``sign(sum_t alpha_t h_t)`` is at most ``prod_t Z_t`` (Schapire & Singer, Theorem 10).  Weak
hypotheses are chosen to minimise ``Z_t`` (for complete data and stumps: to maximise ``|r_t|``).

**Guard.**  When no pair is voted on wrongly (``W- = 0``, e.g. ``r_t = 1`` on separable data) the
optimal confidence is infinite; it is capped at :data:`ALPHA_MAX` =
``1/2 ln((1 + (1 - 1e-10)) / 1e-10)`` (about 11.86), the confidence of ``r = 1 - 1e-10``.  The
reported ``Z_t`` is always the exact normaliser ``W0 + W+ exp(-alpha) + W- exp(alpha)`` of the
confidence actually used, so ``prod Z_t`` stays a valid bound.  Training stops early when the
best weak hypothesis has no edge (``r_t <= 0``).

**Weak hypotheses** (``weak_learner``):

- ``'stump'``: one attribute split in two (``x <= t`` / ``x > t``; ``x == v`` / ``x != v`` for nominal
  attributes); on each side every label gets the vote ``sign(sum_i D(i, l) y_il)`` over the
  examples on that side (+1 on a tie), one confidence ``alpha_t`` for both sides.  A stump is
  stored as **two** :class:`~engine.rules.Rule` objects with head scores ``alpha_t * vote``: the
  round's :class:`~engine.learner.RuleRecord` carries the first side (``<=`` or ``==``) as ``rule``
  and the other in ``extra_rules`` (``coverage`` and ``extra_coverage`` count each side's training
  examples); the model holds both, in round order.
- ``'rule'``: a conjunction grown top-down, each step adding the condition that lowers ``Z`` the
  most while it does (at most ``max_conditions``), with per-label votes inside and abstention
  outside; one rule per round.  A round may return the empty body (votes on every example).

Prediction is ``sign(sum_t alpha_t h_t(x, l))`` per label: the rule model's ``'label-wise'``
strategy over the heads ``alpha_t * vote``; ``decision_function`` gives the sums (for ranking).
``RuleRecord.extra`` holds ``alpha``, ``r``, ``Z``, ``bound`` (``prod Z``), ``abstained`` (W0),
``wrong`` (W-) and, for the training Hamming loss next to the bound, the record's
``train_hamming``.  ``improvement`` is the decrease of the bound, ``bound_{t-1} (1 - Z_t)``.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .sampling import sampled_feature_count
from .core.boosting import add_head_scores
from .core.features import build_feature_index
from .core.refinement import apply_condition, sample_features
from .core.stumps import MODE_RULE, MODE_STUMP, best_splits, covered_totals, reweight, vote_statistics
from .incremental import IncrementalPrediction
from .learner import RuleLearner, RuleRecord, TrainingData
from .model import RuleModel, rule_coverage
from .rules import OPERATORS, Condition, Rule
from .tracking import LossTracker
from .parameters import FROM_INIT, Parameter

WEAK_LEARNERS = ("stump", "rule")
FEATURE_SAMPLING = ("none", "without-replacement")
ALPHA_MAX = 0.5 * math.log((2.0 - 1e-10) / 1e-10)
_MAX_CONDITIONS_CAP = 256
_COMPLEMENT = {"<=": ">", ">": "<=", "==": "!=", "!=": "=="}


class AdaBoostMHClassifier(IncrementalPrediction, RuleLearner):
    """AdaBoost.MH with decision stumps or greedy rules as weak hypotheses (see the module doc).

    ``max_rules`` is the number of boosting rounds (one record per round); ``max_conditions``
    limits the rule weak learner's bodies (None: no limit); ``feature_sampling`` draws
    ``floor(log2(D - 1) + 1)`` attributes per search step with ``random_state`` (default: all
    attributes, deterministic).
    """

    LEARNER_NAME = "adaboost-mh"

    PARAMETERS = (
            Parameter("weak_learner", "choice", FROM_INIT, "Weak learner", "decision stumps (both sides vote) or "
                      "greedy rules (abstain outside the body)", choices=WEAK_LEARNERS),
            Parameter("max_rules", "int", FROM_INIT, "Rounds", "boosting rounds (a stump adds two rules per round)",
                      minimum=1),
            Parameter("max_conditions", "int", FROM_INIT, "Max conditions", "rule weak learner; empty = no limit",
                      minimum=1, optional=True, applies=lambda p: p.get("weak_learner") == "rule"),
            Parameter("feature_sampling", "choice", FROM_INIT, "Feature sampling", "log2 attributes per search step",
                      choices=FEATURE_SAMPLING),
            Parameter("random_state", "seed", FROM_INIT, "Seed", "used by feature sampling", minimum=0, maximum=2**32 - 1,
                      applies=lambda p: p.get("feature_sampling") != "none"),
    )

    def __init__(self, max_rules=200, weak_learner="stump", max_conditions=None, feature_sampling="none",
                 random_state=1):
        self.max_rules = max_rules
        self.weak_learner = weak_learner
        self.max_conditions = max_conditions
        self.feature_sampling = feature_sampling
        self.random_state = random_state

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        return RuleModel(list(rules), data.X.shape[1], data.Y.shape[1], "label-wise", None, None, data.schema,
                         data.nominal)

    # -- boosting --------------------------------------------------------------------------
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        """Fig. 1's loop: per round, a weak hypothesis on D_t (Sect. 3 of Schapire & Singer), its
        α_t, D_{t+1} ∝ D_t exp(-α_t Y h_t), and the round's record."""
        state = _BoosterState.build(self, data)
        for t in range(self.max_rules):
            conditions = state.grow_conditions(data)
            if conditions is None:
                return  # cancelled: the unfinished rule is dropped
            if state.stump and not conditions:
                break  # no attribute splits the data
            step = state.weigh(state.hypothesis_parts(conditions))
            if not step.r > 0.0:
                break  # the best weak hypothesis has no edge: boosting cannot continue
            yield state.apply(t, step, data)


@dataclass
class _Step:
    """One round's weak hypothesis: per voting part (conditions, covered rows, votes) and its weights
    W0, W+, W- (Sect. 3.2), the edge r and the distribution's total W."""

    hyp: list
    w0: float
    w_plus: float
    w_minus: float
    W_all: float

    @property
    def r(self) -> float:
        return (self.w_plus - self.w_minus) / self.W_all


@dataclass
class _BoosterState:
    """What the rounds share: the feature index, D_t, the scores, the loss trackers and the scratch of
    the split search."""

    index: object
    Ysign: np.ndarray
    D: np.ndarray
    F: np.ndarray
    train: LossTracker
    val: LossTracker | None
    stump: bool
    max_conditions: int
    n_sample: int
    rng_state: np.ndarray
    scratch: dict
    bound: float = 1.0

    @classmethod
    def build(cls, est, data: TrainingData) -> "_BoosterState":
        n, K = data.Y.shape
        index = build_feature_index(data.X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: no weak hypothesis splits it",
                          RuntimeWarning, stacklevel=4)
        F = np.zeros((n, K))
        stump = est.weak_learner == "stump"
        n_features = index.n_features
        scratch = {"perm": np.arange(n_features, dtype=np.int64), "z": np.empty(n_features),
                   "op": np.empty(n_features, dtype=np.int64), "thr": np.empty(n_features), "S_T": np.empty(K),
                   "rows": np.empty(n, dtype=np.int64)}
        return cls(index, np.ascontiguousarray(np.where(data.Y > 0, np.int8(1), np.int8(-1))),
                   np.full((n, K), 1.0 / (n * K)), F, LossTracker(data.Y, "label-wise", F=F),
                   LossTracker(data.Y_test, "label-wise") if data.X_test is not None else None, stump,
                   1 if stump else (est.max_conditions or _MAX_CONDITIONS_CAP),
                   sampled_feature_count(n_features) if est.feature_sampling != "none" else n_features,
                   np.array([np.random.default_rng(est.random_state).integers(1, 2**63 - 1)], dtype=np.uint64),
                   scratch)

    def grow_conditions(self, data: TrainingData) -> list | None:
        """The weak hypothesis's conditions, added greedily while Z falls (one for a stump); None when
        cancelled."""
        index, sc = self.index, self.scratch
        A = self.D * self.Ysign
        d = self.D.sum(axis=1)
        W_all = float(d.sum())
        cov = np.ones(A.shape[0], dtype=np.uint8)
        W_T, n_T = covered_totals(cov, A, d, sc["S_T"])
        z_current = _z_of_set(sc["S_T"], W_T, W_all) if not self.stump else math.inf
        mode = MODE_STUMP if self.stump else MODE_RULE
        conditions = []
        while len(conditions) < self.max_conditions and n_T >= 2:
            if self.n_sample < index.n_features:
                sample_features(sc["perm"], self.n_sample, self.rng_state)
            best_splits(sc["perm"], self.n_sample, index.ptr, index.rows, index.values, index.missing_ptr,
                        index.missing_rows, index.nominal, cov, A, d, sc["S_T"], W_T, n_T, W_all, mode,
                        sc["z"], sc["op"], sc["thr"], data.cancel)
            if data.cancelled:
                return None
            best = -1
            for c in range(self.n_sample):
                if sc["op"][c] >= 0 and (best < 0 or sc["z"][c] < sc["z"][best]):
                    best = c
            if best < 0 or not sc["z"][best] < z_current - 1e-15:
                break
            z_current = sc["z"][best]
            j, op, thr = int(sc["perm"][best]), int(sc["op"][best]), float(sc["thr"][best])
            conditions.append(Condition(j, OPERATORS[op], thr))
            apply_condition(j, op, thr, index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows,
                            cov)
            W_T, n_T = covered_totals(cov, A, d, sc["S_T"])
        self.scratch["covered"] = cov
        return conditions

    def hypothesis_parts(self, conditions: list) -> list:
        """(conditions, coverage mask) per voting part: a stump votes on both sides of its condition, a
        rule on the examples it covers (and abstains elsewhere)."""
        if not self.stump:
            return [(tuple(conditions), self.scratch["covered"])]
        index, c = self.index, conditions[0]
        parts = []
        for cond in (c, Condition(c.attribute, _COMPLEMENT[c.operator], c.threshold)):
            mask = np.ones(self.D.shape[0], dtype=np.uint8)
            apply_condition(cond.attribute, OPERATORS.index(cond.operator), cond.threshold, index.ptr, index.rows,
                            index.values, index.missing_ptr, index.missing_rows, mask)
            parts.append(((cond,), mask))
        return parts

    def weigh(self, parts: list) -> _Step:
        """Each part's votes (the sign of its weighted label sums) and the weights W+, W-, W0."""
        A = self.D * self.Ysign
        W_all = float(self.D.sum(axis=1).sum())
        rows = self.scratch["rows"]
        w_plus = w_minus = 0.0
        hyp = []
        for conds, mask in parts:
            m = _rows_of(mask, rows)
            part_rows = rows[:m].copy()
            votes = np.where(A[part_rows].sum(axis=0) >= 0.0, 1, -1).astype(np.int8)
            wp, wm = vote_statistics(self.D, self.Ysign, part_rows, m, votes)
            w_plus += wp
            w_minus += wm
            hyp.append((conds, part_rows, votes))
        return _Step(hyp, max(W_all - w_plus - w_minus, 0.0), w_plus, w_minus, W_all)

    def apply(self, t: int, step: _Step, data: TrainingData) -> RuleRecord:
        """α_t (eq. 5 of Schapire & Singer with abstentions), D_{t+1}, the scores and the round's record."""
        alpha = ALPHA_MAX if step.w_minus <= 0.0 else min(0.5 * math.log(step.w_plus / step.w_minus), ALPHA_MAX)
        Z = (step.w0 + step.w_plus * math.exp(-alpha) + step.w_minus * math.exp(alpha)) / step.W_all
        for conds, part_rows, votes in step.hyp:
            reweight(self.D, self.Ysign, part_rows, len(part_rows), votes, alpha)
        self.D /= self.D.sum()
        previous = self.bound
        self.bound *= Z
        labels = np.arange(self.D.shape[1], dtype=np.int64)
        rules = [Rule(conds, labels, alpha * v.astype(np.float64), data.schema) for conds, _, v in step.hyp]
        changed = np.zeros(self.D.shape[0], dtype=bool)
        for rule, (_, part_rows, _) in zip(rules, step.hyp):
            add_head_scores(self.F, part_rows, len(part_rows), labels, rule.head_scores, 1.0)
            changed[part_rows] = True
        self.train.refresh(np.flatnonzero(changed).astype(np.int64))
        record = dict(index=t, rule=rules[0], extra_rules=tuple(rules[1:]), coverage=int(len(step.hyp[0][1])),
                      extra_coverage=tuple(int(len(h[1])) for h in step.hyp[1:]),
                      improvement=float(previous - self.bound), train_hamming=self.train.hamming,
                      train_subset=self.train.subset)
        if self.val is not None:
            record.update(self._test_losses(rules, labels, data.X_test))
        record["extra"] = {"alpha": float(alpha), "r": float(step.r), "Z": float(Z), "bound": float(self.bound),
                           "abstained": float(step.w0 / step.W_all), "wrong": float(step.w_minus / step.W_all)}
        return RuleRecord(**record)

    def _test_losses(self, rules: list, labels: np.ndarray, X_test) -> dict:
        vchanged = np.zeros(X_test.shape[0], dtype=bool)
        for rule in rules:
            vrows = np.flatnonzero(rule_coverage(rule, X_test)).astype(np.int64)
            add_head_scores(self.val.F, vrows, len(vrows), labels, rule.head_scores, 1.0)
            vchanged[vrows] = True
        self.val.refresh(np.flatnonzero(vchanged).astype(np.int64))
        return {"test_hamming": self.val.hamming, "test_subset": self.val.subset}


def _z_of_set(S, W, W_all) -> float:
    r = float(np.abs(S).sum())
    return (W_all - W) + math.sqrt(max(W * W - r * r, 0.0))


def _rows_of(mask: np.ndarray, out: np.ndarray) -> int:
    idx = np.flatnonzero(mask)
    out[:len(idx)] = idx
    return len(idx)
