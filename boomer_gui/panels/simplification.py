"""Tools > Simplify the shown run: ε, the measure and the data part; the search runs in a worker thread
(superqt), then the curve "rules kept vs loss" and what was removed are shown and the simplified model
is handed to ``add_run`` (the window adds it as a new run).  The logic is components.simplification's."""
from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDoubleSpinBox, QHBoxLayout, QLabel, QListWidget, QPushButton,
                               QVBoxLayout)
from superqt.utils import create_worker

from boomer_gui.components.simplification import (DATA_PARTS, SIMPLIFY_MEASURES, curve_arrays, removed_lines,
                                                  simplified_estimator, simplified_name, simplify_request, summary)


class SimplifyDialog(QDialog):
    finished_search = Signal(object)  # the Simplification, or None after an error

    def __init__(self, app, add_run=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Simplify the shown run")
        self.app, self.add_run, self.worker, self.result, self.request = app, add_run, None, None, None
        row = QHBoxLayout()
        self.epsilon = QDoubleSpinBox(decimals=4, minimum=0.0, maximum=1.0, singleStep=0.001, value=0.005)
        self.measure = QComboBox()
        self.measure.addItems(list(SIMPLIFY_MEASURES))
        self.part = QComboBox()
        self.part.addItems(list(DATA_PARTS))
        self.start_button = QPushButton("Simplify")
        self.start_button.clicked.connect(self.start)
        for widget in (QLabel("ε:"), self.epsilon, QLabel("measure:"), self.measure, QLabel("data:"), self.part,
                       self.start_button):
            row.addWidget(widget)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        self.status = QLabel("Removes rules, then conditions, while the loss stays within ε of the full model's.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.figure = Figure(figsize=(8, 3.6), layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.ax = self.figure.subplots()
        layout.addWidget(self.canvas, 3)
        layout.addWidget(QLabel("Removed, in order:"))
        self.removed = QListWidget()
        layout.addWidget(self.removed, 1)
        self.resize(1000, 720)

    def start(self) -> bool:
        """Check the request and start the search in a worker thread; False (and the reason shown) if bad."""
        if self.worker is not None:
            return False
        try:
            self.request = simplify_request(self.app, self.epsilon.value(), self.measure.currentText(),
                                            self.part.currentText())
        except ValueError as error:
            self.status.setText(str(error))
            return False
        self.worker = create_worker(self.request.compute, _start_thread=False, _ignore_errors=True)
        self.worker.returned.connect(self._done, Qt.QueuedConnection)
        self.worker.errored.connect(self._failed, Qt.QueuedConnection)
        self.worker.finished.connect(self._worker_finished, Qt.QueuedConnection)
        self.start_button.setEnabled(False)
        self.status.setText(f"simplifying {self.request.run.name} …")
        self.worker.start()
        return True

    def _worker_finished(self) -> None:
        self.worker = None
        self.start_button.setEnabled(True)

    def _failed(self, error) -> None:
        self.status.setText(f"cannot simplify: {error}")
        self.finished_search.emit(None)

    def _done(self, result) -> None:
        self.result = result
        self.status.setText(summary(result, self.request))
        self._plot(result)
        self.removed.clear()
        self.removed.addItems(removed_lines(result, getattr(result.model, "schema", None)))
        if self.add_run is not None:
            self.add_run(self.request.run, simplified_estimator(self.request.estimator, result),
                         simplified_name(self.request.run.name, result.epsilon))
        self.finished_search.emit(result)

    def _plot(self, result) -> None:
        kept, loss = curve_arrays(result)
        ax = self.ax
        ax.clear()
        n = len(result.removed_rules) + 1  # the full model, then one point per rule removed
        ax.plot(kept[:n], loss[:n], "o-", markersize=3, color="#0072B2", label=f"{result.measure} loss, rules removed")
        ax.plot(kept[n - 1:], loss[n - 1:], "x", markersize=5, color="#009E73",
                label=f"then conditions dropped ({len(result.removed_conditions)})")
        ax.axhline(result.full_loss + result.epsilon, color="#D55E00", linestyle="--", label="bound (full + ε)")
        ax.axhline(result.full_loss, color="0.5", linestyle=":", label="full model")
        ax.set_xlabel("rules kept")
        ax.set_ylabel(f"{result.measure} loss ({self.request.part} data)")
        ax.invert_xaxis()
        ax.legend(loc="best")
        self.canvas.draw_idle()
