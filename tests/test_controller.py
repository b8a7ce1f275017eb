"""The application's Qt-free core (boomer_gui.components.controller), tested without any window: run metadata,
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
    from boomer_gui.components.controller import Controller
    from boomer_gui.components.state import DataSpec, load_data

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
    code = "import sys, boomer_gui.components.controller; print(sorted({m.split('.')[0] for m in sys.modules} & {'PySide6', 'superqt'}))"
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
    from boomer_gui.components.controller import records_of, step_of

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
    from boomer_gui.components.session import Session

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


def _train_any(app, key, **params):
    """What the window does for a run of any learner: begin, record each batch, end."""
    from engine.registry import get

    spec = get(key)
    est = spec.make(**params)
    d = app.data
    run = app.begin_run(spec, params)
    for step in est.fit_iter(d.train.X, d.train.Y, d.test.X, d.test.Y, schema=d.train.schema):
        app.record(run, [step])
    app.end_run(run, "finished", 1.0, est)
    return run


def test_runs_of_every_learner_share_the_history_and_the_session(app):
    from boomer_gui.components.controller import shows_steps, spec_of
    from boomer_gui.components.session import Session

    boomer = _train_any(app, "boomer", max_rules=6)
    ranking = _train_any(app, "label-ranking", max_iterations=9, eval_every=4)
    mlme = _train_any(app, "ml-me", n_experts=2, max_em_iter=5, early_stopping=False, sa_iterations=20)
    assert app.history.runs == [boomer, ranking, mlme]
    assert [r.name for r in app.history] == ["1: boomer: custom", "2: label-ranking: custom", "3: ml-me: custom"]
    assert app.close_prompt(False).startswith("3 runs")
    assert [shows_steps(spec_of(r)) for r in app.history] == [False, True, True]
    # the steps' losses are the runs' series; a loss reported every few steps is NaN in between
    assert len(ranking) == 9 and len(mlme) == 2 and ranking.has_test()
    th = ranking.array("test_hamming")
    assert np.isfinite(th).tolist() == [True, False, False, True, False, False, False, True, True]
    assert ranking.final_losses()["test_hamming"] == ranking.records[-1].metrics["test_hamming"]
    np.testing.assert_allclose(mlme.array("train_subset"), [s.metrics["train_subset"] for s in mlme.records])
    # showing a run of steps: its steps, no rule model
    assert app.why_not_inspectable(ranking) is None
    assert app.show(ranking, ranking.estimator) == ranking.records and app.model is None
    assert app.show(boomer, boomer.estimator)[0].rule == boomer.estimator.model_.rules[0]
    # a session keeps every run with its model; one whose model cannot be written keeps its losses
    stopped = app.begin_run(spec_of(ranking), {"max_iterations": 5})
    app.end_run(stopped, "stopped", 0.1, spec_of(ranking).make(max_iterations=5))  # never fitted
    session = app.session("boomer", {}, True, [True] * 6)
    assert app.unsaved_models == [stopped.name]
    assert [("model" in r) for r in session.runs] == [False, True, True, False]  # boomer's is the session's model
    reopened = Session.from_dict(session.to_dict()).history()
    assert [r.learner for r in reopened] == ["boomer", "label-ranking", "ml-me", "label-ranking"]
    assert type(reopened.runs[1].estimator) is type(ranking.estimator)
    np.testing.assert_allclose(reopened.runs[2].array("test_hamming"), mlme.array("test_hamming"))
    assert app.why_not_inspectable(reopened.runs[3]).endswith("its steps were not kept (the run has no model).")
