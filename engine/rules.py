"""Rule representation shared by every learner of the engine.

A rule is a conjunction of conditions on attributes (its *body*) and a vector of
scores for a subset of labels (its *head*), as in eq. (1) of Rapp et al. (2020).
An empty body covers every example (the default rule).  Heads hold real-valued
scores for boosting learners and +1/-1 votes (presence/absence) for decision lists.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

OPERATORS = ("<=", ">", "==", "!=")
OP_CODES = {op: code for code, op in enumerate(OPERATORS)}


@dataclass(frozen=True)
class Schema:
    """Names of attributes, their nominal values, and labels; used only for display."""

    feature_names: tuple[str, ...] = ()
    label_names: tuple[str, ...] = ()
    nominal_values: Mapping[int, Sequence[str]] = field(default_factory=dict)

    def feature(self, j: int) -> str:
        return self.feature_names[j] if j < len(self.feature_names) else f"f{j}"

    def label(self, k: int) -> str:
        return self.label_names[k] if k < len(self.label_names) else f"y{k}"

    def value(self, j: int, code: float) -> str:
        values = self.nominal_values.get(j)
        if values is not None and 0 <= int(code) < len(values):
            return str(values[int(code)])
        return _format_number(code)


def _format_number(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True)
class Condition:
    """``x[attribute] <operator> threshold``; for nominal attributes the threshold is the value code."""

    attribute: int
    operator: str
    threshold: float

    def __post_init__(self):
        if self.operator not in OP_CODES:
            raise ValueError(f"unknown condition operator {self.operator!r}; expected one of {OPERATORS}")

    def covers(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the values satisfying the condition (missing values, NaN, never do)."""
        with np.errstate(invalid="ignore"):
            if self.operator == "<=":
                return values <= self.threshold
            if self.operator == ">":
                return values > self.threshold
            if self.operator == "==":
                return values == self.threshold
            return (values != self.threshold) & ~np.isnan(values)

    def to_text(self, schema: Schema | None = None) -> str:
        schema = schema or Schema()
        name = schema.feature(self.attribute)
        if self.operator in ("==", "!="):
            value = schema.value(self.attribute, self.threshold)
        else:
            value = _format_number(self.threshold)
        return f"{name} {self.operator} {value}"


def _merged_conditions(conditions, schema: Schema) -> list[str]:
    """Equivalent, shorter text of a conjunction: per attribute the tightest bounds and value sets."""
    groups: dict[int, dict] = {}
    for c in conditions:
        g = groups.setdefault(c.attribute, {"lo": None, "hi": None, "eq": [], "neq": []})
        if c.operator == ">":
            g["lo"] = c.threshold if g["lo"] is None else max(g["lo"], c.threshold)
        elif c.operator == "<=":
            g["hi"] = c.threshold if g["hi"] is None else min(g["hi"], c.threshold)
        elif c.operator == "==":
            if c.threshold not in g["eq"]:
                g["eq"].append(c.threshold)
        elif c.threshold not in g["neq"]:
            g["neq"].append(c.threshold)
    parts = []
    for j, g in groups.items():
        name = schema.feature(j)
        values = [schema.value(j, v) for v in g["eq"]]
        if len(values) == 1:
            parts.append(f"{name} == {values[0]}")
        elif values:  # contradictory equalities: show them as they are
            parts.extend(f"{name} == {v}" for v in values)
        others = [schema.value(j, v) for v in g["neq"] if v not in g["eq"]]
        if len(g["eq"]) == 0 and len(others) == 1:
            parts.append(f"{name} != {others[0]}")
        elif len(g["eq"]) == 0 and others:
            parts.append(f"{name} ∉ {{{', '.join(others)}}}")
        lo, hi = g["lo"], g["hi"]
        if lo is not None and hi is not None:
            parts.append(f"{_format_number(lo)} < {name} <= {_format_number(hi)}")
        elif lo is not None:
            parts.append(f"{name} > {_format_number(lo)}")
        elif hi is not None:
            parts.append(f"{name} <= {_format_number(hi)}")
    return parts


