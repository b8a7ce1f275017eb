"""Runs an experiment's tasks on Dask (a local cluster or a scheduler address), each result committed
to the store as it arrives; a rerun computes only the tasks whose results are not stored."""
from __future__ import annotations

import os
import secrets
import socket
import time
from typing import Callable

import numpy as np

from ..baselines import require_xgboost
from .bbc_selection import check_tune_measure
from .candidates import BASELINES, candidate
from ..data import REGRESSION, load_spec, task_of
from .file import Experiment
from .tasks import make_tasks, n_splits, run_experiment_task, tune_measure
from .prefixes import supports_prefixes
from ..runner import Progress, RunSummary, compute
from ..store import ResultStore


def check_runnable(exp: Experiment) -> None:
    """What the file's parser cannot see alone: BBC-CV's needs (out-of-fold predictions of every example,
    a measure that decomposes over examples) and ``prefix_step``'s (BBC-CV, ``max_rules``, a learner
    with incremental prediction, so that its prefixes can be predicted)."""
    where = exp.path or exp.name
    bbc = exp.protocol.selection == "bbc-cv"
    if bbc and exp.protocol.kind != "cross-validation":
        raise ValueError(f"{where}: selection = \"bbc-cv\" pools out-of-fold predictions: it needs kind = "
                         "\"cross-validation\"")
    for entry in exp.learners:
        if bbc:
            check_tune_measure(tune_measure(exp, entry), f"{where}: learner {entry.name!r}")
        if entry.prefix_step is None:
            continue
        problem = ("needs selection = \"bbc-cv\" (its prefixes are configurations BBC-CV selects among)" if not bbc
                   else "needs max_rules in params" if "max_rules" not in entry.params
                   else None if supports_prefixes(candidate(entry.key).make(entry.configurations()[0]))
                   else "needs a rule learner with incremental prediction (BOOMER, AdaBoost.MH, SeCo)")
        if problem:
            raise ValueError(f"{where}: learner {entry.name!r}: prefix_step {problem}")


CLAIM_LEASE_S = 60.0  # a claim not renewed for this long (its process is gone) is free again


class Claims:
    """This run's claims on the store's tasks (see :meth:`ResultStore.claim`): two processes on one
    store compute each task once; ``elsewhere`` counts the tasks another process took first."""

    def __init__(self, store: ResultStore, lease_s: float = CLAIM_LEASE_S, with_model: bool = False):
        self.store, self.lease_s, self.renew_every_s = store, lease_s, lease_s / 6
        self.with_model = with_model  # a stored result without its model text is still to compute
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.mine: set[str] = set()
        self.elsewhere = 0

    def take(self, keys: list[str]) -> list[str]:
        got = self.store.claim(keys, self.owner, self.lease_s, self.with_model)
        self.mine.update(got)
        self.elsewhere += len(keys) - len(got)
        return got

    def renew(self, keys) -> None:
        self.store.renew_claims(keys, self.owner)

    def release(self) -> None:
        self.store.release_claims(sorted(self.mine), self.owner)
        self.mine.clear()


