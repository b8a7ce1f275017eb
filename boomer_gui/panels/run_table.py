"""The run table: every run of the session with its data set, learner, size, final losses and time.

A ``QAbstractTableModel`` over the Qt-free :class:`~boomer_gui.components.state.RunHistory`; the first column's
check box shows or hides the run's curves, its swatch is the run's line (colour, dash and marker).  Runs
trained on another data set than the loaded one are greyed (their losses are not comparable).
Selecting a row asks the window to show that run's rules; double-clicking a name edits it
(``renameRequested``: the application model checks and applies it).  Names wrap: a row is as tall
as its name needs; the tooltip holds the whole name and the run's settings."""
from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableView,
                               QVBoxLayout, QWidget)

from boomer_gui.components.state import Run, RunHistory
from boomer_gui.plots.run_legend import style_icon

COLUMNS = ("show", "run", "data set", "learner", "size", "train H", "train 0/1", "test H", "test 0/1", "time",
           "status")
(COL_SHOW, COL_NAME, COL_DATA, COL_LEARNER, COL_SIZE, COL_TRH, COL_TRS, COL_TEH, COL_TES, COL_TIME,
 COL_STATUS) = range(len(COLUMNS))
_LOSS_KEYS = {COL_TRH: "train_hamming", COL_TRS: "train_subset", COL_TEH: "test_hamming", COL_TES: "test_subset"}
_TIPS = {COL_SHOW: "Show or hide the run's curves; the swatch is its line: colour, dash and marker",
         COL_NAME: "What defines the run (learner, loss and heads, preset, changed settings); double-click to rename",
         COL_SIZE: "Steps the run learned (a stump round of AdaBoost.MH adds two rules)",
         COL_TRH: "Final Hamming loss on the training data (a regression run: its MSE)",
         COL_TRS: "Final subset 0/1 loss on the training data (a regression run: its MAE)",
         COL_TEH: "Final Hamming loss on the test data (a regression run: its MSE)",
         COL_TES: "Final subset 0/1 loss on the test data (a regression run: its MAE)",
         COL_TIME: "Training time (wall clock)"}
_GREY = QBrush(QColor(150, 150, 150))


def swatch(color: str, marker: str, dash: str = "solid", size: int = 14) -> QIcon:
    """A small icon of the run's line: its dash pattern in its colour, with its marker."""
    return style_icon(color, marker, dash, 2 * size, size)


def _fmt(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def _loss_text(run: Run, key: str) -> str:
    """A final loss of a classification run; a regression run's MSE (in the Hamming columns) and MAE
    (in the subset 0/1 columns), named."""
    if not run.regression:
        return _fmt(run.final_losses().get(key))
    split, measure = key.split("_")
    name = run.measures[0 if measure == "hamming" else 1]
    value = run.final_losses().get(f"{split}_{name}")
    return "–" if value is None or math.isnan(value) else f"{name.upper()} {value:.4g}"


class RunTableModel(QAbstractTableModel):
    """Rows are the runs of a history, in order; call :meth:`run_changed` when a run grows."""

    visibilityChanged = Signal(object, bool)
    renameRequested = Signal(object, str)  # (run, the name typed): the window applies or refuses it

    def __init__(self, history: RunHistory | None = None, parent=None):
        super().__init__(parent)
        self.history = history if history is not None else RunHistory()
        self.current_key = ""  # the loaded data's key: runs on other data are greyed
        self.nouns: dict[str, str] = {}  # learner key -> what a step is called ("rule", "round")

    # -- changes -----------------------------------------------------------------------------
    def set_history(self, history: RunHistory) -> None:
        self.beginResetModel()
        self.history = history
        self.endResetModel()

    def set_current_key(self, key: str) -> None:
        self.current_key = key
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))

    def run_added(self, run: Run) -> None:
        """``run`` was appended to the history."""
        row = self.history.runs.index(run)
        self.beginInsertRows(QModelIndex(), row, row)
        self.endInsertRows()

    def run_removing(self, run: Run) -> None:
        """``run`` is about to leave the history (the application model removes it)."""
        row = self.row_of(run)
        self._removing = row >= 0
        if self._removing:
            self.beginRemoveRows(QModelIndex(), row, row)

    def run_removed(self, run: Run) -> None:
        if getattr(self, "_removing", False):
            self._removing = False
            self.endRemoveRows()

    def run_changed(self, run: Run) -> None:
        if run in self.history.runs:
            row = self.history.runs.index(run)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def run_at(self, row: int) -> Run | None:
        return self.history.runs[row] if 0 <= row < len(self.history.runs) else None

    def row_of(self, run: Run) -> int:
        return self.history.runs.index(run) if run in self.history.runs else -1

    def comparable(self, run: Run) -> bool:
        return not run.data_key or not self.current_key or run.data_key == self.current_key

    # -- the model ---------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.history.runs)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation != Qt.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.DisplayRole:
            return "" if section == COL_SHOW else COLUMNS[section]
        if role == Qt.ToolTipRole:
            return _TIPS.get(section)
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.NoItemFlags
        f = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if index.column() == COL_NAME:
            return f | Qt.ItemIsEditable
        return f | Qt.ItemIsUserCheckable if index.column() == COL_SHOW else f

    def size_text(self, run: Run) -> str:
        noun = self.nouns.get(run.learner, "rule")
        n = len(run) - run.revised
        kept = f", {run.selected} kept" if run.selected is not None and run.selected < n else ""
        revised = f", {run.revised} revision{'s' if run.revised != 1 else ''}" if run.revised else ""
        return f"{n} {noun}{'s' if n != 1 else ''}{revised}{kept}"

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.history.runs):
            return None
        run, col = self.history.runs[index.row()], index.column()
        if role in (Qt.DisplayRole, Qt.EditRole):
            if col == COL_NAME:
                return run.name
            if role == Qt.EditRole:
                return None
            if col == COL_DATA:
                return run.dataset or "–"
            if col == COL_LEARNER:
                return run.learner
            if col == COL_SIZE:
                return self.size_text(run)
            if col in _LOSS_KEYS:
                return _loss_text(run, _LOSS_KEYS[col])
            if col == COL_TIME:
                return "–" if run.elapsed is None else f"{run.elapsed:.1f} s"
            if col == COL_STATUS:
                return run.status
            return None
        if role == Qt.CheckStateRole and col == COL_SHOW:
            return Qt.Checked if run.visible else Qt.Unchecked
        if role == Qt.DecorationRole and col == COL_SHOW:
            return swatch(run.color, run.marker, run.dash)
        if role == Qt.ForegroundRole and not self.comparable(run):
            return _GREY
        if role == Qt.ToolTipRole:
            tip = run.describe()
            if not self.comparable(run):
                tip += "\n(trained on another data set than the loaded one: its losses are not comparable)"
            return tip
        if role == Qt.TextAlignmentRole and col in (*_LOSS_KEYS, COL_TIME, COL_SIZE):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.UserRole:
            return run
        return None

    def setData(self, index, value, role=Qt.EditRole) -> bool:
        if index.isValid() and index.column() == COL_NAME and role == Qt.EditRole:
            run = self.history.runs[index.row()]
            if str(value) != run.name:
                self.renameRequested.emit(run, str(value))
            return True
        if not index.isValid() or index.column() != COL_SHOW or role != Qt.CheckStateRole:
            return False
        run = self.history.runs[index.row()]
        visible = Qt.CheckState(value) == Qt.Checked if not isinstance(value, bool) else value
        if visible != run.visible:
            run.visible = visible
            self.dataChanged.emit(index, index, [Qt.CheckStateRole])
            self.visibilityChanged.emit(run, visible)
        return True


