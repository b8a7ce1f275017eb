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


class LabelsNotFoundError(DatasetFormatError):
    """The file holds no statement of which attributes are labels (no Mulan XML, no MEKA ``-C n``).

    ``candidates`` names the attributes that could be labels (binary {0,1}), so a user interface
    can offer a choice; load again with ``label_columns=`` or ``xml=``."""

    def __init__(self, path, problem: str, line: int | None = None, candidates=()):
        super().__init__(path, problem, line)
        self.candidates = list(candidates)

    def __reduce__(self):
        return (type(self), (self.path, self.problem, self.line, self.candidates))


class DatasetWarning(UserWarning):
    """A data file loaded, but something about it deserves a look (e.g. a stale MEKA header)."""
