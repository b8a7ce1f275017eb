"""Global pruning (mlrl-boomer's ``global_pruning``): how many rules of a boosted model to keep.

Both strategies watch a quality — the learner's loss on the holdout set (or on the training
set with ``use_holdout_set=false`` or no holdout) — after rule ``t`` (rules counted with the
default rule):

- :class:`PrePruning` (early stopping): every ``update_interval`` rules the quality joins a
  window of the last ``num_past + num_recent`` values; every ``stop_interval`` rules, once at
  least ``min_rules`` were learned and the window is full, training stops when the aggregated
  recent values improve on the aggregated past ones by less than ``min_improvement`` (relative:
  ``(past - recent) / past``).  Aggregation is ``min``, ``max`` or ``arithmetic-mean``.
- :class:`PostPruning`: all rules are learned; every ``interval`` rules from ``min_rules`` on
  the quality is recorded.

With ``remove_unused_rules`` the model keeps the prefix of the best (lowest) recorded quality,
else every learned rule.  ``selected`` is that number of rules.
"""
from __future__ import annotations

from collections import deque
from typing import Mapping

import numpy as np

_AGGREGATE = {"min": np.min, "max": np.max, "arithmetic-mean": np.mean}


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
                 aggregation="arithmetic-mean", min_improvement=0.005, remove_unused_rules=True, **_):
        super().__init__(remove_unused_rules)
        self.min_rules, self.update_interval, self.stop_interval = min_rules, update_interval, stop_interval
        self.num_past, self.num_recent = num_past, num_recent
        self.aggregate = _AGGREGATE[aggregation]
        self.min_improvement = min_improvement
        self.window: deque[float] = deque(maxlen=num_past + num_recent)

    def update(self, n_rules: int, quality: float) -> bool:
        """Record the quality after ``n_rules`` rules; True means stop training."""
        self.learned = n_rules
        if n_rules % self.update_interval == 0:
            self.window.append(quality)
            self._record(n_rules, quality)
        if n_rules < self.min_rules or n_rules % self.stop_interval != 0 or len(self.window) < self.window.maxlen:
            return False
        values = np.asarray(self.window)
        past = float(self.aggregate(values[:self.num_past]))
        recent = float(self.aggregate(values[self.num_past:]))
        improvement = (past - recent) / past if past != 0.0 else 0.0
        return improvement < self.min_improvement


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
