"""When training ends (:data:`STOP_REASONS`): the rule budget, the time limit, global pre-pruning,
cancelling, or a rule search that finds no condition.  :class:`StopCriteria` writes the reason and its
explanation to the estimator's ``stop_reason_`` and ``stop_message_``."""
from __future__ import annotations

import time

STOP_REASONS = ("max_rules", "no_refinement", "pre_pruning", "cancelled", "constant_attributes", "time_limit")


class StopCriteria:
    """Whether another rule is learned, for estimator ``est`` (whose ``records_`` count the rules so far)
    under ``max_rules`` (0: no limit, the default rule counted) and ``time_limit`` (seconds, 0: none)."""

    def __init__(self, est, max_rules: int, time_limit: int, default_rule: bool):
        self.est, self.max_rules, self.time_limit = est, max_rules, time_limit
        self.budget = max_rules - default_rule  # max_rules counts the default rule
        self.learned = 0
        self.started = time.monotonic()
        est.stop_reason_, est.stop_message_ = "max_rules", ""

    def start_clock(self) -> None:
        """time_limit: mlrl-boomer starts the clock after the default rule."""
        self.started = time.monotonic()

    def another_rule(self, pre_pruned: bool) -> bool:
        """Whether a further rule is started (``pre_pruned``: global pre-pruning asked to stop after the last)."""
        if not (self.max_rules == 0 or self.learned < self.budget):
            return False
        self.learned += 1
        n = len(self.est.records_)
        if self.time_limit and time.monotonic() - self.started >= self.time_limit:
            return self._stop("time_limit", f"the time limit of {self.time_limit} s stopped training after {n} rules")
        if pre_pruned:
            return self._stop("pre_pruning", f"global pre-pruning stopped training after {n} rules: the watched "
                                             "loss no longer improved enough")
        return True

    def cancelled(self) -> None:
        self._stop("cancelled", "training was cancelled")

    def no_refinement(self, objective: str, constant: bool = False) -> None:
        """No condition on the sampled attributes improves the ``objective`` (every attribute ``constant``)."""
        self._stop("constant_attributes" if constant else "no_refinement",
                   f"training ended after {len(self.est.records_)} of {self.max_rules or 'unlimited'} rules: no "
                   f"condition on the sampled attributes improves the objective {objective}")

    def _stop(self, reason: str, message: str) -> bool:
        self.est.stop_reason_, self.est.stop_message_ = reason, message
        return False
