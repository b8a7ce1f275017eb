"""Every measure of an experiment, as fractions (not percent): bipartition measures of the predicted
label sets, ranking measures of the label scores, regression measures of predicted target values
(:mod:`engine.regression_metrics`, averaged over the targets; ``NAME@tK`` is target K's value, 1-based,
e.g. ``mae@t2``), and costs (fit and predict time, model size), which apply to both tasks.

Conventions: a ratio whose denominator is 0 is 1 (scikit-learn's ``zero_division=1``: an example
with no relevant and no predicted label is perfectly precise, recalled, F1 and Jaccard; so is a
label never relevant and never predicted); micro-averaging pools the counts of all (example, label)
pairs, macro-averaging averages per label, example-based averages per example.  The ranking
measures follow :mod:`engine.metrics` (examples without a relevant label are skipped; ties are
pessimistic); NDCG@k uses the gain 1/log2(1 + rank) and ranks tied labels irrelevant-first."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ... import metrics, regression_metrics

LABELS, SCORES, VALUES, COST = "labels", "scores", "values", "cost"
CLASSIFICATION, REGRESSION = "classification", "regression"
TASKS = (CLASSIFICATION, REGRESSION)


@dataclass(frozen=True)
class Measure:
    name: str
    title: str
    needs: str  # LABELS (predicted label sets), SCORES (label scores), VALUES (predicted targets) or COST
    higher_is_better: bool
    compute: Callable | None = None  # (Y, P) or (Y, S) -> float (None: does not apply); None for costs

    @property
    def task(self) -> str | None:
        """The task whose experiments it measures (None: costs, every task's)."""
        return None if self.needs == COST else REGRESSION if self.needs == VALUES else CLASSIFICATION


def averaged(formula: str, average: str) -> Callable:
    """The bipartition measure ``formula`` averaged example-based, micro or macro
    (:func:`engine.metrics.label_set_measure`)."""

    def compute(Y, P) -> float:
        return metrics.label_set_measure(formula, average, Y, P)

    return compute


def ndcg(k: int | None = None) -> Callable:
    """NDCG@k (k None: all labels) of label scores, averaged over examples with a relevant label."""

    def compute(Y, S) -> float:
        values, keep = metrics.ndcg_values(Y, S, k)
        return float(np.mean(values[keep])) if keep.any() else float("nan")

    return compute


def regression(name: str) -> Callable:
    """The regression measure ``name`` averaged over the targets."""

    def compute(Y, P) -> float:
        return regression_metrics.averaged(name, Y, P)

    return compute


def target_measure(name: str, k: int) -> Callable:
    """The regression measure ``name`` of target ``k`` (1-based); None for a data set with fewer targets."""

    def compute(Y, P) -> float | None:
        values = regression_metrics.per_target(name, Y, P)
        return float(values[k - 1]) if k <= len(values) else None

    return compute


_REGRESSION_TITLES = {"mse": "Mean squared error", "rmse": "Root mean squared error", "mae": "Mean absolute error",
                      "median-ae": "Median absolute error", "r2": "R² (uniform over targets)",
                      "r2-variance-weighted": "R² (variance-weighted over targets)",
                      "mape": "Mean absolute percentage error (fraction)"}
_FIXED: dict[str, Measure] = {m.name: m for m in (
    Measure("hamming", "Hamming loss", LABELS, False, metrics.hamming_loss),
    Measure("subset-zero-one", "Subset 0/1 loss", LABELS, False, metrics.subset_zero_one_loss),
    *(Measure(f"{a}-{f}", f"{title} {f.capitalize() if f != 'f1' else 'F1'}", LABELS, True, averaged(f, a))
      for a, title in (("example", "Example-based"), ("micro", "Micro-averaged"), ("macro", "Macro-averaged"))
      for f in ("precision", "recall", "f1", "jaccard")),
    Measure("rank-loss", "Rank loss", SCORES, False, metrics.rank_loss),
    Measure("one-error", "One-error", SCORES, False, metrics.one_error),
    Measure("coverage", "Coverage", SCORES, False, metrics.coverage),
    Measure("lrap", "Label-ranking average precision", SCORES, True, metrics.average_precision),
    Measure("ndcg", "NDCG (all labels)", SCORES, True, ndcg(None)),
    *(Measure(name, title, VALUES, name in regression_metrics.HIGHER_IS_BETTER, regression(name))
      for name, title in _REGRESSION_TITLES.items()),
    Measure("fit-time", "Fit time (s)", COST, False),
    Measure("predict-time", "Predict time (s)", COST, False),
    Measure("model-size", "Model size (rules, or the learner's own unit)", COST, False),
    Measure("conditions", "Conditions (rule learners)", COST, False),
)}
DEFAULT_NDCG_K = 3
_COSTS = tuple(n for n in _FIXED if _FIXED[n].needs == COST)
ALL_MEASURES = (*[n for n in _FIXED if _FIXED[n].task == CLASSIFICATION], f"ndcg@{DEFAULT_NDCG_K}", *_COSTS)
REGRESSION_MEASURES = (*[n for n in _FIXED if _FIXED[n].task == REGRESSION], *_COSTS)
_NDCG_AT = re.compile(r"ndcg@([1-9][0-9]{0,5})")
_TARGET = re.compile(r"(" + "|".join(map(re.escape, regression_metrics.PER_TARGET)) + r")@t([1-9][0-9]{0,5})")


def measures_of(task: str) -> tuple[str, ...]:
    """Every measure of a task's experiments (its default ``measures``)."""
    return REGRESSION_MEASURES if task == REGRESSION else ALL_MEASURES


def measure(name: str) -> Measure:
    """The measure of a name (``ndcg@k`` for any k ≥ 1, ``NAME@tK`` for a regression measure of target
    K); ValueError listing the names otherwise."""
    if name in _FIXED:
        return _FIXED[name]
    match = _NDCG_AT.fullmatch(name) if isinstance(name, str) else None
    if match:
        k = int(match.group(1))
        return Measure(name, f"NDCG@{k}", SCORES, True, ndcg(k))
    match = _TARGET.fullmatch(name) if isinstance(name, str) else None
    if match:
        base, k = match.group(1), int(match.group(2))
        return Measure(name, f"{_REGRESSION_TITLES[base]}, target {k}", VALUES,
                       base in regression_metrics.HIGHER_IS_BETTER, target_measure(base, k))
    raise ValueError(f"unknown measure {name!r}; known: {', '.join(ALL_MEASURES)} (ndcg@k for any k); regression: "
                     f"{', '.join(REGRESSION_MEASURES[:-len(_COSTS)])} (NAME@tK: target K's value)")


def evaluate(name: str, Y, P=None, S=None, costs: dict | None = None) -> float | None:
    """The value of measure ``name``; None when what it needs (scores, a cost) is not available."""
    m = measure(name)
    if m.needs == LABELS:
        return None if P is None else float(m.compute(Y, P))
    if m.needs == VALUES:
        value = None if P is None else m.compute(Y, P)
        return None if value is None else float(value)
    if m.needs == SCORES:
        return None if S is None else float(m.compute(Y, S))
    value = (costs or {}).get(name)
    return None if value is None else float(value)
