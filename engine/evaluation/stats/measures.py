"""The measures of Table 1 (SPEC C.5), in percent, computed per example where they decompose so that
BBC-CV can score thousands of configurations on bootstrap samples with one matrix product."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ... import metrics


@dataclass(frozen=True)
class Measure:
    name: str
    title: str
    higher_is_better: bool
    score: Callable[[np.ndarray, np.ndarray], float]  # (Y, P) -> percent
    per_example: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None  # (Y, P) -> N, mean = score/100


def _hamming_rows(Y, P):
    return np.mean(Y != P, axis=-1)


def _subset_rows(Y, P):
    return np.any(Y != P, axis=-1).astype(np.float64)


def _f1_rows(Y, P):
    Y = Y.astype(bool)
    P = P.astype(bool)
    tp = np.sum(Y & P, axis=-1)
    denominator = np.sum(Y, axis=-1) + np.sum(P, axis=-1)
    return np.where(denominator > 0, 2.0 * tp / np.maximum(denominator, 1), 1.0)


def _percent(f):
    return lambda Y, P: 100.0 * f(Y, P)


MEASURES = {
    "subset_01": Measure("subset_01", "Subset 0/1 loss (%)", False, _percent(metrics.subset_zero_one_loss),
                         _subset_rows),
    "hamming": Measure("hamming", "Hamming loss (%)", False, _percent(metrics.hamming_loss), _hamming_rows),
    "example_f1": Measure("example_f1", "Example-based F1 (%)", True, _percent(metrics.example_f1), _f1_rows),
    "micro_f1": Measure("micro_f1", "Micro-averaged F1 (%)", True, _percent(metrics.micro_f1)),
    "macro_f1": Measure("macro_f1", "Macro-averaged F1 (%)", True, _percent(metrics.macro_f1)),
}
TABLE1_MEASURES = ("subset_01", "hamming", "example_f1")


def measure(name: str) -> Measure:
    try:
        return MEASURES[name]
    except KeyError:
        raise ValueError(f"unknown measure {name!r}; expected one of {', '.join(MEASURES)}") from None
