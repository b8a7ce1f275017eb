"""Table 1's machinery: XGBoost baselines by hand, the result store, the report (of the earlier runner's
stores too), and end-to-end runs through the experimenter on a Dask LocalCluster (resumed; and with a
worker killed mid-task).  BOOMER's prefix predictions: tests/test_experiment_bbc_cv.py."""
import os
import signal
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.cli import main
from engine.evaluation.baselines import BinaryRelevance, ClassifierChain, LabelPowerset
from engine.evaluation.data import folds, one_hot, resolve
from engine.evaluation.table1.methods import METHODS
from engine.evaluation.table1.profiles import EXPERIMENTS, PROFILES
from engine.evaluation.table1.report import build_report, pooled_predictions, write_report
from engine.evaluation.store import ResultStore, TaskResult, pack_bits, unpack_bits

TINY = replace(PROFILES["smoke"], name="tiny", n_folds=2, n_bootstraps=20, max_rules=20, rule_step=10, n_trees=10,
               cc_orders=1, datasets=())


def write_svmlight(path: Path, n=120, seed=0):
    """A small multi-label svmlight file: 4 attributes, 3 labels that are functions of them."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    Y = np.column_stack([X[:, 0] > 0.5, X[:, 1] > 0.6, (X[:, 0] > 0.5) & (X[:, 2] > 0.3)]).astype(int)
    lines = []
    for x, y in zip(X, Y):
        labels = ",".join(str(k) for k in np.flatnonzero(y))
        lines.append(f"{labels} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x)))
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------------------------ baselines by hand
def grid(n):
    return points(np.linspace(0.0, 1.0, n))


def points(x):
    x = np.asarray(x, dtype=np.float64)
    return np.column_stack([x, (1 - x) ** 2]).astype(np.float32)


def test_binary_relevance_learns_each_label_and_keeps_constant_labels():
    X = grid(80)
    Y = np.column_stack([X[:, 0] > 0.5, X[:, 0] < 0.3, np.zeros(80)]).astype(np.uint8)
    P = BinaryRelevance(learning_rate=0.3, reg_lambda=1.0).fit(X, Y).predict(points([0.1, 0.9]))
    assert P.tolist() == [[0, 1, 0], [1, 0, 0]]


def test_label_powerset_predicts_training_label_sets_only():
    X = grid(90)
    Y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)[np.minimum((X[:, 0] * 3).astype(int), 2)]
    lp = LabelPowerset(learning_rate=0.3, reg_lambda=1.0).fit(X, Y)
    assert lp.label_sets_.tolist() == [[0, 1], [1, 0], [1, 1]]  # [0, 0] was never seen: never predicted
    P = lp.predict(points([0.1, 0.5, 0.95]))
    assert P.tolist() == [[1, 0], [0, 1], [1, 1]]
    one = LabelPowerset().fit(X, np.ones((90, 2), np.uint8))
    assert one.predict(X[:3]).tolist() == [[1, 1]] * 3


def test_classifier_chain_feeds_predictions_down_the_chain():
    X = grid(80)
    y = (X[:, 0] > 0.5).astype(np.uint8)
    Y = np.column_stack([y, y])  # label 1 is label 0: the second link learns to copy its extra input
    cc = ClassifierChain(learning_rate=0.3, reg_lambda=1.0, order=[0, 1]).fit(X, Y)
    assert cc.models_[1].model.n_features_in_ == X.shape[1] + 1
    assert cc.models_[0].model.n_features_in_ == X.shape[1]
    rng = np.random.default_rng(1)
    T = points(rng.random(50))
    P = cc.predict(T)
    assert np.array_equal(P[:, 1], P[:, 0])  # the copy follows the prediction, right or wrong
    assert np.mean(P[:, 0] == (T[:, 0] > 0.5)) > 0.9
    random_order = ClassifierChain(order_seed=4).fit(X, Y).order_
    assert sorted(random_order.tolist()) == [0, 1]
    with pytest.raises(ValueError, match="permutation"):
        ClassifierChain(order=[0, 0]).fit(X, Y)


def test_one_hot_encoding():
    X = np.array([[0, 1.5, 1], [2, 0.5, 0], [np.nan, 1.0, 1]], dtype=np.float32)
    out = one_hot(X, {0: ["a", "b", "c"], 2: ["no", "yes"]})
    assert out[:, :3].tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]  # missing: no indicator set
    assert out[:, 3].tolist() == [1.5, 0.5, 1.0] and out[:, 4].tolist() == [1, 0, 1]  # binary stays one column


# ------------------------------------------------------------------------------ store and report
def test_bit_packing_round_trip():
    A = (np.random.default_rng(0).random((3, 7, 5)) < 0.5).astype(np.uint8)
    assert np.array_equal(unpack_bits(pack_bits(A)), A)


def test_store_rejects_what_is_not_a_store(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ValueError, match="not a result store"):
        ResultStore(bad)
    with pytest.raises(FileNotFoundError):
        ResultStore(tmp_path / "absent.sqlite", readonly=True)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (a)")
    with pytest.raises(ValueError, match="not a result store"):
        ResultStore(other, readonly=True)


def test_store_refuses_a_different_data_set_under_the_same_name(tmp_path):
    with ResultStore(tmp_path / "s.sqlite") as store:
        store.put_dataset("d", "aaaa", ["f"], np.zeros((3, 2), np.uint8))
        with pytest.raises(ValueError, match="different data set"):
            store.put_dataset("d", "bbbb", ["f"], np.zeros((3, 2), np.uint8))


def test_report_from_a_hand_made_store(tmp_path):
    """Two methods, two folds: the pooled predictions and BBC-CV cells come from the store alone."""
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 3)) < 0.4).astype(np.uint8)
    store = ResultStore(tmp_path / "s.sqlite")
    store.put_dataset("d", "f", ["x"], Y)
    parts = folds(40, 2)
    keys = []
    prof = replace(TINY, max_rules=10, rule_step=10)
    for name, flip in (("br", 0.0), ("lp", 0.3)):
        for fold, (_, test) in enumerate(parts):
            P = Y[test].copy()
            P ^= (rng.random(P.shape) < flip).astype(np.uint8)
            key = f"{name}{fold}"
            keys.append(key)
            group = METHODS[name].groups(prof)[0]
            store.put_task(TaskResult(key, "d", fold, 2, name, group, METHODS[name].configurations(group, prof), {},
                                      "v", 1.0, "w", test, P[None]))
    store.set_meta("run", {"profile": prof.as_dict(), "datasets": ["d"], "methods": ["br", "lp"], "n_tasks": 4,
                           "keys": keys})
    names, P, _ = pooled_predictions(store, "d", "br", 2)
    assert np.array_equal(P[0], Y)
    rep = build_report(store)
    assert rep.value("hamming", "d", "br") == 0.0 and rep.value("subset_01", "d", "lp") > 20
    written = write_report(rep, tmp_path / "report")
    text = (tmp_path / "report" / "table1.md").read_text()
    assert "| d | **0.00**" in text  # BR's perfect Hamming loss is the row's best
    assert [p.name for p in written][:2] == ["table1.md", "table1.csv"]
    store.close()


# ------------------------------------------------------------------------------ on Dask
@pytest.fixture
def tiny_specs(tmp_path):
    return [resolve(str(write_svmlight(tmp_path / "a.svm", seed=1))),
            resolve(str(write_svmlight(tmp_path / "b.svm", n=90, seed=2)))]


def tiny_profile(tmp_path, max_rules=20, step=10) -> str:
    """The smoke profile shrunk: 2 folds, 20 bootstraps, T in 10, 20, ten trees, one chain order."""
    text = (EXPERIMENTS / "table1_smoke.toml").read_text()
    for old, new in (("folds = 3", "folds = 2"), ("bootstraps = 50", "bootstraps = 20"),
                     ("max_rules = 100", f"max_rules = {max_rules}"), ("prefix_step = 50", f"prefix_step = {step}"),
                     ("n_estimators = 50", "n_estimators = 10"), ("order_seed = [1, 2]", "order_seed = [1]")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "table1_tiny.toml"
    path.write_text(text)
    return str(path)


def run_table1(store, profile, specs, methods=None, **kwargs):
    from engine.evaluation.experiment.run import run_experiment
    from engine.evaluation.table1.run import META, table1_experiment

    data = [s.files[0] for s in specs]
    store.set_meta(META, {"profile": profile, "methods": methods, "data": data})
    return run_experiment(table1_experiment(profile, methods, data), store, stream=open(os.devnull, "w"), **kwargs)


@pytest.mark.slow
def test_end_to_end_on_a_local_cluster_then_resume(tmp_path, tiny_specs):
    from engine.evaluation.table1.run import load_table1_report, write_table1_reports

    profile = tiny_profile(tmp_path)
    with ResultStore(tmp_path / "r.sqlite") as store:
        first = run_table1(store, profile, tiny_specs, n_workers=2)
        assert first.n_done == first.n_tasks == 2 * 2 * 7 and first.n_failed == 0
        second = run_table1(store, profile, tiny_specs, n_workers=2)
        assert second.n_done == 0 and second.n_skipped == first.n_tasks  # nothing new computed
        # an existing cluster by its scheduler address: no other change; recomputes only what is missing
        store.db.execute("DELETE FROM experiment_results WHERE learner='xgboost-br'")
        store.db.commit()
        from dask.distributed import LocalCluster

        with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as cluster:
            third = run_table1(store, profile, tiny_specs, scheduler=cluster.scheduler_address)
        assert third.n_done == 2 * 2 and third.n_failed == 0
        rep = load_table1_report(store)
        paths = write_table1_reports(store, tmp_path / "out")
    assert rep.complete_datasets() == ["a", "b"]
    assert {p.name for p in paths} >= {"table1.md", "table1.csv", "cd_subset_01.png", "cd_hamming.png", "results.md"}
    from engine.api import load_report, store_progress  # what File -> Open evaluation results reads

    assert store_progress(tmp_path / "r.sqlite") == (28, 28)
    assert load_report(tmp_path / "r.sqlite").cells.keys() == rep.cells.keys()
    # BOOMER's configurations are the rule prefixes: 2 of the one grid point here
    assert rep.cells[("a", "boomer-lw-single")].configurations == ["shrinkage=0.3,l2_regularization_weight=1.0,"
                                                                   f"rules={t}" for t in (10, 20)]


@pytest.mark.slow
def test_a_worker_killed_mid_task_loses_nothing(tmp_path, tiny_specs):
    from engine.evaluation.table1.run import load_table1_report

    killed = []

    def kill_a_busy_worker(result, client):
        if killed:
            return
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    methods = ["boomer-exw-complete", "br"]
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_table1(store, tiny_profile(tmp_path, 200, 100), tiny_specs, methods, n_workers=2,
                             on_result=kill_a_busy_worker)
        assert killed, "no worker was busy when the first result arrived"
        assert summary.n_failed == 0 and summary.n_done == summary.n_tasks
        rep = load_table1_report(store)
    assert set(rep.cells) == {(d, m) for d in ("a", "b") for m in methods}


def test_command_errors_are_one_line(tmp_path, capsys):
    assert main(["evaluate", "--methods", "br,xgb"]) == 2
    assert "unknown method 'xgb'" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(tmp_path / "none.arff")]) == 2
    assert "neither a file nor one of the known names" in capsys.readouterr().err
    assert main(["evaluate", "--report-only", "--store", str(tmp_path / "none.sqlite")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "f").write_text("x")
    assert main(["evaluate", "--report", str(tmp_path / "f")]) == 2
    assert "not a folder" in capsys.readouterr().err


@pytest.mark.slow
def test_command_runs_and_reports(tmp_path, capsys):
    data = write_svmlight(tmp_path / "c.svm")
    argv = ["evaluate", "--data", str(data), "--methods", "br,boomer-lw-single", "--profile", "smoke", "--store",
            str(tmp_path / "s.sqlite"), "--report", str(tmp_path / "rep"), "--workers", "2"]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "table1.md" in out.out and "0 failed" in out.err
    assert main(argv[:-2] + ["--report-only"]) == 0
    assert "| c |" in (tmp_path / "rep" / "table1.md").read_text()


# ------------------------------------------------------------------------------ T-C3
C1 = {"birds": (645, 260, 19, 1.014, 133), "emotions": (593, 72, 6, 1.868, 27), "enron": (1702, 1001, 53, 3.378, 753),
      "llog": (1460, 1004, 75, 1.180, 304), "medical": (1954, 1909, 45, 1.240, 94),
      "scene": (2407, 294, 6, 1.074, 15), "slashdot": (3782, 3125, 20, 1.181, 156),
      "yeast": (2417, 103, 14, 4.237, 198)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(C1))
def test_table1_data_sets_have_the_statistics_of_the_notes(name):  # T-C3 (SPEC C.1)
    from engine.datasets import load
    from engine.evaluation.data import KNOWN, SHARED_DATA, load_spec

    if not SHARED_DATA.is_dir():
        pytest.skip(f"the benchmark data folder {SHARED_DATA} is absent")
    parts = [load(SHARED_DATA / f) for f in KNOWN[name]]
    n, d, k, lc, dls = C1[name]
    assert sum(p.n_examples for p in parts) == n and parts[0].n_features == d and parts[0].n_labels == k
    spec = resolve(name)
    X, Y = load_spec(spec.name, spec.files)
    assert X.shape[0] == n and round(float(Y.sum(axis=1).mean()), 3) == lc
    assert np.unique(Y, axis=0).shape[0] == dls
    if name == "birds":  # two nominal attributes, one-hot encoded
        assert len(parts[0].nominal_values) == 2 and X.shape[1] > d


@pytest.mark.slow
def test_a_killed_run_resumes_where_it_stopped(tmp_path):
    """The whole command is killed once the store holds results; the rerun computes only the rest."""
    import subprocess
    import sys
    import time

    data = write_svmlight(tmp_path / "k.svm")
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-m", "engine", "evaluate", "--data", str(data), "--profile", "smoke", "--store",
            str(store), "--report", str(tmp_path / "rep"), "--workers", "1", "--methods", "boomer-exw-complete,cc,br"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300  # a cold Numba cache compiles first
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists():
            try:
                with sqlite3.connect(store, timeout=5) as db:
                    done = db.execute("SELECT COUNT(*) FROM experiment_results").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0
        if done >= 2:
            break
        time.sleep(0.05)  # polling a subprocess, not waiting on Qt
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert done >= 2, "the run stored nothing before it was killed"
    with ResultStore(store) as s:
        kept = len(s.experiment_keys())
    total = 3 * (1 + 2 + 1)  # folds x (groups of boomer-exw-complete + cc's two orders + br)
    assert 2 <= kept < total
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"{total - kept} tasks computed, {kept} already stored" in out.stderr


def test_grid_sizes_of_the_paper_and_the_authors_scripts():  # SPEC C.4
    def size(profile, name):
        m = METHODS[name]
        return sum(len(m.configurations(g, PROFILES[profile])) for g in m.groups(PROFILES[profile]))

    assert [size("paper", m) for m in ("boomer-exw-complete", "br", "lp", "cc")] == [3600, 18, 18, 180]
    assert [size("authors", m) for m in ("boomer-exw-complete", "br", "lp", "cc")] == [1200, 6, 6, 120]
    assert size("reduced", "boomer-lw-single") == 2 * 3 * 20  # η x λ x T in 50..1000


def test_progress_writes_to_the_stream_of_the_call_not_of_the_first_import(monkeypatch):
    """A default argument bound to the sys.stderr of the first import (a test's captured stream, closed
    since) made `evaluate` fail with 'I/O operation on closed file' depending on test order."""
    import io
    import sys

    from engine.evaluation.runner import Progress

    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    progress = Progress(2, 0)
    progress.update()
    progress.update()
    assert "2/2 tasks" in now.getvalue()


def test_evaluate_exits_with_status_1_when_tasks_failed(tmp_path, monkeypatch, capsys):
    """Like ``experiment``: a Table 1 run whose tasks failed is not a success for a script or CI."""
    from engine.evaluation.experiment import run as experiment_run
    from engine.evaluation import runner
    from engine.evaluation.table1 import run as table1

    data = write_svmlight(tmp_path / "d.svm")
    outcomes = iter([runner.RunSummary(4, 0, 2, 2, 1.0), runner.RunSummary(4, 2, 2, 0, 1.0)])
    monkeypatch.setattr(experiment_run, "run_experiment", lambda *args, **kwargs: next(outcomes))
    monkeypatch.setattr(table1, "write_table1_reports", lambda store, folder: [])
    argv = ["evaluate", "--data", str(data), "--methods", "boomer-lw-single", "--store", str(tmp_path / "s.sqlite"),
            "--report", str(tmp_path / "r")]
    assert main(argv) == 1  # two tasks failed
    assert main(argv) == 0  # the rerun computed them
    assert "2 failed" in capsys.readouterr().err
