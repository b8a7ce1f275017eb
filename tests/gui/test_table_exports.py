"""Everything the window shows as a table leaves it (issue 55): the Runs table as CSV (read by
``csv`` and ``pandas.read_csv`` without options), Markdown and LaTeX; the rule table's export
keeps to the active filter and says so; Ctrl+C copies the selected rows of the Runs table and
the rule table as tab-separated text."""
from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QApplication

from boomer_gui.components import exports
from boomer_gui.panels.run_table import COL_DATA, COL_LEARNER, COL_NAME, COL_STATUS, COL_TEH, COL_TRS
from boomer_gui.rules.rule_table import RecordRole


def _train(window, qtbot, learner, **params):
    window.learner_panel.set_learner(learner)
    window.learner_panel.set_params(params)
    assert window.start_training()
    with qtbot.waitSignal(window.training.done, timeout=120_000) as blocker:
        pass
    assert blocker.args[0] == "finished"


@pytest.fixture
def three_runs(window, qtbot):
    _train(window, qtbot, "boomer", max_rules=12)
    _train(window, qtbot, "boomer", max_rules=6, shrinkage=0.5)
    _train(window, qtbot, "seco", max_rules=3)
    return window


def _shown(window, col):
    m = window.run_model
    return [m.index(r, col).data() for r in range(m.rowCount())]


def test_the_runs_table_exports_as_csv_markdown_and_latex(three_runs, tmp_path):
    w = three_runs
    w.files.export_runs(tmp_path / "runs.csv")
    raw = (tmp_path / "runs.csv").read_bytes()
    assert raw.decode("utf-8") and b"\r\n" in raw  # UTF-8, RFC 4180 line ends
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    header, body = rows[0], rows[1:]
    frame = pd.read_csv(tmp_path / "runs.csv")
    assert list(frame.columns) == header and len(frame) == len(body) == 3
    assert list(frame["run"]) == _shown(w, COL_NAME)  # no index column: the first column is the run's name
    assert list(frame["learner"]) == _shown(w, COL_LEARNER) == ["boomer", "boomer", "seco"]
    assert list(frame["data set"]) == _shown(w, COL_DATA) and list(frame["status"]) == _shown(w, COL_STATUS)
    assert list(frame["steps"]) == [len(r) for r in w.history.runs]
    for col, shown in (("test_hamming", COL_TEH), ("train_subset", COL_TRS)):
        assert [f"{v:.4f}" for v in frame[col]] == _shown(w, shown)  # the numbers, unformatted
        assert list(frame[col]) == [r.final_losses()[col] for r in w.history.runs]
    assert list(frame["max_rules"]) == [12, 6, 3] and frame["shrinkage"][1] == 0.5  # every setting, a column each
    assert frame["seconds"].gt(0).all()

    w.files.export_runs(tmp_path / "runs.md")
    md = (tmp_path / "runs.md").read_text().splitlines()
    table = [line for line in md if line.startswith("|")]
    assert table[0].startswith("| run | data set | learner | steps |") and len(table) == 2 + 3
    assert "shrinkage=0.5" in table[3]  # the settings that differ from the learner's defaults
    w.files.export_runs(tmp_path / "runs.tex")
    tex = (tmp_path / "runs.tex").read_text()
    assert r"\begin{tabular}" in tex and tex.count(r"\\") == 1 + 3 and r"train\_hamming" in tex
    with pytest.raises(ValueError, match="use .csv, .md or .tex"):
        w.files.export_runs(tmp_path / "runs.xlsx")


def test_ctrl_c_copies_the_selected_runs_as_tab_separated_text(three_runs, qtbot):
    w = three_runs
    w.top_tabs.setCurrentWidget(w.run_table)  # the Runs tab shown, as the user sees it
    view = w.run_table.view
    sm = view.selectionModel()
    sm.select(w.run_model.index(0, COL_NAME), QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
    sm.select(w.run_model.index(2, COL_NAME), QItemSelectionModel.Select | QItemSelectionModel.Rows)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    QApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key_C, Qt.ControlModifier)
    text = QApplication.clipboard().text()
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    assert rows[0][:4] == ["run", "data set", "learner", "steps"] and len(rows) == 3
    assert [r[0] for r in rows[1:]] == [w.history.runs[0].name, w.history.runs[2].name]
    assert float(rows[2][rows[0].index("test_hamming")]) == w.history.runs[2].final_losses()["test_hamming"]


def test_the_rule_export_keeps_to_the_filter_and_says_so(trained, tmp_path, qtbot):
    w = trained
    total = w.browser.model.rowCount()
    label = next(i for i in range(1, w.label_filter.count())
                 if 0 < _filtered(w, i) < total)  # a label whose filter keeps some rules, not all
    w.label_filter.setCurrentIndex(label)
    shown = w.browser.proxy.rowCount()
    kept = sorted(w.browser.proxy.index(r, 1).data(RecordRole).index for r in range(shown))
    w.export_rules(tmp_path / "rules.csv")
    frame = pd.read_csv(tmp_path / "rules.csv")
    assert list(frame["index"]) == kept and len(frame) == shown < total
    sidecar = json.loads((tmp_path / "rules.csv.json").read_text())
    name = w.label_filter.currentText()
    assert sidecar["rules"] == f"{shown} of {total} rules" and sidecar["n_rules"] == shown
    assert sidecar["filter"] == f"label '{name}' (strongly)"
    w.export_rules(tmp_path / "rules.txt")
    assert (tmp_path / "rules.txt").read_text().startswith(f"# {shown} of {total} rules: label '{name}' (strongly)")

    w.label_filter.setCurrentIndex(0)  # no filter: every rule, nothing said about a filter
    w.export_rules(tmp_path / "all.csv")
    assert len(pd.read_csv(tmp_path / "all.csv")) == total
    assert "filter" not in json.loads((tmp_path / "all.csv.json").read_text())


def _filtered(w, index) -> int:
    w.label_filter.setCurrentIndex(index)
    return w.browser.proxy.rowCount()


def test_ctrl_c_copies_the_selected_rules_as_tab_separated_text(trained, qtbot):
    w = trained
    table = w.browser.table
    sm = table.selectionModel()
    proxy = w.browser.proxy
    sm.select(proxy.index(1, 1), QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
    sm.select(proxy.index(3, 1), QItemSelectionModel.Select | QItemSelectionModel.Rows)
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    QApplication.clipboard().clear()
    qtbot.keyClick(table, Qt.Key_C, Qt.ControlModifier)
    rows = list(csv.reader(io.StringIO(QApplication.clipboard().text()), delimiter="\t"))
    assert rows[0] == list(exports.CSV_COLUMNS) and [r[0] for r in rows[1:]] == ["1", "3"]
    records = w.table_model.records
    assert rows[2][2] == records[3].rule.body_text(w.data.train.schema)
    assert float(rows[1][rows[0].index("test_hamming")]) == pytest.approx(records[1].test_hamming, rel=1e-5)
