"""A learned rule model: its rules and how they turn into predictions.

Prediction strategies:

- ``'label-wise'``: scores are the sum of covering heads (eq. 2); a label is predicted when
  its score is positive (eq. 18).
- ``'example-wise'``: the label vector seen in training minimising the example-wise loss of
  the scores is predicted (eq. 19).
- ``'decision-list'``: each label takes the head value (+1 present, -1 absent) of the first
  covering rule that predicts it; labels no rule sets are absent.

Marginal probabilities are the logistic function of the scores.  A BOOMER model carries its
:class:`engine.predictors.Predictors` (mlrl-boomer's binary and probability predictors and the
isotonic calibration): GFM and predictors based on probabilities predict through it, and so do
its probabilities.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from .core.boosting import example_wise_predict
from .core.label_vectors import build_index
from .core.losses import LOSS_CODES, score_threshold
from .core.predict import body_coverage, first_covering, sum_of_heads
from .predictors import Predictors
from .rules import OP_CODES, Rule, Schema

PREDICTIONS = ("label-wise", "example-wise", "decision-list")
_CHUNK = 4096


@dataclass(frozen=True)
class CompiledRules:
    """Flat arrays of a rule list for the Numba kernels."""

    cond_ptr: np.ndarray
    attrs: np.ndarray
    ops: np.ndarray
    thrs: np.ndarray
    head_ptr: np.ndarray
    head_labels: np.ndarray
    head_scores: np.ndarray

    @classmethod
    def of(cls, rules: list[Rule]) -> "CompiledRules":
        cond_ptr = np.zeros(len(rules) + 1, dtype=np.int64)
        head_ptr = np.zeros(len(rules) + 1, dtype=np.int64)
        cond_ptr[1:] = np.cumsum([len(r.conditions) for r in rules])
        head_ptr[1:] = np.cumsum([len(r.head_labels) for r in rules])
        conds = [c for r in rules for c in r.conditions]
        return cls(
            cond_ptr,
            np.array([c.attribute for c in conds], dtype=np.int64),
            np.array([OP_CODES[c.operator] for c in conds], dtype=np.int64),
            np.array([c.threshold for c in conds], dtype=np.float64),
            head_ptr,
            np.concatenate([r.head_labels for r in rules]) if rules else np.zeros(0, np.int64),
            np.concatenate([r.head_scores for r in rules]) if rules else np.zeros(0),
        )


def dense_chunks(X):
    """Yield (start, dense float32 block) of ``X``; sparse input is densified a block at a time."""
    if sp.issparse(X):
        Xr = sp.csr_matrix(X)
        for s in range(0, Xr.shape[0], _CHUNK):
            yield s, np.ascontiguousarray(Xr[s:s + _CHUNK].toarray(), dtype=np.float32)
    else:
        yield 0, np.ascontiguousarray(X, dtype=np.float32)


def rule_coverage(rule: Rule, X) -> np.ndarray:
    """Boolean mask of the rows of ``X`` (dense or sparse) covered by the rule's body."""
    attrs = np.array([c.attribute for c in rule.conditions], dtype=np.int64)
    ops = np.array([OP_CODES[c.operator] for c in rule.conditions], dtype=np.int64)
    thrs = np.array([c.threshold for c in rule.conditions], dtype=np.float64)
    if not sp.issparse(X):
        return body_coverage(np.ascontiguousarray(X, dtype=np.float32), attrs, ops, thrs).astype(bool)
    Xc = sp.csc_matrix(X)
    mask = np.ones(X.shape[0], dtype=bool)
    for c in rule.conditions:
        mask &= c.covers(Xc[:, c.attribute].toarray().ravel().astype(np.float64))
    return mask


