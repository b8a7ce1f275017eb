"""Tools menu: compare two runs, simplify the shown run (the simplified model becomes a new run)."""
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


def add_simplified_run(w, run, estimator, name: str) -> None:
    """The simplified model as a new run of the Runs table, shown (its trajectory recomputed)."""
    spec = spec_of(run)
    if spec is None or w.training_active:
        QMessageBox.information(w, "Simplify", "the simplified model cannot be added while a run is training"
                                if spec is not None else f"unknown learner {run.learner!r}")
        return
    try:
        w.views.show_loaded_model(spec, estimator, name=name)
    except ValueError as error:
        QMessageBox.information(w, "Simplify", f"cannot add the simplified run: {error}")


def show_simplify(w) -> SimplifyDialog:
    dialog = SimplifyDialog(w.app, lambda run, est, name: add_simplified_run(w, run, est, name), w)
    dialog.show()
    return dialog
