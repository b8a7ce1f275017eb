"""The paper's Table 1 (Rapp et al. 2020, Sect. 5.2) as an experiment: ``python -m engine evaluate``
runs a profile's experiment file (``experiments/table1_<profile>.toml``: BOOMER's four presets and
XGBoost BR, LP, CC, selected by BBC-CV over every configuration and every prefix of BOOMER's
models) through the experimenter, and reports it twice from the store: the experimenter's report and
Table 1's (:mod:`.report`: the paper's values beside ours, its findings checked).  Stores written by
the earlier Table 1 runner (a ``tasks`` table) are still read."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..stats.bbc_cv import bbc_cv
from ..experiment.bbc_selection import pooled
from ..data import resolve
from ..experiment.file import Experiment, load_experiment
from ..experiment.tasks import make_tasks, n_splits
from .methods import METHODS
from .profiles import EXPERIMENTS, PROFILE_MAX_TASKS, PROFILES, method_of, profile_of_experiment
from .report import Cell, Report, build_report, write_report
from ..store import ResultStore

META = "table1"  # the store's record of what `evaluate` ran: profile, methods, data


def profile_file(name: str) -> Path:
    """A shipped profile's experiment file, or a Table 1 experiment file of one's own."""
    if name.endswith(".toml"):
        profile_of_experiment(name)  # ValueError unless it is a Table 1 profile
        return Path(name)
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; expected one of {', '.join(PROFILES)} or a .toml file")
    return EXPERIMENTS / f"table1_{name}.toml"


def table1_experiment(profile: str, methods: list[str] | None = None, data: list[str] | None = None) -> Experiment:
    """The profile's experiment, restricted to ``methods`` (Table 1's names) and run on ``data`` (names or
    files) instead of the profile's data sets when given."""
    exp = load_experiment(profile_file(profile), resolve_data=not data, max_tasks=PROFILE_MAX_TASKS)
    if methods:
        unknown = [m for m in methods if m not in METHODS]
        if unknown or len(set(methods)) != len(methods):
            raise ValueError(f"--methods names {'an unknown method ' + repr(unknown[0]) if unknown else 'a method twice'}"
                             f"; expected some of {', '.join(METHODS)}")
        exp = replace(exp, learners=[e for e in exp.learners if method_of(e) in methods])
    if data:
        specs = [resolve(d) for d in data]
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"two data sets share a name: {', '.join(names)}")
        exp = replace(exp, data=list(data), datasets=specs)
    return exp


def report_from_experiment(exp: Experiment, store: ResultStore) -> Report:
    """Table 1's report of an experiment's results: per (data set, method) BBC-CV over the pooled
    out-of-fold predictions of every configuration, selected by the method's target (SPEC C.2/C.3)."""
    from . import paper_table1

    tasks = make_tasks(exp)
    results = store.results(t["key"] for t in tasks)
    names = [s.name for s in exp.datasets]
    datasets = [d for d in paper_table1.DATASETS if d in names] + [d for d in names if d not in paper_table1.DATASETS]
    rep = Report(datasets, [method_of(e) for e in exp.learners], n_splits(exp.protocol), exp.protocol.bootstraps,
                 n_tasks_expected=len(tasks), n_tasks_done=len(results))
    by_config: dict[tuple, list] = {}  # (data set, learner, configuration) -> its results, fold by fold
    for t in tasks:
        by_config.setdefault((t["dataset"], t["name"], t["configuration"]), []).append(results.get(t["key"]))
    for d in datasets:
        Y = store.dataset_labels(d)
        for entry in exp.learners:
            per_config = [by_config.get((d, entry.name, c), []) for c in range(len(entry.configurations()))]
            if any(r is None for found in per_config for r in found):
                continue  # a cell is reported once all its tasks are in
            configs, P, _ = pooled(Y, per_config)
            method = method_of(entry)
            result = bbc_cv(Y, P, METHODS[method].target, rep.n_bootstraps, seed=exp.protocol.seed)
            labels = [",".join(f"{k}={c[k]}" for k in [*entry.grid, "rules"] if k in c) for c in configs]
            seconds = sum(r.costs.get("fit-time", 0.0) for found in per_config for r in found)
            rep.cells[(d, method)] = Cell(result, labels, seconds)
    return rep


def load_table1_report(store: ResultStore) -> Report:
    """Table 1's report of a store `evaluate` wrote (either runner's)."""
    run = store.meta(META)
    if run is None:
        return build_report(store)  # a store of the earlier runner
    if not (isinstance(run, dict) and isinstance(run.get("profile"), str)):
        raise ValueError(f"{store.path}: its {META!r} record is not a Table 1 run")
    return report_from_experiment(table1_experiment(run["profile"], run.get("methods"), run.get("data")), store)


def write_table1_reports(store: ResultStore, out_dir) -> list[Path]:
    """Table 1's report and, for a run of the experimenter, the experimenter's report beside it."""
    from ..experiment.report import build_experiment_report, write_experiment_report

    written = write_report(load_table1_report(store), out_dir)
    run = store.meta(META)
    if run is not None:
        exp = table1_experiment(run["profile"], run.get("methods"), run.get("data"))
        written += write_experiment_report(build_experiment_report(exp, store), out_dir)
    return written


def load_report(path) -> Report:
    """Table 1's report of the store at ``path`` (opened read-only)."""
    with ResultStore(path, readonly=True) as store:
        return load_table1_report(store)


def store_progress(path) -> tuple[int, int]:
    """(finished, expected) tasks of the store's Table 1 run, either runner's: cheap enough to poll."""
    with ResultStore(path, readonly=True) as store:
        if store.meta(META) is not None:
            run = store.meta("experiment") or {}
            keys = set(run.get("keys") or [])
            return len(keys & store.experiment_keys()), len(keys)
        run = store.meta("run")
        if run is None:
            return 0, 0
        return len(set(run["keys"]) & store.finished_keys()), int(run["n_tasks"])
