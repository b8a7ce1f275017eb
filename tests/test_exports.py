"""Rule exports that standard readers open (issue 30): a CSV file whose first line is its header
(csv.DictReader and pandas.read_csv with their defaults), its metadata in a JSON sidecar written
atomically, and every export naming the data the run really learned from."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from boomer_gui.components.exports import csv_sidecar_path, data_identity, write_rules
from boomer_gui.components.state import DataSpec, RunHistory
from engine.api import RuleRecord
from engine.rules import Condition, Rule, Schema


@pytest.fixture(scope="module")
def fitted():
    """Eight rules (the default rule first) with losses, a comma in a label name."""
    schema = Schema(tuple(f"a{j}" for j in range(5)), ("beach", "sun, sea", "urban"))
    records = []
    for i in range(8):
        conditions = tuple(Condition(j % 5, "<=" if j % 2 else ">", 0.1 * j) for j in range(i))
        rule = Rule(conditions, np.array([i % 3]), np.array([0.5 - 0.1 * i]))
        records.append(RuleRecord(i, rule, 100 - i, 1.0 / (i + 1), 0.3 - 0.01 * i, 0.8 - 0.02 * i,
                                  0.31 - 0.01 * i, 0.82 - 0.02 * i))
    return records, schema


def file_run_metadata(tmp_path) -> dict:
    """The metadata of a run on a data file with a 25 % split (as the window's run records them)."""
    spec = DataSpec(kind="file", path=str(tmp_path / "scene-train.arff"), test_mode="split",
                    test_fraction=0.25, split_seed=3)
    run = RunHistory().new_run("boomer: preset", "boomer", {"max_rules": 8, "random_state": 1},
                               dataset="scene-train", data_key=json.dumps(spec.to_dict(), sort_keys=True))
    return run.metadata()


def test_csv_export_has_its_header_first_and_its_metadata_in_a_sidecar(fitted, tmp_path):
    records, schema = fitted
    path = tmp_path / "rules.csv"
    active = [True] * len(records)
    active[2] = False
    assert write_rules(path, records, schema, metadata=file_run_metadata(tmp_path), active=active) == "csv"
    text = path.read_text(encoding="utf-8")
    assert not any(line.startswith("#") for line in text.splitlines())
    rows = list(csv.DictReader(path.open(encoding="utf-8", newline="")))
    assert len(rows) == len(records)
    assert rows[2]["index"] == "2" and rows[2]["active"] == "0" and rows[1]["active"] == "1"
    assert float(rows[3]["train_hamming"]) == pytest.approx(records[3].train_hamming, rel=1e-5)

    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(path)
    assert list(frame.columns[:4]) == ["index", "active", "body", "head"]
    assert len(frame) == len(records) and frame["index"].tolist() == [r.index for r in records]

    sidecar = csv_sidecar_path(path)
    assert sidecar == tmp_path / "rules.csv.json"
    doc = json.loads(sidecar.read_text(encoding="utf-8"))
    assert doc["table"] == "rules.csv" and doc["n_rules"] == len(records)
    assert doc["rules_switched_off"] == [2]
    assert set(doc["columns"]) == set(rows[0])  # every column described
    meta = doc["metadata"]
    assert meta["learner"] == "boomer" and meta["params"]["max_rules"] == 8 and meta["seed"] == 1


def test_exports_name_the_file_a_run_learned_from_not_the_generator(fitted, tmp_path):
    records, schema = fitted
    meta = file_run_metadata(tmp_path)
    write_rules(tmp_path / "rules.csv", records, schema, metadata=meta)
    write_rules(tmp_path / "rules.json", records, schema, metadata=meta)
    write_rules(tmp_path / "rules.txt", records, schema, metadata=meta)
    for doc in (json.loads((tmp_path / "rules.csv.json").read_text()),
                json.loads((tmp_path / "rules.json").read_text())):
        data = doc["metadata"]["data"]
        assert data["source"] == "file" and data["file"] == "scene-train.arff"
        assert data["path"] == str(tmp_path / "scene-train.arff")
        assert data["test"] == {"mode": "split", "fraction": 0.25, "seed": 3}
        assert "conditional-dependence" not in json.dumps(doc["metadata"])  # the generator's settings
        assert "n_examples" not in json.dumps(doc["metadata"])
    text = (tmp_path / "rules.txt").read_text()
    assert "scene-train.arff" in text and "conditional-dependence" not in text
    assert "fraction 0.25" in text


def test_synthetic_data_are_named_by_their_generator(tmp_path):
    spec = DataSpec(kind="synthetic", synthetic="marginal-independence", n_examples=300, n_labels=4, seed=5,
                    n_test=100)
    identity = data_identity(json.dumps(spec.to_dict()))
    assert identity == {"source": "synthetic", "generator": "marginal-independence", "n_examples": 300,
                        "n_labels": 4, "seed": 5, "test": {"mode": "generated", "n_examples": 100, "seed": 6}}
    test_file = DataSpec(kind="file", path="a/train.csv", label_columns=["x", "y"], test_mode="file",
                         test_path="a/test.csv")
    assert data_identity(test_file.to_dict())["test"] == {"mode": "file", "file": "test.csv", "path": "a/test.csv"}
    assert data_identity("not a data key") is None and data_identity({"kind": "other"}) is None
