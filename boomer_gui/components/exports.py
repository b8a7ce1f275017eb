"""Rule exports (text, CSV, JSON) and model files, without Qt.

The JSON rule file holds each rule as ``Rule.to_dict()`` plus its statistics, so
``Rule.from_dict`` reads every entry back.  The CSV file is a plain table (header first, no
comment lines: ``csv.DictReader`` and ``pandas.read_csv`` read it with their defaults); its
metadata go to a JSON sidecar beside it (``rules.csv`` -> ``rules.csv.json``).  Every export
names the data the run learned from as :func:`data_identity` describes it.  Models are written by the estimator itself
(``est.save``) and read by the engine's checked loader (``engine.persistence``)."""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from engine import persistence
from engine.api import atomic_write_text, write_python, write_text
from engine.evaluation.stats.tables import tsv_text
from engine.registry import get as get_learner
from engine.rules import Rule, Schema

RULES_FORMAT = "boomer-gui-rules"
RULES_VERSION = 1
RULE_EXPORT_FILTER = "Text (*.txt);;CSV (*.csv);;JSON (*.json)"
MODEL_EXPORT_FILTER = "Python (*.py);;Text (*.txt)"


CSV_COLUMNS = {
    "index": "the rule's position in the model (0: the default rule)",
    "active": "1, or 0 for a rule switched off (what-if); the losses are the run's",
    "body": "the conditions, all of which must hold", "head": "label: score (positive = relevant)",
    "n_conditions": "number of conditions", "head_labels": "the head's labels, ';'-separated",
    "head_scores": "their scores, ';'-separated", "coverage": "training examples the rule covers",
    "improvement": "the rule's improvement of the learner's objective",
    "train_hamming": "Hamming loss of the model up to this rule on the training data",
    "train_subset": "subset 0/1 loss on the training data", "test_hamming": "Hamming loss on the test data",
    "test_subset": "subset 0/1 loss on the test data"}


LOSS_KEYS = ("train_hamming", "train_subset", "test_hamming", "test_subset")
# a regressor's rules: its measures in the loss columns' place
REGRESSION_KEYS = ("train_mse", "train_mae", "test_mse", "test_mae")
REGRESSION_COLUMNS = {**{k: v for k, v in CSV_COLUMNS.items() if k not in LOSS_KEYS},
                      "head": "target: score (added to the prediction of each covered example)",
                      "train_mse": "mean squared error of the model up to this rule on the training data",
                      "train_mae": "mean absolute error on the training data",
                      "test_mse": "mean squared error on the test data", "test_mae": "mean absolute error on the test data"}


def _regression(records: Sequence) -> bool:
    """Are these a regressor's rules (their steps report MSE and MAE)?"""
    return any("train_mse" in (getattr(rec, "extra", None) or {}) for rec in records)


def columns_of(records: Sequence) -> dict:
    """The columns of an export of ``records``: :data:`CSV_COLUMNS`, or a regressor's :data:`REGRESSION_COLUMNS`."""
    return REGRESSION_COLUMNS if _regression(records) else CSV_COLUMNS


def _num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _stats(rec, regression: bool = False) -> dict:
    out = {"index": int(rec.index), "coverage": int(rec.coverage) if rec.coverage >= 0 else None,
           "improvement": _num(float(rec.improvement))}
    if regression:
        extra = getattr(rec, "extra", None) or {}
        return {**out, **{k: _num(extra.get(k)) for k in REGRESSION_KEYS}}
    return {**out, "train_hamming": _num(rec.train_hamming), "train_subset": _num(rec.train_subset),
            "test_hamming": _num(rec.test_hamming), "test_subset": _num(rec.test_subset)}


def _active(active, i: int) -> bool:
    return True if active is None else bool(active[i])


