"""Training in a worker thread, and the coalescing of streamed rule records.

The engine's ``fit_iter`` is validated in the GUI thread (so a bad parameter raises at once)
and then consumed in a superqt worker of the global thread pool.  Records cross to the GUI
thread only through the worker's queued ``yielded`` signal, as small lists (the worker groups
records of fast rules, so the GUI thread is not woken for every rule); a
:class:`RecordBatcher` there coalesces them into batches at most every ~100 ms, so the rule
table does one insertion per batch however fast the engine is.

Closing the generator (on stop, on error or at its end) happens in the worker thread before
``finished`` is emitted, so the estimator's ``model_`` holds the learned rules by then.

A run whose kernels are not in Numba's cache yet is first *prepared*: a child process compiles
them (:mod:`boomer_gui.adapters.preparation`), which Stop and Quit can kill at once; the worker starts
when the child is done and loads the kernels from the cache.
"""
from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import threading
import time
import weakref
from collections import deque

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from superqt.utils import GeneratorWorker

from engine.api import is_prepared, kernel_setting

from boomer_gui.adapters.preparation import KernelPreparation, data_copy

BATCH_INTERVAL_MS = 100
# While a run streams, threads hand the GIL over after at most 1 ms (Python's default: 5 ms), so
# the worker, between two kernel calls, is not kept waiting by a repaint in the GUI thread.
STREAMING_SWITCH_INTERVAL_S = 0.001
PAUSE_POLL_S = 0.01

_LIVE: "weakref.WeakSet[TrainingWorker]" = weakref.WeakSet()


@contextlib.contextmanager
def streaming_tweaks():
    """The process-wide settings of a streaming run, restored on exit whatever happens.

    The GIL is handed over after at most 1 ms (the worker between two kernel calls does not wait
    for a repaint), and the objects alive at the start (Qt, matplotlib, numba, the data) are frozen
    out of the cyclic collector, so a full collection does not walk them while holding the GIL."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, STREAMING_SWITCH_INTERVAL_S))
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)


def running_workers() -> list["TrainingWorker"]:
    """Training workers that were started and have not finished yet."""
    return [w for w in list(_LIVE) if not w.done]


def _delegate(generator):
    yield from generator  # closing this generator closes the engine's


class TrainingWorker(GeneratorWorker):
    """Runs a generator of rule records in a pool thread; pause, resume and quit between rules.

    A superqt ``GeneratorWorker`` (its public signals: ``yielded``, ``paused``, ``resumed``,
    ``aborted``, ``errored``, ``warned``, ``finished``) whose loop also groups fast records into
    lists, always closes the generator in the worker thread (so ``finally`` blocks of the engine
    run there) and reports every exception, RuntimeError included, through ``errored``."""

    def __init__(self, generator):
        super().__init__(_delegate, generator)
        self._pause_requested = False
        self._resume_requested = False
        self._paused = False
        self.done = False
        self.count = 0
        self.signals.finished.connect(self._mark_done, Qt.DirectConnection)
        _LIVE.add(self)

    def _mark_done(self):
        self.done = True

    def run(self) -> None:
        try:
            super().run()
        except RuntimeError:  # the signal objects were deleted at shutdown: nobody listens any more
            self.done = True

    # -- control (any thread) ----------------------------------------------------------------
    @property
    def is_paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        if not self._paused:
            self._pause_requested = True

    def resume(self) -> None:
        if self._paused or self._pause_requested:
            self._pause_requested = False
            self._resume_requested = True

    # -- worker thread ---------------------------------------------------------------------
    def work(self):
        """Consume the generator; records leave as lists through the queued ``yielded`` signal.

        A record is held back only while rules come fast (the previous one took less than half
        the batch interval) and the last list left less than a batch interval ago, so the GUI
        thread is woken at most about 1/BATCH_INTERVAL times a second, yet a slow rule's record
        is never kept waiting.  Held records leave before pausing, stopping or finishing."""
        pending: list = []
        interval = BATCH_INTERVAL_MS / 1000.0
        last_emit = last_record = time.perf_counter()

        def flush():
            nonlocal pending, last_emit
            if pending:
                batch, pending = pending, []
                last_emit = time.perf_counter()
                self.yielded.emit(batch)

        try:
            while True:
                if self.abort_requested:
                    flush()
                    self.aborted.emit()
                    break
                if self._paused:
                    if self._resume_requested:
                        self._paused = self._resume_requested = False
                        self.resumed.emit()
                        last_record = time.perf_counter()
                    else:
                        time.sleep(PAUSE_POLL_S)
                    continue
                if self._pause_requested:
                    flush()
                    self._paused, self._pause_requested = True, False
                    self.paused.emit()
                    continue
                try:
                    record = next(self._gen)
                except StopIteration:
                    break
                self.count += 1
                pending.append(record)
                now = time.perf_counter()
                slow = now - last_record >= interval / 2
                last_record = now
                if slow or now - last_emit >= interval:
                    flush()
            flush()
        except RuntimeError as exc:  # WorkerBase.run would swallow a *returned* RuntimeError
            raise _Wrapped(exc) from exc
        finally:
            try:
                flush()  # records learned before an error are kept
            finally:
                self._gen.close()
        return self.count


def _plain(value):
    """NumPy scalars (and anything else) in parameters, for JSON."""
    return value.item() if hasattr(value, "item") else str(value)


class _Wrapped(Exception):
    """Carries a RuntimeError of the engine through superqt's error path unchanged."""

    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.original = exc


