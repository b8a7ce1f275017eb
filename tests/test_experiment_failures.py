"""A task that fails says why (issue 55): its row in the Experiment tab shows the error's last line
and a click shows the whole traceback; the store keeps the traceback, the report lists the failed
tasks with their reason (and writes the tracebacks to failures.txt), and a reopened experiment
shows the failure of the last attempt.  The tasks run on an in-process Dask cluster (a scheduler
address, as the tab accepts one) so that a learner made to fail on purpose fails in its worker."""
import pytest

from boomer_gui.components import experiment as model
from engine.evaluation import baselines
from test_experiment_file import write_svm

REASON = "ValueError: made to fail on purpose: 3 trees are too few"


@pytest.fixture
def files(tmp_path):
    return [write_svm(tmp_path / "a.svm", n=40, seed=1), write_svm(tmp_path / "b.svm", n=36, seed=2)]


@pytest.fixture
def failing_br(monkeypatch):
    """XGBoost binary relevance raises in the worker when asked for 3 trees (a learner parameter)."""
    fit = baselines.BinaryRelevance.fit

    def refuse(self, X, Y):
        if self.params["n_estimators"] == 3:
            raise ValueError("made to fail on purpose: 3 trees are too few")
        return fit(self, X, Y)

    monkeypatch.setattr(baselines.BinaryRelevance, "fit", refuse)


@pytest.fixture
def scheduler():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                      silence_logs=50) as cluster:
        yield cluster.scheduler_address


def _experiment(tmp_path, files):
    draft = model.Draft(name="fails", data=[str(f) for f in files], folds=2)
    draft.add_learner("xgboost-br").params["n_estimators"] = 3
    draft.add_learner("xgboost-lp").params["n_estimators"] = 2
    return draft, draft.save(tmp_path / "fails.toml")


def test_a_failed_task_keeps_its_traceback_in_the_store_and_the_report(tmp_path, files, failing_br, scheduler):
    _, exp = _experiment(tmp_path, files)
    events = []
    model.run(exp, tmp_path / "fails.sqlite", lambda kind, payload: events.append((kind, payload)),
              scheduler=scheduler, report_dir=tmp_path / "report")
    failed = [p for k, p in events if k == "failed"]
    assert len(failed) == 4  # two data sets x two folds of the binary relevance
    for key, error in failed:
        assert error.startswith("Traceback (most recent call last)") and "in fit_predict" in error
        assert error.rstrip().splitlines()[-1] == REASON
    summary, _ = next(p for k, p in events if k == "done")
    assert (summary.n_failed, summary.n_done) == (4, 4)

    md = (tmp_path / "report" / "results.md").read_text()
    assert "## Failed tasks" in md and md.count(REASON) == 4
    assert "| a | 1 | xgboost-br |" in md and "| b | 2 | xgboost-br |" in md
    tracebacks = (tmp_path / "report" / "failures.txt").read_text()
    assert tracebacks.count("Traceback (most recent call last)") == 4 and tracebacks.count(REASON) == 4

    rows = model.planned_rows(exp, tmp_path / "fails.sqlite")  # the tab reopened: the last attempt failed
    assert [r.status for r in rows].count("failed") == 4 and [r.status for r in rows].count("stored") == 4
    assert {r.reason for r in rows if r.status == "failed"} == {REASON}
    assert all(r.error.startswith("Traceback") for r in rows if r.status == "failed")


def test_the_tab_shows_a_failed_tasks_reason_in_its_row_and_the_traceback_on_click(qtbot, tmp_path, files, failing_br,
                                                                                   scheduler):
    from boomer_gui.experiment.tab import REASON as REASON_COLUMN, ExperimentTab

    tab = ExperimentTab()
    qtbot.addWidget(tab)
    tab.draft, _ = _experiment(tmp_path, files)
    tab._refresh_draft()
    assert tab.save_file(tmp_path / "fails.toml")
    tab.scheduler_edit.setText(scheduler)
    assert tab.start()
    qtbot.waitUntil(lambda: tab.thread is None, timeout=240_000)
    statuses = [tab.task_table.item(i, 0).text() for i in range(tab.task_table.rowCount())]
    failed = [i for i, s in enumerate(statuses) if s == "failed"]
    assert len(failed) == 4 and statuses.count("done") == 4
    assert all(tab.task_table.item(i, 3).text() == "xgboost-br" for i in failed)
    assert [tab.task_table.item(i, REASON_COLUMN).text() for i in failed] == [REASON] * 4
    assert all(tab.task_table.item(i, REASON_COLUMN).text() == "" for i in range(8) if i not in failed)
    assert "4 failed" in tab.status.text()
    assert tab.results.by_measure["hamming"].cells[0][0] == "failed"  # no result for xgboost-br: it says why

    assert not tab.show_failure(next(i for i in range(8) if i not in failed))  # a task that did not fail
    rect = tab.task_table.visualItemRect(tab.task_table.item(failed[0], REASON_COLUMN))
    from PySide6.QtCore import Qt

    qtbot.mouseClick(tab.task_table.viewport(), Qt.LeftButton, pos=rect.center())
    dialog = tab.failure_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.text.toPlainText()
    assert text.startswith("Traceback (most recent call last)") and text.rstrip().endswith(REASON)
    assert "made to fail on purpose" in dialog.heading.text() and "xgboost-br" in dialog.heading.text()
    dialog.close()

    reopened = ExperimentTab()  # the window opened again: the failures of the last run are in their rows
    qtbot.addWidget(reopened)
    assert reopened.open_file(tmp_path / "fails.toml")
    rows = range(reopened.task_table.rowCount())
    assert [reopened.task_table.item(i, REASON_COLUMN).text() for i in rows if i in failed] == [REASON] * 4
