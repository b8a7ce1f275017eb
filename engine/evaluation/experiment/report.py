"""An experiment's report, rebuilt from its file and the store alone: per data set, learner and
measure the mean and standard deviation (``np.std``, over the outer folds) of the configuration the
inner cross-validation selected in each fold; ranks, Friedman / Iman-Davenport, the Nemenyi CD and
Wilcoxon tests against the best; written as ``results.csv``, ``results.md``, ``results.tex`` (the
tables in LaTeX), ``failures.txt`` (the tracebacks of failed tasks), ``cd_<measure>.png`` (two or
more complete data sets) and ``curves_<data set>.png`` (test losses against the number of
rules, or steps, of the learners that stream them: Hamming and subset 0/1 loss, or a regression
experiment's MSE and MAE).  Ranks and tests follow each measure's direction (R²: higher is better)."""
from __future__ import annotations

import csv
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .bbc_selection import bbc_values
from .candidates import candidate
from .file import Experiment
from .tasks import make_tasks, n_splits, tune_measure
from .scoring import evaluate, measure
from ..stats.statistics import critical_distance, friedman, ranks, wilcoxon
from ..store import ResultStore
from ..stats.tables import latex_escape, latex_table, markdown_table


@dataclass
class Cell:
    """One (data set, learner): per measure the value of every outer fold (None: does not apply); under
    BBC-CV the out-of-bag value of every bootstrap (costs: per fold, of the most selected configuration)."""

    folds: dict[str, list]
    selected: list[dict]  # the configuration chosen in each fold (each bootstrap under BBC-CV)
    curves: list[list]  # per fold, the selected configuration's [[size, Hamming, subset 0/1] (MSE, MAE), ...]
    unit: str = ""  # of model-size: rules, trees, experts, ...
    noun: str = "rule"  # what a step of the learner adds (the x axis of its curve)

    def applies(self, m: str) -> bool:
        return all(v is not None for v in self.folds[m])

    def mean(self, m: str) -> float:
        return float(np.nanmean(self.folds[m])) if self.applies(m) else math.nan

    def std(self, m: str) -> float:
        return float(np.nanstd(self.folds[m])) if self.applies(m) else math.nan


@dataclass
class ExperimentReport:
    name: str
    datasets: list[str]
    learners: list[str]
    measures: tuple[str, ...]
    n_folds: int
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    n_tasks: int = 0
    n_done: int = 0
    failures: list[tuple[dict, str]] = field(default_factory=list)  # (task, traceback) of tasks not computed
    bootstraps: int = 0  # BBC-CV's B (0: nested cross-validation selected per fold)
    task: str = "classification"  # or "regression" (its curves: test MSE and MAE)

    def failure_rows(self) -> list[list]:
        """[data set, fold (1-based), learner, configuration, the error's last line] per failed task."""
        return [[t["dataset"], t["fold"] + 1, t["name"], ", ".join(f"{k}={v}" for k, v in sorted(t["config"].items())),
                 last_line(error)] for t, error in self.failures]

    def value(self, m: str, d: str, learner: str) -> float:
        cell = self.cells.get((d, learner))
        return math.nan if cell is None else cell.mean(m)

    def row(self, m: str, d: str) -> tuple[list[float], float]:
        """(the learners' means on data set ``d``, NaN where missing; the best of them)."""
        values = [self.value(m, d, lr) for lr in self.learners]
        finite = [v for v in values if not math.isnan(v)]
        return values, ((max if measure(m).higher_is_better else min)(finite) if finite else math.nan)

    def not_applicable(self) -> dict[str, list[str]]:
        """Learner -> the measures that do not apply to it (no scores, no rules)."""
        out: dict[str, list[str]] = defaultdict(list)
        for (d, learner), cell in self.cells.items():
            for m in self.measures:
                if not cell.applies(m) and m not in out[learner]:
                    out[learner].append(m)
        return dict(out)

    def ranked(self, m: str) -> tuple[list[str], list[str], np.ndarray]:
        """(complete data sets, learners the measure applies to, values data sets x learners): the
        table that ranks and tests are computed on."""
        learners = [lr for lr in self.learners if not any(
            (d, lr) in self.cells and not self.cells[(d, lr)].applies(m) for d in self.datasets)]
        if m == "model-size":  # sizes in other units than rules are not compared
            learners = [lr for lr in learners if all(c.unit == "rules" for (d, x), c in self.cells.items() if x == lr)]
        done = [d for d in self.datasets if all((d, lr) in self.cells for lr in learners)]
        V = np.array([[self.value(m, d, lr) for lr in learners] for d in done]).reshape(len(done), len(learners))
        keep = [i for i in range(len(done)) if not np.isnan(V[i]).any()]
        return [done[i] for i in keep], learners, V[keep]


