"""The interface every rule learner of the engine implements.

A learner is a scikit-learn estimator whose ``fit_iter`` is a plain generator yielding one
:class:`RuleRecord` per learned rule; ``fit`` consumes it.  Closing the generator stops
training; the estimator then predicts with the rules learned so far.  Subclasses declare their
``PARAMETERS`` (:mod:`engine.parameters`; checked by :meth:`RuleLearner._check_params`, with
``_check_combination`` for rules that tie several together), implement ``_learn`` (the generator
over prepared data) and set ``LEARNER_NAME``.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if

from .binary_attributes import as_equalities, binary_values
from .fileio import atomic_write_text
from .model import RuleModel
from .ordinal import binary_ordinal, ordinal_conditions, ordinal_view
from .parameters import DeclaredParameters
from .rules import OPERATORS, Condition, Rule, Schema
from .targets import MultiLabelTargets
from .validation import check_nominal, check_sample_weight

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
    losses are None when no test data were given."""

    index: int
    rule: Rule
    coverage: int
    improvement: float
    train_hamming: float
    train_subset: float
    test_hamming: float | None = None
    test_subset: float | None = None
    extra: Mapping[str, float] = field(default_factory=dict)
    extra_rules: tuple[Rule, ...] = ()  # further rules learned in the same step (e.g. a stump's other side)
    extra_coverage: tuple[int, ...] = ()  # the training examples each of ``extra_rules`` covers

    kind = "rule"  # the step interface (engine.steps): what a step adds

    @property
    def rules(self) -> tuple[Rule, ...]:
        """All rules this step added to the model, in model order."""
        return (self.rule,) + tuple(self.extra_rules)

    @property
    def component(self) -> tuple[Rule, ...]:
        """The step interface's component: the rules this step added."""
        return self.rules

    @property
    def metrics(self) -> dict[str, float]:
        """The step interface's metrics: the losses (test ones when given) and ``extra``."""
        out = {"train_hamming": self.train_hamming, "train_subset": self.train_subset}
        if self.test_hamming is not None:
            out["test_hamming"] = self.test_hamming
        if self.test_subset is not None:
            out["test_subset"] = self.test_subset
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class RuleRevision:
    """A step that replaces an earlier rule of the model (post-optimization relearns rules in the
    context of the others): ``revises`` is the model index of the replaced rule (the index of the
    step that added it), ``old_rule`` what it was, ``rule`` what it is now; ``iteration`` counts the
    passes over the model from 1.  The other fields are :class:`RuleRecord`'s, of the new rule and
    the model's losses right after the revision."""

    index: int
    revises: int
    old_rule: Rule
    rule: Rule
    iteration: int
    coverage: int
    improvement: float
    train_hamming: float
    train_subset: float
    test_hamming: float | None = None
    test_subset: float | None = None
    extra: Mapping[str, float] = field(default_factory=dict)

    kind = "revision"  # the step interface (engine.steps): a step that changes an earlier component
    rules = ()  # it adds no rule to the model

    @property
    def component(self) -> tuple[Rule, ...]:
        """The step interface's component: the rule that replaced the revised one."""
        return (self.rule,)

    @property
    def metrics(self) -> dict[str, float]:
        return RuleRecord.metrics.fget(self)


def learned_rules(steps) -> list[Rule]:
    """The model's rules after ``steps`` (rule records and revisions, in the order they were yielded)."""
    rules: list[Rule] = []
    for step in steps:
        if getattr(step, "kind", "rule") == "revision":
            rules[step.revises] = step.rule
        else:
            rules.extend(step.rules)
    return rules


