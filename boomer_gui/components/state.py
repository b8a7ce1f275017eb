"""Qt-free application state: where the data come from, and the history of training runs.

Nothing here imports Qt, so it is easy to test and to serialise into a session file.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from engine.datasets import SVMLIGHT_SUFFIXES, SYNTHETIC_KINDS, SYNTHETIC_REGRESSION_KINDS, Dataset, load, make_synthetic
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.trajectory import MEASURE_PAIRS, Trajectory, marker_indices, measures_of
from engine.validation import match_schema

from boomer_gui.components.run_identity import DASHES, MARKERS, PALETTE, next_style, unique_name

TEST_MODES = ("split", "file", "generated")
MAX_SYNTHETIC_EXAMPLES = 1_000_000  # the data panel's limits; a session may not ask for more
MAX_SYNTHETIC_LABELS = 100


# --------------------------------------------------------------------------------------- data
@dataclass
class DataSpec:
    """Where the training and test data come from; enough to rebuild them exactly."""

    kind: str = "synthetic"  # 'synthetic' | 'file'
    path: str | None = None
    label_columns: list | None = None  # CSV and ARFF: the label columns (names or indices)
    synthetic: str = "conditional-dependence"
    n_examples: int = 2000
    n_labels: int = 6
    seed: int = 0
    test_mode: str = "generated"  # 'split' | 'file' | 'generated' (synthetic only)
    test_fraction: float = 0.3
    split_seed: int = 0
    test_path: str | None = None
    n_test: int = 2000
    xml: str | None = None  # ARFF: the Mulan label file (found beside the file when not given)

    def __post_init__(self):
        if self.kind not in ("synthetic", "file"):
            raise ValueError(f"unknown data source kind {self.kind!r}")
        if self.test_mode not in TEST_MODES:
            raise ValueError(f"unknown test mode {self.test_mode!r}; expected one of {TEST_MODES}")
        if self.kind == "file" and not self.path:
            raise ValueError("a file data source needs a path")
        if self.kind == "synthetic" and self.synthetic not in SYNTHETIC_KINDS + SYNTHETIC_REGRESSION_KINDS:
            raise ValueError(f"unknown synthetic data set {self.synthetic!r}; known: "
                             f"{', '.join(SYNTHETIC_KINDS + SYNTHETIC_REGRESSION_KINDS)}")
        if self.test_mode == "generated" and self.kind != "synthetic":
            self.test_mode = "split"
        if self.test_mode == "file" and not self.test_path:
            raise ValueError("the test mode 'file' needs a test file")

    @property
    def test_seed(self) -> int:
        """Seed of a generated synthetic test set: always different from the training seed."""
        return self.seed + 1

    def describe(self) -> str:
        if self.kind == "synthetic":
            src = f"synthetic {self.synthetic} ({self.n_examples} examples, seed {self.seed})"
        else:
            src = str(self.path)
        if self.test_mode == "generated":
            test = f"test: fresh sample of {self.n_test} (seed {self.test_seed})"
        elif self.test_mode == "file":
            test = f"test: {self.test_path}"
        else:
            test = f"test: {self.test_fraction:.0%} split (seed {self.split_seed})"
        return f"{src}; {test}"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping) -> "DataSpec":
        """A spec from a (possibly hand-edited) session: every field's type and range is checked."""
        from engine import model_document as check

        d = check.mapping(d, "data")
        names = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in d if k not in names)
        if unknown:
            raise ValueError(f"data: unknown field(s) {', '.join(unknown)}")
        out = {}
        for key, value in d.items():
            where = f"data, {key}"
            if key in ("kind", "synthetic", "test_mode"):
                out[key] = check.string(value, where)
            elif key in ("path", "test_path", "xml"):
                out[key] = None if value is None else check.string(value, where)
            elif key == "label_columns":
                if value is not None:
                    value = [v if isinstance(v, str) else check.integer(v, where, -10 ** 6, 10 ** 6)
                             for v in check.sequence(value, where, max_length=10 ** 6)]
                out[key] = value
            elif key in ("n_examples", "n_test"):
                out[key] = check.integer(value, where, 10, MAX_SYNTHETIC_EXAMPLES)
            elif key == "n_labels":
                out[key] = check.integer(value, where, 1, MAX_SYNTHETIC_LABELS)
            elif key in ("seed", "split_seed"):
                out[key] = check.integer(value, where, 0, 2 ** 32 - 1)
            elif key == "test_fraction":
                out[key] = check.number(value, where)
                if not 0.0 < out[key] < 1.0:
                    raise ValueError(f"{where}: {out[key]} is not in (0, 1)")
        return cls(**out)


