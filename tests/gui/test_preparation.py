"""A run whose kernels are not compiled yet is prepared in a child process: the window says what is
compiled and for how long (no rate, no ETA), Stop and closing the window kill the child at once,
and a prepared setting starts its worker directly.  The children here are fakes that speak the
``python -m engine prepare --json`` protocol (a real compile takes minutes), except one that runs
``engine.prepare`` itself on a tiny toy learner."""
from __future__ import annotations

import os
import sys
import time

import pytest
from PySide6.QtWidgets import QMessageBox

import boomer_gui.main_window as main_window
import boomer_gui.components.controller as controller
import boomer_gui.adapters.training as training
import boomer_gui.components.background_preparation as background_preparation
from boomer_gui.adapters.preparation import KernelPreparation, running_preparations

FAKE_CHILD = r"""
import json, sys, time
def emit(**event):
    print(json.dumps(event), flush=True)
args = sys.argv[1:]
label = args[args.index("--learner") + 1] if "--learner" in args else "boomer: defaults"
if "--data" in args:
    from engine.prepare import load_data
    label += " " + str(load_data(args[args.index("--data") + 1])["X"].shape)
emit(event="setting", index=0, of=1, label=label, elapsed=0.0)
print("a stray line that is not JSON", flush=True)
emit(event="compiling", kernel="find_refinement", compiled=1, elapsed=0.1)
emit(event="compiling", kernel="update_statistics", compiled=2, elapsed=0.2)
time.sleep(SLEEP)
if FAIL:
    emit(event="error", label=label, message="ValueError: no such kernel")
emit(event="prepared", index=0, label=label, seconds=0.2, compiled=2)
emit(event="done", settings=1, failed=int(FAIL), compiled=2, elapsed=0.3)
sys.exit(1 if FAIL else 0)
"""

# engine.prepare itself, on a toy learner whose one step calls a tiny Numba kernel (compiled in a second)
REAL_CHILD = r"""
import argparse, sys
import numba
from engine import prepare, registry

@numba.njit
def toy_kernel(x):
    return x + 1

class Toy:
    def __init__(self, max_rules=5):
        self.max_rules = max_rules
    def get_params(self, deep=True):
        return {"max_rules": self.max_rules}
    def fit_iter(self, X, Y, X_test=None, Y_test=None, nominal_attributes=None):
        return (toy_kernel(i) for i in range(self.max_rules))

registry.register(registry.LearnerSpec("toy", "Toy", Toy, budget="max_rules",
                                       parameters=(registry.Parameter("max_rules", "int", 5, "Rules"),)))
from engine.prepare_command import add_parser
parser = argparse.ArgumentParser()
add_parser(parser.add_subparsers())
args = parser.parse_args(["prepare", *sys.argv[1:]])
sys.exit(args.func(args))
"""

KILL_WITHIN_S = 0.5


def fake_child(sleep: float = 60.0, fail: bool = False) -> list[str]:
    return [sys.executable, "-c", FAKE_CHILD.replace("SLEEP", repr(sleep)).replace("FAIL", repr(fail))]


def process_state(pid: int) -> str:
    """Process ``pid``'s state letter (R, S, T: stopped, Z: zombie), or '' when it is gone (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return ""


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    return process_state(pid) not in ("", "Z")


@pytest.fixture
def unprepared(monkeypatch):
    """No run's kernels are prepared; ``use(command)`` picks the child every preparation runs."""
    monkeypatch.setattr(training, "is_prepared", lambda key: False)

    def use(command):
        monkeypatch.setattr(KernelPreparation, "command", command)

    return use


@pytest.fixture
def background_on(monkeypatch, unprepared):
    """The background preparation is on, nothing is prepared, and every child is the slow fake one."""
    monkeypatch.delenv("BOOMER_NO_BACKGROUND_PREPARE")
    monkeypatch.setattr(controller, "is_prepared", lambda key: False)
    monkeypatch.setattr(background_preparation, "is_prepared", lambda key: False)
    unprepared(fake_child())


