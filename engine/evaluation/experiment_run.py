"""Runs an experiment's tasks on Dask (a local cluster or a scheduler address), each result committed
to the store as it arrives; a rerun computes only the tasks whose results are not stored."""
from __future__ import annotations

import time
from typing import Callable

from .baselines import require_xgboost
from .candidates import BASELINES
from .data import load_spec
from .experiment_file import Experiment
from .experiment_tasks import make_tasks, run_experiment_task
from .runner import Progress, RunSummary, compute
from .store import ResultStore


def check_runnable(exp: Experiment) -> None:
    if exp.protocol.selection != "nested":
        raise ValueError(f"{exp.path or exp.name}: selection = {exp.protocol.selection!r} is Table 1's BBC-CV, run by "
                         "'python -m engine evaluate --profile'; the experiment command tunes grids by nested "
                         "cross-validation (selection = \"nested\")")


def check_baselines(exp: Experiment) -> None:
    """A clear error before any work when the experiment names an XGBoost baseline and XGBoost (an
    optional dependency) is not installed."""
    keys = sorted({learner.key for learner in exp.learners if learner.key in BASELINES})
    if keys:
        require_xgboost(", ".join(keys))


def plan(exp: Experiment, store: ResultStore) -> tuple[list[dict], list[dict]]:
    """(all tasks, tasks not in the store); records the experiment and the data sets' labels."""
    check_runnable(exp)
    check_baselines(exp)
    for spec in exp.datasets:
        _, Y = load_spec(spec.name, spec.files)
        store.put_dataset(spec.name, spec.fingerprint, spec.files, Y)
    tasks = make_tasks(exp)
    store.set_meta("experiment", {"name": exp.name, "text": exp.text,
                                  "path": str(exp.path.resolve()) if exp.path else None,
                                  "keys": [t["key"] for t in tasks]})
    stored = store.experiment_keys()
    return tasks, [t for t in tasks if t["key"] not in stored]


def run_experiment(exp: Experiment, store: ResultStore, *, scheduler: str | None = None, n_workers: int | None = None,
                   threads: int = 1, stream=None, on_result: Callable | None = None, cancel=None,
                   on_plan: Callable | None = None, on_failure: Callable | None = None) -> RunSummary:
    """Compute every task whose result is not in the store.  ``on_plan(tasks, todo)`` is called
    before any work, ``on_result(result, client)`` after each result is stored, ``on_failure(key,
    traceback)`` after a failed task's traceback is stored."""
    start = time.monotonic()
    tasks, todo = plan(exp, store)
    for t in todo:
        t["threads"] = threads
    if on_plan is not None:
        on_plan(tasks, todo)
    progress = Progress(len(tasks), len(tasks) - len(todo), stream)
    if not todo:
        progress.stream.write(f"all {len(tasks)} tasks are in {store.path}; nothing to compute\n")
        return RunSummary(len(tasks), len(tasks), 0, 0, time.monotonic() - start)
    names = [f"{t['name']}-{t['dataset']}-{t['fold']}-{t['key']}" for t in todo]
    n_failed = compute(todo, run_experiment_task, names, store.put_result, store.put_failure, progress,
                       scheduler=scheduler, n_workers=n_workers, threads=threads, on_result=on_result, cancel=cancel,
                       on_failure=on_failure)
    n_done = len(store.experiment_keys() & {t["key"] for t in todo})
    return RunSummary(len(tasks), len(tasks) - len(todo), n_done, n_failed, time.monotonic() - start)