def build_experiment_report(exp: Experiment, store: ResultStore) -> ExperimentReport:
    tasks = make_tasks(exp)
    results = store.results(t["key"] for t in tasks)
    p = exp.protocol
    rep = ExperimentReport(exp.name, [s.name for s in exp.datasets], [e.name for e in exp.learners], exp.measures,
                           n_splits(p), n_tasks=len(tasks), n_done=len(results),
                           bootstraps=p.bootstraps if p.selection == "bbc-cv" else 0, task=exp.task)
    groups: dict[tuple, list] = defaultdict(list)
    for t in tasks:
        groups[(t["dataset"], t["name"], t["fold"])].append(t)
    failed = dict(store.failures())  # each key's last attempt
    rep.failures = [(t, failed[t["key"]]) for t in tasks if t["key"] in failed and t["key"] not in results]
    for d in rep.datasets:
        Y = store.dataset_labels(d)
        for entry in exp.learners:
            folds = [[results.get(t["key"]) for t in groups[(d, entry.name, fold)]] for fold in range(rep.n_folds)]
            if any(r is None for found in folds for r in found):
                continue  # reported once every fold is in
            rep.cells[(d, entry.name)] = _cell(exp, entry, Y, folds)
    return rep


def _cell(exp: Experiment, entry, Y: np.ndarray, folds: list[list]) -> Cell:
    """The learner's cell from its results (per outer fold, one per configuration): the configuration the
    inner cross-validation selected in each fold, or BBC-CV over the pooled out-of-fold predictions."""
    noun = candidate(entry.key).noun
    if exp.protocol.selection == "bbc-cv":
        per_config = [list(results) for results in zip(*folds)]
        values, selected, top = bbc_values(Y, per_config, tune_measure(exp, entry), exp.measures,
                                           exp.protocol.bootstraps, exp.protocol.seed)
        return Cell(values, selected, [r.curve for r in top], top[0].costs.get("size-unit", ""), noun)
    chosen = [select(found, tune_measure(exp, entry)) for found in folds]
    values = {m: [evaluate(m, Y[r.test_rows], r.predictions, r.scores, r.costs) for r in chosen] for m in exp.measures}
    return Cell(values, [r.config for r in chosen], [r.curve for r in chosen], chosen[0].costs.get("size-unit", ""),
                noun)