@dataclass
class RuleModel:
    rules: list[Rule]
    n_features: int
    n_labels: int
    prediction: str = "label-wise"
    loss: str | None = None
    label_vectors: np.ndarray | None = None  # M x K uint8, for 'example-wise'
    schema: Schema | None = None
    nominal: np.ndarray | None = None
    predictors: Predictors | None = None  # a BOOMER model's predictors and calibration
    _compiled: CompiledRules | None = field(default=None, repr=False, compare=False)
    _vector_index: tuple | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.prediction not in PREDICTIONS:
            raise ValueError(f"unknown prediction strategy {self.prediction!r}; expected one of {PREDICTIONS}")
        if self.prediction == "example-wise" and (self.label_vectors is None or self.loss not in LOSS_CODES):
            raise ValueError("example-wise prediction needs the training label vectors and a loss")

    def compiled(self) -> CompiledRules:
        if self._compiled is None or self._compiled.cond_ptr.shape[0] != len(self.rules) + 1:
            self._compiled = CompiledRules.of(self.rules)
        return self._compiled

    def _check(self, X):
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[-1] if X.ndim else 0} attributes; the model was trained on "
                             f"{self.n_features}")

    def scores(self, X, active: np.ndarray | None = None) -> np.ndarray:
        """Eq. (2): per example and label, the sum of the heads of the covering (active) rules."""
        self._check(X)
        c = self.compiled()
        act = np.ones(len(self.rules), np.uint8) if active is None else np.asarray(active, np.uint8)
        F = np.zeros((X.shape[0], self.n_labels))
        if self.prediction == "decision-list":
            decided = np.zeros((X.shape[0], self.n_labels), dtype=np.uint8)
            for s, block in dense_chunks(X):
                first_covering(block, c.cond_ptr, c.attrs, c.ops, c.thrs, c.head_ptr, c.head_labels,
                               c.head_scores, act, F[s:s + len(block)], decided[s:s + len(block)])
            return F
        for s, block in dense_chunks(X):
            sum_of_heads(block, c.cond_ptr, c.attrs, c.ops, c.thrs, c.head_ptr, c.head_labels, c.head_scores,
                         act, F[s:s + len(block)])
        return F

    def predict_from_scores(self, F: np.ndarray, n_rows: int | None = None) -> np.ndarray:
        """Binary predictions of the scores ``F``: rows of a data set of ``n_rows`` examples (default
        ``len(F)``; a predictor's method may depend on how many rows are predicted together)."""
        if self.predictors is not None and self.predictors.predicts(len(F) if n_rows is None else n_rows):
            return self.predictors.binary_predictions(F)
        if self.prediction == "example-wise":
            return example_wise_predict(LOSS_CODES[self.loss], np.ascontiguousarray(F), *self.vector_index())
        return (F > score_threshold(self.loss)).astype(np.uint8)

    def vector_index(self) -> tuple:
        """The known label vectors and their search index for eq. (19), built once per model."""
        if self._vector_index is None or self._vector_index[0] is not self.label_vectors:
            vectors = np.ascontiguousarray(self.label_vectors, dtype=np.uint8)
            ptr, idx = label_vector_index(vectors)
            self._vector_index = (self.label_vectors, (vectors, ptr, idx, *build_index(vectors, ptr, idx)))
        return self._vector_index[1]

    def predict(self, X, active=None) -> np.ndarray:
        return self.predict_from_scores(self.scores(X, active))

    def predict_proba(self, X, active=None) -> np.ndarray:
        if self.prediction == "decision-list":
            raise AttributeError("a decision list predicts labels, not probabilities")
        return self.probabilities_from_scores(self.scores(X, active))

    def probabilities_from_scores(self, F: np.ndarray) -> np.ndarray:
        """Marginal probabilities of the scores ``F`` (AttributeError where the model has none)."""
        if self.prediction == "decision-list":
            raise AttributeError("a decision list predicts labels, not probabilities")
        if self.predictors is not None:  # raises AttributeError for a loss without probabilities
            return self.predictors.probabilities(F)
        return expit(F)  # the logistic function, without overflow for large |score|

    def with_schema(self, schema: Schema | None) -> "RuleModel":
        return RuleModel([r.with_schema(schema) for r in self.rules], self.n_features, self.n_labels,
                         self.prediction, self.loss, self.label_vectors, schema, self.nominal, self.predictors)

    def to_dict(self) -> dict:
        schema = self.schema or Schema()
        return {
            "n_features": self.n_features,
            "n_labels": self.n_labels,
            "prediction": self.prediction,
            "loss": self.loss,
            "label_vectors": None if self.label_vectors is None else np.asarray(self.label_vectors).tolist(),
            "nominal": [] if self.nominal is None else [int(j) for j in np.flatnonzero(self.nominal)],
            "schema": {
                "feature_names": list(schema.feature_names),
                "label_names": list(schema.label_names),
                "nominal_values": {str(j): list(v) for j, v in schema.nominal_values.items()},
            },
            "rules": [r.to_dict() for r in self.rules],
            **({} if self.predictors is None else {"predictors": self.predictors.to_dict()}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RuleModel":
        """Read a model written by :meth:`to_dict`, checking every index, shape, type and value.

        A model file is untrusted input: anything a prediction kernel would index with is range-
        checked here (never in the kernels).  Raises one ValueError naming the rule and field."""
        from . import model_document as doc

        d = doc.mapping(d, "model")
        for key in ("n_features", "n_labels", "prediction", "rules"):
            if key not in d:
                raise ValueError(f"model: missing field {key!r}")
        n_features = doc.integer(d["n_features"], "model, n_features", 1, doc.MAX_FEATURES + 1)
        n_labels = doc.integer(d["n_labels"], "model, n_labels", 1, doc.MAX_LABELS + 1)
        prediction = doc.choice(d["prediction"], "model, prediction", PREDICTIONS)
        loss = doc.choice(d.get("loss"), "model, loss", (None, *LOSS_CODES))
        schema = _schema_from_dict(d.get("schema", {}), n_features, n_labels)
        nominal = np.zeros(n_features, dtype=bool)
        for j in doc.sequence(d.get("nominal", []), "model, nominal", max_length=n_features):
            nominal[doc.integer(j, "model, nominal attribute", 0, n_features)] = True
        vectors = d.get("label_vectors")
        if prediction == "example-wise":
            if loss is None:
                raise ValueError("model: example-wise prediction needs the loss")
            vectors = doc.label_vector_matrix(vectors, "model, label_vectors", n_labels)
        elif vectors is not None:
            vectors = doc.label_vector_matrix(vectors, "model, label_vectors", n_labels)
        rules = [Rule.from_dict(r, schema, n_features, n_labels, where=f"rule {i}")
                 for i, r in enumerate(doc.sequence(d["rules"], "model, rules"))]
        predictors = d.get("predictors")
        if predictors is not None:
            predictors = Predictors.from_dict(predictors, n_labels)
            if predictors.loss != loss:
                raise ValueError(f"model, predictors: loss {predictors.loss!r} is not the model's {loss!r}")
        return cls(rules=rules, n_features=n_features, n_labels=n_labels, prediction=prediction, loss=loss,
                   label_vectors=vectors, schema=schema, nominal=nominal, predictors=predictors)


def _schema_from_dict(s, n_features: int, n_labels: int) -> Schema:
    from . import model_document as doc

    s = doc.mapping(s, "model, schema")
    values = {}
    for key, names in doc.mapping(s.get("nominal_values", {}), "model, schema, nominal_values").items():
        if not (isinstance(key, str) and key.isascii() and key.isdigit()):
            raise ValueError(f"model, schema, nominal_values: {key!r} is not an attribute index")
        j = doc.integer(int(key), "model, schema, nominal_values attribute", 0, n_features)
        values[j] = list(doc.strings(names, f"model, schema, nominal_values[{key}]"))
    return Schema(doc.strings(s.get("feature_names", []), "model, schema, feature_names", n_features),
                  doc.strings(s.get("label_names", []), "model, schema, label_names", n_labels), values)


def label_vector_index(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR index (pointer, positive label indices) of a 0/1 label-vector matrix."""
    counts = vectors.sum(axis=1).astype(np.int64)
    ptr = np.zeros(len(vectors) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    idx = np.nonzero(vectors)[1].astype(np.int64)
    return ptr, idx