def data_identity(spec) -> dict | None:
    """What identifies a run's data, from its data spec (``DataSpec.to_dict()``, or the JSON text of
    it that a run keeps as its data key): for a file its name, path, label columns and how the test
    data were made (a split's fraction and seed, or the test file); for synthetic data the
    generator's settings.  Settings that did not make the data (a generator's, for a file) are left
    out.  None when ``spec`` is not a data spec."""
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except ValueError:
            return None
    if not isinstance(spec, Mapping) or spec.get("kind") not in ("file", "synthetic"):
        return None
    if spec["kind"] == "file":
        path = str(spec.get("path") or "")
        out = {"source": "file", "file": Path(path).name, "path": path}
        out.update({k: spec[k] for k in ("label_columns", "xml") if spec.get(k) is not None})
    else:
        out = {"source": "synthetic", "generator": spec.get("synthetic"),
               **{k: spec.get(k) for k in ("n_examples", "n_labels", "seed")}}
    mode = spec.get("test_mode")
    if mode == "file":
        test_path = str(spec.get("test_path") or "")
        out["test"] = {"mode": "file", "file": Path(test_path).name, "path": test_path}
    elif mode == "generated" and spec["kind"] == "synthetic":
        seed = spec.get("seed")
        out["test"] = {"mode": "generated", "n_examples": spec.get("n_test"),
                       "seed": seed + 1 if isinstance(seed, int) else None}
    else:
        out["test"] = {"mode": "split", "fraction": spec.get("test_fraction"), "seed": spec.get("split_seed")}
    return out


def export_metadata(metadata: Mapping | None) -> dict:
    """The run's metadata as exports carry them: the data key replaced by :func:`data_identity`."""
    meta = dict(metadata or {})
    if "data" in meta:
        identity = data_identity(meta["data"])
        if identity is not None:
            meta["data"] = identity
    return meta


def _line_value(value) -> str:
    if isinstance(value, Mapping):
        return "; ".join(f"{k.replace('_', ' ')} {_line_value(v)}" for k, v in value.items() if v is not None)
    return str(value).replace("\n", " ")


def metadata_lines(metadata: Mapping | None, active=None) -> list[str]:
    """``# key: value`` lines of a run's metadata and the what-if state, for the text file."""
    lines = [f"# {k.replace('_', ' ')}: {_line_value(v)}" for k, v in export_metadata(metadata).items()
             if v not in (None, "", {})]
    if active is not None and not all(active):
        off = [str(i) for i, a in enumerate(active) if not a]
        lines.append(f"# what-if: rules {', '.join(off)} switched off (marked 'off'); the losses are the run's")
    return lines


def rules_text(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
               active=None, shown: Mapping | None = None) -> str:
    lines = [f"# {shown_text(shown) or f'{len(records)} rules'}; 'head' lists label: score (positive = relevant)"]
    lines += metadata_lines(metadata, active)
    for i, rec in enumerate(records):
        lines.append(f"{rec.index:>5}{'' if _active(active, i) else ' off'}  {rec.rule.to_text(schema)}")
    return "\n".join(lines) + "\n"


def rule_rows(records: Sequence, schema: Schema | None = None, active=None) -> list[list]:
    """One row of :data:`CSV_COLUMNS` (a regressor's: :data:`REGRESSION_COLUMNS`) per rule."""
    schema = schema or Schema()
    rows = []
    regression = _regression(records)
    for i, rec in enumerate(records):
        r = rec.rule
        s = _stats(rec, regression)
        rows.append([rec.index, int(_active(active, i)), r.body_text(schema), r.head_text(schema), len(r.conditions),
                     ";".join(schema.label(int(k)) for k in r.head_labels),
                     ";".join(f"{v:.6g}" for v in r.head_scores), "" if s["coverage"] is None else s["coverage"],
                     "" if s["improvement"] is None else f"{s['improvement']:.6g}",
                     *("" if s[k] is None else f"{s[k]:.6g}" for k in (REGRESSION_KEYS if regression else LOSS_KEYS))])
    return rows


