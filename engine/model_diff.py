"""Two rule models compared rule by rule and on a data set (``python -m engine diff``).

Rules are matched by their bodies: the same attributes and operators, nominal values equal and
numeric thresholds paired (in sorted order per attribute and operator) within a tolerance, a
fraction of the attribute's range on the data.  Each rule of the first model, in order, takes the
unmatched rule of the second with such a body and the smallest total threshold gap (the first such on
ties); the rest are rules only in one model.  Matched rules whose heads differ (a label in one head
only, or scores further apart than ``head_tolerance``) are listed with the differences.  On the
data: per-label Hamming losses of both models and the examples they predict differently."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .fileio import atomic_write_text
from .model import RuleModel
from .rules import Rule, Schema


@dataclass(frozen=True)
class RuleMatch:
    index_a: int
    index_b: int
    threshold_gap: float  # the largest |threshold_a - threshold_b| of the paired numeric conditions
    head_differences: tuple[tuple[int, float, float], ...]  # (label, score in a, score in b); nan: not in the head


@dataclass(frozen=True)
class ModelDiff:
    n_rules_a: int
    n_rules_b: int
    matches: tuple[RuleMatch, ...]
    only_a: tuple[int, ...]
    only_b: tuple[int, ...]
    label_names: tuple[str, ...]
    hamming_a: np.ndarray  # per label, on the data
    hamming_b: np.ndarray
    differing_examples: np.ndarray  # indices of the examples predicted differently
    differing_labels: tuple[tuple[int, ...], ...]  # per differing example, the labels predicted differently
    n_examples: int
    rules_a: tuple[Rule, ...] = ()
    rules_b: tuple[Rule, ...] = ()
    schema: Schema | None = None

    @property
    def changed_heads(self) -> tuple[RuleMatch, ...]:
        return tuple(m for m in self.matches if m.head_differences)


def _ranges(X, n_features: int) -> np.ndarray:
    """Per attribute max - min on the data (NaN ignored; 0 for a constant or all-missing one)."""
    if sp.issparse(X):
        Xc = sp.csc_matrix(X)
        lo = np.minimum(np.asarray(Xc.min(axis=0).todense()).ravel(), 0.0)
        hi = np.maximum(np.asarray(Xc.max(axis=0).todense()).ravel(), 0.0)
        return np.nan_to_num(hi - lo)
    Xd = np.asarray(X, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(Xd, axis=0) - np.nanmin(Xd, axis=0) if len(Xd) else np.zeros(n_features)
    return np.nan_to_num(spread)


def body_gap(a: Rule, b: Rule, tolerances: np.ndarray) -> float | None:
    """The largest threshold gap of two bodies that match (see the module docstring), else None."""
    if len(a.conditions) != len(b.conditions):
        return None
    groups: dict[tuple, list[list[float]]] = {}
    for side, rule in enumerate((a, b)):
        for c in rule.conditions:
            groups.setdefault((c.attribute, c.operator), [[], []])[side].append(c.threshold)
    gap = 0.0
    for (attribute, operator), (ta, tb) in groups.items():
        if len(ta) != len(tb):
            return None
        for x, y in zip(sorted(ta), sorted(tb)):
            d = abs(x - y)
            if operator in ("==", "!=") and d != 0.0:
                return None
            if d > tolerances[attribute]:
                return None
            gap = max(gap, d)
    return gap


def head_differences(a: Rule, b: Rule, tolerance: float) -> tuple[tuple[int, float, float], ...]:
    sa = dict(zip(a.head_labels.tolist(), a.head_scores.tolist()))
    sb = dict(zip(b.head_labels.tolist(), b.head_scores.tolist()))
    out = []
    for k in sorted(set(sa) | set(sb)):
        x, y = sa.get(k, float("nan")), sb.get(k, float("nan"))
        if k not in sa or k not in sb or abs(x - y) > tolerance:
            out.append((k, x, y))
    return tuple(out)


def match_rules(rules_a, rules_b, tolerances: np.ndarray, head_tolerance: float = 1e-9):
    """(matches, only in a, only in b): greedy in the first model's order (module docstring)."""
    by_signature: dict[tuple, list[int]] = {}
    for j, rule in enumerate(rules_b):
        by_signature.setdefault(_signature(rule), []).append(j)
    taken = np.zeros(len(rules_b), dtype=bool)
    matches, only_a = [], []
    for i, rule in enumerate(rules_a):
        best, best_gap, best_total = -1, 0.0, np.inf
        for j in by_signature.get(_signature(rule), ()):
            if taken[j]:
                continue
            gap = body_gap(rule, rules_b[j], tolerances)
            if gap is None:
                continue
            total = sum(abs(x - y) for x, y in _paired(rule, rules_b[j]))
            if total < best_total:
                best, best_gap, best_total = j, gap, total
        if best < 0:
            only_a.append(i)
            continue
        taken[best] = True
        matches.append(RuleMatch(i, best, best_gap, head_differences(rule, rules_b[best], head_tolerance)))
    return tuple(matches), tuple(only_a), tuple(int(j) for j in np.flatnonzero(~taken))


