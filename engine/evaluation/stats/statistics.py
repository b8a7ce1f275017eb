"""Rank statistics for comparing learners over data sets (Demšar 2006), as in the paper's Sect. 5.2.

Every function takes a table ``values`` of shape (data sets, methods) and whether higher is better."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats


def ranks(values, higher_is_better: bool = False) -> np.ndarray:
    """Per data set (row), rank 1 for the best method; ties receive the average of their ranks."""
    V = np.asarray(values, dtype=np.float64)
    return np.vstack([stats.rankdata(-row if higher_is_better else row, method="average") for row in V])


def average_ranks(values, higher_is_better: bool = False) -> np.ndarray:
    return ranks(values, higher_is_better).mean(axis=0)


@dataclass(frozen=True)
class Friedman:
    """Friedman's χ²_F (df k−1) and Iman and Davenport's F (df k−1, (k−1)(N−1)), with p-values."""

    chi2: float
    chi2_p: float
    f: float
    f_p: float
    df: tuple[int, int]


def friedman(values, higher_is_better: bool = False) -> Friedman:
    """χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4] over the average ranks R_j (no tie correction)."""
    R = average_ranks(values, higher_is_better)
    N, k = np.asarray(values).shape
    chi2 = 12.0 * N / (k * (k + 1)) * (float(np.sum(R ** 2)) - k * (k + 1) ** 2 / 4.0)
    df1, df2 = k - 1, (k - 1) * (N - 1)
    denominator = N * (k - 1) - chi2
    f = (N - 1) * chi2 / denominator if denominator > 0 else math.inf
    return Friedman(chi2, float(stats.chi2.sf(chi2, df1)), f, float(stats.f.sf(f, df1, df2)) if
                    math.isfinite(f) else 0.0, (df1, df2))


# Demšar (2006), Table 5: q_α for k = 2..10 methods, the three-decimal values the field (and the paper) uses
_Q_TABLE = {0.05: (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164),
            0.10: (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920)}


def nemenyi_q(alpha: float, k: int) -> float:
    """The Nemenyi test's critical value q_α: the studentized range quantile (infinite degrees of
    freedom) over √2; Demšar's tabulated value where there is one."""
    if alpha in _Q_TABLE and 2 <= k <= 10:
        return _Q_TABLE[alpha][k - 2]
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)


def critical_distance(k: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's CD = q_α √(k(k+1)/(6N)): average ranks further apart differ significantly."""
    return nemenyi_q(alpha, k) * math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def wilcoxon(a, b) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of paired values (exact when possible);
    1.0 when every pair is equal."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if np.all(a == b):
        return 1.0
    return float(stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided").pvalue)
