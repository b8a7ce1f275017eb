"""Training through the main window: streaming, pause/resume/stop, errors, closing mid-run."""
from __future__ import annotations

import sys
import time

import numpy as np

from boomer_gui.adapters.training import STREAMING_SWITCH_INTERVAL_S, running_workers


def test_start_streams_rules_into_table_and_plot(qtbot, window):
    inserts = []
    window.table_model.rowsInserted.connect(lambda *a: inserts.append(a))
    batches = []
    interval = sys.getswitchinterval()
    assert window.start_training()
    assert sys.getswitchinterval() == min(interval, STREAMING_SWITCH_INTERVAL_S)  # GIL handed over quickly
    window.training.batch.connect(lambda b: batches.append(len(b)))
    assert not window.run_controls.start_button.isEnabled()  # only one run at a time
    assert not window.start_training()
    with qtbot.waitSignal(window.training.done, timeout=300_000) as done:
        pass
    assert done.args == ["finished"]
    assert sys.getswitchinterval() == interval  # restored when the run ends
    n = window.table_model.rowCount()
    assert n == 40 == len(window.run) == len(window.model.rules)
    assert len(inserts) == len(batches) and sum(batches) <= n  # one beginInsertRows per batch
    records = window.table_model.records
    assert [r.index for r in records] == list(range(n))
    lines = window.plot.lines_of(window.run)
    assert len(lines.test.get_xdata()) == n and len(lines.train.get_xdata()) == n  # one point per rule
    assert len(lines.h_test.get_ydata()) == n
    np.testing.assert_allclose(lines.test.get_xdata(), [r.test_hamming for r in records])
    np.testing.assert_allclose(lines.train.get_ydata(), [r.train_subset for r in records])
    assert window.run_controls.start_button.isEnabled()
    assert "test: Hamming" in window.loss_label.text()


def test_pause_resume_stop(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    training = window.training
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 3, timeout=300_000)
    window.run_controls.pause_button.click()
    qtbot.waitUntil(lambda: training.state == "paused", timeout=5000)
    assert window.run_controls.pause_button.text() == "Resume"
    count = training.worker.count
    qtbot.wait(150)
    assert training.worker.count == count  # nothing learned while paused
    qtbot.waitUntil(lambda: window.table_model.rowCount() == count, timeout=2000)
    window.run_controls.pause_button.click()
    qtbot.waitUntil(lambda: training.state == "running", timeout=5000)
    qtbot.waitUntil(lambda: window.table_model.rowCount() > count, timeout=30000)
    t0 = time.perf_counter()
    with qtbot.waitSignal(training.done, timeout=5000) as done:
        window.run_controls.stop_button.click()
    assert time.perf_counter() - t0 < 1.0
    assert done.args == ["stopped"]
    assert window.run.status == "stopped"
    # the rules learned so far are kept, in the table and in the model
    assert len(window.model.rules) == window.table_model.rowCount() == len(window.run)
    assert window.run_controls.start_button.isEnabled()


def test_stop_is_quick(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    training = window.training
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 2, timeout=300_000)
    t0 = time.perf_counter()
    window.stop_training()
    qtbot.waitUntil(lambda: training.worker.done, timeout=2000)
    assert time.perf_counter() - t0 < 0.2 + 0.3  # between rules; generous for a loaded CI machine


def test_closing_mid_training_ends_the_worker(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    training = window.training
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 2, timeout=300_000)
    t0 = time.perf_counter()
    window.close()
    assert time.perf_counter() - t0 < 3.0
    assert training.worker.done and not running_workers()
    assert training.state == "stopped"


def test_bad_parameters_show_an_error(qtbot, window, errors, monkeypatch):
    monkeypatch.setattr(window.learner_panel, "params", lambda: {"max_rules": 10, "shrinkage": 0.0})
    assert not window.start_training()
    assert errors and errors[0][0] == "Cannot start training" and "shrinkage" in errors[0][1]
    assert window.training is None and len(window.history) == 0
    assert window.run_controls.start_button.isEnabled()


def test_memory_error_in_worker_keeps_rules_and_window(qtbot, window, errors, train, monkeypatch):
    from engine.learner import RuleLearner

    original = RuleLearner.fit_iter

    def failing(self, *args, **kwargs):
        gen = original(self, *args, **kwargs)

        def wrapped():
            for i, record in enumerate(gen):
                if i == 5:
                    raise MemoryError()
                yield record

        return wrapped()

    monkeypatch.setattr(RuleLearner, "fit_iter", failing)
    assert train(window) == "failed"
    assert errors and errors[-1][0] == "Training failed" and "memory" in errors[-1][1].lower()
    assert window.table_model.rowCount() == 5 == len(window.run)
    assert window.run.status == "failed"
    monkeypatch.setattr(RuleLearner, "fit_iter", original)
    assert train(window) == "finished"  # still usable
    assert window.table_model.rowCount() == 40


def test_follows_newest_rule_unless_a_rule_is_selected(qtbot, make_window):
    window = make_window(max_rules=100000)
    window.resize(1200, 800)
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 60, timeout=300_000)
    sb = window.table.verticalScrollBar()
    # following the newest rule: the view sits at the bottom while rules stream in
    qtbot.waitUntil(lambda: sb.maximum() > 0 and sb.value() == sb.maximum(), timeout=5000)
    window.table.selectRow(0)
    window.table.scrollToTop()
    n = window.table_model.rowCount()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= n + 40, timeout=300_000)
    assert sb.value() == 0  # stayed where the user was
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active, timeout=5000)


def test_process_wide_tweaks_are_restored_after_every_run(qtbot, make_window, train):
    """The GIL switch interval and the frozen GC generation of a streaming run are undone when it ends:
    finished, stopped, and when the learner fails."""
    import gc
    import sys

    interval, frozen = sys.getswitchinterval(), gc.get_freeze_count()
    window = make_window(max_rules=10)
    assert window.start_training()
    assert sys.getswitchinterval() < interval or interval <= 0.001
    with qtbot.waitSignal(window.training.done, timeout=300_000):
        pass
    assert sys.getswitchinterval() == interval and gc.get_freeze_count() == frozen
    window.learner_panel.set_params({"max_rules": 100000})
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() > 2, timeout=300_000)
    with qtbot.waitSignal(window.training.done, timeout=30000):
        window.stop_training()
    assert sys.getswitchinterval() == interval and gc.get_freeze_count() == frozen

    from boomer_gui.adapters.training import streaming_tweaks
    try:
        with streaming_tweaks():
            assert gc.get_freeze_count() >= frozen
            raise RuntimeError("a failing learner")
    except RuntimeError:
        pass
    assert sys.getswitchinterval() == interval and gc.get_freeze_count() == frozen
