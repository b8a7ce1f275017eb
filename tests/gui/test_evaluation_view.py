"""File → Open evaluation results: the table per measure, the CD diagram, live progress, bad files."""
from dataclasses import replace

import numpy as np
import pytest

from engine.evaluation.data import folds
from engine.evaluation.table1.methods import METHODS
from engine.evaluation.table1.profiles import PROFILES
from engine.evaluation.store import ResultStore, TaskResult

PROFILE = replace(PROFILES["smoke"], n_folds=2, n_bootstraps=20, cc_orders=1)
FLIPS = {"br": 0.05, "lp": 0.15, "cc": 0.10}  # BR is best by construction


def add_tasks(store, dataset, Y, methods, folds_to_add=(0, 1), seed=0):
    rng = np.random.default_rng(seed)
    keys = []
    for name in methods:
        group = METHODS[name].groups(PROFILE)[0]
        for fold, (_, test) in enumerate(folds(len(Y), 2)):
            key = f"{dataset}-{name}-{fold}"
            keys.append(key)
            if fold in folds_to_add:
                P = Y[test] ^ (rng.random(Y[test].shape) < FLIPS[name]).astype(np.uint8)
                store.put_task(TaskResult(key, dataset, fold, 2, name, group,
                                          METHODS[name].configurations(group, PROFILE), {}, "v", 1.0, "w", test, P[None]))
    return keys


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "results.sqlite"
    rng = np.random.default_rng(1)
    keys = []
    with ResultStore(path) as store:
        for d in ("alpha", "beta", "gamma"):
            Y = (rng.random((60, 4)) < 0.4).astype(np.uint8)
            store.put_dataset(d, d, [d], Y)
            keys += add_tasks(store, d, Y, FLIPS, folds_to_add=(0, 1) if d != "gamma" else (0,))
        store.set_meta("run", {"profile": PROFILE.as_dict(), "datasets": ["alpha", "beta", "gamma"],
                               "methods": list(FLIPS), "n_tasks": len(keys), "keys": keys})
    return path


def test_results_window_shows_tables_cd_diagram_and_live_progress(qtbot, qtmodeltester, store_path):
    from PySide6.QtCore import Qt

    from boomer_gui.panels.evaluation_view import EvaluationWindow

    w = EvaluationWindow(store_path, poll_ms=50)
    qtbot.addWidget(w)
    w.start()
    w.show()
    qtbot.waitUntil(lambda: w.report is not None and w._worker is None, timeout=10000)
    assert w.progress.value() == 15 and w.progress.maximum() == 18  # gamma lacks its second fold
    qtmodeltester.check(w.model)
    idx = w.measure_box.findData("hamming")
    w.measure_box.setCurrentIndex(idx)
    m = w.model
    assert m.rowCount() == 4 and m.columnCount() == 3  # alpha, beta, gamma, avg. rank
    assert m.headerData(0, Qt.Horizontal) == "BR" and m.headerData(3, Qt.Vertical) == "avg. rank"
    assert m.index(0, 0).data().endswith("(1)") and m.index(0, 0).data(Qt.FontRole).bold()  # FontRole: best is bold
    assert m.index(2, 0).data() == "—"  # gamma is incomplete: not finished yet
    assert m.index(3, 0).data() == "1.00"  # BR has the best average rank over alpha and beta
    assert w.canvas is not None and not w.cd_note.isVisible()
    # sorting by a column orders the data sets; unfinished cells and the average-rank row stay last
    for order in (Qt.AscendingOrder, Qt.DescendingOrder):
        w.table.sortByColumn(1, order)
        values = [float(w.proxy.index(r, 1).data().split()[0]) for r in range(2)]
        assert values == sorted(values, reverse=order == Qt.DescendingOrder)
        assert w.proxy.index(2, 1).data() == "—" and w.proxy.headerData(3, Qt.Vertical) == "avg. rank"
    # the run goes on: the missing task arrives and the window catches up by itself
    with ResultStore(store_path) as store:
        Y = store.dataset_labels("gamma")
        add_tasks(store, "gamma", Y, FLIPS, folds_to_add=(1,))
    qtbot.waitUntil(lambda: w.progress.value() == 18 and w._worker is None and w.report is not None
                    and "gamma" in w.report.complete_datasets(), timeout=10000)
    assert w.model.index(2, 0).data() != "—"
    w.close()
    assert not w.timer.isActive()


def test_a_file_that_is_not_a_result_store_is_one_message(make_window, errors, tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("not a database at all " * 50)
    w = make_window()
    assert not w._guard("Cannot open the evaluation results", w.open_evaluation, bad)
    assert errors and "not a result store" in errors[-1][1]
    assert w.isVisible() and not w._evaluation_windows


def test_main_window_opens_a_store(make_window, store_path, qtbot):
    w = make_window()
    ev = w.open_evaluation(store_path)
    qtbot.waitUntil(lambda: ev.report is not None and ev._worker is None, timeout=10000)
    assert ev.isVisible() and ev.model.rowCount() == 4
    w.close()
    assert not ev.isVisible()
