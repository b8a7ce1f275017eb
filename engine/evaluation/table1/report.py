"""Table 1 rebuilt from a result store alone: pooled out-of-fold predictions per (data set, method),
BBC-CV per cell, ranks, Friedman / Iman-Davenport, Nemenyi CD and Wilcoxon tests, the paper's values
beside ours, the notes' qualitative findings checked; written as ``table1.md``, ``table1.csv`` and
``bootstraps.csv`` (every bootstrap's selection and scores) and ``cd_<measure>.png``."""
from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import paper_table1
from ..stats.bbc_cv import BBCResult, bbc_cv
from ..stats.measures import MEASURES
from .methods import METHODS
from .profiles import Profile
from ..stats.statistics import average_ranks, critical_distance, friedman, ranks, wilcoxon
from ..store import ResultStore


@dataclass
class Cell:
    result: BBCResult
    configurations: list[str]
    fit_seconds: float

    def most_selected(self) -> str:
        c, n = Counter(self.result.selected.tolist()).most_common(1)[0]
        return f"{self.configurations[c]} ({100 * n / len(self.result.selected):.0f} % of bootstraps)"


@dataclass
class Report:
    datasets: list[str]
    methods: list[str]
    n_folds: int
    n_bootstraps: int
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    n_tasks_expected: int = 0
    n_tasks_done: int = 0

    def value(self, measure: str, dataset: str, method: str) -> float:
        cell = self.cells.get((dataset, method))
        return math.nan if cell is None else cell.result.mean[measure]

    def table(self, measure: str) -> np.ndarray:
        return np.array([[self.value(measure, d, m) for m in self.methods] for d in self.datasets])

    def complete_datasets(self) -> list[str]:
        return [d for d in self.datasets if all((d, m) in self.cells for m in self.methods)]


def pooled_predictions(store: ResultStore, dataset: str, method: str, n_folds: int, keys=None):
    """(configuration names, C x N x K out-of-fold predictions, fit seconds) of the configurations
    whose predictions cover every row, or None when no configuration is complete yet."""
    return pool(store.dataset_labels(dataset), store.tasks(dataset, method, n_folds, keys))


def pool(Y: np.ndarray, tasks) -> tuple | None:
    """:func:`pooled_predictions` from the labels and the stored tasks of one (data set, method)."""
    n, K = Y.shape
    if not tasks:
        return None
    for t in tasks:
        if t.predictions.shape[2:] != (K,) or (len(t.test_rows) and not 0 <= t.test_rows.min() <= t.test_rows.max() < n):
            raise ValueError(f"task {t.key!r}: its predictions or test rows do not fit the data set's {n} examples "
                             f"and {K} labels")
    names: dict[str, int] = {}
    for t in sorted(tasks, key=lambda t: (t.fold, t.key)):
        for c in t.configurations:
            names.setdefault(c, len(names))
    ordered = sorted(names, key=names.get)
    P = np.zeros((len(ordered), n, K), dtype=np.uint8)
    covered = np.zeros((len(ordered), n), dtype=bool)
    for t in tasks:
        for i, c in enumerate(t.configurations):
            P[names[c], t.test_rows] = t.predictions[i]
            covered[names[c], t.test_rows] = True
    complete = covered.all(axis=1)
    if not complete.any():
        return None
    return [c for c, ok in zip(ordered, complete) if ok], P[complete], sum(t.seconds for t in tasks)


MAX_BOOTSTRAPS = 100_000  # the paper's B is 100: a store cannot ask for unbounded work


def checked_run(store: ResultStore) -> tuple[dict, Profile]:
    """The store's run description with every field the report reads checked (ValueError naming the
    store and the field): a store is a file a user may hand over, not trusted state."""
    from ... import model_document as checks

    run = store.meta("run")
    if run is None:
        raise ValueError(f"{store.path} holds no evaluation run")
    try:
        run = checks.mapping(run, "run")
        prof = checks.mapping(run.get("profile"), "run, profile")
        fields = {f: prof.get(f) for f in Profile.__dataclass_fields__}
        if set(prof) != set(fields):
            raise ValueError(f"run, profile: fields {sorted(map(str, prof))} are not a profile's")
        for f in ("n_folds", "max_rules", "rule_step", "n_trees", "cc_orders"):
            checks.integer(fields[f], f"run, profile, {f}", 1, 10_000_000)
        checks.integer(fields["n_bootstraps"], "run, profile, n_bootstraps", 1, MAX_BOOTSTRAPS + 1)
        for f in ("shrinkage", "l2", "learning_rate", "reg_lambda"):
            [checks.number(v, f"run, profile, {f}") for v in checks.sequence(fields[f], f"run, profile, {f}")]
        checks.strings(fields["datasets"], "run, profile, datasets")
        checks.string(fields["name"], "run, profile, name")
        checks.strings(run.get("datasets"), "run, datasets")
        checks.strings(run.get("keys"), "run, keys")
        checks.integer(run.get("n_tasks"), "run, n_tasks", 0, 2 ** 62)
        for m in checks.strings(run.get("methods"), "run, methods"):
            checks.choice(m, "run, methods", tuple(METHODS))
    except ValueError as exc:
        raise ValueError(f"{store.path}: {exc}") from None
    return run, Profile.from_dict(prof)


