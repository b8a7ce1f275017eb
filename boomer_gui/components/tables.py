"""The window's tables as data that leave it, without Qt: the Runs table (every run's losses,
settings and time) and an experiment's results, written as CSV (``csv`` and ``pandas.read_csv``
read it with their defaults: UTF-8, a header row, RFC 4180 quoting, no index column, numbers as
computed), Markdown or LaTeX (the experiment report's table writers), and copied as tab-separated
text."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from engine.fileio import atomic_write_bytes
from engine.evaluation.experiment.report import (RESULT_COLUMNS, ExperimentReport, measure_latex, measure_section,
                                                 result_rows)
from engine.evaluation.stats.tables import csv_text, latex_table, markdown_table, tsv_text
from engine.registry import get as get_learner

TABLE_EXPORT_FILTER = "CSV (*.csv);;Markdown (*.md);;LaTeX (*.tex)"
FORMATS = {"csv": "csv", "md": "md", "markdown": "md", "tex": "tex", "latex": "tex"}
LOSS_COLUMNS = ("train_hamming", "train_subset", "test_hamming", "test_subset")
RUN_COLUMNS = ("run", "data set", "learner", "steps", *LOSS_COLUMNS, "seconds", "status")


@dataclass
class Table:
    """Column names and rows of plain values (text, numbers, None for nothing)."""

    columns: list[str]
    rows: list[list]
    title: str = ""

    def csv(self) -> str:
        return csv_text(self.columns, self.rows)

    def tsv(self) -> str:
        return tsv_text(self.columns, self.rows)

    def markdown(self) -> str:
        text = [_text(v) for v in self.rows]
        return "\n".join(([f"# {self.title}", ""] if self.title else []) + markdown_table(self.columns, text)) + "\n"

    def latex(self) -> str:
        return "\n".join(latex_table(self.columns, [_text(v) for v in self.rows], self.title or None)) + "\n"


def _text(row: Sequence) -> list[str]:
    """A row as Markdown and LaTeX show it: losses with 4 decimals, times with 1."""
    out = []
    for v in row:
        out.append("" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v))
    return out


def export_format(path, fmt: str | None = None) -> str:
    """'csv', 'md' or 'tex' from ``fmt`` or the file's suffix; ValueError naming the choices."""
    name = (fmt or Path(path).suffix.lstrip(".")).lower()
    if name not in FORMATS:
        raise ValueError(f"unknown table format {name or Path(path).name!r}; use .csv, .md or .tex")
    return FORMATS[name]


def write_table(path, table: Table, fmt: str | None = None) -> str:
    """Write ``table`` as CSV, Markdown or LaTeX (by ``fmt`` or the suffix), atomically; the format."""
    fmt = export_format(path, fmt)
    text = {"csv": table.csv, "md": table.markdown, "tex": table.latex}[fmt]()
    atomic_write_bytes(Path(path), text.encode("utf-8"))  # bytes: the CSV's \r\n line ends stay as they are
    return fmt


# ------------------------------------------------------------------------------------- runs
def _steps(run) -> int:
    return len(run) - run.revised


def run_row(run) -> list:
    """A run as the Runs table lists it: name, data set, learner, steps, final losses, seconds, status."""
    losses = run.final_losses()
    return [run.name, run.dataset, run.learner, _steps(run), *(losses.get(k) for k in LOSS_COLUMNS), run.elapsed,
            run.status]


def _defaults(learner: str) -> dict:
    try:
        return get_learner(learner).defaults()
    except ValueError:
        return {}


def changed_settings(run) -> str:
    """The run's parameters that differ from its learner's defaults, 'name=value, …'."""
    defaults = _defaults(run.learner)
    return ", ".join(f"{k}={v}" for k, v in run.params.items() if k not in defaults or defaults[k] != v)


def runs_table(runs: Sequence, every_setting: bool = True) -> Table:
    """The runs as a table: the Runs table's columns (numbers as computed), then either every
    parameter of every run, one column each (empty where a learner has no such parameter), or
    (``every_setting=False``) one 'settings' column of the parameters that differ from the
    learner's defaults."""
    columns = list(RUN_COLUMNS)
    rows = [run_row(r) for r in runs]
    if not every_setting:
        return Table(columns + ["settings"], [row + [changed_settings(r)] for row, r in zip(rows, runs)], "Runs")
    names = list(dict.fromkeys(k for r in runs for k in r.params))
    columns += [n if n not in RUN_COLUMNS else f"parameter {n}" for n in names]
    for row, r in zip(rows, runs):
        row += [_setting(r.params.get(n)) for n in names]
    return Table(columns, rows, "Runs")


def _setting(value):
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def write_runs(path, runs: Sequence, fmt: str | None = None) -> str:
    """The Runs table to a file: CSV with every setting, Markdown and LaTeX with the changed ones."""
    fmt = export_format(path, fmt)
    return write_table(path, runs_table(runs, every_setting=fmt == "csv"), fmt)


def runs_tsv(runs: Sequence) -> str:
    """Runs as tab-separated text (a header row first), for the clipboard."""
    return runs_table(runs, every_setting=False).tsv()


# -------------------------------------------------------------------------------- experiments
def experiment_table(rep: ExperimentReport) -> Table:
    """An experiment's results, one row per data set, learner and measure (the report's results.csv
    with the numbers as computed)."""
    return Table(list(RESULT_COLUMNS), result_rows(rep), rep.name)


def write_experiment_results(path, rep: ExperimentReport, fmt: str | None = None) -> str:
    """An experiment's results to a file: CSV (one row per data set, learner and measure), or every
    measure's table as the report writes it in Markdown (with its statistics) or LaTeX."""
    fmt = export_format(path, fmt)
    if fmt == "csv":
        text = experiment_table(rep).csv()
    elif fmt == "md":
        text = "\n".join([f"# {rep.name}", "", *(line for m in rep.measures for line in measure_section(rep, m))])
    else:
        text = "\n\n".join("\n".join(measure_latex(rep, m)) for m in rep.measures) + "\n"
    atomic_write_bytes(Path(path), text.encode("utf-8"))  # bytes: the CSV's \r\n line ends stay as they are
    return fmt


def shown_rows_tsv(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows of a table as shown (its texts), tab-separated with the header first, for the clipboard."""
    return tsv_text(list(columns), [list(r) for r in rows])