def last_line(error: str) -> str:
    """A traceback's last non-empty line: the error and its message."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def select(results: list, tune_by: str):
    """The result of the configuration with the best inner-CV value of ``tune_by`` (the first of
    equals; the only one without a grid)."""
    if len(results) == 1:
        return results[0]
    sign = -1.0 if measure(tune_by).higher_is_better else 1.0
    values = [sign * r.inner.get(tune_by, math.nan) for r in results]
    values = [math.inf if math.isnan(v) else v for v in values]
    return results[int(np.argmin(values))]


# ------------------------------------------------------------------------------------ writing
def _fmt(v: float) -> str:
    if math.isnan(v):
        return "—"
    return f"{v:.4f}" if abs(v) < 100 else f"{v:.0f}"


def statistics_lines(rep: ExperimentReport, m: str) -> list[str]:
    done, learners, V = rep.ranked(m)
    if len(done) < 2 or len(learners) < 2:
        return [f"Ranks and tests need two complete data sets and two learners ({len(done)} and {len(learners)})."]
    hib = measure(m).higher_is_better
    avg = ranks(V, hib).mean(axis=0)
    k, N = len(learners), len(done)
    fr = friedman(V, hib)
    best = int(np.argmin(avg))
    pairs = "; ".join(f"{learners[j]} p = {wilcoxon(V[:, best], V[:, j]):.3f}" for j in range(k) if j != best)
    return ["Average ranks over " + f"{N} data sets: " + ", ".join(f"{lr} {a:.2f}" for lr, a in zip(learners, avg)) + ".",
            f"Friedman χ²_F = {fr.chi2:.2f} (df {fr.df[0]}, p = {fr.chi2_p:.4f}); Iman–Davenport F = {fr.f:.2f} "
            f"(df {fr.df[0]}, {fr.df[1]}, p = {fr.f_p:.4f}); Nemenyi CD = {critical_distance(k, N, 0.05):.3f} "
            f"(α = 0.05).",
            f"Wilcoxon signed-rank, {learners[best]} (best average rank) against: {pairs}."]


def measure_rows(rep: ExperimentReport, m: str, bold=lambda text: f"**{text}**") -> list[list[str]]:
    """The measure's table as the report writes it: per data set its name and, per learner, 'mean ±
    std (rank)' (``bold`` around the best of the row), '…' while folds are missing, 'n/a' where the
    measure does not apply."""
    meas = measure(m)
    done, learners, V = rep.ranked(m)
    R = ranks(V, meas.higher_is_better) if len(done) and len(learners) else None
    rows = []
    for d in rep.datasets:
        row, best = rep.row(m, d)
        cells = [d]
        for lr, v in zip(rep.learners, row):
            cell = rep.cells.get((d, lr))
            if cell is None:
                cells.append("…")
                continue
            if not cell.applies(m):
                cells.append("n/a")
                continue
            text = f"{_fmt(v)} ± {_fmt(cell.std(m))}"
            if v == best:
                text = bold(text)
            if R is not None and d in done and lr in learners:
                text += f" ({R[done.index(d)][learners.index(lr)]:g})"
            cells.append(text)
        rows.append(cells)
    return rows


def measure_heading(m: str) -> str:
    meas = measure(m)
    return f"{meas.title} ({m}, {'higher' if meas.higher_is_better else 'lower'} is better)"


def measure_section(rep: ExperimentReport, m: str) -> list[str]:
    meas = measure(m)
    out = [f"### {meas.title} (`{m}`, {'higher' if meas.higher_is_better else 'lower'} is better)", "",
           *markdown_table(["data set", *rep.learners], measure_rows(rep, m))]
    out += ["", *statistics_lines(rep, m), ""]
    return out


def measure_latex(rep: ExperimentReport, m: str) -> list[str]:
    """The measure's table as a LaTeX table (the best of a row in bold, the ranks in parentheses)."""
    rows = [[latex_escape(c).replace("\x00", "\\textbf{").replace("\x01", "}").replace("±", "$\\pm$")
             .replace("…", "\\ldots{}") for c in r]
            for r in measure_rows(rep, m, bold=lambda t: f"\x00{t}\x01")]
    return latex_table([latex_escape(c) for c in ["data set", *rep.learners]], rows, measure_heading(m), escape=False)


def result_rows(rep: ExperimentReport) -> list[list]:
    """Per measure, data set and learner with every fold in: [data set, learner, measure, mean, std,
    rank (None outside the ranked table), folds] with the numbers as computed."""
    out = []
    for m in rep.measures:
        done, learners, V = rep.ranked(m)
        R = ranks(V, measure(m).higher_is_better) if len(done) and len(learners) else None
        for d in rep.datasets:
            for lr in rep.learners:
                cell = rep.cells.get((d, lr))
                if cell is None or not cell.applies(m):
                    continue
                rank = float(R[done.index(d)][learners.index(lr)]) if R is not None and d in done and lr in learners \
                    else None
                out.append([d, lr, m, cell.mean(m), cell.std(m), rank, len(cell.folds[m])])
    return out


RESULT_COLUMNS = ["dataset", "learner", "measure", "mean", "std", "rank", "folds"]


