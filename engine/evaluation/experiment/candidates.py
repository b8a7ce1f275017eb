"""The learners an experiment can name: every key of :mod:`engine.registry` (with its presets) and
Table 1's XGBoost baselines ``xgboost-br``, ``xgboost-lp``, ``xgboost-cc``.

A :class:`Candidate` makes a checked estimator from parameters and says what it produces: label
sets always, real-valued label scores (``scores``) or not, and whether ``fit_iter`` streams steps."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ...learner import RuleLearner
from ...parameters import Parameter
from ..baselines import BinaryRelevance, ClassifierChain, LabelPowerset


@dataclass(frozen=True)
class Candidate:
    key: str
    title: str
    parameters: tuple[Parameter, ...]
    factory: Callable[..., Any]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    scores: bool = True  # decision_function or predict_proba: the ranking measures apply
    streams: bool = True  # fit_iter yields steps: a loss-against-size curve
    noun: str = "rule"  # what the x axis of its loss curve counts: rules (rule learners) or steps

    def names(self) -> set[str]:
        return {p.name for p in self.parameters}

    def make(self, params: Mapping[str, Any]):
        """A new estimator with ``params`` over the defaults; ValueError naming a bad parameter."""
        unknown = sorted(set(params) - self.names())
        if unknown:
            raise ValueError(f"unknown parameter(s) of {self.key}: {', '.join(unknown)}; known: "
                             f"{', '.join(sorted(self.names()))}")
        for p in self.parameters:
            if p.name in params:
                p.check(params[p.name])
        est = self.factory(**params)
        check = getattr(est, "_check_params", None)
        if check is not None:
            check()
        return est


_XGB = (Parameter("learning_rate", "float", 0.1, "Learning rate", "XGBoost's η", minimum=0.0, maximum=1.0,
                  low_open=True),
        Parameter("reg_lambda", "float", 1.0, "L2 weight λ", "", minimum=0.0),
        Parameter("n_estimators", "int", 100, "Trees", "per model", minimum=1, maximum=100_000),
        Parameter("max_depth", "int", 6, "Depth", "of each tree", minimum=1, maximum=64),
        Parameter("random_state", "seed", 1, "Seed", "subsampling"))
BASELINES = {
    "xgboost-br": Candidate("xgboost-br", "XGBoost binary relevance", _XGB, BinaryRelevance, streams=False, noun="model"),
    "xgboost-lp": Candidate("xgboost-lp", "XGBoost label powerset", _XGB, LabelPowerset, scores=False, streams=False,
                            noun="model"),
    "xgboost-cc": Candidate("xgboost-cc", "XGBoost classifier chain",
                            _XGB + (Parameter("order_seed", "seed", 1, "Order seed", "the random chain order"),),
                            ClassifierChain, scores=False, streams=False, noun="model"),
}


def candidates() -> dict[str, Candidate]:
    """Every learner an experiment can name, by key (the registry's first, then the baselines)."""
    from ... import registry

    out = {}
    for spec in registry.learners():
        has_scores = hasattr(spec.factory, "decision_function") or hasattr(spec.factory, "predict_proba")
        rules = isinstance(spec.factory, type) and issubclass(spec.factory, RuleLearner)  # steps add rules
        out[spec.key] = Candidate(spec.key, spec.title, tuple(spec.parameters), spec.make, dict(spec.presets),
                                  has_scores, hasattr(spec.factory, "fit_iter"), "rule" if rules else spec.component.noun)
    return {**out, **BASELINES}


def candidate(key: str) -> Candidate:
    found = candidates()
    if key not in found:
        raise ValueError(f"unknown learner {key!r}; known: {', '.join(found)}")
    return found[key]


def preset_owners(preset: str) -> list[str]:
    """The keys of the learners that have a preset of this name."""
    return [c.key for c in candidates().values() if preset in c.presets]
