"""The smaller defects of issue 55, each seen by an analyst: a finished SeCo run explains its
predictions, the classifier chain names its labels, ..."""
from __future__ import annotations

import numpy as np

from tests.gui.test_runs_all_learners import _train


def test_a_finished_seco_run_explains_its_predictions_by_the_first_covering_rule(qtbot, make_window, errors):
    from engine.inspection import explain

    window = make_window()
    run = _train(window, qtbot, "seco", max_rules=5)
    window.show_run(run)
    panel = window.explanation
    window.details.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: panel.explanation is not None)
    assert "need a trained model" not in panel.summary.text()
    model, test = window.app.model, window.data.test
    assert model.prediction == "decision-list" and panel.model is not None
    ex = panel.explanation
    x = test.X[panel.example]
    assert np.array_equal(ex.prediction, model.predict(x.reshape(1, -1))[0])
    # per label at most one covering rule decides: the first one in the list that predicts it
    assert ((ex.contributions != 0).sum(axis=0) <= 1).all()
    brute = explain(model, x)
    assert np.array_equal(ex.rule_indices, brute.rule_indices) and np.allclose(ex.scores, brute.scores)
    assert not errors


def test_the_classifier_chains_label_column_names_the_labels(qtbot, make_window, errors):
    window = make_window()
    _train(window, qtbot, "cc-lr")
    model, schema = window.step_view.model, window.data.train.schema
    K = window.data.train.n_labels
    assert model.headers()[1] == "label"
    shown = [model.index(r, 1).data() for r in range(model.rowCount())]
    assert shown == [schema.label(k) for k in range(K)] and shown[0] == "y1"  # not 0 … K-1
    assert not errors


def test_the_experiments_summary_says_none_were_stored_before_not_zero_were_stored():
    from types import SimpleNamespace

    from boomer_gui.components.experiment import done_text

    first = SimpleNamespace(n_done=12, n_skipped=0, n_failed=0, seconds=31.4)
    assert done_text(first) == "12 tasks computed, none stored before, 0 failed; 31 s"
    again = SimpleNamespace(n_done=1, n_skipped=11, n_failed=0, seconds=2.0)
    assert done_text(again) == "1 task computed, 11 taken from the store (computed before), 0 failed; 2 s"


def test_ml_me_and_the_chain_start_learning_at_once_with_nothing_to_compile(qtbot, make_window, errors):
    """ML-ME showed 'starting the compiler · 0 kernels' for 20 s while it learned: a learner that
    compiles no kernels has no preparation step, its run is 'running' from the start."""
    from engine.prepare import is_prepared, kernel_setting
    from engine.registry import get

    window = make_window()
    X, Y = window.data.train.X, window.data.train.Y
    for key, params in (("ml-me", {"n_experts": 1, "max_em_iter": 2, "sa_iterations": 5}), ("cc-lr", {})):
        assert kernel_setting(get(key).make(**params), X, Y) is None and is_prepared(None)
        window.learner_panel.set_learner(key)
        window.learner_panel.set_params(params)
        states = []
        assert window.start_training()
        window.training.stateChanged.connect(states.append)
        assert window.training.state == "running" and window.training.preparation is None
        assert "compiler" not in window.run_controls.info.text() + window.statusBar().currentMessage()
        with qtbot.waitSignal(window.training.done, timeout=120_000):
            pass
        assert "preparing" not in states
    assert not errors


QUIT_SCRIPT = r"""
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from boomer_gui import app as gui_app

qapp = QApplication(sys.argv[:1])
todo = [("boomer", {"max_rules": 10}), ("seco", {"max_rules": 5}), ("ml-me", {"n_experts": 1, "max_em_iter": 2})]

def tick():
    w = next((x for x in QApplication.topLevelWidgets() if type(x).__name__ == "MainWindow"), None)
    if w is None or w.data is None or w.training_active:
        QTimer.singleShot(50, tick)
        return
    w.confirm_close = lambda text: "discard"
    if todo:
        key, params = todo.pop(0)
        w.learner_panel.set_learner(key)
        w.learner_panel.set_params(params)
        assert w.start_training()
        QTimer.singleShot(50, tick)
        return
    print("CLOSING", flush=True)
    w.close()

QTimer.singleShot(0, tick)
sys.exit(gui_app.main([]))
"""


def test_quit_ends_the_process_promptly_after_runs_of_three_learners(tmp_path):
    """Quit closed the window but the process lingered 2-8 s (the interpreter's final collection of
    the whole heap): from the window closing to the process's end now takes well under that."""
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "BOOMER_NO_BACKGROUND_PREPARE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", QUIT_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=os.getcwd())
    try:
        for line in proc.stdout:  # the event: the window is closing
            if line.strip() == "CLOSING":
                break
        closing = time.perf_counter()
        code = proc.wait(timeout=60)
        seconds = time.perf_counter() - closing
    finally:
        proc.kill()
    assert code == 0, proc.stderr.read()[-2000:]
    assert seconds < 2.0, seconds
