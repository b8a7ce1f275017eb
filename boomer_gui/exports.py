"""Rule exports (text, CSV, JSON) and model files, without Qt.

The JSON rule file holds each rule as ``Rule.to_dict()`` plus its statistics, so
``Rule.from_dict`` reads every entry back.  Models are written by the estimator itself
(``est.save``) and read with ``type(est).from_model_dict``."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Sequence

from engine.registry import get as get_learner
from engine.rules import Rule, Schema

RULES_FORMAT = "boomer-gui-rules"
RULES_VERSION = 1
RULE_EXPORT_FILTER = "Text (*.txt);;CSV (*.csv);;JSON (*.json)"


def _num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _stats(rec) -> dict:
    return {"index": int(rec.index), "coverage": int(rec.coverage) if rec.coverage >= 0 else None,
            "improvement": _num(float(rec.improvement)),
            "train_hamming": _num(rec.train_hamming), "train_subset": _num(rec.train_subset),
            "test_hamming": _num(rec.val_hamming), "test_subset": _num(rec.val_subset)}


def rules_text(records: Sequence, schema: Schema | None = None) -> str:
    lines = [f"# {len(records)} rules; 'head' lists label: score (positive = relevant)"]
    for rec in records:
        lines.append(f"{rec.index:>5}  {rec.rule.to_text(schema)}")
    return "\n".join(lines) + "\n"


def rules_csv(records: Sequence, schema: Schema | None = None) -> str:
    schema = schema or Schema()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["index", "body", "head", "n_conditions", "head_labels", "head_scores", "coverage", "improvement",
                "train_hamming", "train_subset", "test_hamming", "test_subset"])
    for rec in records:
        r = rec.rule
        s = _stats(rec)
        w.writerow([rec.index, r.body_text(schema), r.head_text(schema), len(r.conditions),
                    ";".join(schema.label(int(k)) for k in r.head_labels),
                    ";".join(f"{v:.6g}" for v in r.head_scores), "" if s["coverage"] is None else s["coverage"],
                    "" if s["improvement"] is None else f"{s['improvement']:.6g}",
                    *("" if s[k] is None else f"{s[k]:.6g}" for k in
                      ("train_hamming", "train_subset", "test_hamming", "test_subset"))])
    return out.getvalue()


def rules_json(records: Sequence, schema: Schema | None = None) -> dict:
    schema = schema or Schema()
    rules = []
    for rec in records:
        d = rec.rule.with_schema(schema).to_dict()
        d.update(_stats(rec))
        rules.append(d)
    return {"format": RULES_FORMAT, "version": RULES_VERSION,
            "labels": list(schema.label_names), "attributes": list(schema.feature_names), "rules": rules}


def write_rules(path, records: Sequence, schema: Schema | None = None, fmt: str | None = None) -> str:
    """Write rules as text, CSV or JSON (``fmt`` or the file suffix); returns the format used."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".") or "txt").lower()
    if fmt in ("txt", "text"):
        path.write_text(rules_text(records, schema), encoding="utf-8")
        return "txt"
    if fmt == "csv":
        path.write_text(rules_csv(records, schema), encoding="utf-8")
        return "csv"
    if fmt == "json":
        path.write_text(json.dumps(rules_json(records, schema), indent=1), encoding="utf-8")
        return "json"
    raise ValueError(f"unknown rule export format {fmt!r}; use .txt, .csv or .json")


def read_rules_json(path, schema: Schema | None = None) -> list[Rule]:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("format") != RULES_FORMAT:
        raise ValueError(f"{Path(path).name} is not a rule file of this tool")
    return [Rule.from_dict(d, schema) for d in doc["rules"]]


# ------------------------------------------------------------------------------------- models
def model_document(estimator) -> dict:
    """The estimator's own model file (``est.save``) as a dict."""
    return estimator.to_model_dict()


def estimator_from_document(doc: dict):
    """Rebuild an estimator from a model document; the learner is looked up in the registry."""
    if not isinstance(doc, dict) or "model" not in doc:
        raise ValueError("not a model file: no 'model' entry")
    key = doc.get("learner")
    spec = get_learner(key)  # ValueError names the known learners
    return spec, spec.factory.from_model_dict(doc)


def load_model(path):
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{Path(path).name} is not a JSON model file: {exc}") from None
    return estimator_from_document(doc)