@dataclass
class LoadedData:
    spec: DataSpec
    full: Dataset  # what the data panel describes (the whole file, or the training sample)
    train: Dataset
    test: Dataset

    @property
    def task(self) -> str:
        """'classification' (0/1 labels) or 'regression' (real-valued targets)."""
        return self.train.task

    @property
    def key(self) -> str:
        """Identifies the data (runs trained on other data are not comparable)."""
        import json

        return json.dumps(self.spec.to_dict(), sort_keys=True)

    @property
    def bayes_point(self) -> tuple[float, float] | None:
        """(Hamming, subset 0/1) of the Bayes-optimal predictions on the test data (synthetic
        classification data only)."""
        if self.test.bayes_Y is None or self.task == "regression":
            return None
        return (hamming_loss(self.test.Y, self.test.bayes_Y), subset_zero_one_loss(self.test.Y, self.test.bayes_Y))


def target_ranges(data: Dataset) -> list[tuple[str, float, float, float]]:
    """Each target's (name, minimum, mean, maximum): what the data panel shows of regression data."""
    Y = np.asarray(data.Y, dtype=np.float64)
    if not Y.shape[0]:
        return []
    names = list(data.label_names)
    return [(names[k] if k < len(names) else f"t{k + 1}", float(lo), float(mean), float(hi))
            for k, (lo, mean, hi) in enumerate(zip(Y.min(axis=0), Y.mean(axis=0), Y.max(axis=0)))]


def as_learned(data: Dataset) -> Dataset:
    """Regression data with the float32 targets the regressors learn from (files load them so; synthetic
    ones are drawn in float64): the window's measures are then those of the targets the model saw."""
    if data.task != "regression" or np.asarray(data.Y).dtype == np.float32:
        return data
    return replace(data, Y=np.asarray(data.Y, dtype=np.float32))


def load_data(spec: DataSpec, progress=None) -> LoadedData:
    """Load or generate the data a spec describes; raises ValueError/OSError with a clear message.
    ``progress`` (optional) is called with the fraction done while files are parsed."""
    share = 0.7 if spec.test_mode == "file" else 1.0
    if spec.kind == "synthetic":
        full = make_synthetic(spec.synthetic, int(spec.n_examples), int(spec.n_labels), int(spec.seed))
    else:
        main_progress = None if progress is None else (lambda f: progress(share * f))
        full = load(spec.path, progress=main_progress, **_file_options(spec.path, spec))
    if spec.test_mode == "generated":
        train = full
        test = make_synthetic(spec.synthetic, int(spec.n_test), int(spec.n_labels), spec.test_seed)
    elif spec.test_mode == "file":
        train = full
        test_progress = None if progress is None else (lambda f: progress(share + (1.0 - share) * f))
        test = load(spec.test_path, progress=test_progress, **_file_options(spec.test_path, spec, train))
        check_compatible(train, test)
    else:
        train, test = full.train_test_split(float(spec.test_fraction), int(spec.split_seed))
    return LoadedData(spec, as_learned(full), as_learned(train), as_learned(test))


