"""Benchmark commands write their own history: ``--record`` appends the printed table, dated and
with the command that produced it, to ``docs/benchmarks/<name>.md`` of the checkout (or a file given).

A benchmark prints its table as it measures; :func:`recording` copies what is printed and, when the
command ends normally, appends one section::

    ## 2026-12-07 10:41 UTC — `python -m engine bench --variants defaults`
    ```
    ...the table as printed...
    ```

Nothing is written without ``--record``, and nothing is ever deleted or rewritten: the file is the
dated history of that command's runs, newest last."""
from __future__ import annotations

import contextlib
import datetime
import io
import os
import shlex
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"


def add_record_option(parser) -> None:
    """``--record [FILE]``: append this run's table to the command's history file."""
    parser.add_argument("--record", nargs="?", const="", default=None, metavar="FILE",
                        help="append the printed table, dated, to docs/benchmarks/<command>.md "
                             "(or FILE); nothing is written without it")


def history_file(name: str, given: str | None) -> Path | None:
    """The file ``--record`` writes to: FILE when given, else ``docs/benchmarks/<name>.md`` of the
    checkout (an error when the engine is not run from a checkout with a ``docs/`` folder)."""
    if given is None:
        return None
    if given:
        return Path(given)
    if not DOCS.parent.is_dir():
        raise SystemExit(f"error: --record: no docs/ folder beside the engine ({DOCS.parent}); give a FILE")
    return DOCS / f"{name}.md"


class _Tee(io.TextIOBase):
    def __init__(self, stream):
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:  # progress bars redraw in place only on a terminal
        return False


def section(command: str, text: str, now: datetime.datetime | None = None) -> str:
    """One dated history section: a heading with the time (UTC) and the command, the text verbatim."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    body = text.rstrip("\n").replace("```", "'''")
    return f"\n## {now:%Y-%m-%d %H:%M} UTC — `{command}`\n\n```\n{body}\n```\n"


@contextlib.contextmanager
def recording(name: str, given: str | None, command: str | None = None):
    """Copy what the block prints; append it as a section of the history file when it ends normally."""
    target = history_file(name, given)
    if target is None:
        yield
        return
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield
    if command is None:
        command = " ".join(["python -m " + _module_of(sys.argv[0]), *map(shlex.quote, sys.argv[1:])])
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text(f"# `{name}` runs\n\nWritten by the command's `--record` option, one section a run.\n")
    with open(target, "a", encoding="utf-8") as out:
        out.write(section(command, tee.copy.getvalue()))
    print(f"recorded in {os.path.relpath(target)}")


def _module_of(program: str) -> str:
    """``python -m engine`` or ``python -m engine.bench.x`` from ``sys.argv[0]``."""
    path = Path(program)
    if path.name == "__main__.py":
        return path.parent.name
    if path.suffix == ".py" and path.parent.name == "bench":
        return f"engine.bench.{path.stem}"
    return path.stem
