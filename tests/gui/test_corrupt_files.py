"""Each corrupt file gives one message box and leaves the window exactly as it was: data, model,
runs, rule table and status bar.  Nothing learned is ever lost."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from boomer_gui.components.session import Session, load_session


def _snapshot(w):
    return {
        "data": w.data.spec,
        "X": w.data.train.X.copy(),
        "model_rules": list(w.model.rules) if w.model is not None else None,
        "rows": w.table_model.rowCount(),
        "runs": [r.name for r in w.history.runs],
        "plot_runs": len(w.plot.history.runs) if hasattr(w.plot, "history") else None,
        "title": w.windowTitle(),
        "estimator": w.estimator,
    }


def _assert_unchanged(w, before):
    after = _snapshot(w)
    assert after["data"] == before["data"]
    np.testing.assert_array_equal(after["X"], before["X"])
    for key in ("model_rules", "rows", "runs", "plot_runs", "title"):
        assert after[key] == before[key], key
    assert after["estimator"] is before["estimator"]
    assert not w.statusBar().currentMessage().startswith("Loaded")
    assert not w.statusBar().currentMessage().startswith("Session")


def _refused(window, errors, title, action, path, content):
    """Write ``content`` to ``path``, run the window's ``action`` on it: one message box titled
    ``title`` and the window as it was."""
    path.write_text(content)
    before = _snapshot(window)
    assert not window._guard(title, action, path)
    assert len(errors) == 1 and errors[0][0] == title
    _assert_unchanged(window, before)


@pytest.fixture
def saved(trained, tmp_path):
    model = tmp_path / "model.json"
    trained.save_model(model)
    session = tmp_path / "session.json"
    trained.save_session(session)
    return {"model": json.loads(model.read_text()), "session": json.loads(session.read_text())}


def _model_with_head_label(doc, label):
    doc = copy.deepcopy(doc)
    rule = next(r for r in doc["model"]["rules"] if r["head"]["labels"])
    rule["head"]["labels"][0] = label
    return doc


CORRUPT_MODELS = {
    "head label 1000": lambda d: json.dumps(_model_with_head_label(d, 1000)),
    "head label -1": lambda d: json.dumps(_model_with_head_label(d, -1)),
    "not JSON": lambda d: "{this is not json",
    "NaN score": lambda d: json.dumps(d).replace('"scores": [', '"scores": [NaN, ', 1),
    "binary garbage": lambda d: "\x00\x01\x02",
    "wrong shape": lambda d: json.dumps({**d, "model": {**d["model"], "n_labels": 3}}),
}


@pytest.mark.parametrize("case", sorted(CORRUPT_MODELS))
def test_a_corrupt_model_shows_a_message_and_changes_nothing(trained, saved, errors, tmp_path, case):
    _refused(trained, errors, "Cannot load the model", trained.load_model, tmp_path / "bad-model.json",
             CORRUPT_MODELS[case](saved["model"]))
    assert "bad-model.json" in errors[0][1] or "labels" in errors[0][1]


def _session_with(doc, **changes):
    doc = copy.deepcopy(doc)
    for dotted, value in changes.items():
        node = doc
        *path, last = dotted.split("__")
        for key in path:
            node = node[key]
        node[last] = value
    return json.dumps(doc)


CORRUPT_SESSIONS = {
    "missing data file": lambda d: _session_with(d, data={"kind": "file", "path": "/no/such/file.arff",
                                                          "test_mode": "split"}),
    "tampered model": lambda d: json.dumps({**d, "model": _model_with_head_label(d["model"], 1000)}),
    "run series of text": lambda d: _session_with(d, runs=[{"name": "x", "series": {"train_hamming": ["a"]}}]),
    "current run out of range": lambda d: _session_with(d, current_run=99),
    "unknown learner parameter": lambda d: _session_with(d, learner__params={"bogus": 1}),
    "wrong number of switches": lambda d: _session_with(d, active=[True]),
    "bad data field": lambda d: _session_with(d, data__n_examples="many"),
    "a step's rule out of range": lambda d: _session_with(
        d, runs=[{**d["runs"][0], "steps": [{**d["runs"][0]["steps"][0], "rules": [
            {"conditions": [{"attribute": 10 ** 6, "operator": "<=", "threshold": 0.5}],
             "head": {"labels": [0], "scores": [1.0]}}]}] + d["runs"][0]["steps"][1:]}]),
    "a run's switches of the wrong length": lambda d: _session_with(d, runs=[{**d["runs"][0], "active": [True]}]),
    "a step missing": lambda d: _session_with(d, runs=[{**d["runs"][0], "steps": d["runs"][0]["steps"][1:]}]),
    "a step's metric of text": lambda d: _session_with(
        d, runs=[{**d["runs"][0], "steps": [{**d["runs"][0]["steps"][0], "metrics": {"train_hamming": "x"}}]
                  + d["runs"][0]["steps"][1:]}]),
    "truncated": lambda d: json.dumps(d)[:200],
    "deeply nested": lambda d: "[" * 50000 + "]" * 50000,
}


@pytest.mark.parametrize("case", sorted(CORRUPT_SESSIONS))
def test_a_corrupt_session_shows_a_message_and_changes_nothing(trained, saved, errors, tmp_path, case):
    _refused(trained, errors, "Cannot open the session", trained.open_session, tmp_path / "bad-session.json",
             CORRUPT_SESSIONS[case](saved["session"]))


@pytest.mark.parametrize("content", ["@relation x\n@attribute a numeric\n@data\n1,2,3\n", "", "\x00\xff"])
def test_a_malformed_data_file_shows_a_message_and_changes_nothing(trained, errors, tmp_path, content):
    from boomer_gui.components.state import DataSpec

    path = tmp_path / "bad.arff"
    path.write_text(content, errors="surrogateescape") if content.isascii() else path.write_bytes(
        content.encode("latin-1"))
    before = _snapshot(trained)
    assert not trained.load_data(DataSpec(kind="file", path=str(path), test_mode="split"))
    assert len(errors) == 1 and "bad.arff" in errors[0][1]
    _assert_unchanged(trained, before)


def test_a_valid_session_is_fully_checked_before_use(saved, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(saved["session"]))
    s = load_session(path)
    assert s.estimator is not None and len(s.estimator.model_.rules) == len(saved["session"]["model"]["model"]["rules"])
    assert Session.from_dict(s.to_dict()).to_dict() == s.to_dict()
