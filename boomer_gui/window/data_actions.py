"""Loading data into the window (here and now, or in a worker thread with a progress bar; a file
whose labels cannot be found asks for them) and preparing BOOMER's kernels in the background."""
from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication

from engine.datasets.errors import LabelsNotFoundError

from boomer_gui.adapters.data_loading import DataLoadJob, load_with_notes
from boomer_gui.adapters.preparation import KernelPreparation, data_copy
from boomer_gui.components.state import DataSpec, LoadedData
from boomer_gui.panels.run_controls import format_eta


class DataActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.job: DataLoadJob | None = None

    def load_data(self, spec: DataSpec) -> bool:
        """Load the data a spec describes, here and now (start-up, scripts, tests); see
        :meth:`request_data` for the background load the data panel uses.  On any failure one
        message box and the window is unchanged."""
        if not self._may_load():
            return False
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            loaded, notes = load_with_notes(spec)
        except Exception as exc:  # noqa: BLE001 - reported; the window stays as it was
            QApplication.restoreOverrideCursor()
            retry = self._failed(spec, exc)
            return self.load_data(retry) if retry is not None else False
        QApplication.restoreOverrideCursor()
        self._succeeded(loaded, notes)
        return True

    def request_data(self, spec: DataSpec) -> None:
        """Load in a worker thread with a progress bar; the window stays usable meanwhile."""
        w = self.w
        if not self._may_load():
            return
        job = DataLoadJob(spec, w)
        job.progressed.connect(lambda f: w.load_progress.setValue(int(1000 * f)))
        job.succeeded.connect(self._succeeded)
        job.failed.connect(lambda exc: self._background_failed(job, exc))
        job.done.connect(lambda: self._done(job))
        self.job = job
        w.load_progress.setValue(0)
        w.load_progress.show()
        w.statusBar().showMessage(f"Loading {Path(spec.path).name if spec.kind == 'file' else spec.synthetic}…")
        w.update_enabled()
        job.start()

    def _may_load(self) -> bool:
        w = self.w
        if w.training_active:
            w.show_error("Training in progress", "Stop the current run before changing the data.")
            return False
        if self.job is not None:
            w.statusBar().showMessage("A data set is still loading; wait for it to finish.", 5000)
            return False
        return True

    def _done(self, job: DataLoadJob) -> None:
        if self.job is job:
            self.job = None
            self.w.load_progress.hide()
            self.w.update_enabled()
        job.deleteLater()

    def _background_failed(self, job: DataLoadJob, exc) -> None:
        self._done(job)
        retry = self._failed(job.spec, exc)
        if retry is not None:
            self.request_data(retry)

    def _failed(self, spec: DataSpec, exc) -> DataSpec | None:
        """Report a failed load; for missing labels ask for them and return the spec to retry."""
        w = self.w
        if isinstance(exc, LabelsNotFoundError):
            choice = w.ask_labels(spec.path, exc)
            if choice is None:
                w.statusBar().showMessage(f"Not loaded: {exc}", 10000)
                return None
            return replace(spec, **choice)
        what = spec.path if spec.kind == "file" else spec.synthetic
        w.show_error("Cannot load the data", f"{what}:\n{w.error_text(exc)}")
        return None

    def _succeeded(self, loaded: LoadedData, notes) -> None:
        self.w.set_data(loaded)
        if notes:
            self.w.show_error("The data loaded with a warning", "\n\n".join(notes))


class BackgroundPreparation(QObject):
    """BOOMER's usual kernels (defaults and presets) for the data on screen, compiled in a
    low-priority child process whenever the window shows data whose kernels are not in the cache
    (``BOOMER_NO_BACKGROUND_PREPARE`` turns it off).  The install prepares them on the built-in data;
    a file may need other kernel families (threaded sweeps, interleaved rows), which the child then
    compiles on a copy of the loaded data.  Start stops it; the kernels compiled so far stay in the
    cache, and new data start it again."""

    LEARNER = "boomer"

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.process: KernelPreparation | None = None
        self.data_key: str | None = None  # the data the running child prepares for
        self.data_file: str | None = None  # the copy of them it reads (None: the built-in data)

    def data_changed(self) -> bool:
        """The window shows new data: prepare for them unless they need nothing or a child already
        prepares for them (a child preparing for other data is replaced).  Returns whether one started."""
        w = self.w
        if os.environ.get("BOOMER_NO_BACKGROUND_PREPARE") or w.app.data is None or \
                not w.app.needs_preparation(self.LEARNER):
            return False
        key = w.app.data.key
        if self.process is not None and self.data_key == key:
            return False
        self.stop()
        args = ["--learners", self.LEARNER]
        if w.app.prepares_on_own_data(self.LEARNER):
            self.data_file = data_copy(w.app.data.train, w.app.data.test, "boomer-background-")
            if self.data_file is None:  # no room for the copy: each run prepares itself
                return False
            args += ["--data", self.data_file]
        self.data_key = key
        self.process = KernelPreparation(args, w, low_priority=True)
        self.process.progress.connect(self._on_progress)
        self.process.finished.connect(self._on_finished)
        self.process.start()
        return True

    def _on_progress(self, progress: dict) -> None:
        what = "for these data " if self.data_file is not None else ""
        self.w.background_label.setText(f"preparing BOOMER's kernels {what}in the background: "
                                        f"{progress.get('compiled', 0)} compiled, "
                                        f"{format_eta(progress.get('elapsed', 0))}")

    def _on_finished(self, ok: bool, message: str) -> None:
        self.stop()
        self.w.statusBar().showMessage("BOOMER's kernels are ready: its runs start at once" if ok else
                                       f"BOOMER's kernels could not be prepared in advance: {message}", 8000)

    def stop(self) -> None:
        """Kill the background preparation (the kernels compiled so far stay in the cache)."""
        if self.process is not None:
            self.process.kill()
            self.process.deleteLater()
            self.process = None
        if self.data_file is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.data_file)
            self.data_file = None
        self.data_key = None
        self.w.background_label.setText("")