def build_report(store: ResultStore) -> Report:
    run, profile = checked_run(store)
    prof = run["profile"]
    keys = set(run["keys"])
    paper_order = [d for d in paper_table1.DATASETS if d in run["datasets"]]
    datasets = paper_order + [d for d in run["datasets"] if d not in paper_order]  # Table 1's row order
    rep = Report(datasets, run["methods"], prof["n_folds"], prof["n_bootstraps"],
                 n_tasks_expected=run["n_tasks"], n_tasks_done=len(keys & store.finished_keys()))
    for d in rep.datasets:
        Y = store.dataset_labels(d)
        for m in rep.methods:
            tasks = store.tasks(d, m, rep.n_folds, keys)
            if len(tasks) < len(METHODS[m].groups(profile)) * rep.n_folds:
                continue  # a cell is reported once all its tasks are in
            pooled = pool(Y, tasks)
            if pooled is None:
                continue
            names, P, seconds = pooled
            rep.cells[(d, m)] = Cell(bbc_cv(Y, P, METHODS[m].target, rep.n_bootstraps), names, seconds)
    return rep


# ------------------------------------------------------------------------------------- writing
def _fmt(v: float) -> str:
    return "—" if math.isnan(v) else f"{v:.2f}"


def measure_section(rep: Report, measure: str) -> list[str]:
    meas = MEASURES[measure]
    titles = [METHODS[m].title for m in rep.methods]
    out = [f"### {meas.title}", "", "Cells: ours (rank) [paper]; bold = best of the row.", "",
           "| data set | " + " | ".join(titles) + " |", "|---" * (len(titles) + 1) + "|"]
    V = rep.table(measure)
    done = [i for i, d in enumerate(rep.datasets) if d in rep.complete_datasets()]
    R = ranks(V[done], meas.higher_is_better) if done else None
    for i, d in enumerate(rep.datasets):
        row = V[i]
        best = (np.nanmax if meas.higher_is_better else np.nanmin)(row) if not np.all(np.isnan(row)) else math.nan
        cells = []
        for j, m in enumerate(rep.methods):
            text = _fmt(row[j])
            if not math.isnan(row[j]) and row[j] == best:
                text = f"**{text}**"
            if R is not None and i in done:
                text += f" ({R[done.index(i)][j]:g})"
            paper = paper_table1.value(measure, d, m)
            if paper is not None:
                text += f" [{paper:.2f}]"
            cells.append(text)
        out.append(f"| {d} | " + " | ".join(cells) + " |")
    if len(done) >= 2:
        avg = R.mean(axis=0)
        out.append("| **avg. rank** | " + " | ".join(f"{a:.2f}" for a in avg) + " |")
        out.append("")
        k, N = len(rep.methods), len(done)
        if k >= 2:
            fr = friedman(V[done], meas.higher_is_better)
            out.append(f"Over {N} data sets: Friedman χ²_F = {fr.chi2:.2f} (df {fr.df[0]}, p = {fr.chi2_p:.4f}); "
                       f"Iman–Davenport F = {fr.f:.2f} (df {fr.df[0]}, {fr.df[1]}, p = {fr.f_p:.4f}); Nemenyi CD = "
                       f"{critical_distance(k, N, 0.10):.3f} (α = 0.10) / {critical_distance(k, N, 0.05):.3f} "
                       f"(α = 0.05).")
            best_j = int(np.argmin(avg))
            pairs = [f"{titles[j]} p = {wilcoxon(V[done, best_j], V[done, j]):.3f}" for j in range(k) if j != best_j]
            out.append(f"Wilcoxon signed-rank, {titles[best_j]} (best average rank) against: " + "; ".join(pairs) + ".")
    out.append("")
    return out


