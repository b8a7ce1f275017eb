"""Loading data into the window (here and now, or in a worker thread with a progress bar; a file
whose labels cannot be found asks for them)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication

from engine.datasets.errors import LabelsNotFoundError

from boomer_gui.adapters.data_loading import DataLoadJob, load_with_notes
from boomer_gui.components.state import DataSpec, LoadedData


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
