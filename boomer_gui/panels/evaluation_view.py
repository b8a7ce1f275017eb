"""File → Open evaluation results: a Table-1 evaluation's result store as a sortable table per measure
and its critical-difference diagram, refreshed while a running evaluation writes to the store.

All statistics come from ``engine.evaluation.table1.report`` (built in a worker thread); this module only
shows them."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QMainWindow, QProgressBar, QSplitter,
                               QTableView, QVBoxLayout, QWidget)
from superqt.utils import create_worker

from engine.api import MEASURES, MeasureView, Report, cd_figure, load_report, measure_view, paper_table1, store_progress

SortRole = Qt.UserRole + 1


class MeasureTableModel(QAbstractTableModel):
    """Rows: data sets, then the average-rank row; columns: the methods.  Cells: value (rank)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view: MeasureView | None = None

    def set_view(self, view: MeasureView | None) -> None:
        self.beginResetModel()
        self.view = view
        self.endResetModel()

    def _has_avg(self) -> bool:
        return self.view is not None and self.view.average_ranks is not None

    def rowCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() or self.view is None:
            return 0
        return len(self.view.datasets) + (1 if self._has_avg() else 0)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.view is None else len(self.view.methods)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role != Qt.DisplayRole or self.view is None:
            return None
        if orientation == Qt.Horizontal:
            return self.view.methods[section] if 0 <= section < len(self.view.methods) else None
        if 0 <= section < len(self.view.datasets):
            return self.view.datasets[section]
        return "avg. rank" if section == len(self.view.datasets) else None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.view is None:
            return None
        i, j = index.row(), index.column()
        v = self.view
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if i == len(v.datasets):  # the average-rank row
            value = float(v.average_ranks[j])
            if role == Qt.DisplayRole:
                return f"{value:.2f}"
            if role == SortRole:
                return value
            if role == Qt.FontRole and value == float(np.min(v.average_ranks)):
                return _bold()
            return None
        value, rank = float(v.values[i, j]), float(v.ranks[i, j])
        if role == Qt.DisplayRole:
            if math.isnan(value):
                return "—"
            return f"{value:.2f}" + ("" if math.isnan(rank) else f" ({rank:g})")
        if role == SortRole:
            return value
        if role == Qt.FontRole and v.best[i, j]:
            return _bold()
        if role == Qt.ToolTipRole:
            paper = paper_table1.value(v.measure, v.datasets[i], v.method_keys[j])
            ours = "not finished yet" if math.isnan(value) else f"{v.title}: {value:.4f}"
            return ours + ("" if paper is None else f"\nthe paper's Table 1: {paper:.2f}")
        return None


class MeasureSortProxy(QSortFilterProxyModel):
    """Sorts data sets by a column's values; unfinished cells and the average-rank row stay at the
    bottom in either order."""

    def lessThan(self, left, right) -> bool:
        descending = self.sortOrder() == Qt.DescendingOrder

        def key(index):
            view = self.sourceModel().view
            value = index.data(SortRole)
            category = 2 if index.row() == len(view.datasets) else (1 if math.isnan(value) else 0)
            return (-category if descending else category), (0.0 if category else value)

        return key(left) < key(right)


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