@dataclass
class TrainingData:
    """Validated inputs handed to a learner's ``_learn``."""

    X: object  # dense float32 C-contiguous or CSC float32
    Y: np.ndarray  # uint8 N x K
    nominal: np.ndarray  # bool D
    schema: Schema
    X_test: object | None = None
    Y_test: np.ndarray | None = None
    # fit's sample_weight (checked: N finite weights >= 0, float32 values), None when not given
    sample_weight: np.ndarray | None = None
    # fit's ordinal_feature_indices as a mask (their values in X, X_test cut to integers), None: none
    ordinal: np.ndarray | None = None
    # the nominal attributes with two values (engine.binary_attributes): attribute -> its two values
    binary: dict = field(default_factory=dict)
    # mlrl-boomer's feature binning, set by the fit that bins: the model's thresholds of the kernels' bin
    # numbers (engine.core.binning.BinThresholds), None: no binning
    binned: object | None = None
    # Set to 1 (from another thread) to cancel: kernels check it between attributes and within
    # sweeps and return early; ``_learn`` then ends without yielding the unfinished rule.
    cancel: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.uint8))

    @property
    def cancelled(self) -> bool:
        return bool(self.cancel[0])

    def learned_conditions(self, attrs: np.ndarray, ops: np.ndarray, thrs: np.ndarray, n_cond: int, X) -> tuple:
        """The body a kernel wrote (attributes, operator codes, thresholds), as the model keeps it:
        ordinal thresholds moved onto values of ``X`` (the rows the rule was learned on,
        :func:`engine.ordinal.ordinal_conditions`), binned attributes' the bins' (``binned``) and binary
        attributes' ``!= a`` written ``== b``
        (:func:`engine.binary_attributes.as_equalities`)."""
        conditions = tuple(Condition(a, OPERATORS[o], v) for a, o, v in
                           zip(attrs[:n_cond].tolist(), ops[:n_cond].tolist(), thrs[:n_cond].tolist()))
        if self.ordinal is not None:
            conditions = ordinal_conditions(conditions, X, self.ordinal)
        if self.binned is not None:
            conditions = self.binned.conditions(conditions)
        return as_equalities(conditions, self.binary)


def _has_probabilities(est) -> bool:
    return bool(est.PROBABILITIES)


