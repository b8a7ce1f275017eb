"""Runs of every learner live together (issue 30): BOOMER, SeCo, label ranking and ML-ME runs share
the run table, the trajectory plot and the quit prompt; selecting a run shows its own components
(rules in the rule table, other steps in the step view), whatever learner the setup panel shows."""
from __future__ import annotations

import numpy as np
import pytest

from boomer_gui.panels.run_table import COL_LEARNER, COL_SIZE, COL_STATUS, COL_TEH

RANKING = {"max_iterations": 12, "eval_every": 4}
MLME = {"n_experts": 2, "max_em_iter": 5, "early_stopping": False, "sa_iterations": 20}


def _train(window, qtbot, learner, preset=None, **params):
    """Pick ``learner`` in the setup panel (its public API) and train it to the end."""
    panel = window.learner_panel
    panel.set_learner(learner)
    if preset:
        panel.apply_preset(preset)
    panel.set_params(params)
    n = len(window.history)
    assert window.start_training()
    run = window.history.runs[n]
    assert run.learner == learner and window.plot.lines_of(run) is not None  # on the plot from the start
    assert window.run_model.index(n, COL_STATUS).data() in ("running", "preparing")
    with qtbot.waitSignal(window.training.done, timeout=120000) as blocker:
        pass
    assert blocker.args[0] == "finished"
    return run


def _column(window, col):
    model = window.run_model
    return [model.index(r, col).data() for r in range(model.rowCount())]


def _plotted(window, run):
    """The (x, y) of the run's test trajectory as drawn."""
    art = window.plot.lines_of(run)
    return np.asarray(art.test.get_xdata(), float), np.asarray(art.test.get_ydata(), float)


def _shows_steps(window) -> bool:
    return window.centre.currentWidget() is window.step_view


def test_runs_of_five_learners_share_the_table_and_the_plot(qtbot, make_window, errors):
    window = make_window(max_rules=10)
    b1 = _train(window, qtbot, "boomer", max_rules=10)
    b2 = _train(window, qtbot, "boomer", "Example-wise, multi-label heads", max_rules=8)
    lr = _train(window, qtbot, "label-ranking", **RANKING)
    me = _train(window, qtbot, "ml-me", **MLME)
    se = _train(window, qtbot, "seco", max_rules=5)
    runs = [b1, b2, lr, me, se]
    assert window.history.runs == runs and window.run_model.rowCount() == 5
    assert _column(window, COL_LEARNER) == ["boomer", "boomer", "label-ranking", "ml-me", "seco"]
    assert _column(window, COL_SIZE) == ["10 rules", "8 rules", "12 iterations", "2 experts", "5 rules"]
    assert _column(window, COL_STATUS) == ["finished"] * 5
    assert all(t != "–" for t in _column(window, COL_TEH))
    assert window.top_tabs.indexOf(window.run_table) >= 0

    # every run on the one trajectory plot, with a style of its own
    window.plot.draw_now()
    assert window.plot.plotted_runs() == runs
    assert len({(r.color, r.marker) for r in runs}) == 5
    x, y = _plotted(window, lr)  # test metrics every 4 iterations (and the first and the last)
    reported = [s for s in lr.records if "test_hamming" in s.metrics]
    assert len(x) == len(reported) == 4
    np.testing.assert_allclose(x, [s.metrics["test_hamming"] for s in reported])
    np.testing.assert_allclose(y, [s.metrics["test_subset"] for s in reported])
    x, _ = _plotted(window, me)
    np.testing.assert_allclose(x, [s.metrics["test_hamming"] for s in me.records])
    assert len(_plotted(window, b1)[0]) == 10
    assert lr.final_losses()["test_hamming"] == pytest.approx(reported[-1].metrics["test_hamming"])

    # selecting a run shows its own components, whatever the setup panel shows (SeCo now)
    for row, run in enumerate(runs):
        window.run_table.view.selectRow(row)
        assert window.run is run
        if run.learner in ("boomer", "seco"):
            assert not _shows_steps(window)
            assert [r.rule for r in window.table_model.records] == run.estimator.model_.rules
            assert window.details.isTabVisible(window.details.indexOf(window.inspector))
        else:
            assert _shows_steps(window) and window.step_view.run is run
            assert window.step_view.model.steps == run.records
            assert window.top_tabs.tabText(0) == ("Iterations" if run is lr else "Experts")
            assert not window.details.isTabVisible(window.details.indexOf(window.inspector))
            assert window.details.isTabVisible(window.details.indexOf(window.step_view.plots))
            window.step_view.select_step(0)
            assert window.step_view.inspector.toPlainText()
    window.run_table.view.selectRow(3)  # the model's summary until a step is selected
    assert "mixture of 2 CTBN expert(s)" in window.step_view.inspector.toPlainText()
    window.step_view.select_step(0)
    assert "Expert 1" in window.step_view.inspector.toPlainText()
    assert window.learner_panel.spec.key == "seco"
    assert errors == []


