"""What ``python -m engine experiment --save-*`` writes beside the report (mlrl-testbed's saved
outputs): per task its test predictions and scores, its rules, the model's characteristics, and the
data sets' characteristics — all read back from the store (rules: kept by tasks run with
``--save-rules``)."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np

from .file import Experiment
from .tasks import make_tasks

SAVES = ("predictions", "scores", "rules", "model-characteristics", "data-characteristics")
MODEL_COLUMNS = ("rules", "default-rule", "conditions", "conditions-per-rule", "numeric-conditions",
                 "nominal-conditions", "labels-per-head")


def _safe(name) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(name))


def _config_text(config: dict) -> str:
    return ";".join(f"{k}={v}" for k, v in sorted(config.items()))


def data_characteristics(Y: np.ndarray, n_attributes: int | None) -> dict:
    """Examples, attributes, labels, label cardinality and density, distinct label sets (regression
    targets: examples, attributes and targets, the label statistics empty)."""
    n, K = Y.shape
    if Y.dtype.kind == "f":
        return {"examples": n, "attributes": n_attributes, "labels": K, "cardinality": "", "density": "",
                "distinct-label-sets": ""}
    cardinality = float(Y.sum(axis=1).mean()) if n else 0.0
    return {"examples": n, "attributes": n_attributes, "labels": K, "cardinality": cardinality,
            "density": cardinality / K if K else 0.0, "distinct-label-sets": int(np.unique(Y, axis=0).shape[0])}


def _matrix_rows(writer, head: list, rows: np.ndarray, M: np.ndarray, fmt) -> None:
    for r, values in zip(rows, M):
        writer.writerow([*head, int(r), *(fmt(v) for v in values)])


def _write_outputs(exp: Experiment, store, folder: Path, kind: str) -> list[Path]:
    """One CSV per (data set, learner): fold, configuration, prefix (BBC-CV), row, one column per label
    (per target of a regression experiment, its predicted values)."""
    tasks = make_tasks(exp)
    results = store.results(t["key"] for t in tasks)
    written = []
    for d in [s.name for s in exp.datasets]:
        for entry in exp.learners:
            mine = [(t, results[t["key"]]) for t in tasks
                    if t["dataset"] == d and t["name"] == entry.name and t["key"] in results]
            mine = [(t, r) for t, r in mine if kind == "predictions" or r.scores is not None]
            if not mine:
                continue
            K = mine[0][1].predictions.shape[-1]
            path = folder / f"{kind}_{_safe(d)}_{_safe(entry.name)}.csv"
            with open(path, "w", newline="", encoding="utf-8") as stream:
                w = csv.writer(stream)
                column = "target" if exp.task == "regression" else "label"
                w.writerow(["fold", "configuration", "rules", "row", *(f"{column}_{k}" for k in range(K))])
                for t, r in mine:
                    config = _config_text(r.config)
                    if kind == "scores":
                        _matrix_rows(w, [t["fold"] + 1, config, ""], r.test_rows, r.scores, lambda v: f"{v:.6g}")
                        continue
                    prefixes = r.costs.get("prefixes")
                    for size, P in zip(prefixes or [""], r.predictions if prefixes else [r.predictions]):
                        _matrix_rows(w, [t["fold"] + 1, config, size], r.test_rows, P,
                                     (lambda v: f"{v:.17g}") if P.dtype.kind == "f" else int)
            written.append(path)
    return written


def _write_rules(exp: Experiment, store, folder: Path) -> list[Path]:
    written = []
    for t in make_tasks(exp):
        text = store.model_text(t["key"])
        if text is None:
            continue
        path = folder / (f"rules_{_safe(t['dataset'])}_{_safe(t['name'])}_fold{t['fold'] + 1}"
                         f"_config{t['configuration'] + 1}.txt")
        path.write_text(f"# {t['name']} on {t['dataset']}, fold {t['fold'] + 1}, {_config_text(t['config'])}\n"
                        + text, encoding="utf-8")
        written.append(path)
    return written


def _write_model_characteristics(exp: Experiment, store, folder: Path) -> list[Path]:
    tasks = make_tasks(exp)
    results = store.results(t["key"] for t in tasks)
    path = folder / "model_characteristics.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        w = csv.writer(stream)
        w.writerow(["dataset", "learner", "fold", "configuration", *MODEL_COLUMNS])
        for t in tasks:
            found = results.get(t["key"])
            c = {} if found is None else found.costs.get("characteristics") or {}
            if c:
                w.writerow([t["dataset"], t["name"], t["fold"] + 1, _config_text(t["config"]),
                            *(c.get(name, "") for name in MODEL_COLUMNS)])
    return [path]


def _write_data_characteristics(exp: Experiment, store, folder: Path) -> list[Path]:
    from ..data import load_parts

    path = folder / "data_characteristics.csv"
    columns = ("examples", "attributes", "labels", "cardinality", "density", "distinct-label-sets")
    with open(path, "w", newline="", encoding="utf-8") as stream:
        w = csv.writer(stream)
        w.writerow(["dataset", *columns])
        for spec in exp.datasets:
            X, _, _ = load_parts(spec.name, tuple(spec.files))
            c = data_characteristics(store.dataset_labels(spec.name), int(X.shape[1]))
            w.writerow([spec.name, *(c[name] for name in columns)])
    return [path]


def write_saves(exp: Experiment, store, out_dir, what) -> list[Path]:
    """The files of ``what`` (names of :data:`SAVES`) in ``out_dir/saved``."""
    folder = Path(out_dir) / "saved"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in ("predictions", "scores"):
        if kind in what:
            written += _write_outputs(exp, store, folder, kind)
    if "rules" in what:
        written += _write_rules(exp, store, folder)
    if "model-characteristics" in what:
        written += _write_model_characteristics(exp, store, folder)
    if "data-characteristics" in what:
        written += _write_data_characteristics(exp, store, folder)
    return written
