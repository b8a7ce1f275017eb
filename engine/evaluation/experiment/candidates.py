"""The learners an experiment can name: every key of :mod:`engine.registry` (with its presets),
Table 1's XGBoost baselines ``xgboost-br``, ``xgboost-lp``, ``xgboost-cc``, the regression baselines
``mean-regressor``, ``decision-tree-regressor``, ``ridge-regressor`` and BOOMER's multi-output
regressor ``boomer-regressor``: the registry's entry of that key when there is one, else
``engine.boomer.BoomerRegressor`` (the class ``engine.api`` exports) when the engine has it; without
either the key is known but "not available" (:func:`unavailable`).

A :class:`Candidate` makes a checked estimator from parameters and says what it produces: label
sets (classification) or real target values (``task`` regression), real-valued label scores
(``scores``) or not, and whether ``fit_iter`` streams steps.  A registry entry is a regressor when
its class is a scikit-learn ``RegressorMixin``."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from sklearn.base import RegressorMixin

from ...learner import RuleLearner
from ...parameters import Parameter, declared
from ..baselines import BinaryRelevance, ClassifierChain, LabelPowerset
from ..regression_baselines import MeanRegressor, decision_tree, ridge
from .scoring import CLASSIFICATION, REGRESSION

REGRESSOR_KEY = "boomer-regressor"


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
    task: str = CLASSIFICATION  # or REGRESSION: it predicts real target values

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
REGRESSION_BASELINES = {
    "mean-regressor": Candidate("mean-regressor", "Mean of the training targets", (), MeanRegressor, scores=False,
                                streams=False, noun="model", task=REGRESSION),
    "decision-tree-regressor": Candidate(
        "decision-tree-regressor", "Regression tree (scikit-learn's DecisionTreeRegressor)",
        (Parameter("max_depth", "int", None, "Depth", "None: unlimited", minimum=1, maximum=1000, optional=True),
         Parameter("min_samples_leaf", "int", 5, "Leaf size", "examples per leaf at least", minimum=1),
         Parameter("random_state", "seed", 1, "Seed", "ties between splits")),
        decision_tree, scores=False, streams=False, noun="tree", task=REGRESSION),
    "ridge-regressor": Candidate("ridge-regressor", "Ridge regression (scikit-learn's Ridge)",
                                 (Parameter("alpha", "float", 1.0, "L2 weight α", "", minimum=0.0),), ridge,
                                 scores=False, streams=False, noun="model", task=REGRESSION),
}


def _task(factory) -> str:
    return REGRESSION if isinstance(factory, type) and issubclass(factory, RegressorMixin) else CLASSIFICATION


def _boomer_regressor_class():
    """``engine.boomer.BoomerRegressor`` (exported by ``engine.api``), or None before the engine has it."""
    from ... import boomer

    return getattr(boomer, "BoomerRegressor", None)


def _class_candidate(key: str, cls) -> Candidate:
    """A candidate straight from an estimator class: its declared parameters (``PARAMETERS``), else its
    ``__init__``'s arguments with their defaults (any value, the estimator checks it)."""
    if getattr(cls, "PARAMETERS", None):
        parameters = tuple(declared(cls))
    else:
        parameters = tuple(Parameter(p.name, "object", p.default) for p in inspect.signature(cls).parameters.values()
                           if p.name != "self" and p.kind == p.POSITIONAL_OR_KEYWORD)
    return Candidate(key, getattr(cls, "__name__", key), parameters, cls,
                     scores=hasattr(cls, "decision_function") or hasattr(cls, "predict_proba"),
                     streams=hasattr(cls, "fit_iter"), noun="rule" if issubclass(cls, RuleLearner) else "step",
                     task=_task(cls))


def unavailable(key: str) -> str | None:
    """Why a known learner cannot be used in this build (None: it can, or the key is unknown)."""
    if key == REGRESSOR_KEY and key not in candidates():
        return (f"learner {key!r} is not available yet: this build of the engine has no BoomerRegressor "
                "(engine.boomer / engine.api); use mean-regressor, decision-tree-regressor or ridge-regressor")
    return None


def candidates() -> dict[str, Candidate]:
    """Every learner an experiment can name, by key (the registry's first, then the baselines)."""
    from ... import registry

    out = {}
    for spec in registry.learners():
        has_scores = hasattr(spec.factory, "decision_function") or hasattr(spec.factory, "predict_proba")
        rules = isinstance(spec.factory, type) and issubclass(spec.factory, RuleLearner)  # steps add rules
        out[spec.key] = Candidate(spec.key, spec.title, tuple(spec.parameters), spec.make, dict(spec.presets),
                                  has_scores, hasattr(spec.factory, "fit_iter"), "rule" if rules else spec.component.noun,
                                  _task(spec.factory))
    regressor = _boomer_regressor_class()
    if REGRESSOR_KEY not in out and regressor is not None:
        out[REGRESSOR_KEY] = _class_candidate(REGRESSOR_KEY, regressor)
    return {**out, **BASELINES, **REGRESSION_BASELINES}


def candidate(key: str) -> Candidate:
    found = candidates()
    if key not in found:
        raise ValueError(unavailable(key) or f"unknown learner {key!r}; known: {', '.join(found)}")
    return found[key]


def preset_owners(preset: str) -> list[str]:
    """The keys of the learners that have a preset of this name."""
    return [c.key for c in candidates().values() if preset in c.presets]
