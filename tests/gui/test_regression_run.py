"""Regression runs in the window (issue 58, item 4): BOOMER's regressor on real-valued targets streams
its rules, the plot shows its training and test MSE and MAE against rules beside a classification run's
Hamming and subset 0/1 lines, why-this-head and the explanation work on its rules, a session keeps both
kinds of run, and a learner of the other task is refused before any work."""
from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from engine.head_explanation import head_statistics
from engine.inspection import explain
from engine.regression_metrics import averaged

from boomer_gui.components import exports
from boomer_gui.components.state import DataSpec
from boomer_gui.plots.trajectory_plot import REGRESSION_TAB

REGRESSION = DataSpec(kind="synthetic", synthetic="linear-regression", n_examples=300, n_test=200, n_labels=3, seed=0)
RULES = 20


@pytest.fixture(scope="module", autouse=True)
def compiled_regressor_kernels():
    """The regressor's kernels (float32 targets: kernels of their own), compiled once and untimed before a
    run waits with a timeout; here, not in every GUI worker's session fixture."""
    from engine.boomer import BoomerRegressor
    from engine.datasets import make_synthetic

    r = make_synthetic("linear-regression", 200, 3, seed=0)
    for _ in BoomerRegressor(max_rules=3).fit_iter(r.X, r.Y.astype("float32"), r.X, r.Y.astype("float32")):
        pass


def _regression_run(window, train):
    """Load the synthetic regression data and train the regressor (20 rules) on them."""
    assert window.load_data(REGRESSION)
    assert window.learner_panel.spec.key == "boomer-regressor"  # the panel offers the regressor
    window.learner_panel.set_params({"max_rules": RULES})
    assert train(window) == "finished"
    return window.run


def _series_of(line) -> np.ndarray:
    return np.asarray(line.get_ydata(), dtype=float)


@pytest.fixture
def both(make_window, train):
    """A window with a classification run, then a regression run beside it."""
    window = make_window(max_rules=RULES)
    assert train(window) == "finished"
    classification = window.run
    regression = _regression_run(window, train)
    return window, classification, regression