def _signature(rule: Rule) -> tuple:
    return tuple(sorted((c.attribute, c.operator) for c in rule.conditions))


def _paired(a: Rule, b: Rule):
    key = lambda c: (c.attribute, c.operator, c.threshold)  # noqa: E731
    return [(x.threshold, y.threshold) for x, y in zip(sorted(a.conditions, key=key), sorted(b.conditions, key=key))]


def diff_models(model_a: RuleModel, model_b: RuleModel, X, Y, tolerance: float = 0.01,
                head_tolerance: float = 1e-9) -> ModelDiff:
    """Compare two rule models on the data ``X``, ``Y`` (the same attributes and labels for both).

    ``tolerance``: threshold gaps allowed, as a fraction of each attribute's range on ``X``."""
    for name, m in (("first", model_a), ("second", model_b)):
        if not isinstance(m, RuleModel):
            raise ValueError(f"the {name} model is not a rule model")
    if (model_a.n_features, model_a.n_labels) != (model_b.n_features, model_b.n_labels):
        raise ValueError(f"the models differ in shape: {model_a.n_features} attributes and {model_a.n_labels} labels "
                         f"against {model_b.n_features} and {model_b.n_labels}; a diff needs the same data")
    if X.shape[1] != model_a.n_features or Y.shape[1] != model_a.n_labels:
        raise ValueError(f"the data has {X.shape[1]} attributes and {Y.shape[1]} labels; the models "
                         f"{model_a.n_features} and {model_a.n_labels}")
    if not 0.0 <= tolerance < 1.0:
        raise ValueError(f"tolerance {tolerance} is outside [0, 1)")
    tolerances = _ranges(X, model_a.n_features) * tolerance
    matches, only_a, only_b = match_rules(model_a.rules, model_b.rules, tolerances, head_tolerance)
    Y = np.asarray(Y.todense() if sp.issparse(Y) else Y, dtype=np.uint8)
    Pa, Pb = model_a.predict(X), model_b.predict(X)
    differ = Pa != Pb
    rows = np.flatnonzero(differ.any(axis=1))
    schema = model_a.schema or model_b.schema or Schema()
    return ModelDiff(len(model_a.rules), len(model_b.rules), matches, only_a, only_b,
                     tuple(schema.label(k) for k in range(model_a.n_labels)),
                     (Pa != Y).mean(axis=0), (Pb != Y).mean(axis=0), rows,
                     tuple(tuple(int(k) for k in np.flatnonzero(differ[i])) for i in rows), len(Y),
                     tuple(model_a.rules), tuple(model_b.rules), schema)


# -- reports -------------------------------------------------------------------------------------
def _rule_text(rules, i: int, schema: Schema) -> str:
    return rules[i].to_text(schema).replace("|", "\\|") if rules else f"rule {i}"


def _head_text(d: tuple[tuple[int, float, float], ...], schema: Schema) -> str:
    def score(x):
        return "—" if x != x else f"{x:+.4g}"
    return "; ".join(f"{schema.label(k)}: {score(a)} → {score(b)}" for k, a, b in d)