class RuleLearner(MultiLabelTargets, DeclaredParameters, ClassifierMixin, BaseEstimator):
    LEARNER_NAME = "rule-learner"
    # whether the model's scores have probabilities (``predict_proba`` exists only then, scikit-learn style)
    PROBABILITIES = True
    # whether ``_learn`` uses ``TrainingData.sample_weight``; the others refuse a sample_weight
    SAMPLE_WEIGHTS = False
    ORDINAL_ATTRIBUTES = False  # whether ``_learn`` gives ordinal attributes their conditions (engine.ordinal)

    # -- to implement -------------------------------------------------------------------
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _make_model(self, rules: list[Rule], data: TrainingData) -> RuleModel:  # pragma: no cover
        raise NotImplementedError

    # -- training -----------------------------------------------------------------------
    def fit_iter(self, X, Y, X_test=None, Y_test=None, *, nominal_attributes=None,
                 schema: Schema | None = None, cancel: threading.Event | None = None, sample_weight=None,
                 nominal_feature_indices=None, ordinal_feature_indices=None) -> Iterator[RuleRecord]:
        """Validate everything, then yield a :class:`RuleRecord` per rule as it is learned.

        Setting ``cancel`` (from any thread) stops training within a fraction of a second, even
        in the middle of a rule: the unfinished rule is dropped, the generator ends normally and
        the estimator keeps the rules learned so far (as closing the generator does).
        ``sample_weight``: one weight >= 0 per training example (learners with ``SAMPLE_WEIGHTS``;
        what it changes is the learner's).  ``nominal_feature_indices`` is mlrl-boomer's name of
        ``nominal_attributes`` (give one or the other); ``ordinal_feature_indices`` (mlrl-boomer's):
        attributes of integer values (:mod:`engine.ordinal`; learners with ``ORDINAL_ATTRIBUTES``)."""
        data = self._prepare(X, Y, X_test, Y_test, nominal_attributes, schema, sample_weight,
                             nominal_feature_indices, ordinal_feature_indices)
        return self._run(data, cancel)

    def _prepare(self, X, Y, X_test, Y_test, nominal_attributes, schema, sample_weight=None,
                 nominal_feature_indices=None, ordinal_feature_indices=None) -> TrainingData:
        self._check_params()
        if sample_weight is not None and not self.SAMPLE_WEIGHTS:
            raise ValueError(f"{type(self).__name__} does not support sample_weight")
        if nominal_feature_indices is not None:
            if nominal_attributes is not None:
                raise ValueError("nominal_attributes and nominal_feature_indices name the same thing; give one")
            nominal_attributes = nominal_feature_indices
        n_rows = None if sample_weight is None else _n_rows(X)
        weights = None if n_rows is None else check_sample_weight(sample_weight, n_rows)
        Xc, Yc, Xv, Yv = self._training_data(X, Y, X_test, Y_test, sample_weight=weights)
        nominal = check_nominal(nominal_attributes, Xc.shape[1])
        ordinal = None
        if ordinal_feature_indices is not None:
            ordinal = check_nominal(ordinal_feature_indices, Xc.shape[1], "ordinal_feature_indices")
            if ordinal.any() and not self.ORDINAL_ATTRIBUTES:
                raise ValueError(f"{type(self).__name__} does not support ordinal_feature_indices")
            if (ordinal & nominal).any():
                raise ValueError(f"attribute {int(np.flatnonzero(ordinal & nominal)[0])} is given as nominal and as "
                                 "ordinal; give it once")
            Xc = ordinal_view(Xc, ordinal)
            Xv = None if Xv is None else ordinal_view(Xv, ordinal)
            nominal = nominal | binary_ordinal(Xc, ordinal)  # two values: a binary attribute, as nominal
        schema = schema or Schema()
        if schema.feature_names and len(schema.feature_names) != Xc.shape[1]:
            raise ValueError(f"{len(schema.feature_names)} feature names for {Xc.shape[1]} attributes")
        if schema.label_names and len(schema.label_names) != Yc.shape[1]:
            raise ValueError(f"{len(schema.label_names)} label names for {Yc.shape[1]} labels")
        self.n_features_in_ = Xc.shape[1]
        self.n_labels_ = Yc.shape[1]
        self.schema_ = schema
        if sample_weight is not None and (weights is None or len(weights) != Xc.shape[0]):  # X without a length
            weights = check_sample_weight(sample_weight, Xc.shape[0])
        return TrainingData(Xc, Yc, nominal, schema, Xv, Yv, sample_weight=weights, ordinal=ordinal,
                            binary=binary_values(Xc, nominal))

    def _run(self, data: TrainingData, cancel: threading.Event | None = None) -> Iterator[RuleRecord]:
        rules: list[Rule] = []
        self.records_ = []
        self.selected_steps_ = None  # global pruning: how many of the records the model keeps
        self.model_ = self._make_model(rules, data)
        watcher = _CancelWatcher(cancel, data.cancel) if cancel is not None else None

        def stopping() -> bool:  # between steps the event is read directly, not via the watcher's poll
            return data.cancelled or (watcher is not None and watcher.check())

        try:
            for record in self._learn(data):
                if stopping():
                    break  # a step finished while cancelling: it is dropped like an unfinished one
                if getattr(record, "kind", "rule") == "revision":  # post-optimization replaced an earlier rule
                    rules[record.revises] = record.rule
                else:
                    rules.extend(record.rules)
                self.records_.append(record)
                yield record
                if stopping():
                    break
        finally:
            if watcher is not None:
                watcher.finish()
            if self.selected_steps_ is not None:  # the rules of the kept steps, as revised
                rules = rules[:sum(len(record.rules) for record in self.records_[:self.selected_steps_])]
            self.model_ = self._make_model(list(rules), data)

    def fit(self, X, Y, **kwargs):
        for _ in self.fit_iter(X, Y, **kwargs):
            pass
        return self

    def fit_dataset(self, dataset, test=None):
        """Train on an ``engine.datasets.Dataset`` (names and nominal attributes included)."""
        kw = {}
        if test is not None:
            kw = {"X_test": test.X, "Y_test": test.Y}
        return self.fit(dataset.X, dataset.Y, nominal_attributes=dataset.nominal_mask, schema=dataset.schema, **kw)

    # -- prediction ----------------------------------------------------------------------
    def _model(self) -> RuleModel:
        model = getattr(self, "model_", None)
        if model is None:
            raise not_fitted(self)
        return model

    @property
    def rules_(self) -> list[Rule]:
        return self._model().rules

    def _checked(self, X):
        model = self._model()
        return model, self._features(X, model.n_features)

    def decision_function(self, X) -> np.ndarray:
        model, Xc = self._checked(X)
        return self._score_output(model.scores(Xc))

    def predict(self, X) -> np.ndarray:
        model, Xc = self._checked(X)
        return self._binary_output(model.predict(Xc))

    @available_if(_has_probabilities)
    def predict_proba(self, X) -> np.ndarray:
        """Marginal probabilities (learners with ``PROBABILITIES``; a decision list has none)."""
        model, Xc = self._checked(X)
        return self._probability_output(model.predict_proba(Xc))

    # what the prediction methods return for the model's 0/1 predictions, scores and probabilities
    def _binary_output(self, P: np.ndarray):
        return self._as_classes(P)

    def _score_output(self, F: np.ndarray):
        return self._as_class_scores(F)

    def _probability_output(self, P: np.ndarray):
        return self._as_class_probabilities(P)

    # -- persistence ---------------------------------------------------------------------
    def to_model_dict(self) -> dict:
        """The saved form: format, version, learner key, parameters and the rule model."""
        return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "learner": self.LEARNER_NAME,
                "params": _jsonable(self.get_params()), "model": self._model().to_dict()}

    def save(self, path) -> None:
        """Write the model as JSON (a documented, safe format; never pickled)."""
        atomic_write_text(path, json.dumps(self.to_model_dict(), indent=1))

    @classmethod
    def from_model_dict(cls, doc: Mapping) -> "RuleLearner":
        """A fitted estimator from a model document; every field is checked (ValueError)."""
        from . import model_document as checks

        doc = checks.mapping(doc, "model file")
        if "model" not in doc:
            raise ValueError("model file: missing field 'model'")
        est = cls.from_params(checks.mapping(doc.get("params", {}), "model file, params"))
        est.model_ = RuleModel.from_dict(doc["model"])
        est.n_features_in_ = est.model_.n_features
        est.n_labels_ = est.model_.n_labels
        est.schema_ = est.model_.schema
        return est

    @classmethod
    def from_params(cls, params: Mapping) -> "RuleLearner":
        """An estimator with ``params`` (e.g. read from a file), checked like ``fit`` checks them."""
        known = set(cls._get_param_names())
        unknown = sorted(str(k) for k in params if k not in known)
        if unknown:
            raise ValueError(f"unknown parameter(s) of {cls.__name__}: {', '.join(unknown)}")
        est = cls(**params)
        est._check_params()
        return est


