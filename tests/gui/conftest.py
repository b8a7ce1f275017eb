"""Qt test setup: offscreen platform, a main window on a small synthetic data set, and a check
that no test leaves a training worker, a pool thread, a preparation child or a visible window behind.

Every run's kernels count as prepared (runs compile in their worker as before, no child process)
and no window prepares BOOMER's kernels in the background; tests of the preparation say otherwise."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["BOOMER_NO_BACKGROUND_PREPARE"] = "1"

import pytest  # noqa: E402

SMALL = dict(n_examples=300, n_test=300, seed=0)


@pytest.fixture(autouse=True)
def no_leftover_threads(qapp):
    """Fail a test that leaves a worker running, a pool thread busy or a window open."""
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication
    from superqt.utils import WorkerBase

    from boomer_gui.adapters.preparation import running_preparations
    from boomer_gui.adapters.training import running_workers

    yield
    problems = []
    children = running_preparations()
    if children:
        problems.append(f"{len(children)} preparation child process(es) still running")
        for p in children:
            p.kill()
    open_windows = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    if open_windows:
        problems.append(f"windows left open: {[type(w).__name__ for w in open_windows]}")
        for w in open_windows:
            w.close()
    workers = running_workers()
    if workers:
        problems.append(f"{len(workers)} training worker(s) still running")
        for w in workers:
            w.quit()
    if [w for w in WorkerBase._worker_set if w.is_running]:
        problems.append("superqt workers still running")
    if not QThreadPool.globalInstance().waitForDone(5000):
        problems.append("the thread pool did not become idle")
    if problems:
        pytest.fail("; ".join(problems))


@pytest.fixture(autouse=True)
def kernels_prepared(monkeypatch):
    """Every setting counts as prepared: runs start their worker at once, as before preparations."""
    import boomer_gui.adapters.training as training

    monkeypatch.setattr(training, "is_prepared", lambda key: True)


@pytest.fixture
def errors():
    return []


@pytest.fixture
def make_window(qtbot, errors):
    """A factory of main windows whose error boxes are recorded in ``errors`` instead of shown."""
    from boomer_gui.main_window import MainWindow
    from boomer_gui.components.state import DataSpec

    windows = []

    def make(spec: DataSpec | None = None, max_rules: int = 40, **params):
        w = MainWindow()
        w.show_error = lambda title, text: errors.append((title, text))
        w.confirm_close = lambda text: "discard"  # closing at the end of a test asks nothing
        qtbot.addWidget(w)
        w.show()
        if spec is None:
            spec = DataSpec(kind="synthetic", synthetic="conditional-dependence", **SMALL)
        assert w.load_data(spec), errors
        w.learner_panel.set_params({"max_rules": max_rules, **params})
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.close()


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile the learners' kernels once, untimed, before any test waits on a run with a timeout (on
    a fresh machine Numba's cache is empty and the first run would spend its time compiling)."""
    from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier
    from engine.datasets import make_synthetic

    d = make_synthetic("conditional-dependence", 200, seed=0)
    for loss, head in (("logistic-decomposable", "single"), ("logistic-decomposable", "complete"),
                       ("logistic-non-decomposable", "single"), ("logistic-non-decomposable", "complete")):
        for _ in BoomerClassifier(loss=loss, head_type=head, max_rules=3).fit_iter(d.X, d.Y, d.X, d.Y):
            pass
    AdaBoostMHClassifier(max_rules=2).fit(d.X, d.Y)
    SeCoClassifier(max_rules=2).fit(d.X, d.Y)


@pytest.fixture
def train(qtbot):
    """``train(window)`` starts a run and waits until it is over; returns the final state."""

    def run(window, timeout=300_000):
        assert window.start_training()
        with qtbot.waitSignal(window.training.done, timeout=timeout) as blocker:
            pass
        return blocker.args[0]

    return run


@pytest.fixture
def trained(window, train):
    assert train(window) == "finished"
    return window
