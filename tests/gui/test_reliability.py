"""View > Reliability diagram: the shown run's probabilities against the test labels, or a reason."""
from __future__ import annotations

import numpy as np

from boomer_gui.components.reliability import shown_run_reliability
from boomer_gui.plots.reliability_plot import ReliabilityDialog
from engine.boomer import BoomerClassifier


class _Data:
    def __init__(self, X, Y):
        self.X, self.Y, self.n_examples = X, Y, len(X)


class _App:
    def __init__(self, estimator, train, test):
        self.estimator = estimator
        self.run = type("Run", (), {"name": "1: BOOMER"})()
        self.data = type("Loaded", (), {"train": train, "test": test})()


def test_dialog_draws_the_shown_runs_reliability(qtbot):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    Y = ((X[:, :2] + rng.normal(size=(200, 2))) > 0).astype(np.uint8)
    est = BoomerClassifier(max_rules=6, marginal_probability_calibration="isotonic").fit(X[:100], Y[:100])
    result = shown_run_reliability(_App(est, _Data(X[:100], Y[:100]), _Data(X[100:], Y[100:])))
    assert result.curve.n_forecasts == Y[100:].size and "test" in result.title
    assert "marginal_probability_calibration=isotonic" in result.detail
    dialog = ReliabilityDialog(result)
    qtbot.addWidget(dialog)
    top, bottom = dialog.axes
    assert top.get_title().startswith("ECE") and sum(p.get_height() for p in bottom.patches) == Y[100:].size


def test_no_probabilities_is_a_reason_not_a_crash():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(60, 3)), (rng.random((60, 2)) < 0.5).astype(np.uint8)
    est = BoomerClassifier(loss="squared-hinge-decomposable", max_rules=3).fit(X, Y)
    for app, reason in [(_App(est, _Data(X, Y), _Data(X, Y)), "not supported"),
                        (_App(None, _Data(X, Y), _Data(X, Y)), "no fitted run")]:
        try:
            shown_run_reliability(app)
        except ValueError as error:
            assert reason in str(error)
        else:
            raise AssertionError("expected a reason")


def test_a_decision_list_has_no_probabilities_and_the_diagram_says_so(window, monkeypatch):
    """SeCo's rules predict labels: no predict_proba, and View > Reliability diagram says why."""
    import boomer_gui.plots.reliability_plot as plot
    from engine.seco import SeCoClassifier

    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(60, 3)), (rng.random((60, 2)) < 0.4).astype(np.uint8)
    est = SeCoClassifier(max_rules=4).fit(X, Y)
    assert not hasattr(est, "predict_proba")
    said = []
    monkeypatch.setattr(plot.QMessageBox, "information", lambda parent, title, text: said.append(text))
    monkeypatch.setattr(window, "app", _App(est, _Data(X, Y), _Data(X, Y)))
    window.act_reliability.trigger()
    assert said and "SeCoClassifier" in said[0] and "has no probabilities" in said[0]


def test_the_view_menu_says_why_before_any_run(window, monkeypatch):
    import boomer_gui.plots.reliability_plot as plot

    said = []
    monkeypatch.setattr(plot.QMessageBox, "information", lambda parent, title, text: said.append(text))
    window.act_reliability.trigger()
    assert said and "no fitted run" in said[0]


def test_the_explanation_shows_probabilities_and_the_gfm_rule(qtbot):
    from boomer_gui.rules.explanation import ExplanationPanel

    rng = np.random.default_rng(2)
    X = rng.normal(size=(160, 3))
    Y = ((X[:, :2] + rng.normal(size=(160, 2))) > 0).astype(np.uint8)
    est = BoomerClassifier(max_rules=6, binary_predictor="gfm", marginal_probability_calibration="isotonic"
                           ).fit(X[:100], Y[:100])
    panel = ExplanationPanel()
    qtbot.addWidget(panel)
    test = type("Test", (), {"X": X[100:].astype(np.float32), "Y": Y[100:], "n_examples": 60})()
    panel.set_context(est.model_, test)
    panel.show_example(3)
    text = panel.summary.text()
    assert "GFM prediction" in text and "Probabilities:" in text
    shown = [float(part.split()[-1]) for part in text.split("Probabilities: ")[1].split(", ")]
    np.testing.assert_allclose(shown, est.predict_proba(X[103:104])[0], atol=5e-4)
