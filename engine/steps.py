"""What every learner's ``fit_iter`` yields: steps.

A step is any object with

* ``index`` — 0, 1, 2, … in the order the steps were learned;
* ``kind`` — the kind of component it adds (``'rule'``, ``'update'``, ``'expert'``, …);
* ``component`` — what the step added to the model (a learner-defined, read-only object);
* ``metrics`` — a mapping metric name → float of what the learner tracks (train/test
  losses, bounds, …); a metric may be absent from a step (e.g. evaluated every few steps).

Rule learners yield :class:`engine.learner.RuleRecord` (kind ``'rule'``); other learners may use
:class:`Step`.  User interfaces read steps only through this interface and the learner's
declaration in :mod:`engine.registry`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Step:
    index: int
    kind: str
    component: Any
    metrics: Mapping[str, float] = field(default_factory=dict)