def start_preparing(window, qtbot):
    """Start a run on the slow fake child; returns (training run, child pid, data file) once the
    child reported its first kernel."""
    assert window.start_training()
    t = window.training
    assert t.state == "preparing" and window.run.status == "preparing"
    qtbot.waitUntil(lambda: "update_statistics" in window.run_controls.info.text(), timeout=20000)
    pid = t.preparation.pid
    assert alive(pid) and os.path.exists(t._data_file)
    return t, pid, t._data_file


def test_a_run_is_prepared_with_progress_and_stop_kills_the_child_at_once(qtbot, window, unprepared):
    unprepared(fake_child())
    t, pid, data_file = start_preparing(window, qtbot)
    info = window.run_controls.info
    assert "preparing" in info.text() and "2 kernels compiled" in info.text()
    assert "ETA" not in info.text() and "rules/s" not in info.text()
    status = window.statusBar().currentMessage()
    assert status.startswith("Preparing BOOMER · ") and "update_statistics" in status and "ETA" not in status
    assert window.run_controls.progress.maximum() == 0  # a busy bar, no fraction of the budget
    controls = window.run_controls
    assert controls.stop_button.isEnabled() and not controls.pause_button.isEnabled()
    assert not controls.start_button.isEnabled() and not window.act_step.isEnabled()
    before = info.text()
    qtbot.waitUntil(lambda: info.text() != before, timeout=3000)  # the elapsed time runs on between lines
    assert "update_statistics" in info.text() and "update_statistics" in window.statusBar().currentMessage()

    begin = time.perf_counter()
    with qtbot.waitSignal(t.done, timeout=int(KILL_WITHIN_S * 1000)) as done:
        qtbot.mouseClick(controls.stop_button, main_window.Qt.LeftButton)
        assert not alive(pid)  # killed and reaped before the click returns
    assert time.perf_counter() - begin < KILL_WITHIN_S
    assert done.args == ["stopped"] and window.training is None and not running_preparations()
    assert not os.path.exists(data_file) and t.worker is None  # no worker was ever started
    run = window.history.runs[-1]
    assert run.status == "stopped" and len(run) == 0 and window.table_model.rowCount() == 0
    assert "stopped" in info.text() and "preparing" not in info.text()
    assert controls.start_button.isEnabled() and not controls.stop_button.isEnabled()


def test_closing_the_window_while_preparing_asks_then_kills_the_child(qtbot, window, unprepared, monkeypatch):
    unprepared(fake_child())
    t, pid, data_file = start_preparing(window, qtbot)
    del window.confirm_close  # the real prompt, answered 'discard'
    asked = []
    monkeypatch.setattr(main_window.QMessageBox, "exec",
                        lambda box: asked.append(box.text()) or QMessageBox.Discard)
    begin = time.perf_counter()
    window.close()
    assert not alive(pid) and time.perf_counter() - begin < KILL_WITHIN_S  # gone when close() returns
    assert asked and "still training" in asked[0]
    assert not window.isVisible() and t.state == "stopped" and not running_preparations()
    assert not os.path.exists(data_file)


def test_a_prepared_run_streams_rules_after_the_child_with_a_rate_from_its_steps(qtbot, window, unprepared):
    unprepared(fake_child(sleep=0.0))
    states, progress = [], []
    assert window.start_training()
    t = window.training
    data_file = t._data_file
    states.append(t.state)
    t.stateChanged.connect(states.append)
    t.preparing.connect(progress.append)
    with qtbot.waitSignal(t.done, timeout=300_000) as done:
        pass
    assert done.args == ["finished"] and states[:3] == ["preparing", "running", "finished"]
    assert any(p["setting"] == "boomer (300, 2)" for p in progress)  # the child read the run's own data
    assert progress[-1]["compiled"] == 2 and progress[-1]["kernel"] == "update_statistics"
    assert not os.path.exists(data_file) and not running_preparations()
    assert window.table_model.rowCount() == 40 and window.history.runs[-1].status == "finished"
    assert "preparing" not in window.run_controls.info.text()