def _file_options(path, spec: DataSpec, train: Dataset | None = None) -> dict:
    """The loader options a spec gives for one of its files (a test file takes the training file's
    labels, label file and number of svmlight attributes)."""
    suffix = Path(path).suffix.lower()
    options = {}
    if suffix in (".csv", ".arff") and spec.label_columns:
        options["label_columns"] = spec.label_columns
    if suffix == ".arff" and spec.xml and not spec.label_columns:
        options["xml"] = spec.xml
    if suffix in SVMLIGHT_SUFFIXES and train is not None:
        options.update(n_features=train.n_features, n_labels=train.n_labels)
    return options


def check_compatible(train: Dataset, test: Dataset) -> None:
    if test.n_features != train.n_features:
        raise ValueError(f"the test data have {test.n_features} attributes, the training data {train.n_features}")
    if test.n_labels != train.n_labels:
        raise ValueError(f"the test data have {test.n_labels} labels, the training data {train.n_labels}")
    order, _ = match_schema(test.feature_names, test.nominal_values, train.schema, train.n_features, "the test data",
                            "the training data")
    if order is not None:  # names and kinds above; the window keeps a file's columns as they are
        raise ValueError("the test data hold the training data's attributes in another order; save them in the "
                         "training file's order (`python -m engine fit --test` matches columns by name)")


def csv_header(path) -> list[str]:
    """Column names of a CSV file (first non-empty line), for choosing its label columns."""
    import csv

    with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
        for line in fh:
            if line.strip():
                delimiter = "," if "," in line else ";" if ";" in line else "\t" if "\t" in line else ","
                return [c.strip() for c in next(csv.reader([line], delimiter=delimiter))]
    return []


# ---------------------------------------------------------------------------------------- runs
RUN_STATUSES = ("running", "paused", "finished", "stopped", "failed", "loaded")


@dataclass(frozen=True)
class StepPoint:
    """A step of a learner whose steps are not rules, as a trajectory point: its declared
    Hamming and subset 0/1 losses (None where the step did not report them; the plot joins the
    steps that did), no coverage and no improvement."""

    index: int
    train_hamming: float | None = None
    train_subset: float | None = None
    test_hamming: float | None = None
    test_subset: float | None = None
    coverage: int = -1
    improvement: float = math.nan


def trajectory_point(step):
    """``step`` itself when it is a rule record (it has the losses as attributes), else its
    :class:`StepPoint` read from ``step.metrics`` (engine.steps)."""
    if hasattr(step, "train_hamming") or hasattr(step, "extra"):
        return step
    m = getattr(step, "metrics", None) or {}
    return StepPoint(int(step.index), m.get("train_hamming"), m.get("train_subset"), m.get("test_hamming"),
                     m.get("test_subset"))