def unwrap(exc: BaseException) -> BaseException:
    return exc.original if isinstance(exc, _Wrapped) else exc


class RecordBatcher(QObject):
    """Collects single records; emits them as one list at most every ``interval_ms``."""

    batchReady = Signal(list)

    def __init__(self, interval_ms: int = BATCH_INTERVAL_MS, parent=None):
        super().__init__(parent)
        self._pending: list = []
        self._interval = interval_ms
        self._last = -1e9
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)

    def push(self, records) -> None:
        """Add a list of records (as the worker sends them) or a single record."""
        if isinstance(records, list):
            self._pending.extend(records)
        else:
            self._pending.append(records)
        if self._timer.isActive():
            return
        wait = self._interval - (time.perf_counter() - self._last) * 1000.0
        self._timer.start(max(0, int(wait)))

    def flush(self) -> None:
        self._timer.stop()
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self._last = time.perf_counter()
        self.batchReady.emit(batch)

    def stop(self) -> None:
        self._timer.stop()

    @property
    def pending(self) -> int:
        return len(self._pending)


class RateMeter:
    """Rules per second over a sliding window, and the time left for a given budget.

    The rate is measured between arrivals only (unknown before the second one), so the time a
    run spent before its first step (compiling, say) never enters it."""

    def __init__(self, window_s: float = 3.0):
        self.window = window_s
        self._samples: deque = deque()

    def add(self, total: int, now: float | None = None) -> None:
        now = time.perf_counter() if now is None else now
        self._samples.append((now, total))
        while len(self._samples) > 2 and now - self._samples[0][0] > self.window:
            self._samples.popleft()

    def rate(self) -> float:
        if len(self._samples) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self._samples[0], self._samples[-1]
        return (n1 - n0) / max(t1 - t0, 1e-6)

    def eta(self, total: int, budget: int | None) -> float | None:
        rate = self.rate()
        if budget is None or rate <= 0:
            return None
        return max(0, budget - total) / rate