def rules_csv(records: Sequence, schema: Schema | None = None, active=None) -> str:
    """CSV whose first line is the header row, one row per rule, nothing else (the metadata go to
    the sidecar, :func:`csv_sidecar`)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(list(columns_of(records)))
    w.writerows(rule_rows(records, schema, active))
    return out.getvalue()


def rules_tsv(records: Sequence, schema: Schema | None = None, active=None) -> str:
    """The rules as tab-separated text with the CSV's columns (the header first), for the clipboard."""
    return tsv_text(list(columns_of(records)), rule_rows(records, schema, active))


def shown_text(shown: Mapping | None) -> str:
    """'176 of 1000 rules: label amazed (strongly)' for a filtered export, '' for all rules."""
    if not shown:
        return ""
    return f"{shown['n_shown']} of {shown['n_total']} rules: {shown['filter']}"


def csv_sidecar_path(path) -> Path:
    """Where the metadata of the CSV file ``path`` go: ``rules.csv`` -> ``rules.csv.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def csv_sidecar(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
                active=None, csv_name: str = "", shown: Mapping | None = None) -> dict:
    """The CSV file's metadata: the run (data identity, learner, parameters, seed), the rules'
    count, the what-if switches, what the columns hold and, for the rules a filter showed
    (``shown``: ``filter``, ``n_shown``, ``n_total``), the filter and 'N of M rules'."""
    off = [int(rec.index) for i, rec in enumerate(records) if not _active(active, i)]
    out = {"format": RULES_FORMAT + "-csv", "version": RULES_VERSION, "table": csv_name,
           "metadata": export_metadata(metadata), "n_rules": len(records), "rules_switched_off": off,
           "labels": list((schema or Schema()).label_names), "columns": columns_of(records)}
    if shown:
        out.update(filter=shown["filter"], rules=f"{shown['n_shown']} of {shown['n_total']} rules")
    return out


def rules_json(records: Sequence, schema: Schema | None = None, metadata: Mapping | None = None,
               active=None, shown: Mapping | None = None) -> dict:
    schema = schema or Schema()
    rules = []
    regression = _regression(records)
    for i, rec in enumerate(records):
        d = rec.rule.with_schema(schema).to_dict()
        d.update(_stats(rec, regression))
        d["active"] = _active(active, i)
        rules.append(d)
    doc = {"format": RULES_FORMAT, "version": RULES_VERSION, "metadata": export_metadata(metadata),
           "labels": list(schema.label_names), "attributes": list(schema.feature_names), "rules": rules}
    if shown:
        doc["filter"] = shown_text(shown)
    return doc


def write_rules(path, records: Sequence, schema: Schema | None = None, fmt: str | None = None,
                metadata: Mapping | None = None, active=None, shown: Mapping | None = None) -> str:
    """Write rules as text, CSV or JSON (``fmt`` or the file suffix), with the run's ``metadata``
    (data set, learner, parameters, seed) and the what-if switches ``active``; returns the format.
    CSV writes its metadata to a sidecar (:func:`csv_sidecar_path`) after the table.  ``shown``
    (``filter``: what the filter keeps, ``n_shown``, ``n_total``) says that ``records`` are the rules
    a filter showed: every format says so."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".") or "txt").lower()
    if fmt in ("txt", "text"):
        atomic_write_text(path, rules_text(records, schema, metadata, active, shown), encoding="utf-8")
        return "txt"
    if fmt == "csv":
        atomic_write_text(path, rules_csv(records, schema, active), encoding="utf-8")
        sidecar = csv_sidecar(records, schema, metadata, active, path.name, shown)
        atomic_write_text(csv_sidecar_path(path), json.dumps(sidecar, indent=1), encoding="utf-8")
        return "csv"
    if fmt == "json":
        atomic_write_text(path, json.dumps(rules_json(records, schema, metadata, active, shown), indent=1),
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


def export_model(estimator, path) -> None:
    """A rule model as one plain-Python file (``.py``: predict, decision_function, predict_proba with the
    standard library only) or as IF … THEN … text (any other suffix); ValueError for a learner without
    a rule model."""
    if str(path).lower().endswith(".py"):
        write_python(estimator, path)
    else:
        write_text(estimator, path)
