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


class FitCancelled(Exception):
    """Raised inside a learner's inner loops (optimiser iterations, EM, annealing, updates) when its
    ``cancel`` event is set; the learner's ``fit_iter`` catches it, drops the unfinished step and ends."""


class CancelCheck:
    """``check()`` raises :class:`FitCancelled` once ``event`` (a ``threading.Event`` or None) is set;
    cheap enough for every iteration of an inner loop.  ``optimizer_callback`` is the same check in
    the form ``scipy.optimize.minimize`` calls after every iteration."""

    def __init__(self, event=None):
        self.event = event

    def is_set(self) -> bool:
        return self.event is not None and self.event.is_set()

    def check(self) -> None:
        if self.is_set():
            raise FitCancelled()

    def optimizer_callback(self, *_args) -> None:
        self.check()


NEVER_CANCELLED = CancelCheck(None)
