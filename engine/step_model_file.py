"""The model file envelope shared by the learners whose models are not rule lists (label ranking,
ML-ME, classifier chains): format, version, learner key, parameters, a ``model`` section with
``n_features``, ``n_labels`` and the schema.  Reading checks the envelope before the learner checks
its own fields."""
from __future__ import annotations

import json
from typing import Any, Mapping

from . import model_document as checks
from .fileio import atomic_write_text


def schema_dict(schema) -> dict:
    return {"feature_names": list(schema.feature_names), "label_names": list(schema.label_names),
            "nominal_values": {str(j): list(v) for j, v in schema.nominal_values.items()}}


def make_document(key: str, params: Mapping, n_features: int, n_labels: int, schema, **model: Any) -> dict:
    from .learner import MODEL_FORMAT, MODEL_VERSION, _jsonable

    return {"format": MODEL_FORMAT, "version": MODEL_VERSION, "learner": key, "params": _jsonable(params),
            "model": {"n_features": int(n_features), "n_labels": int(n_labels), **model, "schema": schema_dict(schema)}}


def save_document(doc: Mapping, path, indent: int | None = None) -> None:
    atomic_write_text(path, json.dumps(doc, indent=indent))


def open_document(cls, doc) -> tuple[Any, Mapping, int, int]:
    """(unfitted estimator with the file's checked parameters, the model section, n_features, n_labels)."""
    doc = checks.mapping(doc, "model file")
    est = cls.from_params(checks.mapping(doc.get("params", {}), "model file, params"))
    m = checks.mapping(doc.get("model"), "model")
    n_features = checks.integer(m.get("n_features"), "model, n_features", 1, checks.MAX_FEATURES)
    n_labels = checks.integer(m.get("n_labels"), "model, n_labels", 1, checks.MAX_LABELS)
    return est, m, n_features, n_labels


def schema_of(m: Mapping, n_features: int, n_labels: int):
    from .model import _schema_from_dict

    return _schema_from_dict(m.get("schema", {}), n_features, n_labels)
