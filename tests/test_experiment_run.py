"""``python -m engine experiment``: tasks on Dask, each result stored on arrival, a rerun computes
nothing, a partial store (or a killed run) is completed by computing only the missing tasks, and
the report's means and standard deviations are those of the stored fold predictions."""
import csv
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.cli import main
from engine.evaluation.experiment.file import load_experiment
from engine.evaluation.experiment.report import build_experiment_report, write_experiment_report
from engine.evaluation.experiment.run import run_experiment
from engine.evaluation.experiment.tasks import make_tasks, splits
from engine.evaluation.experiment.scoring import evaluate
from engine.evaluation.store import ResultStore
from test_experiment_file import write_svm

ROOT = Path(__file__).resolve().parents[1]
TEXT = """name = "tiny"
data = ["a.svm", "b.svm"]
measures = ["hamming", "subset-zero-one", "example-f1", "rank-loss", "fit-time", "model-size", "conditions"]
[protocol]
folds = 2
inner_folds = 2
seed = 3
tune_by = "example-f1"
[[learner]]
key = "xgboost-br"
name = "BR"
params = { n_estimators = 3 }
grid = { max_depth = [1, 2] }
[[learner]]
key = "xgboost-lp"
name = "LP"
params = { n_estimators = 3 }
[[learner]]
key = "cc-lr"
"""


@pytest.fixture
def experiment(tmp_path):
    write_svm(tmp_path / "a.svm", n=50, seed=1)
    write_svm(tmp_path / "b.svm", n=40, seed=2)
    (tmp_path / "e.toml").write_text(TEXT)
    return tmp_path / "e.toml"


def quiet():
    return open(os.devnull, "w")