def test_a_failed_preparation_still_runs_the_learner(qtbot, window, unprepared):
    unprepared(fake_child(sleep=0.0, fail=True))
    warnings = []
    assert window.start_training()
    window.training.warned.connect(warnings.append)
    with qtbot.waitSignal(window.training.done, timeout=300_000) as done:
        pass
    assert done.args == ["finished"] and window.table_model.rowCount() == 40
    assert warnings and "no such kernel" in warnings[0]


def test_a_prepared_setting_starts_its_worker_without_a_child(qtbot, window, monkeypatch):
    started = []
    monkeypatch.setattr(KernelPreparation, "start", lambda self: started.append(self))
    keys = []
    monkeypatch.setattr(training, "is_prepared", lambda key: keys.append(key) or True)
    assert window.start_training()
    t = window.training
    assert keys and keys[0][0].startswith("boomer|")  # the setting's kernel key was asked for
    assert t.state == "running" and t.worker is not None and t.preparation is None and not started
    with qtbot.waitSignal(t.done, timeout=300_000) as done:
        pass
    assert done.args == ["finished"] and not started


def test_the_rate_is_measured_from_the_first_step_on():
    meter = training.RateMeter(window_s=10)
    meter.add(1, now=300.0)  # the first step, after 300 s of compiling
    assert meter.rate() == 0.0 and meter.eta(1, 1000) is None
    meter.add(11, now=301.0)
    assert meter.rate() == pytest.approx(10.0) and meter.eta(11, 1000) == pytest.approx(98.9)


def test_kernel_preparation_reads_engine_prepare_on_a_toy_learner(qtbot, tmp_path, monkeypatch):
    from engine.prepare import is_prepared, save_data

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the child's stamps go here
    data = tmp_path / "data.npz"
    import numpy as np
    save_data(data, np.zeros((4, 2)), np.zeros((4, 3), dtype=np.uint8))
    prep = KernelPreparation(["--learner", "toy", "--params", '{"max_rules": 7}', "--data", str(data)],
                             command=[sys.executable, "-c", REAL_CHILD])
    progress = []
    prep.progress.connect(progress.append)
    with qtbot.waitSignal(prep.finished, timeout=120000) as finished:
        prep.start()
    assert finished.args == [True, ""], prep._stderr
    assert any(p["kernel"] == "toy_kernel" and p["compiled"] >= 1 for p in progress)
    assert progress[-1]["setting"] == "toy" and not prep.running
    assert is_prepared('["Toy", {}, false]')  # the stamp of the setting (its budget is not part of it)


def test_a_child_that_cannot_start_reports_failure(qtbot):
    prep = KernelPreparation([], command=["/nonexistent/python"])
    with qtbot.waitSignal(prep.finished, timeout=5000) as finished:
        prep.start()
    assert finished.args[0] is False and "could not start" in finished.args[1]


def test_the_window_prepares_in_the_background_and_a_run_suspends_it(qtbot, make_window, background_on):
    """The setting on screen first (not prepared), at low priority; Start suspends the child while the
    run (and its own preparation) goes on, Stop lets it continue."""
    window = make_window()
    background = window.background
    assert background is not None and background.args[:2] == ["--learner", "boomer"]
    line = background.command_line()
    assert line[:3] == [line[0], "-n", "10"] and line[0].endswith("nice")  # low priority
    assert window.background_label.text() == "preparing kernels in the background…"
    assert window.run_controls.readiness.text() == "first run compiles (~45 s)"
    pid = background.pid
    qtbot.waitUntil(lambda: alive(pid), timeout=5000)
    assert window.start_training()  # the run's own preparation first; the background waits
    qtbot.waitUntil(lambda: process_state(pid) == "T", timeout=5000)
    assert window.background is background
    assert window.training.state == "preparing" and window.training.preparation.running
    assert "paused while a run trains" not in window.background_label.text()  # no count yet: nothing to say
    run_pid = window.training.preparation.pid
    window.stop_training()
    assert not alive(run_pid)
    qtbot.waitUntil(lambda: process_state(pid) in ("R", "S"), timeout=5000)  # continued
    window.close()
    assert not alive(pid)


