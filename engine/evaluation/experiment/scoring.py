"""Every measure of an experiment, as fractions (not percent): bipartition measures of the predicted
label sets, ranking measures of the label scores, and costs (fit and predict time, model size).

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

from ... import metrics

LABELS, SCORES, COST = "labels", "scores", "cost"


@dataclass(frozen=True)
class Measure:
    name: str
    title: str
    needs: str  # LABELS (predicted label sets), SCORES (label scores) or COST (a stored number)
    higher_is_better: bool
    compute: Callable | None = None  # (Y, P) or (Y, S) -> float; None for costs


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
    Measure("fit-time", "Fit time (s)", COST, False),
    Measure("predict-time", "Predict time (s)", COST, False),
    Measure("model-size", "Model size (rules, or the learner's own unit)", COST, False),
    Measure("conditions", "Conditions (rule learners)", COST, False),
)}
DEFAULT_NDCG_K = 3
ALL_MEASURES = (*[n for n in _FIXED if _FIXED[n].needs != COST], f"ndcg@{DEFAULT_NDCG_K}",
                *[n for n in _FIXED if _FIXED[n].needs == COST])
_NDCG_AT = re.compile(r"ndcg@([1-9][0-9]{0,5})")


def measure(name: str) -> Measure:
    """The measure of a name (``ndcg@k`` for any k ≥ 1); ValueError listing the names otherwise."""
    if name in _FIXED:
        return _FIXED[name]
    match = _NDCG_AT.fullmatch(name) if isinstance(name, str) else None
    if match:
        k = int(match.group(1))
        return Measure(name, f"NDCG@{k}", SCORES, True, ndcg(k))
    raise ValueError(f"unknown measure {name!r}; known: {', '.join(ALL_MEASURES)} (ndcg@k for any k)")


def evaluate(name: str, Y, P=None, S=None, costs: dict | None = None) -> float | None:
    """The value of measure ``name``; None when what it needs (scores, a cost) is not available."""
    m = measure(name)
    if m.needs == LABELS:
        return None if P is None else float(m.compute(Y, P))
    if m.needs == SCORES:
        return None if S is None else float(m.compute(Y, S))
    value = (costs or {}).get(name)
    return None if value is None else float(value)
