"""The Experiment tab's Qt-free model: an experiment being edited (data files, learners with their
parameters and grids, the protocol), written to and read from the experiment file format of
``python -m engine experiment``; running it (blocking, for a worker thread) into a result store
that a later run resumes; and the results as plain tables for the view.  No learning math here:
the engine parses, runs and reports."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from engine.evaluation.experiment.candidates import Candidate, candidates
from engine.evaluation.stats.cd_diagram import cd_figure
from engine.evaluation.experiment.file import Experiment, load_experiment, parse_experiment
from engine.evaluation.experiment.report import (ExperimentReport, build_experiment_report, last_line,
                                                  write_experiment_report)
from engine.evaluation.experiment.run import run_experiment
from engine.evaluation.experiment.tasks import make_tasks
from engine.evaluation.experiment.scoring import ALL_MEASURES, COST, measure
from engine.evaluation.stats.statistics import critical_distance, ranks
from engine.evaluation.store import ResultStore
from engine.fileio import atomic_write_text


def learner_choices() -> dict[str, Candidate]:
    """Every learner a classification experiment can use (registry keys and the XGBoost baselines), by
    key; the tab drafts classification experiments only (regression ones are files run by the command)."""
    return {key: c for key, c in candidates().items() if c.task == "classification"}


def prediction_measures() -> list[str]:
    """The measures a grid can be tuned by (not the costs)."""
    return [m for m in ALL_MEASURES if measure(m).needs != COST]


@dataclass
class LearnerRow:
    key: str
    name: str
    preset: str | None = None
    params: dict = field(default_factory=dict)  # as the user set them (the preset's come on top in the engine)
    grid: dict = field(default_factory=dict)


@dataclass
class Draft:
    """An experiment as the tab edits it."""

    name: str = "experiment"
    data: list[str] = field(default_factory=list)
    learners: list[LearnerRow] = field(default_factory=list)
    measures: list[str] | None = None  # None: all
    folds: int = 3
    stratified: bool = True
    seed: int = 1
    inner_folds: int = 2
    tune_by: str = "hamming"

    def add_learner(self, key: str, preset: str | None = None) -> LearnerRow:
        base = preset or key
        names = {r.name for r in self.learners}
        name = base if base not in names else next(f"{base} #{i}" for i in range(2, 10_000) if f"{base} #{i}" not in names)
        row = LearnerRow(key, name, preset)
        self.learners.append(row)
        return row

    def to_toml(self, relative_to: Path | None = None) -> str:
        """The experiment file's text (data paths relative to ``relative_to`` where possible)."""
        data = [_relative(d, relative_to) for d in self.data]
        lines = [f"name = {_toml(self.name)}", f"data = {_toml(data)}"]
        if self.measures is not None:
            lines.append(f"measures = {_toml(self.measures)}")
        lines += ["", "[protocol]", 'kind = "cross-validation"', f"folds = {self.folds}",
                  f"stratified = {_toml(self.stratified)}", f"seed = {self.seed}", f"inner_folds = {self.inner_folds}",
                  f"tune_by = {_toml(self.tune_by)}"]
        for row in self.learners:
            lines += ["", "[[learner]]", f"key = {_toml(row.key)}", f"name = {_toml(row.name)}"]
            if row.preset:
                lines.append(f"preset = {_toml(row.preset)}")
            if row.params:
                lines.append(f"params = {_toml(row.params)}")
            if row.grid:
                lines.append(f"grid = {_toml(row.grid)}")
        return "\n".join(lines) + "\n"

    def check(self, path: Path | None = None) -> Experiment:
        """The engine's reading of the draft (ExperimentError naming the line of a mistake)."""
        return parse_experiment(self.to_toml(path.parent if path else None), path)

    def save(self, path) -> Experiment:
        """Check, then write the experiment file (atomically); the checked experiment."""
        path = Path(path)
        exp = self.check(path)
        atomic_write_text(path, self.to_toml(path.parent))
        return exp


