"""Any learner that streams steps joins the window through its registry declaration alone."""
from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from engine import registry
from engine.steps import Step


class ToyLearner(BaseEstimator):
    """Shrinks a number towards zero: one 'halving' per step, its value is the metric."""

    def __init__(self, n_steps=5, start=8.0):
        self.n_steps, self.start = n_steps, start

    def fit_iter(self, X, Y, X_test=None, Y_test=None, *, nominal_attributes=None, schema=None, cancel=None):
        if self.n_steps < 1:
            raise ValueError("n_steps must be at least 1")
        self.value_ = self.start

        def steps():
            for t in range(self.n_steps):
                self.value_ /= 2
                yield Step(t, "halving", {"value": self.value_}, {"toy_loss": self.value_, "twice": 2 * self.value_})
        return steps()


@pytest.fixture
def toy_learner():
    registry.register(registry.LearnerSpec(
        key="toy", title="Toy halving learner", factory=ToyLearner,
        parameters=(registry.Parameter("n_steps", "int", 5, "Steps", minimum=1, maximum=1000),),
        budget="n_steps", metrics=(registry.Metric("toy_loss", "toy loss"), registry.Metric("twice", "2 × loss")),
        plots=(registry.Plot("Toy loss", ((registry.STEP, "toy_loss"),)),),
        component=registry.ComponentView("halving", "halving",
                                         columns=(registry.Column("value", lambda s: s.component["value"]),),
                                         inspect=lambda s, schema: f"<p>halved to {s.component['value']}</p>")))
    yield "toy"
    registry.unregister("toy")


def test_a_toy_learner_streams_plots_and_inspects_without_gui_changes(qtbot, window, toy_learner, train, qtmodeltester):
    panel = window.learner_panel
    panel.refresh()
    panel.set_learner("toy")
    panel.set_params({"n_steps": 6})
    assert train(window) == "finished"
    view = window.step_view
    assert window.centre.currentWidget() is view
    assert view.model.rowCount() == 6
    assert view.model.headers() == ["#", "value", "toy loss", "2 × loss"]
    assert view.model.data(view.model.index(2, 1)) == "1"  # 8 / 2 / 2 / 2
    assert view.model.data(view.model.index(2, 3)) == "2"
    x, y = view.plots.series(registry.STEP, "toy_loss")
    np.testing.assert_allclose(x, np.arange(1, 7))
    np.testing.assert_allclose(y, 8 / 2 ** np.arange(1, 7))
    view.select_step(3)
    assert "halved to 0.5" in view.inspector.toPlainText()
    progress = window.run_controls.progress
    assert progress.maximum() == 6 == progress.value() and progress.text() == "6 / 6 halvings"  # the declared budget
    assert "toy loss 0.125" in window.loss_label.text()
    qtmodeltester.check(view.model)
    # the rule view comes back for a rule learner
    panel.set_learner("boomer")
    panel.set_params({"max_rules": 5})
    assert train(window) == "finished"
    assert window.centre.currentWidget() is window.table_box and window.table_model.rowCount() == 5


def test_label_ranking_runs_saves_and_loads_in_the_window(qtbot, window, train, tmp_path, errors):
    panel = window.learner_panel
    panel.set_learner("label-ranking")
    panel.set_params({"max_iterations": 25, "eval_every": 5})
    assert train(window) == "finished"
    view = window.step_view
    steps = view.model.steps
    assert len(steps) == 25 and all(s.kind == "update" for s in steps)
    loss = [s.metrics["train_loss"] for s in steps]
    assert all(b <= a + 1e-9 for a, b in zip(loss, loss[1:]))
    view.plots.flush()
    x, y = view.plots.series(registry.STEP, "train_loss")
    np.testing.assert_allclose(y, loss)
    xv, _ = view.plots.series(registry.STEP, "test_dis")
    np.testing.assert_array_equal(xv, [1, 5, 10, 15, 20, 25])  # test metrics every 5 steps
    view.select_step(0)
    text = view.inspector.toPlainText()
    assert "Iteration 1" in text and "Theorem 1" in text
    assert not window.act_export_rules.isEnabled()  # no rules to export
    path = tmp_path / "ranker.json"
    window.save_model(path)
    assert json.loads(path.read_text())["learner"] == "label-ranking"
    window.learner_panel.set_learner("boomer")
    window.load_model(path)
    assert window.centre.currentWidget() is view and "Label-ranking model" in view.inspector.toPlainText()
    assert errors == []


def test_mlme_streams_experts_into_the_window(qtbot, window, train, errors):
    panel = window.learner_panel
    panel.set_learner("ml-me")
    panel.set_params({"n_experts": 2, "max_em_iter": 5, "early_stopping": False, "sa_iterations": 20})
    assert train(window) == "finished"
    view = window.step_view
    steps = view.model.steps
    assert len(steps) == 2 and [s.component.expert for s in steps] == [1, 2]
    assert view.model.headers()[:3] == ["#", "tree", "accepted"]
    view.plots.flush()
    x, y = view.plots.series(registry.STEP, "test_cll")  # the learner's own plot, beside the trajectory
    np.testing.assert_allclose(y, [s.metrics["test_cll"] for s in steps])
    window.plot.draw_now()  # the trajectory plot of every run: one point per expert
    x = window.plot.lines_of(window.run).test.get_xdata()
    np.testing.assert_allclose(x, [s.metrics["test_hamming"] for s in steps])
    view.select_step(1)
    assert "Expert 2: accepted" in view.inspector.toPlainText()
    assert window.run_controls.progress.text() == "2 / 2 experts"
    # the count is beside the bar, never under its fill (the walkthrough could not read "2/5 experts")
    assert not window.run_controls.progress.isTextVisible() and window.run_controls.count.text() == "2 / 2 experts"
    assert errors == []


def test_classifier_chain_streams_labels_into_the_window(qtbot, window, train, errors):
    panel = window.learner_panel
    panel.set_learner("cc-lr")
    assert train(window) == "finished"
    view = window.step_view
    steps = view.model.steps
    K = window.data.train.Y.shape[1]
    assert len(steps) == K and [s.component.position for s in steps] == list(range(K))
    assert view.model.headers()[:2] == ["#", "label"]
    view.select_step(K - 1)
    assert f"Link {K}" in view.inspector.toPlainText()
    assert errors == []
