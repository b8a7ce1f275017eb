"""Tools menu: compare two runs, simplify the shown run (the simplified model becomes a new run); the
rule inspector's threshold edits become what-if runs the same way."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from boomer_gui.components.controller import spec_of
from boomer_gui.panels.model_comparison import CompareRunsDialog
from boomer_gui.panels.simplification import SimplifyDialog


def show_compare_runs(w) -> CompareRunsDialog:
    dialog = CompareRunsDialog(w.app, w)
    dialog.show()
    dialog.compare()
    return dialog


def add_simplified_run(w, run, estimator, name: str, title: str = "Simplify") -> None:
    """The simplified (or edited) model as a new run of the Runs table, shown (its trajectory recomputed)."""
    spec = spec_of(run)
    if spec is None or w.training_active:
        QMessageBox.information(w, title, "the new model cannot be added while a run is training"
                                if spec is not None else f"unknown learner {run.learner!r}")
        return
    try:
        w.views.show_loaded_model(spec, estimator, name=name)
    except ValueError as error:
        QMessageBox.information(w, title, f"cannot add the new run: {error}")


def show_threshold_editor(w) -> None:
    """The rule inspector's threshold editor, in front (it edits the selected rule)."""
    w.details.setCurrentWidget(w.inspector)
    w.inspector.show_threshold_editor()
    if w.views.selected_rule is None:
        w.statusBar().showMessage("Select a rule in the table to edit one of its thresholds.", 6000)


def add_threshold_run(w, estimator, name: str) -> None:
    """The inspector's threshold edit (Apply) as a what-if run beside the shown run."""
    if w.app.run is not None:
        add_simplified_run(w, w.app.run, estimator, name, "Threshold edit")


def show_simplify(w) -> SimplifyDialog:
    dialog = SimplifyDialog(w.app, lambda run, est, name: add_simplified_run(w, run, est, name), w)
    dialog.show()
    return dialog
