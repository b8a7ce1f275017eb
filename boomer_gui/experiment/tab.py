"""The Experiment tab (Qt): the experiment being edited on the left, the run, its tasks and the
results (a table per measure and its CD diagram) on the right.  Everything it knows of experiments
comes from :mod:`boomer_gui.components.experiment`; the run happens in a thread of its own."""
from __future__ import annotations

import html
import threading
from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QThread, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QFontDatabase, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox,
                               QFileDialog, QFormLayout, QGridLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QListWidget, QMessageBox, QPlainTextEdit, QProgressBar, QPushButton,
                               QScrollArea, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from boomer_gui.components import experiment as model
from boomer_gui.components import tables as table_exports
from boomer_gui.components.experiment import last_line

STATUS_COLOURS = {"queued": "#888888", "stored": "#1f6f3f", "done": "#1f6f3f", "failed": "#b00020"}
TASK_COLUMNS = ["status", "data set", "fold", "learner", "configuration", "reason"]
REASON = TASK_COLUMNS.index("reason")


class FailureDialog(QDialog):
    """A failed task's whole traceback (selectable, copyable)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Task failed")
        self.resize(760, 420)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ActionRole)
        copy.clicked.connect(lambda: QApplication.clipboard().setText(self.text.toPlainText()))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def show_error(self, task: str, error: str) -> None:
        self.heading.setText(f"<b>{html.escape(task)}</b>: {html.escape(last_line(error))}")
        self.text.setPlainText(error)
        self.show()
        self.raise_()


class RunThread(QThread):
    """Runs (or resumes) an experiment; every event of the run arrives as ``event(kind, payload)``."""

    event = Signal(str, object)

    def __init__(self, exp, store_path, scheduler, workers, parent=None):
        super().__init__(parent)
        self.exp, self.store_path, self.scheduler, self.workers = exp, store_path, scheduler, workers
        self.cancel = threading.Event()

    def run(self):
        try:
            model.run(self.exp, self.store_path, self.event.emit, scheduler=self.scheduler, workers=self.workers,
                      cancel=self.cancel)
        except Exception as exc:  # noqa: BLE001 - any failure is shown, the window stays
            self.event.emit("error", " ".join(str(exc).split()) or type(exc).__name__)


def _table(headers) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
    t.horizontalHeader().setStretchLastSection(True)
    t.setWordWrap(False)
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
    return t


class ExperimentTab(QWidget):
    """Build, save, open, run and resume an experiment; results fill in as tasks finish."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.draft = model.Draft()
        self.path: Path | None = None
        self.thread: RunThread | None = None
        self.results: model.ResultTables | None = None
        self.rows: dict[str, int] = {}  # task key -> row of the task table
        self.choices = model.learner_choices()
        self._build()
        self._refresh_draft()
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop_and_wait)

    # ------------------------------------------------------------------------------ layout
    def _build(self) -> None:
        left = self._build_editor()
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(4, 4, 4, 4)
        run_box = QGroupBox("Run")
        run_form = QFormLayout(run_box)
        store_row = QHBoxLayout()
        self.store_edit = QLineEdit(str(Path.cwd() / "experiment.sqlite"))
        self.store_edit.setToolTip("results are kept here; starting again computes only what it lacks")
        browse = QPushButton("…")
        browse.clicked.connect(self._store_dialog)
        store_row.addWidget(self.store_edit, 1)
        store_row.addWidget(browse)
        run_form.addRow("Result store", store_row)
        where = QHBoxLayout()
        self.workers_spin = QSpinBox()
        self.workers_spin.setRange(1, 256)
        self.workers_spin.setValue(2)
        self.scheduler_edit = QLineEdit()
        self.scheduler_edit.setPlaceholderText("empty: a local cluster; or tcp://HOST:8786")
        where.addWidget(QLabel("local workers"))
        where.addWidget(self.workers_spin)
        where.addWidget(QLabel("scheduler"))
        where.addWidget(self.scheduler_edit, 1)
        run_form.addRow("Dask", where)
        controls = QHBoxLayout()
        self.start_button, self.stop_button = QPushButton("Start"), QPushButton("Stop")
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m tasks")
        controls.addWidget(self.start_button)
        controls.addWidget(self.stop_button)
        controls.addWidget(self.progress, 1)
        run_form.addRow(controls)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        run_form.addRow(self.status)
        rv.addWidget(run_box)

        results = self._build_results()
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.task_table)
        split.addWidget(results)
        split.setSizes([170, 470])
        rv.addWidget(split, 1)

        outer = QSplitter()
        for part in (left, right):  # scrolled, so that the window still fits a 1280 x 800 screen
            scroll = QScrollArea()
            scroll.setWidget(part)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.NoFrame)
            scroll.setMinimumWidth(200)
            outer.addWidget(scroll)
        outer.setSizes([460, 540])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(outer)
        self._fill_presets()

    def _build_editor(self) -> QWidget:
        """The experiment being edited: name, data sets, learners, the selected learner's
        parameters and the protocol."""
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.name_edit = QLineEdit(self.draft.name)
        self.name_edit.textChanged.connect(lambda t: setattr(self.draft, "name", t))
        self.open_button, self.save_button = QPushButton("Open…"), QPushButton("Save…")
        self.open_button.clicked.connect(self._open_dialog)
        self.save_button.clicked.connect(self._save_dialog)
        top.addWidget(QLabel("Name"))
        top.addWidget(self.name_edit, 1)
        top.addWidget(self.open_button)
        top.addWidget(self.save_button)
        lv.addLayout(top)

        data_box = QGroupBox("Data sets")
        dv = QHBoxLayout(data_box)
        self.data_list = QListWidget()
        self.data_list.setMaximumHeight(60)
        buttons = QVBoxLayout()
        add_data, remove_data = QPushButton("Add files…"), QPushButton("Remove")
        add_data.clicked.connect(self._add_data_dialog)
        remove_data.clicked.connect(self._remove_data)
        buttons.addWidget(add_data)
        buttons.addWidget(remove_data)
        dv.addWidget(self.data_list, 1)
        dv.addLayout(buttons)
        lv.addWidget(data_box)

        learners_box = QGroupBox("Learners")
        learners_layout = QVBoxLayout(learners_box)
        self.learner_table = _table(["name", "learner", "preset", "configurations"])
        self.learner_table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.learner_table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.learner_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.learner_table.itemSelectionChanged.connect(self._show_parameters)
        learners_layout.addWidget(self.learner_table, 1)
        adder = QHBoxLayout()
        self.key_combo = QComboBox()
        for i, (key, cand) in enumerate(self.choices.items()):
            self.key_combo.addItem(key, key)
            self.key_combo.setItemData(i, cand.title, Qt.ToolTipRole)
        self.preset_combo = QComboBox()
        self.key_combo.currentIndexChanged.connect(self._fill_presets)
        add_learner, remove_learner = QPushButton("Add"), QPushButton("Remove")
        add_learner.clicked.connect(self._add_learner)
        remove_learner.clicked.connect(self._remove_learner)
        adder.addWidget(self.key_combo, 2)
        adder.addWidget(self.preset_combo, 2)
        adder.addWidget(add_learner)
        adder.addWidget(remove_learner)
        learners_layout.addLayout(adder)
        lv.addWidget(learners_box, 2)

        params_box = QGroupBox("Parameters of the selected learner (grid: values separated by commas)")
        pv = QVBoxLayout(params_box)
        self.param_table = _table(["parameter", "value", "grid"])
        self.param_table.itemChanged.connect(self._parameter_edited)
        pv.addWidget(self.param_table)
        self.param_message = QLabel("")
        self.param_message.setStyleSheet("color: #b00020")
        pv.addWidget(self.param_message)
        lv.addWidget(params_box, 3)

        lv.addWidget(self._build_protocol())
        return left

    def _build_protocol(self) -> QGroupBox:
        protocol_box = QGroupBox("Protocol: cross-validation")
        form = QGridLayout(protocol_box)
        self.folds_spin = self._spin(2, 100, self.draft.folds, "folds")
        self.inner_spin = self._spin(2, 100, self.draft.inner_folds, "inner_folds")
        self.seed_spin = self._spin(0, 2 ** 31 - 1, self.draft.seed, "seed")
        self.stratified_check = QCheckBox("stratified")
        self.stratified_check.setToolTip("iterative stratification (Sechidis et al. 2011)")
        self.stratified_check.setChecked(self.draft.stratified)
        self.stratified_check.toggled.connect(lambda on: setattr(self.draft, "stratified", on))
        self.tune_combo = QComboBox()
        self.tune_combo.addItems(model.prediction_measures())
        self.tune_combo.currentTextChanged.connect(lambda t: setattr(self.draft, "tune_by", t))
        for i, (label, widget) in enumerate((("folds", self.folds_spin), ("inner folds", self.inner_spin),
                                             ("seed", self.seed_spin))):
            form.addWidget(QLabel(label), 0, 2 * i)
            form.addWidget(widget, 0, 2 * i + 1)
        form.addWidget(self.stratified_check, 1, 0, 1, 2)
        form.addWidget(QLabel("tune grids by"), 1, 2)
        form.addWidget(self.tune_combo, 1, 3, 1, 3)
        return protocol_box

    def _build_results(self) -> QWidget:
        """The task table (a failed task's reason in its row) and the results (a table per measure,
        exported and copied, and its CD diagram) below it."""
        self.task_table = _table(TASK_COLUMNS)
        self.task_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.task_table.setToolTip("A failed task's row says why; click it for the whole traceback")
        self.task_table.cellClicked.connect(lambda row, _: self.show_failure(row))
        self.errors: dict[int, str] = {}  # row of the task table -> its task's traceback
        self.failure_dialog: FailureDialog | None = None
        results = QWidget()
        res = QVBoxLayout(results)
        res.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        self.measure_combo = QComboBox()
        self.measure_combo.currentTextChanged.connect(lambda _: self._show_results())
        pick.addWidget(QLabel("Measure"))
        pick.addWidget(self.measure_combo, 1)
        self.export_button = QPushButton("Export results…")
        self.export_button.setToolTip("Save the results (every data set, learner and measure) as CSV, or every "
                                      "measure's table as Markdown or LaTeX, as the report writes them; Ctrl+C in the "
                                      "table copies the selected rows")
        self.export_button.clicked.connect(self._export_dialog)
        self.export_button.setEnabled(False)
        pick.addWidget(self.export_button)
        res.addLayout(pick)
        self.result_table = _table([])
        self.result_table.verticalHeader().setVisible(True)
        self.result_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.result_table.setSelectionBehavior(QAbstractItemView.SelectRows)
        copy = QAction("Copy selected rows", self.result_table)
        copy.setShortcut(QKeySequence.Copy)
        copy.setShortcutContext(Qt.WidgetShortcut)
        copy.triggered.connect(self.copy_results)
        export = QAction("Export results…", self.result_table)
        export.triggered.connect(self._export_dialog)
        self.result_table.addActions([copy, export])
        self.result_table.setContextMenuPolicy(Qt.ActionsContextMenu)
        res.addWidget(self.result_table)
        self.cd_figure = Figure(figsize=(5, 2.2), dpi=90)
        self.cd_canvas = FigureCanvasQTAgg(self.cd_figure)
        self.cd_canvas.setMinimumHeight(140)
        res.addWidget(self.cd_canvas, 1)  # the table keeps its rows' height, the diagram the rest
        return results

    def _spin(self, low, high, value, attribute) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(low, high)
        spin.setValue(value)
        spin.valueChanged.connect(lambda v: setattr(self.draft, attribute, v))
        return spin

    # ----------------------------------------------------------------------------- the draft
    def _refresh_draft(self) -> None:
        d = self.draft
        self.name_edit.setText(d.name)
        self.data_list.clear()
        self.data_list.addItems(d.data)
        for spin, value in ((self.folds_spin, d.folds), (self.inner_spin, d.inner_folds), (self.seed_spin, d.seed)):
            spin.setValue(value)
        self.stratified_check.setChecked(d.stratified)
        self.tune_combo.setCurrentText(d.tune_by)
        self.learner_table.setRowCount(len(d.learners))
        for i, row in enumerate(d.learners):
            n = 1
            for values in row.grid.values():
                n *= len(values)
            for j, text in enumerate((row.name, row.key, row.preset or "", str(n))):
                self.learner_table.setItem(i, j, QTableWidgetItem(text))

    def _fill_presets(self) -> None:
        self.preset_combo.clear()
        self.preset_combo.addItem("(no preset)", None)
        cand = self.choices.get(self.key_combo.currentData())
        for name in (cand.presets if cand else {}):
            self.preset_combo.addItem(name, name)

    def add_learner(self, key: str, preset: str | None = None) -> model.LearnerRow:
        row = self.draft.add_learner(key, preset)
        self._refresh_draft()
        self.learner_table.selectRow(len(self.draft.learners) - 1)
        return row

    def _add_learner(self) -> None:
        self.add_learner(self.key_combo.currentData(), self.preset_combo.currentData())

    def _remove_learner(self) -> None:
        i = self.learner_table.currentRow()
        if 0 <= i < len(self.draft.learners):
            del self.draft.learners[i]
            self._refresh_draft()
            self._show_parameters()

    def add_data(self, paths) -> None:
        self.draft.data.extend(str(p) for p in paths if str(p) not in self.draft.data)
        self._refresh_draft()

    def _add_data_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Data files", "", "Data (*.arff *.svm *.svmlight *.csv);;All (*)")
        self.add_data(files)

    def _remove_data(self) -> None:
        for item in self.data_list.selectedItems():
            self.draft.data.remove(item.text())
        self._refresh_draft()

    def _selected(self) -> model.LearnerRow | None:
        i = self.learner_table.currentRow()
        return self.draft.learners[i] if 0 <= i < len(self.draft.learners) else None

    def _show_parameters(self) -> None:
        row = self._selected()
        self.param_table.blockSignals(True)
        self.param_table.setRowCount(0)
        self.param_message.setText("")
        if row is not None:
            cand = self.choices[row.key]
            preset = cand.presets.get(row.preset, {}) if row.preset else {}
            params = [p for p in cand.parameters if p.kind != "object"]
            self.param_table.setRowCount(len(params))
            for i, p in enumerate(params):
                name = QTableWidgetItem(p.name)
                name.setToolTip(p.help)
                name.setFlags(name.flags() & ~name.flags().ItemIsEditable)
                own = p.name in row.params
                shown = row.params.get(p.name, preset.get(p.name, p.default))
                value = QTableWidgetItem("" if shown is None else str(shown))
                if not own:
                    value.setForeground(QBrush(QColor("#888888")))
                grid = QTableWidgetItem(", ".join(str(v) for v in row.grid.get(p.name, [])))
                self.param_table.setItem(i, 0, name)
                self.param_table.setItem(i, 1, value)
                self.param_table.setItem(i, 2, grid)
            self.param_table.resizeColumnToContents(0)
        self.param_table.blockSignals(False)

    def _parameter_edited(self, item: QTableWidgetItem) -> None:
        row = self._selected()
        if row is None or item.column() == 0:
            return
        name = self.param_table.item(item.row(), 0).text()
        param = next(p for p in self.choices[row.key].parameters if p.name == name)
        text = item.text().strip()
        try:
            if item.column() == 1:
                if text:
                    row.params[name] = param.parse(text)
                else:
                    row.params.pop(name, None)
            elif text:
                row.grid[name] = [param.parse(t) for t in text.split(",")]
            else:
                row.grid.pop(name, None)
            self.param_message.setText("")
        except ValueError as exc:
            self.param_message.setText(str(exc))
            return
        self.param_table.blockSignals(True)
        item.setForeground(QBrush(QColor("#000000")))
        self.param_table.blockSignals(False)
        self._refresh_draft_keep_selection()

    def _refresh_draft_keep_selection(self) -> None:
        i = self.learner_table.currentRow()
        self.learner_table.blockSignals(True)
        self._refresh_draft()
        self.learner_table.selectRow(i)
        self.learner_table.blockSignals(False)

    # ----------------------------------------------------------------------------- files
    def open_file(self, path) -> bool:
        try:
            self.draft = model.open_draft(path)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Experiment file", " ".join(str(exc).split()))
            return False
        self.path = Path(path)
        self.store_edit.setText(str(model.default_store(self.path)))
        self._refresh_draft()
        self._show_parameters()
        self._show_stored()
        return True

    def save_file(self, path) -> bool:
        try:
            self.draft.save(path)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Experiment file", " ".join(str(exc).split()))
            return False
        if self.path is None or Path(self.store_edit.text()) == model.default_store(self.path):
            self.store_edit.setText(str(model.default_store(path)))
        self.path = Path(path)
        self.status.setText(f"saved {path}")
        return True

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open experiment", "", "Experiment (*.toml)")
        if path:
            self.open_file(path)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save experiment", str(self.path or "experiment.toml"),
                                              "Experiment (*.toml)")
        if path:
            self.save_file(path)

    def _store_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Result store", self.store_edit.text(), "SQLite (*.sqlite)",
                                              options=QFileDialog.DontConfirmOverwrite)
        if path:
            self.store_edit.setText(path)

    def _show_stored(self) -> None:
        """The tasks and results already in the store: a run closed earlier resumes from here."""
        try:
            exp = self.draft.check(self.path)
            self._plan(model.planned_rows(exp, self.store_edit.text()))
            tables = model.stored_tables(exp, self.store_edit.text())
        except (ValueError, OSError) as exc:
            self.status.setText(" ".join(str(exc).split()))
            return
        if tables is not None:
            self._results(tables)
            self.status.setText(f"{tables.n_done} of {tables.n_tasks} tasks in the store; Start computes the rest")

    # ----------------------------------------------------------------------------- running
    def start(self) -> bool:
        if self.thread is not None:
            return False
        try:
            exp = self.draft.check(self.path)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Experiment", " ".join(str(exc).split()))
            return False
        scheduler = self.scheduler_edit.text().strip() or None
        self.thread = RunThread(exp, self.store_edit.text(), scheduler, self.workers_spin.value(), self)
        self.thread.event.connect(self._on_event)
        self.thread.finished.connect(self._finished)
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.status.setText("starting the cluster…" if scheduler is None else f"connecting to {scheduler}…")
        self.thread.start()
        return True

    def stop(self) -> None:
        if self.thread is not None:
            self.thread.cancel.set()
            self.status.setText("stopping: tasks stored so far are kept")

    def stop_and_wait(self) -> None:
        if self.thread is not None:
            self.thread.cancel.set()
            self.thread.wait()

    def _finished(self) -> None:
        self.thread = None
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def _on_event(self, kind: str, payload) -> None:
        if kind == "plan":
            self._plan(payload)
            self.status.setText(f"running {sum(r.status == 'queued' for r in payload)} tasks "
                                f"({sum(r.status == 'stored' for r in payload)} already stored)")
        elif kind == "result":
            key, tables = payload
            self._mark(key, "done")
            self._results(tables)
        elif kind == "failed":
            key, error = payload
            self._mark(key, "failed", error)
        elif kind == "done":
            summary, tables = payload
            self._results(tables)
            self.status.setText(model.done_text(summary))
        elif kind == "error":
            self.status.setText(f"error: {payload}")

    def _plan(self, rows) -> None:
        self.task_table.setRowCount(len(rows))
        self.rows, self.errors = {}, {}
        for i, r in enumerate(rows):
            self.rows[r.key] = i
            for j, text in enumerate((r.status, r.dataset, str(r.fold + 1), r.learner, r.configuration, "")):
                self.task_table.setItem(i, j, QTableWidgetItem(text))
            self._colour(i, r.status)
            if r.error:
                self._show_error(i, r.error)
        self.task_table.resizeColumnsToContents()
        self.progress.setRange(0, max(1, len(rows)))
        self.progress.setValue(sum(r.status == "stored" for r in rows))

    def _mark(self, key: str, status: str, error: str = "") -> None:
        i = self.rows.get(key)
        if i is None:
            return
        self.task_table.item(i, 0).setText(status)
        self._colour(i, status)
        if error:
            self._show_error(i, error)
        elif i in self.errors:  # computed this time: the earlier failure is gone
            del self.errors[i]
            self.task_table.item(i, REASON).setText("")
        self.task_table.scrollToItem(self.task_table.item(i, 0))  # the latest task in sight
        self.progress.setValue(self.progress.value() + 1)

    def _show_error(self, i: int, error: str) -> None:
        """The row of a failed task: the error's last line, the traceback a click away."""
        self.errors[i] = error
        item = self.task_table.item(i, REASON)
        item.setText(last_line(error))
        item.setForeground(QBrush(QColor(STATUS_COLOURS["failed"])))
        item.setToolTip("Click for the whole traceback:\n\n" + "\n".join(error.rstrip().splitlines()[-8:]))

    def show_failure(self, row: int) -> bool:
        """Show the traceback of the task in ``row`` (False: it did not fail)."""
        error = self.errors.get(row)
        if error is None:
            return False
        task = ", ".join(self.task_table.item(row, j).text() for j in (3, 1))
        if self.failure_dialog is None:
            self.failure_dialog = FailureDialog(self)
        self.failure_dialog.show_error(f"{task}, fold {self.task_table.item(row, 2).text()}", error)
        return True

    def _colour(self, i: int, status: str) -> None:
        self.task_table.item(i, 0).setForeground(QBrush(QColor(STATUS_COLOURS.get(status, "#000000"))))

    # ----------------------------------------------------------------------------- results
    def copy_results(self) -> str:
        """The selected rows of the results table (as shown, the header first) on the clipboard as
        tab-separated text; the text."""
        t = self.result_table
        rows = sorted({i.row() for i in t.selectionModel().selectedIndexes()})
        if not rows:
            return ""
        columns = [""] + [t.horizontalHeaderItem(j).text() for j in range(t.columnCount())]
        cells = [[t.verticalHeaderItem(i).text()] + [t.item(i, j).text() if t.item(i, j) else ""
                                                       for j in range(t.columnCount())] for i in rows]
        text = table_exports.shown_rows_tsv(columns, cells)
        QApplication.clipboard().setText(text)
        return text

    def export_results(self, path) -> str:
        """Write the results (CSV, Markdown or LaTeX by the suffix); the format."""
        if self.results is None or self.results.report is None:
            raise ValueError("there are no results to export yet")
        return table_exports.write_experiment_results(path, self.results.report)

    def _export_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export results", str(Path(self.store_edit.text()).with_suffix(
            ".csv")), table_exports.TABLE_EXPORT_FILTER)
        if not path:
            return
        if not Path(path).suffix and "(*." in chosen:
            path += chosen.split("(*", 1)[1].split(")", 1)[0]
        try:
            self.export_results(path)
        except (ValueError, OSError) as exc:
            QMessageBox.warning(self, "Export results", " ".join(str(exc).split()))
            return
        self.status.setText(f"results exported to {path}")

    def _results(self, tables: model.ResultTables) -> None:
        self.results = tables
        self.export_button.setEnabled(tables.report is not None and tables.n_done > 0)
        current = self.measure_combo.currentText()
        self.measure_combo.blockSignals(True)
        self.measure_combo.clear()
        self.measure_combo.addItems(tables.measures)
        if current in tables.measures:
            self.measure_combo.setCurrentText(current)
        self.measure_combo.blockSignals(False)
        self._show_results()

    def _show_results(self) -> None:
        t = self.results.by_measure.get(self.measure_combo.currentText()) if self.results else None
        if t is None:
            return
        self.result_table.clear()
        self.result_table.setRowCount(len(t.datasets) + (1 if t.average_ranks else 0))
        self.result_table.setColumnCount(len(t.learners))
        self.result_table.setHorizontalHeaderLabels(t.learners)
        self.result_table.setVerticalHeaderLabels(t.datasets + (["avg. rank"] if t.average_ranks else []))
        bold = QFont()
        bold.setBold(True)
        for i, row in enumerate(t.cells):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                if t.best[i][j]:
                    item.setFont(bold)
                self.result_table.setItem(i, j, item)
        if t.average_ranks:
            ranked = dict(zip(t.ranked_learners, t.average_ranks))
            for j, learner in enumerate(t.learners):
                if learner in ranked:
                    self.result_table.setItem(len(t.datasets), j, QTableWidgetItem(f"{ranked[learner]:.2f}"))
        self.result_table.resizeColumnsToContents()
        header = self.result_table.horizontalHeader()
        self.result_table.setFixedHeight(header.height() + self.result_table.horizontalScrollBar().sizeHint().height() +
                                         sum(self.result_table.rowHeight(i) for i in range(self.result_table.rowCount()))
                                         + 4)
        if not self.results.draw_cd(t.measure, self.cd_figure):
            self.cd_figure.clear()
            failed = len(self.results.report.failures) if self.results.report is not None else 0
            gaps = f"\n{failed} failed task(s) leave gaps: Start tries them again" if failed else ""
            self.cd_figure.text(0.5, 0.5, "the CD diagram appears when two data sets are complete" + gaps, ha="center",
                                va="center", fontsize=9, color="#666666")
        self.cd_canvas.draw_idle()
