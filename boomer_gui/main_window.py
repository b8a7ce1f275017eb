"""The main window: wires the panels, the training run, the rule table, the plot, the
inspector, the explanation and the what-if analysis together.

Policy on threads: only one run at a time, and while it is active the GUI thread calls no
parallel engine kernel (model predictions, explanations, what-if need a finished model);
the inspector only computes rule coverage, which is single-threaded."""
from __future__ import annotations

import os
from dataclasses import replace
import time
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QComboBox, QDockWidget, QFileDialog, QGroupBox, QHBoxLayout, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QProgressBar, QScrollArea, QSplitter,
                               QStackedWidget, QTabWidget, QToolBar, QVBoxLayout, QWidget)
from superqt.utils import qdebounced, qthrottled

from engine.datasets import LabelsNotFoundError
from engine.prepare import is_prepared, kernel_setting
from engine.registry import get as get_learner
from engine.registry import learners

from boomer_gui.files import exports
from boomer_gui.files.data_loading import DataLoadJob, load_with_notes
from boomer_gui.panels.data_panel import DataPanel, LabelChoiceDialog
from boomer_gui.rules.explanation import ExplanationPanel
from boomer_gui.rules.head_view import HeadView
from boomer_gui.rules.inspector import RuleInspector
from boomer_gui.panels.learner_panel import LearnerPanel
from boomer_gui.rules.rule_table import COL_BODY, COL_ON, RecordRole, RuleFilterProxy, RuleTableModel, RuleTableView
from boomer_gui.playback import Playback
from boomer_gui.panels.run_controls import RunControls, format_eta, preparation_text
from boomer_gui.preparation import KernelPreparation
from boomer_gui.panels.run_table import RunTable, RunTableModel
from boomer_gui.controller import (Controller, check_model_fits, format_losses as _fmt_losses,
                                   format_metrics as _fmt_metrics, run_title, shows_steps, spec_of, step_of)
from boomer_gui.files.session import Session, load_session, save_session
from boomer_gui.panels.step_view import StepView
from boomer_gui.state import DataSpec, LoadedData, Run, load_data
from boomer_gui.plots.trajectory_plot import EXPORT_FILTER, TrajectoryPlot
from boomer_gui.training import TrainingRun
from boomer_gui.panels.wheel_guard import guard_wheel

APP_TITLE = "BOOMER – multi-label rule learning"
CLOSE_WAIT_MS = 3000
FILTER_DELAY_MS = 200
STATUS_INTERVAL_MS = 500
SESSION_FILTER = "Sessions (*.json);;All files (*)"
MODEL_FILTER = "Models (*.json);;All files (*)"


