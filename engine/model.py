"""A learned rule model: its rules and how they turn into predictions.

Prediction strategies:

- ``'label-wise'``: scores are the sum of covering heads (eq. 2); a label is predicted when
  its score is positive (eq. 18).
- ``'example-wise'``: the label vector seen in training minimising the example-wise loss of
  the scores is predicted (eq. 19).
- ``'decision-list'``: each label takes the head value (+1 present, -1 absent) of the first
  covering rule that predicts it; labels no rule sets are absent.

Marginal probabilities are the logistic function of the scores.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .core.boosting import example_wise_predict
from .core.losses import LOSS_CODES
from .core.predict import body_coverage, first_covering, sum_of_heads
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
    _compiled: CompiledRules | None = field(default=None, repr=False, compare=False)

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

    def predict_from_scores(self, F: np.ndarray) -> np.ndarray:
        if self.prediction == "example-wise":
            vectors = np.ascontiguousarray(self.label_vectors, dtype=np.uint8)
            ptr, idx = label_vector_index(vectors)
            return example_wise_predict(LOSS_CODES[self.loss], np.ascontiguousarray(F), vectors, ptr, idx)
        return (F > 0).astype(np.uint8)

    def predict(self, X, active=None) -> np.ndarray:
        return self.predict_from_scores(self.scores(X, active))

    def predict_proba(self, X, active=None) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.scores(X, active)))

    def with_schema(self, schema: Schema | None) -> "RuleModel":
        return RuleModel([r.with_schema(schema) for r in self.rules], self.n_features, self.n_labels,
                         self.prediction, self.loss, self.label_vectors, schema, self.nominal)

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
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RuleModel":
        try:
            s = d["schema"]
            schema = Schema(tuple(s["feature_names"]), tuple(s["label_names"]),
                            {int(j): list(v) for j, v in s["nominal_values"].items()})
            nominal = np.zeros(int(d["n_features"]), dtype=bool)
            nominal[list(d.get("nominal", []))] = True
            vectors = d.get("label_vectors")
            return cls(
                rules=[Rule.from_dict(r, schema) for r in d["rules"]],
                n_features=int(d["n_features"]), n_labels=int(d["n_labels"]),
                prediction=d["prediction"], loss=d.get("loss"),
                label_vectors=None if vectors is None else np.asarray(vectors, dtype=np.uint8).reshape(-1, int(d["n_labels"])),
                schema=schema, nominal=nominal,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a rule model: missing or malformed field {exc}") from exc


def label_vector_index(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR index (pointer, positive label indices) of a 0/1 label-vector matrix."""
    counts = vectors.sum(axis=1).astype(np.int64)
    ptr = np.zeros(len(vectors) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    idx = np.nonzero(vectors)[1].astype(np.int64)
    return ptr, idx