@dataclass(frozen=True, eq=False)
class Rule:
    """A conjunctive body and a head of (label index, score) pairs."""

    conditions: tuple[Condition, ...]
    head_labels: np.ndarray  # int, sorted ascending
    head_scores: np.ndarray  # float64, same length as head_labels
    schema: Schema | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        labels = np.ascontiguousarray(self.head_labels, dtype=np.int64)
        scores = np.ascontiguousarray(self.head_scores, dtype=np.float64)
        if labels.shape != scores.shape or labels.ndim != 1:
            raise ValueError("a rule's head needs one score per head label")
        object.__setattr__(self, "head_labels", labels)
        object.__setattr__(self, "head_scores", scores)
        object.__setattr__(self, "conditions", tuple(self.conditions))

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Rule)
            and self.conditions == other.conditions
            and np.array_equal(self.head_labels, other.head_labels)
            and np.array_equal(self.head_scores, other.head_scores)
        )

    __hash__ = None

    @property
    def is_default(self) -> bool:
        return not self.conditions

    def covers(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of dense ``X`` covered by the body."""
        mask = np.ones(X.shape[0], dtype=bool)
        for c in self.conditions:
            mask &= c.covers(np.asarray(X[:, c.attribute], dtype=np.float64))
        return mask

    def dense_head(self, n_labels: int) -> np.ndarray:
        """Head as a length-``n_labels`` vector with zeros for labels outside the head."""
        out = np.zeros(n_labels)
        out[self.head_labels] = self.head_scores
        return out

    def with_schema(self, schema: Schema | None) -> "Rule":
        return Rule(self.conditions, self.head_labels, self.head_scores, schema)

    def body_text(self, schema: Schema | None = None, merged: bool = True) -> str:
        """The body as text.  ``merged``: one interval per numeric attribute (``-0.83 < x1 <= -0.71``
        for ``x1 <= 0.36, x1 <= -0.71, x1 > -0.83``) and one set per nominal attribute, in the order
        of each attribute's first condition; otherwise every condition as learned."""
        schema = schema or self.schema
        if not merged:
            return "{" + ", ".join(c.to_text(schema) for c in self.conditions) + "}"
        return "{" + ", ".join(_merged_conditions(self.conditions, schema or Schema())) + "}"

    def head_text(self, schema: Schema | None = None, max_labels: int | None = None) -> str:
        schema = schema or self.schema or Schema()
        order = range(len(self.head_labels))
        if max_labels is not None and len(self.head_labels) > max_labels:
            order = np.argsort(-np.abs(self.head_scores), kind="stable")[:max_labels]
            order = sorted(order)
        parts = [f"{schema.label(int(self.head_labels[i]))}: {self.head_scores[i]:+.2f}" for i in order]
        more = len(self.head_labels) - len(parts)
        if more > 0:
            parts.append(f"… {more} more")
        return "(" + ", ".join(parts) + ")"

    def to_text(self, schema: Schema | None = None) -> str:
        """E.g. ``{f3 <= 0.42, mood == calm} -> (happy: +0.83, sad: -0.21)``."""
        return f"{self.body_text(schema)} -> {self.head_text(schema)}"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Rule({self.to_text()})"

    def to_dict(self) -> dict:
        """A plain, JSON-serialisable dict; names are included for readers, indices are authoritative."""
        schema = self.schema or Schema()
        conditions = []
        for c in self.conditions:
            d = {"attribute": c.attribute, "operator": c.operator, "threshold": float(c.threshold),
                 "attribute_name": schema.feature(c.attribute)}
            if c.operator in ("==", "!="):
                d["value"] = schema.value(c.attribute, c.threshold)
            conditions.append(d)
        return {
            "conditions": conditions,
            "head": {
                "labels": [int(k) for k in self.head_labels],
                "scores": [float(s) for s in self.head_scores],
                "label_names": [schema.label(int(k)) for k in self.head_labels],
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping, schema: Schema | None = None, n_features: int | None = None,
                  n_labels: int | None = None, where: str = "rule") -> "Rule":
        """Read a rule written by :meth:`to_dict`, checking every field (it may come from a file).

        With ``n_features``/``n_labels`` the attribute and label indices must lie in range; head
        labels must be distinct and scores finite.  Raises ValueError naming ``where`` and the field."""
        from . import model_document as doc

        big = np.iinfo(np.int64).max
        d = doc.mapping(d, where)
        if "conditions" not in d or "head" not in d:
            raise ValueError(f"{where}: missing field {'conditions' if 'conditions' not in d else 'head'!r}")
        conditions = []
        for i, c in enumerate(doc.sequence(d["conditions"], f"{where}, conditions")):
            field_name = f"{where}, condition {i}"
            c = doc.mapping(c, field_name)
            for key in ("attribute", "operator", "threshold"):
                if key not in c:
                    raise ValueError(f"{field_name}: missing field {key!r}")
            attribute = doc.integer(c["attribute"], f"{field_name}, attribute", 0, n_features or big)
            operator = doc.choice(c["operator"], f"{field_name}, operator", OPERATORS)
            threshold = doc.number(c["threshold"], f"{field_name}, threshold")
            if operator in ("==", "!="):
                values = schema.nominal_values.get(attribute) if schema is not None else None
                doc.integer(threshold, f"{field_name}, nominal value code", 0, len(values) if values else big)
            conditions.append(Condition(attribute, operator, threshold))
        head = doc.mapping(d["head"], f"{where}, head")
        if "labels" not in head or "scores" not in head:
            raise ValueError(f"{where}, head: missing field {'labels' if 'labels' not in head else 'scores'!r}")
        labels = doc.sequence(head["labels"], f"{where}, head labels", max_length=n_labels)
        scores = doc.sequence(head["scores"], f"{where}, head scores")
        if len(labels) != len(scores):
            raise ValueError(f"{where}, head: {len(labels)} labels but {len(scores)} scores")
        labels = [doc.integer(k, f"{where}, head label", 0, n_labels or big) for k in labels]
        scores = [doc.number(s, f"{where}, head score") for s in scores]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{where}, head: a label occurs twice")
        order = np.argsort(np.asarray(labels, dtype=np.int64), kind="stable")
        return cls(tuple(conditions), np.asarray(labels, dtype=np.int64)[order],
                   np.asarray(scores, dtype=np.float64)[order], schema)
