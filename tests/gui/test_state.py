"""Qt-free state: data specs, runs, history, rate meter, session documents."""
from __future__ import annotations

import math

import numpy as np
import pytest

from boomer_gui.components.session import Session
from boomer_gui.components.state import DataSpec, RunHistory, load_data, marker_positions, preset_name
from boomer_gui.adapters.training import RateMeter
from engine.learner import RuleRecord
from engine.rules import Rule


def test_marker_positions():
    assert marker_positions(1).tolist() == [0]
    assert marker_positions(10).tolist() == [0, 1, 3, 7, 9]  # 1, 2, 4, 8 and the last rule
    assert marker_positions(1000).tolist() == [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 999]  # as in Figure 1
    assert marker_positions(0).tolist() == []


def test_data_spec_validation_and_round_trip():
    with pytest.raises(ValueError):
        DataSpec(kind="file")
    spec = DataSpec(kind="file", path="x.arff", test_mode="generated")
    assert spec.test_mode == "split"  # generated test data only for synthetic sets
    assert DataSpec.from_dict(spec.to_dict()) == spec
    loaded = load_data(DataSpec(n_examples=50, n_test=40))
    assert loaded.train.n_examples == 50 and loaded.test.n_examples == 40
    assert loaded.bayes_point is not None


def test_runs_and_history_round_trip():
    history = RunHistory()
    run = history.new_run("a", "boomer", {"max_rules": 3})
    other = history.new_run("b", "boomer", {})
    assert run.color != other.color
    rule = Rule((), np.array([0]), np.array([1.0]))
    run.append([RuleRecord(0, rule, 10, math.nan, 0.5, 0.9, None, None),
                RuleRecord(1, rule, 4, 2.0, 0.4, 0.8, None, None)])
    assert len(run) == 2 and not run.has_test()
    assert run.final_losses() == {"train_hamming": 0.4, "train_subset": 0.8}
    again = RunHistory.from_list(history.to_list())
    assert [r.name for r in again] == [r.name for r in history]
    np.testing.assert_allclose(again.runs[0].array("train_hamming"), [0.5, 0.4])
    assert math.isnan(again.runs[0].array("improvement")[0])


def test_preset_name():
    presets = {"A": {"x": 1}, "B": {"x": 2, "y": 3}}
    assert preset_name(presets, {"x": 2, "y": 3, "z": 0}) == "B"
    assert preset_name(presets, {"x": 3}) is None


def test_rate_meter():
    m = RateMeter(window_s=10)
    m.start = 0.0
    m.add(10, now=1.0)
    m.add(110, now=2.0)
    assert m.rate() == pytest.approx(100)
    assert m.eta(110, 310) == pytest.approx(2.0)
    assert m.eta(110, None) is None


def test_session_document_validation():
    with pytest.raises(ValueError):
        Session.from_dict({"format": "other"})
    s = Session(DataSpec(), "boomer", {"max_rules": 5})
    assert Session.from_dict(s.to_dict()).data == DataSpec()
