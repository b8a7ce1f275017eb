"""The seven methods of Table 1: their names, the paper's column headings, the measure BBC-CV selects
each by (SPEC C.2/C.3), and their configuration grids as the earlier Table 1 runner split them into
**groups** (one task each: BOOMER one per (η, λ), whose configurations are the prefixes of T = step,
2·step, … rules; BR and LP one per (learning rate, λ); CC one per (learning rate, λ, chain order)),
which reading its stores needs.  Runs go through the experimenter (:mod:`.table1`)."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from .profiles import Profile


@dataclass(frozen=True)
class Method:
    name: str
    title: str  # the paper's column heading
    target: str  # the measure BBC-CV selects configurations by (SPEC C.2/C.3)
    family: str  # 'boomer', 'br', 'lp', 'cc'
    loss: str | None = None
    head_type: str | None = None

    def groups(self, p: Profile) -> list[dict]:
        if self.family == "boomer":
            return [{"shrinkage": e, "l2": l} for e, l in product(p.shrinkage, p.l2)]
        grid = [{"learning_rate": e, "reg_lambda": l} for e, l in product(p.learning_rate, p.reg_lambda)]
        if self.family == "cc":
            return [dict(g, order_seed=s) for g in grid for s in range(1, p.cc_orders + 1)]
        return grid

    def configurations(self, group: dict, p: Profile) -> list[str]:
        """Names of the group's configurations, in the order of a stored task's predictions."""
        base = ",".join(f"{k}={v}" for k, v in group.items())
        if self.family == "boomer":
            return [f"{base},rules={t}" for t in prefixes(p)]
        return [base]


def prefixes(p: Profile) -> list[int]:
    return list(range(p.rule_step, p.max_rules + 1, p.rule_step))


METHODS = {m.name: m for m in (
    Method("boomer-lw-single", "l.w.-log. single", "hamming", "boomer", "logistic-decomposable", "single"),
    Method("boomer-lw-complete", "l.w.-log. multi", "hamming", "boomer", "logistic-decomposable", "complete"),
    Method("boomer-exw-single", "ex.w.-log. single", "subset_01", "boomer", "logistic-non-decomposable", "single"),
    Method("boomer-exw-complete", "ex.w.-log. multi", "subset_01", "boomer", "logistic-non-decomposable",
           "complete"),
    Method("br", "BR", "hamming", "br"),
    Method("lp", "LP", "subset_01", "lp"),
    Method("cc", "CC", "subset_01", "cc"),
)}


def method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; expected one of {', '.join(METHODS)}") from None
