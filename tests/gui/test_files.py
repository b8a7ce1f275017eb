"""Exports, model files, sessions, plot export and malformed data files."""
from __future__ import annotations

import json

import numpy as np
import pytest

from boomer_gui.components import exports
from boomer_gui.components.state import DataSpec
from engine import BoomerClassifier
from engine.rules import Rule


def test_rule_exports_reload(trained, tmp_path):
    records = trained.table_model.records
    trained.export_rules(tmp_path / "rules.json")
    doc = json.loads((tmp_path / "rules.json").read_text())
    rules = [Rule.from_dict(d) for d in doc["rules"]]
    assert rules == [r.rule for r in records]
    assert doc["rules"][1]["coverage"] == records[1].coverage
    assert exports.read_rules_json(tmp_path / "rules.json") == rules
    trained.export_rules(tmp_path / "rules.csv")
    import csv

    rows = list(csv.DictReader((tmp_path / "rules.csv").read_text().splitlines()))  # the header first
    assert json.loads((tmp_path / "rules.csv.json").read_text())["metadata"]["learner"] == "boomer"  # the sidecar
    assert len(rows) == len(records) and rows[2]["index"] == "2" and rows[2]["active"] == "1"
    assert float(rows[2]["test_hamming"]) == pytest.approx(records[2].test_hamming, rel=1e-5)
    trained.export_rules(tmp_path / "rules.txt")
    lines = [line for line in (tmp_path / "rules.txt").read_text().splitlines() if not line.startswith("#")]
    assert len(lines) == len(records) and "->" in lines[0]


def test_model_save_and_load(trained, make_window, tmp_path):
    path = tmp_path / "model.json"
    trained.save_model(path)
    est = BoomerClassifier.from_model_dict(json.loads(path.read_text()))
    assert est.model_.rules == trained.model.rules
    np.testing.assert_array_equal(est.predict(trained.data.test.X), trained.model.predict(trained.data.test.X))
    other = make_window()
    other.load_model(path)
    assert other.table_model.rowCount() == len(trained.model.rules)
    assert other.model.rules == trained.model.rules
    # the trajectory of a loaded model is recomputed rule by rule; it ends at the model's losses
    assert other.run.final_losses() == pytest.approx(trained.run.final_losses())
    np.testing.assert_allclose(other.run.array("test_hamming"), trained.run.array("test_hamming"), atol=1e-12)


def test_session_round_trip(trained, make_window, tmp_path, qtbot, train):
    trained.learner_panel.set_params({"shrinkage": 0.5})
    trained.set_rule_active(4, False)
    path = tmp_path / "session.json"
    trained.save_session(path)
    other = make_window(spec=DataSpec(kind="synthetic", synthetic="marginal-dependence", n_examples=100, n_test=100))
    other.open_session(path)
    assert other.data.spec == trained.data.spec
    np.testing.assert_array_equal(other.data.train.X, trained.data.train.X)
    np.testing.assert_array_equal(other.data.test.Y, trained.data.test.Y)
    assert other.learner_panel.params() == trained.learner_panel.params()
    assert other.model.rules == trained.model.rules
    assert other.table_model.rowCount() == trained.table_model.rowCount()
    assert [r.coverage for r in other.table_model.records] == [r.coverage for r in trained.table_model.records]
    np.testing.assert_array_equal(other.table_model.active, trained.table_model.active)
    assert other.whatif_losses() == pytest.approx(trained.whatif_losses())
    assert [r.name for r in other.history] == [r.name for r in trained.history]
    for a, b in zip(other.history, trained.history):
        np.testing.assert_allclose(a.array("test_subset"), b.array("test_subset"))
        assert a.color == b.color
    assert other.plot.lines_of(other.history.runs[0]) is not None
    # and the reopened session can train on
    assert train(other) == "finished"
    assert len(other.history) == 2


def test_plot_export(trained, tmp_path):
    for suffix in ("png", "svg", "pdf"):
        path = tmp_path / f"plot.{suffix}"
        trained.export_plot(path)
        assert path.stat().st_size > 1000
    trained.export_plot(tmp_path / "losses.png", "losses")
    assert (tmp_path / "losses.png").stat().st_size > 1000


def test_malformed_arff_shows_error_and_window_survives(qtbot, window, errors, tmp_path, train):
    bad = tmp_path / "broken.arff"
    bad.write_text("@relation 'broken: -C 2'\n@attribute a {0,1}\n@attribute b numeric\n@data\n1,2,3,oops\n")
    before = window.data
    window.data_panel.open_path(bad)
    qtbot.waitUntil(lambda: not window.loading)
    assert errors and errors[0][0] == "Cannot load the data" and "broken.arff" in errors[0][1]
    assert window.data is before
    assert train(window) == "finished"


def test_missing_file_and_bad_session(window, errors, tmp_path, qtbot):
    window.data_panel.open_path(tmp_path / "nope.svm")
    qtbot.waitUntil(lambda: not window.loading)
    assert "not found" in errors[-1][1]
    (tmp_path / "s.json").write_text("{\"format\": \"something else\"}")
    assert not window._guard("Cannot open the session", window.open_session, tmp_path / "s.json")
    assert "not a session file" in errors[-1][1]


def test_csv_with_label_columns(window, errors, tmp_path, train, qtbot):
    lines = ["a,b,colour,l1,l2"]
    rng = np.random.default_rng(0)
    for i in range(120):
        a, b = rng.random(2)
        lines.append(f"{a:.3f},{b:.3f},{'red' if i % 3 else 'blue'},{int(a > .5)},{int(b > .4)}")
    path = tmp_path / "small.csv"
    path.write_text("\n".join(lines) + "\n")
    window.data_panel.open_path(path, label_columns=["l1", "l2"])
    qtbot.waitUntil(lambda: not window.loading)
    assert not errors
    assert window.data.full.n_labels == 2 and window.data.full.n_features == 3
    assert len(window.data.full.nominal_values) == 1
    assert "1 nominal" in window.data_panel.summary.text()
    assert train(window) == "finished"