def _n_rows(X) -> int | None:
    """The number of rows of ``X`` without converting it (None if it has no shape or length: the
    feature check then names the problem)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        return None


def not_fitted(est) -> NotFittedError:
    """The error of every learner used before ``fit``: scikit-learn's NotFittedError (a ValueError
    and an AttributeError, so both kinds of caller handle it)."""
    return NotFittedError(f"this {type(est).__name__} is not fitted yet; call fit or fit_iter first")


class _CancelWatcher:
    """Copies a ``threading.Event`` into the flag array the kernels poll (they cannot wait on an
    Event); a daemon thread checks the event every 20 ms until the fit ends."""

    POLL_S = 0.02

    def __init__(self, event: threading.Event, flag: np.ndarray):
        self._event, self._flag, self._done = event, flag, threading.Event()
        if event.is_set():
            flag[0] = 1
        self._thread = threading.Thread(target=self._watch, name="fit-cancel-watcher", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.is_set():
            if self._event.wait(self.POLL_S):
                self._flag[0] = 1
                return

    def check(self) -> bool:
        """Whether the event is set (the flag is set too, so the kernels see it at once)."""
        if self._event.is_set():
            self._flag[0] = 1
            return True
        return False

    def finish(self) -> None:
        self._done.set()
        self._thread.join()


def _jsonable(params: Mapping) -> dict:
    out = {}
    for k, v in params.items():
        if isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out
