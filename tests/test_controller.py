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
    assert [r.name for r in app.history] == [
        "BOOMER · label-wise logistic, auto heads (mlrl defaults) · max_rules=6",
        "Label ranking · Trained with dom · max_iterations=9, eval_every=4",
        "ML-ME · 5 experts, no early stopping · n_experts=2, max_em_iter=5, sa_iterations=20"]
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
    # the stopped run is the shown one (a new run is shown at once) and has no model: every other
    # run keeps its model in its own entry
    assert [("model" in r) for r in session.runs] == [True, True, True, False] and session.model is None
    reopened = Session.from_dict(session.to_dict()).history()
    assert [r.learner for r in reopened] == ["boomer", "label-ranking", "ml-me", "label-ranking"]
    assert type(reopened.runs[1].estimator) is type(ranking.estimator)
    np.testing.assert_allclose(reopened.runs[2].array("test_hamming"), mlme.array("test_hamming"))
    assert app.why_not_inspectable(reopened.runs[3]).endswith("its steps were not kept (the run has no model).")


class _FakeLearner:
    """A learner that streams three steps with known losses and has no model file."""

    LOSSES = [(0.30, 0.90, 0.32, 0.92), (0.20, 0.70, 0.25, 0.80), (0.10, 0.50, 0.20, 0.75)]

    def fit_iter(self):
        from engine.steps import Step

        for i, (th, ts, vh, vs) in enumerate(self.LOSSES):
            yield Step(i, "update", f"step {i}", {"train_hamming": th, "train_subset": ts, "test_hamming": vh,
                                                   "test_subset": vs})


def test_a_run_lives_start_records_finish_replay_and_a_session_round_trip_without_qt(app, tmp_path):
    """The whole lifecycle on the application model alone, with a fake learner: every change is an
    event in order, the series are the steps' losses, a replay counts what is on screen, and a
    session written and read back (data regenerated) holds the same run."""
    from types import SimpleNamespace

    from boomer_gui.components.controller import EVENTS
    from boomer_gui.components.session import save_session

    events = []
    for name in EVENTS:
        getattr(app, name).connect(lambda *args, name=name: events.append(name))
    spec = SimpleNamespace(key="fake", presets={"demo": {"depth": 2}})
    run = app.begin_run(spec, {"depth": 2}, _FakeLearner())
    assert run.name == "fake · demo" and run.status == "running" and app.run is run
    for step in _FakeLearner().fit_iter():
        app.record(run, [step])
    app.end_run(run, "finished", 0.5, app.estimator)
    app.settle(run)
    assert events == ["run_added"] + ["run_updated"] * 3 + ["run_ended", "run_settled"]
    assert run.array("test_hamming").tolist() == [0.32, 0.25, 0.20]
    assert run.final_losses() == {"train_hamming": 0.10, "train_subset": 0.50, "test_hamming": 0.20,
                                  "test_subset": 0.75}
    # replay: the model says how many steps are on screen, and the losses of the step shown
    events.clear()
    records = app.begin_replay(run)
    assert len(records) == 3 and run.view_len() == 0
    app.replayed(run, 2)
    assert run.view_len() == 2 and run.losses_at(run.view_len() - 1)["test_subset"] == 0.80
    app.replayed(run, 1)
    app.settle(run)
    assert run.view_len() == 3 and events == ["run_updated"] * 3 + ["run_settled"]
    # a second run of the same setting is told apart
    second = app.begin_run(spec, {"depth": 2})
    assert second.name == "fake · demo #2"
    app.end_run(second, "stopped", 0.1, None)
    # the session round trip: the fake learner has no model file, its losses are kept
    path = tmp_path / "s.json"
    save_session(path, app.session("", {}, False, [], {"text_filter": "x1", "selected_rule": 1}))
    session, loaded = app.read_session(path)
    assert loaded.key == app.data.key and session.view == {"text_filter": "x1", "selected_rule": 1}
    events.clear()
    app.replace_history(session.history())
    assert events == ["history_replaced"] and app.run is None
    back = app.history.runs
    assert [(r.name, r.status, r.elapsed) for r in back] == [(run.name, "finished", 0.5), (second.name, "stopped", 0.1)]
    for key in ("train_hamming", "train_subset", "test_hamming", "test_subset"):
        np.testing.assert_array_equal(back[0].array(key), run.array(key))
    # removing a run: before and after events around the history change
    seen = []
    app.run_removing.connect(lambda r: seen.append(("removing", r in app.history.runs)))
    app.run_removed.connect(lambda r: seen.append(("removed", r in app.history.runs)))
    app.remove_run(back[1])
    assert seen == [("removing", True), ("removed", False)] and len(app.history) == 1


def test_a_session_asking_for_more_synthetic_data_than_the_panel_allows_is_refused(tmp_path):
    """A session file cannot make the window generate 99,999,999 examples on the GUI thread."""
    import json

    from boomer_gui.components.controller import Controller
    from boomer_gui.components.session import SESSION_FORMAT

    doc = {"format": SESSION_FORMAT, "version": 1, "learner": {"key": "", "params": {}},
           "data": {"kind": "synthetic", "n_examples": 99_999_999}}
    (tmp_path / "huge.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="n_examples"):
        Controller.read_session(tmp_path / "huge.json")


def test_a_run_that_ended_before_its_budget_says_why(app):
    """BOOMER on constant attributes learns only its default rule: the run keeps the learner's
    reason, the run's description shows it, and a session keeps it."""
    import warnings

    from boomer_gui.components.session import Session
    from engine.registry import get

    spec = get("boomer")
    est = spec.make(max_rules=10)
    run = app.begin_run(spec, {"max_rules": 10}, est)
    X = np.ones((60, 3))
    Y = app.data.train.Y[:60]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for rec in est.fit_iter(X, Y):
            app.record(run, [rec])
    app.end_run(run, "finished", 0.1, est)
    assert run.ended_early and "1 of 10 rules" in run.ended_early and run.ended_early in run.describe()
    back = Session.from_dict(app.session("", {}, False, []).to_dict()).history().runs[0]
    assert back.ended_early == run.ended_early
    est3 = spec.make(max_rules=3)
    full = app.begin_run(spec, {"max_rules": 3}, est3)
    for rec in est3.fit_iter(app.data.train.X, app.data.train.Y):
        app.record(full, [rec])
    app.end_run(full, "finished", 0.1, est3)
    assert full.ended_early is None


def test_a_run_of_a_preset_with_another_budget_says_so(app):
    from types import SimpleNamespace

    from boomer_gui.components.controller import run_title

    spec = SimpleNamespace(key="ml-me", budget="n_experts", presets={"Paper": {"n_experts": 5, "early_stopping": True}})
    assert run_title(spec, {"n_experts": 5, "early_stopping": True}) == "ML-ME · Paper"
    assert run_title(spec, {"n_experts": 3, "early_stopping": True}) == "ML-ME · Paper · n_experts=3"
    assert run_title(spec, {"n_experts": 3, "early_stopping": False}) == "ML-ME · n_experts=3, early_stopping=False"
