"""Isotonic calibration of probabilities, as mlrl-boomer 0.15.6 fits and applies it.

mlrl-boomer's ``marginal_probability_calibration='isotonic'`` keeps one list of bins per label,
``joint_probability_calibration='isotonic'`` one per known label vector.  A list is fitted from
pairs (predicted probability, observed outcome 0/1) and used as a piecewise-linear map of
probabilities.  Read from its C++ source (``IsotonicProbabilityCalibrationModel::fit`` and
``calibrateProbability`` in ``mlrl/common/prediction/probability_calibration_isotonic.cpp``) and
reproduced here in our own words, quirks included, so that calibrated probabilities agree:

1. the pairs are sorted by probability; runs of (approximately) equal probabilities, each compared
   to the run's first one with mlrl's ``isEqual`` (``|a - b| <= eps * max(1, |a|, |b|)``), become
   one bin whose value is the mean outcome of the run, except the run of the largest
   probabilities, which keeps the outcome of the run's last pair in sorted order;
2. pool adjacent violators, each bin weighing one whatever the number of pairs behind it: walking
   from the smallest threshold, a bin whose successor's value is not larger absorbs the successor
   and every following bin while their values do not increase; its value becomes the unweighted
   mean of the absorbed values; then the walk steps back one bin and compares again;
3. a pool keeps the threshold of its first bin; a probability ``p`` is mapped by linear
   interpolation between the pool at or above it and the one below, with (0, 0) below the first
   pool and (1, 1) above the last; ``p = 0`` when the first pool's threshold is 0 gives 0/0, NaN
   (joint probabilities are exactly 0 whenever a calibrated marginal is 0 or 1; the predictors
   then treat the example as mlrl-boomer does, see :mod:`engine.predictors`).

This is an isotonic regression in the sense of Zadrozny & Elkan (KDD 2002) only approximately
(pools are not weighted by their size); :func:`isotonic_pav` is the textbook weighted PAV, used by
the tests to show where the two agree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import model_document as doc

_EPS = np.finfo(np.float64).eps


def _equal(a: float, b: float) -> bool:
    """mlrl-boomer's ``isEqual`` for float64: equal up to a relative epsilon."""
    return abs(a - b) <= _EPS * max(1.0, abs(a), abs(b))


def _running_mean(values) -> float:
    """The mean as mlrl-boomer accumulates it: m_n = m_{n-1} + (x_n - m_{n-1}) / n."""
    mean = 0.0
    for n, x in enumerate(values, start=1):
        mean = mean + (x - mean) / n
    return mean


