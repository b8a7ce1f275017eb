"""A run's steps as JSON (a session keeps every step of every run), and back, checked.

Every learner's steps are saved (see :mod:`engine.steps`): index, kind and metrics, and what the
step added.  A step of a learner whose steps are not rules carries its component, a frozen
dataclass of numbers, strings and tuples (its registry entry names the class,
``ComponentView.type``), written field by field and read back against the class's annotations.
Rule steps (:class:`~engine.learner.RuleRecord`, :class:`~engine.learner.RuleRevision`) carry their
rules by index (a step's rules need not be the model's: post-optimization revises them, global
pruning keeps a prefix); reading checks them against the run's model's attributes and labels.

Reading is for untrusted input: every field is type- and range-checked, sizes are bounded by the
run (one step per trajectory point, rules by the model), and any problem is one ValueError naming
the step and field."""
from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from typing import Any, Mapping, Sequence

from . import model_document as check
from .learner import RuleRecord, RuleRevision
from .rules import Rule
from .steps import Step

MAX_METRICS = 1000  # metric names a step may report
MAX_TEXT = 100_000  # characters of a component's text field
MAX_ITEMS = 1_000_000  # entries of a component's tuple field
LOSS_KEYS = ("train_hamming", "train_subset", "test_hamming", "test_subset")


def _float(value) -> float | None:
    """A float for JSON: None for None and NaN."""
    value = None if value is None else float(value)
    return None if value is None or math.isnan(value) else value


def _metrics(step) -> dict:
    return {str(k): _float(v) for k, v in (getattr(step, "metrics", None) or {}).items()}