@dataclass
class Run:
    """One training run of any learner: its settings and the losses after every step (its trajectory)."""

    name: str
    color: str
    learner: str = ""
    params: dict = field(default_factory=dict)
    visible: bool = True
    status: str = "running"  # running | paused | finished | stopped | failed | loaded
    trajectory: Trajectory = field(default_factory=Trajectory)  # its series, one value per step
    whatif: dict | None = None  # losses with some rules switched off
    selected: int | None = None  # global pruning: the number of rules the model keeps
    dataset: str = ""  # the data set's name, as the run list shows it
    data_key: str = ""  # the data spec it was trained on (runs on other data are greyed)
    seed: int | None = None  # the learner's random seed, when it has one
    elapsed: float | None = None  # wall-clock seconds of training
    marker: str = MARKERS[0]
    dash: str = DASHES[0]  # the line's dash pattern (run_identity.DASHES)
    ended_early: str | None = None  # why a finished fit ended before its budget (the learner says)
    revised: int = 0  # revision steps (post-optimization relearned an earlier rule), after the rules
    # Not saved with the run itself: the rules of every step and the fitted estimator, so any
    # run of the session can be inspected (sessions store the estimator's model document).
    records: list | None = field(default=None, repr=False, compare=False)
    shown: int | None = field(default=None, repr=False, compare=False)  # None: every record
    active: object = field(default=None, repr=False, compare=False)  # what-if switches while another run is shown
    estimator: object | None = field(default=None, repr=False, compare=False)

    @property
    def series(self) -> dict:
        """The trajectory's series (name -> list), the same lists, not a copy."""
        return self.trajectory.series

    @property
    def measures(self) -> tuple:
        """The pair of measures its trajectory holds: ('hamming', 'subset') or a regressor's ('mse', 'mae')."""
        return self.trajectory.measures

    @property
    def regression(self) -> bool:
        return self.trajectory.regression

    @property
    def losses(self) -> tuple:
        """Its loss series: train_x, train_y, test_x, test_y of its measure pair."""
        return self.trajectory.losses

    def __len__(self) -> int:
        return len(self.trajectory)

    def append(self, records: Iterable) -> None:
        """Steps of any learner: rule records, or steps whose metrics hold the losses."""
        records = list(records)
        self.revised += sum(getattr(r, "kind", "") == "revision" for r in records)
        self.trajectory.extend(trajectory_point(r) for r in records)

    def array(self, key: str) -> np.ndarray:
        return self.trajectory.column(key)

    @property
    def n_rules(self) -> np.ndarray:
        """1, 2, ... (the number of rules, default rule included, after each record); the revision
        steps after the rules add none."""
        return np.minimum(np.arange(1, len(self) + 1), len(self) - self.revised)

    def has_test(self) -> bool:
        return self.trajectory.has_test()

    def final_losses(self) -> dict:
        """The losses after the last step (see :meth:`losses_at`)."""
        return self.losses_at(len(self) - 1) if len(self) else self.trajectory.final_losses()

    def losses_at(self, i: int) -> dict:
        """The losses after step ``i``; a loss that step did not report (a learner that evaluates
        every few steps) is the last value reported before it."""
        out = {}
        for key in self.losses if self.has_test() else self.losses[:2]:
            known = _finite(self.array(key)[: i + 1])
            out[key] = float(known[-1]) if known.size else math.nan
        return out

    def view_len(self) -> int:
        """How many records are shown (a replay or a slowed-down run shows a prefix)."""
        return len(self) if self.shown is None else min(self.shown, len(self))

    def describe(self) -> str:
        """Data set, learner, parameters and seed in one line (tooltips, exports)."""
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        seed = f"; seed {self.seed}" if self.seed is not None else ""
        early = f"\n{self.ended_early}" if self.ended_early else ""
        return (f"{self.name}\ndata: {self.dataset or 'unknown'}\nlearner: {self.learner} ({params}){seed}{early}\n"
                f"line: {self.dash}, marker {self.marker}, colour {self.color}")

    def metadata(self) -> dict:
        return {"run": self.name, "data_set": self.dataset, "data": self.data_key, "learner": self.learner,
                "params": dict(self.params), "seed": self.seed, "status": self.status, "seconds": self.elapsed}

    def to_dict(self) -> dict:
        return {"name": self.name, "color": self.color, "learner": self.learner, "params": dict(self.params),
                "visible": self.visible, "status": self.status, "whatif": self.whatif, "selected": self.selected,
                "dataset": self.dataset, "data_key": self.data_key, "seed": self.seed, "elapsed": self.elapsed,
                "marker": self.marker, "dash": self.dash, "ended_early": self.ended_early,
                **({"revised": self.revised} if self.revised else {}),
                **({"active": [bool(a) for a in self.active]} if self.active is not None and not np.all(self.active)
                   else {}),
                "series": {k: [None if (isinstance(v, float) and math.isnan(v)) else v for v in vals]
                           for k, vals in self.series.items()}}

    @classmethod
    def from_dict(cls, d: Mapping, estimator=None) -> "Run":
        """A run from a (possibly hand-edited) session; every field is checked (ValueError).
        ``estimator``: the run's model when the session keeps it outside the run (the shown run's)."""
        from matplotlib.colors import is_color_like

        from engine import model_document as check

        d = check.mapping(d, "run")
        name = check.string(d.get("name", "run"), "run, name")
        where = f"run {name!r}"
        series = {}
        given = check.mapping(d.get("series") or {}, f"{where}, series")
        measures = measures_of(given, where)  # the names say which pair: a classifier's or a regressor's
        for k, vals in given.items():
            vals = check.sequence(vals, f"{where}, {k}")
            if k == "coverage":
                series[k] = [check.integer(v, f"{where}, coverage", -1, 2 ** 62) for v in vals]
            else:
                series[k] = [math.nan if v is None else check.number(v, f"{where}, {k}") for v in vals]
        trajectory = Trajectory.from_series(series, where, measures=measures)
        color = check.string(d.get("color", PALETTE[0]), f"{where}, color")
        if not is_color_like(color):
            raise ValueError(f"{where}, color: {color!r} is not a colour")
        status = check.choice(d.get("status", "finished"), f"{where}, status", RUN_STATUSES)
        visible = d.get("visible", True)
        if not isinstance(visible, bool):
            raise ValueError(f"{where}, visible: expected true or false")
        whatif = d.get("whatif")
        if whatif is not None:
            whatif = {check.string(k, f"{where}, whatif"): check.number(v, f"{where}, whatif {k}")
                      for k, v in check.mapping(whatif, f"{where}, whatif").items()}
        if d.get("model") is not None:
            from engine import persistence

            estimator = persistence.estimator_from_document(d["model"], f"{where}, model")
        selected = d.get("selected")
        if selected is not None:
            selected = check.integer(selected, f"{where}, selected", 1, len(trajectory) + 1)
        seed = d.get("seed")
        if seed is not None:
            seed = check.integer(seed, f"{where}, seed", -2 ** 63, 2 ** 63 - 1)
        elapsed = d.get("elapsed")
        if elapsed is not None:
            elapsed = check.number(elapsed, f"{where}, elapsed")
        early = d.get("ended_early")
        early = None if early is None else check.string(early, f"{where}, ended_early")[:2000]
        revised = check.integer(d.get("revised", 0), f"{where}, revised", 0, max(len(trajectory), 1))
        learner = check.string(d.get("learner", ""), f"{where}, learner")
        records = _read_steps(d.get("steps"), learner, len(trajectory), estimator, where)
        return cls(name=name, color=color, learner=learner,
                   params=dict(check.mapping(d.get("params") or {}, f"{where}, params")), visible=visible,
                   status="stopped" if status in ("running", "paused") else status, trajectory=trajectory,
                   whatif=whatif,
                   selected=selected, dataset=check.string(d.get("dataset", ""), f"{where}, dataset"),
                   data_key=check.string(d.get("data_key", ""), f"{where}, data_key"), seed=seed, elapsed=elapsed,
                   marker=check.choice(d.get("marker", MARKERS[0]), f"{where}, marker", MARKERS),
                   dash=check.choice(d.get("dash", DASHES[0]), f"{where}, dash", DASHES), estimator=estimator,
                   ended_early=early, revised=revised, records=records,
                   active=_read_switches(d.get("active"), estimator, where))