def findings(rep: Report) -> list[tuple[str, bool | None, str]]:
    """The paper's qualitative findings (SPEC C.8) checked on our table: (statement, holds, detail);
    holds is None when the data sets it needs are not complete."""
    out = []

    def v(meas, d, m):
        return rep.value(meas, d, m)

    def have(ds, ms):
        return all((d, m) in rep.cells for d in ds for m in ms)

    done = rep.complete_datasets()
    for meas in ("subset_01", "example_f1"):
        name = MEASURES[meas].title
        if len(done) >= 2:
            avg = average_ranks(rep.table(meas)[[rep.datasets.index(d) for d in done]], MEASURES[meas].higher_is_better)
            best = rep.methods[int(np.argmin(avg))]
            out.append((f"ex.w. multi has the best average rank in {name}", best == "boomer-exw-complete",
                        f"best: {METHODS[best].title} ({avg.min():.2f})"))
        else:
            out.append((f"ex.w. multi has the best average rank in {name}", None, "fewer than 2 complete data sets"))
    ds = [d for d in rep.datasets if have([d], ["boomer-exw-single", "boomer-exw-complete"])]
    wins = sum(v("subset_01", d, "boomer-exw-complete") < v("subset_01", d, "boomer-exw-single") for d in ds)
    out.append(("ex.w. multi < ex.w. single in subset 0/1 on most data sets", (wins > len(ds) / 2) if ds else None,
                f"{wins} of {len(ds)}"))
    lw = ("boomer-lw-single", "boomer-lw-complete")
    exw = ("boomer-exw-single", "boomer-exw-complete")
    for d in ("medical", "scene", "slashdot"):
        if d in rep.datasets and have([d], lw + exw):
            gaps = [v("subset_01", d, a) - v("subset_01", d, b) for a, b in zip(lw, exw)]  # same head type
            out.append((f"ex.w. ≪ l.w. in subset 0/1 on {d} (by > 2 points for single and for multi heads)",
                        min(gaps) > 2.0, f"l.w. − ex.w.: single {gaps[0]:.2f}, multi {gaps[1]:.2f} points"))
        else:
            out.append((f"ex.w. ≪ l.w. in subset 0/1 on {d} (by > 2 points for single and for multi heads)", None,
                        "not complete"))
    for d in ("emotions", "llog", "yeast"):
        if d in rep.datasets and have([d], rep.methods):
            row = [v("subset_01", d, m) for m in rep.methods]
            rank = ranks([row])[0][rep.methods.index("lp")] if "lp" in rep.methods else math.nan
            out.append((f"LP is strong on {d} (subset 0/1 rank ≤ 2)", bool(rank <= 2), f"rank {rank:g}"))
        else:
            out.append((f"LP is strong on {d} (subset 0/1 rank ≤ 2)", None, "not complete"))
    if len(done) >= 2 and {"br", *lw} <= set(rep.methods):
        avg = average_ranks(rep.table("hamming")[[rep.datasets.index(d) for d in done]])
        k, N = len(rep.methods), len(done)
        cd = critical_distance(k, N, 0.05)
        comp = [rep.methods.index(m) for m in ("br", *lw)]
        ok = all(avg[j] - avg.min() < cd for j in comp)
        out.append(("l.w. and BR are competitive in Hamming (within the CD of the best)", ok,
                    ", ".join(f"{METHODS[rep.methods[j]].title} {avg[j]:.2f}" for j in comp) + f"; best {avg.min():.2f}"))
    return out


