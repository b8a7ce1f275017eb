"""A smaller rule model whose loss stays within ε of the full model's (``python -m engine simplify``).

Greedy backward elimination on a data set (the holdout or the test set): first of whole rules, then
of single conditions.  Each step takes, among all candidate removals, the one of the smallest
resulting loss, as long as that loss is at most the full model's plus ``epsilon``; it stops when
no candidate keeps within the bound.  A candidate is evaluated incrementally: removing a rule
subtracts its head from the scores of the examples it covers, dropping a condition adds the head to
the examples the shorter body covers in addition; only those examples are predicted again (O(their
number) per candidate, not a full prediction), and a candidate's value is kept until a committed
step changes the scores of an example it touches.  A committed step recomputes the scores of the
examples it changed exactly (the sum of the remaining heads, in rule order), so the scores always
equal a full prediction of the simplified model.

The measure is any label-set or ranking measure of the experimenter (:mod:`engine.simplify_measures`),
bounded as a loss (1 - value where higher is better).
Decision lists are not supported (removing a rule there changes which rule comes first)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .model import RuleModel, rule_coverage
from .rules import Condition, Rule
from .simplify_measures import NAMES, AdditiveMeasure, additive_measure
from .validation import check_features

MEASURES = NAMES  # every label-set and ranking measure of the experimenter (engine.simplify_measures)
_BATCH_ENTRIES = 1 << 22  # scores predicted together when candidates are evaluated


@dataclass(frozen=True)
class Simplification:
    model: RuleModel  # the simplified model
    measure: str
    epsilon: float
    full_loss: float
    loss: float  # of the simplified model on the data
    removed_rules: tuple[int, ...]  # indices in the original model, in the order removed
    removed_conditions: tuple[tuple[int, Condition], ...]  # (original rule index, condition), in order
    curve: tuple[tuple[int, int, float], ...] = field(default=())  # (rules kept, conditions kept, loss) per step
    kept_rules: tuple[int, ...] = ()  # original indices of the simplified model's rules


class _State:
    """Scores, per-example statistics and the current rules during the search."""

    def __init__(self, model: RuleModel, X, Y: np.ndarray, measure: AdditiveMeasure):
        self.model, self.X, self.Y, self.measure = model, X, Y, measure
        self.N, self.K = Y.shape
        self.rules = list(model.rules)
        self.active = np.ones(len(self.rules), dtype=bool)
        self.F = model.scores(X)
        self.stats = measure.stats(Y, model.predict_from_scores(self.F, self.N), self.F)
        self.totals = self.stats.sum(axis=0)
        self.coverage = [np.flatnonzero(rule_coverage(r, X)) for r in self.rules]
        self.heads = [r.dense_head(self.K) for r in self.rules]
        self.X_rows = sp.csr_matrix(X) if sp.issparse(X) else X  # rows are taken from it

    def loss(self, totals=None) -> float:
        return self.measure.loss(self.totals if totals is None else totals, self.N, self.K)

    def try_change(self, rows: np.ndarray, delta: np.ndarray) -> float:
        """The loss after adding ``delta`` (K) to the scores of ``rows`` (nothing is changed)."""
        return float(self.try_changes([(rows, delta)])[0])

    def try_changes(self, changes: list) -> np.ndarray:
        """:meth:`try_change` of each (rows, delta), all predicted together (in blocks of at most
        :data:`_BATCH_ENTRIES` scores)."""
        out = np.empty(len(changes))
        start = 0
        while start < len(changes):
            end, entries = start + 1, len(changes[start][0]) * self.K
            while end < len(changes) and entries + len(changes[end][0]) * self.K <= _BATCH_ENTRIES:
                entries += len(changes[end][0]) * self.K
                end += 1
            out[start:end] = self._block(changes[start:end])
            start = end
        return out

    def _block(self, changes: list) -> np.ndarray:
        lens = np.array([len(rows) for rows, _ in changes], dtype=np.int64)
        sums = np.zeros((len(changes), self.stats.shape[1]))
        if lens.sum():
            rows = np.concatenate([rows for rows, _ in changes]).astype(np.int64)
            deltas = np.repeat(np.array([delta for _, delta in changes]), lens, axis=0)
            F = self.F[rows] + deltas
            change = self.measure.stats(self.Y[rows], self.model.predict_from_scores(F, self.N), F) - self.stats[rows]
            offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
            nonempty = lens > 0
            sums[nonempty] = np.add.reduceat(change, offsets[nonempty], axis=0)
        return np.array([self.loss(self.totals + d) for d in sums])

    def current_model(self) -> RuleModel:
        m = self.model
        kept = [r for r, a in zip(self.rules, self.active) if a]
        return RuleModel(kept, m.n_features, m.n_labels, m.prediction, m.loss, m.label_vectors, m.schema, m.nominal,
                         m.predictors)

    def commit(self, rows: np.ndarray) -> None:
        """Recompute the scores and statistics of ``rows`` exactly with the current rules."""
        if len(rows) == 0:
            return
        self.F[rows] = self.current_model().scores(self.X_rows[rows])
        new = self.measure.stats(self.Y[rows], self.model.predict_from_scores(self.F[rows], self.N), self.F[rows])
        self.totals = self.totals + new.sum(axis=0) - self.stats[rows].sum(axis=0)
        self.stats[rows] = new


def _greedy(state: _State, candidates, bound: float, on_commit, record) -> None:
    """Take the best candidate while its loss is within ``bound``; ``candidates()`` lists the current
    (key, rows, delta) triples; values are cached per key until an example they touch changes."""
    cache: dict = {}
    while True:
        best = None
        current = candidates()
        new = [(key, rows, delta) for key, rows, delta in current if key not in cache]
        for (key, rows, _), value in zip(new, state.try_changes([(rows, delta) for _, rows, delta in new])):
            cache[key] = (value, rows)
        for key, rows, _ in current:
            value = cache[key][0]
            if value <= bound and (best is None or value < best[0]):
                best = (value, key, rows)
        if best is None:
            return
        _, key, rows = best
        undo = on_commit(key)
        state.commit(rows)
        if state.loss() > bound:  # float rounding made the estimate optimistic: undo and reject
            undo()
            state.commit(rows)
            cache[key] = (np.inf, rows)
            continue
        record()
        changed = np.zeros(state.N, dtype=bool)
        changed[rows] = True
        for k in [k for k, (value, r) in cache.items() if value != np.inf and changed[r].any()]:
            del cache[k]  # rejected candidates stay rejected


class _Search:
    """The two phases of the elimination on a :class:`_State`."""

    def __init__(self, state: _State, bound: float):
        self.state, self.bound = state, bound
        self.version = [0] * len(state.rules)
        self.removed_rules: list[int] = []
        self.removed_conditions: list[tuple[int, Condition]] = []
        self.curve = [self.point()]
        self._shorter: dict = {}

    def point(self) -> tuple[int, int, float]:
        s = self.state
        kept = [r for r, a in zip(s.rules, s.active) if a]
        return len(kept), sum(len(r.conditions) for r in kept), s.loss()

    def rule_candidates(self):
        s = self.state
        return [(("rule", r, self.version[r]), s.coverage[r], -s.heads[r]) for r in np.flatnonzero(s.active)]

    def remove_rule(self, key):
        r = key[1]
        self.state.active[r] = False
        self.removed_rules.append(r)

        def undo():
            self.state.active[r] = True
            self.removed_rules.pop()
        return undo

    def _shorter_coverage(self, r: int, c: int) -> np.ndarray:
        key = (r, self.version[r], c)
        if key not in self._shorter:
            rule = self.state.rules[r]
            body = rule.conditions[:c] + rule.conditions[c + 1:]
            self._shorter[key] = np.flatnonzero(rule_coverage(Rule(body, rule.head_labels, rule.head_scores),
                                                              self.state.X))
        return self._shorter[key]

    def condition_candidates(self):
        s = self.state
        out = []
        for r in np.flatnonzero(s.active):
            for c in range(len(s.rules[r].conditions)):
                rows = np.setdiff1d(self._shorter_coverage(r, c), s.coverage[r], assume_unique=True)
                out.append((("condition", r, self.version[r], c), rows, s.heads[r]))
        return out

    def remove_condition(self, key):
        _, r, version, c = key
        s = self.state
        old_rule, old_coverage = s.rules[r], s.coverage[r]
        new_coverage = self._shorter_coverage(r, c)
        body = old_rule.conditions[:c] + old_rule.conditions[c + 1:]
        s.rules[r] = Rule(body, old_rule.head_labels, old_rule.head_scores, old_rule.schema)
        s.coverage[r] = new_coverage
        self.version[r] += 1
        self.removed_conditions.append((r, old_rule.conditions[c]))

        def undo():
            s.rules[r], s.coverage[r] = old_rule, old_coverage
            self.version[r] += 1
            self.removed_conditions.pop()
        return undo

    def record(self) -> None:
        self.curve.append(self.point())


def simplify(model: RuleModel, X, Y, measure: str = "hamming", epsilon: float = 0.005,
             conditions: bool = True) -> Simplification:
    """Greedy backward elimination of rules, then (``conditions``) of conditions, keeping the
    ``measure``'s loss on ``X``, ``Y`` within ``epsilon`` of the full model's (module docstring)."""
    additive = additive_measure(measure)  # ValueError naming the known measures
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a number >= 0, got {epsilon}")
    if not isinstance(model, RuleModel):
        raise ValueError("only rule models can be simplified")
    if model.prediction == "decision-list":
        raise ValueError("decision lists cannot be simplified by removing rules (the first covering rule decides)")
    X = check_features(X)
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    if X.shape[1] != model.n_features or Y.ndim != 2 or Y.shape != (X.shape[0], model.n_labels):
        raise ValueError(f"the data has {X.shape[1]} attributes and {Y.shape[-1]} labels for {X.shape[0]} "
                         f"examples; the model {model.n_features} and {model.n_labels}")
    state = _State(model, X, Y.astype(np.uint8), additive)
    full = state.loss()
    search = _Search(state, full + epsilon)
    _greedy(state, search.rule_candidates, search.bound, search.remove_rule, search.record)
    if conditions:
        _greedy(state, search.condition_candidates, search.bound, search.remove_condition, search.record)
    kept = tuple(int(r) for r in np.flatnonzero(state.active))
    return Simplification(state.current_model(), measure, float(epsilon), full, state.loss(),
                          tuple(int(r) for r in search.removed_rules),
                          tuple((int(r), c) for r, c in search.removed_conditions), tuple(search.curve), kept)


def curve_csv(result: Simplification) -> str:
    """The curve as CSV: step, what was removed, rules and conditions kept, loss."""
    lines = ["step,removed,rules_kept,conditions_kept,loss"]
    removed = ["-"] + [f"rule {r}" for r in result.removed_rules] + \
        [f"condition of rule {r}: {c.to_text(result.model.schema)}".replace(",", ";")
         for r, c in result.removed_conditions]
    for i, ((rules, conditions, loss), what) in enumerate(zip(result.curve, removed)):
        lines.append(f"{i},{what},{rules},{conditions},{loss:.6f}")
    return "\n".join(lines) + "\n"
