"""A saved session reopens as it was (issue 55, item 5): runs of all six learners with every step,
the selected run, rule and step, the rule filter and the shown tabs; and no view keeps another
run's or session's text after a switch."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt


RANKING = {"max_iterations": 6, "eval_every": 2}
MLME = {"n_experts": 2, "max_em_iter": 4, "early_stopping": False, "sa_iterations": 10}
SIX = (("boomer", {"max_rules": 6}), ("seco", {"max_rules": 3}), ("adaboost-mh", {"max_rules": 3}),
       ("label-ranking", RANKING), ("ml-me", MLME), ("cc-lr", {}),
       ("boomer", {"max_rules": 4, "post_optimization": "sequential{num_iterations=1}"}))  # revisions too


def _train(window, qtbot, learner, params):
    window.learner_panel.set_learner(learner)
    window.learner_panel.set_params(params)
    assert window.start_training()
    with qtbot.waitSignal(window.training.done, timeout=300_000) as blocker:
        pass
    assert blocker.args[0] == "finished"


def _cells(model, roles=(Qt.DisplayRole,)) -> list:
    return [[model.index(r, c).data(role) for c in range(model.columnCount()) for role in roles]
            for r in range(model.rowCount())]


def _values(data) -> list:
    """Plotted coordinates, comparable with == (NaN, where a line has a gap, as None)."""
    return [None if np.isnan(v) else v for v in np.asarray(data, float).round(12).tolist()]


def _plot(window) -> list:
    """Every run's drawn data on both plot tabs: each artist's x and y and whether it shows."""
    window.plot.draw_now()
    out = []
    for run in window.plot.plotted_runs():
        art = window.plot.lines_of(run)
        out.append([(_values(a.get_xdata()), _values(a.get_ydata()), a.get_visible())
                    for a in art.all() if hasattr(a, "get_xdata")])
    return out


def _components(window) -> dict:
    """What the shown run's component views hold: its rule or step table, and the texts about it."""
    w = window
    steps = w.centre.currentWidget() is w.step_view
    return {"steps": steps,
            "rows": _cells(w.step_view.model) if steps else _cells(w.table_model, (Qt.DisplayRole, Qt.CheckStateRole)),
            "shown_rows": w.proxy.rowCount(), "count": w.count_label.text(),
            "step_inspector": w.step_view.inspector.toPlainText() if steps else None,
            "top_tab_title": w.top_tabs.tabText(0), "loss_label": w.loss_label.text()}


def _snapshot(window) -> dict:
    """Every view's content, as a user sees it."""
    w = window
    selected = w.browser.selected_records()
    step_rows = w.step_view.table.selectionModel().selectedRows() if w.step_view.table.selectionModel() else []
    return {**_components(w),
            "runs": _cells(w.run_model, (Qt.DisplayRole, Qt.ToolTipRole, Qt.CheckStateRole)),
            "plot": _plot(w), "shown_run": w.history.runs.index(w.run) if w.run is not None else None,
            "run_table_selection": [i.row() for i in w.run_table.view.selectionModel().selectedRows()],
            "selected_rule": [int(r.index) for r in selected],
            "selected_step": [i.row() for i in step_rows],
            "filter": w.browser.view_state(),
            "tabs": (w.top_tabs.currentIndex(), w.details.currentIndex(), w.plot.tabs.currentIndex()),
            "details_visible": [w.details.isTabVisible(i) for i in range(w.details.count())],
            "toolbar": (w.run_controls.info.text(), w.run_controls.count.text()),
            "explanation": (w.explanation.spin.suffix(), w.explanation.spin.maximum(), w.explanation.summary.text()),
            "inspector": w.inspector.examples_label.text()}


def _every_run(window) -> list:
    """Each run's component views, picked in the run table one after the other."""
    out = []
    for row in range(window.run_model.rowCount()):
        window.run_table.view.selectRow(row)
        assert window.run is window.history.runs[row]
        out.append(_components(window))
    return out


def test_a_session_of_all_six_learners_reopens_as_it_was(qtbot, make_window, tmp_path, errors):
    window = make_window(max_rules=6)
    for learner, params in SIX:
        _train(window, qtbot, learner, params)
    runs = window.history.runs
    assert [r.learner for r in runs] == [k for k, _ in SIX]
    assert all(len(r.records) == len(r) > 0 for r in runs) and runs[-1].revised == 3

    # the state a user leaves: rules of AdaBoost.MH's and the post-optimized run switched off (what-if),
    # BOOMER's first run picked, a label filter, a rule selected, the explanation shown
    for row in (2, 6):
        window.run_table.view.selectRow(row)
        window.set_rule_active(1, False)
        assert runs[row].whatif is not None
    window.run_table.view.selectRow(0)
    window.browser.label_filter.setCurrentIndex(2)  # the second label
    qtbot.waitUntil(lambda: window.proxy.rowCount() < window.table_model.rowCount())
    first_shown = window.proxy.mapToSource(window.proxy.index(0, 0)).row()
    window.select_rule(first_shown)
    window.details.setCurrentWidget(window.explanation)
    window.explanation.spin.setValue(7)
    window.plot.tabs.setCurrentIndex(1)  # losses vs rules
    window.top_tabs.setCurrentWidget(window.run_table)
    before = _snapshot(window)
    assert before["selected_rule"] == [first_shown] and before["filter"]["label_filter"] == 1
    path = tmp_path / "six.json"
    window.save_session(path)
    every_before = _every_run(window)
    assert [c["steps"] for c in every_before] == [False, False, False, True, True, True, False]
    assert every_before[-1]["count"].endswith("4 rules from 7 steps (3 revisions)")  # the label filter stays
    assert all(len(c["rows"]) > 0 for c in every_before)
    for row in (2, 6):  # the switches stay with their run (AdaBoost.MH's stumps: two rules a step)
        assert every_before[row]["rows"][1][1] == Qt.Unchecked
        assert every_before[row]["loss_label"].startswith("what-if")

    other = make_window()
    other.open_session(path)
    qtbot.waitUntil(lambda: other.proxy.rowCount() == before["shown_rows"])
    after = _snapshot(other)
    for key in before:
        assert after[key] == before[key], key
    assert _every_run(other) == every_before

    # a reopened run replays from its saved steps, to the same table
    other.run_table.view.selectRow(1)
    assert other.replay()
    other.driver.settle()
    assert _components(other) == every_before[1]
    assert errors == []


