"""Grids and budgets of the comparison (SPEC C.2-C.4): ``smoke`` (minutes), ``reduced`` (the notes'
2-core budget) and ``paper`` (the paper text's full grid, opt-in)."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    n_folds: int
    n_bootstraps: int
    shrinkage: tuple[float, ...]  # BOOMER's η
    l2: tuple[float, ...]  # BOOMER's λ
    max_rules: int  # the longest BOOMER model; its prefixes of rule_step, 2 rule_step, ... are configurations
    rule_step: int
    learning_rate: tuple[float, ...]  # XGBoost's
    reg_lambda: tuple[float, ...]  # XGBoost's
    n_trees: int
    cc_orders: int  # random chain orders tried by CC (each one a configuration)
    datasets: tuple[str, ...]  # the default data sets

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Profile":
        """The inverse of :meth:`as_dict` after a JSON round trip (lists back to tuples)."""
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})


TABLE1_DATASETS = ("birds", "emotions", "enron", "llog", "medical", "scene", "slashdot", "yeast")
# the order a run computes them in: cheap first, so that complete rows arrive early
RUN_ORDER = ("emotions", "scene", "yeast", "birds", "medical", "llog", "slashdot", "enron")

PROFILES = {
    "smoke": Profile("smoke", n_folds=3, n_bootstraps=50, shrinkage=(0.3,), l2=(1.0,), max_rules=100, rule_step=50,
                     learning_rate=(0.3,), reg_lambda=(1.0,), n_trees=50, cc_orders=2, datasets=("emotions",)),
    # SPEC C.4: T_max 1000, η {0.1, 0.3} x λ {0, 1, 16}, 5 folds, B 100; XGBoost with the authors' scripts'
    # learning rate 0.1 (C.9) and the same λ subset; CC with 3 random orders instead of 10 (each order costs
    # K XGBoost models per grid point)
    "reduced": Profile("reduced", n_folds=5, n_bootstraps=100, shrinkage=(0.1, 0.3), l2=(0.0, 1.0, 16.0),
                       max_rules=1000, rule_step=50, learning_rate=(0.1,), reg_lambda=(0.0, 1.0, 16.0),
                       n_trees=100, cc_orders=3, datasets=RUN_ORDER),
    # the paper text (SPEC C.2/C.3): 3 x 6 grids, T up to 10,000 in steps of 50, 10 folds, 10 chain orders
    "paper": Profile("paper", n_folds=10, n_bootstraps=100, shrinkage=(0.1, 0.3, 0.5),
                     l2=(0.0, 0.25, 1.0, 4.0, 16.0, 64.0), max_rules=10000, rule_step=50,
                     learning_rate=(0.1, 0.3, 0.5), reg_lambda=(0.0, 0.25, 1.0, 4.0, 16.0, 64.0), n_trees=100,
                     cc_orders=10, datasets=RUN_ORDER),
    # the authors' released scripts (SPEC C.2/C.3/C.9): shrinkage 0.1 only, XGBoost learning rate 0.1 only, 20 orders
    "authors": Profile("authors", n_folds=10, n_bootstraps=100, shrinkage=(0.1,), l2=(0.0, 0.25, 1.0, 4.0, 16.0, 64.0),
                       max_rules=10000, rule_step=50, learning_rate=(0.1,), reg_lambda=(0.0, 0.25, 1.0, 4.0, 16.0, 64.0),
                       n_trees=100, cc_orders=20, datasets=RUN_ORDER),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)}") from None
