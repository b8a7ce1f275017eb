"""Rule exports (text, CSV, JSON) and model files, without Qt.

The JSON rule file holds each rule as ``Rule.to_dict()`` plus its statistics, so
``Rule.from_dict`` reads every entry back.  Models are written by the estimator itself
(``est.save``) and read by the engine's checked loader (``engine.persistence``)."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from engine import persistence
from engine.fileio import atomic_write_text
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
            "test_hamming": _num(rec.test_hamming), "test_subset": _num(rec.test_subset)}


def _active(active, i: int) -> bool:
    return True if active is None else bool(active[i])


def metadata_lines(metadata: Mapping | None, active=None) -> list[str]:
    """``# key: value`` lines of a run's metadata and the what-if state, for text and CSV files."""
    lines = [f"# {k.replace('_', ' ')}: {v}" for k, v in (metadata or {}).items() if v not in (None, "", {})]
    if active is not None and not all(active):
        off = [str(i) for i, a in enumerate(active) if not a]
        lines.append(f"# what-if: rules {', '.join(off)} switched off (marked 'off'); the losses are the run's")
    return lines


def rules_text(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
               active=None) -> str:
    lines = [f"# {len(records)} rules; 'head' lists label: score (positive = relevant)"]
    lines += metadata_lines(metadata, active)
    for i, rec in enumerate(records):
        lines.append(f"{rec.index:>5}{'' if _active(active, i) else ' off'}  {rec.rule.to_text(schema)}")
    return "\n".join(lines) + "\n"


def rules_csv(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
              active=None) -> str:
    """CSV with a header row; metadata first as ``#`` comment lines (``pandas.read_csv(comment='#')``)."""
    schema = schema or Schema()
    out = io.StringIO()
    for line in metadata_lines(metadata, active):
        out.write(line.replace("\n", " ") + "\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["index", "active", "body", "head", "n_conditions", "head_labels", "head_scores", "coverage",
                "improvement", "train_hamming", "train_subset", "test_hamming", "test_subset"])
    for i, rec in enumerate(records):
        r = rec.rule
        s = _stats(rec)
        w.writerow([rec.index, int(_active(active, i)), r.body_text(schema), r.head_text(schema), len(r.conditions),
                    ";".join(schema.label(int(k)) for k in r.head_labels),
                    ";".join(f"{v:.6g}" for v in r.head_scores), "" if s["coverage"] is None else s["coverage"],
                    "" if s["improvement"] is None else f"{s['improvement']:.6g}",
                    *("" if s[k] is None else f"{s[k]:.6g}" for k in
                      ("train_hamming", "train_subset", "test_hamming", "test_subset"))])
    return out.getvalue()


def rules_json(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
               active=None) -> dict:
    schema = schema or Schema()
    rules = []
    for i, rec in enumerate(records):
        d = rec.rule.with_schema(schema).to_dict()
        d.update(_stats(rec))
        d["active"] = _active(active, i)
        rules.append(d)
    return {"format": RULES_FORMAT, "version": RULES_VERSION, "metadata": dict(metadata or {}),
            "labels": list(schema.label_names), "attributes": list(schema.feature_names), "rules": rules}


def write_rules(path, records: Sequence, schema: Schema | None = None, fmt: str | None = None,
                metadata: Mapping | None = None, active=None) -> str:
    """Write rules as text, CSV or JSON (``fmt`` or the file suffix), with the run's ``metadata``
    (data set, learner, parameters, seed) and the what-if switches ``active``; returns the format."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".") or "txt").lower()
    if fmt in ("txt", "text"):
        atomic_write_text(path, rules_text(records, schema, metadata, active), encoding="utf-8")
        return "txt"
    if fmt == "csv":
        atomic_write_text(path, rules_csv(records, schema, metadata, active), encoding="utf-8")
        return "csv"
    if fmt == "json":
        atomic_write_text(path, json.dumps(rules_json(records, schema, metadata, active), indent=1),
                          encoding="utf-8")
        return "json"
    raise ValueError(f"unknown rule export format {fmt!r}; use .txt, .csv or .json")


def read_rules_json(path, schema: Schema | None = None) -> list[Rule]:
    doc = persistence.read_json_file(path, "rule file")
    if not isinstance(doc, dict) or doc.get("format") != RULES_FORMAT or not isinstance(doc.get("rules"), list):
        raise ValueError(f"{Path(path).name} is not a rule file of this tool")
    return [Rule.from_dict(d, schema, where=f"rule {i}") for i, d in enumerate(doc["rules"])]


# ------------------------------------------------------------------------------------- models
def model_document(estimator) -> dict:
    """The estimator's own model file (``est.save``) as a dict."""
    return estimator.to_model_dict()


def estimator_from_document(doc: dict, name: str = "model file"):
    """(registry entry, fitted estimator) from a model document; ValueError when invalid.

    The engine's loader does the checking (``engine.persistence``): one implementation."""
    est = persistence.estimator_from_document(doc, name)
    return get_learner(doc["learner"]), est


def load_model(path):
    """(registry entry, fitted estimator) from a model file; ValueError for any bad content."""
    return estimator_from_document(persistence.read_json_file(path, "model file"), Path(path).name)
