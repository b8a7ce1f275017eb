"""Tasks of an experiment: one per (data set, fold, learner, configuration), a plain dict any Dask
worker can run.  A task fits the configuration on the fold's training rows (after an inner
cross-validation of those rows when the learner has a grid to tune), predicts the test rows' label
sets and scores (a regressor: their target values, float64), times both, measures the model, and keeps
a streaming learner's test losses after every step (its loss against the number of rules: Hamming and
subset 0/1 loss, or for a regressor the ``test_mse`` and ``test_mae`` its steps report)."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from dataclasses import asdict

import numpy as np
import scipy.sparse as sp

from ...threads import numba_threads
from .candidates import candidate
from ..data import fingerprint, load_parts
from .file import Experiment, Protocol
from .prefixes import prefix_predictions, prefix_sizes
from .scoring import COST, REGRESSION, evaluate, measure, measures_of
from ..store import ExperimentResult
from .stratify import stratified_folds, stratified_split

TASK_FORMAT = 1
DENSE_LIMIT = 50_000_000  # attribute values up to which a sparse data set is given to the learners dense


def splits(protocol: Protocol, Y: np.ndarray, sizes: tuple[int, ...], seed: int | None = None) -> list:
    """(train, test) row indices of the protocol's folds (one pair for train-test)."""
    from sklearn.model_selection import KFold

    seed = protocol.seed if seed is None else seed
    n = Y.shape[0]
    if protocol.kind == "train-test":
        if protocol.test_size is None:
            return [(np.arange(sizes[0]), np.arange(sizes[0], n))]
        if protocol.stratified:
            return [stratified_split(Y, protocol.test_size, seed)]
        order = np.random.default_rng(seed).permutation(n)
        cut = n - int(round(protocol.test_size * n))
        return [(np.sort(order[:cut]), np.sort(order[cut:]))]
    if protocol.stratified:
        return stratified_folds(Y, protocol.folds, seed)
    return list(KFold(n_splits=protocol.folds, shuffle=True, random_state=seed).split(np.arange(n)))


def n_splits(protocol: Protocol) -> int:
    return 1 if protocol.kind == "train-test" else protocol.folds


def tune_measure(exp: Experiment, entry) -> str:
    return entry.tune_by or exp.protocol.tune_by


def make_tasks(exp: Experiment) -> list[dict]:
    """Every task of the experiment, data set by data set (cheap data sets first is the user's order)."""
    p = exp.protocol
    split = {k: v for k, v in asdict(p).items() if k in ("kind", "folds", "stratified", "seed", "test_size")}
    tasks = []
    for spec in exp.datasets:
        for fold in range(n_splits(p)):
            for entry in exp.learners:
                configs = entry.configurations()
                tune = len(configs) > 1 and p.selection == "nested"
                for c, config in enumerate(configs):
                    ident = {"format": TASK_FORMAT, "fingerprint": spec.fingerprint, "split": split, "fold": fold,
                             "learner": entry.key, "config": config, "inner_folds": p.inner_folds if tune else 0}
                    if p.selection == "bbc-cv":  # (nested tasks keep the keys they always had)
                        ident.update(selection="bbc-cv", prefix_step=entry.prefix_step)
                    key = hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:20]
                    tasks.append(dict(ident, key=key, dataset=spec.name, files=list(spec.files), protocol=asdict(p),
                                      name=entry.name, configuration=c, task=exp.task, tune_measures=sorted(
                                          {tune_measure(exp, e) for e in exp.learners})))
    return tasks


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The engine's commit (``git describe``) when run from a checkout, else the package version."""
    root = Path(__file__).resolve().parents[3]
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
    return fingerprint(files)


def model_characteristics(est) -> dict:
    """A rule model's characteristics (mlrl-testbed's model characteristics): rules and conditions
    (the default rule apart), conditions per rule, numeric and nominal conditions, labels per head."""
    rules = getattr(getattr(est, "model_", None), "rules", None)
    if rules is None:
        return {}
    body = [r for r in rules if r.conditions]
    conditions = [c for r in body for c in r.conditions]
    nominal = sum(c.operator in ("==", "!=") for c in conditions)
    heads = [len(r.head_labels) for r in rules]
    return {"rules": len(body), "default-rule": len(body) < len(rules), "conditions": len(conditions),
            "conditions-per-rule": len(conditions) / len(body) if body else 0.0,
            "numeric-conditions": len(conditions) - nominal, "nominal-conditions": nominal,
            "labels-per-head": float(np.mean(heads)) if heads else 0.0}


def model_size(est) -> dict:
    """``model-size`` (rules; else the learner's own unit, named in ``size-unit``) and, for rule
    learners, ``conditions``."""
    model = getattr(est, "model_", None)
    rules = getattr(model, "rules", None)
    if rules is not None:
        return {"model-size": len(rules), "size-unit": "rules", "conditions": sum(len(r.conditions) for r in rules)}
    if hasattr(est, "tree_"):  # a scikit-learn decision tree
        return {"model-size": int(est.tree_.n_leaves), "size-unit": "leaves"}
    if hasattr(est, "mixture_"):
        return {"model-size": int(est.mixture_.n_experts), "size-unit": "experts"}
    if hasattr(est, "coef_"):
        coef = est.coef_ if not isinstance(est.coef_, list) else np.concatenate([np.ravel(c) for c in est.coef_])
        return {"model-size": int(np.count_nonzero(coef)), "size-unit": "non-zero coefficients"}
    models = getattr(est, "models_", None)
    if models is not None:  # XGBoost BR / CC: trees of the label models that are not constant
        trees = sum(m.model.n_estimators for m in models if m.constant is None)
        return {"model-size": int(trees), "size-unit": "trees"}
    if hasattr(est, "model_"):
        return {"model-size": int(getattr(est.model_, "n_estimators", 0) * max(1, len(est.label_sets_))),
                "size-unit": "trees"}
    return {}


