"""Grids and budgets of the comparison (SPEC C.2-C.4): ``smoke`` (minutes), ``reduced`` (the notes'
2-core budget), ``paper`` (the paper text's full grid, opt-in) and ``authors``, read from the
experiment files shipped in ``experiments/table1_<profile>.toml``."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path


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

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
_BOOMER_METHODS = {"Label-wise, single-label heads": "boomer-lw-single", "Label-wise, multi-label heads":
                   "boomer-lw-complete", "Example-wise, single-label heads": "boomer-exw-single",
                   "Example-wise, multi-label heads": "boomer-exw-complete"}


def method_of(entry) -> str:
    """The Table 1 method a learner of an experiment file is: BOOMER's by its preset, XGBoost's by key."""
    return _BOOMER_METHODS.get(entry.preset, entry.key) if entry.key == "boomer" else entry.key.removeprefix("xgboost-")


PROFILE_MAX_TASKS = 1_000_000  # a profile's fold x configuration fits (the paper's: 23,040)


def profile_of_experiment(path) -> Profile:
    """The Table 1 profile an experiment file describes: the seven methods (BOOMER's four presets,
    xgboost-br, -lp, -cc) sharing one grid per family, selected by BBC-CV; ValueError otherwise."""
    from ..experiment.file import load_experiment

    exp = load_experiment(path, resolve_data=False, max_tasks=PROFILE_MAX_TASKS)
    where = f"{path}: not a Table 1 profile:"
    if exp.protocol.selection != "bbc-cv" or exp.protocol.kind != "cross-validation":
        raise ValueError(f"{where} it needs [protocol] selection = \"bbc-cv\" and cross-validation")
    found = {method_of(e): e for e in exp.learners}
    if sorted(found) != sorted([*_BOOMER_METHODS.values(), "br", "lp", "cc"]) or len(exp.learners) != 7:
        raise ValueError(f"{where} it needs BOOMER's four paper presets and xgboost-br, -lp, -cc, once each")
    boomer = [found[m] for m in _BOOMER_METHODS.values()]
    xgb = [found[m] for m in ("br", "lp", "cc")]
    for group, names in ((boomer, ("shrinkage", "l2_regularization_weight")), (xgb, ("learning_rate", "reg_lambda"))):
        if any({n: e.grid.get(n) for n in names} != {n: group[0].grid.get(n) for n in names} for e in group):
            raise ValueError(f"{where} {', '.join(e.name for e in group)} must share one grid of {', '.join(names)}")
    b, br = boomer[0], xgb[0]
    return Profile(Path(path).stem.removeprefix("table1_"), exp.protocol.folds, exp.protocol.bootstraps,
                   tuple(b.grid["shrinkage"]), tuple(b.grid["l2_regularization_weight"]), b.params["max_rules"],
                   b.prefix_step or b.params["max_rules"], tuple(br.grid["learning_rate"]),
                   tuple(br.grid["reg_lambda"]), br.params.get("n_estimators", 100),
                   len(found["cc"].grid.get("order_seed", [1])), tuple(exp.data))


# smoke (minutes), reduced (the 2-core budget), paper (the paper text's grid), authors (the released scripts')
PROFILES = {p.name: p for p in (profile_of_experiment(EXPERIMENTS / f"table1_{name}.toml")
                                for name in ("smoke", "reduced", "paper", "authors"))}


def profile(name: str) -> Profile:
    """A shipped profile by name, or the profile of a Table 1 experiment file (``*.toml``)."""
    if name.endswith(".toml"):
        return profile_of_experiment(name)
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)} or a .toml file") from None
