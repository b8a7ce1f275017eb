"""Tasks of an evaluation: one per (data set, fold, method, configuration group).  A task is a plain
dict (so any Dask worker can run it); :func:`run_task` executes one and returns its
:class:`~engine.evaluation.store.TaskResult`."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import numpy as np

from ..threads import numba_threads
from .data import DataSpec, fingerprint, folds, load_spec
from .methods import SEED, Method, method
from .profiles import Profile
from .store import TaskResult


def task_params(m: Method, p: Profile) -> dict:
    """The profile's settings that change a task's result (its grid point aside)."""
    if m.family == "boomer":
        return {"max_rules": p.max_rules, "rule_step": p.rule_step, "seed": SEED}
    return {"n_trees": p.n_trees, "seed": SEED}


def make_tasks(specs: list[DataSpec], methods: list[Method], p: Profile, threads: int = 1) -> list[dict]:
    tasks = []
    for spec in specs:
        for fold in range(p.n_folds):
            for m in methods:
                for group in m.groups(p):
                    ident = {"dataset": spec.name, "fingerprint": spec.fingerprint, "fold": fold,
                             "n_folds": p.n_folds, "method": m.name, "group": group, "params": task_params(m, p)}
                    key = hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]
                    tasks.append(dict(ident, key=key, files=list(spec.files), profile=p.as_dict(),
                                      threads=threads))
    return tasks


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The engine's commit (``git describe``) when run from a checkout, else the package version."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True,
                             text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("boomer-gui")
    except PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=8)
def _fingerprint(files: tuple[str, ...]) -> str:
    """The files' content hash, read once per worker process (not once per task)."""
    return fingerprint(files)


def run_task(task: dict) -> TaskResult:
    """Fit the task's configuration group on the fold's training rows; predict its test rows."""
    numba_threads(int(task.get("threads", 1)))  # before anything launches Numba's pool
    if _fingerprint(tuple(task["files"])) != task["fingerprint"]:
        raise RuntimeError(f"the worker on {socket.gethostname()} reads different files for {task['dataset']!r}")
    X, Y = load_spec(task["dataset"], tuple(task["files"]))
    train, test = folds(len(Y), task["n_folds"])[task["fold"]]
    p = Profile.from_dict(task["profile"])
    m = method(task["method"])
    start = time.perf_counter()
    P = m.run_group(X[train], Y[train], X[test], task["group"], p)
    seconds = time.perf_counter() - start
    return TaskResult(task["key"], task["dataset"], task["fold"], task["n_folds"], m.name, task["group"],
                      m.configurations(task["group"], p), task["params"], code_version(), seconds,
                      f"{socket.gethostname()}:{os.getpid()}", np.asarray(test, dtype=np.int64), P)