class TrainingRun(QObject):
    """One training run: the estimator, its worker, the batching and its state.

    ``start`` calls ``fit_iter`` in the calling (GUI) thread: invalid parameters or data raise
    there, before any thread is started.  ``setting`` (the learner's registry key and parameters)
    lets a run whose kernels are not prepared yet compile them in a child process first (state
    ``preparing``, progress through ``preparing``)."""

    batch = Signal(list)
    stateChanged = Signal(str)  # preparing | running | paused | finished | stopped | failed
    preparing = Signal(dict)  # KernelPreparation.progress while the kernels compile
    failed = Signal(object)
    warned = Signal(str)
    done = Signal(str)

    def __init__(self, estimator, train, test=None, parent=None, setting: tuple[str, dict] | None = None):
        super().__init__(parent)
        self.estimator = estimator
        self.train = train
        self.test = test
        self.setting = setting
        self.worker: TrainingWorker | None = None
        self.preparation: KernelPreparation | None = None
        self._gen = None  # the validated generator, while the kernels are prepared
        self._data_file: str | None = None
        self.state = "idle"
        self.received = 0
        self.meter = RateMeter()
        self._stop_requested = False
        self._error: BaseException | None = None
        self._tweaks = contextlib.ExitStack()  # streaming_tweaks() while the worker runs
        # Stop and close set it: the engine's kernels see it within milliseconds, even mid-rule.
        self.cancel = threading.Event()
        self.batcher = RecordBatcher(parent=self)
        self.batcher.batchReady.connect(self._on_batch)

    def start(self) -> None:
        kw = {}
        if self.test is not None:
            kw = {"X_test": self.test.X, "Y_test": self.test.Y}
        gen = self.estimator.fit_iter(self.train.X, self.train.Y, nominal_attributes=self.train.nominal_mask,
                                      schema=self.train.schema, cancel=self.cancel, **kw)
        if self.needs_preparation():
            self._prepare(gen)
        else:
            self._start_worker(gen)

    def needs_preparation(self) -> bool:
        """Whether the run's kernels must be compiled first (a setting is known and not prepared)."""
        if self.setting is None:
            return False
        try:
            return not is_prepared(kernel_setting(self.estimator, self.train.X, self.train.Y))
        except Exception:  # noqa: BLE001 - no key: the run compiles what it needs itself
            return False

    def _prepare(self, gen) -> None:
        """Save the data for the child, start it; the worker follows when it is done."""
        self._data_file = data_copy(self.train, self.test, "boomer-prepare-")
        if self._data_file is None:  # no room for the copy: compile in the run
            self._end_preparation()
            self._start_worker(gen)
            return
        self._gen = gen
        learner, params = self.setting
        self.preparation = KernelPreparation(["--learner", learner, "--params", json.dumps(params, default=_plain),
                                              "--data", self._data_file], parent=self)
        self.preparation.progress.connect(self.preparing)
        self.preparation.finished.connect(self._on_prepared)
        self._set_state("preparing")
        self.preparation.start()

    def _on_prepared(self, ok: bool, message: str) -> None:
        self._end_preparation()
        gen, self._gen = self._gen, None
        if not ok:
            self.warned.emit(f"the kernels could not be compiled in advance ({message}); the run compiles them")
        self._start_worker(gen)

    def _end_preparation(self) -> None:
        """Kill the child (if still running) and delete the data file."""
        if self.preparation is not None:
            self.preparation.kill()
            self.preparation.deleteLater()
            self.preparation = None
        if self._data_file is not None:
            with contextlib.suppress(OSError):
                os.remove(self._data_file)
            self._data_file = None

    def _start_worker(self, gen) -> None:
        self.worker = TrainingWorker(gen)
        w = self.worker
        w.yielded.connect(self.batcher.push, Qt.QueuedConnection)
        w.paused.connect(self._on_paused, Qt.QueuedConnection)
        w.resumed.connect(self._on_resumed, Qt.QueuedConnection)
        w.errored.connect(self._on_error, Qt.QueuedConnection)
        w.warned.connect(self._on_warning, Qt.QueuedConnection)
        w.finished.connect(self._on_finished, Qt.QueuedConnection)
        self.meter = RateMeter()
        self._set_state("running")
        self._tweaks.enter_context(streaming_tweaks())
        try:
            w.start()
        except BaseException:
            self._tweaks.close()
            raise

    # -- control ---------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.state in ("preparing", "running", "paused")

    def pause(self) -> None:
        if self.worker is not None and self.state == "running":
            self.worker.pause()

    def resume(self) -> None:
        if self.worker is not None and self.state == "paused":
            self.worker.resume()

    def stop(self) -> None:
        """Stop within a fraction of a second, even in the middle of a long rule (which is dropped);
        the rules learned before are kept.  While the kernels are prepared the child is killed
        and the run ends at once, without rules."""
        if self.state == "preparing":
            self._stop_requested = True
            self._end_preparation()
            gen, self._gen = self._gen, None
            gen.close()
            self._set_state("stopped")
            self.done.emit("stopped")
        elif self.worker is not None and self.active:
            self._stop_requested = True
            self.cancel.set()
            self.worker.quit()

    def wait(self, timeout_ms: int = 3000) -> bool:
        """Process events until the worker has finished (at most ``timeout_ms``)."""
        if not self.active and (self.worker is None or self.worker.done):
            return True
        loop = QEventLoop()
        self.done.connect(loop.quit)
        QTimer.singleShot(timeout_ms, loop.quit)
        if self.active:
            loop.exec()
        return not self.active

    # -- worker signals (GUI thread) -----------------------------------------------------
    def _on_batch(self, records: list) -> None:
        self.received += len(records)
        self.meter.add(self.received)
        self.batch.emit(records)

    def _on_paused(self):
        if self.state == "running":
            self._set_state("paused")

    def _on_resumed(self):
        if self.state == "paused":
            self._set_state("running")

    def _on_error(self, exc):
        self._error = unwrap(exc)

    def _on_warning(self, args):
        # superqt redirects every thread's warnings while the worker runs: a deprecation notice
        # of the GUI side (Qt, matplotlib) is not the learner's and is not shown to the user
        if len(args) > 1 and isinstance(args[1], type) and issubclass(args[1], (DeprecationWarning,
                                                                                PendingDeprecationWarning)):
            return
        try:
            message = str(args[0])
        except Exception:  # pragma: no cover - defensive
            message = str(args)
        self.warned.emit(message)

    def _on_finished(self):
        self._tweaks.close()
        self.batcher.flush()  # every record emitted before 'finished' has arrived by now
        if self._error is not None:
            state = "failed"
        elif self._stop_requested:
            state = "stopped"
        else:
            state = "finished"
        self._set_state(state)
        if self._error is not None:
            self.failed.emit(self._error)
        self.done.emit(state)

    def _set_state(self, state: str) -> None:
        self.state = state
        self.stateChanged.emit(state)
