"""Experiment files (TOML, read with ``tomllib``): data sets, measures, a protocol and learners.

    name = "my study"
    data = ["emotions.arff", "yeast"]       # paths (relative to the file), bundled names, synthetic:KIND
    measures = ["hamming", "example-f1"]    # optional; default: all
    [protocol]
    kind = "cross-validation"               # or "train-test" (a NAME-test file, or test_size = 0.33)
    folds = 5
    stratified = true                       # iterative stratification (Sechidis et al. 2011)
    seed = 1
    inner_folds = 3                         # a learner's grid is tuned by CV inside each training fold
    tune_by = "hamming"
    [[learner]]
    key = "boomer"                          # a registry key or xgboost-br/-lp/-cc; or preset = "..." alone
    name = "BOOMER l.w."
    params = { max_rules = 500 }
    grid = { shrinkage = [0.1, 0.3] }

A regression experiment (multi-output regression: real targets, regressors, regression measures)
names regression learners, e.g. ``key = "ridge-regressor"``, ``"decision-tree-regressor"``,
``"mean-regressor"`` or ``"boomer-regressor"``, and regression data (data sets with real targets,
``synthetic:linear-regression``).  Its task is inferred from the learners; ``task = "regression"`` (or
``"classification"``) at the top states it, and then every learner must be of that task.  Learners of
both tasks in one file are one error (split them into two files), as are a measure, ``tune_by`` or a
data set of the other task (a data file's targets are checked when the experiment is planned, before
any task runs).  A regression experiment's folds are plain shuffled K-fold (``stratified`` defaults to
false; ``true`` is an error: iterative stratification splits label sets), ``measures`` default to
mse, rmse, mae, median-ae, r2, r2-variance-weighted, mape and the costs (``NAME@tK`` adds target K's
value, e.g. ``"mae@t2"``), ``tune_by`` defaults to mse, and the selection is nested (no BBC-CV).

Every error is one :class:`ExperimentError` naming the file and the line (an unknown key, learner,
preset, measure or parameter, a bad value, a missing data file), raised before any work.  The file is
bounded before it is parsed: a regular file (no FIFO, folder or device) of at most ``MAX_FILE_BYTES``,
arrays, tables and dotted keys nested at most ``MAX_NESTING`` deep, and at most ``max_tasks`` tasks
(counted from the grid's sizes before any grid is expanded)."""
from __future__ import annotations

import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from .candidates import REGRESSOR_KEY, candidate, candidates, preset_owners, unavailable
from ..data import DataSpec, resolve
from .scoring import CLASSIFICATION, COST, REGRESSION, TASKS, measure, measures_of

TOP_KEYS = ("name", "task", "data", "measures", "protocol", "learner")
PROTOCOL_KEYS = ("kind", "folds", "stratified", "seed", "test_size", "inner_folds", "tune_by", "selection",
                 "bootstraps")
LEARNER_KEYS = ("key", "preset", "name", "params", "grid", "tune_by", "prefix_step")
KINDS = ("cross-validation", "train-test")
SELECTIONS = ("nested", "bbc-cv")  # bbc-cv: bootstrap bias-corrected CV over pooled out-of-fold predictions
MAX_FILE_BYTES = 1 << 20  # an experiment file is a page of text; more is not one
MAX_NESTING = 32  # arrays, inline tables and key segments inside one another
MAX_TASKS = 10_000  # data sets x folds x configurations; ``python -m engine experiment --max-tasks`` raises it


class ExperimentError(ValueError):
    """A mistake in an experiment file, naming its line."""


class TooManyTasks(ExperimentError):
    """An experiment with more tasks than allowed; ``n_tasks`` says how many it has (counted, not made)."""

    def __init__(self, message: str, n_tasks: int):
        super().__init__(message)
        self.n_tasks = n_tasks


@dataclass(frozen=True)
class Protocol:
    kind: str = "cross-validation"
    folds: int = 5
    stratified: bool = True
    seed: int = 1
    test_size: float | None = None
    inner_folds: int = 3
    tune_by: str = "hamming"
    selection: str = "nested"
    bootstraps: int = 100


