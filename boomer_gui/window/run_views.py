"""The shown run's views: a rule learner's rules (table, inspector, why-this-head, explanation,
what-if switches) or, for a learner whose steps are not rules, its step table, step inspector and
learner plots.  Which one follows the *run's* learner, never the setup panel's choice."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Qt

from boomer_gui.components.controller import (belongs_to, check_model_fits, format_losses, shows_steps, spec_of,
                                               step_of)
from boomer_gui.components.state import Run
from boomer_gui.rules.rule_table import COL_ON


class RunViews(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.app = window.app
        self.step_spec = None  # the shown run's learner when its steps are not rules (the step view)
        self.steps_fitted = False
        self.selected_rule: int | None = None

    # -- which views -----------------------------------------------------------------------------
    def clear(self) -> None:
        """Forget the model shown (data changed, a new run starts, another session): no view keeps
        its text, the ring of its selected rule leaves the plot."""
        w, data = self.w, self.app.data
        w.plot.highlight(None, None)
        w.browser.model.clear()
        w.browser.model.set_schema(data.train.schema if data else None, data.train.n_labels if data else 0)
        self.app.forget_model()
        w.browser.update_count()  # '0 rules', not counted against the run shown before
        w.inspector.clear()
        w.inspector.set_threshold_context(None)
        w.explanation.clear()
        w.head_view.set_context(None, None, None)
        self.selected_rule = None
        w.loss_label.setText("")
        self.show_steps_of(None)

    def history_replaced(self, _history) -> None:
        """Another session's runs: every view of the shown run resets, the run bar too."""
        self.clear()
        self.w.run_controls.reset()

    def show_steps_of(self, spec) -> None:
        """The step table, step inspector and learner plots of ``spec`` (a learner whose steps are
        not rules), or (None) the rule table, inspector and explanations.  The run table and the
        trajectory plot of all runs stay."""
        w = self.w
        self.step_spec, self.steps_fitted = spec, False
        w.step_view.set_spec(spec, self.app.data.train.schema if self.app.data else None)
        steps = spec is not None
        w.centre.setCurrentWidget(w.step_view if steps else w.browser)
        noun = spec.component.noun.capitalize() if steps else "Rule"
        w.top_tabs.setTabText(w.top_tabs.indexOf(w.centre), f"{noun}s")
        w.details.setTabText(w.details.indexOf(w.step_view.inspector), f"{noun} inspector")
        step_tabs = (w.step_view.inspector, w.step_view.plots)
        for widget in (w.inspector, w.head_view, w.explanation, *step_tabs):
            w.details.setTabVisible(w.details.indexOf(widget), (widget in step_tabs) == steps)
        w.details.setTabVisible(w.details.indexOf(w.step_view.plots), bool(w.step_view.plots.lines))
        if (w.details.currentWidget() in step_tabs) != steps:
            w.details.setCurrentWidget(step_tabs[0] if steps else w.inspector)

    def has_model(self) -> bool:
        """A fitted model is shown: rules in the rule view, or any learner's estimator in the step view."""
        if self.step_spec is not None:
            return self.app.estimator is not None and self.steps_fitted
        return self.app.model is not None

    # -- a finished model ------------------------------------------------------------------------
    def attach_model(self) -> None:
        """A finished model: enable what-if and explanations where the learner supports them."""
        w, app = self.w, self.app
        spec = spec_of(app.run)  # None: a run of a session written by another version
        table = w.browser.model
        ok = app.model is not None and len(app.model.rules) == table.rowCount() and \
            spec is not None and spec.supports("what-if")
        app.whatif = None
        table.set_checkable(ok)
        w.browser.update_count()
        if app.model is not None and app.data is not None:
            w.inspector.set_threshold_context(app.estimator, app.data.test, app.run.name if app.run else "")
            w.head_view.set_context(app.estimator, app.data.train, app.data.train.schema)
            self.explain_head()
            if spec is not None and spec.supports("explain"):
                w.explanation.set_context(app.model, app.data.test, table.active.copy(), app.data.train.schema)
        if app.run is not None:
            w.loss_label.setText(format_losses(app.run.final_losses()))

    def explain_so_far(self) -> None:
        """While a run is paused the explanation uses the rules shown so far (the learner is idle,
        so the model's kernels may run here)."""
        app = self.app
        spec = spec_of(app.run)
        base = getattr(app.estimator, "model_", None)
        if self.step_spec is not None or base is None or app.data is None or spec is None or \
                not spec.supports("explain"):
            return
        rows = self.w.browser.model.records
        if rows:
            model = replace(base, rules=[r.rule for r in rows], _compiled=None, _vector_index=None)
            self.w.explanation.set_context(model, app.data.test, np.ones(len(rows), dtype=bool),
                                           app.data.train.schema)

    def forget_explanation(self) -> None:
        if self.w.explanation.model is not None:
            self.w.explanation.clear()

    # -- what-if ---------------------------------------------------------------------------------
    def rule_toggled(self, row: int, on: bool) -> None:
        w = self.w
        if self.app.model is None or self.app.data is None or w.training_active:
            return
        w.unsaved = True
        try:
            self.app.set_rule_active(row, on)
        except (ValueError, MemoryError) as exc:
            w.show_error("What-if analysis not available", w.error_text(exc))
            w.browser.model.active[row] = True
            return
        self.show_whatif()

    def show_whatif(self) -> None:
        w, app = self.w, self.app
        active = w.browser.model.active
        losses = app.whatif.losses() if app.whatif is not None else {}
        all_on = bool(active.all())
        if app.run is not None:
            app.run.whatif = None if all_on else dict(losses)
            w.plot.update_whatif(app.run)
        off = int((~active).sum())
        prefix = "" if all_on else f"what-if ({off} rule{'s' if off != 1 else ''} off): "
        shown = losses if not all_on or app.run is None else app.run.final_losses()
        w.loss_label.setText(prefix + format_losses(shown))
        w.explanation.set_active(active.copy())

    def set_rule_active(self, index: int, on: bool) -> None:
        """Switch a rule on or off as the table's checkbox does."""
        table = self.w.browser.model
        table.setData(table.index(index, COL_ON), Qt.Checked if on else Qt.Unchecked, Qt.CheckStateRole)

    # -- selection -------------------------------------------------------------------------------
    def rule_selected(self, record) -> None:
        w = self.w
        w.inspector.show_record(record)
        self.selected_rule = None if record is None else int(record.index)
        if record is not None and w.details.currentWidget() is w.explanation:
            w.details.setCurrentWidget(w.inspector)
        self.explain_head()
        run = self.app.run
        if run is not None:  # the rule's point on the trajectory: the step that added it
            w.plot.highlight(run, None if record is None else
                             step_of(run, record.index, w.browser.model.rowCount()))

    def explain_head(self) -> None:
        """Fill the why-this-head tab for the selected rule (only while the tab is shown)."""
        w = self.w
        if w.details.currentWidget() is not w.head_view:
            return
        if self.selected_rule is None:
            w.head_view.clear()
        elif not w.training_active:
            w.head_view.show_rule(self.selected_rule)
        else:
            w.head_view.clear("Why-this-head is computed from a finished model: stop the run or let it finish.")

    # -- showing a run ---------------------------------------------------------------------------
    def show_run(self, run: Run) -> bool:
        """Show ``run``'s components (any run of the session, not only the newest); False, with a
        message, when that is not possible."""
        w, app = self.w, self.app
        if run is app.run:
            return True
        w.driver.settle()
        if w.training_active:
            w.statusBar().showMessage("The table follows the run that is training; pick another run after it ends.",
                                      6000)
            return False
        reason = app.why_not_inspectable(run)
        if reason is not None:
            w.statusBar().showMessage(reason, 8000)
            return False
        if app.run is not None and app.model is not None:
            app.run.active = w.browser.model.active.copy()
        w.plot.highlight(None, None)  # the ring leaves the other run's curve
        spec = spec_of(run)
        if shows_steps(spec):
            self.show_step_run(spec, run)
        else:
            self.show_loaded_model(spec, run.estimator, name=run.name, run=run, active=run.active)
        w.run_table.select(run)
        w.run_controls.show_run(run, w.run_model.nouns.get(run.learner))
        w.statusBar().showMessage(f"Showing {run.name}", 4000)
        return True

    def rename(self, run: Run, name: str) -> bool:
        """The name the user typed in the run table: applied (every view follows), or refused with
        the reason in the status bar."""
        try:
            name = self.app.rename_run(run, name)
        except ValueError as error:
            self.w.statusBar().showMessage(f"Not renamed: {error}", 8000)
            return False
        self.w.statusBar().showMessage(f"Renamed to {name}", 4000)
        return True

    def renamed(self, run: Run) -> None:
        """``run`` has a new name: its row, its legend entry and, if shown, the run controls."""
        w = self.w
        w.run_model.run_changed(run)
        w.plot.redraw()
        if run.status in ("running", "paused", "preparing"):
            w.driver.title = run.name  # the training's status messages
        elif self.app.run is run:
            w.run_controls.show_run(run, w.run_model.nouns.get(run.learner))

    def show_step_run(self, spec, run: Run) -> None:
        """A run of a learner whose steps are not rules: its steps in the step view (a run read from
        a session has only its model: the model's summary)."""
        self.clear()
        self.show_steps_of(spec)
        est = run.estimator
        self.app.show(run, est)
        summary = spec.component.summary(est) if spec.component.summary and est is not None else None
        self.w.step_view.show_run(run, spec, self.app.data.train.schema if self.app.data else None, summary)
        self.steps_fitted = est is not None
        self.w.driver.show_latest_losses()
        self.w.update_enabled()

    def show_loaded_steps_model(self, spec, est, name: str) -> None:
        """A model of a learner whose steps are not rules: its summary in the step view."""
        check_model_fits(est, self.app.data)
        self.clear()
        self.show_steps_of(spec)
        self.app.estimator = est
        self.steps_fitted = True
        if spec.component.summary is not None:
            self.w.step_view.show_summary(spec.component.summary(est))
        self.w.statusBar().showMessage(f"Loaded {name}", 8000)
        self.w.update_enabled()

    def show_loaded_model(self, spec, est, name: str, run: Run | None = None, active=None) -> None:
        """A rule model (a file's, a session's, or a run's): its rules, what-if switches restored."""
        app, table = self.app, self.w.browser.model
        check_model_fits(est, app.data)
        self.clear()
        if run is None or not belongs_to(run, est.model_):
            run = app.reconstruct_run(spec.key, est, name)
        records = app.show(run, est)
        if spec is not None:
            table.set_step_columns(spec.step_columns, spec.improvement)
        table.append(records)
        if active is not None and len(active) == table.rowCount():  # one per rule (a stump step adds two)
            table.active[:] = np.asarray(active, dtype=bool)
        self.attach_model()
        if active is not None and not all(active):
            if app.restore_switches(table.active):
                self.show_whatif()
            else:
                table.active[:] = True
        self.w.update_enabled()
