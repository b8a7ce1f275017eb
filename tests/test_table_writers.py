"""The table writers behind every export (engine.evaluation.stats.tables, boomer_gui.components.tables):
CSV that ``csv`` and pandas read back cell for cell without options, whatever the cells hold
(commas, quotes, line breaks, tabs, non-ASCII, missing values, full-precision floats); tab-separated
text that splits back into the cells; Markdown and LaTeX with their special characters escaped."""
from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from boomer_gui.components.state import Run
from boomer_gui.components.tables import Table, runs_table, write_runs, write_table
from engine.evaluation.stats.tables import latex_table, markdown_table, tsv_text

AWKWARD = [["a, b", 'say "hi"', 0.1 + 0.2, 1], ["two\nlines", "tab\there", None, 2], ["ünïcödé ±", "#_&%$", 1e-17, 3]]
COLUMNS = ["text", "quoted", "value", "n"]


def test_csv_reads_back_cell_for_cell_with_the_defaults(tmp_path):
    path = tmp_path / "t.csv"
    write_table(path, Table(COLUMNS, AWKWARD))
    rows = list(csv.reader(open(path, newline="", encoding="utf-8")))
    assert rows[0] == COLUMNS
    assert rows[1:] == [["a, b", 'say "hi"', "0.30000000000000004", "1"], ["two\nlines", "tab\there", "", "2"],
                        ["ünïcödé ±", "#_&%$", "1e-17", "3"]]
    frame = pd.read_csv(path)
    assert list(frame.columns) == COLUMNS and list(frame["n"]) == [1, 2, 3]  # no index column
    assert frame["value"][0] == 0.1 + 0.2 and pd.isna(frame["value"][1]) and frame["value"][2] == 1e-17
    assert list(frame["text"]) == ["a, b", "two\nlines", "ünïcödé ±"]
    assert path.read_bytes().count(b"\r\n") == 4  # RFC 4180: CRLF after each record (one inside a quoted cell is LF)


def test_tsv_splits_back_into_the_cells():
    text = tsv_text(COLUMNS, AWKWARD)
    rows = [line.split("\t") for line in text.splitlines()]
    assert rows[0] == COLUMNS and len(rows) == 4 and all(len(r) == 4 for r in rows)
    assert rows[2][:2] == ["two lines", "tab here"] and rows[1][2] == "0.30000000000000004"


def test_markdown_and_latex_escape_their_special_characters():
    md = markdown_table(["a|b", "c"], [["x|y", "1"]])
    assert md == [r"| a\|b | c |", "|---|---|", r"| x\|y | 1 |"]
    tex = "\n".join(latex_table(["data_set", "100%"], [["a&b", "#1"]], caption="x_y"))
    assert r"data\_set & 100\% \\" in tex and r"a\&b & \#1 \\" in tex and r"\caption{x\_y}" in tex
    assert r"\begin{tabular}{lr}" in tex
    with pytest.raises(ValueError, match="use .csv, .md or .tex"):
        write_table("t.xlsx", Table(COLUMNS, AWKWARD))


def test_runs_table_has_a_column_per_setting_and_the_changed_ones_in_short(tmp_path):
    a = Run("boomer: default", "#000", "boomer", {"max_rules": 3, "shrinkage": 0.3}, status="finished", dataset="d",
            elapsed=1.25)
    b = Run("seco: custom", "#111", "seco", {"max_rules": 2, "heuristic": "f-measure"}, status="stopped", dataset="d")
    t = runs_table([a, b])
    assert t.columns[:10] == ["run", "data set", "learner", "steps", "train_hamming", "train_subset", "test_hamming",
                              "test_subset", "seconds", "status"]
    assert t.columns[10:] == ["max_rules", "shrinkage", "heuristic"]
    assert t.rows[0][8:] == [1.25, "finished", 3, 0.3, None] and t.rows[1][10:] == [2, None, "f-measure"]
    short = runs_table([a, b], every_setting=False)
    assert short.columns[-1] == "settings" and short.rows[0][-1] == "max_rules=3"  # shrinkage 0.3 is the default
    write_runs(tmp_path / "runs.csv", [a, b])
    frame = pd.read_csv(tmp_path / "runs.csv")
    assert list(frame["max_rules"]) == [3, 2] and frame["seconds"][0] == 1.25 and pd.isna(frame["seconds"][1])
