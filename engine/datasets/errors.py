"""The one exception every loader raises for a malformed data file."""
from __future__ import annotations

from pathlib import Path


class DatasetFormatError(ValueError):
    """A data file cannot be read; the message names the file, the line (when known) and the problem,
    e.g. ``"emotions.arff, line 12: expected 78 values, found 77"``."""

    def __init__(self, path, problem: str, line: int | None = None):
        self.path = str(path)
        self.problem = problem
        self.line = line
        where = Path(self.path).name + (f", line {line}" if line else "")
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # keep the exception picklable (worker processes)
        return (type(self), (self.path, self.problem, self.line))
