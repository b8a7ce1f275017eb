"""The Experiment tab's results leave the window (issue 55): CSV with one row per data set, learner
and measure (``csv`` and pandas read it without options; the numbers are the report's, unrounded),
Markdown and LaTeX tables as the experiment report writes them, and Ctrl+C in the results table
copies the selected rows as tab-separated text."""
from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from boomer_gui.components import experiment as model
from boomer_gui.components import tables
from test_experiment_file import write_svm


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished experiment (two data sets, two learners, two folds) on an in-process cluster."""
    from dask.distributed import LocalCluster

    tmp = tmp_path_factory.mktemp("exp")
    files = [write_svm(tmp / "a.svm", n=40, seed=1), write_svm(tmp / "b.svm", n=36, seed=2)]
    draft = model.Draft(name="two, learners", data=[str(f) for f in files], folds=2)
    draft.add_learner("xgboost-br").params["n_estimators"] = 2
    draft.add_learner("xgboost-lp").params["n_estimators"] = 2
    exp = draft.save(tmp / "e.toml")
    events = []
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=50) as cluster:
        model.run(exp, tmp / "e.sqlite", lambda k, p: events.append((k, p)), scheduler=cluster.scheduler_address,
                  report_dir=tmp / "report")
    _, result_tables = next(p for k, p in events if k == "done")
    assert result_tables.n_done == 8
    return tmp, exp, result_tables


def test_the_results_export_as_csv_that_pandas_and_csv_read(finished, tmp_path):
    tmp, exp, rt = finished
    rep = rt.report
    assert tables.write_experiment_results(tmp_path / "r.csv", rep) == "csv"
    frame = pd.read_csv(tmp_path / "r.csv")
    rows = list(csv.DictReader(open(tmp_path / "r.csv", newline="", encoding="utf-8")))
    assert list(frame.columns) == ["dataset", "learner", "measure", "mean", "std", "rank", "folds"]
    assert len(frame) == len(rows) and set(frame["dataset"]) == {"a", "b"}
    assert set(frame["learner"]) == {"xgboost-br", "xgboost-lp"} and set(frame["folds"]) == {2}
    for d, learner in (("a", "xgboost-br"), ("b", "xgboost-lp")):
        row = frame[(frame.dataset == d) & (frame.learner == learner) & (frame.measure == "hamming")].iloc[0]
        cell = rep.cells[(d, learner)]
        assert row["mean"] == cell.mean("hamming") and row["std"] == cell.std("hamming")  # unrounded
        shown = rt.by_measure["hamming"].cells[rep.datasets.index(d)][rep.learners.index(learner)]
        assert shown == f"{row['mean']:.3g} ± {row['std']:.1g}"  # what the tab's table shows
    report_csv = pd.read_csv(tmp / "report" / "results.csv")  # the report's file: the same rows, rounded
    assert len(report_csv) == len(frame)
    assert report_csv["mean"].to_numpy() == pytest.approx(frame["mean"].to_numpy(), rel=1e-5)


def test_the_results_export_as_the_reports_markdown_and_latex(finished, tmp_path):
    tmp, exp, rt = finished
    tables.write_experiment_results(tmp_path / "r.md", rt.report)
    md = (tmp_path / "r.md").read_text()
    report = (tmp / "report" / "results.md").read_text()
    hamming = md[md.index("### Hamming loss"):].split("###")[1]
    assert hamming in report  # the report's own section, statistics included
    assert "| data set | xgboost-br | xgboost-lp |" in md
    tables.write_experiment_results(tmp_path / "r.tex", rt.report)
    tex = (tmp_path / "r.tex").read_text()
    assert tex == (tmp / "report" / "results.tex").read_text()  # the report writes LaTeX tables too
    assert tex.count(r"\begin{tabular}") == len(rt.measures) and r"$\pm$" in tex and r"\textbf{" in tex


def test_ctrl_c_in_the_results_table_copies_the_selected_rows(finished, qtbot):
    from PySide6.QtCore import QItemSelectionModel, Qt
    from PySide6.QtWidgets import QApplication

    from boomer_gui.experiment.tab import ExperimentTab

    tmp, exp, rt = finished
    tab = ExperimentTab()
    qtbot.addWidget(tab)
    tab.show()  # a shortcut needs a shown, active window
    qtbot.waitExposed(tab)
    tab.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is tab)
    assert tab.open_file(tmp / "e.toml")  # the stored results fill the table
    assert tab.export_button.isEnabled()
    tab.measure_combo.setCurrentText("hamming")
    table = tab.result_table
    table.selectionModel().select(table.model().index(1, 0), QItemSelectionModel.ClearAndSelect |
                                  QItemSelectionModel.Rows)
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    QApplication.clipboard().clear()
    qtbot.keyClick(table, Qt.Key_C, Qt.ControlModifier)
    rows = list(csv.reader(io.StringIO(QApplication.clipboard().text()), delimiter="\t"))
    assert rows == [["", "xgboost-br", "xgboost-lp"], ["b", *rt.by_measure["hamming"].cells[1]]]
    tab.export_results(tmp / "tab.csv")
    assert len(pd.read_csv(tmp / "tab.csv")) == len(tables.experiment_table(rt.report).rows)
