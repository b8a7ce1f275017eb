"""``--record``: a benchmark command appends its printed table, dated, to its history file."""
import datetime
import re

from engine.bench import record


def test_section_is_dated_and_quotes_the_table():
    now = datetime.datetime(2026, 12, 7, 10, 41, tzinfo=datetime.timezone.utc)
    text = record.section("python -m engine bench", "a  b\n1  2\n", now)
    assert text.startswith("\n## 2026-12-07 10:41 UTC — `python -m engine bench`\n\n```\n")
    assert text.endswith("a  b\n1  2\n```\n")


def test_recording_appends_what_is_printed_and_keeps_history(tmp_path, capsys):
    target = tmp_path / "sub" / "history.md"
    for value in ("first", "second"):
        with record.recording("demo", str(target), "python -m engine.bench.demo --x"):
            print(f"row {value}")
    printed = capsys.readouterr().out
    assert "row first" in printed and "row second" in printed  # still shown on the terminal
    history = target.read_text()
    assert history.count("`python -m engine.bench.demo --x`") == 2
    assert history.index("row first") < history.index("row second")
    assert len(re.findall(r"^## \d{4}-\d\d-\d\d \d\d:\d\d UTC", history, flags=re.M)) == 2


def test_without_record_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(record, "DOCS", tmp_path / "docs" / "benchmarks")
    with record.recording("demo", None):
        print("row")
    assert not (tmp_path / "docs").exists()


def test_a_failing_benchmark_records_nothing(tmp_path):
    target = tmp_path / "history.md"
    try:
        with record.recording("demo", str(target), "cmd"):
            print("partial row")
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert not target.exists()


def test_default_file_is_the_commands_history_in_docs(tmp_path, monkeypatch):
    monkeypatch.setattr(record, "DOCS", tmp_path / "docs" / "benchmarks")
    (tmp_path / "docs").mkdir()
    assert record.history_file("cold_start", "") == tmp_path / "docs" / "benchmarks" / "cold_start.md"
