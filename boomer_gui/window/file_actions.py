"""File actions of the window: rule and plot exports, model files, sessions and evaluation results.
Each dialog action is guarded: any failure is one message box and the window stays as it was."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from engine.registry import get as get_learner

from boomer_gui.components import exports, tables
from boomer_gui.components.controller import shows_steps
from boomer_gui.components.session import Session, save_session
from boomer_gui.plots.trajectory_plot import EXPORT_FILTER

SESSION_FILTER = "Sessions (*.json);;All files (*)"
MODEL_FILTER = "Models (*.json);;All files (*)"


class FileActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.app = window.app
        self.evaluation_windows: list = []

    def ask_save(self, title: str, filters: str, default: str) -> str | None:
        path, chosen = QFileDialog.getSaveFileName(self.w, title, default, filters)
        if not path:
            return None
        if not Path(path).suffix and "(*." in chosen:
            path += chosen.split("(*", 1)[1].split(")", 1)[0].split()[0]
        return path

    def _ask_open(self, title: str, filters: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.w, title, "", filters)
        return path or None

    def _dialog(self, title: str, action, path: str | None, *args) -> None:
        if path:
            self.w.guard(title, action, path, *args)

    # -- rules and plots -------------------------------------------------------------------------
    def export_rules(self, path) -> None:
        """The rules the table shows: all of them, or those its filters keep (the export says which)."""
        table, browser = self.w.browser.model, self.w.browser
        if not table.records:
            raise ValueError("there are no rules to export")
        rows = browser.shown_rows()
        records = [table.records[i] for i in rows]
        if not records:
            raise ValueError(f"the filter ({browser.filter_text()}) shows no rules to export")
        run, data = self.app.run, self.app.data
        meta = run.metadata() if run is not None else {}
        active = [bool(table.active[i]) for i in rows] if len(table.active) == len(table.records) else None
        shown = None if len(rows) == len(table.records) else \
            {"filter": browser.filter_text(), "n_shown": len(rows), "n_total": len(table.records)}
        exports.write_rules(path, records, data.train.schema if data else None, metadata=meta, active=active,
                            shown=shown)

    # -- the Runs table --------------------------------------------------------------------------
    def export_runs(self, path) -> None:
        runs = list(self.w.run_model.history.runs)
        if not runs:
            raise ValueError("there are no runs to export")
        tables.write_runs(path, runs)
        self.w.statusBar().showMessage(f"{len(runs)} run(s) exported to {Path(path).name}", 6000)

    def export_runs_dialog(self) -> None:
        path = self.ask_save("Export the Runs table", tables.TABLE_EXPORT_FILTER, "runs.csv")
        self._dialog("Cannot export the runs", self.export_runs, path)

    def copy_runs(self) -> str:
        """The selected runs of the Runs table as tab-separated text on the clipboard; the text."""
        runs = self.w.run_table.selected_runs()
        if not runs:
            return ""
        text = tables.runs_tsv(runs)
        QApplication.clipboard().setText(text)
        self.w.statusBar().showMessage(f"{len(runs)} run(s) copied", 4000)
        return text

    def export_rules_dialog(self) -> None:
        path = self.ask_save("Export rules", exports.RULE_EXPORT_FILTER, "rules.txt")
        self._dialog("Cannot export the rules", self.export_rules, path)

    def export_plot(self, path, which: str | None = None) -> None:
        """The trajectories of every run, ``which='losses'`` the losses against steps, or
        ``which='learner'`` the shown run's learner plots."""
        if which == "learner":
            self.w.step_view.plots.export(path)
        else:
            self.w.plot.export(path, which)

    def export_plot_dialog(self) -> None:
        path = self.ask_save("Export plot", EXPORT_FILTER, "trajectories.png")
        self._dialog("Cannot export the plot", self.export_plot, path,
                     "losses" if self.w.plot.tabs.currentIndex() == 1 else None)

    # -- models ----------------------------------------------------------------------------------
    def save_model(self, path) -> None:
        if self.app.estimator is None or not self.w.views.has_model() or self.w.training_active:
            raise ValueError("there is no finished model to save")
        self.app.estimator.save(path)

    def save_model_dialog(self) -> None:
        self._dialog("Cannot save the model", self.save_model, self.ask_save("Save model", MODEL_FILTER, "model.json"))

    def export_model(self, path) -> None:
        """The shown finished model as plain Python (``.py``) or as IF … THEN … text."""
        if self.app.estimator is None or not self.w.views.has_model() or self.w.training_active:
            raise ValueError("there is no finished model to export")
        exports.export_model(self.app.estimator, path)

    def export_model_dialog(self) -> None:
        self._dialog("Cannot export the model", self.export_model,
                     self.ask_save("Export model as Python or text", exports.MODEL_EXPORT_FILTER, "model.py"))

    def load_model(self, path) -> None:
        """Load a model file for the current data; its rules fill the table, its trajectory is
        recomputed by switching its rules on one by one."""
        if self.w.training_active:
            raise ValueError("stop the current run before loading a model")
        if self.app.data is None:
            raise ValueError("load data first: the model is shown on the current data")
        spec, est = exports.load_model(path)
        if spec.component.kind != "rule":
            self.w.views.show_loaded_steps_model(spec, est, Path(path).name)
        else:
            self.w.views.show_loaded_model(spec, est, name=f"loaded {Path(path).name}")

    def load_model_dialog(self) -> None:
        self._dialog("Cannot load the model", self.load_model, self._ask_open("Load model", MODEL_FILTER))

    # -- sessions --------------------------------------------------------------------------------
    def session(self) -> Session:
        w = self.w
        spec = w.learner_panel.spec
        return self.app.session(spec.key if spec else "", w.learner_panel.params(), w.views.has_model(),
                                w.browser.model.active.tolist(), self.view_state())

    def view_state(self) -> dict:
        """What a session keeps of the views: the rule filters and the selected rule, the selected step,
        the explained test example and the tab shown in each tab widget."""
        w = self.w
        return {**w.browser.view_state(), "selected_step": w.step_view.selected_step(),
                "example": w.explanation.example if w.explanation.model is not None else None,
                "top_tab": w.top_tabs.currentIndex(), "details_tab": w.details.currentIndex(),
                "plot_tab": w.plot.tabs.currentIndex()}

    def restore_views(self, view: dict) -> None:
        """A session's view state (entries that do not fit what is shown are left as they are); the
        tabs last, since selecting a rule shows the rule inspector."""
        w = self.w
        w.browser.restore_view(view)
        if view.get("selected_step") is not None and w.views.step_spec is not None:
            w.step_view.select_step(view["selected_step"])
        if view.get("example") is not None and w.explanation.model is not None:
            w.explanation.show_example(view["example"])
        for tabs, key in ((w.top_tabs, "top_tab"), (w.details, "details_tab"), (w.plot.tabs, "plot_tab")):
            i = view.get(key)
            if i is not None and i < tabs.count() and tabs.isTabVisible(i):
                tabs.setCurrentIndex(i)

    def save_session(self, path) -> None:
        if self.w.training_active:
            raise ValueError("stop the current run before saving the session")
        save_session(path, self.session())
        self.w.unsaved = False
        if self.app.unsaved_models:
            self.w.statusBar().showMessage(f"Session saved; no model to keep for {', '.join(self.app.unsaved_models)}"
                                           " (its losses are kept)", 10000)

    def save_session_dialog(self) -> bool:
        path = self.ask_save("Save session", SESSION_FILTER, "session.json")
        return bool(path) and self.w.guard("Cannot save the session", self.save_session, path)

    def open_session(self, path) -> None:
        """Everything is read and checked first (file, data, models, runs); the window changes only
        when all of it succeeded, so a bad session leaves the window as it was."""
        w = self.w
        if w.training_active:
            raise ValueError("stop the current run before opening a session")
        s, loaded = self.app.read_session(path)
        w.set_data(loaded)
        if s.learner:
            try:
                w.learner_panel.set_learner(s.learner)
                w.learner_panel.set_params(s.params)
            except ValueError as exc:
                w.statusBar().showMessage(f"Learner settings not restored: {exc}", 10000)
        self.app.replace_history(s.history())
        self._show_session_model(s)
        self.restore_views(s.view)
        w.unsaved = False
        w.statusBar().showMessage(f"Session {Path(path).name} opened", 8000)
        w.update_enabled()

    def _show_session_model(self, s: Session) -> None:
        views = self.w.views
        spec = get_learner(s.model["learner"]) if s.estimator is not None else None
        run = self.app.history.runs[s.current_run] if s.current_run is not None else None
        if shows_steps(spec) and run is not None:
            run.estimator = s.estimator
            views.show_step_run(spec, run)
        elif shows_steps(spec):
            views.show_loaded_steps_model(spec, s.estimator, "session model")
        elif spec is not None:
            views.show_loaded_model(spec, s.estimator, name="session model", run=run, active=s.active)
        if run is not None:
            self.w.run_table.select(run)
            self.w.run_controls.show_run(run, self.w.run_model.nouns.get(run.learner))

    def open_session_dialog(self) -> None:
        self._dialog("Cannot open the session", self.open_session, self._ask_open("Open session", SESSION_FILTER))

    # -- evaluation results ----------------------------------------------------------------------
    def open_evaluation_dialog(self) -> None:
        from boomer_gui.panels.evaluation_view import EVALUATION_FILTER

        path = self._ask_open("Open evaluation results", EVALUATION_FILTER)
        self._dialog("Cannot open the evaluation results", self.open_evaluation, path)

    def open_evaluation(self, path):
        """Show a Table-1 result store in its own window (raises for a file that is not one)."""
        from boomer_gui.panels.evaluation_view import open_evaluation

        window = open_evaluation(path, self.w)
        window.setAttribute(Qt.WA_DeleteOnClose)
        self.evaluation_windows = [w for w in self.evaluation_windows if w.isVisible()] + [window]
        return window

    def close_evaluations(self) -> None:
        for window in self.evaluation_windows:
            window.close()
