"""Loading a data set off the GUI thread, with progress; the result (or the error) comes back by
queued signals.  Loader warnings (e.g. a stale MEKA header) travel with the result."""
from __future__ import annotations

import warnings

from PySide6.QtCore import QObject, Qt, Signal
from superqt.utils import create_worker

from engine.datasets.errors import DatasetWarning

from boomer_gui.components.state import DataSpec, load_data


def load_with_notes(spec: DataSpec, progress=None):
    """(LoadedData, loader warnings as text); raises what ``load_data`` raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DatasetWarning)
        loaded = load_data(spec, progress)
    return loaded, [str(w.message) for w in caught if issubclass(w.category, DatasetWarning)]


class DataLoadJob(QObject):
    """One load in a superqt worker thread: ``progressed(fraction)``, then ``succeeded(loaded, notes)``
    or ``failed(exception)``, then ``done``."""

    progressed = Signal(float)
    succeeded = Signal(object, object)
    failed = Signal(object)
    done = Signal()

    def __init__(self, spec: DataSpec, parent=None):
        super().__init__(parent)
        self.spec = spec
        self.worker = None
        self.finished = False

    def start(self) -> None:
        self.worker = create_worker(load_with_notes, self.spec, self.progressed.emit, _start_thread=False,
                                    _ignore_errors=True)  # errors arrive through `failed`
        self.worker.returned.connect(self._returned, Qt.QueuedConnection)
        self.worker.errored.connect(self._errored, Qt.QueuedConnection)
        self.worker.finished.connect(self._finished, Qt.QueuedConnection)
        self.worker.start()

    def _returned(self, result) -> None:
        self.succeeded.emit(*result)

    def _errored(self, exc) -> None:
        self.failed.emit(exc)

    def _finished(self) -> None:
        self.finished = True
        self.done.emit()
