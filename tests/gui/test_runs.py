"""Runs are first-class: each records its data set, learner, parameters and seed; the run table
shows them with the final losses; any run, not only the newest, can be inspected; runs on other
data are greyed; exports and sessions carry the metadata (issue 15, problems 2 and 8)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from boomer_gui.panels.run_table import COL_DATA, COL_LEARNER, COL_NAME, COL_SIZE, COL_TEH, COL_TRS
from boomer_gui.components.state import DataSpec

SMALL = dict(n_examples=300, n_test=300, seed=0)


def _texts(model, row):
    return [model.index(row, c).data() for c in range(model.columnCount())]


def test_runs_on_another_data_set_are_greyed_and_say_what_they_used(qtbot, make_window, train, tmp_path):
    window = make_window(max_rules=15, random_state=7)
    assert train(window) == "finished"
    first = window.history.runs[0]
    model = window.run_model
    assert first.dataset == window.data.full.name and first.learner == "boomer" and first.seed == 7
    row = _texts(model, 0)
    assert row[COL_DATA] == first.dataset and row[COL_LEARNER] == "boomer" and row[COL_SIZE] == "15 rules"
    assert row[COL_TEH] == f"{first.final_losses()['test_hamming']:.4f}"
    assert row[COL_TRS] == f"{first.final_losses()['train_subset']:.4f}"
    tip = model.index(0, COL_NAME).data(Qt.ToolTipRole)
    assert first.dataset in tip and "random_state=7" in tip and "seed 7" in tip
    assert model.index(0, COL_NAME).data(Qt.ForegroundRole) is None  # same data: not greyed

    # another data set: the old run is greyed in the table and faded on the plot
    other = DataSpec(kind="synthetic", synthetic="marginal-independence", n_labels=6, **SMALL)
    assert window.load_data(other)
    assert train(window) == "finished"
    second = window.history.runs[1]
    assert second.dataset != first.dataset and second.data_key != first.data_key
    assert model.index(0, COL_NAME).data(Qt.ForegroundRole) is not None
    assert "not comparable" in model.index(0, COL_NAME).data(Qt.ToolTipRole)
    assert model.index(1, COL_NAME).data(Qt.ForegroundRole) is None
    assert window.plot.lines_of(first).test.get_alpha() == pytest.approx(0.2)
    assert window.plot.lines_of(second).test.get_alpha() is None

    # the metadata travel with the exported rules and with the session
    window.export_rules(tmp_path / "rules.json")
    doc = json.loads((tmp_path / "rules.json").read_text())
    assert doc["metadata"]["data_set"] == second.dataset and doc["metadata"]["learner"] == "boomer"
    assert doc["metadata"]["params"]["max_rules"] == 15
    window.export_rules(tmp_path / "rules.txt")
    assert f"# data set: {second.dataset}" in (tmp_path / "rules.txt").read_text()
    window.save_session(tmp_path / "s.json")
    window.open_session(tmp_path / "s.json")
    reopened = window.history.runs
    assert [(r.dataset, r.seed, r.data_key) for r in reopened] == \
        [(first.dataset, 7, first.data_key), (second.dataset, second.seed, second.data_key)]
    assert window.run_model.index(0, COL_NAME).data(Qt.ForegroundRole) is not None


def test_selecting_an_older_run_shows_its_rules(qtbot, make_window, train, tmp_path):
    window = make_window(max_rules=12)
    assert train(window) == "finished"
    window.learner_panel.apply_preset("Example-wise, multi-label heads")
    window.learner_panel.set_params({"max_rules": 20})
    assert train(window) == "finished"
    first, second = window.history.runs
    assert window.run is second and window.table_model.rowCount() == 20

    window.run_table.view.selectRow(0)
    assert window.run is first and window.table_model.rowCount() == 12
    assert [r.rule for r in window.table_model.records] == first.estimator.model_.rules
    window.select_rule(3)
    assert window.inspector.record.rule == first.estimator.model_.rules[3]
    assert window.explanation.model is first.estimator.model_  # explanations follow the shown run
    # the selected rule's point is ringed on the first run's trajectory
    ring = window.plot.lines_of(first).point
    assert list(ring.get_xdata()) == [first.series["test_hamming"][3]]

    # what-if switches belong to their run and come back with it
    window.set_rule_active(2, False)
    window.run_table.view.selectRow(1)
    assert window.run is second and window.table_model.active.all()
    window.run_table.view.selectRow(0)
    assert window.run is first and not window.table_model.active[2]

    # after saving and reopening the session the older run is still inspectable
    window.save_session(tmp_path / "s.json")
    window.open_session(tmp_path / "s.json")
    old = window.history.runs[0]
    window.run_table.view.selectRow(1)
    window.run_table.view.selectRow(0)
    assert window.run is old and window.table_model.rowCount() == 12
    assert [r.rule for r in window.table_model.records] == first.estimator.model_.rules


def test_a_running_run_cannot_be_removed_and_others_wait(qtbot, make_window, train):
    window = make_window(max_rules=12)
    assert train(window) == "finished"
    window.learner_panel.set_params({"max_rules": 100000})
    assert window.start_training()
    live = window.run
    assert not window.remove_run(live)
    assert live in window.history.runs
    assert not window.show_run(window.history.runs[0])  # the table follows the training run
    assert window.run is live
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active, timeout=30000)
    assert window.remove_run(window.history.runs[0])
    assert window.history.runs == [live] and np.all(window.table_model.active)


def test_learners_agree_on_their_own_numbers(qtbot, make_window, train):
    """Problem 9: AdaBoost.MH's budget counts rounds and says so (a stump round adds two rules);
    every row's coverage is the number of training examples its rule covers, the same number the
    inspector shows; SeCo's 100-rule budget gives 100 rows."""
    from boomer_gui.panels.run_table import COL_SIZE
    from boomer_gui.rules.rule_table import COL_COVERAGE
    from engine.model import rule_coverage

    window = make_window()
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"weak_learner": "stump", "max_rules": 10})
    assert train(window) == "finished"
    assert window.table_model.rowCount() == 20 and len(window.run) == 10
    assert window.count_label.text() == "20 rules from 10 rounds"
    assert window.run_model.index(0, COL_SIZE).data() == "10 rounds"
    assert window.run_controls.progress.format().endswith("rounds")
    X = window.data.train.X
    for row, rec in enumerate(window.table_model.records):
        covered = int(rule_coverage(rec.rule, X).sum())
        assert rec.coverage == covered
        assert window.table_model.index(row, COL_COVERAGE).data() == str(covered)
    window.select_rule(5)
    assert f"covers {window.table_model.records[5].coverage} of" in window.inspector.title.text()

    seco = make_window()
    seco.learner_panel.set_learner("seco")
    seco.learner_panel.set_params({"max_rules": 7})
    assert train(seco) == "finished"
    assert seco.table_model.rowCount() == len(seco.run) == 7 and seco.count_label.text() == "7 rules"


