"""Simplifying the shown run (Tools > Simplify the shown run), without Qt: the request checked before any
work, the search itself (``engine.api.simplify``, run in a worker thread by the view), the new run's
name and estimator, and the list of what was removed."""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from engine.api import SIMPLIFY_MEASURES, Simplification, simplify
from engine.rules import Schema

DATA_PARTS = ("test", "training")


@dataclass(frozen=True)
class SimplifyRequest:
    run: object
    estimator: object
    X: object
    Y: object
    measure: str
    epsilon: float
    part: str

    def compute(self) -> Simplification:
        """The search (the worker thread's job; touches no window state)."""
        return simplify(self.estimator.model_, self.X, self.Y, self.measure, self.epsilon)


def simplify_request(app, epsilon: float, measure: str = "hamming", part: str = "test") -> SimplifyRequest:
    """The shown run's simplification on the chosen data part; ValueError naming what is wrong."""
    if measure not in SIMPLIFY_MEASURES:
        raise ValueError(f"unknown measure {measure!r}; expected one of {', '.join(SIMPLIFY_MEASURES)}")
    if part not in DATA_PARTS:
        raise ValueError(f"unknown data part {part!r}; expected one of {', '.join(DATA_PARTS)}")
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"ε must be a number >= 0, got {epsilon}")
    estimator, run, data = app.estimator, app.run, app.data
    model = getattr(estimator, "model_", None)
    if run is None or model is None or not hasattr(model, "rules"):
        raise ValueError("no fitted rule model is shown: train or select a run of a rule learner first")
    if getattr(model, "prediction", "") == "decision-list":
        raise ValueError("a decision list cannot be simplified by removing rules (the first covering rule decides)")
    if data is None:
        raise ValueError("no data are loaded")
    examples = data.test if part == "test" else data.train
    if examples is None or not examples.n_examples:
        raise ValueError("the data have no test set: choose the training data")
    return SimplifyRequest(run, estimator, examples.X, examples.Y, measure, float(epsilon), part)


def simplified_name(run_name: str, epsilon: float) -> str:
    return f"{run_name} · simplified (ε={epsilon:g})"


def simplified_estimator(estimator, result: Simplification):
    """A copy of the estimator whose model is the simplified one (the original stays as it is)."""
    est = copy.deepcopy(estimator)
    est.model_ = result.model
    return est


def removed_lines(result: Simplification, schema: Schema | None = None) -> list[str]:
    """What the search removed, in order: whole rules, then single conditions (original rule indices)."""
    lines = [f"rule {r}" for r in result.removed_rules]
    lines += [f"condition {c.to_text(schema)} of rule {r}" for r, c in result.removed_conditions]
    return lines


def curve_arrays(result: Simplification) -> tuple[np.ndarray, np.ndarray]:
    """(rules kept, loss) per step of the curve."""
    curve = np.asarray(result.curve, dtype=float).reshape(-1, 3)
    return curve[:, 0], curve[:, 2]


def summary(result: Simplification, request: SimplifyRequest) -> str:
    kept = len(result.kept_rules)
    return (f"{request.run.name}: {kept} of {kept + len(result.removed_rules)} rules kept, "
            f"{len(result.removed_conditions)} conditions dropped; {result.measure} on the {request.part} data "
            f"{result.full_loss:.4f} → {result.loss:.4f} (bound {result.full_loss + result.epsilon:.4f})")