class EvaluationWindow(QMainWindow):
    """One result store: measure chooser, table, CD diagram, progress of a run still writing."""

    def __init__(self, path, parent=None, poll_ms: int = 3000):
        super().__init__(parent)
        self.path = Path(path)
        self.report: Report | None = None
        self._worker = None
        self._pending = False
        self._seen = (-1, -1)
        self.setWindowTitle(f"Evaluation results — {self.path.name}")
        self.measure_box = QComboBox()
        for name, m in MEASURES.items():
            self.measure_box.addItem(m.title, name)
        self.measure_box.currentIndexChanged.connect(self._show_measure)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m tasks finished")
        self.status = QLabel()
        self.model = MeasureTableModel(self)
        self.proxy = MeasureSortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SortRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)  # the store's order until a click
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.canvas_holder = QVBoxLayout()
        self.canvas: FigureCanvasQTAgg | None = None
        self.cd_note = QLabel("The critical-difference diagram needs two complete data sets.")
        self.canvas_holder.addWidget(self.cd_note)
        top = QHBoxLayout()
        top.addWidget(QLabel("Measure:"))
        top.addWidget(self.measure_box)
        top.addWidget(self.progress, 1)
        lower = QWidget()
        lower.setLayout(self.canvas_holder)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self.setCentralWidget(body)
        self.resize(1000, 760)
        self.timer = QTimer(self)
        self.timer.setInterval(poll_ms)
        self.timer.timeout.connect(self.poll)

    # -- loading -------------------------------------------------------------------------------
    def start(self) -> None:
        """Read the store now (raises ValueError / FileNotFoundError for a file that is not one),
        build the report in a worker thread and keep polling for a run that is still writing."""
        done, expected = store_progress(self.path)
        self._set_progress(done, expected)
        self._rebuild()
        self.timer.start()

    def poll(self) -> None:
        try:
            done, expected = store_progress(self.path)
        except Exception as exc:  # noqa: BLE001 - the store vanished or broke: say so, keep what is shown
            self.status.setText(f"cannot read {self.path.name}: {exc}")
            return
        if (done, expected) != self._seen:
            self._set_progress(done, expected)
            self._rebuild()

    def _set_progress(self, done: int, expected: int) -> None:
        self._seen = (done, expected)
        self.progress.setMaximum(max(expected, 1))
        self.progress.setValue(done)

    def _rebuild(self) -> None:
        if self._worker is not None:
            self._pending = True  # one more rebuild when this one ends
            return
        self._worker = create_worker(load_report, self.path, _start_thread=False, _ignore_errors=True)
        self._worker.returned.connect(self._report_ready, Qt.QueuedConnection)
        self._worker.errored.connect(self._report_failed, Qt.QueuedConnection)
        self._worker.finished.connect(self._worker_finished, Qt.QueuedConnection)
        self.status.setText("reading the store …")
        self._worker.start()

    def _worker_finished(self) -> None:
        self._worker = None
        if self._pending and self.isVisible():
            self._pending = False
            self._rebuild()

    def _report_ready(self, report: Report) -> None:
        self.report = report
        done = report.complete_datasets()
        self.status.setText(f"{len(report.datasets)} data sets, {len(report.methods)} methods, "
                            f"{report.n_folds}-fold CV, BBC-CV with {report.n_bootstraps} bootstraps; complete: "
                            f"{', '.join(done) if done else 'none yet'}")
        self._show_measure()

    def _report_failed(self, exc) -> None:
        self.status.setText(f"cannot build the report: {exc}")

    # -- showing -------------------------------------------------------------------------------
    def current_view(self) -> MeasureView | None:
        if self.report is None:
            return None
        return measure_view(self.report, self.measure_box.currentData())

    def _show_measure(self) -> None:
        view = self.current_view()
        self.model.set_view(view)
        if self.canvas is not None:
            self.canvas_holder.removeWidget(self.canvas)
            self.canvas.deleteLater()
            self.canvas = None
        ready = view is not None and view.average_ranks is not None
        self.cd_note.setVisible(not ready)
        if ready:
            self.canvas = FigureCanvasQTAgg(cd_figure(view.methods, view.average_ranks, view.critical_distance,
                                                      f"{view.title}, {view.n_complete} data sets"))
            self.canvas.setMinimumHeight(260)
            self.canvas_holder.addWidget(self.canvas)

    def closeEvent(self, event) -> None:
        self.timer.stop()
        if self._worker is not None:
            self._worker.quit()
            self._pending = False
        super().closeEvent(event)


def open_evaluation(path, parent=None, poll_ms: int = 3000) -> EvaluationWindow:
    """Open a result store in a new window; raises for a file that is not a result store."""
    window = EvaluationWindow(path, parent, poll_ms)
    window.start()
    window.show()
    return window


EVALUATION_FILTER = "Evaluation result stores (*.sqlite *.db);;All files (*)"
