"""File > Export model as Python or text: the shown model as a plain-Python module or IF … THEN … text."""
from __future__ import annotations

import importlib.util
import re

import numpy as np


def _import(path):
    spec = importlib.util.spec_from_file_location("exported_from_window", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_export_menu_writes_a_module_that_predicts_as_the_window(trained, tmp_path, monkeypatch):
    assert trained.act_export_model.isEnabled()
    path = tmp_path / "model.py"
    monkeypatch.setattr(trained.files, "ask_save", lambda *args: str(path))
    trained.act_export_model.trigger()
    module = _import(path)
    X = trained.data.test.X
    rows = np.asarray(X, dtype=np.float64).tolist()
    np.testing.assert_array_equal(np.array(module.predict(rows), dtype=np.uint8), trained.model.predict(X))
    np.testing.assert_array_equal(np.array(module.decision_function(rows)), trained.model.scores(X))
    text = tmp_path / "model.txt"
    monkeypatch.setattr(trained.files, "ask_save", lambda *args: str(text))
    trained.act_export_model.trigger()
    rule_lines = [line for line in text.read_text().splitlines() if re.match(r"\s*\d+\. (IF|ALWAYS) ", line)]
    assert len(rule_lines) == len(trained.model.rules)


def test_export_without_a_model_is_one_message_and_the_window_stays(window, errors, tmp_path, monkeypatch):
    assert not window.act_export_model.isEnabled()
    monkeypatch.setattr(window.files, "ask_save", lambda *args: str(tmp_path / "m.py"))
    window.files.export_model_dialog()
    assert errors and errors[-1][0] == "Cannot export the model" and "no finished model" in errors[-1][1]
    assert not (tmp_path / "m.py").exists()
