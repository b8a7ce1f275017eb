"""Compiling kernels in a child process: ``python -m engine prepare`` as a Qt object.

A Numba compile cannot be interrupted inside the process that runs it, but a process can be
killed.  :class:`KernelPreparation` runs ``engine.prepare`` (see its docstring) in a
:class:`QProcess`, turns its JSON lines into ``progress`` signals and ends with ``finished``;
:meth:`KernelPreparation.kill` ends the child at once.  ``--parent-pid`` makes the child end
itself when this process dies, so no compile outlives the application.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import weakref

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

from engine.api import save_data

TICK_MS = 1000  # progress is re-emitted this often, so the elapsed time runs on during a long compile
KILL_WAIT_MS = 400
STDERR_KEPT = 4000  # characters of the child's stderr kept for an error message

_LIVE: "weakref.WeakSet[KernelPreparation]" = weakref.WeakSet()


def data_copy(train, test, prefix: str) -> str | None:
    """A temporary ``.npz`` copy of the training (and test) data for a child's ``--data``
    (:func:`engine.api.save_data`), or None when it cannot be written (no file is left then)."""
    path = None
    try:
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=".npz")
        os.close(fd)
        save_data(path, train.X, train.Y, None if test is None else test.X, None if test is None else test.Y,
                  train.nominal_mask)
    except (OSError, ValueError, MemoryError):
        if path is not None:
            with contextlib.suppress(OSError):
                os.remove(path)
        return None
    return path


def running_preparations() -> list["KernelPreparation"]:
    """Preparations whose child process is still running."""
    return [p for p in list(_LIVE) if p.running]


class KernelPreparation(QObject):
    """One ``python -m engine prepare ARGS --json --parent-pid PID`` child.

    ``progress(dict)``: ``kernel`` (the kernel being compiled, or ""), ``compiled`` (how many so
    far), ``setting`` (the setting being prepared), ``elapsed`` (seconds since start); emitted at
    every event and every second.  ``finished(ok, message)`` once, unless :meth:`kill` came first.
    ``command`` (class attribute or argument) replaces ``python -m engine prepare`` (tests)."""

    progress = Signal(dict)
    finished = Signal(bool, str)
    event = Signal(dict)  # every JSON event of the child, as it came

    command: list[str] | None = None

    def __init__(self, args: list[str], parent=None, command: list[str] | None = None, low_priority: bool = False):
        super().__init__(parent)
        self.args = list(args)
        self._command = command or type(self).command or [sys.executable, "-m", "engine", "prepare"]
        self.low_priority = low_priority
        self.state = {"kernel": "", "compiled": 0, "setting": "", "elapsed": 0.0}
        self.errors: list[str] = []
        self._started = 0.0
        self._stdout = b""
        self._stderr = ""
        self._over = False
        self.process = QProcess(self)
        self.process.readyReadStandardOutput.connect(self._read_stdout)
        self.process.readyReadStandardError.connect(self._read_stderr)
        self.process.finished.connect(self._on_finished)
        self.process.errorOccurred.connect(self._on_error)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._emit_progress)
        _LIVE.add(self)

    # -- control -------------------------------------------------------------------------------
    def start(self) -> None:
        program, *args = self.command_line()
        self._started = time.perf_counter()
        self.process.start(program, args)
        self._tick.start()

    def command_line(self) -> list[str]:
        line = [*self._command, *self.args, "--json", "--parent-pid", str(os.getpid())]
        nice = shutil.which("nice") if self.low_priority else None
        return [nice, "-n", "10", *line] if nice else line

    @property
    def running(self) -> bool:
        try:
            return self.process.state() != QProcess.NotRunning
        except RuntimeError:  # deleted with its parent (Qt kills the child then)
            return False

    @property
    def pid(self) -> int:
        return int(self.process.processId())

    def elapsed(self) -> float:
        return time.perf_counter() - self._started if self._started else 0.0

    def kill(self) -> None:
        """End the child now (SIGKILL, reaped within ``KILL_WAIT_MS``); no signal follows.  The
        kernels compiled so far stay in Numba's cache."""
        self._over = True
        self._tick.stop()
        if self.running:
            self.process.kill()
            self.process.waitForFinished(KILL_WAIT_MS)

    can_suspend = hasattr(signal, "SIGSTOP")  # POSIX: a child can be stopped and continued

    def suspend(self) -> None:
        """Stop the child where it is (SIGSTOP): it keeps its memory and uses no processor."""
        self._signal(getattr(signal, "SIGSTOP", None))
        self._tick.stop()

    def resume(self) -> None:
        """Continue a suspended child (SIGCONT)."""
        self._signal(getattr(signal, "SIGCONT", None))
        if not self._over:
            self._tick.start()

    def _signal(self, sig) -> None:
        if sig is not None and self.running and self.pid > 0:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, sig)

    # -- the child's output --------------------------------------------------------------------
    def _read_stdout(self) -> None:
        self._stdout += bytes(self.process.readAllStandardOutput().data())
        *lines, self._stdout = self._stdout.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not the protocol (a stray print): ignored
            if isinstance(event, dict):
                self._apply(event)
                if not self._over:
                    self.event.emit(event)

    def _apply(self, event: dict) -> None:
        kind = event.get("event")
        if kind == "compiling":
            self.state.update(kernel=str(event.get("kernel", "")), compiled=int(event.get("compiled", 0)))
        elif kind == "setting":
            self.state["setting"] = str(event.get("label", ""))
        elif kind in ("prepared", "done"):
            self.state["compiled"] = int(event.get("compiled", self.state["compiled"]))
        elif kind == "error":
            self.errors.append(str(event.get("message", "")))
        else:
            return
        self._emit_progress()

    def _read_stderr(self) -> None:
        text = bytes(self.process.readAllStandardError().data()).decode(errors="replace")
        self._stderr = (self._stderr + text)[-STDERR_KEPT:]

    def _emit_progress(self) -> None:
        if not self._over:
            self.state["elapsed"] = self.elapsed()
            self.progress.emit(dict(self.state))

    def _on_finished(self, code: int, status) -> None:
        self._read_stdout()
        self._read_stderr()
        ok = status == QProcess.NormalExit and code == 0
        last = (self._stderr.strip().splitlines() or [""])[-1]
        message = "; ".join(self.errors) or ("" if ok else last or f"the preparation ended with code {code}")
        self._end(ok, message)

    def _on_error(self, error) -> None:
        if error == QProcess.FailedToStart:  # no 'finished' follows
            self._end(False, f"could not start {self._command[0]}: {self.process.errorString()}")

    def _end(self, ok: bool, message: str) -> None:
        if self._over:
            return
        self._over = True
        self._tick.stop()
        self.finished.emit(ok, message)