def test_quitting_with_unsaved_runs_asks_first(qtbot, make_window, train, tmp_path):
    """Problem 10: Ctrl+Q (File > Quit) with unsaved runs asks; Cancel keeps the window, Save saves
    the session and closes, and nothing is asked once the session is saved."""
    window = make_window(max_rules=8)
    asked = []
    answers = ["cancel", "save"]
    window.confirm_close = lambda text: (asked.append(text), answers.pop(0))[1]
    window.files.ask_save = lambda *args: str(tmp_path / "quit.json")
    assert train(window) == "finished"
    assert not window.close() and window.isVisible() and "1 run" in asked[0]  # cancelled
    assert window.close() and not window.isVisible()  # saved, then closed
    assert (tmp_path / "quit.json").exists()
    fresh = make_window()
    fresh.confirm_close = lambda text: pytest.fail("nothing trained: closing must not ask")
    assert fresh.close()
    other = make_window(max_rules=8)
    assert train(other) == "finished"
    other.save_session(tmp_path / "saved.json")
    other.confirm_close = lambda text: pytest.fail("nothing unsaved: closing must not ask")
    assert other.close()


def test_the_window_fits_a_1280_by_800_projector_also_in_presentation_mode(qtbot, make_window, train):
    window = make_window(max_rules=10)
    assert train(window) == "finished"
    size = window.font().pointSizeF()
    for on in (False, True):
        window.set_presentation(on)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 800, (on, hint)
    assert window.presentation and window.setup_dock.isHidden() and window.plot.presentation
    assert window.font().pointSizeF() == pytest.approx(size * window.PRESENTATION_SCALE)
    assert window.run.name in window.plot.run_legend.names()  # the runs' names beside the plot
    window.set_presentation(False)
    assert not window.presentation and not window.setup_dock.isHidden()
    assert window.font().pointSizeF() == pytest.approx(size)
    legend = window.plot.traj_ax.get_legend()
    assert legend is None or not legend.get_visible()  # on screen the label above the plot names the styles


def test_learner_specific_numbers_are_columns_the_learner_declares(qtbot, make_window, train):
    """AdaBoost.MH declares alpha, Z and the prod-Z bound; they are rule-table columns (both rows of a
    stump round show their round's numbers), sortable, and the improvement column says what it means."""
    from PySide6.QtCore import Qt

    from boomer_gui.rules.rule_table import COL_IMPROVEMENT, COLUMNS, SortRole

    window = make_window()
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"weak_learner": "stump", "max_rules": 6})
    assert train(window) == "finished"
    model = window.table_model
    titles = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    assert titles[len(COLUMNS):] == ["α", "Z", "∏Z"]
    assert "∏Z" in model.headerData(COL_IMPROVEMENT, Qt.Horizontal, Qt.ToolTipRole)
    for row, rec in enumerate(model.records):
        assert model.index(row, len(COLUMNS)).data() == f"{rec.extra['alpha']:.4f}"
        assert model.index(row, len(COLUMNS) + 2).data(SortRole) == rec.extra["bound"]
    bounds = [rec.extra["bound"] for rec in window.run.records]
    assert bounds == sorted(bounds, reverse=True)  # the bound only falls
    # BOOMER declares none: its table has the common columns only
    window.learner_panel.set_learner("boomer")
    window.learner_panel.set_params({"max_rules": 5})
    assert train(window) == "finished"
    assert window.table_model.columnCount() == len(COLUMNS)
    window.run_table.view.selectRow(0)  # the AdaBoost run again: its columns come back
    assert window.table_model.columnCount() == len(COLUMNS) + 3


def test_run_and_rule_models_pass_qtmodeltester(qtbot, make_window, train, qtmodeltester):
    window = make_window()
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"weak_learner": "stump", "max_rules": 4})
    assert train(window) == "finished"
    assert train(window) == "finished"
    qtmodeltester.check(window.run_model)
    qtmodeltester.check(window.table_model)  # with the learner's extra columns