class RunTable(QWidget):
    """The run table with Remove; ``runSelected`` when the user picks a run, ``removeRequested``
    for Remove or Delete (the window decides: a run that is training cannot be removed)."""

    runSelected = Signal(object)
    removeRequested = Signal(object)
    exportRequested = Signal()

    def __init__(self, model: RunTableModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.view = QTableView()
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.ExtendedSelection)  # the current row is the shown run
        self.view.verticalHeader().hide()
        # a row is as tall as its name needs: names wrap (whole, never cut), the other cells are one line
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.verticalHeader().setMinimumSectionSize(self.fontMetrics().height() + 8)
        self.view.setIconSize(QSize(28, 14))
        self.view.setTextElideMode(Qt.ElideRight)  # only a single word wider than the column is cut (tooltip)
        self.view.setWordWrap(True)
        self.view.setEditTriggers(QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.Interactive)
        hh.setSectionResizeMode(COL_NAME, QHeaderView.Stretch)
        for col, w in ((COL_SHOW, 60), (COL_DATA, 110), (COL_LEARNER, 74), (COL_SIZE, 92), (COL_TIME, 52),
                       (COL_STATUS, 64), *((c, 60) for c in _LOSS_KEYS)):
            self.view.setColumnWidth(col, w)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.remove_button = QPushButton("Remove run")
        self.remove_button.setToolTip("Remove the selected run (Delete); a run that is training cannot be removed")
        self.remove_button.clicked.connect(self._remove_clicked)
        QShortcut(QKeySequence.Delete, self.view, self._remove_clicked, context=Qt.WidgetShortcut)
        hint = QLabel("Select a run to see its rules or steps; untick to hide its curves; double-click a name to "
                     "rename the run. Grey: another data set.")
        hint.setStyleSheet("color: #555;")
        hint.setWordWrap(True)  # the table fits a narrow column (presentation mode)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the table (every run's losses, settings and time) as CSV, Markdown or "
                                      "LaTeX; Ctrl+C copies the selected rows")
        self.export_button.clicked.connect(self.exportRequested)
        bar.addWidget(hint, 1)
        bar.addWidget(self.export_button)
        bar.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)

    def _current_changed(self, current, previous) -> None:
        run = self.model.run_at(current.row())
        if run is not None:
            self.runSelected.emit(run)

    def select(self, run: Run | None) -> None:
        """Mark ``run`` as the shown one without emitting ``runSelected``."""
        row = self.model.row_of(run) if run is not None else -1
        sm = self.view.selectionModel()
        sm.blockSignals(True)
        if row < 0:
            sm.clearSelection()
            sm.setCurrentIndex(QModelIndex(), sm.SelectionFlag.NoUpdate)
        else:
            idx = self.model.index(row, COL_NAME)
            sm.setCurrentIndex(idx, sm.SelectionFlag.ClearAndSelect | sm.SelectionFlag.Rows)
        sm.blockSignals(False)
        self.view.viewport().update()

    def run_removing(self, run: Run) -> None:
        """``run`` is about to leave the history; the selection does not move to another run."""
        self.view.selectionModel().blockSignals(True)
        self.model.run_removing(run)

    def run_removed(self, run: Run) -> None:
        self.model.run_removed(run)
        self.view.selectionModel().blockSignals(False)
        self.select(None)

    def selected_run(self) -> Run | None:
        return self.model.run_at(self.view.currentIndex().row())

    def selected_runs(self) -> list[Run]:
        """The selected rows' runs, in the table's order."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [r for r in (self.model.run_at(i) for i in rows) if r is not None]

    def _remove_clicked(self) -> None:
        run = self.selected_run()
        if run is not None:
            self.removeRequested.emit(run)
