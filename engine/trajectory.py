"""Trajectories: the training and test losses after every added rule, with the run's settings.

Recorded from the incremental evaluation of ``fit_iter`` (not re-predicted from scratch) and
saved as JSON (settings + columns) or CSV (a ``# settings:`` comment line, then columns)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .fileio import atomic_write_text

COLUMNS = ("rules", "train_hamming", "train_subset", "test_hamming", "test_subset")  # in trajectory files
SERIES = ("coverage", "improvement", "train_hamming", "train_subset", "test_hamming", "test_subset")
LOSSES = ("train_hamming", "train_subset", "test_hamming", "test_subset")


def marker_indices(n_rules: int) -> list[int]:
    """The rule counts Figure 1 marks: 1, 2, 4, ... below ``n_rules``, and ``n_rules`` itself."""
    out, k = [], 1
    while k < n_rules:
        out.append(k)
        k *= 2
    out.append(n_rules)
    return out


def _number(x) -> float:
    return float("nan") if x is None else float(x)


@dataclass
class Trajectory:
    """A run's series, one value per step: each step's coverage and improvement, and the training
    and test losses after it (NaN where no test data were given).  The one series type of the
    project: Figure 1's runs and the application's runs both keep theirs in one."""

    name: str = "run"
    settings: dict = field(default_factory=dict)
    series: dict = field(default_factory=lambda: {k: [] for k in SERIES})
    steps: list = field(default_factory=list)  # each step's record index (the files' ``rules`` column)
    _arrays: dict = field(default_factory=dict, repr=False, compare=False)

    def append(self, record) -> None:
        self.extend((record,))

    def extend(self, records) -> None:
        s = self.series
        for r in records:
            self.steps.append(int(r.index))
            s["coverage"].append(int(r.coverage))
            s["improvement"].append(_number(r.improvement))
            s["train_hamming"].append(_number(r.train_hamming))
            s["train_subset"].append(_number(r.train_subset))
            s["test_hamming"].append(_number(r.test_hamming))
            s["test_subset"].append(_number(r.test_subset))
        self._arrays.clear()

    def column(self, name: str) -> np.ndarray:
        """A series (or ``rules``, the step indices) as a float array, cached until the next append."""
        a = self._arrays.get(name)
        if a is None:
            a = np.asarray(self.steps if name == "rules" else self.series[name], dtype=np.float64)
            self._arrays[name] = a
        return a

    def __len__(self) -> int:
        return len(self.series["train_hamming"])

    def has_test(self) -> bool:
        return len(self) > 0 and not np.isnan(self.column("test_hamming")).all()

    def final_losses(self) -> dict:
        """The losses after the last step (test ones only when there are test data)."""
        if not len(self):
            return {}
        keys = LOSSES if self.has_test() else LOSSES[:2]
        return {k: self.series[k][-1] for k in keys}

    @classmethod
    def from_series(cls, series: dict, name: str = "run", settings: dict | None = None,
                    steps: list | None = None) -> "Trajectory":
        """From columns of equal length (missing series: NaN; coverage: -1)."""
        n = len(next(iter(series.values()))) if series else 0
        full = {k: list(series[k]) if k in series else [-1 if k == "coverage" else float("nan")] * n
                for k in SERIES}
        if len({len(v) for v in full.values()}) > 1:
            raise ValueError(f"{name}: its series have different lengths")
        return cls(name, dict(settings or {}), full, list(range(n)) if steps is None else list(steps))

    def to_dict(self) -> dict:
        return {"name": self.name, "settings": self.settings,
                "columns": {c: self.column(c).tolist() for c in COLUMNS}}

    @classmethod
    def from_dict(cls, d: dict) -> "Trajectory":
        try:
            cols = [d["columns"][c] for c in COLUMNS]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a trajectory: missing column {exc}") from None
        return cls._from_rows(str(d.get("name", "run")), dict(d.get("settings", {})), zip(*cols))

    @classmethod
    def _from_rows(cls, name: str, settings: dict, rows) -> "Trajectory":
        rows = [(int(float(r[0])),) + tuple(float(v) for v in r[1:]) for r in rows]
        series = {k: [r[1 + i] for r in rows] for i, k in enumerate(LOSSES)}
        return cls.from_series(series, name, settings, [r[0] for r in rows])

    def to_csv(self) -> str:
        out = io.StringIO()
        out.write(f"# {self.name}\n# settings: {json.dumps(self.settings, sort_keys=True)}\n")
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for i, step in enumerate(self.steps):
            writer.writerow([step] + [repr(float(self.series[k][i])) for k in LOSSES])
        return out.getvalue()

    @classmethod
    def from_csv(cls, text: str) -> "Trajectory":
        lines = text.splitlines()
        name, settings = "run", {}
        body = []
        for line in lines:
            if line.startswith("# settings:"):
                settings = json.loads(line[len("# settings:"):])
            elif line.startswith("# "):
                name = line[2:]
            elif line.strip():
                body.append(line)
        reader = csv.reader(body)
        header = next(reader, None)
        if header is None or tuple(header) != COLUMNS:
            raise ValueError(f"not a trajectory CSV: expected columns {', '.join(COLUMNS)}")
        return cls._from_rows(name, settings, reader)


def save_trajectories(trajectories: list[Trajectory], path) -> None:
    """JSON (a list) or CSV (runs one after another, separated by blank lines), by suffix."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        atomic_write_text(path, "\n".join(t.to_csv() for t in trajectories))
    else:
        atomic_write_text(path, json.dumps([t.to_dict() for t in trajectories], indent=1))


def load_trajectories(path) -> list[Trajectory]:
    path = Path(path)
    text = path.read_text()
    if path.suffix.lower() == ".csv":
        chunks, current = [], []
        for line in text.splitlines():
            if line.startswith("# ") and not line.startswith("# settings:") and current:
                chunks.append("\n".join(current))
                current = []
            current.append(line)
        if current:
            chunks.append("\n".join(current))
        return [Trajectory.from_csv(c) for c in chunks]
    return [Trajectory.from_dict(d) for d in json.loads(text)]
