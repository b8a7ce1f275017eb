"""Trajectories: the training and test losses after every added rule, with the run's settings.

Recorded from the incremental evaluation of ``fit_iter`` (not re-predicted from scratch) and
saved as JSON (settings + columns) or CSV (a ``# settings:`` comment line, then columns).  A trajectory
holds one pair of measures (:data:`MEASURE_PAIRS`): a classifier's Hamming and subset 0/1 losses, or a
regressor's mean squared and mean absolute errors; its series (and a file's columns) are named after
them, ``train_hamming`` ... or ``train_mse`` ..., so the names say which pair a saved trajectory holds."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .fileio import atomic_write_text

# the measures a trajectory holds, by task: (x, y) of its plots
MEASURE_PAIRS = {"classification": ("hamming", "subset"), "regression": ("mse", "mae")}
CLASSIFICATION = MEASURE_PAIRS["classification"]


def loss_names(measures: tuple = CLASSIFICATION) -> tuple:
    """The series of a measure pair: train_x, train_y, test_x, test_y."""
    return tuple(f"{split}_{m}" for split in ("train", "test") for m in measures)


def series_names(measures: tuple = CLASSIFICATION) -> tuple:
    return ("coverage", "improvement") + loss_names(measures)


def measures_of(names, where: str = "trajectory") -> tuple:
    """The measure pair whose series ``names`` are (those of one pair only; ValueError otherwise)."""
    names = set(names)
    found = [pair for pair in MEASURE_PAIRS.values() if names & set(loss_names(pair))]
    if len(found) > 1:
        raise ValueError(f"{where}: it mixes the series of {' and '.join('/'.join(p) for p in found)}")
    pair = found[0] if found else CLASSIFICATION
    unknown = sorted(names - set(series_names(pair)))
    if unknown:
        raise ValueError(f"{where}: unknown series {unknown[0]!r}")
    return pair


COLUMNS = ("rules",) + loss_names()  # in trajectory files (a classifier's; a regressor's name its measures)
SERIES = series_names()
LOSSES = loss_names()


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


def _value(record, key: str):
    """A step's value of series ``key``: its attribute, or its ``extra``/``metrics`` entry (None: not reported)."""
    if hasattr(record, key):
        return getattr(record, key)
    extra = getattr(record, "extra", None) or {}
    if key in extra:
        return extra[key]
    return (getattr(record, "metrics", None) or {}).get(key)


@dataclass
class Trajectory:
    """A run's series, one value per step: each step's coverage and improvement, and the training
    and test losses after it (NaN where no test data were given).  The one series type of the
    project: Figure 1's runs and the application's runs both keep theirs in one."""

    name: str = "run"
    settings: dict = field(default_factory=dict)
    series: dict = None  # name -> values; default: empty series of ``measures``
    steps: list = field(default_factory=list)  # each step's record index (the files' ``rules`` column)
    _arrays: dict = field(default_factory=dict, repr=False, compare=False)
    measures: tuple = CLASSIFICATION  # the pair of measures its losses are (MEASURE_PAIRS)

    def __post_init__(self):
        self.measures = tuple(self.measures)
        if self.measures not in MEASURE_PAIRS.values():
            raise ValueError(f"unknown measures {self.measures!r}")
        if self.series is None:
            self.series = {k: [] for k in series_names(self.measures)}

    @property
    def losses(self) -> tuple:
        """Its loss series: train_x, train_y, test_x, test_y of its measure pair."""
        return loss_names(self.measures)

    @property
    def regression(self) -> bool:
        return self.measures == MEASURE_PAIRS["regression"]

    def append(self, record) -> None:
        self.extend((record,))

    def extend(self, records) -> None:
        s, losses = self.series, self.losses
        for r in records:
            self.steps.append(int(r.index))
            s["coverage"].append(int(r.coverage))
            s["improvement"].append(_number(r.improvement))
            for key in losses:
                s[key].append(_number(_value(r, key)))
        self._arrays.clear()

    def column(self, name: str) -> np.ndarray:
        """A series (or ``rules``, the step indices) as a float array, cached until the next append."""
        a = self._arrays.get(name)
        if a is None:
            a = np.asarray(self.steps if name == "rules" else self.series[name], dtype=np.float64)
            self._arrays[name] = a
        return a

    def __len__(self) -> int:
        return len(self.series[self.losses[0]])

    def has_test(self) -> bool:
        return len(self) > 0 and not np.isnan(self.column(self.losses[2])).all()

    def final_losses(self) -> dict:
        """The losses after the last step (test ones only when there are test data)."""
        if not len(self):
            return {}
        keys = self.losses if self.has_test() else self.losses[:2]
        return {k: self.series[k][-1] for k in keys}

    @classmethod
    def from_series(cls, series: dict, name: str = "run", settings: dict | None = None,
                    steps: list | None = None, measures: tuple | None = None) -> "Trajectory":
        """From columns of equal length (missing series: NaN; coverage: -1); the measure pair is the
        one the series' names say (:func:`measures_of`) unless given."""
        measures = measures_of(series, name) if measures is None else tuple(measures)
        n = len(next(iter(series.values()))) if series else 0
        full = {k: list(series[k]) if k in series else [-1 if k == "coverage" else float("nan")] * n
                for k in series_names(measures)}
        if len({len(v) for v in full.values()}) > 1:
            raise ValueError(f"{name}: its series have different lengths")
        return cls(name, dict(settings or {}), full, list(range(n)) if steps is None else list(steps),
                   measures=measures)

    @property
    def columns(self) -> tuple:
        """Its columns in trajectory files."""
        return ("rules",) + self.losses

    def to_dict(self) -> dict:
        return {"name": self.name, "settings": self.settings,
                "columns": {c: self.column(c).tolist() for c in self.columns}}

    @classmethod
    def from_dict(cls, d: dict) -> "Trajectory":
        try:
            given = d["columns"]
            measures = measures_of(set(given) - {"rules"}, "not a trajectory")
            names = ("rules",) + loss_names(measures)
            cols = [given[c] for c in names]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a trajectory: missing column {exc}") from None
        return cls._from_rows(str(d.get("name", "run")), dict(d.get("settings", {})), zip(*cols), measures)

    @classmethod
    def _from_rows(cls, name: str, settings: dict, rows, measures: tuple = CLASSIFICATION) -> "Trajectory":
        rows = [(int(float(r[0])),) + tuple(float(v) for v in r[1:]) for r in rows]
        series = {k: [r[1 + i] for r in rows] for i, k in enumerate(loss_names(measures))}
        return cls.from_series(series, name, settings, [r[0] for r in rows], measures)

    def to_csv(self) -> str:
        out = io.StringIO()
        out.write(f"# {self.name}\n# settings: {json.dumps(self.settings, sort_keys=True)}\n")
        writer = csv.writer(out)
        writer.writerow(self.columns)
        for i, step in enumerate(self.steps):
            writer.writerow([step] + [repr(float(self.series[k][i])) for k in self.losses])
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
        pairs = {("rules",) + loss_names(pair): pair for pair in MEASURE_PAIRS.values()}
        if header is None or tuple(header) not in pairs:
            raise ValueError(f"not a trajectory CSV: expected columns {', '.join(COLUMNS)} "
                             f"(or {', '.join(('rules',) + loss_names(MEASURE_PAIRS['regression']))})")
        return cls._from_rows(name, settings, reader, pairs[tuple(header)])


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