def open_draft(path) -> Draft:
    """A draft from an experiment file (checked by the engine; ExperimentError naming the line)."""
    path = Path(path)
    exp = load_experiment(path, resolve_data=False)
    p = exp.protocol
    rows = []
    text_params = _file_learner_tables(exp.text)
    for entry, (params, grid) in zip(exp.learners, text_params):
        rows.append(LearnerRow(entry.key, entry.name, entry.preset, params, grid))
    data = [d if not (path.parent / d).exists() else str((path.parent / d).resolve()) for d in exp.data]
    return Draft(exp.name, data, rows, list(exp.measures) if "measures" in _top_keys(exp.text) else None,
                 p.folds, p.stratified, p.seed, p.inner_folds, p.tune_by)


def default_store(experiment_path) -> Path:
    """Where the tab keeps an experiment's results: beside its file, so a later session resumes."""
    path = Path(experiment_path)
    return path.with_suffix(".sqlite")


# --------------------------------------------------------------------------------- running
@dataclass
class TaskRow:
    key: str
    dataset: str
    fold: int
    learner: str
    configuration: str
    status: str  # 'queued', 'stored', 'done', 'failed'
    error: str = ""  # a failed task's whole traceback (the worker's); its last line says what went wrong

    @property
    def reason(self) -> str:
        return last_line(self.error)


def task_rows(tasks: list[dict], stored: set[str], failures: dict[str, str] | None = None) -> list[TaskRow]:
    """The tasks as the view lists them; a configuration names the values of its learner's grid.  A
    task not stored whose last attempt failed (``failures``: key -> traceback) is 'failed', with its
    traceback (a new run tries it again)."""
    failures = failures or {}
    varying: dict[str, set] = {}
    for t in tasks:
        first = next(u["config"] for u in tasks if u["name"] == t["name"])
        varying.setdefault(t["name"], set()).update(k for k, v in t["config"].items() if first.get(k) != v)
    return [TaskRow(t["key"], t["dataset"], t["fold"], t["name"],
                    ", ".join(f"{k}={t['config'][k]}" for k in sorted(varying[t["name"]])) or "—",
                    "stored" if t["key"] in stored else "failed" if t["key"] in failures else "queued",
                    "" if t["key"] in stored else failures.get(t["key"], "")) for t in tasks]


def run(exp: Experiment, store_path, emit: Callable[[str, Any], None], *, scheduler: str | None = None,
        workers: int | None = None, cancel=None, report_dir=None) -> None:
    """Run (or resume) ``exp`` into the store, blocking: ``emit('plan', [TaskRow])`` before any work,
    ``emit('result', (key, ResultTables))`` as each result is stored, ``emit('failed', (key,
    traceback))`` as a task fails, ``emit('done', (summary, ResultTables))`` at the end (with the
    report written to ``report_dir`` if given)."""
    with ResultStore(store_path) as store:
        def planned(tasks, todo):
            emit("plan", task_rows(tasks, {t["key"] for t in tasks} - {t["key"] for t in todo}))

        def stored(result, client):
            emit("result", (result.key, tables(build_experiment_report(exp, store))))

        summary = run_experiment(exp, store, scheduler=scheduler, n_workers=workers, cancel=cancel, on_plan=planned,
                                 on_result=stored, on_failure=lambda key, error: emit("failed", (key, error)),
                                 stream=_Quiet())
        rep = build_experiment_report(exp, store)
        if report_dir is not None:
            write_experiment_report(rep, report_dir)
        emit("done", (summary, tables(rep)))


def done_text(summary) -> str:
    """The finished experiment's line: what was computed now, what the store already held (not a
    loss: those tasks were computed by an earlier run), what failed, and how long it took."""
    n = summary.n_skipped
    stored = "none stored before" if n == 0 else f"{n} taken from the store (computed before)"
    return (f"{summary.n_done} task{'s' if summary.n_done != 1 else ''} computed, {stored}, "
            f"{summary.n_failed} failed; {summary.seconds:.0f} s")