def test_closing_the_window_kills_the_background_preparation(qtbot, make_window, background_on):
    window = make_window()
    qtbot.waitUntil(lambda: window.background is not None and window.background.pid > 0, timeout=5000)
    pid = window.background.pid
    window.close()
    assert not alive(pid)
    assert not running_preparations()


def test_a_prepared_setting_on_screen_leaves_every_family_to_the_background(qtbot, make_window, monkeypatch,
                                                                            unprepared):
    """The setting on screen is prepared: the child prepares every family (--all); once it found them
    all ready, new data of the same kind start no child."""
    monkeypatch.delenv("BOOMER_NO_BACKGROUND_PREPARE")
    keys = []
    monkeypatch.setattr(background_preparation, "is_prepared", lambda key: keys.append(key) or True)
    monkeypatch.setattr(controller, "is_prepared", lambda key: True)
    unprepared([sys.executable, "-c", "import json; print(json.dumps({'event': 'families', 'total': 3, 'ready': 3}))"
                                      "; print(json.dumps({'event': 'done', 'settings': 0, 'failed': 0}))"])
    window = make_window()
    assert keys and keys[0][0].startswith("boomer|") and window.run_controls.readiness.text() == "ready"
    assert window.background is not None and window.background.args == ["--all"]
    qtbot.waitUntil(lambda: window.background is None, timeout=20000)
    assert window.background_label.text() == "kernels ready for 3 of 3 kernel components"
    from boomer_gui.components.state import DataSpec

    assert window.load_data(DataSpec(kind="synthetic", synthetic="conditional-dependence", n_examples=200,
                                     n_test=100, seed=3))
    assert window.background is None and window.background_label.text() == ""


def test_data_that_need_other_kernels_are_prepared_in_the_background_on_a_copy(qtbot, make_window, background_on):
    """10,000 examples need other kernel families than the built-in data (interleaved rows from 8,192):
    the background child prepares on a copy of the loaded data; going back to small data replaces it
    (the copy is deleted), and Start stops it."""
    from engine.prepare import load_data

    from boomer_gui.components.state import DataSpec

    window = make_window()
    first = window.background
    assert first is not None and first.args[:2] == ["--learner", "boomer"] and "--data" not in first.args
    first_pid = first.pid
    assert window.load_data(DataSpec(kind="synthetic", synthetic="conditional-dependence", n_examples=10000,
                                     n_test=300, seed=0))
    copy = window.background
    assert copy is not first and not alive(first_pid)
    assert copy.args[:2] == ["--learner", "boomer"] and copy.args[-2] == "--data"
    data_file = copy.args[-1]
    saved = load_data(data_file)
    assert saved["X"].shape == window.app.data.train.X.shape == (10000, 2)
    assert (saved["Y"] == window.app.data.train.Y).all()
    assert window.background_label.text() == "preparing kernels in the background…"
    assert not window.background_prep.data_changed()  # the same data: the child goes on
    assert window.background is copy
    copy_pid = copy.pid
    assert window.load_data(DataSpec(kind="synthetic", synthetic="conditional-dependence", n_examples=300,
                                     n_test=300, seed=1))
    assert not alive(copy_pid) and not os.path.exists(data_file)
    assert "--data" not in window.background.args  # the built-in data have these kernels
    assert window.background_prep.plan.jobs == [["--all"]]  # after the setting on screen
    background_pid = window.background.pid
    assert window.start_training()
    qtbot.waitUntil(lambda: process_state(background_pid) == "T", timeout=5000)
    window.stop_training()