def write_csv(rep: ExperimentReport, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as stream:
        w = csv.writer(stream)
        w.writerow(RESULT_COLUMNS)
        for d, lr, m, mean, std, rank, n in result_rows(rep):
            w.writerow([d, lr, m, f"{mean:.6g}", f"{std:.6g}", "" if rank is None else rank, n])


def mean_curve(curves: list[list]) -> np.ndarray | None:
    """The folds' curves averaged step by step over the steps every fold has: (steps x 3) or None."""
    curves = [np.asarray(c, dtype=np.float64) for c in curves if len(c)]
    if not curves:
        return None
    n = min(len(c) for c in curves)
    return np.mean([c[:n] for c in curves], axis=0)


def save_curves(rep: ExperimentReport, dataset: str, path: Path) -> bool:
    """Test Hamming and subset 0/1 loss (regression: MSE and MAE) against the model size of every
    streaming learner."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lines = [(lr, rep.cells[(dataset, lr)].noun, mean_curve(rep.cells[(dataset, lr)].curves))
             for lr in rep.learners if (dataset, lr) in rep.cells]
    lines = [x for x in lines if x[2] is not None]
    if not lines:
        return False
    fig = Figure(figsize=(9.0, 3.6), dpi=110)
    FigureCanvasAgg(fig)
    titles = (("Mean squared error (test)", "Mean absolute error (test)") if rep.task == "regression" else
              ("Hamming loss (test)", "Subset 0/1 loss (test)"))
    for i, title in enumerate(titles):
        ax = fig.add_subplot(1, 2, i + 1)
        for lr, unit, c in lines:
            ax.plot(c[:, 0], c[:, i + 1], label=f"{lr} ({unit}s)" if unit != "rule" else lr,
                    marker="." if len(c) < 30 else None)
        ax.set_xscale("log")
        ax.set_xlabel("rules (or steps)")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    fig.axes[0].legend(fontsize=7)
    fig.suptitle(f"{dataset}: mean over {rep.n_folds} folds", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    return True


def write_experiment_report(rep: ExperimentReport, out_dir) -> list[Path]:
    from ..stats.cd_diagram import save_cd_diagram

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    path = out_dir / "results.csv"
    write_csv(rep, path)
    written.append(path)
    complete = [d for d in rep.datasets if all((d, lr) in rep.cells for lr in rep.learners)]
    how = (f"BBC-CV over the pooled out-of-fold predictions of {rep.n_folds} folds: mean ± std over {rep.bootstraps} "
           "bootstraps of the out-of-bag value of the configuration selected on the in-bag rows (costs: of the most "
           "selected configuration; measures of label scores do not apply)" if rep.bootstraps else
           f"{rep.n_folds} outer folds; mean ± std over folds of the configuration selected in each fold")
    lines = [f"# {rep.name}", "", f"{how}; {rep.n_done} of {rep.n_tasks} tasks finished; complete data sets: "
             f"{', '.join(complete) or 'none yet'}. Bold: the best of a row; (rank). Ranks and tests over the complete "
             f"data sets and the learners a measure applies to (model sizes: the learners counting rules).", ""]
    na = rep.not_applicable()
    if na:
        lines += ["## Measures that do not apply", ""]
        lines += [f"- {lr}: {', '.join(ms)}" for lr, ms in na.items()]
        lines.append("")
    if rep.failures:
        lines += ["## Failed tasks", "", f"{len(rep.failures)} task(s) failed (a new run tries them again); the whole "
                  "tracebacks are in failures.txt.", "",
                  *markdown_table(["data set", "fold", "learner", "configuration", "error"], rep.failure_rows()), ""]
    for m in rep.measures:
        lines += measure_section(rep, m)
    lines += ["## Model size units and selected configurations", "", "| data set | learner | size unit | selected "
              f"configuration ({'bootstraps' if rep.bootstraps else 'folds'}) |", "|---|---|---|---|"]
    for (d, lr), cell in rep.cells.items():
        chosen = Counter(", ".join(f"{k}={v}" for k, v in sorted(c.items())) for c in cell.selected)
        lines.append(f"| {d} | {lr} | {cell.unit} | " + "; ".join(f"{c} ({n})" for c, n in chosen.most_common()) + " |")
    path = out_dir / "results.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(path)
    path = out_dir / "results.tex"
    path.write_text("\n\n".join("\n".join(measure_latex(rep, m)) for m in rep.measures) + "\n", encoding="utf-8")
    written.append(path)
    if rep.failures:
        path = out_dir / "failures.txt"
        blocks = [f"== {d}, fold {f}, {lr} ({c or 'no grid'}) ==\n{error.rstrip()}\n"
                  for (d, f, lr, c, _), (_, error) in zip(rep.failure_rows(), rep.failures)]
        path.write_text("\n".join(blocks), encoding="utf-8")
        written.append(path)
    for m in rep.measures:
        done, learners, V = rep.ranked(m)
        if len(done) >= 2 and len(learners) >= 2:
            png = out_dir / f"cd_{m}.png"
            save_cd_diagram(png, learners, ranks(V, measure(m).higher_is_better).mean(axis=0),
                            critical_distance(len(learners), len(done), 0.05), f"{measure(m).title}, {len(done)} data sets")
            written.append(png)
    for d in rep.datasets:
        png = out_dir / f"curves_{re.sub(r'[^A-Za-z0-9_.-]', '_', d)}.png"
        if save_curves(rep, d, png):
            written.append(png)
    return written