def check_sizes(exp: Experiment, name: str, n: int) -> None:
    """Refuse, before any task, a protocol the data set is too small for (more folds than rows, an
    inner cross-validation with more folds than a training fold's rows, an empty test share)."""
    p = exp.protocol
    where = f"{exp.path or exp.name}: data set {name!r} has {n} example(s)"
    if p.kind == "cross-validation" and n < p.folds:
        raise ValueError(f"{where}: {p.folds}-fold cross-validation needs at least {p.folds}; lower folds in "
                         "[protocol]")
    if p.kind == "train-test" and p.test_size is not None:
        n_test = int(round(p.test_size * n))
        if not 0 < n_test < n:
            raise ValueError(f"{where}: test_size = {p.test_size} leaves {n_test} test and {n - n_test} training "
                             "example(s); both need at least one")
    smallest = n - -(-n // n_splits(p)) if p.kind == "cross-validation" else n
    if any(len(e.configurations()) > 1 for e in exp.learners) and smallest < p.inner_folds:
        raise ValueError(f"{where}: its smallest training fold ({smallest}) is too small for inner_folds = "
                         f"{p.inner_folds} (the grid's tuning); lower inner_folds or folds in [protocol]")


def check_task(exp: Experiment, name: str, Y) -> None:
    """Refuse, before any task, a data set of the other task (real targets in a classification
    experiment, 0/1 labels in a regression one)."""
    task = task_of(Y)
    if task != exp.task:
        what = "real-valued targets" if task == REGRESSION else "0/1 labels (multi-label classification)"
        raise ValueError(f"{exp.path or exp.name}: data set {name!r} has {what}, but the experiment is a {exp.task} "
                         f"experiment (its learners); an experiment is either classification or regression")


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
    labels = []
    for spec in exp.datasets:  # every size is checked before anything is written to the store
        _, Y = load_spec(spec.name, spec.files)
        check_task(exp, spec.name, Y)
        check_sizes(exp, spec.name, int(np.shape(Y)[0]))
        labels.append(Y)
    for spec, Y in zip(exp.datasets, labels):
        store.put_dataset(spec.name, spec.fingerprint, spec.files, Y)
    tasks = make_tasks(exp)
    store.set_meta("experiment", {"name": exp.name, "text": exp.text,
                                  "path": str(exp.path.resolve()) if exp.path else None,
                                  "keys": [t["key"] for t in tasks]})
    stored = store.experiment_keys()
    return tasks, [t for t in tasks if t["key"] not in stored]


def run_experiment(exp: Experiment, store: ResultStore, *, scheduler: str | None = None, n_workers: int | None = None,
                   threads: int = 1, stream=None, on_result: Callable | None = None, cancel=None,
                   on_plan: Callable | None = None, on_failure: Callable | None = None,
                   save_rules: bool = False) -> RunSummary:
    """Compute every task whose result is not in the store (and that no other process running on
    the same store has claimed).  ``on_plan(tasks, todo)`` is called before any work,
    ``on_result(result, client)`` after each result is stored, ``on_failure(key, traceback)`` after a
    failed task's traceback is stored.  ``save_rules``: every task keeps its model as text, and the
    stored results without one are computed again."""
    start = time.monotonic()
    tasks, todo = plan(exp, store)
    if save_rules:
        have, queued = store.model_keys(), {t["key"] for t in todo}
        rules = {e.key for e in exp.learners if candidate(e.key).noun == "rule"}  # the others keep no text
        todo += [t for t in tasks if t["key"] not in queued and t["key"] not in have and t["learner"] in rules]
    for t in todo:
        t["threads"] = threads
        t["save_rules"] = save_rules
    if on_plan is not None:
        on_plan(tasks, todo)
    progress = Progress(len(tasks), len(tasks) - len(todo), stream)
    if not todo:
        progress.stream.write(f"all {len(tasks)} tasks are in {store.path}; nothing to compute\n")
        return RunSummary(len(tasks), len(tasks), 0, 0, time.monotonic() - start)
    names = [f"{t['name']}-{t['dataset']}-{t['fold']}-{t['key']}" for t in todo]
    claims, stored = Claims(store, with_model=save_rules), []

    def put(result) -> None:
        store.put_result(result)
        stored.append(result.key)

    try:
        n_failed = compute(todo, run_experiment_task, names, put, store.put_failure, progress, scheduler=scheduler,
                           n_workers=n_workers, threads=threads, on_result=on_result, cancel=cancel, claims=claims,
                           on_failure=on_failure)
    finally:
        claims.release()
    return RunSummary(len(tasks), len(tasks) - len(todo), len(stored), n_failed, time.monotonic() - start,
                      claims.elsewhere)
