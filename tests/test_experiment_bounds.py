"""Experiment files are bounded before any work (issue 60): only regular files of at most 1 MiB,
nesting at most 32 deep (checked on the raw text, before ``tomllib``), at most ``--max-tasks`` tasks
counted from the grid's sizes, a store folder that exists, a protocol the data sets are large enough
for; failed tasks give exit status 1 and a summary of their reasons; two processes on one store
share its tasks (claims with a lease in the store)."""
import os
import re
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from engine.cli import main
from engine.evaluation.experiment import run as experiment_run
from engine.evaluation.experiment.file import (MAX_FILE_BYTES, MAX_NESTING, ExperimentError, TooManyTasks,
                                               load_experiment, nesting, parse_experiment)
from engine.evaluation.experiment.tasks import make_tasks
from engine.evaluation.store import ResultStore
from test_experiment_file import write_svm

ROOT = Path(__file__).resolve().parents[1]
SMALL = """data = ["a.svm"]
[protocol]
folds = 2
[[learner]]
key = "xgboost-lp"
params = { n_estimators = 2 }
"""
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
HUGE_GRID = f"""data = ["a.svm"]
[[learner]]
key = "boomer"
[learner.grid]
shrinkage = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
l2_regularization_weight = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
max_rules = {TEN}
random_state = {TEN}
min_coverage = {TEN}
max_conditions = {TEN}
"""


@pytest.fixture
def folder(tmp_path):
    write_svm(tmp_path / "a.svm", n=40, seed=1)
    return tmp_path


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


