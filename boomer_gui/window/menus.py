"""The window's menus (File, Edit, Run, View, Tools) and their shortcuts."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from boomer_gui.plots.label_dependency_plot import show_label_dependencies
from boomer_gui.plots.reliability_plot import show_reliability
from boomer_gui.window.model_tools import show_compare_runs, show_simplify, show_threshold_editor


def _action(window, menu, text, slot, shortcut=None, tip=None) -> QAction:
    action = QAction(text, window)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
    action.triggered.connect(slot)
    menu.addAction(action)
    return action


def build_menus(w) -> None:
    """Sets ``w.act_*`` for the actions the window enables and disables."""
    m = w.menuBar().addMenu("&File")
    w.act_open = _action(w, m, "&Open data file…", w.data_panel.choose_file, QKeySequence.Open)
    m.addSeparator()
    w.act_open_session = _action(w, m, "Open &session…", w.files.open_session_dialog)
    w.act_save_session = _action(w, m, "Save s&ession…", w.files.save_session_dialog, QKeySequence.Save)
    m.addSeparator()
    w.act_load_model = _action(w, m, "&Load model…", w.files.load_model_dialog)
    w.act_save_model = _action(w, m, "Save &model…", w.files.save_model_dialog)
    w.act_export_rules = _action(w, m, "Export &rules (text, CSV, JSON)…", w.files.export_rules_dialog)
    w.act_export_model = _action(w, m, "Export model as P&ython or text…", w.files.export_model_dialog,
                                 tip="One .py file that predicts without this program (standard library only), "
                                     "or the rules as IF … THEN … text")
    w.act_export_plot = _action(w, m, "Export &plot (PNG, SVG, PDF)…", w.files.export_plot_dialog)
    w.act_export_runs = _action(w, m, "Export the runs &table (CSV, Markdown, LaTeX)…", w.files.export_runs_dialog,
                                tip="Every run's losses, settings and time")
    m.addSeparator()
    w.act_open_evaluation = _action(w, m, "Open e&valuation results…", w.files.open_evaluation_dialog,
                                    tip="A result store of python -m engine evaluate (the paper's Table 1)")
    m.addSeparator()
    _action(w, m, "&Quit", w.close, QKeySequence.Quit)
    e = w.menuBar().addMenu("&Edit")
    w.act_copy_rules = _action(w, e, "&Copy selected rules", w.copy_selected_rules, QKeySequence.Copy,
                               "Copy the selected rules as text")
    w.act_copy_rules.setShortcutContext(Qt.WidgetWithChildrenShortcut)  # Ctrl+C elsewhere is untouched
    w.browser.table.addAction(w.act_copy_rules)
    w.act_copy_runs = _action(w, e, "Copy selected r&uns", w.files.copy_runs, QKeySequence.Copy,
                              "Copy the selected rows of the Runs table as tab-separated text")
    w.act_copy_runs.setShortcutContext(Qt.WidgetWithChildrenShortcut)
    w.run_table.view.addAction(w.act_copy_runs)
    w.run_table.view.addAction(w.act_export_runs)
    w.run_table.view.setContextMenuPolicy(Qt.ActionsContextMenu)
    w.run_table.exportRequested.connect(w.files.export_runs_dialog)
    r = w.menuBar().addMenu("&Run")
    w.act_start = _action(w, r, "&Start", w.start_training, "Ctrl+R")
    w.act_pause = _action(w, r, "&Pause / resume", w.driver.toggle_pause, "Ctrl+P")
    w.act_stop = _action(w, r, "S&top", w.stop_training, "Ctrl+.")
    r.addSeparator()
    w.act_step = _action(w, r, "Show one more rule (&step)", w.driver.step, "Ctrl+Right")
    w.act_replay = _action(w, r, "&Replay the shown run", lambda: w.replay(), "Ctrl+Shift+R")
    v = w.menuBar().addMenu("&View")
    v.addAction(w.setup_dock.toggleViewAction())
    w.act_presentation = _action(w, v, "&Presentation mode", lambda on: w.set_presentation(on), "F11",
                                 "Large type, the plot enlarged with its legend beside it, the setup hidden")
    w.act_presentation.setCheckable(True)
    w.act_reliability = _action(w, v, "&Reliability diagram…", lambda: show_reliability(w), tip="The shown run's "
                                "probabilities against the test labels (calibrated or not)")
    w.act_label_dependencies = _action(w, v, "&Label dependencies…", lambda: show_label_dependencies(w),
                                       tip="Which labels the shown run's rules predict together, against "
                                           "how often they occur together in the training data")
    v.addSeparator()
    w.act_background_prepare = _action(w, v, "Prepare &kernels in the background",
                                       lambda on: w.background_prep.set_enabled(on),
                                       tip="Compile every setting's kernels ahead, at low priority, so that any "
                                           "setting starts within seconds")
    w.act_background_prepare.setCheckable(True)
    w.act_background_prepare.setChecked(w.background_prep.plan.enabled)
    t = w.menuBar().addMenu("&Tools")
    w.act_compare_runs = _action(w, t, "&Compare two runs…", lambda: show_compare_runs(w),
                                 tip="Two runs on the same data rule by rule: matched rules, changed heads, rules "
                                     "only in one, per-label losses, examples predicted differently")
    w.act_simplify = _action(w, t, "&Simplify the shown run…", lambda: show_simplify(w),
                             tip="The fewest rules and conditions whose loss stays within ε of the full model's; "
                                 "the result becomes a new run")
    w.act_edit_threshold = _action(w, t, "Edit a &threshold of the selected rule", lambda: show_threshold_editor(w),
                                   tip="The rule inspector's threshold editor: move a condition's threshold on its "
                                       "attribute's histogram, coverage, head and losses follow; Apply: a what-if run")