def test_changing_the_setup_learner_keeps_the_runs_and_their_views(qtbot, make_window, errors):
    window = make_window(max_rules=10)
    boomer = _train(window, qtbot, "boomer", max_rules=10)
    window.learner_panel.set_learner("label-ranking")
    assert window.top_tabs.indexOf(window.run_table) >= 0 and window.run_model.rowCount() == 1
    assert not _shows_steps(window) and window.table_model.rowCount() == 10  # still BOOMER's rules
    assert window.plot.plotted_runs() == [boomer] and window.plot.lines_of(boomer).test.get_visible()

    ranking = _train(window, qtbot, "label-ranking", **RANKING)
    assert _shows_steps(window) and window.step_view.run is ranking
    window.learner_panel.set_learner("boomer")  # the shown run's view stays: it follows the run
    assert _shows_steps(window) and window.history.runs == [boomer, ranking]
    assert window.plot.plotted_runs() == [boomer, ranking]
    assert window.top_tabs.indexOf(window.run_table) >= 0
    window.run_table.view.selectRow(0)
    assert not _shows_steps(window) and window.run is boomer
    assert window.top_tabs.tabText(0) == "Rules"
    again = _train(window, qtbot, "boomer", max_rules=6)
    assert window.history.runs == [boomer, ranking, again] and window.table_model.rowCount() == 6
    assert errors == []


def test_the_quit_prompt_counts_runs_of_every_learner(qtbot, make_window):
    window = make_window(max_rules=10)
    _train(window, qtbot, "boomer", max_rules=10)
    _train(window, qtbot, "label-ranking", **RANKING)
    _train(window, qtbot, "cc-lr")
    asked = []
    window.confirm_close = lambda text: (asked.append(text), "cancel")[1]
    window.close()
    assert window.isVisible() and len(asked) == 1 and asked[0].startswith("3 runs")
    window.confirm_close = lambda text: "discard"


def test_sessions_keep_runs_of_every_learner(qtbot, make_window, tmp_path, errors):
    window = make_window(max_rules=10)
    boomer = _train(window, qtbot, "boomer", max_rules=10)
    ranking = _train(window, qtbot, "label-ranking", **RANKING)
    path = tmp_path / "session.json"
    window.save_session(path)
    window.open_session(path)
    runs = window.history.runs
    assert [r.learner for r in runs] == ["boomer", "label-ranking"] and window.run_model.rowCount() == 2
    assert window.plot.plotted_runs() == runs
    np.testing.assert_allclose(runs[1].array("test_hamming"), ranking.array("test_hamming"))
    assert _shows_steps(window) and window.run is runs[1]  # the shown run when saved
    assert "Label-ranking model" in window.step_view.inspector.toPlainText()  # its model; steps are not kept
    window.run_table.view.selectRow(0)
    assert [r.rule for r in window.table_model.records] == boomer.estimator.model_.rules
    assert errors == []


def test_plot_exports_with_a_run_of_steps_shown(qtbot, make_window, tmp_path, errors):
    window = make_window(max_rules=5)
    _train(window, qtbot, "boomer", max_rules=5)
    _train(window, qtbot, "label-ranking", **RANKING)
    window.export_plot(tmp_path / "all.png")  # the trajectories of every run
    window.export_plot(tmp_path / "ranking.png", "learner")  # the shown run's own plots
    assert (tmp_path / "all.png").stat().st_size > 0 and (tmp_path / "ranking.png").stat().st_size > 0
    assert errors == []