def test_run_rerun_resume_and_report(experiment, tmp_path):
    exp = load_experiment(experiment)
    tasks = make_tasks(exp)
    assert len(tasks) == 2 * 2 * (2 + 1 + 1)  # data sets x folds x (BR's two configurations, LP, the chain)
    with ResultStore(tmp_path / "s.sqlite") as store:
        first = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (first.n_done, first.n_skipped, first.n_failed) == (len(tasks), 0, 0)
        again = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (again.n_done, again.n_skipped) == (0, len(tasks))
        # a partial store: three results lost; only they are computed, the others are not touched
        lost = [t["key"] for t in tasks[1::5]][:3]
        before = dict(store.db.execute("SELECT key, finished FROM experiment_results"))
        store.delete_results(lost)
        resumed = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (resumed.n_done, resumed.n_skipped) == (3, len(tasks) - 3)
        after = dict(store.db.execute("SELECT key, finished FROM experiment_results"))
        assert {k for k in after if after[k] != before[k]} == set(lost)
        rep = build_experiment_report(exp, store)
        written = write_experiment_report(rep, tmp_path / "report")
        labels = {d: store.dataset_labels(d) for d in ("a", "b")}
        results = store.results(t["key"] for t in tasks)
    names = {p.name for p in written}
    assert {"results.csv", "results.md", "cd_hamming.png", "curves_a.png", "curves_b.png"} <= names
    rows = list(csv.DictReader(open(tmp_path / "report" / "results.csv")))
    # LP has no scores, the XGBoost models no rules: those cells are absent and the report says so
    assert not [r for r in rows if r["learner"] == "LP" and r["measure"] == "rank-loss"]
    assert not [r for r in rows if r["measure"] == "conditions"]
    md = (tmp_path / "report" / "results.md").read_text()
    assert "- LP: rank-loss, conditions" in md and "Friedman" in md and "Wilcoxon" in md
    # the chain's Hamming loss on b: mean and std over the two folds of its stored predictions
    chain = [results[t["key"]] for t in tasks if t["dataset"] == "b" and t["name"] == "cc-lr"]
    per_fold = [evaluate("hamming", labels["b"][r.test_rows], r.predictions) for r in chain]
    row = next(r for r in rows if (r["dataset"], r["learner"], r["measure"]) == ("b", "cc-lr", "hamming"))
    assert float(row["mean"]) == pytest.approx(np.mean(per_fold), rel=1e-5)
    assert float(row["std"]) == pytest.approx(np.std(per_fold), rel=1e-4, abs=1e-9)
    # BR's grid: in each fold the configuration with the better inner example-F1 is reported
    for fold in range(2):
        pair = [results[t["key"]] for t in tasks if (t["dataset"], t["name"], t["fold"]) == ("a", "BR", fold)]
        best = max(pair, key=lambda r: r.inner["example-f1"])
        assert rep.cells[("a", "BR")].selected[fold] == best.config
    # the folds are the protocol's stratified folds
    train, test = splits(exp.protocol, labels["a"], (50,))[1]
    assert sorted(results[tasks[len(tasks) // 2 - 1]["key"]].test_rows.tolist()) == sorted(test.tolist())


def test_a_killed_run_resumes_and_loses_nothing(experiment, tmp_path):
    store_path = tmp_path / "k.sqlite"
    cmd = [sys.executable, "-m", "engine", "experiment", str(experiment), "--store", str(store_path), "--report",
           str(tmp_path / "r"), "--workers", "1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        for line in proc.stderr:  # the progress line of the first stored result
            if "tasks (" in line:
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    exp = load_experiment(experiment)
    n = len(make_tasks(exp))
    with ResultStore(store_path) as store:
        kept = len(store.experiment_keys())
        assert kept >= 1
        summary = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (summary.n_done, summary.n_skipped) == (n - kept, kept)
        assert len(store.experiment_keys()) == n


def test_a_bad_file_is_one_error_before_any_work(experiment, tmp_path, capsys):
    experiment.write_text(TEXT.replace('key = "cc-lr"', 'key = "cc-lr"\nparams = { l3 = 1 }'))
    assert main(["experiment", str(experiment), "--store", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "e.toml:20: unknown parameter 'l3' of cc-lr" in err and err.count("\n") == 1
    assert not (tmp_path / "x.sqlite").exists()


def test_train_test_protocols_split_as_the_files_or_the_share_say(tmp_path):
    from engine.evaluation.data import load_parts

    write_svm(tmp_path / "d-train.svm", n=30, seed=4)
    write_svm(tmp_path / "d-test.svm", n=12, seed=5)
    text = TEXT.replace('data = ["a.svm", "b.svm"]', 'data = ["d-train.svm"]').replace(
        "\nfolds = 2", '\nkind = "train-test"')
    (tmp_path / "t.toml").write_text(text)
    exp = load_experiment(tmp_path / "t.toml")
    spec = exp.datasets[0]
    assert spec.name == "d" and len(spec.files) == 2
    _, Y, sizes = load_parts(spec.name, spec.files)
    [(train, test)] = splits(exp.protocol, Y, sizes)
    assert train.tolist() == list(range(30)) and test.tolist() == list(range(30, 42))
    assert {t["fold"] for t in make_tasks(exp)} == {0}
    (tmp_path / "s.toml").write_text(text.replace('kind = "train-test"', 'kind = "train-test"\ntest_size = 0.25'))
    exp = load_experiment(tmp_path / "s.toml")
    [(train, test)] = splits(exp.protocol, Y, sizes)
    assert len(test) == round(0.25 * 42) and sorted(np.concatenate([train, test]).tolist()) == list(range(42))


def test_an_existing_scheduler_runs_the_tasks(experiment, tmp_path):
    from dask.distributed import LocalCluster

    exp = load_experiment(experiment)
    exp.learners = exp.learners[1:2]  # LP alone: 4 tasks
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            ResultStore(tmp_path / "c.sqlite") as store:
        summary = run_experiment(exp, store, scheduler=cluster.scheduler_address, stream=quiet())
        assert (summary.n_done, summary.n_failed) == (4, 0)
        assert store.experiment_keys() == {t["key"] for t in make_tasks(exp)}
