"""Bootstrap bias-corrected cross-validation (Tsamardinos, Greasidou & Borboudakis 2018; SPEC C.4).

Input: the pooled out-of-fold predictions of every configuration, P[c] (N x K, binary).  For each of
B bootstraps: draw N row indices with replacement (in-bag), select the configuration with the least
in-bag target loss (ties: the first), score it on the out-of-bag rows with every measure.  The
estimate is the **mean** over bootstraps (the authors' released code reported the last bootstrap
only, an aliasing bug, SPEC C.4/C.8); every bootstrap's selection and scores are kept."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .measures import MEASURES, measure


@dataclass
class BBCResult:
    selected: np.ndarray  # B configuration indices
    scores: dict[str, np.ndarray]  # measure -> B out-of-bag scores (percent)
    n_configurations: int
    target: str
    mean: dict[str, float] = field(init=False)

    def __post_init__(self):
        self.mean = {m: float(np.mean(v)) for m, v in self.scores.items()}

    def selection_frequencies(self) -> np.ndarray:
        return np.bincount(self.selected, minlength=self.n_configurations) / len(self.selected)


def bbc_cv(Y, P, target: str, n_bootstraps: int = 100, seed: int = 1, measures=tuple(MEASURES)) -> BBCResult:
    """``Y`` N x K true labels, ``P`` C x N x K out-of-fold predictions; ``target`` names the measure
    the configurations are selected by (a loss or a score: its direction is the measure's)."""
    goal = measure(target)
    if goal.per_example is None:
        raise ValueError(f"BBC-CV selects by a per-example measure; {target!r} is not one")
    selected, scores = bootstrap_selection(Y, P, goal.per_example, goal.higher_is_better,
                                           {m: MEASURES[m].score for m in measures}, n_bootstraps, seed)
    return BBCResult(selected, scores, np.shape(P)[0], target)


def bootstrap_selection(Y, P, per_example, higher_is_better: bool, scorers: dict, n_bootstraps: int,
                        seed: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """BBC-CV's loop: per bootstrap, the configuration whose ``per_example`` values (N per
    configuration) are best summed over the in-bag rows (the first of equals), and each scorer
    ``(Y, P) -> float`` of it on the out-of-bag rows.  (selected: B indices, scores: name -> B values)."""
    Y = np.asarray(Y, dtype=np.uint8)
    P = np.asarray(P, dtype=np.uint8)
    if P.ndim != 3 or P.shape[1:] != Y.shape:
        raise ValueError(f"predictions have shape {P.shape}; expected (configurations, {Y.shape[0]}, {Y.shape[1]})")
    if n_bootstraps < 1:
        raise ValueError("n_bootstraps must be at least 1")
    n = Y.shape[0]
    per_row = np.stack([per_example(Y, P[c]) for c in range(P.shape[0])])  # C x N
    if higher_is_better:
        per_row = -per_row
    rng = np.random.default_rng(seed)
    selected = np.empty(n_bootstraps, dtype=np.int64)
    scores = {m: np.empty(n_bootstraps) for m in scorers}
    for b in range(n_bootstraps):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        c = int(np.argmin(per_row @ counts))  # argmin returns the first of equal losses
        selected[b] = c
        oob = counts == 0
        if not oob.any():  # vanishingly rare for real N; score on all rows rather than on none
            oob[:] = True
        for m, score in scorers.items():
            scores[m][b] = score(Y[oob], P[c][oob])
    return selected, scores