def write_report(rep: Report, out_dir) -> list[Path]:
    from ..stats.cd_diagram import save_cd_diagram

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    done = rep.complete_datasets()
    lines = ["# Table 1, reproduced", "",
             f"{rep.n_folds}-fold out-of-fold predictions, BBC-CV with {rep.n_bootstraps} bootstraps (mean of the "
             f"out-of-bag scores), {rep.n_tasks_done} of {rep.n_tasks_expected} tasks finished; complete data sets: "
             f"{', '.join(done) if done else 'none yet'}. Ranks and tests over the complete data sets only.", ""]
    for meas in MEASURES:
        lines += measure_section(rep, meas)
    lines += ["## The paper's qualitative findings (SPEC C.8)", ""]
    for statement, holds, detail in findings(rep):
        mark = "holds" if holds else ("does not hold" if holds is not None else "not yet decidable")
        lines.append(f"- {statement}: **{mark}** ({detail})")
    lines += ["", "## Selected configurations (most frequent over bootstraps) and fit time", "",
              "| data set | method | configurations | most selected | fit s (all folds) |", "|---|---|---|---|---|"]
    for (d, m), cell in sorted(rep.cells.items()):
        lines.append(f"| {d} | {m} | {len(cell.configurations)} | {cell.most_selected()} | {cell.fit_seconds:.0f} |")
    md = out_dir / "table1.md"
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(md)
    path = out_dir / "table1.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        w = csv.writer(stream)
        w.writerow(["measure", "dataset", "method", "value", "std_over_bootstraps", "rank", "paper_value",
                    "configurations", "most_selected", "fit_seconds"])
        for meas in MEASURES:
            V = rep.table(meas)
            R = ranks(V[[rep.datasets.index(d) for d in done]], MEASURES[meas].higher_is_better) if done else None
            for i, d in enumerate(rep.datasets):
                for j, m in enumerate(rep.methods):
                    cell = rep.cells.get((d, m))
                    rank = R[done.index(d)][j] if R is not None and d in done else ""
                    paper = paper_table1.value(meas, d, m)
                    w.writerow([meas, d, m, "" if cell is None else f"{V[i, j]:.4f}",
                                "" if cell is None else f"{np.std(cell.result.scores[meas]):.4f}", rank,
                                "" if paper is None else paper, "" if cell is None else len(cell.configurations),
                                "" if cell is None else cell.most_selected(),
                                "" if cell is None else f"{cell.fit_seconds:.1f}"])
    written.append(path)
    path = out_dir / "bootstraps.csv"  # every bootstrap's selection and out-of-bag scores
    with open(path, "w", newline="", encoding="utf-8") as stream:
        w = csv.writer(stream)
        w.writerow(["dataset", "method", "bootstrap", "selected_configuration", *MEASURES])
        for (d, m), cell in sorted(rep.cells.items()):
            for b, c in enumerate(cell.result.selected):
                w.writerow([d, m, b, cell.configurations[c], *(f"{cell.result.scores[x][b]:.4f}" for x in MEASURES)])
    written.append(path)
    if len(done) >= 2:
        titles = [METHODS[m].title for m in rep.methods]
        for meas in MEASURES:
            avg = average_ranks(rep.table(meas)[[rep.datasets.index(d) for d in done]], MEASURES[meas].higher_is_better)
            png = out_dir / f"cd_{meas}.png"
            save_cd_diagram(png, titles, avg, critical_distance(len(titles), len(done), 0.05),
                            f"{MEASURES[meas].title}, {len(done)} data sets")
            written.append(png)
    return written


# ------------------------------------------------------------------------------ for viewers
@dataclass
class MeasureView:
    """One measure's table as a viewer shows it: values, ranks (NaN where a data set is incomplete),
    the best of each row, average ranks and the Nemenyi CD over the complete data sets."""

    measure: str
    title: str
    datasets: list[str]
    methods: list[str]  # the paper's column titles
    values: np.ndarray  # datasets x methods, NaN = not finished
    ranks: np.ndarray
    best: np.ndarray  # bool
    average_ranks: np.ndarray | None
    critical_distance: float | None
    n_complete: int
    method_keys: list[str] = field(default_factory=list)  # the methods' names (boomer-lw-single, ...)


def measure_view(rep: Report, measure: str) -> MeasureView:
    meas = MEASURES[measure]
    V = rep.table(measure)
    R = np.full(V.shape, np.nan)
    done = [rep.datasets.index(d) for d in rep.complete_datasets()]
    if done:
        R[done] = ranks(V[done], meas.higher_is_better)
    best = np.zeros(V.shape, dtype=bool)
    for i, row in enumerate(V):
        if not np.all(np.isnan(row)):
            best[i] = row == (np.nanmax(row) if meas.higher_is_better else np.nanmin(row))
    avg = R[done].mean(axis=0) if len(done) >= 2 else None
    cd = critical_distance(len(rep.methods), len(done), 0.05) if len(done) >= 2 else None
    return MeasureView(measure, meas.title, list(rep.datasets), [METHODS[m].title for m in rep.methods], V, R, best,
                       avg, cd, len(done), list(rep.methods))