def _scores(est, X) -> np.ndarray | None:
    for method in ("decision_function", "predict_proba"):
        f = getattr(est, method, None)
        if f is not None:
            S = np.asarray(f(X), dtype=np.float64)
            return S if S.ndim == 2 else None
    return None


def fit_predict(key: str, config: dict, X_train, Y_train, X_test, Y_test=None, curve: list | None = None,
                prefix_step: int | None = None, text: list | None = None):
    """Fit a configuration; (test predictions, scores or None, costs).  With ``curve`` (a list) and a
    streaming learner, the test losses after each step are appended as [size, Hamming, subset 0/1].
    With ``prefix_step``, the predictions are those of every prefix of ``prefix_step``, 2·``prefix_step``,
    … rules up to ``config["max_rules"]`` (prefixes x N_test x K; their sizes in ``costs["prefixes"]``).
    With ``text`` (a list), the model's rules as text are appended (rule learners).  A regressor's
    predictions are float64 target values (N_test x T)."""
    cand = candidate(key)
    est = cand.make(config)
    start = time.perf_counter()
    if cand.streams and curve is not None and Y_test is not None:
        _stream(est, X_train, Y_train, X_test, Y_test, curve, cand.task == REGRESSION)
    else:
        est.fit(X_train, Y_train)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    sizes = prefix_sizes(int(config["max_rules"]), prefix_step) if prefix_step else None
    if cand.task == REGRESSION:
        P = np.asarray(est.predict(X_test), dtype=np.float64).reshape(X_test.shape[0], -1)
    else:
        P = prefix_predictions(est, X_test, sizes) if sizes else np.asarray(est.predict(X_test), dtype=np.uint8)
    predict_seconds = time.perf_counter() - start
    S = _scores(est, X_test) if cand.scores else None
    costs = {"fit-time": fit_seconds, "predict-time": predict_seconds, **model_size(est)}
    characteristics = model_characteristics(est)
    if characteristics:
        costs["characteristics"] = characteristics
        if text is not None:
            from ...model_export import model_text
            text.append(model_text(est))
    return P, S, (costs if sizes is None else {**costs, "prefixes": sizes})


def _stream(est, X_train, Y_train, X_test, Y_test, curve: list, regression: bool) -> None:
    """Fit by ``fit_iter``, appending [size, test loss, test loss] after each step that reports them:
    Hamming and subset 0/1 loss, or a regressor's MSE and MAE."""
    names = ("test_mse", "test_mae") if regression else ("test_hamming", "test_subset")
    size = 0
    for step in est.fit_iter(X_train, Y_train, X_test, Y_test):
        rules = getattr(step, "rules", None)
        size = size + len(rules) if rules is not None else step.index + 1
        m = step.metrics
        if names[0] in m and names[1] in m:
            curve.append([size, float(m[names[0]]), float(m[names[1]])])


def inner_scores(task: dict, X, Y) -> dict:
    """The configuration's measures on the inner cross-validation of a training fold."""
    p = Protocol(**task["protocol"])
    inner = Protocol(**{**task["protocol"], "kind": "cross-validation", "folds": task["inner_folds"]})
    regression = task.get("task") == REGRESSION
    P = np.zeros(Y.shape, dtype=np.float64 if regression else np.uint8)
    S = np.zeros(Y.shape)
    has_scores = True
    for train, test in splits(inner, Y, (len(Y),), seed=p.seed + 1 + task["fold"]):
        Pi, Si, _ = fit_predict(task["learner"], task["config"], X[train], Y[train], X[test])
        P[test] = Pi
        has_scores = has_scores and Si is not None
        if Si is not None:
            S[test] = Si
    names = [n for n in dict.fromkeys([*measures_of(task.get("task")), *task["tune_measures"]])
             if measure(n).needs != COST]
    values = {n: evaluate(n, Y, P, S if has_scores else None) for n in names}
    return {n: v for n, v in values.items() if v is not None}


def load_task_data(task: dict):
    """(X, Y, rows per file) of the task's data set, dense when small enough."""
    if _fingerprint(tuple(task["files"])) != task["fingerprint"]:
        raise RuntimeError(f"the worker on {socket.gethostname()} reads different files for {task['dataset']!r}")
    X, Y, sizes = load_parts(task["dataset"], tuple(task["files"]))
    if sp.issparse(X) and X.shape[0] * X.shape[1] <= DENSE_LIMIT:
        X = np.ascontiguousarray(X.toarray(), dtype=np.float32)
    return X, Y, sizes


def run_experiment_task(task: dict) -> ExperimentResult:
    """Run one task (on any worker)."""
    numba_threads(int(task.get("threads", 1)))  # before anything launches Numba's pool
    X, Y, sizes = load_task_data(task)
    p = Protocol(**task["protocol"])
    train, test = splits(p, Y, sizes)[task["fold"]]
    inner = inner_scores(task, X[train], Y[train]) if task["inner_folds"] else {}
    curve: list = []
    text: list | None = [] if task.get("save_rules") else None
    P, S, costs = fit_predict(task["learner"], task["config"], X[train], Y[train], X[test], Y[test], curve,
                              task.get("prefix_step"), text)
    return ExperimentResult(task["key"], task["dataset"], task["fold"], task["learner"], task["config"], inner, costs,
                            curve, code_version(), f"{socket.gethostname()}:{os.getpid()}",
                            np.asarray(test, dtype=np.int64), P, None if S is None else S.astype(np.float32),
                            text[0] if text else None)
