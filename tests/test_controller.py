"""The application's Qt-free core (boomer_gui.controller), tested without any window: run metadata,
rebuilding a loaded model's trajectory, step records of any run, what-if switches and sessions."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from engine import AdaBoostMHClassifier, BoomerClassifier
from engine.inspection import WhatIf


@pytest.fixture
def app():
    from boomer_gui.controller import Controller
    from boomer_gui.state import DataSpec, load_data

    c = Controller()
    c.set_data(load_data(DataSpec(kind="synthetic", n_examples=300, n_test=300, seed=0)))
    return c


def _train(app, est, title="run"):
    """What the window does while a run streams, without Qt."""
    d = app.data
    run = app.new_run(title, est.LEARNER_NAME, est.get_params())
    for rec in est.fit_iter(d.train.X, d.train.Y, d.test.X, d.test.Y, schema=d.train.schema):
        run.append([rec])
        run.records.append(rec)
    run.estimator = est
    return run


def test_the_controller_imports_no_qt():
    code = "import sys, boomer_gui.controller; print(sorted({m.split('.')[0] for m in sys.modules} & {'PySide6', 'superqt'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_runs_record_what_they_were_trained_on(app):
    run = _train(app, BoomerClassifier(max_rules=6, random_state=5))
    assert run.dataset == app.data.full.name and run.data_key == app.data.key and run.seed == 5
    assert app.why_not_inspectable(run) is None
    assert app.why_not_inspectable(app.history.new_run("empty", "boomer", {})) is not None


def test_a_loaded_model_gets_the_trajectory_it_was_trained_with(app):
    est = BoomerClassifier(max_rules=12)
    live = _train(app, est, "live")
    rebuilt = app.reconstruct_run("boomer", est, "loaded")
    for key in ("train_hamming", "train_subset", "test_hamming", "test_subset"):
        np.testing.assert_allclose(rebuilt.array(key), live.array(key), atol=1e-12)
    assert rebuilt.series["coverage"] == live.series["coverage"]


def test_records_and_steps_of_a_run_with_two_rules_per_step(app):
    from boomer_gui.controller import records_of, step_of

    est = AdaBoostMHClassifier(max_rules=4)
    run = _train(app, est)
    assert len(records_of(run, est.model_)) == 4 and len(est.model_.rules) == 8
    assert [step_of(run, row, 8) for row in range(8)] == [0, 0, 1, 1, 2, 2, 3, 3]
    run.records = None  # a run read from a session: rebuilt from the model, one record per rule
    boomer = BoomerClassifier(max_rules=5)
    b = _train(app, boomer)
    b.records = None
    assert [r.rule for r in records_of(b, boomer.model_)] == boomer.model_.rules


def test_what_if_switches_and_the_session_carry_every_run(app):
    from boomer_gui.files.session import Session

    first = _train(app, BoomerClassifier(max_rules=8), "first")
    est = BoomerClassifier(max_rules=10, loss="logistic-non-decomposable")
    second = _train(app, est, "second")
    records = app.show(second, est)
    assert len(records) == 10 and app.run is second
    losses = app.set_rule_active(3, False)
    d = app.data
    expected = WhatIf(est.model_, d.train.X, d.train.Y, d.test.X, d.test.Y)
    expected.set_active(3, False)
    assert losses == pytest.approx(expected.losses())
    active = [i != 3 for i in range(10)]
    session = app.session("boomer", {"max_rules": 10}, True, active)
    doc = session.to_dict()
    assert doc["current_run"] == 1 and doc["active"] == active
    assert "model" in doc["runs"][0] and "model" not in doc["runs"][1]  # the shown run's model is the session's
    reopened = Session.from_dict(doc).history()
    assert reopened.runs[0].estimator.model_.rules == first.estimator.model_.rules
    assert [r.dataset for r in reopened.runs] == [first.dataset, second.dataset]