def _read_switches(active, estimator, where: str) -> np.ndarray | None:
    """A run's what-if switches (saved while another run was shown): one true/false per rule of its model."""
    if active is None:
        return None
    from engine import model_document as check

    active = check.sequence(active, f"{where}, active", max_length=10 ** 7)
    model = getattr(estimator, "model_", None)
    if model is None or len(active) != len(model.rules) or not all(isinstance(a, bool) for a in active):
        raise ValueError(f"{where}, active: expected one true/false switch per rule of the run's model")
    return np.asarray(active, dtype=bool)


def _read_steps(items, learner: str, n_steps: int, estimator, where: str) -> list | None:
    """A saved run's steps (engine.step_document), or None: none saved, or a learner this version does
    not know (its components cannot be shown anyway)."""
    if items is None:
        return None
    from engine.registry import get as get_learner
    from engine.step_document import decode_steps

    try:
        spec = get_learner(learner)
    except ValueError:
        return None
    return decode_steps(items, n_steps, spec.component.cls, getattr(estimator, "model_", None), f"{where}, steps")


def steps_document(run: Run, model_saved: bool) -> list | None:
    """The run's steps as a session saves them, or None: no steps kept, a rule run whose model is not
    saved (its rules are checked against the model on reading), or a learner whose steps have no
    saved form."""
    from engine.registry import get as get_learner
    from engine.step_document import encode_steps

    if run.records is None:
        return None
    try:
        spec = get_learner(run.learner)
    except ValueError:
        return None
    rules = spec.component.kind == "rule"
    if (rules and not model_saved) or (not rules and spec.component.cls is None):
        return None
    try:
        return encode_steps(run.records)
    except (TypeError, ValueError, AttributeError):  # a plug-in's component of another form: its model is kept
        return None


