"""Plain tables as text: CSV (RFC 4180, a header row, numbers as Python writes them, empty for a
missing value), tab-separated text (what a spreadsheet pastes), Markdown and LaTeX.  The experiment
report writes its tables with these, and the window exports and copies its tables with them."""
from __future__ import annotations

import csv
import io
import math
from typing import Sequence

LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def cell_value(value) -> str:
    """A cell as CSV and TSV write it: numbers unformatted (``repr``), booleans as 1/0, nothing for
    None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(columns: Sequence[str], rows: Sequence[Sequence]) -> str:
    """The table as CSV: the header row, then one line per row (``\\r\\n`` ends, fields quoted
    only when they must be, RFC 4180), which ``csv.reader`` and ``pandas.read_csv`` read with
    their defaults."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(list(columns))
    for row in rows:
        w.writerow([cell_value(v) for v in row])
    return out.getvalue()


def tsv_text(columns: Sequence[str] | None, rows: Sequence[Sequence]) -> str:
    """Tab-separated lines (the header first, when given) as a spreadsheet pastes them; tabs and
    line breaks inside a cell become spaces."""
    def line(values):
        return "\t".join(" ".join(cell_value(v).split()) if isinstance(v, str) else cell_value(v) for v in values)

    lines = ([line(columns)] if columns is not None else []) + [line(r) for r in rows]
    return "\n".join(lines) + ("\n" if lines else "")


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured Markdown table's lines (``|`` in a cell escaped)."""
    def line(values):
        return "| " + " | ".join(str(v).replace("|", r"\|").replace("\n", " ") for v in values) + " |"

    return [line(columns), "|---" * len(columns) + "|", *(line(r) for r in rows)]


def latex_escape(text) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def latex_table(columns: Sequence[str], rows: Sequence[Sequence[str]], caption: str | None = None,
                escape: bool = True) -> list[str]:
    """A LaTeX ``table`` with a ``tabular`` (the first column left-aligned, the others right), its
    cells escaped unless ``escape`` is False (cells that hold LaTeX already, e.g. ``\\textbf{}``)."""
    def cells(values):
        return " & ".join(latex_escape(v) if escape else str(v) for v in values) + r" \\"

    lines = [r"\begin{table}[ht]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    lines += [rf"\begin{{tabular}}{{l{'r' * (len(columns) - 1)}}}", r"\hline",
              " & ".join(latex_escape(c) for c in columns) + r" \\", r"\hline", *(cells(r) for r in rows),
              r"\hline", r"\end{tabular}", r"\end{table}"]
    return lines
