"""The interface every rule learner of the engine implements.

A learner is a scikit-learn estimator whose ``fit_iter`` is a plain generator yielding one
:class:`RuleRecord` per learned rule; ``fit`` consumes it.  Closing the generator stops
training; the estimator then predicts with the rules learned so far.  Subclasses implement
``_validate_params`` and ``_learn`` (the generator over prepared data) and set
``LEARNER_NAME``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .model import RuleModel
from .rules import Rule, Schema
from .validation import check_features, check_labels, check_nominal

MODEL_FORMAT = "boomer-gui-rule-model"
MODEL_VERSION = 1


@dataclass(frozen=True)
class RuleRecord:
    """One learned rule and the model's losses right after adding it.

    A learning step may add more than one rule (AdaBoost.MH's stumps add both sides); the
    model's rules are the concatenation of every record's :attr:`rules`.

    ``index`` counts rules from 0 (the default rule of boosting learners); ``coverage`` is the
    number of training examples the rule covers; ``improvement`` is how much the rule lowered
    the learner's objective on the sample it was grown on (NaN where undefined).  Validation
    losses are None when no validation data were given."""

    index: int
    rule: Rule
    coverage: int
    improvement: float
    train_hamming: float
    train_subset: float
    val_hamming: float | None = None
    val_subset: float | None = None
    extra: Mapping[str, float] = field(default_factory=dict)
    extra_rules: tuple[Rule, ...] = ()  # further rules learned in the same step (e.g. a stump's other side)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """All rules this step added to the model, in model order."""
        return (self.rule,) + tuple(self.extra_rules)


@dataclass
class TrainingData:
    """Validated inputs handed to a learner's ``_learn``."""

    X: object  # dense float32 C-contiguous or CSC float32
    Y: np.ndarray  # uint8 N x K
    nominal: np.ndarray  # bool D
    schema: Schema
    X_val: object | None = None
    Y_val: np.ndarray | None = None


class RuleLearner(ClassifierMixin, BaseEstimator):
    LEARNER_NAME = "rule-learner"

    # -- to implement -------------------------------------------------------------------
    def _validate_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _make_model(self, rules: list[Rule], data: TrainingData) -> RuleModel:  # pragma: no cover
        raise NotImplementedError

    # -- training -----------------------------------------------------------------------
    def fit_iter(self, X, Y, X_val=None, Y_val=None, *, nominal_attributes=None,
                 schema: Schema | None = None) -> Iterator[RuleRecord]:
        """Validate everything, then yield a :class:`RuleRecord` per rule as it is learned."""
        data = self._prepare(X, Y, X_val, Y_val, nominal_attributes, schema)
        return self._run(data)

    def _prepare(self, X, Y, X_val, Y_val, nominal_attributes, schema) -> TrainingData:
        self._validate_params()
        Xc = check_features(X)
        Yc = check_labels(Y, Xc.shape[0])
        nominal = check_nominal(nominal_attributes, Xc.shape[1])
        Xv = Yv = None
        if (X_val is None) != (Y_val is None):
            raise ValueError("give both X_val and Y_val, or neither")
        if X_val is not None:
            Xv = check_features(X_val, "X_val")
            Yv = check_labels(Y_val, Xv.shape[0], "Y_val")
            if Xv.shape[1] != Xc.shape[1]:
                raise ValueError(f"X_val has {Xv.shape[1]} attributes, X has {Xc.shape[1]}")
            if Yv.shape[1] != Yc.shape[1]:
                raise ValueError(f"Y_val has {Yv.shape[1]} labels, Y has {Yc.shape[1]}")
        schema = schema or Schema()
        if schema.feature_names and len(schema.feature_names) != Xc.shape[1]:
            raise ValueError(f"{len(schema.feature_names)} feature names for {Xc.shape[1]} attributes")
        if schema.label_names and len(schema.label_names) != Yc.shape[1]:
            raise ValueError(f"{len(schema.label_names)} label names for {Yc.shape[1]} labels")
        self.n_features_in_ = Xc.shape[1]
        self.n_labels_ = Yc.shape[1]
        self.schema_ = schema
        return TrainingData(Xc, Yc, nominal, schema, Xv, Yv)

    def _run(self, data: TrainingData) -> Iterator[RuleRecord]:
        rules: list[Rule] = []
        self.records_ = []
        self.model_ = self._make_model(rules, data)
        try:
            for record in self._learn(data):
                rules.extend(record.rules)
                self.records_.append(record)
                yield record
        finally:
            self.model_ = self._make_model(list(rules), data)

    def fit(self, X, Y, **kwargs):
        for _ in self.fit_iter(X, Y, **kwargs):
            pass
        return self

    def fit_dataset(self, dataset, validation=None):
        """Train on an ``engine.datasets.Dataset`` (names and nominal attributes included)."""
        kw = {}
        if validation is not None:
            kw = {"X_val": validation.X, "Y_val": validation.Y}
        return self.fit(dataset.X, dataset.Y, nominal_attributes=dataset.nominal_mask, schema=dataset.schema, **kw)

    # -- prediction ----------------------------------------------------------------------
    def _model(self) -> RuleModel:
        model = getattr(self, "model_", None)
        if model is None:
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit or fit_iter first")
        return model

    @property
    def rules_(self) -> list[Rule]:
        return self._model().rules

    def decision_function(self, X) -> np.ndarray:
        return self._model().scores(check_features(X))

    def predict(self, X) -> np.ndarray:
        return self._model().predict(check_features(X))

    def predict_proba(self, X) -> np.ndarray:
        return self._model().predict_proba(check_features(X))

    # -- persistence ---------------------------------------------------------------------
    def to_model_dict(self) -> dict:
        """The saved form: format, version, learner key, parameters and the rule model."""
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "learner": self.LEARNER_NAME,
                "params": _jsonable(self.get_params()), "model": self._model().to_dict()}

    def save(self, path) -> None:
        """Write the model as JSON (a documented, safe format; never pickled)."""
        Path(path).write_text(json.dumps(self.to_model_dict(), indent=1))

    @classmethod
    def from_model_dict(cls, doc: Mapping) -> "RuleLearner":
        est = cls(**doc.get("params", {}))
        est.model_ = RuleModel.from_dict(doc["model"])
        est.n_features_in_ = est.model_.n_features
        est.n_labels_ = est.model_.n_labels
        est.schema_ = est.model_.schema
        return est


def _jsonable(params: Mapping) -> dict:
    out = {}
    for k, v in params.items():
        if isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out
