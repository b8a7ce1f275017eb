"""Reliability of predicted probabilities: the data of a reliability diagram (DeGroot & Fienberg,
The Statistician 1983; Niculescu-Mizil & Caruana, ICML 2005), pooled over labels.

Every (example, label) pair is one forecast: its marginal probability ``P[i, k]`` and its outcome
``Y[i, k]``.  Forecasts fall into ``n_bins`` equal-width bins of [0, 1] (1 in the last); per bin the
mean forecast, the observed frequency of positives and the count.  The expected calibration error is
sum_b (n_b / n) |observed_b - mean_b| (Naeini, Cooper, Hauskrecht, AAAI 2015); the Brier score is the
mean of (P - Y)^2 (Brier 1950)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Reliability:
    edges: np.ndarray  # n_bins + 1 bin edges
    mean_predicted: np.ndarray  # per bin, NaN where empty
    observed: np.ndarray  # per bin, NaN where empty
    counts: np.ndarray  # forecasts per bin
    ece: float
    brier: float

    @property
    def n_forecasts(self) -> int:
        return int(self.counts.sum())


def reliability_curve(P: np.ndarray, Y: np.ndarray, n_bins: int = 10) -> Reliability:
    """The reliability of the probabilities ``P`` (N x K) for the 0/1 outcomes ``Y`` (N x K)."""
    P = np.asarray(P, dtype=np.float64).ravel()
    Y = np.asarray(Y, dtype=np.float64).ravel()
    if P.shape != Y.shape:
        raise ValueError(f"{P.size} probabilities for {Y.size} outcomes")
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    keep = np.isfinite(P)
    P, Y = P[keep], Y[keep]
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, P, side="right") - 1, 0, n_bins - 1)
    counts = np.bincount(which, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(which, weights=P, minlength=n_bins) / counts
        observed = np.bincount(which, weights=Y, minlength=n_bins) / counts
    n = max(int(counts.sum()), 1)
    filled = counts > 0
    ece = float(np.sum(counts[filled] / n * np.abs(observed[filled] - mean[filled])))
    brier = float(np.mean((P - Y) ** 2)) if len(P) else float("nan")
    return Reliability(edges, mean, observed, counts, ece, brier)


def estimator_reliability(estimator, X, Y, n_bins: int = 10) -> Reliability:
    """The reliability of ``estimator.predict_proba(X)``; ValueError saying why when the estimator
    gives no probabilities (none at all, or refused for its loss)."""
    if not hasattr(estimator, "predict_proba"):
        raise ValueError(f"the learner ({type(estimator).__name__}) has no probabilities: its rules predict "
                         "labels, so there is no reliability diagram")
    try:
        P = estimator.predict_proba(X)
    except AttributeError as error:  # mlrl-boomer's refusal, e.g. of the squared-error losses
        raise ValueError(str(error)) from None
    P = np.asarray(P)
    Y = np.asarray(Y)
    if Y.ndim == 2 and Y.shape[1] == 1 and P.ndim == 2 and P.shape[1] == 2:
        P = P[:, 1:]  # a single label: P(absent), P(present)
    if P.shape != Y.shape:
        raise ValueError(f"the probabilities have shape {P.shape}, the labels {Y.shape}")
    return reliability_curve(P, Y, n_bins)