def fit_bins(probabilities: np.ndarray, outcomes: np.ndarray, order: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """The (thresholds, values) of one calibration list from pairs of predicted probabilities and
    observed outcomes (steps 1 and 2 of the module docstring).  ``order`` is the sorted order of the
    pairs (default: a stable sort by probability); only the order within the run of the largest
    probabilities matters (step 1's exception)."""
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(outcomes, dtype=np.float64)
    if len(p) == 0:
        return np.zeros(0), np.zeros(0)
    if order is None:
        order = np.argsort(p, kind="stable")
    p, y = p[order], y[order]
    thresholds, values = [], []
    start = 0
    for j in range(1, len(p) + 1):
        if j < len(p) and _equal(p[j], p[start]):
            continue
        thresholds.append(p[start])
        values.append(y[j - 1] if j == len(p) else _running_mean(y[start:j]))
        start = j
    return _pooled(thresholds, values)


def _pooled(thresholds: list, values: list) -> tuple[np.ndarray, np.ndarray]:
    """Step 2: pools of adjacent bins whose values do not increase (see the module docstring)."""
    pools = [[t, v] for t, v in zip(thresholds, values)]
    i = 0
    while i + 1 < len(pools):
        if pools[i + 1][1] > pools[i][1]:
            i += 1
            continue
        absorbed = [pools[i][1], pools[i + 1][1]]
        end = i + 2
        while end < len(pools) and not pools[end][1] > absorbed[-1]:
            absorbed.append(pools[end][1])
            end += 1
        pools[i][1] = _running_mean(absorbed)
        del pools[i + 1:end]
        if i > 0:
            i -= 1
    return np.array([t for t, _ in pools]), np.array([v for _, v in pools])


def apply_bins(thresholds: np.ndarray, values: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Step 3: calibrated probabilities of ``p`` by one list; an empty list leaves ``p`` as it is."""
    p = np.asarray(p, dtype=np.float64)
    if len(thresholds) == 0:
        return p.copy()
    idx = np.searchsorted(thresholds, p, side="left")
    n = len(thresholds)
    lo_x = np.where(idx > 0, thresholds[np.maximum(idx - 1, 0)], 0.0)
    lo_y = np.where(idx > 0, values[np.maximum(idx - 1, 0)], 0.0)
    up_x = np.where(idx < n, thresholds[np.minimum(idx, n - 1)], 1.0)
    up_y = np.where(idx < n, values[np.minimum(idx, n - 1)], 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # as mlrl-boomer computes it: p = 0 under a first bin at threshold 0 gives 0/0, NaN
        t = (p - lo_x) / (up_x - lo_x)
    return lo_y + t * (up_y - lo_y)


def isotonic_pav(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The textbook weighted pool-adjacent-violators fit (Ayer et al. 1955): the non-decreasing
    sequence closest to ``y`` (sorted by ``x``) in weighted squared error, returned in ``x``'s
    sorted order.  A reference for the tests."""
    order = np.argsort(x, kind="stable")
    y = np.asarray(y, dtype=np.float64)[order]
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [value, weight, count]
    for v, wt in zip(y, w):
        blocks.append([v, wt, 1])
        while len(blocks) > 1 and blocks[-2][0] >= blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return np.concatenate([np.full(c, v) for v, _, c in blocks])


@dataclass
class IsotonicCalibration:
    """Calibration lists (one per label, or per known label vector): ``thresholds[i]`` and
    ``values[i]`` are the bins of list ``i``."""

    thresholds: list[np.ndarray]
    values: list[np.ndarray]

    @classmethod
    def fit(cls, probabilities: np.ndarray, outcomes: np.ndarray) -> "IsotonicCalibration":
        """One list per column of the N x L arrays ``probabilities`` and ``outcomes``."""
        lists = [fit_bins(probabilities[:, i], outcomes[:, i]) for i in range(probabilities.shape[1])]
        return cls([t for t, _ in lists], [v for _, v in lists])

    @property
    def n_lists(self) -> int:
        return len(self.thresholds)

    def apply(self, probabilities: np.ndarray) -> np.ndarray:
        """Calibrate column ``i`` of the N x L array by list ``i``."""
        out = np.empty(probabilities.shape)
        for i in range(probabilities.shape[1]):
            out[:, i] = apply_bins(self.thresholds[i], self.values[i], probabilities[:, i])
        return out

    def to_dict(self) -> list:
        return [[[float(t), float(v)] for t, v in zip(ts, vs)] for ts, vs in zip(self.thresholds, self.values)]

    @classmethod
    def from_dict(cls, lists, field: str, n_lists: int) -> "IsotonicCalibration":
        """Read :meth:`to_dict`'s form from an untrusted file: ``n_lists`` lists of [threshold, value]
        pairs, thresholds strictly increasing in [0, 1], values in [0, 1]."""
        lists = doc.sequence(lists, field, max_length=n_lists)
        if len(lists) != n_lists:
            raise ValueError(f"{field}: {len(lists)} lists, the model needs {n_lists}")
        thresholds, values = [], []
        for i, bins in enumerate(lists):
            where = f"{field}[{i}]"
            bins = doc.sequence(bins, where, max_length=doc.MAX_LABEL_VECTOR_ENTRIES // max(n_lists, 1))
            ts = np.empty(len(bins))
            vs = np.empty(len(bins))
            for b, pair in enumerate(bins):
                pair = doc.sequence(pair, f"{where}[{b}]")
                if len(pair) != 2:
                    raise ValueError(f"{where}[{b}]: expected [threshold, value], found {len(pair)} entries")
                ts[b] = doc.number(pair[0], f"{where}[{b}] threshold")
                vs[b] = doc.number(pair[1], f"{where}[{b}] value")
            if np.any((ts < 0) | (ts > 1)) or np.any((vs < 0) | (vs > 1)):
                raise ValueError(f"{where}: thresholds and values must lie in [0, 1]")
            if np.any(np.diff(ts) <= 0):
                raise ValueError(f"{where}: thresholds must increase strictly")
            thresholds.append(ts)
            values.append(vs)
        return cls(thresholds, values)