@dataclass(frozen=True)
class LearnerEntry:
    key: str
    name: str
    params: dict  # the preset's values, then the file's
    grid: dict  # parameter -> list of values
    preset: str | None = None
    tune_by: str | None = None
    prefix_step: int | None = None
    line: int = 0

    def configurations(self) -> list[dict]:
        """Every grid point's full parameters (one, the params, without a grid)."""
        names = list(self.grid)
        return [{**self.params, **dict(zip(names, values))} for values in product(*(self.grid[n] for n in names))]


@dataclass
class Experiment:
    name: str
    data: list[str]  # as written
    datasets: list[DataSpec]
    measures: tuple[str, ...]
    protocol: Protocol
    learners: list[LearnerEntry]
    path: Path | None = None
    text: str = ""
    extra: dict = field(default_factory=dict)
    task: str = CLASSIFICATION  # or REGRESSION


# ------------------------------------------------------------------------------- line numbers
# linear on any line: one greedy class, then "]" (no two quantifiers compete for the same spaces)
_HEADER = re.compile(r"^\s*(\[\[?)([A-Za-z0-9_.\-\"' \t]*)\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*|\"[^\"]*\")\s*=\s*(.*)$")
_INLINE_KEY = re.compile(r"[{,]\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")


class Lines:
    """Where each key of a TOML text is: (table path, key) -> 1-based line."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.keys: dict[tuple, int] = {}
        self.tables: dict[tuple, int] = {}
        counts: dict[str, int] = {}
        current: tuple = ()
        for number, line in enumerate(self.lines, 1):
            stripped = line.split("#", 1)[0] if '"' not in line else line
            header = _HEADER.match(stripped)
            if header and not _KEY.match(stripped):
                parts = tuple(p.strip().strip('"') for p in header.group(2).split("."))
                if header.group(1) == "[[":
                    counts[parts[0]] = counts.get(parts[0], -1) + 1
                    current = (parts[0], counts[parts[0]]) + parts[1:]
                elif parts[0] in counts:  # a subtable of the last array entry: [learner.params]
                    current = (parts[0], counts[parts[0]]) + parts[1:]
                else:
                    current = parts
                self.tables.setdefault(current, number)
                continue
            match = _KEY.match(stripped)
            if not match:
                continue
            dotted = tuple(p.strip().strip('"') for p in match.group(1).split("."))
            table = current + dotted[:-1]
            self.keys.setdefault((table, dotted[-1]), number)
            if match.group(2).lstrip().startswith("{"):
                for inner in _INLINE_KEY.finditer(match.group(2)):
                    self.keys.setdefault((table + (dotted[-1],), inner.group(1).strip('"')), number)

    def of(self, table: tuple, key: str | None = None, value: Any = None) -> int:
        """The line of ``key`` in ``table`` (of ``value`` in the key's array when given); the
        table's header, else 1, when the key is not found."""
        line = self.keys.get((table, key)) if key is not None else None
        if line is None:
            return self.tables.get(table, 1)
        if isinstance(value, str):
            quoted = re.compile(r"[\"']" + re.escape(value) + r"[\"']")
            for number in range(line, min(line + 500, len(self.lines) + 1)):
                if quoted.search(self.lines[number - 1]):
                    return number
                if number > line and _KEY.match(self.lines[number - 1]):
                    break
        return line


# ------------------------------------------------------------------------------------ reading
def read_text(path, limit: int = MAX_FILE_BYTES) -> str:
    """The text of a regular file of at most ``limit`` bytes; ExperimentError for anything else (a
    FIFO, a folder or a device is refused from its ``stat``, before it is opened; a file growing
    while it is read is refused after ``limit`` + 1 bytes)."""
    path = Path(path)
    kind = _kind(os.stat(path).st_mode)  # OSError (missing, no permission) as it is
    if kind is not None:
        raise ExperimentError(f"{path}: not a regular file but {kind}; an experiment is a TOML text file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # replaced by a FIFO meanwhile: no wait
    with os.fdopen(fd, "rb") as handle:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise ExperimentError(f"{path}: not a regular file but {kind}; an experiment is a TOML text file")
        size = os.fstat(fd).st_size
        if size > limit:
            raise ExperimentError(f"{path}: {size:,} bytes; an experiment file has at most {limit:,}")
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise ExperimentError(f"{path}: more than {limit:,} bytes; an experiment file has at most {limit:,}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExperimentError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _kind(mode: int) -> str | None:
    """None for a regular file, else what the file is."""
    if stat.S_ISREG(mode):
        return None
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else
            "a special file")


def nesting(text: str) -> tuple[int, int]:
    """(depth, line) of the deepest point of a TOML text: arrays and inline tables inside one another,
    plus the segments of the key (or table header) they sit under.  A scan of the raw text, linear in
    its length, so nothing deep reaches ``tomllib`` (which recurses, and is quadratic in dotted keys)."""
    segments = best = 0
    stack: list[tuple[str, int]] = []  # open brackets, with the key segments outside each
    best_line = line = 1
    at_key, quote, i, n = True, "", 0, len(text)
    while i < n:
        c = text[i]
        if quote:  # inside a string: only its end matters (and escapes in basic strings)
            if c == "\\" and quote[0] == '"':
                i += 2
                continue
            if text.startswith(quote, i):
                i, quote = i + len(quote), ""
                continue
            line += c == "\n"
            i += 1
            continue
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "\n":
            line += 1
            if not stack:
                at_key, segments = True, 0
        elif c in "[{":  # a header's "[" keeps reading a key, an array's comes after "=" (no key)
            stack.append((c, segments))
            at_key = at_key or c == "{"
        elif c in "]}":
            segments = stack.pop()[1] if stack else 0
            at_key = False
        elif c == "," and stack and stack[-1][0] == "{":
            at_key, segments = True, stack[-1][1]  # the next key of an inline table
        elif c == "=":
            at_key = False
        elif c == "." and at_key:
            segments += 1
        if len(stack) + segments > best:
            best, best_line = len(stack) + segments, line
        i += 1
    return best, best_line


# ------------------------------------------------------------------------------------ parsing
def load_experiment(path, resolve_data: bool = True, max_tasks: int | None = MAX_TASKS) -> Experiment:
    """Read and check an experiment file (ExperimentError naming the line; OSError if unreadable)."""
    path = Path(path)
    return parse_experiment(read_text(path), path, resolve_data, max_tasks)


def parse_experiment(text: str, path=None, resolve_data: bool = True, max_tasks: int | None = MAX_TASKS) -> Experiment:
    """An experiment from TOML text; relative data paths are relative to ``path``'s folder.  With
    ``resolve_data`` False the data sets are not looked for (``datasets`` is empty)."""
    where = str(path) if path is not None else "<experiment>"
    if len(text) > MAX_FILE_BYTES:
        raise ExperimentError(f"{where}: {len(text):,} characters; an experiment file has at most {MAX_FILE_BYTES:,}")
    depth, line = nesting(text)
    if depth > MAX_NESTING:
        raise ExperimentError(f"{where}:{line}: arrays, tables and dotted keys nested {depth} deep; an experiment "
                              f"needs a few levels, at most {MAX_NESTING} are read")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{where}: not a TOML file: {exc}") from None
    except RecursionError:  # a nesting the scan did not see (it counts generously): still one error
        raise ExperimentError(f"{where}: nested too deeply to be read") from None
    parser = _Parser(doc, text, where, Path(path).resolve().parent if path is not None else Path.cwd(), max_tasks)
    return parser.parse(path, resolve_data)


class _Parser:
    def __init__(self, doc: dict, text: str, where: str, base: Path, max_tasks: int | None = MAX_TASKS):
        self.doc, self.text, self.where, self.base = doc, text, where, base
        self.lines = Lines(text)
        self.max_tasks, self.n_tasks, self.per_configuration = max_tasks, 0, 1
        self.task = CLASSIFICATION

    def fail(self, line: int, message: str):
        raise ExperimentError(f"{self.where}:{line}: {message}")

    def unknown_keys(self, table: dict, known: tuple, path: tuple, what: str) -> None:
        for key in table:
            if key not in known:
                self.fail(self.lines.of(path, key), f"unknown key {key!r} in {what}; expected one of {', '.join(known)}")

    def typed(self, value, kinds, path: tuple, key: str, what: str):
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _as_tuple(kinds)):
            self.fail(self.lines.of(path, key), f"{key} must be {what}, got {value!r}")
        return value

    def parse(self, path, resolve_data: bool = True) -> Experiment:
        doc = self.doc
        self.unknown_keys(doc, TOP_KEYS, (), "the experiment")
        name = self.typed(doc.get("name", Path(path).stem if path else "experiment"), str, (), "name", "a string")
        data = self.data(doc.get("data"))
        entries = doc.get("learner")
        if not isinstance(entries, list) or not entries:
            self.fail(self.lines.of((), "learner"), "an experiment needs at least one [[learner]]")
        self.task = self.experiment_task(doc.get("task"), entries)
        measures = self.measures(doc.get("measures"))
        protocol = self.protocol(doc.get("protocol", {}))
        self.count_tasks(data, protocol, entries)
        learners = [self.learner(entry, i, protocol) for i, entry in enumerate(entries)]
        names = [e.name for e in learners]
        for i, entry in enumerate(learners):
            if names.index(entry.name) != i:
                self.fail(self.lines.of(("learner", i), "name"), f"two learners are named {entry.name!r}; give one "
                          "a name = \"...\"")
        path = Path(path) if path else None
        if not resolve_data:
            return Experiment(name, data, [], measures, protocol, learners, path, self.text, task=self.task)
        specs = [self.resolve(item) for item in data]
        names = [s.name for s in specs]
        for i, s in enumerate(specs):
            if names.index(s.name) != i:
                self.fail(self.lines.of((), "data", data[i]), f"two data sets are named {s.name!r}")
            if s.task is not None and s.task != self.task:
                self.fail(self.lines.of((), "data", data[i]), f"data set {data[i]!r} has "
                          f"{'real targets' if s.task == REGRESSION else '0/1 labels'}, but this is a {self.task} "
                          "experiment")
        if protocol.kind == "train-test" and protocol.test_size is None:
            for item, spec in zip(data, specs):
                if len(spec.files) < 2:
                    self.fail(self.lines.of((), "data", item), f"{item!r} has no NAME-test file: a train-test "
                              "protocol then needs test_size in [protocol]")
        return Experiment(name, data, specs, measures, protocol, learners, path, self.text, task=self.task)

    def experiment_task(self, value, entries: list) -> str:
        """The experiment's task: ``task`` if given, else its learners'; one error when they disagree."""
        if value is not None:
            self.typed(value, str, (), "task", "a string")
            if value not in TASKS:
                self.fail(self.lines.of((), "task"), f"task must be one of {', '.join(TASKS)}, got {value!r}")
        first: dict[str, int] = {}  # task -> the index of its first learner
        for i, entry in enumerate(entries):
            task = self.learner_task(entry)
            if task is not None:
                first.setdefault(task, i)
        if len(first) > 1:
            c, r = first[CLASSIFICATION], first[REGRESSION]
            self.fail(self.lines.tables.get(("learner", max(c, r)), 1),
                      f"learner {self.entry_name(entries[r])!r} (line {self.lines.tables.get(('learner', r), 1)}) is a "
                      f"regressor and learner {self.entry_name(entries[c])!r} (line "
                      f"{self.lines.tables.get(('learner', c), 1)}) a multi-label classifier: an experiment is either "
                      "classification or regression; put them in two files")
        if value is not None and first and value not in first:
            (other, i), = first.items()
            self.fail(self.lines.tables.get(("learner", i), 1), f"task = {value!r}, but learner "
                      f"{self.entry_name(entries[i])!r} is a {'regressor' if other == REGRESSION else 'classifier'}")
        return value or next(iter(first), CLASSIFICATION)

    @staticmethod
    def learner_task(entry) -> str | None:
        """A [[learner]]'s task from its key or preset (None: the key is unknown, reported later)."""
        if not isinstance(entry, dict):
            return None
        key = entry.get("key")
        if key is None and isinstance(entry.get("preset"), str):
            owners = preset_owners(entry["preset"])
            key = owners[0] if len(owners) == 1 else None
        if key == REGRESSOR_KEY:
            return REGRESSION  # even before the engine has it (then it is reported as not available)
        known = candidates()
        return known[key].task if isinstance(key, str) and key in known else None

    @staticmethod
    def entry_name(entry) -> str:
        return str(entry.get("name", entry.get("key", entry.get("preset", "?"))))

    def count_tasks(self, data: list, protocol: Protocol, entries: list) -> None:
        """Refuse more than ``max_tasks`` tasks, counted from the grids' sizes (nothing is expanded)."""
        splits = 1 if protocol.kind == "train-test" else protocol.folds
        sizes = [math.prod(len(v) if isinstance(v, list) and v else 1 for v in e.get("grid", {}).values())
                 if isinstance(e, dict) and isinstance(e.get("grid"), dict) else 1 for e in entries]
        n_configs = sum(sizes)
        n_tasks = len(data) * splits * n_configs
        if self.max_tasks is not None and n_tasks > self.max_tasks:
            largest = max(range(len(sizes)), key=sizes.__getitem__)
            line = self.lines.of(("learner", largest), "grid") if sizes[largest] > 1 else self.lines.of((), "learner")
            raise TooManyTasks(
                f"{self.where}:{line}: the experiment makes {n_tasks:,} tasks ({len(data)} data set(s) x {splits} "
                f"fold(s) x {n_configs:,} configuration(s)), more than the limit of {self.max_tasks:,}; shrink the "
                f"grid, or allow them with --max-tasks {n_tasks}", n_tasks)

    def data(self, value) -> list[str]:
        if value is None:
            self.fail(1, "an experiment needs data = [\"FILE\", ...]")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            self.fail(self.lines.of((), "data"), "data must be a list of file paths or bundled names")
        return value

    def resolve(self, item: str) -> DataSpec:
        local = self.base / item
        try:
            return resolve(str(local) if local.exists() else item)
        except (OSError, ValueError) as exc:
            self.fail(self.lines.of((), "data", item), f"data set {item!r}: {exc}")

    def measures(self, value) -> tuple[str, ...]:
        if value is None:
            return measures_of(self.task)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            self.fail(self.lines.of((), "measures"), "measures must be a list of measure names")
        for v in value:
            try:
                m = measure(v)
            except ValueError as exc:
                self.fail(self.lines.of((), "measures", v), str(exc))
            self.of_task(m, self.lines.of((), "measures", v))
            if value.count(v) > 1:
                self.fail(self.lines.of((), "measures", v), f"measure {v!r} is listed twice")
        return tuple(value)

    def of_task(self, m, line: int):
        """The measure, if it measures the experiment's task; else the error."""
        if m.task not in (None, self.task):
            self.fail(line, f"{m.name!r} is a {m.task} measure, but this is a {self.task} experiment; its measures: "
                      f"{', '.join(measures_of(self.task))}")
        return m

    def tune_measure(self, value, path: tuple) -> str:
        self.typed(value, str, path, "tune_by", "a measure name")
        try:
            m = measure(value)
        except ValueError as exc:
            self.fail(self.lines.of(path, "tune_by", value), str(exc))
        self.of_task(m, self.lines.of(path, "tune_by", value))
        if m.needs == COST:
            self.fail(self.lines.of(path, "tune_by", value), f"tune_by must be a measure of predictions, not {value!r}")
        return value

    def protocol(self, table) -> Protocol:
        path = ("protocol",)
        if not isinstance(table, dict):
            self.fail(self.lines.of((), "protocol"), "protocol must be a table [protocol]")
        self.unknown_keys(table, PROTOCOL_KEYS, path, "[protocol]")
        d = Protocol()
        kind = self.typed(table.get("kind", d.kind), str, path, "kind", "a string")
        if kind not in KINDS:
            self.fail(self.lines.of(path, "kind"), f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        folds = self.integer(table.get("folds", d.folds), path, "folds", 2, 100)
        inner = self.integer(table.get("inner_folds", d.inner_folds), path, "inner_folds", 2, 100)
        seed = self.integer(table.get("seed", d.seed), path, "seed", 0, 2 ** 32 - 1)
        boots = self.integer(table.get("bootstraps", d.bootstraps), path, "bootstraps", 1, 100_000)
        regression = self.task == REGRESSION
        stratified = self.typed(table.get("stratified", not regression), bool, path, "stratified", "true or false")
        if regression and stratified:
            self.fail(self.lines.of(path, "stratified"), "stratified = true: iterative stratification splits label "
                      "sets; a regression experiment's folds are plain shuffled K-fold (remove stratified)")
        test_size = table.get("test_size")
        if test_size is not None:
            self.typed(test_size, (int, float), path, "test_size", "a number in (0, 1)")
            if not 0 < test_size < 1:
                self.fail(self.lines.of(path, "test_size"), f"test_size must be in (0, 1), got {test_size}")
        selection = self.typed(table.get("selection", d.selection), str, path, "selection", "a string")
        if selection not in SELECTIONS:
            self.fail(self.lines.of(path, "selection"), f"selection must be one of {', '.join(SELECTIONS)}")
        if regression and selection == "bbc-cv":
            self.fail(self.lines.of(path, "selection"), "selection = \"bbc-cv\" selects among label-set predictions; "
                      "a regression experiment's grids are tuned by nested cross-validation (remove selection)")
        tune_by = self.tune_measure(table.get("tune_by", "mse" if regression else d.tune_by), path)
        return Protocol(kind, folds, stratified, seed, None if test_size is None else float(test_size), inner,
                        tune_by, selection, boots)

    def integer(self, value, path, key, low, high) -> int:
        self.typed(value, int, path, key, "an integer")
        if not low <= value <= high:
            self.fail(self.lines.of(path, key), f"{key} must be in [{low}, {high}], got {value}")
        return value

    def learner(self, table, index: int, protocol: Protocol) -> LearnerEntry:
        path = ("learner", index)
        line = self.lines.tables.get(path, 1)
        if not isinstance(table, dict):
            self.fail(line, "[[learner]] must be a table")
        self.unknown_keys(table, LEARNER_KEYS, path, "[[learner]]")
        key, preset = table.get("key"), table.get("preset")
        if key is None and preset is None:
            self.fail(line, "a [[learner]] needs key = \"...\" (one of " + ", ".join(candidates()) +
                      ") or preset = \"...\"")
        if key is not None:
            self.typed(key, str, path, "key", "a learner key")
            if key not in candidates():
                self.fail(self.lines.of(path, "key"), unavailable(key) or
                          f"unknown learner {key!r}; known: {', '.join(candidates())}")
        if preset is not None:
            self.typed(preset, str, path, "preset", "a preset name")
            owners = preset_owners(preset)
            if key is None and len(owners) != 1:
                self.fail(self.lines.of(path, "preset"), f"preset {preset!r} is " +
                          (f"a preset of {', '.join(owners)}: add key" if owners else "unknown"))
            key = key or owners[0]
            if preset not in candidate(key).presets:
                self.fail(self.lines.of(path, "preset"), f"{key} has no preset {preset!r}; its presets: "
                          f"{', '.join(candidate(key).presets) or 'none'}")
        cand = candidate(key)
        params = self.typed(table.get("params", {}), dict, path, "params", "a table of parameter values")
        grid = self.typed(table.get("grid", {}), dict, path, "grid", "a table of parameter -> list of values")
        for group, table_name in ((params, "params"), (grid, "grid")):
            for name in group:
                if name not in cand.names():
                    self.fail(self.lines.of(path + (table_name,), name), f"unknown parameter {name!r} of {key}; "
                              f"known: {', '.join(sorted(cand.names()))}")
        for name, values in grid.items():
            if not isinstance(values, list) or not values:
                self.fail(self.lines.of(path + ("grid",), name), f"grid value of {name!r} must be a non-empty list")
        merged = {**(cand.presets.get(preset, {}) if preset else {}), **params}
        if "random_state" in cand.names() and "random_state" not in merged and "random_state" not in grid:
            merged["random_state"] = protocol.seed
        name = table.get("name", preset or key)
        self.typed(name, str, path, "name", "a string")
        tune_by = self.tune_measure(table["tune_by"], path) if "tune_by" in table else None
        step = table.get("prefix_step")
        if step is not None:
            self.integer(step, path, "prefix_step", 1, 10_000_000)
        entry = LearnerEntry(key, name, merged, dict(grid), preset, tune_by, step, line)
        for config in entry.configurations():
            try:
                cand.make(config)
            except (ValueError, TypeError) as exc:
                bad = next((n for n in config if n in str(exc)), None)
                where = (self.lines.of(path + ("grid",), bad) if bad in grid else
                         self.lines.of(path + ("params",), bad) if bad in params else line)
                self.fail(where, f"learner {name!r}: {exc}")
        return entry


def _as_tuple(kinds) -> tuple:
    return kinds if isinstance(kinds, tuple) else (kinds,)
