"""The Experiment tab: an experiment built in the window (data files, learners, a parameter and a
grid set in the parameter panel) is saved and reopened, runs on a local Dask cluster with every
task's status and the results table and CD diagram filling in, and a new tab (the window closed
and opened again) shows the stored results and resumes without computing them again."""
import pytest

from boomer_gui.components import experiment as model
from engine.evaluation.experiment.file import ExperimentError
from test_experiment_file import write_svm


@pytest.fixture
def files(tmp_path):
    return [write_svm(tmp_path / "a.svm", n=40, seed=1), write_svm(tmp_path / "b.svm", n=36, seed=2)]


def test_a_draft_round_trips_through_its_file(tmp_path, files):
    draft = model.Draft(name="mine", data=[str(f) for f in files], folds=2, inner_folds=2, seed=5, tune_by="micro-f1")
    row = draft.add_learner("boomer", "Label-wise, multi-label heads")
    row.params["max_rules"] = 10
    row.grid["shrinkage"] = [0.1, 0.3]
    draft.add_learner("xgboost-br").params["n_estimators"] = 3
    assert draft.add_learner("xgboost-br").name == "xgboost-br #2"
    exp = draft.save(tmp_path / "mine.toml")
    assert [e.name for e in exp.learners] == ["Label-wise, multi-label heads", "xgboost-br", "xgboost-br #2"]
    assert 'data = ["a.svm", "b.svm"]' in (tmp_path / "mine.toml").read_text()  # relative to the file
    again = model.open_draft(tmp_path / "mine.toml")
    assert again.learners[0].params == {"max_rules": 10} and again.learners[0].grid == {"shrinkage": [0.1, 0.3]}
    assert (again.folds, again.seed, again.tune_by, again.measures) == (2, 5, "micro-f1", None)
    assert again.data == [str(f) for f in files]
    assert model.default_store(tmp_path / "mine.toml") == tmp_path / "mine.sqlite"
    draft.learners[2].params["colour"] = 1
    with pytest.raises(ExperimentError, match="unknown parameter 'colour' of xgboost-br"):
        draft.check()


def _run_to_the_end(qtbot, tab):
    qtbot.waitUntil(lambda: tab.thread is None, timeout=240_000)  # the thread's end reached the tab


def test_the_tab_runs_saves_reopens_and_resumes(qtbot, tmp_path, files):
    from boomer_gui.experiment.tab import ExperimentTab

    tab = ExperimentTab()
    qtbot.addWidget(tab)
    tab.add_data(files)
    tab.folds_spin.setValue(2)
    tab.inner_spin.setValue(2)
    tab.add_learner("xgboost-lp")
    tab.add_learner("xgboost-br")  # selected: its parameters are in the panel
    names = [tab.param_table.item(i, 0).text() for i in range(tab.param_table.rowCount())]
    tab.param_table.item(names.index("n_estimators"), 1).setText("3")
    tab.param_table.item(names.index("max_depth"), 2).setText("1, 2")
    tab.param_table.item(names.index("learning_rate"), 1).setText("7")  # out of range: refused, said why
    assert "learning_rate" in tab.param_message.text()
    assert tab.draft.learners[1].params == {"n_estimators": 3} and tab.draft.learners[1].grid == {"max_depth": [1, 2]}
    tab.learner_table.selectRow(0)
    tab.param_table.item(names.index("n_estimators"), 1).setText("3")
    assert tab.save_file(tmp_path / "e.toml")
    assert tab.store_edit.text() == str(tmp_path / "e.sqlite")
    tab.workers_spin.setValue(1)
    assert tab.start()
    _run_to_the_end(qtbot, tab)
    n = 2 * 2 * (1 + 2)
    statuses = [tab.task_table.item(i, 0).text() for i in range(tab.task_table.rowCount())]
    assert statuses == ["done"] * n and tab.progress.value() == n
    assert tab.results.n_done == n and tab.results.by_measure["hamming"].average_ranks is not None
    assert tab.result_table.rowCount() == 3 and tab.result_table.columnCount() == 2  # two data sets + avg. rank
    assert tab.cd_figure.axes and any("CD" in t.get_text() for t in tab.cd_figure.axes[0].texts)

    # the window closed and opened again: the file and its store bring back tasks and results
    reopened = ExperimentTab()
    qtbot.addWidget(reopened)
    assert reopened.open_file(tmp_path / "e.toml")
    assert [reopened.task_table.item(i, 0).text() for i in range(n)] == ["stored"] * n
    assert reopened.results.n_done == n and reopened.result_table.rowCount() == 3
    reopened.workers_spin.setValue(1)
    assert reopened.start()
    _run_to_the_end(qtbot, reopened)
    assert reopened.status.text().startswith("0 tasks computed, 12 taken from the store (computed before)")


def test_stop_keeps_what_is_stored_and_start_computes_the_rest(qtbot, tmp_path, files):
    from boomer_gui.experiment.tab import ExperimentTab

    tab = ExperimentTab()
    qtbot.addWidget(tab)
    tab.add_data(files)
    tab.folds_spin.setValue(2)
    for key in ("xgboost-lp", "xgboost-br"):
        tab.add_learner(key).params["n_estimators"] = 2
    assert tab.save_file(tmp_path / "s.toml")
    tab.workers_spin.setValue(1)
    assert tab.start()
    qtbot.waitUntil(lambda: tab.progress.value() >= 1, timeout=240_000)
    tab.stop()
    _run_to_the_end(qtbot, tab)
    first = int(tab.status.text().split()[0])
    assert 1 <= first <= 8
    assert tab.start()
    _run_to_the_end(qtbot, tab)
    assert tab.status.text().startswith(f"{8 - first} task{'s' if 8 - first != 1 else ''} computed, {first} taken "
                                        "from the store")
