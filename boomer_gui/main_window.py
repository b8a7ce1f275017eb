"""The main window: creates the views, lays them out, and wires them to the application model
(:class:`~boomer_gui.components.controller.Controller`) and to the window's parts in
:mod:`boomer_gui.window` (the run driver, the shown run's views, file and data actions,
presentation mode).

Policy on threads: only one run at a time, and while it is active the GUI thread calls no
parallel engine kernel (model predictions, explanations, what-if need a finished model);
the inspector only computes rule coverage, which is single-threaded."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox

from engine.registry import learners

from boomer_gui.components.controller import Controller
from boomer_gui.components.state import DataSpec, LoadedData
from boomer_gui.panels.data_panel import DataPanel, LabelChoiceDialog
from boomer_gui.panels.learner_panel import LearnerPanel
from boomer_gui.panels.run_controls import RunControls
from boomer_gui.panels.run_table import RunTable, RunTableModel
from boomer_gui.panels.step_view import StepView
from boomer_gui.plots.trajectory_plot import TrajectoryPlot
from boomer_gui.rules.explanation import ExplanationPanel
from boomer_gui.rules.head_view import HeadView
from boomer_gui.rules.inspector import RuleInspector
from boomer_gui.rules.rule_browser import RuleBrowser
from boomer_gui.window import layout
from boomer_gui.window.background_prep import BackgroundPreparation
from boomer_gui.window.data_actions import DataActions
from boomer_gui.window.file_actions import FileActions
from boomer_gui.window.menus import build_menus
from boomer_gui.window.model_tools import add_threshold_run
from boomer_gui.window.presentation import SCALE, PresentationMode
from boomer_gui.window.run_driver import RunDriver
from boomer_gui.window.run_views import RunViews

APP_TITLE = "BOOMER – multi-label rule learning"
CLOSE_WAIT_MS = 3000
DEFAULT_SIZE = (1500, 940)


class MainWindow(QMainWindow):
    PRESENTATION_SCALE = SCALE

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle(APP_TITLE)
        self._fit_screen()
        self.app = Controller()  # the Qt-free application model: data, runs, the shown run, sessions
        self.unsaved = False  # runs or switches since the session was last saved or opened
        self.closing = False
        self._message_boxes: list[QMessageBox] = []
        self._create_views()
        layout.central_area(self)
        layout.status_bar(self)
        self.setup_dock = layout.setup_dock(self)
        self.run_bar = layout.run_bar(self)
        self.driver = RunDriver(self)
        self.views = RunViews(self)
        self.files = FileActions(self)
        self.data_actions = DataActions(self)
        self.background_prep = BackgroundPreparation(self)
        self.presentation_mode = PresentationMode(self)
        build_menus(self)
        self._subscribe_views()
        self._connect_widgets()
        self.update_enabled()

    def _fit_screen(self) -> None:
        """1500 x 940, or the screen's free area when it is smaller (a 1280 x 800 projector)."""
        screen = QApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else None
        width, height = DEFAULT_SIZE
        self.resize(min(width, free.width()) if free else width, min(height, free.height()) if free else height)

    def _create_views(self) -> None:
        self.data_panel = DataPanel()
        self.learner_panel = LearnerPanel()
        self.run_controls = RunControls()
        self.browser = RuleBrowser()
        self.plot = TrajectoryPlot(self.app.history)
        self.run_model = RunTableModel(self.app.history, self)
        self.run_model.nouns = {s.key: s.component.noun for s in learners()}
        self.plot.nouns = self.run_model.nouns
        self.run_table = RunTable(self.run_model)
        self.inspector = RuleInspector()
        self.explanation = ExplanationPanel()
        self.head_view = HeadView()
        self.step_view = StepView()
        self.browser.steps_of_run = self._steps_of_run

    def _subscribe_views(self) -> None:
        """The views follow the application model's events."""
        app = self.app
        app.run_added.connect(self.run_model.run_added)
        app.run_added.connect(lambda run: self.plot.add_run(run, live=run.status == "running"))
        app.run_updated.connect(self.plot.run_updated)
        app.run_ended.connect(self.run_model.run_changed)
        app.run_settled.connect(self.plot.finish_run)
        app.run_settled.connect(self.run_model.run_changed)
        app.run_removing.connect(self.run_table.run_removing)
        app.run_removed.connect(self.run_table.run_removed)
        app.run_removed.connect(self.plot.remove_run)
        app.history_replaced.connect(self.plot.set_history)
        app.run_renamed.connect(self.views.renamed)
        app.history_replaced.connect(self.run_model.set_history)
        app.history_replaced.connect(self.views.history_replaced)

    def _connect_widgets(self) -> None:
        d, rc = self.driver, self.run_controls
        self.data_panel.dataRequested.connect(self.data_actions.request_data)
        rc.startRequested.connect(self.start_training)
        rc.pauseRequested.connect(d.pause)
        rc.resumeRequested.connect(d.resume)
        rc.stopRequested.connect(self.stop_training)
        rc.speedChanged.connect(d.set_speed)
        rc.stepRequested.connect(d.step)
        rc.replayRequested.connect(lambda: self.replay())
        self.learner_panel.changed.connect(self.update_enabled)
        self.learner_panel.changed.connect(self.background_prep.setting_changed)
        self.browser.table.ruleSelected.connect(self.views.rule_selected)
        self.browser.model.activeToggled.connect(self.views.rule_toggled)
        self.inspector.threshold.applyRequested.connect(lambda est, name: add_threshold_run(self, est, name))
        self.explanation.ruleClicked.connect(self.select_rule)
        self.details.currentChanged.connect(lambda *_: self.views.explain_head())
        self.plot.export_button.clicked.connect(self.files.export_plot_dialog)
        self.run_model.visibilityChanged.connect(self.plot.set_run_visible)
        self.run_table.runSelected.connect(self._run_picked)
        self.run_table.removeRequested.connect(self.remove_run)
        self.run_model.renameRequested.connect(self.views.rename)

    # -- the model's state and the window's parts, as tests and tools read them -----------------
    data = property(lambda self: self.app.data)
    history = property(lambda self: self.app.history)
    run = property(lambda self: self.app.run)
    estimator = property(lambda self: self.app.estimator)
    model = property(lambda self: self.app.model)
    whatif = property(lambda self: self.app.whatif)
    table_model = property(lambda self: self.browser.model)
    proxy = property(lambda self: self.browser.proxy)
    table = property(lambda self: self.browser.table)
    table_box = property(lambda self: self.browser)
    count_label = property(lambda self: self.browser.count_label)
    label_filter = property(lambda self: self.browser.label_filter)
    training = property(lambda self: self.driver.training)
    playback = property(lambda self: self.driver.playback)
    playing = property(lambda self: self.driver.playing)
    training_active = property(lambda self: self.driver.active)
    loading = property(lambda self: self.data_actions.job is not None)
    background = property(lambda self: self.background_prep.process)
    presentation = property(lambda self: self.presentation_mode.on)
    step_spec = property(lambda self: self.views.step_spec)

    def _steps_of_run(self):
        run = self.app.run
        if run is None or self.views.step_spec is not None:  # no rules shown: no steps to count them by
            return None
        if run.revised:  # post-optimization: the rules, and revisions of them
            return len(run), "step"
        return len(run), self.run_model.nouns.get(run.learner, "step")

    # -- actions (menus, toolbar, tests) ---------------------------------------------------------
    def start_training(self) -> bool:
        return self.driver.start()

    def stop_training(self) -> None:
        self.driver.stop()

    def pause_training(self) -> None:
        self.driver.pause()

    def set_speed(self, rate) -> None:
        self.driver.set_speed(rate)

    def step(self) -> None:
        self.driver.step()

    def replay(self, run=None) -> bool:
        return self.driver.replay(run)

    def set_presentation(self, on: bool) -> None:
        self.presentation_mode.set(on)

    def select_rule(self, index: int) -> None:
        self.browser.table.select_source_row(index)

    def set_rule_active(self, index: int, on: bool) -> None:
        self.views.set_rule_active(index, on)

    def whatif_losses(self) -> dict:
        return self.app.whatif_losses()

    def show_run(self, run) -> bool:
        return self.views.show_run(run)

    def load_data(self, spec: DataSpec) -> bool:
        return self.data_actions.load_data(spec)

    def export_rules(self, path) -> None:
        self.files.export_rules(path)

    def export_plot(self, path, which: str | None = None) -> None:
        self.files.export_plot(path, which)

    def save_model(self, path) -> None:
        self.files.save_model(path)

    def load_model(self, path) -> None:
        self.files.load_model(path)

    def save_session(self, path) -> None:
        self.files.save_session(path)

    def open_session(self, path) -> None:
        self.files.open_session(path)

    def open_evaluation(self, path):
        return self.files.open_evaluation(path)

    @property
    def _evaluation_windows(self) -> list:
        return self.files.evaluation_windows

    def copy_selected_rules(self) -> str:
        """The selected rules as text (index, body -> head) on the clipboard; returns the text."""
        text = self.browser.selected_text(self.data.train.schema if self.data else None)
        if text:
            QApplication.clipboard().setText(text)
            self.statusBar().showMessage(f"{text.count(chr(10)) - 1} rule(s) copied", 4000)  # less the header
        return text

    # -- data and runs ---------------------------------------------------------------------------
    def set_data(self, loaded: LoadedData) -> None:
        self.driver.settle()
        self.app.set_data(loaded)
        self.learner_panel.set_task(loaded.train.task, loaded.full.name)
        self.data_panel.show_data(loaded)
        self.inspector.set_data(loaded.train)
        self.plot.set_bayes_point(loaded.bayes_point)
        self.run_model.set_current_key(loaded.key)
        self.plot.set_current_key(loaded.key)
        self.browser.fill_filters(loaded.train)
        self.views.clear()
        self.setWindowTitle(f"{APP_TITLE} – {loaded.full.name}")
        self.statusBar().showMessage(f"Loaded {loaded.full.summary()}", 8000)
        self.update_enabled()
        self.background_prep.data_changed()

    def remove_run(self, run) -> bool:
        """Remove a run from the session; the one training cannot be.  Its rules leave the screen."""
        if self.training_active and run is self.run:
            self.statusBar().showMessage("The run that is training cannot be removed; stop it first.", 6000)
            return False
        shown = self.run
        self.unsaved = True
        self.app.remove_run(run)
        self.run_table.select(shown if shown is not run else None)
        if run is shown:
            self.views.clear()
            self.run_controls.reset()  # nothing of the removed run stays in the run bar
            self.update_enabled()
        return True

    def _run_picked(self, run) -> None:
        if not self.show_run(run):
            self.run_table.select(self.run)

    # -- enabling ----------------------------------------------------------------------------------
    def update_enabled(self) -> None:
        active, playing, state = self.training_active, self.playing, self.driver.state
        busy = active or self.loading  # training, or a data set loading
        can_start = self.data is not None and self.learner_panel.spec is not None and not self.loading
        self.run_controls.set_state(state, can_start)
        learning = (active and state != "preparing") or playing  # steps arrive: pause and step apply
        replayable = not active and not playing and self.run is not None and self.step_spec is None and len(self.run) > 0
        self.run_controls.set_watchable(step=learning, replay=replayable)
        has_model = self.views.has_model() and not active
        for action, on in ((self.act_start, not active and can_start), (self.act_pause, learning),
                           (self.act_stop, active or playing), (self.act_step, learning),
                           (self.act_replay, replayable), (self.act_open, not busy),
                           (self.act_open_session, not busy), (self.act_load_model, not busy and self.data is not None),
                           (self.act_save_model, has_model), (self.act_export_model, has_model),
                           (self.act_save_session, not active and self.data is not None),
                           (self.act_export_rules, self.step_spec is None and
                            (self.table_model.rowCount() > 0 or has_model))):
            action.setEnabled(on)
        self.learner_panel.set_editable(not active)
        self.data_panel.set_editable(not busy)

    # -- errors ----------------------------------------------------------------------------------
    def show_error(self, title: str, text: str) -> None:
        """Report a problem without blocking (tests replace this method)."""
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.finished.connect(lambda *_: self._message_boxes.remove(box) if box in self._message_boxes else None)
        self._message_boxes.append(box)
        self.statusBar().showMessage(f"{title}: {text}", 10000)
        box.open()

    @staticmethod
    def error_text(exc: BaseException) -> str:
        if isinstance(exc, MemoryError):
            return ("Not enough memory for this data set and learner. Try fewer examples, fewer rules or a "
                    "simpler learner. The rules learned so far are kept.")
        if isinstance(exc, FileNotFoundError):
            return f"File not found: {exc.filename or exc}"
        text = str(exc) or type(exc).__name__
        return text if isinstance(exc, (ValueError, OSError)) else f"{type(exc).__name__}: {text}"

    def guard(self, title: str, fn, *args) -> bool:
        """Run a user action; any failure is one message box and the window stays usable."""
        try:
            fn(*args)
            return True
        except Exception as exc:  # noqa: BLE001 - the action boundary: report, never crash the window
            self.show_error(title, self.error_text(exc))
            return False

    _guard = guard

    def ask_labels(self, path, exc) -> dict | None:
        """Ask which attributes of ``path`` are labels, or for its Mulan XML file (tests replace this).
        Returns ``{'label_columns': [...]}``, ``{'xml': path}`` or None (cancelled)."""
        dialog = LabelChoiceDialog(path, exc.candidates, str(exc), self)
        if dialog.exec() != LabelChoiceDialog.Accepted:
            return None
        return dialog.choice()

    # -- closing ---------------------------------------------------------------------------------
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
            return self.files.save_session_dialog()
        return True

    def closeEvent(self, event) -> None:
        if not self.closing and not self._may_close():
            event.ignore()
            return
        self.closing = True
        self.files.close_evaluations()
        self.browser.shutdown()
        self.background_prep.stop()
        if not self.driver.shutdown(CLOSE_WAIT_MS):
            self.statusBar().showMessage("Waiting for the training thread to stop…")
        for box in list(self._message_boxes):
            box.close()
        self.plot.shutdown()
        self.step_view.shutdown()
        super().closeEvent(event)