# -- the file itself ---------------------------------------------------------------------------------
def test_a_fifo_is_refused_at_once_without_waiting_for_a_writer(tmp_path, capsys):
    fifo = tmp_path / "e.toml"
    os.mkfifo(fifo)
    result = []
    worker = threading.Thread(target=lambda: result.append(main(["experiment", str(fifo)])), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the open() of today's main so the test process can end
        with open(fifo, "w"):
            pass
        worker.join(10)
        pytest.fail("reading a FIFO as the experiment file blocked")
    assert result == [2]
    assert "not a regular file but a FIFO" in one_error(capsys)


@pytest.mark.parametrize("path, kind", [("/dev/zero", "a device"), ("FOLDER", "a folder")])
def test_devices_and_folders_are_refused_before_reading(path, kind, tmp_path, capsys):
    path = str(tmp_path) if path == "FOLDER" else path
    tracemalloc.start()
    try:
        assert main(["experiment", path]) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"not a regular file but {kind}" in one_error(capsys)
    assert peak < 50_000_000


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(folder, capsys):
    path = folder / "e.toml"
    path.write_text(SMALL + "# " + "x" * MAX_FILE_BYTES + "\n")
    with pytest.raises(ExperimentError, match=r"e\.toml: 1,048,\d{3} bytes; an experiment file has at most 1,048,576"):
        load_experiment(path)


@pytest.mark.parametrize("deep", [
    "x = " + "[" * 3000 + "]" * 3000,  # nested arrays: a RecursionError inside tomllib today
    "x = " + "{a = " * 3000 + "1" + "}" * 3000,  # nested inline tables
    "a" + ".a" * 20_000 + " = 1",  # a dotted key 20,000 levels deep: 36 s and 1.7 GB in tomllib today
    "[" + ".".join(["t"] * 5000) + "]\nx = 1",  # a table header as deep
])
def test_deep_nesting_is_one_error_at_once(deep, folder, capsys):
    path = folder / "e.toml"
    path.write_text(SMALL.replace("[protocol]", deep + "\n[protocol]"))
    start = time.perf_counter()
    assert main(["experiment", str(path), "--store", str(folder / "s.sqlite")]) == 2
    assert time.perf_counter() - start < 2.0
    err = one_error(capsys)
    assert re.search(rf"e\.toml:2: arrays, tables and dotted keys nested \d+ deep; .* at most {MAX_NESTING}", err)
    assert not (folder / "s.sqlite").exists()


def test_the_nesting_scan_counts_brackets_and_key_segments_not_values():
    assert nesting('grid = { shrinkage = [0.1, 0.2, 0.3, 0.4, 0.5], a.b = 1 }\nname = "x.y.z [{"\n') == (2, 1)
    assert nesting("[[learner]]\nkey = 'a.b'\n[learner.params]\nmax_rules = 1.5\n") == (2, 1)
    assert nesting('x = """\n[[[[\n"""\ny = [[1], [2]]\n') == (2, 4)
    assert nesting("a.b.c = [1, {d.e = [2]}]")[0] == 2 + 1 + 1 + 1 + 1


def test_locating_lines_is_linear_in_a_long_line(folder):
    """A string line of "[a", 900,000 spaces and "x": the header pattern once backtracked quadratically
    (11 s for 40,000 spaces, hours for this one)."""
    text = 'name = """\n[a' + " " * 900_000 + 'x\n"""\n' + SMALL
    start = time.perf_counter()
    exp = parse_experiment(text, folder / "e.toml")
    assert time.perf_counter() - start < 2.0 and exp.name.startswith("[a")


# -- the number of tasks ------------------------------------------------------------------------------
def test_a_huge_grid_is_refused_from_its_size_before_it_is_expanded(folder):
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(TooManyTasks) as info:
            parse_experiment(HUGE_GRID, folder / "e.toml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 2.0 and peak < 20_000_000
    assert info.value.n_tasks == 5 * 10 ** 6
    assert ("the experiment makes 5,000,000 tasks (1 data set(s) x 5 fold(s) x 1,000,000 configuration(s)), more "
            "than the limit of 10,000") in str(info.value) and "--max-tasks 5000000" in str(info.value)


def test_max_tasks_raises_the_limit_and_the_message_says_how_long_the_plan_takes(folder, capsys):
    path = folder / "e.toml"
    path.write_text(SMALL.replace("params = { n_estimators = 2 }", "grid = { n_estimators = [1, 2, 3] }"))
    assert main(["experiment", str(path), "--max-tasks", "5", "--store", str(folder / "s.sqlite")]) == 2
    err = one_error(capsys)
    assert "makes 6 tasks" in err and "limit of 5" in err and "no result store yet" in err
    with ResultStore(folder / "s.sqlite") as store:  # a store with timed results: the plan's duration
        store.db.execute("INSERT INTO experiment_results VALUES ('k', 'a', 0, 'x', '{}', '{}', "
                         "'{\"fit-time\": 1.5, \"predict-time\": 0.5}', '[]', 'v', 'w', 0, x'', x'', NULL)")
        store.db.commit()
    assert main(["experiment", str(path), "--max-tasks", "5", "--store", str(folder / "s.sqlite")]) == 2
    err = one_error(capsys)
    assert "at the median 2 s per task" in err and "about 12 s" in err
    assert len(make_tasks(load_experiment(path, max_tasks=6))) == 6


# -- the store and the protocol -----------------------------------------------------------------------
def test_a_store_in_a_missing_folder_is_one_clear_error(folder, capsys):
    path = folder / "e.toml"
    path.write_text(SMALL)
    missing = folder / "no" / "such"
    assert main(["experiment", str(path), "--store", str(missing / "s.sqlite")]) == 2
    assert f"the folder {missing} does not exist" in one_error(capsys)
    assert not missing.exists()


def test_more_folds_than_examples_are_refused_before_running(tmp_path, capsys):
    write_svm(tmp_path / "tiny.svm", n=3, seed=1)
    path = tmp_path / "e.toml"
    path.write_text(SMALL.replace('"a.svm"', '"tiny.svm"').replace("folds = 2", "folds = 5"))
    assert main(["experiment", str(path), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "data set 'tiny' has 3 example(s): 5-fold cross-validation needs at least 5" in one_error(capsys)
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert store.datasets() == [] and store.failures() == []


def test_an_inner_cross_validation_too_large_for_a_training_fold_is_refused(tmp_path):
    write_svm(tmp_path / "tiny.svm", n=4, seed=1)
    path = tmp_path / "e.toml"
    path.write_text(SMALL.replace('"a.svm"', '"tiny.svm"').replace("folds = 2", "folds = 2\ninner_folds = 3")
                    .replace("params = { n_estimators = 2 }", "grid = { n_estimators = [1, 2] }"))
    exp = load_experiment(path)
    with ResultStore(tmp_path / "s.sqlite") as store, \
            pytest.raises(ValueError, match=r"smallest training fold \(2\) is too small for inner_folds = 3"):
        experiment_run.plan(exp, store)


# -- failures and exit status ---------------------------------------------------------------------------
def test_failed_tasks_give_exit_status_1_and_a_summary_of_their_reasons(folder, capfd, monkeypatch):
    path = folder / "e.toml"
    path.write_text(SMALL)
    real = experiment_run.compute

    def data_changed_under_the_run(*args, **kwargs):  # every worker then reads other files than planned
        write_svm(folder / "a.svm", n=41, seed=2)
        return real(*args, **kwargs)

    monkeypatch.setattr(experiment_run, "compute", data_changed_under_the_run)
    code = main(["experiment", str(path), "--store", str(folder / "s.sqlite"), "--report", str(folder / "r"),
                 "--workers", "1"])
    err = capfd.readouterr().err  # the workers' output too
    assert code == 1
    assert "0 tasks computed, 0 already stored, 2 failed" in err
    assert "Compute Failed" not in err and "Traceback" not in err and err.count("\n") < 15, err
    assert re.search(r"2 task\(s\) failed; the reasons:\n +2 x RuntimeError: the worker on \S+ reads different "
                     r"files for 'a'\n", err), err


# -- two processes on one store ---------------------------------------------------------------------------
def test_claims_keep_a_task_from_a_second_owner_until_its_lease_expires_or_its_process_is_gone(tmp_path):
    with ResultStore(tmp_path / "s.sqlite") as a, ResultStore(tmp_path / "s.sqlite") as b:
        me = f"{os.uname().nodename}:{os.getpid()}:x"
        other = f"{os.uname().nodename}:{os.getpid()}:y"
        assert a.claim(["k1", "k2"], me, 60) == ["k1", "k2"]
        assert b.claim(["k1", "k2", "k3"], other, 60) == ["k3"]
        assert a.claim(["k1"], me, 60) == ["k1"]  # an owner's own claim is still its
        time.sleep(0.05)
        assert b.claim(["k1"], other, 0.01) == ["k1"]  # a lease not renewed has expired
        a.renew_claims(["k2"], me)
        assert b.claim(["k2"], other, 60) == []
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        dead = f"{os.uname().nodename}:{int(gone.stdout)}:z"
        assert a.claim(["k4"], dead, 60) == ["k4"]
        assert b.claim(["k4"], other, 60) == ["k4"]  # its process has ended: free at once
        a.release_claims(["k2"], me)
        assert b.claim(["k2"], other, 60) == ["k2"]


def test_two_processes_on_one_store_compute_each_task_once(tmp_path):
    for name, seed in (("a", 1), ("b", 2)):
        write_svm(tmp_path / f"{name}.svm", n=60, seed=seed)
    (tmp_path / "e.toml").write_text(SMALL.replace('["a.svm"]', '["a.svm", "b.svm"]').replace("folds = 2", "folds = 4")
                                     .replace("params = { n_estimators = 2 }",
                                              "grid = { n_estimators = [20, 40, 60] }"))
    n = len(make_tasks(load_experiment(tmp_path / "e.toml")))
    cmd = [sys.executable, "-m", "engine", "experiment", str(tmp_path / "e.toml"), "--store",
           str(tmp_path / "s.sqlite"), "--workers", "1"]
    with ResultStore(tmp_path / "s.sqlite"):
        pass  # the store exists before both start
    procs = [subprocess.Popen(cmd + ["--report", str(tmp_path / f"r{i}")], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    errs = [p.communicate(timeout=600)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    computed = [int(re.search(r"(\d+) tasks computed", e).group(1)) for e in errs]
    assert sum(computed) == n, errs  # none computed twice (today: both compute all 24)
    with ResultStore(tmp_path / "s.sqlite") as store:
        assert len(store.experiment_keys()) == n
        assert store.db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0