class MainWindow(QMainWindow):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle(APP_TITLE)
        screen = QApplication.primaryScreen()
        avail = screen.availableGeometry() if screen is not None else None
        # 1500 x 940, or the screen's free area when it is smaller (a 1280 x 800 projector)
        self.resize(min(1500, avail.width()) if avail else 1500, min(940, avail.height()) if avail else 940)
        self.app = Controller()  # the Qt-free state: data, runs, the shown run and model, what-if
        self.training: TrainingRun | None = None
        self.step_spec = None  # the shown run's learner when its steps are not rules (the step view)
        self._steps_fitted = False
        self._run_title = ""
        self._budget: tuple = (None, "rule")  # the run's step budget and the noun of a step
        self.background: KernelPreparation | None = None  # BOOMER's kernels compiled in the background
        self._background_checked = False
        self._message_boxes: list[QMessageBox] = []
        self._evaluation_windows: list = []
        self._closing = False
        self.unsaved = False  # runs or switches since the session was last saved or opened
        self._loading: DataLoadJob | None = None
        self._started_at = 0.0

        # -- panels
        self.data_panel = DataPanel()
        self.learner_panel = LearnerPanel()
        self.run_controls = RunControls()
        self.table_model = RuleTableModel(self)
        self.proxy = RuleFilterProxy(self)
        self.proxy.setSourceModel(self.table_model)
        self.table = RuleTableView()
        self.table.setModel(self.proxy)
        self.plot = TrajectoryPlot(self.history)
        self.run_model = RunTableModel(self.history, self)
        self.run_model.nouns = {s.key: s.component.noun for s in learners()}
        self.plot.nouns = self.run_model.nouns
        self.run_table = RunTable(self.run_model)
        self.playback = Playback(self)
        self._ending = None  # (run, state, elapsed) of a run whose last records are still being shown
        self._replaying = None  # the run being replayed
        self._step_after_batch = False
        self.inspector = RuleInspector()
        self.explanation = ExplanationPanel()
        self.head_view = HeadView()
        self.step_view = StepView()

        # -- layout: setup on the left, table over plot in the centre, inspection on the right
        setup = QWidget()
        sl = QVBoxLayout(setup)
        for title, widget in (("Data", self.data_panel), ("Learner", self.learner_panel)):
            box = QGroupBox(title)
            bl = QVBoxLayout(box)
            bl.setContentsMargins(6, 6, 6, 6)
            bl.addWidget(widget)
            sl.addWidget(box)
        sl.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(setup)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(setup.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
        self.setup_dock = QDockWidget("Setup", self)
        self.setup_dock.setObjectName("setup")
        self.setup_dock.setWidget(scroll)
        self.setup_dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(Qt.LeftDockWidgetArea, self.setup_dock)
        guard_wheel(setup)  # scrolling the setup panel never changes a setting
        # Run controls and progress stay visible whatever the setup panel's scroll position.
        self.run_bar = QToolBar("Training", self)
        self.run_bar.setObjectName("training")
        self.run_bar.setMovable(False)
        self.run_bar.addWidget(self.run_controls)
        self.addToolBar(Qt.TopToolBarArea, self.run_bar)
        guard_wheel(self.run_controls)

        self.label_filter = QComboBox()
        self.label_filter.setToolTip("Only rules whose head gives this label a non-zero score")
        self.attribute_filter = QComboBox()
        self.attribute_filter.setToolTip("Only rules with a condition on this attribute")
        self.attribute_filter.setMaximumWidth(200)
        self.text_filter = QLineEdit()
        self.text_filter.setPlaceholderText("Filter rules by text…")
        self.text_filter.setClearButtonEnabled(True)
        self.count_label = QLabel("0 rules")
        self.count_label.setMinimumWidth(150)
        self.count_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        fl = QHBoxLayout()
        fl.setContentsMargins(0, 0, 0, 0)
        fl.addWidget(QLabel("Label"))
        fl.addWidget(self.label_filter)
        fl.addWidget(QLabel("Attribute"))
        fl.addWidget(self.attribute_filter)
        fl.addWidget(self.text_filter, 1)
        fl.addWidget(self.count_label)
        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(fl)
        tl.addWidget(self.table)
        self.table_box = table_box
        # The shown run's components (by the run's learner: its rules, or its steps), and the table
        # of all runs of every learner (selecting one shows its components).
        self.centre = QStackedWidget()
        self.centre.addWidget(table_box)
        self.centre.addWidget(self.step_view)
        self.top_tabs = QTabWidget()
        self.top_tabs.addTab(self.centre, "Rules")
        self.top_tabs.addTab(self.run_table, "Runs")
        self.details = QTabWidget()
        self.details.addTab(self.inspector, "Rule inspector")
        self.details.addTab(self.head_view, "Why this head")
        self.details.addTab(self.explanation, "Explain a test example")
        self.details.addTab(self.step_view.inspector, "Step inspector")
        self.details.addTab(self.step_view.plots, "Learner plots")
        self.details.currentChanged.connect(lambda *_: self._explain_head())
        self.bottom = QSplitter(Qt.Horizontal)
        self.bottom.addWidget(self.plot)
        self.bottom.addWidget(self.details)
        self.bottom.setStretchFactor(0, 1)
        self.bottom.setStretchFactor(1, 1)
        self.bottom.setSizes([560, 640])
        self.splitter = QSplitter(Qt.Vertical)
        self.splitter.addWidget(self.top_tabs)
        self.splitter.addWidget(self.bottom)
        self.splitter.setSizes([400, 500])
        self.setCentralWidget(self.splitter)

        self.loss_label = QLabel("")
        self.loss_label.setMinimumWidth(320)  # the window must still fit a 1280-pixel projector
        self.loss_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self.statusBar().addPermanentWidget(self.loss_label)
        self.load_progress = QProgressBar()
        self.load_progress.setRange(0, 1000)
        self.load_progress.setMaximumWidth(200)
        self.load_progress.setFormat("loading %p%")
        self.load_progress.hide()
        self.statusBar().addPermanentWidget(self.load_progress)
        # a normal status bar widget (temporary messages cover it), empty when nothing is prepared
        self.background_label = QLabel("")
        self.background_label.setToolTip("The kernels of BOOMER's usual settings are compiled once, after "
                                         "installation, in a low-priority process; Start stops it.")
        self.statusBar().addWidget(self.background_label, 1)
        # the progress, rate and losses: a few times a second, not per batch (each label change repaints)
        self._refresh_status_soon = qthrottled(self._refresh_status, timeout=STATUS_INTERVAL_MS, leading=False,
                                               parent=self)

        # -- connections
        self.data_panel.dataRequested.connect(self.request_data)
        self.run_controls.startRequested.connect(self.start_training)
        self.run_controls.pauseRequested.connect(self.pause_training)
        self.run_controls.resumeRequested.connect(self.resume_training)
        self.run_controls.stopRequested.connect(self.stop_training)
        self.run_controls.speedChanged.connect(self.set_speed)
        self.run_controls.stepRequested.connect(self.step)
        self.run_controls.replayRequested.connect(lambda: self.replay())
        self.playback.released.connect(self._display)
        self.playback.drained.connect(self._playback_drained)
        self.learner_panel.changed.connect(self._learner_changed)
        self.table.ruleSelected.connect(self._rule_selected)
        self.table_model.activeToggled.connect(self._rule_toggled)
        self.explanation.ruleClicked.connect(self.select_rule)
        self.plot.export_button.clicked.connect(self.export_plot_dialog)
        self.run_model.visibilityChanged.connect(self.plot.set_run_visible)
        self.run_table.runSelected.connect(self._run_picked)
        self.run_table.removeRequested.connect(self.remove_run)
        self.label_filter.currentIndexChanged.connect(self._apply_filters)
        self.attribute_filter.currentIndexChanged.connect(self._apply_filters)
        self._apply_filters_soon = qdebounced(self._apply_filters, timeout=FILTER_DELAY_MS, parent=self)
        self.text_filter.textChanged.connect(lambda *_: self._apply_filters_soon())
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        self._build_menus()
        self._update_enabled()

    # -- the controller's state, as the window's views read it ------------------------------------
    data = property(lambda self: self.app.data)
    history = property(lambda self: self.app.history, lambda self, h: setattr(self.app, "history", h))
    run = property(lambda self: self.app.run, lambda self, r: setattr(self.app, "run", r))
    estimator = property(lambda self: self.app.estimator, lambda self, e: setattr(self.app, "estimator", e))
    model = property(lambda self: self.app.model, lambda self, m: setattr(self.app, "model", m))
    whatif = property(lambda self: self.app.whatif, lambda self, w: setattr(self.app, "whatif", w))

    # ---------------------------------------------------------------------------- menus
    def _build_menus(self):
        def action(menu, text, slot, shortcut=None, tip=None):
            a = QAction(text, self)
            if shortcut:
                a.setShortcut(QKeySequence(shortcut))
            if tip:
                a.setStatusTip(tip)
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        m = self.menuBar().addMenu("&File")
        self.act_open = action(m, "&Open data file…", self.data_panel.choose_file, QKeySequence.Open)
        m.addSeparator()
        self.act_open_session = action(m, "Open &session…", self.open_session_dialog)
        self.act_save_session = action(m, "Save s&ession…", self.save_session_dialog, QKeySequence.Save)
        m.addSeparator()
        self.act_load_model = action(m, "&Load model…", self.load_model_dialog)
        self.act_save_model = action(m, "Save &model…", self.save_model_dialog)
        self.act_export_rules = action(m, "Export &rules (text, CSV, JSON)…", self.export_rules_dialog)
        self.act_export_plot = action(m, "Export &plot (PNG, SVG, PDF)…", self.export_plot_dialog)
        m.addSeparator()
        self.act_open_evaluation = action(m, "Open e&valuation results…", self.open_evaluation_dialog,
                                          tip="A result store of python -m engine evaluate (the paper's Table 1)")
        m.addSeparator()
        action(m, "&Quit", self.close, QKeySequence.Quit)
        e = self.menuBar().addMenu("&Edit")
        self.act_copy_rules = action(e, "&Copy selected rules", self.copy_selected_rules, QKeySequence.Copy,
                                     "Copy the selected rules as text")
        self.act_copy_rules.setShortcutContext(Qt.WidgetWithChildrenShortcut)  # Ctrl+C elsewhere is untouched
        self.table.addAction(self.act_copy_rules)
        r = self.menuBar().addMenu("&Run")
        self.act_start = action(r, "&Start", self.start_training, "Ctrl+R")
        self.act_pause = action(r, "&Pause / resume", self.toggle_pause, "Ctrl+P")
        self.act_stop = action(r, "S&top", self.stop_training, "Ctrl+.")
        r.addSeparator()
        self.act_step = action(r, "Show one more rule (&step)", self.step, "Ctrl+Right")
        self.act_replay = action(r, "&Replay the shown run", lambda: self.replay(), "Ctrl+Shift+R")
        v = self.menuBar().addMenu("&View")
        v.addAction(self.setup_dock.toggleViewAction())
        self.act_presentation = action(v, "&Presentation mode", lambda on: self.set_presentation(on), "F11",
                                       "Large type, the plot enlarged with its legend on it, the setup hidden")
        self.act_presentation.setCheckable(True)

    # ---------------------------------------------------------------------------- presentation
    PRESENTATION_SCALE = 1.4

    @property
    def presentation(self) -> bool:
        return getattr(self, "_presentation", None) is not None

    def set_presentation(self, on: bool) -> None:
        """Presentation mode (F11): large type, the setup panel hidden, the plot enlarged with the
        runs' legend on it (zoom, pan and hover values as always); off restores the layout."""
        on = bool(on)
        if on == self.presentation:
            return
        tables = [self.table, self.run_table.view, self.explanation.table, self.inspector.examples,
                  self.head_view.table]
        if on:
            hh = self.table.horizontalHeader()
            self._presentation = dict(font=self.font(), setup=self.setup_dock.isVisible(),
                                      split=self.splitter.sizes(), bottom=self.bottom.sizes(),
                                      rows=[t.verticalHeader().defaultSectionSize() for t in tables],
                                      columns=[hh.sectionSize(c) for c in range(hh.count())])
            font = self.font()
            font.setPointSizeF(font.pointSizeF() * self.PRESENTATION_SCALE)
            self.setFont(font)
            self.setup_dock.hide()
            total = sum(self.splitter.sizes())
            self.splitter.setSizes([int(total * 0.28), total - int(total * 0.28)])
            width = sum(self.bottom.sizes())
            self.bottom.setSizes([int(width * 0.62), width - int(width * 0.62)])
            height = self.fontMetrics().height() + 8
            for t in tables:
                t.verticalHeader().setDefaultSectionSize(height)
            for c, w in enumerate(self._presentation["columns"]):  # numbers stay readable in large type
                if c != COL_BODY:
                    hh.resizeSection(c, int(w * self.PRESENTATION_SCALE))
        else:
            saved, self._presentation = self._presentation, None
            self.setFont(saved["font"])
            self.setup_dock.setVisible(saved["setup"])
            self.splitter.setSizes(saved["split"])
            self.bottom.setSizes(saved["bottom"])
            for t, h in zip(tables, saved["rows"]):
                t.verticalHeader().setDefaultSectionSize(h)
            for c, w in enumerate(saved["columns"]):
                if c != COL_BODY:
                    self.table.horizontalHeader().resizeSection(c, w)
        self.plot.set_presentation(on)
        self.act_presentation.setChecked(on)

    def selected_records(self) -> list:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(RecordRole) for r in rows]

    def copy_selected_rules(self) -> str:
        """The selected rules as text (index, body -> head) on the clipboard; returns the text."""
        schema = self.data.train.schema if self.data else None
        text = "\n".join(f"{rec.index}\t{rec.rule.to_text(schema)}" for rec in self.selected_records())
        if text:
            QApplication.clipboard().setText(text)
            self.statusBar().showMessage(f"{text.count(chr(10)) + 1} rule(s) copied", 4000)
        return text

    # ---------------------------------------------------------------------------- errors
    def show_error(self, title: str, text: str) -> None:
        """Report a problem without blocking (tests replace this method)."""
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.finished.connect(lambda *_: self._message_boxes.remove(box) if box in self._message_boxes else None)
        self._message_boxes.append(box)
        self.statusBar().showMessage(f"{title}: {text}", 10000)
        box.open()

    def _error_text(self, exc: BaseException) -> str:
        if isinstance(exc, MemoryError):
            return ("Not enough memory for this data set and learner. Try fewer examples, fewer rules or a "
                    "simpler learner. The rules learned so far are kept.")
        if isinstance(exc, FileNotFoundError):
            return f"File not found: {exc.filename or exc}"
        text = str(exc) or type(exc).__name__
        return text if isinstance(exc, (ValueError, OSError)) else f"{type(exc).__name__}: {text}"

    # ---------------------------------------------------------------------------- data
    def load_data(self, spec: DataSpec) -> bool:
        """Load the data a spec describes, here and now (start-up, scripts, tests); see :meth:`request_data`
        for the background load the data panel uses.  On any failure one message box, and the window
        is unchanged; a file whose labels cannot be found offers a choice of label attributes or XML."""
        if not self._may_load():
            return False
        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            loaded, notes = load_with_notes(spec)
        except Exception as exc:  # noqa: BLE001 - reported; the window stays as it was
            QApplication.restoreOverrideCursor()
            retry = self._load_failed(spec, exc)
            return self.load_data(retry) if retry is not None else False
        QApplication.restoreOverrideCursor()
        self._load_succeeded(loaded, notes)
        return True

    def request_data(self, spec: DataSpec) -> None:
        """Load in a worker thread with a progress bar; the window stays usable meanwhile."""
        if not self._may_load():
            return
        job = DataLoadJob(spec, self)
        job.progressed.connect(lambda f: self.load_progress.setValue(int(1000 * f)))
        job.succeeded.connect(self._load_succeeded)
        job.failed.connect(lambda exc: self._background_load_failed(job, exc))
        job.done.connect(lambda: self._load_done(job))
        self._loading = job
        self.load_progress.setValue(0)
        self.load_progress.show()
        what = Path(spec.path).name if spec.kind == "file" else spec.synthetic
        self.statusBar().showMessage(f"Loading {what}…")
        self._update_enabled()
        job.start()

    @property
    def loading(self) -> bool:
        return self._loading is not None

    def _may_load(self) -> bool:
        if self.training_active:
            self.show_error("Training in progress", "Stop the current run before changing the data.")
            return False
        if self._loading is not None:
            self.statusBar().showMessage("A data set is still loading; wait for it to finish.", 5000)
            return False
        return True

    def _load_done(self, job: DataLoadJob) -> None:
        if self._loading is job:
            self._loading = None
            self.load_progress.hide()
            self._update_enabled()
        job.deleteLater()

    def _background_load_failed(self, job: DataLoadJob, exc) -> None:
        self._load_done(job)
        retry = self._load_failed(job.spec, exc)
        if retry is not None:
            self.request_data(retry)

    def _load_failed(self, spec: DataSpec, exc) -> DataSpec | None:
        """Report a failed load; for missing labels ask for them and return the spec to retry."""
        if isinstance(exc, LabelsNotFoundError):
            choice = self.ask_labels(spec.path, exc)
            if choice is None:
                self.statusBar().showMessage(f"Not loaded: {exc}", 10000)
                return None
            return replace(spec, **choice)
        what = spec.path if spec.kind == "file" else spec.synthetic
        self.show_error("Cannot load the data", f"{what}:\n{self._error_text(exc)}")
        return None

    def _load_succeeded(self, loaded: LoadedData, notes) -> None:
        self.set_data(loaded)
        if notes:
            self.show_error("The data loaded with a warning", "\n\n".join(notes))

    def ask_labels(self, path, exc) -> dict | None:
        """Ask which attributes of ``path`` are labels, or for its Mulan XML file (tests replace this).
        Returns ``{'label_columns': [...]}``, ``{'xml': path}`` or None (cancelled)."""
        dialog = LabelChoiceDialog(path, exc.candidates, str(exc), self)
        if dialog.exec() != LabelChoiceDialog.Accepted:
            return None
        return dialog.choice()

    def set_data(self, loaded: LoadedData) -> None:
        self._settle()
        self.app.set_data(loaded)
        self.data_panel.show_data(loaded)
        self.inspector.set_data(loaded.train)
        self.plot.set_bayes_point(loaded.bayes_point)
        self.run_model.set_current_key(loaded.key)
        self.plot.set_current_key(loaded.key)
        self._fill_filters(loaded.train)
        self._clear_model()
        self.setWindowTitle(f"{APP_TITLE} – {loaded.full.name}")
        self.statusBar().showMessage(f"Loaded {loaded.full.summary()}", 8000)
        self._update_enabled()
        if not self._background_checked:
            self._background_checked = True
            self.prepare_in_background()

    # ---------------------------------------------------------------------------- kernels
    BACKGROUND_LEARNER = "boomer"

    def prepare_in_background(self) -> bool:
        """Compile BOOMER's usual kernels (defaults and presets) in a low-priority child process,
        unless its defaults are prepared for the data shown or ``BOOMER_NO_BACKGROUND_PREPARE`` is set."""
        if os.environ.get("BOOMER_NO_BACKGROUND_PREPARE") or self.data is None or self.background is not None:
            return False
        try:
            estimator = get_learner(self.BACKGROUND_LEARNER).make()
            if is_prepared(kernel_setting(estimator, self.data.train.X, self.data.train.Y)):
                return False
        except Exception:  # noqa: BLE001 - no learner or no key: nothing to prepare
            return False
        self.background = KernelPreparation(["--learners", self.BACKGROUND_LEARNER], self, low_priority=True)
        self.background.progress.connect(self._on_background_progress)
        self.background.finished.connect(self._on_background_finished)
        self.background.start()
        return True

    def _on_background_progress(self, progress: dict) -> None:
        n = progress.get("compiled", 0)
        self.background_label.setText(f"preparing BOOMER's kernels in the background: {n} compiled, "
                                      f"{format_eta(progress.get('elapsed', 0))}")

    def _on_background_finished(self, ok: bool, message: str) -> None:
        self.stop_background()
        self.statusBar().showMessage("BOOMER's kernels are ready: its runs start at once" if ok else
                                     f"BOOMER's kernels could not be prepared in advance: {message}", 8000)

    def stop_background(self) -> None:
        """Kill the background preparation (the kernels compiled so far stay in the cache)."""
        if self.background is not None:
            self.background.kill()
            self.background.deleteLater()
            self.background = None
        self.background_label.setText("")

    def _fill_filters(self, ds) -> None:
        for combo, names, everything in ((self.label_filter, ds.label_names, "all labels"),
                                         (self.attribute_filter, ds.feature_names, "all attributes")):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for i, name in enumerate(names):
                combo.addItem(name, i)
            combo.blockSignals(False)
        self.proxy.set_filters(None, None, self.text_filter.text())

    def _clear_model(self) -> None:
        """Forget the model shown (data changed or a new run starts)."""
        self.table_model.clear()
        self.table_model.set_schema(self.data.train.schema if self.data else None,
                                    self.data.train.n_labels if self.data else 0)
        self.app.forget_model()
        self.inspector.clear()
        self.explanation.clear()
        self.head_view.set_context(None, None, None)
        self._selected_rule = None
        self.loss_label.setText("")
        self._show_steps_of(None)

    # ---------------------------------------------------------------------------- training
    @property
    def training_active(self) -> bool:
        return self.training is not None and self.training.active

    def start_training(self) -> bool:
        if self.training_active or self._loading is not None:  # never train while the data may change
            return False
        self._settle()
        if self.data is None:
            self.show_error("No data", "Open a data file or generate a synthetic data set first.")
            return False
        spec = self.learner_panel.spec
        params = self.learner_panel.params()
        try:
            estimator = spec.make(**params)
        except (ValueError, TypeError) as exc:
            self.show_error("Invalid learner settings", self._error_text(exc))
            return False
        self._clear_model()
        self.table_model.set_step_columns(spec.step_columns, spec.improvement)
        self.estimator = estimator
        title = run_title(spec, params)
        run = self.app.begin_run(spec, params)  # every learner's run joins the history
        self._show_steps_of(spec if shows_steps(spec) else None)
        training = TrainingRun(estimator, self.data.train, self.data.test, parent=self, setting=(spec.key, params))
        training.batch.connect(self._on_batch)
        training.stateChanged.connect(self._on_state)
        training.preparing.connect(self._on_preparing)
        training.failed.connect(self._on_failed)
        training.warned.connect(lambda msg: self.statusBar().showMessage(f"Warning: {msg}", 10000))
        budget = spec.budget_of(params)
        self.stop_background()  # the run's own preparation, if any, comes first
        try:
            training.start()
        except (ValueError, TypeError, MemoryError) as exc:
            self.app.discard_run(run)
            training.deleteLater()
            self.estimator = None
            self.show_error("Cannot start training", self._error_text(exc))
            self._update_enabled()
            return False
        self.training = training
        self.run = run
        self._started_at = time.perf_counter()
        self.unsaved = True
        self._budget = (budget, spec.component.noun)
        self.run_controls.set_budget(*self._budget)
        self.step_view.run = run if self.step_spec is not None else None
        self.run_model.run_added(run)
        self.run_table.select(run)
        self.plot.set_budget(budget)
        self.plot.add_run(run, live=True)
        self._run_title = title
        if training.state == "preparing":  # its state signal came before the window knew the run
            self._enter_preparing()
        else:
            self.statusBar().showMessage(f"Training {title}…")
        self._update_enabled()
        return True

    def _enter_preparing(self) -> None:
        if self.run is not None:
            self.run.status = "preparing"
            self.run_model.run_changed(self.run)
        self._show_preparation({})
        self._update_enabled()

    def _on_preparing(self, progress: dict) -> None:
        if self.training is not None and self.sender() is self.training:
            self._show_preparation(progress)

    def _show_preparation(self, progress: dict) -> None:
        """The run's kernels are compiled in a child process: what, how many, how long (no rate)."""
        text = preparation_text(progress)
        self.run_controls.show_preparing(text)
        self.statusBar().showMessage(f"Preparing {self._run_title} (first use only): {text}")

    def pause_training(self):
        if self.playback.rate is not None or self.training is None:  # at full speed the learned rules still show
            self.playback.pause()
        if self.training is not None:
            self.training.pause()
        self._update_enabled()

    def resume_training(self):
        self.playback.resume()
        if self.training is not None:
            self.training.resume()
        self._update_enabled()

    def toggle_pause(self):
        if self.playback.paused or (self.training is not None and self.training.state == "paused"):
            self.resume_training()
        else:
            self.pause_training()

    def stop_training(self):
        if self.training is not None:
            self.training.stop()
        elif self.playing:  # a replay, or the last rules of a finished run: show the rest now
            self.playback.resume()
            self._settle()

    def _show_steps_of(self, spec) -> None:
        """The shown run's views: the step table, step inspector and learner plots of ``spec`` (a
        learner whose steps are not rules), or (None) the rule table, inspector and explanations.
        The run table and the trajectory plot of all runs stay."""
        self.step_spec = spec
        self._steps_fitted = False
        self.step_view.set_spec(spec, self.data.train.schema if self.data else None)
        steps = spec is not None
        self.centre.setCurrentWidget(self.step_view if steps else self.table_box)
        noun = spec.component.noun.capitalize() if steps else "Rule"
        self.top_tabs.setTabText(self.top_tabs.indexOf(self.centre), f"{noun}s")
        self.details.setTabText(self.details.indexOf(self.step_view.inspector), f"{noun} inspector")
        step_tabs = (self.step_view.inspector, self.step_view.plots)
        for widget in (self.inspector, self.head_view, self.explanation, *step_tabs):
            self.details.setTabVisible(self.details.indexOf(widget), (widget in step_tabs) == steps)
        self.details.setTabVisible(self.details.indexOf(self.step_view.plots), bool(self.step_view.plots.lines))
        if (self.details.currentWidget() in step_tabs) != steps:
            self.details.setCurrentWidget(step_tabs[0] if steps else self.inspector)

    def _on_batch(self, records: list) -> None:
        if self.training is None or self.sender() is not self.training:
            return
        if self.step_spec is not None:  # steps that are not rules: shown as they arrive
            self.app.record(self.run, records)
            self.step_view.append(records)
            self.plot.run_updated(self.run)
            self._refresh_status_soon()
            return
        if self._step_after_batch:  # Step asked for one more rule: the learner pauses again
            self._step_after_batch = False
            self.training.pause()
            self.playback.pause()
            self.playback.feed(records)
            self.playback.step()
            return
        self.playback.feed(records)

    def _display(self, records: list) -> None:
        """Records the playback releases: into the table, the run's series and the plot."""
        run = self._replaying or self.run
        if run is None:
            return
        self.table_model.append(records)
        if self._replaying is not None:
            run.shown = (run.shown or 0) + len(records)
        else:
            self.app.record(run, records)
            if self.training is not None and self.training.state == "paused":
                self._explain_so_far()  # stepping while paused: the explanation follows
        self.plot.run_updated(run)
        if self._replaying is not None or self.training is None:
            self._update_count()
            self.run_controls.set_progress(run.view_len(), self.playback.rate or 0.0, None,
                                           "replay" if self._replaying is not None else "")
        self._refresh_status_soon()

    # ---------------------------------------------------------------------------- watching
    def set_speed(self, rate) -> None:
        """Rules shown per second (None: as fast as they are learned)."""
        self.playback.set_rate(rate)
        self.run_controls.show_speed(rate)
        self._update_enabled()

    def step(self) -> None:
        """Show one more rule: pause, then the next queued rule (learning one more if none is)."""
        if self.training_active and self.training.state == "running":
            self.training.pause()
        if self.playback.step():
            return
        if self.training_active and self.training.state == "paused" and self.step_spec is None:
            self._step_after_batch = True
            self.training.resume()

    def replay(self, run=None) -> bool:
        """Show a finished run again rule by rule from its records (no retraining), at the chosen
        speed (10 rules/s when it is unlimited)."""
        run = run or self.run
        if run is None or self.training_active or shows_steps(spec_of(run)):
            return False
        if run is not self.run and not self.show_run(run):
            return False
        self._settle()
        records = list(run.records) if run.records is not None else list(self.table_model.records)
        if not records:
            return False
        self._replaying = run
        self.table_model.clear()
        self.table_model.set_checkable(False)
        self.whatif = None
        run.shown = 0
        self.plot.highlight(None, None)
        self.plot.run_updated(run)
        if self.playback.rate is None:
            self.set_speed(10)
        self.playback.resume()
        self.statusBar().showMessage(f"Replaying {run.name}…", 4000)
        self.playback.feed(records)
        self._update_enabled()
        return True

    def _explain_so_far(self) -> None:
        """While a run is paused the explanation uses the rules shown so far (the learner is idle,
        so the model's kernels may run here)."""
        spec = spec_of(self.run)
        base = getattr(self.estimator, "model_", None)
        if self.step_spec is not None or base is None or self.data is None or spec is None or \
                not spec.supports("explain"):
            return
        rows = self.table_model.records
        if not rows:
            return
        model = replace(base, rules=[r.rule for r in rows], _compiled=None, _vector_index=None)
        self.explanation.set_context(model, self.data.test, np.ones(len(rows), dtype=bool), self.data.train.schema)

    def _playback_drained(self) -> None:
        if self._ending is not None and not self.playback.pending:
            self._complete_run(*self._ending)
        elif self._replaying is not None:
            self._finish_replay()

    def _finish_replay(self) -> None:
        run, self._replaying = self._replaying, None
        run.shown = None
        self.plot.run_updated(run)
        self._attach_model()
        self.run_controls.finish(len(run), "replayed", 0.0)
        self._update_enabled()

    def _settle(self) -> None:
        """Finish what the playback still has to show (a run's last rules, a replay) at once."""
        if self.playback.pending:
            self.playback.flush()
        if self._replaying is not None:
            self._finish_replay()

    @property
    def playing(self) -> bool:
        return self.playback.pending > 0 or self._replaying is not None

    def _refresh_status(self) -> None:
        """Progress, rate, ETA and losses: a few times a second, not per batch (each label
        change repaints)."""
        t, run = self.training, self.run
        if t is None or t.state == "preparing" or (run is None and self.step_spec is None):
            return
        budget = self._budget[0]  # the running run's, whatever the setup panel shows now
        self.run_controls.set_progress(t.received, t.meter.rate(), t.meter.eta(t.received, budget),
                                       "paused" if t.state == "paused" else "")
        if run is not None:
            self.run_model.run_changed(run)  # its size and losses so far in the run table
        self._show_latest_metrics()
        self._update_count()

    def _show_latest_metrics(self) -> None:
        steps = self.step_view.model.steps if self.step_spec is not None else None
        if steps:
            self.loss_label.setText(_fmt_metrics(self.step_spec, steps[-1].metrics))
        elif self.run is not None:
            self.loss_label.setText(_fmt_losses(self.run.final_losses()))

    def _on_state(self, state: str) -> None:
        if self.training is None or self.sender() is not self.training:
            return
        run = self.run
        if state == "preparing":
            self._enter_preparing()
            return
        if state in ("running", "paused"):
            if run is not None:
                run.status = state
            if self.run_controls.state == "preparing":  # prepared: the run itself starts now
                self.run_controls.set_budget(*self._budget)
                self._started_at = time.perf_counter()
            self.run_controls.set_state(state)
            t = self.training
            self.run_controls.set_progress(t.received, t.meter.rate(), None, "paused" if state == "paused" else "")
            if state == "paused":
                self.statusBar().showMessage("Paused", 3000)
            else:
                self.statusBar().showMessage(f"Training {self._run_title}…", 3000)
            if state == "paused":
                self._explain_so_far()
            elif self.explanation.model is not None:
                self.explanation.clear()  # no model predictions while the learner computes
            self._update_enabled()
            return
        # finished | stopped | failed: the estimator now holds what was learned so far
        elapsed = time.perf_counter() - self._started_at
        self._refresh_status_soon.cancel()
        self.training = None
        self.app.end_run(run, state, elapsed, self.estimator)
        if self.step_spec is not None:
            n = len(self.step_view.model.steps)
            self._steps_fitted = n > 0
            self.step_view.plots.flush()
            self.plot.finish_run(run)
            self.run_model.run_changed(run)
            self.run_controls.finish(n, state, elapsed)
            self._show_latest_metrics()
            noun = self.step_spec.component.noun
            self.statusBar().showMessage(f"{self._run_title}: {n} {noun}{'' if n == 1 else 's'}, {state} after "
                                         f"{elapsed:.1f} s", 10000)
            self._update_enabled()
            return
        self._ending = (run, state, elapsed)
        if self.playback.pending:  # the rules not yet shown follow at the chosen speed
            self.statusBar().showMessage(f"{run.name}: training {state}; showing its rules at the chosen speed",
                                         6000)
            self._update_enabled()
            return
        self._complete_run(run, state, elapsed)

    def _complete_run(self, run, state: str, elapsed: float) -> None:
        """Every rule of a finished run is shown: attach the model (what-if, explanations)."""
        self._ending = None
        self.model = getattr(self.estimator, "model_", None)
        self.run_model.run_changed(run)
        self.table.flush_repaint()
        self._update_count()
        self.plot.finish_run(run)
        self.run_controls.finish(len(run), state, elapsed)
        self._attach_model()
        self.statusBar().showMessage(f"{run.name}: {self.run_model.size_text(run)}, {state} after {elapsed:.1f} s",
                                     10000)
        self._update_enabled()

    def _on_failed(self, exc) -> None:
        if self._closing:
            return
        self.show_error("Training failed", self._error_text(exc))

    def _attach_model(self) -> None:
        """A finished model: enable what-if and explanations where the learner supports them."""
        spec = spec_of(self.run)  # None: a run of a session written by another version
        ok = self.model is not None and len(self.model.rules) == self.table_model.rowCount() and \
            spec is not None and spec.supports("what-if")
        self.whatif = None
        self.table_model.set_checkable(ok)
        self._update_count()
        if self.model is not None and self.data is not None:
            self.head_view.set_context(self.estimator, self.data.train, self.data.train.schema)
            self._explain_head()
        if self.model is not None and self.data is not None and spec is not None and spec.supports("explain"):
            self.explanation.set_context(self.model, self.data.test, self.table_model.active.copy(),
                                         self.data.train.schema)
        if self.run is not None:
            self.loss_label.setText(_fmt_losses(self.run.final_losses()))

    # ---------------------------------------------------------------------------- what-if
    def _rule_toggled(self, row: int, on: bool) -> None:
        if self.model is None or self.data is None or self.training_active:
            return
        self.unsaved = True
        try:
            self.app.set_rule_active(row, on)
        except (ValueError, MemoryError) as exc:
            self.show_error("What-if analysis not available", self._error_text(exc))
            self.table_model.active[row] = True
            return
        self._show_whatif()

    def _show_whatif(self) -> None:
        active = self.table_model.active
        losses = self.whatif.losses() if self.whatif is not None else {}
        all_on = bool(active.all())
        if self.run is not None:
            self.run.whatif = None if all_on else dict(losses)
            self.plot.update_whatif(self.run)
        off = int((~active).sum())
        prefix = "" if all_on else f"what-if ({off} rule{'s' if off != 1 else ''} off): "
        self.loss_label.setText(prefix + _fmt_losses(losses if not all_on else self.run.final_losses()
                                                     if self.run is not None else losses))
        self.explanation.set_active(active.copy())

    def whatif_losses(self) -> dict:
        return self.app.whatif_losses()

    def set_rule_active(self, index: int, on: bool) -> None:
        """Switch a rule on or off as the table's checkbox does."""
        src = self.table_model.index(index, COL_ON)
        self.table_model.setData(src, Qt.Checked if on else Qt.Unchecked, Qt.CheckStateRole)

    # ---------------------------------------------------------------------------- selection
    def _rule_selected(self, record) -> None:
        self.inspector.show_record(record)
        self._selected_rule = None if record is None else int(record.index)
        if record is not None and self.details.currentWidget() is self.explanation:
            self.details.setCurrentWidget(self.inspector)
        self._explain_head()
        if self.run is not None:  # the rule's point on the trajectory: the step that added it
            self.plot.highlight(self.run, None if record is None else
                                step_of(self.run, record.index, self.table_model.rowCount()))

    def _explain_head(self) -> None:
        """Fill the why-this-head tab for the selected rule (only while the tab is shown)."""
        if self.details.currentWidget() is not self.head_view:
            return
        index = getattr(self, "_selected_rule", None)
        if index is None:
            self.head_view.clear()
        elif not self.training_active:
            self.head_view.show_rule(index)
        else:
            self.head_view.clear("Why-this-head is computed from a finished model: stop the run or let it finish.")

    def select_rule(self, index: int) -> None:
        self.table.select_source_row(index)

    def _apply_filters(self) -> None:
        self.proxy.set_filters(self.label_filter.currentData(), self.attribute_filter.currentData(),
                               self.text_filter.text())
        self._update_count()

    def _update_count(self, *args) -> None:
        """'N rules', and the learner's steps when they are not rules ('20 rules from 10 rounds')."""
        shown, total = self.proxy.rowCount(), self.table_model.rowCount()
        text = f"{total} rules" if shown == total else f"{shown} of {total} rules"
        run = self.run
        if run is not None and len(run) != total:
            noun = self.run_model.nouns.get(run.learner, "step")
            text += f" from {len(run)} {noun}{'s' if len(run) != 1 else ''}"
        self.count_label.setText(text)

    def _learner_changed(self) -> None:
        self._update_enabled()

    # ---------------------------------------------------------------------------- runs
    def remove_run(self, run) -> bool:
        """Remove a run from the session; the one training cannot be.  Its rules leave the screen."""
        if self.training_active and run is self.run:
            self.statusBar().showMessage("The run that is training cannot be removed; stop it first.", 6000)
            return False
        self.plot.remove_run(run)
        self.unsaved = True
        shown = self.run
        self.run_table.remove(run)
        self.run_table.select(shown if shown is not run else None)
        if run is self.run:
            self._clear_model()
            self._update_enabled()
        return True

    def _run_picked(self, run) -> None:
        if not self.show_run(run):
            self.run_table.select(self.run)

    def show_run(self, run) -> bool:
        """Show ``run``'s rules in the table and the inspector (any run of the session, not only
        the newest); False, with a message, when that is not possible."""
        if run is self.run:
            return True
        self._settle()
        if self.training_active:
            self.statusBar().showMessage("The table follows the run that is training; pick another run after "
                                         "it ends.", 6000)
            return False
        reason = self.app.why_not_inspectable(run)
        if reason is not None:
            self.statusBar().showMessage(reason, 8000)
            return False
        if self.run is not None and self.model is not None:
            self.run.active = self.table_model.active.copy()
        spec = spec_of(run)
        if shows_steps(spec):
            self._show_step_run(spec, run)
        else:
            self._show_loaded_model(spec, run.estimator, name=run.name, run=run, active=run.active)
        self.run_table.select(run)
        self.statusBar().showMessage(f"Showing {run.name}", 4000)
        return True

    def _update_enabled(self) -> None:
        active = self.training_active
        busy = active or self._loading is not None  # training, or a data set loading
        state = self.training.state if active else ("paused" if self.playback.paused else "running") \
            if self.playing else "idle"
        can_start = self.data is not None and self.learner_panel.spec is not None and self._loading is None
        self.run_controls.set_state(state, can_start)
        learning = (active and state != "preparing") or self.playing  # steps arrive: pause and step apply
        self.act_start.setEnabled(not active and can_start)
        self.act_pause.setEnabled(learning)
        self.act_stop.setEnabled(active or self.playing)
        replayable = not active and not self.playing and self.run is not None and self.step_spec is None and \
            len(self.run) > 0
        self.run_controls.set_watchable(step=learning, replay=replayable)
        self.act_step.setEnabled(learning)
        self.act_replay.setEnabled(replayable)
        self.learner_panel.set_editable(not active)
        self.data_panel.set_editable(not busy)
        self.act_open.setEnabled(not busy)
        self.act_open_session.setEnabled(not busy)
        self.act_load_model.setEnabled(not busy and self.data is not None)
        has_model = self._has_model() and not active
        self.act_save_model.setEnabled(has_model)
        self.act_save_session.setEnabled(not active and self.data is not None)
        self.act_export_rules.setEnabled(self.step_spec is None and (self.table_model.rowCount() > 0 or has_model))

    def _has_model(self) -> bool:
        """A fitted model is shown: rules in the rule view, or any learner's estimator in the step view."""
        if self.step_spec is not None:
            return self.estimator is not None and self._steps_fitted
        return self.model is not None

    # ---------------------------------------------------------------------------- files
    def _ask_save(self, title: str, filters: str, default: str) -> str | None:
        path, chosen = QFileDialog.getSaveFileName(self, title, default, filters)
        if not path:
            return None
        if not Path(path).suffix and "(*." in chosen:
            path += chosen.split("(*", 1)[1].split(")", 1)[0].split()[0]
        return path

    def export_rules(self, path) -> None:
        records = self.table_model.records
        if not records:
            raise ValueError("there are no rules to export")
        meta = self.run.metadata() if self.run is not None else {}
        active = self.table_model.active.tolist() if len(self.table_model.active) == len(records) else None
        exports.write_rules(path, records, self.data.train.schema if self.data else None, metadata=meta,
                            active=active)

    def export_rules_dialog(self):
        path = self._ask_save("Export rules", exports.RULE_EXPORT_FILTER, "rules.txt")
        if path:
            self._guard("Cannot export the rules", self.export_rules, path)

    def export_plot(self, path, which: str | None = None) -> None:
        """The trajectories of every run, ``which='losses'`` the losses against steps, or
        ``which='learner'`` the shown run's learner plots."""
        if which == "learner":
            self.step_view.plots.export(path)
        else:
            self.plot.export(path, which)

    def export_plot_dialog(self):
        path = self._ask_save("Export plot", EXPORT_FILTER, "trajectories.png")
        if path:
            which = "losses" if self.plot.tabs.currentIndex() == 1 else None
            self._guard("Cannot export the plot", self.export_plot, path, which)

    def save_model(self, path) -> None:
        if self.estimator is None or not self._has_model() or self.training_active:
            raise ValueError("there is no finished model to save")
        self.estimator.save(path)

    def save_model_dialog(self):
        path = self._ask_save("Save model", MODEL_FILTER, "model.json")
        if path:
            self._guard("Cannot save the model", self.save_model, path)

    def load_model(self, path) -> None:
        """Load a model file for the current data; its rules fill the table, its trajectory is
        recomputed by switching its rules on one by one (engine WhatIf)."""
        if self.training_active:
            raise ValueError("stop the current run before loading a model")
        if self.data is None:
            raise ValueError("load data first: the model is shown on the current data")
        spec, est = exports.load_model(path)
        if spec.component.kind != "rule":
            self._show_loaded_steps_model(spec, est, Path(path).name)
            return
        self._show_loaded_model(spec, est, name=f"loaded {Path(path).name}")

    def _show_step_run(self, spec, run: Run) -> None:
        """A run of a learner whose steps are not rules: its steps in the step view (a run read from
        a session has only its model: the model's summary)."""
        self._clear_model()
        self._show_steps_of(spec)
        est = run.estimator
        self.app.show(run, est)
        summary = spec.component.summary(est) if spec.component.summary and est is not None else None
        self.step_view.show_run(run, spec, self.data.train.schema if self.data else None, summary)
        self._steps_fitted = est is not None
        self._show_latest_metrics()
        self._update_enabled()

    def _show_loaded_steps_model(self, spec, est, name: str) -> None:
        """A model of a learner whose steps are not rules: its summary in the step view."""
        check_model_fits(est, self.data)
        self._clear_model()
        self._show_steps_of(spec)
        self.estimator = est
        self._steps_fitted = True
        if spec.component.summary is not None:
            self.step_view.show_summary(spec.component.summary(est))
        self.statusBar().showMessage(f"Loaded {name}", 8000)
        self._update_enabled()

    def load_model_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Load model", "", MODEL_FILTER)
        if path:
            self._guard("Cannot load the model", self.load_model, path)

    def _show_loaded_model(self, spec, est, name: str, run: Run | None = None, active=None) -> None:
        check_model_fits(est, self.data)
        self._clear_model()
        if run is None or (run.records is None and len(run) != len(est.model_.rules)):
            run = self.app.reconstruct_run(spec.key, est, name)
            self.run_model.run_added(run)
            self.plot.add_run(run, live=False)
        records = self.app.show(run, est)
        if spec is not None:
            self.table_model.set_step_columns(spec.step_columns, spec.improvement)
        self.table_model.append(records)
        if active is not None and len(active) == len(records):
            self.table_model.active[:] = np.asarray(active, dtype=bool)
        self._attach_model()
        if active is not None and not all(active):
            if self.app.restore_switches(self.table_model.active):
                self._show_whatif()
            else:
                self.table_model.active[:] = True
        self._update_enabled()

    # ---------------------------------------------------------------------------- sessions
    def session(self) -> Session:
        spec = self.learner_panel.spec
        return self.app.session(spec.key if spec else "", self.learner_panel.params(), self._has_model(),
                                self.table_model.active.tolist())

    def save_session(self, path) -> None:
        if self.training_active:
            raise ValueError("stop the current run before saving the session")
        save_session(path, self.session())
        self.unsaved = False
        if self.app.unsaved_models:
            self.statusBar().showMessage(f"Session saved; no model to keep for {', '.join(self.app.unsaved_models)} "
                                         "(its losses are kept)", 10000)

    def save_session_dialog(self):
        path = self._ask_save("Save session", SESSION_FILTER, "session.json")
        if path:
            self._guard("Cannot save the session", self.save_session, path)

    def open_session(self, path) -> None:
        """Everything is read and checked first (file, data, model, runs); the window changes only
        when all of it succeeded, so a bad session leaves the window as it was."""
        if self.training_active:
            raise ValueError("stop the current run before opening a session")
        s = load_session(path)
        loaded = load_data(s.data)
        if s.estimator is not None:
            check_model_fits(s.estimator, loaded)
        self.set_data(loaded)
        if s.learner:
            try:
                self.learner_panel.set_learner(s.learner)
                self.learner_panel.set_params(s.params)
            except ValueError as exc:
                self.statusBar().showMessage(f"Learner settings not restored: {exc}", 10000)
        self.app.history = s.history()
        self.plot.set_history(self.history)
        self.run_model.set_history(self.history)
        spec = get_learner(s.model["learner"]) if s.estimator is not None else None
        run = self.history.runs[s.current_run] if s.current_run is not None else None
        if shows_steps(spec) and run is not None:
            run.estimator = s.estimator
            self._show_step_run(spec, run)
        elif shows_steps(spec):
            self._show_loaded_steps_model(spec, s.estimator, "session model")
        elif spec is not None:
            self._show_loaded_model(spec, s.estimator, name="session model", run=run, active=s.active)
        self.unsaved = False
        self.statusBar().showMessage(f"Session {Path(path).name} opened", 8000)
        self._update_enabled()

    def open_session_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Open session", "", SESSION_FILTER)
        if path:
            self._guard("Cannot open the session", self.open_session, path)

    def open_evaluation_dialog(self):
        from boomer_gui.panels.evaluation_view import EVALUATION_FILTER

        path, _ = QFileDialog.getOpenFileName(self, "Open evaluation results", "", EVALUATION_FILTER)
        if path:
            self._guard("Cannot open the evaluation results", self.open_evaluation, path)

    def open_evaluation(self, path):
        """Show a Table-1 result store in its own window (raises for a file that is not one)."""
        from boomer_gui.panels.evaluation_view import open_evaluation

        window = open_evaluation(path, self)
        window.setAttribute(Qt.WA_DeleteOnClose)
        self._evaluation_windows = [w for w in self._evaluation_windows if w.isVisible()] + [window]
        return window

    def _guard(self, title: str, fn, *args) -> bool:
        """Run a user action; any failure is one message box and the window stays usable."""
        try:
            fn(*args)
            return True
        except Exception as exc:  # noqa: BLE001 - the action boundary: report, never crash the window
            self.show_error(title, self._error_text(exc))
            return False

    # ---------------------------------------------------------------------------- closing
    def confirm_close(self, text: str) -> str:
        """Ask what to do with unsaved work: 'save', 'discard' or 'cancel' (tests replace this)."""
        box = QMessageBox(QMessageBox.Question, "Unsaved work", text,
                          QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, self)
        box.setDefaultButton(QMessageBox.Save)
        answer = box.exec()
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def _may_close(self) -> bool:
        """Training or unsaved runs: ask first; Save saves the session (stopping the run first)."""
        if not (self.unsaved or self.training_active) or self.data is None:
            return True
        answer = self.confirm_close(self.app.close_prompt(self.training_active))
        if answer == "cancel":
            return False
        if answer == "save":
            if self.training_active:
                training = self.training
                self.stop_training()
                training.wait(CLOSE_WAIT_MS)
                QApplication.processEvents()
            path = self._ask_save("Save session", SESSION_FILTER, "session.json")
            return bool(path) and self._guard("Cannot save the session", self.save_session, path)
        return True

    def closeEvent(self, event) -> None:
        if not self._closing and not self._may_close():
            event.ignore()
            return
        self._closing = True
        for window in self._evaluation_windows:
            window.close()
        self._apply_filters_soon.cancel()
        self._refresh_status_soon.cancel()
        self.table.shutdown()
        self.stop_background()
        training = self.training  # a run stopped while preparing ends (and leaves self.training) at once
        if training is not None and training.active:
            training.stop()
            if not training.wait(CLOSE_WAIT_MS):
                self.statusBar().showMessage("Waiting for the training thread to stop…")
        if training is not None:
            training.batcher.stop()
        for box in list(self._message_boxes):
            box.close()
        self.plot.shutdown()
        self.step_view.shutdown()
        super().closeEvent(event)
