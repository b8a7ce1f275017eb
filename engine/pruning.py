"""Global pruning (mlrl-boomer's ``global_pruning``): how many rules of a boosted model to keep.

Both strategies watch a quality — the learner's loss on the holdout set (or on the training
set with ``use_holdout_set=false`` or no holdout) — after rule ``t`` (rules counted with the
default rule):

- :class:`PrePruning` (early stopping, mlrl-boomer 0.15.6's meaning): the quality is read after
  every ``update_interval``-th rule from rule ``min_rules - (num_past + num_recent) x update_interval``
  on; it enters a window of the ``num_recent`` latest values, and values leaving it enter one of the
  ``num_past`` before them.  Once both are full, every ``stop_interval``-th reading (before it enters
  the window) compares the aggregated windows (``min``, ``max`` or ``avg``): when the improvement
  ``(past - recent) / recent`` is below ``min_improvement``, the model keeps the prefix of the best
  quality read while the windows were full, and training stops (with ``remove_unused_rules``) or goes
  on (without; the later rules are then unused).
- :class:`PostPruning`: all rules are learned; every ``interval`` rules from ``min_rules`` on
  the quality is recorded.

Post-pruning with ``remove_unused_rules`` keeps the prefix of the best (lowest) recorded quality,
else every learned rule.  ``selected`` is the number of rules the model keeps.
"""
from __future__ import annotations

from collections import deque
from typing import Mapping

import numpy as np

_AGGREGATE = {"min": np.min, "max": np.max, "avg": np.mean}


class _BestPrefix:
    def __init__(self, remove_unused_rules: bool):
        self.remove_unused_rules = remove_unused_rules
        self.best_rules = None
        self.best_quality = np.inf
        self.learned = 0

    def _record(self, n_rules: int, quality: float) -> None:
        if quality < self.best_quality:
            self.best_quality, self.best_rules = quality, n_rules

    @property
    def selected(self) -> int:
        """How many rules (default rule included) the model keeps."""
        if self.remove_unused_rules and self.best_rules is not None:
            return self.best_rules
        return self.learned


class PrePruning(_BestPrefix):
    def __init__(self, min_rules=100, update_interval=1, stop_interval=1, num_past=50, num_recent=50,
                 aggregation="avg", min_improvement=0.005, remove_unused_rules=True, **_):
        super().__init__(remove_unused_rules)
        self.update_interval, self.stop_interval = update_interval, stop_interval
        self.aggregate = _AGGREGATE[aggregation]
        self.min_improvement = min_improvement
        self.offset = max(0, min_rules - (num_past + num_recent) * update_interval)
        self.past: deque[float] = deque(maxlen=num_past)
        self.recent: deque[float] = deque(maxlen=num_recent)
        self.stopped = False
        self.used = None  # the best prefix once the criterion fired

    def update(self, n_rules: int, quality: float) -> bool:
        """Record the quality after ``n_rules`` rules; True means stop training."""
        self.learned = n_rules
        if self.stopped or n_rules <= self.offset or n_rules % self.update_interval:
            return False
        stop = False
        if len(self.past) == self.past.maxlen:
            self._record(n_rules, quality)
            if n_rules % self.stop_interval == 0:
                past = float(self.aggregate(np.asarray(self.past)))
                recent = float(self.aggregate(np.asarray(self.recent)))
                improvement = (past - recent) / recent if recent != 0.0 else 0.0
                if improvement < self.min_improvement:
                    self.stopped, self.used = True, self.best_rules
                    stop = self.remove_unused_rules
        if len(self.recent) == self.recent.maxlen:
            self.past.append(self.recent[0])
        self.recent.append(quality)
        return stop

    @property
    def selected(self) -> int:
        """Every learned rule unless the criterion fired; then the best prefix."""
        return self.used if self.used is not None else self.learned


class PostPruning(_BestPrefix):
    def __init__(self, interval=1, min_rules=100, remove_unused_rules=True, **_):
        super().__init__(remove_unused_rules)
        self.interval, self.min_rules = interval, min_rules

    def update(self, n_rules: int, quality: float) -> bool:
        self.learned = n_rules
        if n_rules >= self.min_rules and n_rules % self.interval == 0:
            self._record(n_rules, quality)
        return False


def make_pruning(name: str, options: Mapping):
    if name == "pre-pruning":
        return PrePruning(**options)
    if name == "post-pruning":
        return PostPruning(**options)
    return None
