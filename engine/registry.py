"""The learner registry: what a user interface needs to offer a learner without knowing it.

Each :class:`LearnerSpec` names an estimator class, describes its parameters (kind, range,
choices, help) and one-click presets.  A GUI builds its learner panel from these specs, so
adding a learner is one ``register`` call."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .boomer import FEATURE_SAMPLING, HEAD_TYPES, INSTANCE_SAMPLING, BoomerClassifier
from .core.losses import LOSSES


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # 'choice' | 'int' | 'float' | 'seed'
    default: Any
    label: str = ""
    help: str = ""
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False  # None is allowed (shown as "no limit")

    def __post_init__(self):
        if self.kind not in ("choice", "int", "float", "seed"):
            raise ValueError(f"unknown parameter kind {self.kind!r}")


@dataclass(frozen=True)
class LearnerSpec:
    key: str
    title: str
    factory: Callable[..., Any]
    parameters: tuple[Parameter, ...]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def make(self, **params):
        unknown = set(params) - {p.name for p in self.parameters}
        if unknown:
            raise ValueError(f"unknown parameter(s) for {self.title}: {', '.join(sorted(unknown))}")
        return self.factory(**{**self.defaults(), **params})


_REGISTRY: dict[str, LearnerSpec] = {}


def register(spec: LearnerSpec) -> None:
    _REGISTRY[spec.key] = spec


def learners() -> list[LearnerSpec]:
    return list(_REGISTRY.values())


def get(key: str) -> LearnerSpec:
    try:
        return _REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown learner {key!r}; known: {', '.join(_REGISTRY)}") from None


def spec_for(estimator) -> LearnerSpec:
    for spec in _REGISTRY.values():
        if type(estimator) is spec.factory:
            return spec
    raise ValueError(f"{type(estimator).__name__} is not a registered learner")


register(LearnerSpec(
    key="boomer",
    title="BOOMER (gradient-boosted rules)",
    factory=BoomerClassifier,
    description="Rapp et al., ECML-PKDD 2020: gradient boosting of multi-label rules with a second-order objective.",
    parameters=(
        Parameter("loss", "choice", "logistic-decomposable", "Loss", "label-wise (decomposable) or example-wise",
                  choices=LOSSES),
        Parameter("head_type", "choice", "auto", "Head", "single label, all labels, or auto (single for "
                  "decomposable losses, complete otherwise)", choices=HEAD_TYPES),
        Parameter("max_rules", "int", 1000, "Rules", "number of rules including the default rule", minimum=1,
                  maximum=100000),
        Parameter("shrinkage", "float", 0.3, "Shrinkage η", "learning rate", minimum=0.001, maximum=1.0),
        Parameter("l2_regularization_weight", "float", 1.0, "L2 weight λ", "eq. 15", minimum=0.0, maximum=1000.0),
        Parameter("l1_regularization_weight", "float", 0.0, "L1 weight", "", minimum=0.0, maximum=1000.0),
        Parameter("instance_sampling", "choice", "with-replacement", "Instance sampling", "bagging per rule",
                  choices=INSTANCE_SAMPLING),
        Parameter("feature_sampling", "choice", "without-replacement", "Feature sampling",
                  "log2 attributes per refinement step", choices=FEATURE_SAMPLING),
        Parameter("max_conditions", "int", None, "Max conditions", "empty = no limit", minimum=1, maximum=256,
                  optional=True),
        Parameter("min_coverage", "int", 1, "Min coverage", "examples a condition must cover", minimum=1,
                  maximum=100000),
        Parameter("random_state", "seed", 1, "Seed", "same seed, same rules", minimum=0, maximum=2**31 - 1),
    ),
    presets={
        "Label-wise, single-label heads": {"loss": "logistic-decomposable", "head_type": "single"},
        "Label-wise, multi-label heads": {"loss": "logistic-decomposable", "head_type": "complete"},
        "Example-wise, single-label heads": {"loss": "logistic-non-decomposable", "head_type": "single"},
        "Example-wise, multi-label heads": {"loss": "logistic-non-decomposable", "head_type": "complete"},
    },
))


# -- AdaBoost.MH and separate-and-conquer rules (engine/adaboost.py, engine/seco.py) -------------
from .adaboost import FEATURE_SAMPLING as _ADA_FEATURE_SAMPLING  # noqa: E402
from .adaboost import WEAK_LEARNERS, AdaBoostMHClassifier  # noqa: E402
from .seco import HEAD_SEARCH, HEURISTICS, SeCoClassifier  # noqa: E402

register(LearnerSpec(
    key="adaboost-mh",
    title="AdaBoost.MH (boosted stumps or rules)",
    factory=AdaBoostMHClassifier,
    description="Schapire & Singer 1999: boosting with a distribution over (example, label) pairs; "
                "weak hypotheses vote ±1 per label with one confidence per round.",
    parameters=(
        Parameter("weak_learner", "choice", "stump", "Weak learner", "decision stumps (both sides vote) or "
                  "greedy rules (abstain outside the body)", choices=WEAK_LEARNERS),
        Parameter("max_rules", "int", 200, "Rounds", "boosting rounds (a stump adds two rules per round)",
                  minimum=1, maximum=100000),
        Parameter("max_conditions", "int", None, "Max conditions", "rule weak learner; empty = no limit",
                  minimum=1, maximum=256, optional=True),
        Parameter("feature_sampling", "choice", "none", "Feature sampling", "log2 attributes per search step",
                  choices=_ADA_FEATURE_SAMPLING),
        Parameter("random_state", "seed", 1, "Seed", "used by feature sampling", minimum=0, maximum=2**31 - 1),
    ),
    presets={
        "Stumps": {"weak_learner": "stump"},
        "Rules": {"weak_learner": "rule", "max_conditions": None},
        "Short rules (≤ 3 conditions)": {"weak_learner": "rule", "max_conditions": 3},
    },
))

register(LearnerSpec(
    key="seco",
    title="SeCo (separate-and-conquer, multi-label heads)",
    factory=SeCoClassifier,
    description="Rapp, Loza Mencía & Fürnkranz, PAKDD 2018: a decision list of rules with multi-label heads, "
                "heads found by pruning with anti-monotonicity or decomposability of the heuristic.",
    parameters=(
        Parameter("heuristic", "choice", "subset-accuracy", "Heuristic", "rule quality on micro-averaged "
                  "confusion matrices (subset accuracy: example-based)", choices=HEURISTICS),
        Parameter("beta", "float", 1.0, "F-measure β", "weight of recall in the F-measure", minimum=0.01,
                  maximum=100.0),
        Parameter("head_search", "choice", "pruned", "Head search", "pruned (anti-monotonicity) or exhaustive "
                  "over all label combinations", choices=HEAD_SEARCH),
        Parameter("max_rules", "int", 100, "Rules", "rules before the default rule", minimum=0, maximum=100000),
        Parameter("max_conditions", "int", None, "Max conditions", "empty = no limit", minimum=1, maximum=256,
                  optional=True),
        Parameter("min_coverage", "int", 1, "Min coverage", "training examples a rule must cover", minimum=1,
                  maximum=100000),
        Parameter("label_coverage_threshold", "float", 1.0, "Label coverage", "fraction of an example's labels "
                  "that must be predicted before it leaves the training set", minimum=0.01, maximum=1.0),
        Parameter("max_uncovered", "float", 0.0, "Max uncovered", "stop when at most this fraction of the "
                  "training examples remains", minimum=0.0, maximum=0.99),
    ),
    presets={
        # min_coverage 10 keeps rules general; pure rules covering a handful of examples overfit
        "Subset accuracy (pruned)": {"heuristic": "subset-accuracy", "head_search": "pruned", "min_coverage": 10},
        "F-measure": {"heuristic": "f-measure", "beta": 1.0, "min_coverage": 10},
        "Hamming accuracy": {"heuristic": "hamming-accuracy", "min_coverage": 10},
        "Precision": {"heuristic": "precision", "min_coverage": 10},
    },
))