class RunHistory:
    """The runs of a session, in order; the last one may still be running."""

    def __init__(self):
        self.runs: list[Run] = []
        self._counter = 0

    def __len__(self) -> int:
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def new_run(self, title: str, learner: str, params: Mapping[str, Any], dataset: str = "",
                data_key: str = "", task: str = "classification") -> Run:
        """A run named ``title`` (``title #2`` ... when a run of the window has that name) with a line
        style (colour, marker, dash) no other run has (run_identity.next_style); its trajectory holds the
        measures of ``task`` (engine.trajectory.MEASURE_PAIRS)."""
        color, marker, dash = next_style(self._counter, ((r.color, r.marker, r.dash) for r in self.runs))
        self._counter += 1
        seed = params.get("random_state", params.get("seed"))
        run = Run(name=unique_name(title, self.names()), color=color, learner=learner, params=dict(params),
                  dataset=dataset, data_key=data_key, marker=marker, dash=dash,
                  trajectory=Trajectory(measures=MEASURE_PAIRS[task]),
                  seed=int(seed) if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else None)
        self.runs.append(run)
        return run

    def names(self, but: Run | None = None) -> list[str]:
        """The names of the runs (except ``but``)."""
        return [r.name for r in self.runs if r is not but]

    def add(self, run: Run) -> Run:
        self._counter += 1
        self.runs.append(run)
        return run

    def remove(self, run: Run) -> None:
        self.runs.remove(run)

    def to_list(self) -> list[dict]:
        return [r.to_dict() for r in self.runs]

    @classmethod
    def from_list(cls, items: Iterable[Mapping], estimators: Mapping[int, Any] | None = None) -> "RunHistory":
        """The runs of a session; ``estimators`` maps a run's position to its model kept outside it."""
        from engine import model_document as check

        history = cls()
        for k, d in enumerate(check.sequence(items, "runs", max_length=10_000)):
            run = history.add(Run.from_dict(d, (estimators or {}).get(k)))
            if isinstance(d, Mapping) and "dash" not in d:  # a session saved before runs had dashes
                run.dash = DASHES[k % len(DASHES)]
        return history


def _finite(a: np.ndarray) -> np.ndarray:
    return a[np.isfinite(a)]


def preset_name(presets: Mapping[str, Mapping], params: Mapping, ignore: Iterable[str] = ()) -> str | None:
    """The name of the preset whose settings all match ``params``, if any; the settings named in
    ``ignore`` (a run's step budget: 300 rules of a preset are still that preset) need not match."""
    ignore = set(ignore)
    for name, values in presets.items():
        if all(params.get(k) == v for k, v in values.items() if k not in ignore):
            return name
    return None


def marker_positions(n: int) -> np.ndarray:
    """Indices (0-based records) of the rule counts Figure 1 marks (1, 2, 4, ... and the last) among ``n``."""
    return np.array([c - 1 for c in marker_indices(n)] if n else [], dtype=np.int64)
