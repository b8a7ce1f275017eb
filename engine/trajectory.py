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

COLUMNS = ("rules", "train_hamming", "train_subset", "test_hamming", "test_subset")


def marker_indices(n_rules: int) -> list[int]:
    """The rule counts Figure 1 marks: 1, 2, 4, ... below ``n_rules``, and ``n_rules`` itself."""
    out, k = [], 1
    while k < n_rules:
        out.append(k)
        k *= 2
    out.append(n_rules)
    return out


@dataclass
class Trajectory:
    name: str
    settings: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)  # one tuple per rule, in COLUMNS order

    def append(self, record) -> None:
        nan = float("nan")
        self.rows.append((record.index, record.train_hamming, record.train_subset,
                          nan if record.val_hamming is None else record.val_hamming,
                          nan if record.val_subset is None else record.val_subset))

    def column(self, name: str) -> np.ndarray:
        j = COLUMNS.index(name)
        return np.array([r[j] for r in self.rows], dtype=np.float64)

    def __len__(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict:
        return {"name": self.name, "settings": self.settings,
                "columns": {c: self.column(c).tolist() for c in COLUMNS}}

    @classmethod
    def from_dict(cls, d: dict) -> "Trajectory":
        try:
            cols = [d["columns"][c] for c in COLUMNS]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a trajectory: missing column {exc}") from None
        rows = [(int(r[0]),) + tuple(float(v) for v in r[1:]) for r in zip(*cols)]
        return cls(str(d.get("name", "run")), dict(d.get("settings", {})), rows)

    def to_csv(self) -> str:
        out = io.StringIO()
        out.write(f"# {self.name}\n# settings: {json.dumps(self.settings, sort_keys=True)}\n")
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for r in self.rows:
            writer.writerow([r[0]] + [repr(float(v)) for v in r[1:]])
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
        rows = [(int(r[0]),) + tuple(float(v) for v in r[1:]) for r in reader]
        return cls(name, settings, rows)


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