def stored_tables(exp: Experiment, store_path) -> "ResultTables | None":
    """The results already in a store (None when there is no store yet)."""
    if not Path(store_path).is_file():
        return None
    with ResultStore(store_path, readonly=True) as store:
        return tables(build_experiment_report(exp, store))


def planned_rows(exp: Experiment, store_path) -> list[TaskRow]:
    """Every task of ``exp``, those already in the store marked 'stored' (what a resumed run skips)."""
    stored, failures = set(), {}
    if Path(store_path).is_file():
        with ResultStore(store_path, readonly=True) as store:
            stored = store.experiment_keys()
            failures = dict(store.failures())  # the last attempt's, of each key
    return task_rows(make_tasks(exp), stored, failures)


class _Quiet:
    def write(self, text):
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


# --------------------------------------------------------------------------------- results
@dataclass
class MeasureTable:
    """One measure as the view shows it: 'mean ± std (rank)' per data set and learner, the best of
    each row, average ranks and the Nemenyi CD over the complete data sets."""

    measure: str
    title: str
    datasets: list[str]
    learners: list[str]
    cells: list[list[str]]
    best: list[list[bool]]
    ranked_learners: list[str]
    average_ranks: list[float] | None
    critical_distance: float | None


@dataclass
class ResultTables:
    measures: list[str]
    by_measure: dict[str, MeasureTable]
    n_done: int
    n_tasks: int
    report: ExperimentReport | None = None  # what the tables were made from (exports write it)

    def draw_cd(self, m: str, figure) -> bool:
        """Draw the measure's CD diagram into a matplotlib figure; False (nothing drawn) with fewer
        than two complete data sets."""
        t = self.by_measure.get(m)
        if t is None or t.average_ranks is None:
            return False
        cd_figure(t.ranked_learners, t.average_ranks, t.critical_distance, t.title, fig=figure)
        return True


def tables(rep: ExperimentReport) -> ResultTables:
    out = {}
    failed = {(t["dataset"], t["name"]) for t, _ in rep.failures}
    for m in rep.measures:
        meas = measure(m)
        done, learners, V = rep.ranked(m)
        avg = cd = None
        if len(done) >= 2 and len(learners) >= 2:
            avg = [float(a) for a in ranks(V, meas.higher_is_better).mean(axis=0)]
            cd = critical_distance(len(learners), len(done), 0.05)
        cells, best = [], []
        for d in rep.datasets:
            row, top = rep.row(m, d)
            texts = []
            for lr, v in zip(rep.learners, row):
                cell = rep.cells.get((d, lr))
                if cell is None:  # folds missing: still to come, or failed
                    texts.append("failed" if (d, lr) in failed else "…")
                else:
                    texts.append("n/a" if not cell.applies(m) else f"{v:.3g} ± {cell.std(m):.1g}")
            cells.append(texts)
            best.append([not math.isnan(v) and v == top for v in row])
        out[m] = MeasureTable(m, meas.title, list(rep.datasets), list(rep.learners), cells, best, learners, avg, cd)
    return ResultTables(list(rep.measures), out, rep.n_done, rep.n_tasks, rep)


# --------------------------------------------------------------------------------- helpers
def _relative(path: str, base: Path | None) -> str:
    if base is None or not Path(path).is_absolute():
        return path
    try:
        return str(Path(path).resolve().relative_to(Path(base).resolve()))
    except ValueError:
        return path


def _toml(value) -> str:
    """A TOML value of the kinds an experiment uses: strings, booleans, numbers, lists, tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items() if v is not None) + " }"
    raise ValueError(f"cannot write {value!r} to an experiment file")


def _file_learner_tables(text: str) -> list[tuple[dict, dict]]:
    """Each [[learner]]'s params and grid exactly as the file wrote them (the engine's entries carry
    the preset's values merged in)."""
    import tomllib

    return [(dict(t.get("params", {})), dict(t.get("grid", {}))) for t in tomllib.loads(text).get("learner", [])]


def _top_keys(text: str) -> set:
    import tomllib

    return set(tomllib.loads(text))
