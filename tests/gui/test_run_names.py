"""A run renamed by double-clicking its name in the Runs table (issue 55): the new name reaches the
plot's legend and the table; a name another run has is refused, with the reason in the status bar."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from boomer_gui.panels.run_table import COL_NAME
from tests.gui.test_view_defects import fake_run


def _add_runs(window, n: int):
    runs = []
    for k in range(n):
        run = fake_run(window.history, f"BOOMER · run {k}", 10 + k, 0.01 * k)
        window.app.run_added.emit(run)
        window.app.run_settled.emit(run)
        runs.append(run)
    return runs


def _rename_by_double_click(qtbot, window, row: int, text: str) -> None:
    view = window.run_table.view
    window.top_tabs.setCurrentWidget(window.run_table)
    index = window.run_model.index(row, COL_NAME)
    view.scrollTo(index)
    centre = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=centre)
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=centre)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit))
    editor = QApplication.focusWidget()
    assert editor.text() == window.history.runs[row].name  # the editor starts from the whole name
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return)
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState)  # the delegate commits queued


def test_a_run_is_renamed_by_double_click_and_the_name_flows_to_the_legend(qtbot, window):
    runs = _add_runs(window, 3)
    qtbot.waitUntil(lambda: window.plot.run_legend.count() == 3)
    _rename_by_double_click(qtbot, window, 1, "lecture: slow learner")
    qtbot.waitUntil(lambda: runs[1].name == "lecture: slow learner")
    assert window.run_model.data(window.run_model.index(1, COL_NAME)) == "lecture: slow learner"
    qtbot.waitUntil(lambda: window.plot.run_legend.names()[1] == "lecture: slow learner")
    tip = window.run_model.data(window.run_model.index(1, COL_NAME), Qt.ToolTipRole)
    assert tip.startswith("lecture: slow learner") and "learner: boomer" in tip  # whole name and settings
    # another run's name is refused and said why; the run keeps its name
    said = []
    window.statusBar().messageChanged.connect(said.append)
    _rename_by_double_click(qtbot, window, 2, runs[0].name)
    assert any(m.startswith("Not renamed: another run is already named") for m in said), said
    assert runs[2].name == "BOOMER · run 2"


def test_a_long_name_wraps_in_the_runs_table_and_its_tooltip_has_it_all(qtbot, window):
    runs = _add_runs(window, 2)
    long = "BOOMER · example-wise logistic, multi-label heads (paper) · max_rules=300, shrinkage=0.1"
    window.app.rename_run(runs[0], long)
    view = window.run_table.view
    window.top_tabs.setCurrentWidget(window.run_table)
    view.setColumnWidth(COL_NAME, 160)
    view.resizeRowsToContents()
    assert view.wordWrap()
    line = view.fontMetrics().height()
    qtbot.waitUntil(lambda: view.rowHeight(0) >= 3 * line)  # the long name on three lines and more, whole
    assert view.rowHeight(1) < 2 * line + 10  # a short name keeps one line
    tip = window.run_model.data(window.run_model.index(0, COL_NAME), Qt.ToolTipRole)
    assert tip.split("\n")[0] == long