def encode_component(value) -> Any:
    """A component (a dataclass of numbers, strings, bools and tuples of them or of dataclasses) as JSON."""
    if dataclasses.is_dataclass(value):
        return {f.name: encode_component(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [encode_component(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if hasattr(value, "dtype") and value.dtype.kind == "b":
        return bool(value)
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return int(value)
    return _float(value)


def encode_steps(steps: Sequence) -> list[dict]:
    """The JSON form of a run's steps (rule records, revisions, or any learner's :class:`Step`)."""
    out = []
    for step in steps:
        d = {"index": int(step.index), "kind": str(step.kind), "metrics": _metrics(step)}
        if isinstance(step, RuleRecord):
            d.update(coverage=[int(step.coverage), *map(int, step.extra_coverage)],
                     improvement=_float(step.improvement), rules=[_rule_dict(r) for r in step.rules])
        elif isinstance(step, RuleRevision):
            d.update(revises=int(step.revises), iteration=int(step.iteration), coverage=[int(step.coverage)],
                     improvement=_float(step.improvement), old_rule=_rule_dict(step.old_rule),
                     rule=_rule_dict(step.rule))
        else:
            d["component"] = encode_component(step.component)
        out.append(d)
    return out


# -- reading ---------------------------------------------------------------------------------------
def _decode(value, hint, where: str):
    """``value`` read as the annotated type ``hint`` (int, float, bool, str, a dataclass, a tuple of them)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        return _decode(value, next(a for a in args if a is not type(None)), where)
    if origin is tuple:
        items = check.sequence(value, where, max_length=MAX_ITEMS)
        inner = typing.get_args(hint)[0]
        return tuple(_decode(v, inner, f"{where}[{i}]") for i, v in enumerate(items))
    if dataclasses.is_dataclass(hint):
        return decode_component(value, hint, where)
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where}: expected true or false")
        return value
    if hint is int:
        return check.integer(value, where, -2 ** 62, 2 ** 62)
    if hint is float:
        return math.nan if value is None else check.number(value, where)
    if hint is str:
        return check.string(value, where)[:MAX_TEXT]
    raise ValueError(f"{where}: a field of type {hint} cannot be read")


@functools.lru_cache(maxsize=64)
def _fields(cls: type) -> tuple[tuple[str, ...], dict]:
    """A dataclass's field names and their resolved annotations (resolving them is slow: once per class)."""
    return tuple(f.name for f in dataclasses.fields(cls)), typing.get_type_hints(cls)


def decode_component(value, cls: type, where: str = "component"):
    """A ``cls`` (frozen dataclass) from its JSON form, every field checked against its annotation."""
    d = check.mapping(value, where)
    names, hints = _fields(cls)
    unknown = sorted(str(k) for k in d if k not in names)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}")
    missing = [n for n in names if n not in d]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    return cls(**{n: _decode(d[n], hints[n], f"{where}, {n}") for n in names})


def _read_metrics(d: Mapping, where: str) -> dict:
    m = check.mapping(d.get("metrics") or {}, f"{where}, metrics")
    if len(m) > MAX_METRICS:
        raise ValueError(f"{where}, metrics: {len(m)} entries, at most {MAX_METRICS}")
    return {check.string(k, f"{where}, metrics"): (math.nan if v is None else check.number(v, f"{where}, metric {k}"))
            for k, v in m.items()}


def decode_steps(items, n_steps: int, component: type | None = None, model=None, where: str = "steps") -> list:
    """The steps of a run from :func:`encode_steps`'s list: exactly ``n_steps`` of them (its
    trajectory's length).  Rule steps need the run's ``model`` (their rules must fit its attributes and
    labels); other steps need their ``component`` class.  ValueError for anything else."""
    items = check.sequence(items, where, max_length=n_steps)
    if len(items) != n_steps:
        raise ValueError(f"{where}: {len(items)} steps, but the run's trajectory has {n_steps}")
    steps = []
    for i, d in enumerate(items):
        at = f"{where}, step {i}"
        d = check.mapping(d, at)
        index = check.integer(d.get("index"), f"{at}, index", 0, 2 ** 62)
        kind = check.string(d.get("kind"), f"{at}, kind")
        metrics = _read_metrics(d, at)
        if kind in ("rule", "revision"):
            if model is None:
                raise ValueError(f"{at}: a rule step, but the run has no model to hold its rules")
            steps.append((index, kind, metrics, d, at))
        else:
            if component is None:
                raise ValueError(f"{at}: the learner's steps have no saved form (kind {kind!r})")
            steps.append(Step(index, kind, decode_component(d.get("component"), component, f"{at}, component"),
                              metrics))
    if any(isinstance(s, tuple) for s in steps):
        if not all(isinstance(s, tuple) for s in steps):
            raise ValueError(f"{where}: rule steps mixed with steps of another kind")
        return _rule_steps(steps, model, where)
    return steps


def _rule_dict(rule) -> dict:
    """A rule's conditions and head by index (the names are the model's schema's)."""
    return {"conditions": [{"attribute": int(c.attribute), "operator": c.operator, "threshold": float(c.threshold)}
                           for c in rule.conditions],
            "head": {"labels": [int(k) for k in rule.head_labels], "scores": [float(v) for v in rule.head_scores]}}


def _rules(value, model, where: str, max_rules: int) -> list:
    return [Rule.from_dict(r, model.schema, model.n_features, model.n_labels, f"{where}[{i}]")
            for i, r in enumerate(check.sequence(value, where, max_length=max_rules))]


def _rule_steps(items: list, model, where: str) -> list:
    """Rule records and revisions, their rules checked against the model's attributes and labels."""
    out, added = [], 0
    for index, kind, metrics, d, at in items:
        coverage = [check.integer(c, f"{at}, coverage", -1, 2 ** 62)
                    for c in check.sequence(d.get("coverage"), f"{at}, coverage", max_length=MAX_ITEMS)]
        improvement = d.get("improvement")
        improvement = math.nan if improvement is None else check.number(improvement, f"{at}, improvement")
        losses = [metrics.get(k) for k in LOSS_KEYS]
        losses = [None if v is None or math.isnan(v) else v for v in losses]
        extra = {k: v for k, v in metrics.items() if k not in LOSS_KEYS}
        if kind == "rule":
            rules = _rules(d.get("rules"), model, f"{at}, rules", MAX_ITEMS)
            if not rules or len(rules) != len(coverage):
                raise ValueError(f"{at}: {len(rules)} rule(s) and {len(coverage)} coverage(s); expected one "
                                 "or more of each, as many of one as of the other")
            out.append(RuleRecord(index, rules[0], coverage[0], improvement, *losses, extra, tuple(rules[1:]),
                                  tuple(coverage[1:])))
            added += len(rules)
        else:
            revises = check.integer(d.get("revises"), f"{at}, revises", 0, max(added, 1))
            old, new = _rules([d.get("old_rule"), d.get("rule")], model, f"{at}, old_rule and rule", 2)
            if added == 0 or len(coverage) != 1:
                raise ValueError(f"{at}: a revision needs an earlier rule and one coverage")
            iteration = check.integer(d.get("iteration"), f"{at}, iteration", 1, 2 ** 31)
            out.append(RuleRevision(index, revises, old, new, iteration, coverage[0], improvement, *losses, extra))
    return out
