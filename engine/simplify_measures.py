"""The measures a simplification can bound (:mod:`engine.simplify`), each as per-example statistics that
add up over examples, so that a candidate removal is rated from the examples it touches alone.

Every label-set measure of the experimenter (Hamming and subset 0/1 loss; precision, recall, F1 and
Jaccard, example-based, micro and macro) and every ranking measure of the scores (rank loss, one-error,
coverage, label-ranking average precision, NDCG and NDCG@k), with the experimenter's conventions
(:mod:`engine.metrics`: 0/0 is 1; ranking measures count the examples they are defined on).  The
bounded quantity is a loss: for a measure where higher is better, 1 - value."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import metrics

_FORMULAS = ("precision", "recall", "f1", "jaccard")
_NDCG_AT = re.compile(r"ndcg@([1-9][0-9]{0,5})")


@dataclass(frozen=True)
class AdditiveMeasure:
    name: str
    stats: Callable  # (Y, P, S) -> examples x m statistics
    loss: Callable  # (totals m, n examples, k labels) -> the loss
    needs_scores: bool = False


def _counts(Y, P) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Yb, Pb = Y.astype(bool), P.astype(bool)
    return Yb & Pb, ~Yb & Pb, Yb & ~Pb


def _example(formula: str) -> AdditiveMeasure:
    def stats(Y, P, S):
        tp, fp, fn = (c.sum(axis=1) for c in _counts(Y, P))
        return metrics.LABEL_SET_FORMULAS[formula](tp, fp, fn).astype(np.float64)[:, None]

    return AdditiveMeasure(f"example-{formula}", stats, lambda t, n, k: float(1.0 - t[0] / n) if n else 0.0)


def _micro(formula: str) -> AdditiveMeasure:
    def stats(Y, P, S):
        return np.column_stack([c.sum(axis=1) for c in _counts(Y, P)]).astype(np.float64)

    return AdditiveMeasure(f"micro-{formula}", stats,
                           lambda t, n, k: float(1.0 - metrics.LABEL_SET_FORMULAS[formula](*t)))


def _macro(formula: str) -> AdditiveMeasure:
    def stats(Y, P, S):  # per label its tp, fp, fn: columns [tp_1..tp_K, fp_1..fp_K, fn_1..fn_K]
        return np.concatenate(_counts(Y, P), axis=1).astype(np.float64)

    def loss(t, n, k):
        values = metrics.LABEL_SET_FORMULAS[formula](t[:k], t[k:2 * k], t[2 * k:])
        return float(1.0 - np.mean(values)) if k else 0.0

    return AdditiveMeasure(f"macro-{formula}", stats, loss)


def _ranking(name: str, values: Callable, higher_is_better: bool) -> AdditiveMeasure:
    def stats(Y, P, S):
        v, keep = values(Y, S)
        return np.column_stack([np.where(keep, v, 0.0), keep]).astype(np.float64)

    def loss(t, n, k):
        mean = t[0] / t[1] if t[1] > 0 else (1.0 if higher_is_better else 0.0)
        return float(1.0 - mean if higher_is_better else mean)

    return AdditiveMeasure(name, stats, loss, needs_scores=True)


def _hamming(Y, P, S):
    return (Y != P).sum(axis=1, dtype=np.float64)[:, None]


def _subset(Y, P, S):
    return np.any(Y != P, axis=1).astype(np.float64)[:, None]


_SUBSET = AdditiveMeasure("subset-zero-one", _subset, lambda t, n, k: float(t[0] / n) if n else 0.0)
_MEASURES = {m.name: m for m in (
    AdditiveMeasure("hamming", _hamming, lambda t, n, k: float(t[0] / (n * k)) if n * k else 0.0),
    _SUBSET,
    *(make(f) for make in (_example, _micro, _macro) for f in _FORMULAS),
    *(_ranking(name, lambda Y, S, name=name: metrics.ranking_values(name, Y, S), name == "lrap")
      for name in ("rank-loss", "one-error", "coverage", "lrap")),
    _ranking("ndcg", lambda Y, S: metrics.ndcg_values(Y, S), True),
)}
NAMES = tuple(_MEASURES) + ("ndcg@3",)
ALIASES = {"subset": "subset-zero-one"}  # the name this command had first


def additive_measure(name: str) -> AdditiveMeasure:
    """The measure of a name (``ndcg@k`` for any k >= 1); ValueError listing the names otherwise."""
    name = ALIASES.get(name, name)
    if name in _MEASURES:
        return _MEASURES[name]
    match = _NDCG_AT.fullmatch(name) if isinstance(name, str) else None
    if match:
        k = int(match.group(1))
        return _ranking(name, lambda Y, S: metrics.ndcg_values(Y, S, k), True)
    raise ValueError(f"unknown measure {name!r}; expected one of {', '.join(NAMES)} (ndcg@k for any k)")