def markdown_report(diff: ModelDiff, name_a: str = "A", name_b: str = "B", max_examples: int = 50) -> str:
    """The diff as Markdown: summary, changed heads, rules only in one model, losses per label, examples."""
    schema = diff.schema or Schema()
    ha, hb = float(diff.hamming_a.mean()), float(diff.hamming_b.mean())
    lines = [f"# Model diff: {name_a} against {name_b}", "",
             f"- rules: {diff.n_rules_a} in {name_a}, {diff.n_rules_b} in {name_b}; {len(diff.matches)} matched by "
             f"their bodies, {len(diff.changed_heads)} of them with different heads",
             f"- only in {name_a}: {len(diff.only_a)} rules; only in {name_b}: {len(diff.only_b)} rules",
             f"- Hamming loss on the data ({diff.n_examples} examples): {ha:.4f} ({name_a}), {hb:.4f} ({name_b}), "
             f"difference {hb - ha:+.4f}",
             f"- examples predicted differently: {len(diff.differing_examples)}", ""]
    lines += ["## Matched rules with different heads", "", f"| {name_a} | {name_b} | threshold gap | head |",
              "|---:|---:|---:|---|"]
    lines += [f"| {m.index_a} | {m.index_b} | {m.threshold_gap:.4g} | {_head_text(m.head_differences, schema)} |"
              for m in diff.changed_heads]
    for title, indices, rules in ((f"Rules only in {name_a}", diff.only_a, diff.rules_a),
                                  (f"Rules only in {name_b}", diff.only_b, diff.rules_b)):
        lines += ["", f"## {title}", "", "| rule | text |", "|---:|---|"]
        lines += [f"| {i} | {_rule_text(rules, i, schema)} |" for i in indices]
    lines += ["", "## Hamming loss per label", "", f"| label | {name_a} | {name_b} | difference |",
              "|---|---:|---:|---:|"]
    lines += [f"| {label} | {a:.4f} | {b:.4f} | {b - a:+.4f} |"
              for label, a, b in zip(diff.label_names, diff.hamming_a, diff.hamming_b)]
    lines += ["", "## Examples predicted differently", "", "| example | labels |", "|---:|---|"]
    lines += [f"| {i} | {', '.join(diff.label_names[k] for k in ks)} |"
              for i, ks in list(zip(diff.differing_examples.tolist(), diff.differing_labels))[:max_examples]]
    if len(diff.differing_examples) > max_examples:
        lines.append(f"\n… and {len(diff.differing_examples) - max_examples} more (the CSV report lists all)")
    return "\n".join(lines) + "\n"


def csv_report(diff: ModelDiff) -> str:
    """The diff as one CSV table: a row per matched rule, rule only in one model, label and example."""
    schema = diff.schema or Schema()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["section", "a", "b", "value_a", "value_b", "detail"])
    for m in diff.matches:
        w.writerow(["matched", m.index_a, m.index_b, "", "", f"gap {m.threshold_gap:.6g}"
                    + (f"; head {_head_text(m.head_differences, schema)}" if m.head_differences else "")])
    for i in diff.only_a:
        w.writerow(["only_a", i, "", "", "", diff.rules_a[i].to_text(schema) if diff.rules_a else ""])
    for j in diff.only_b:
        w.writerow(["only_b", "", j, "", "", diff.rules_b[j].to_text(schema) if diff.rules_b else ""])
    for label, a, b in zip(diff.label_names, diff.hamming_a, diff.hamming_b):
        w.writerow(["hamming", "", "", f"{a:.6f}", f"{b:.6f}", label])
    for i, ks in zip(diff.differing_examples.tolist(), diff.differing_labels):
        w.writerow(["example", i, i, "", "", " ".join(diff.label_names[k] for k in ks)])
    return out.getvalue()


def write_report(diff: ModelDiff, path, name_a: str = "A", name_b: str = "B") -> None:
    """Markdown, or CSV for a ``.csv`` path."""
    text = csv_report(diff) if str(path).lower().endswith(".csv") else markdown_report(diff, name_a, name_b)
    atomic_write_text(path, text)