def test_a_step_run_reopens_with_its_selected_step_and_tab(qtbot, make_window, tmp_path, errors):
    window = make_window()
    _train(window, qtbot, "boomer", {"max_rules": 3})
    _train(window, qtbot, "label-ranking", RANKING)
    _train(window, qtbot, "cc-lr", {})
    window.run_table.view.selectRow(1)
    window.step_view.select_step(2)
    window.details.setCurrentWidget(window.step_view.plots)
    before = _snapshot(window)
    assert before["selected_step"] == [2] and before["steps"]
    path = tmp_path / "steps.json"
    window.save_session(path)

    other = make_window()
    other.open_session(path)
    after = _snapshot(other)
    for key in before:
        assert after[key] == before[key], key
    other.details.setCurrentWidget(other.step_view.inspector)
    assert "Iteration 3" in other.step_view.inspector.toPlainText()
    assert errors == []


def _ring(window, run):
    """The ring's point on ``run``'s trajectory ([] when there is none) and its rule count on the loss plots."""
    art = window.plot.lines_of(run)
    return _values(art.point.get_xdata()), _values(art.h_point.get_xdata())


def test_opening_another_session_leaves_nothing_of_the_last_one(qtbot, make_window, tmp_path, errors):
    empty = make_window()  # data, no runs: a session with nothing shown
    empty.save_session(tmp_path / "empty.json")
    window = make_window()
    _train(window, qtbot, "boomer", {"max_rules": 5})
    window.select_rule(2)
    window.details.setCurrentWidget(window.explanation)
    assert window.explanation.spin.suffix() == " of 300"
    assert "5 / 5 rules" == window.run_controls.count.text() and "5 rules" in window.run_controls.info.text()
    assert _ring(window, window.run)[0] != []
    window.save_session(tmp_path / "boomer.json")

    window.open_session(tmp_path / "empty.json")
    assert window.history.runs == [] and window.run is None and window.table_model.rowCount() == 0
    assert window.run_controls.info.text() == "Ready" and window.run_controls.count.text() == ""
    assert window.explanation.spin.suffix() == "" and window.explanation.spin.maximum() == 0
    assert window.explanation.sort.count() == 2  # no label of the last model to sort by
    assert window.count_label.text() == "0 rules" and window.loss_label.text() == ""
    assert window.plot.plotted_runs() == [] and " of " not in window.inspector.examples_label.text()

    window.open_session(tmp_path / "boomer.json")  # and back: its own texts again
    assert window.explanation.spin.suffix() == " of 300" and window.run_controls.count.text() == "5 / 5 rules"
    assert [r.index for r in window.browser.selected_records()] == [2] and _ring(window, window.run)[0] != []

    window.learner_panel.set_learner("label-ranking")  # a run of steps: the rule views' texts go
    window.learner_panel.set_params(RANKING)
    shown = window.run
    assert window.start_training()
    assert _ring(window, shown) == ([], [None, None]) and window.plot._highlight_at is None
    assert window.explanation.spin.suffix() == ""
    with qtbot.waitSignal(window.training.done, timeout=300_000):
        pass
    assert _ring(window, shown) == ([], [None, None])
    assert errors == []


def test_removing_the_shown_run_leaves_nothing_of_it(qtbot, make_window, errors):
    window = make_window()
    _train(window, qtbot, "boomer", {"max_rules": 4})
    _train(window, qtbot, "boomer", {"max_rules": 3})
    kept, shown = window.history.runs
    window.select_rule(1)
    assert window.run_controls.count.text() == "3 / 3 rules" and _ring(window, shown)[0] != []
    assert window.remove_run(shown)
    assert window.history.runs == [kept] and window.run is None and window.table_model.rowCount() == 0
    assert window.run_controls.info.text() == "Ready" and window.run_controls.count.text() == ""
    assert window.explanation.spin.suffix() == "" and window.loss_label.text() == ""
    assert _ring(window, kept) == ([], [None, None])
    assert errors == []


def test_the_ring_of_a_selected_rule_leaves_when_a_new_run_starts(qtbot, make_window, errors):
    window = make_window()
    _train(window, qtbot, "boomer", {"max_rules": 5})
    first = window.run
    window.select_rule(3)
    point, count = _ring(window, first)
    assert point == [round(first.series["test_hamming"][3], 12)] and count == [4, 4]  # after its 4th rule
    assert window.start_training()
    assert _ring(window, first) == ([], [None, None])
    with qtbot.waitSignal(window.training.done, timeout=300_000):
        pass
    window.plot.draw_now()
    assert all(_ring(window, run) == ([], [None, None]) for run in window.history.runs)
    assert errors == []