def test_a_regression_run_streams_rules_and_plots_the_engines_mse_and_mae(qtbot, both, errors):
    window, classification, run = both
    data = window.data
    assert run.regression and run.measures == ("mse", "mae") and len(run) == RULES
    assert window.proxy.rowCount() == RULES  # the rule table holds every streamed rule
    # heads as real values per target: the table's head text names the targets with their scores
    head = window.table_model.head_text(1)
    assert any(name in head for name in ("t1", "t2", "t3"))
    rule = window.model.rules[1]
    assert f"{rule.head_scores[0]:+.2f}"[:4] in head or f"{rule.head_scores[0]:.2f}"[:4] in head
    # every rule's training and test MSE and MAE are the engine's measures of the model of that many rules
    est = run.estimator
    for split, X, Y in (("train", data.train.X, data.train.Y), ("test", data.test.X, data.test.Y)):
        for k, P in enumerate(est.predict_incrementally(X)):
            assert run.series[f"{split}_mse"][k] == pytest.approx(averaged("mse", Y, P), abs=1e-6), (split, k)
            assert run.series[f"{split}_mae"][k] == pytest.approx(averaged("mae", Y, P), abs=1e-6), (split, k)
        assert k == RULES - 1
    # the plot: the regression tab is in front; its lines are those series, on the MSE and MAE axes
    plot = window.plot
    assert plot.tabs.isTabVisible(REGRESSION_TAB) and plot.tabs.currentIndex() == REGRESSION_TAB
    lines = plot.lines_of(run)
    assert lines.h_train.axes is plot.mse_ax and lines.s_test.axes is plot.mae_ax
    np.testing.assert_allclose(_series_of(lines.h_train), run.series["train_mse"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(_series_of(lines.h_test), run.series["test_mse"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(_series_of(lines.s_train), run.series["train_mae"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(_series_of(lines.s_test), run.series["test_mae"], rtol=0, atol=1e-9)
    assert len(lines.train.get_xdata()) == 0  # nothing of it on the Hamming-versus-subset axes
    # the classification run keeps its Hamming and subset 0/1 lines
    c_lines = plot.lines_of(classification)
    assert c_lines.h_test.axes is plot.hamming_ax and c_lines.s_test.axes is plot.subset_ax
    np.testing.assert_allclose(_series_of(c_lines.h_test), classification.series["test_hamming"])
    np.testing.assert_allclose(_series_of(c_lines.s_test), classification.series["test_subset"])
    np.testing.assert_allclose(c_lines.test.get_xdata(), classification.series["test_hamming"])
    # the mean-squared-error axis shows the regression run's values, the Hamming axis none of them
    plot.draw_now()
    lo, hi = plot.mse_ax.get_ylim()
    assert lo <= min(run.series["train_mse"]) and hi >= max(run.series["test_mse"])
    assert plot.hamming_ax.get_ylim()[1] < 1.5
    # a regressor's model read from a file gets the same trajectory, rebuilt rule by rule
    rebuilt = window.app.reconstruct_run("boomer-regressor", run.estimator, "from a file")
    assert rebuilt.regression and len(rebuilt) == RULES
    for key in ("train_mse", "train_mae", "test_mse", "test_mae"):
        np.testing.assert_allclose(rebuilt.series[key], run.series[key], rtol=1e-12)
    window.app.remove_run(rebuilt)
    # an export of its rules holds its MSE and MAE where a classifier's holds the Hamming and subset 0/1 losses
    rows = list(csv.reader(io.StringIO(exports.rules_csv(run.records, data.train.schema))))
    assert rows[0][-4:] == ["train_mse", "train_mae", "test_mse", "test_mae"] and len(rows) == RULES + 1
    assert rows[-1][-4:] == [f"{run.series[k][-1]:.6g}" for k in ("train_mse", "train_mae", "test_mse", "test_mae")]
    assert "train_hamming" in exports.rules_csv(classification.records).splitlines()[0]
    # the status line names the regression measures
    assert "MSE" in window.loss_label.text() and "Hamming" not in window.loss_label.text()
    assert errors == []


def test_the_runs_legend_lists_the_runs_drawn_on_the_tab_in_front(qtbot, both, errors):
    window, classification, regression = both
    plot = window.plot
    assert plot.tabs.currentIndex() == REGRESSION_TAB  # the regression run is the live one
    qtbot.waitUntil(lambda: plot.run_legend.names() == [regression.name])
    for tab in (0, 1):  # trajectory and losses: the classification run's lines only
        plot.tabs.setCurrentIndex(tab)
        assert plot.run_legend.names() == [classification.name]
    plot.tabs.setCurrentIndex(REGRESSION_TAB)
    assert plot.run_legend.names() == [regression.name]
    assert errors == []


def test_the_data_panel_shows_target_ranges_of_regression_data(qtbot, make_window, errors):
    window = make_window()
    assert window.data_panel.labels_table.horizontalHeaderItem(1).text() == "frequency"
    assert window.load_data(REGRESSION)
    table, train = window.data_panel.labels_table, window.data.train
    assert [table.horizontalHeaderItem(c).text() for c in range(4)] == ["target", "min", "mean", "max"]
    assert table.rowCount() == 3
    Y = np.asarray(train.Y, dtype=np.float64)
    for k in range(3):
        assert table.item(k, 0).text() == train.label_names[k]
        got = [table.item(k, c).data(0x0100) for c in (1, 2, 3)]  # Qt.UserRole
        np.testing.assert_allclose(got, [Y[:, k].min(), Y[:, k].mean(), Y[:, k].max()])
    assert "real-valued target" in window.data_panel.summary.text()
    # the generator offers the regression kind beside the classification ones
    kinds = [window.data_panel.kind.itemData(i) for i in range(window.data_panel.kind.count())]
    assert "linear-regression" in kinds and "conditional-dependence" in kinds
    assert errors == []


def test_atp7d_opens_as_regression_data(qtbot, make_window, errors):
    path = "/work/shared/data/atp7d.arff"
    window = make_window()
    assert window.load_data(DataSpec(kind="file", path=path, test_mode="split", test_fraction=0.3))
    assert window.data.task == "regression" and window.data.train.n_labels == 6
    assert window.data_panel.labels_table.rowCount() == 6
    assert window.learner_panel.spec.key == "boomer-regressor"
    assert errors == []


def test_a_learner_of_the_other_task_is_refused_with_a_message(qtbot, make_window, errors):
    window = make_window()
    panel = window.learner_panel
    # classification data: the regressor is listed but greyed
    i = panel.combo.findData("boomer-regressor")
    assert i >= 0 and not panel.combo.model().item(i).isEnabled()
    assert window.load_data(REGRESSION)
    assert panel.spec.key == "boomer-regressor"  # the chosen classifier gave way
    assert not panel.combo.model().item(panel.combo.findData("boomer")).isEnabled()
    assert panel.combo.model().item(panel.combo.findData("boomer-regressor")).isEnabled()
    panel.set_learner("boomer")  # chosen anyway (from code, a session): a clear note, and Start refuses
    assert panel.task_note.isVisibleTo(window) and "real-valued targets" in panel.task_note.text()
    n_runs = len(window.history)
    assert not window.start_training()
    assert len(window.history) == n_runs and not window.training_active
    assert errors and errors[-1][0] == "Learner does not fit the data"
    assert "0/1 labels" in errors[-1][1] and "real-valued targets" in errors[-1][1]
    # back on classification data the regressor is refused the same way
    errors.clear()
    assert window.load_data(DataSpec(kind="synthetic", synthetic="conditional-dependence", n_examples=300,
                                     n_test=300, seed=0))
    assert panel.spec.key == "boomer"
    panel.set_learner("boomer-regressor")
    assert not window.start_training()
    assert "0/1 labels" in errors[-1][1] and len(window.history) == n_runs


def test_why_this_head_and_the_explanation_of_a_regression_rule(qtbot, both, errors):
    window, _, run = both
    data = window.data
    window.details.setCurrentWidget(window.head_view)
    window.select_rule(3)
    view = window.head_view
    expected = head_statistics(window.estimator, data.train.X, data.train.Y, 3)
    assert view.stats is not None and view.stats.regression and view.stats.rule_index == 3
    assert view.table.horizontalHeaderItem(0).text() == "target"
    assert view.table.rowCount() == len(expected.labels)
    covered = window.model.rules[3].covers(np.asarray(data.train.X))
    for r, k in enumerate(expected.labels):
        # squared error: g = f - y, h = 1 per covered example; the optimum -Σg / (Σh + λ)
        assert expected.hessian_sums[r] == pytest.approx(covered.sum())
        assert view.table.item(r, 3).text() == f"{expected.gradient_sums[r]:+.4g}"
        optimum = -expected.gradient_sums[r] / (expected.hessian_sums[r] + expected.l2)
        assert expected.solution[r] == pytest.approx(optimum, rel=1e-9)
        assert expected.recomputed_head[r] == pytest.approx(expected.head[r], rel=1e-4)  # float32 statistics
        assert view.table.item(r, 1).text() == f"{np.mean(np.asarray(data.train.Y)[covered, k]):.4g}"
    assert "Rule #3" in view.summary.text() and "f − y" in view.summary.text()
    # the explanation of a test example: each covering rule's contribution per target, summing to the prediction
    window.details.setCurrentWidget(window.explanation)
    panel = window.explanation
    panel.spin.setValue(5)
    qtbot.waitUntil(lambda: panel.explanation is not None and panel.example == 5)
    x = np.asarray(data.test.X)[5]
    ref = explain(window.model, x)
    shown = panel.table_contributions()
    np.testing.assert_allclose(shown[-1], ref.scores)
    np.testing.assert_allclose(shown[:-1].sum(axis=0), window.estimator.predict(x[None, :])[0], rtol=1e-9)
    assert panel.table.item(0, 0).text() == "Σ = prediction" and panel.table.item(1, 0).text() == "truth"
    assert not panel.next_wrong.isEnabled()
    assert errors == []


def test_a_session_keeps_both_kinds_of_run(qtbot, both, make_window, tmp_path, errors):
    window, classification, run = both
    path = tmp_path / "both.json"
    window.save_session(path)
    other = make_window()
    other.open_session(path)
    runs = list(other.history)
    assert [r.name for r in runs] == [classification.name, run.name]
    reopened_c, reopened_r = runs
    assert reopened_c.measures == ("hamming", "subset") and reopened_r.measures == ("mse", "mae")
    for key in ("train_mse", "train_mae", "test_mse", "test_mae"):
        np.testing.assert_allclose(reopened_r.series[key], run.series[key])
    for key in ("train_hamming", "test_subset"):
        np.testing.assert_allclose(reopened_c.series[key], classification.series[key])
    # the regressor's model came back with its run: the same predictions
    X = np.asarray(window.data.test.X)
    assert type(reopened_r.estimator).__name__ == "BoomerRegressor"
    np.testing.assert_allclose(reopened_r.estimator.predict(X), run.estimator.predict(X), rtol=0, atol=1e-9)
    plot = other.plot
    assert plot.tabs.isTabVisible(REGRESSION_TAB)
    assert plot.lines_of(reopened_r).h_test.axes is plot.mse_ax
    assert plot.lines_of(reopened_c).h_test.axes is plot.hamming_ax
    assert errors == []
