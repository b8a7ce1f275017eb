"""The application's Qt-free core: the loaded data, the session's runs (of every learner), the run
whose components are shown, its what-if switches, rebuilding a loaded model's trajectory, and
assembling sessions.

A run's life: :meth:`Controller.begin_run` (every learner, rule learner or not, gets a run in the
history), :meth:`Controller.record` for each batch of streamed steps, :meth:`Controller.end_run`.
Which view shows a run's components (the rule table or the step view) follows the *run's*
learner (:func:`shows_steps`), never the learner chosen in the setup panel.

Every change is announced by a plain event (:class:`~boomer_gui.components.events.Event`):
``data_changed``, ``run_added``, ``run_updated`` (new steps, replay progress, what-if), ``run_ended``
(the learner stopped), ``run_settled`` (all its steps are on screen), ``run_removing`` and
``run_removed`` (before and after it leaves the history), ``run_renamed`` and ``history_replaced``.  The window's views subscribe; nothing here imports Qt, so all of it is
tested without a window (``tests/test_controller.py``)."""
from __future__ import annotations

import math

import numpy as np

from engine.inspection import WhatIf
from engine.learner import RuleRecord
from engine.model import rule_coverage
from engine.prepare import builtin_data, default_settings, is_prepared, kernel_setting, setting_key
from engine.registry import LearnerSpec
from engine.regression_tracking import RegressionErrors
from engine.registry import get as get_learner
from engine.trajectory import LOSSES
from engine.validation import match_schema

from boomer_gui.components import exports
from boomer_gui.components.events import Event
from boomer_gui.components.run_identity import check_name, describe_setting, unique_name
from boomer_gui.components.session import Session, load_session
from boomer_gui.components.state import LoadedData, Run, RunHistory, load_data, steps_document


def spec_of(run: Run | None) -> LearnerSpec | None:
    """The registry entry of ``run``'s learner (None: no run, or a learner this version does not know)."""
    if run is None:
        return None
    try:
        return get_learner(run.learner)
    except ValueError:
        return None


def shows_steps(spec: LearnerSpec | None) -> bool:
    """Are this learner's steps shown in the step view (they are not rules)?"""
    return spec is not None and spec.component.kind != "rule"


def run_title(spec: LearnerSpec, params, history: RunHistory | None = None) -> str:
    """What defines a run of ``spec`` with ``params`` (run_identity.describe_setting); with
    ``history``, ``#2`` ... when a run of the window already has that name."""
    defaults = spec.defaults() if hasattr(spec, "defaults") else {}
    title = describe_setting(spec.key, params, defaults, spec.presets, getattr(spec, "budget", None),
                             getattr(spec, "title", ""))
    return title if history is None else unique_name(title, history.names())


def records_of(run: Run, model) -> list:
    """The step records of ``run``: as streamed (or saved with a session), or rebuilt from its model and
    its series for a run of an older session that kept no steps (one series entry per step: a stump
    round of AdaBoost.MH adds two rules, which share their step's losses)."""
    if run.records is not None:
        return list(run.records)
    s, n_rules, n_steps = run.series, len(model.rules), max(len(run), 1)
    if run.revised:  # revision steps follow the rules: rule i was added by step i
        n_steps = n_rules

    def value(k, i):
        v = s[k][i] if k in s and i < len(s[k]) else None
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

    out = []
    for i, rule in enumerate(model.rules):
        j = i * n_steps // n_rules  # the step that added rule i
        extra = {k: value(k, j) for k in run.losses} if run.regression else {}  # a regressor's MSE and MAE
        out.append(RuleRecord(i, rule, int(value("coverage", j) or 0), float(value("improvement", j) or math.nan),
                              value("train_hamming", j), value("train_subset", j), value("test_hamming", j),
                              value("test_subset", j), extra=extra))
    return out


def belongs_to(run: Run, model) -> bool:
    """Can ``run``'s series be the trajectory of ``model`` (one entry per rule, or per step of a
    learner that adds the same number of rules in every step)?"""
    n_rules, n_steps = len(model.rules), len(run) - run.revised
    return run.records is not None or n_steps == n_rules or (n_steps > 0 and n_rules % n_steps == 0)


def step_of(run: Run | None, row: int, n_rows: int) -> int:
    """The record (step) of ``run`` that added the table's rule ``row`` (a stump round adds two rules)."""
    recs = run.records if run is not None else None
    if not recs or len(recs) == n_rows:
        return row
    if run.revised:  # a revised rule: the step of its latest revision
        last = [i for i, r in enumerate(recs) if getattr(r, "kind", "") == "revision" and r.revises == row]
        if last:
            return last[-1]
    ends = np.cumsum([len(getattr(r, "rules", (r.rule,))) for r in recs])
    return int(np.searchsorted(ends, row, side="right"))


def ended_early(estimator) -> str | None:
    """Why a finished fit ended before its budget (the learner's ``stop_message_``), or None."""
    if getattr(estimator, "stop_reason_", "max_rules") in ("max_rules", "cancelled"):
        return None
    return getattr(estimator, "stop_message_", None) or None


def task_of_learner(learner: str) -> str:
    """'classification' or 'regression': the data ``learner`` learns from (classification when unknown)."""
    try:
        return get_learner(learner).task
    except ValueError:
        return "classification"


def task_mismatch(spec: LearnerSpec, data: LoadedData | None) -> str | None:
    """Why ``spec`` cannot learn from ``data`` (a classifier on real-valued targets, a regressor on 0/1
    labels), or None."""
    if data is None:
        return None
    return task_message(spec, data.train.task, data.full.name)


def task_message(spec: LearnerSpec, task: str | None, data_name: str = "the loaded data") -> str | None:
    """Why ``spec`` cannot learn from data of ``task`` named ``data_name`` (None: it can, or no data)."""
    if task is None or spec.fits_task(task):
        return None
    if task == "regression":
        return (f"{spec.title} learns from 0/1 labels, but {data_name} has real-valued targets: choose the "
                "BOOMER regressor, or load multi-label data.")
    return (f"{spec.title} learns real-valued targets, but {data_name} has 0/1 labels: choose a "
            "classification learner, or load regression data.")


MEASURE_TITLES = {"hamming": "Hamming", "subset": "subset 0/1", "mse": "MSE", "mae": "MAE"}


def format_losses(d: dict) -> str:
    parts = []
    for split in ("train", "test"):
        values = [(key[len(split) + 1:], v) for key, v in d.items() if key.startswith(split + "_")]
        if not values or values[0][1] is None or (isinstance(values[0][1], float) and math.isnan(values[0][1])):
            continue
        parts.append(f"{split}: " + " · ".join(f"{MEASURE_TITLES.get(m, m)} {v:.4g}" if m in ("mse", "mae")
                                                else f"{MEASURE_TITLES.get(m, m)} {v:.4f}" for m, v in values))
    return "   |   ".join(parts)


def format_metrics(spec, metrics: dict) -> str:
    """The latest values of the first few declared metrics, for the status bar."""
    shown = [f"{m.label} {metrics[m.name]:.4g}" for m in spec.metrics if m.name in metrics][:3]
    return "  ".join(shown)


def check_model_fits(est, data: LoadedData) -> None:
    """ValueError when a model was trained on data of another shape than ``data``."""
    n_features, n_labels = est.n_features_in_, est.n_labels_
    if n_features != data.train.n_features or n_labels != data.train.n_labels:
        raise ValueError(f"the model expects {n_features} attributes and {n_labels} labels; the data "
                         f"have {data.train.n_features} and {data.train.n_labels}")
    order, _ = match_schema(data.train.feature_names, data.train.nominal_values, getattr(est, "schema_", None),
                            n_features, "the loaded data")  # names and kinds (ValueError naming the first difference)
    if order is not None:
        raise ValueError("the loaded data hold the model's attributes in another order: the window shows a model on "
                         "data in its own order (`python -m engine predict` matches columns by name)")


def regression_records(model, data: LoadedData) -> list:
    """A regressor's model read from a file, rule by rule: the training and test MSE and MAE of its first
    1, 2, ... rules (engine.regression_tracking, from the covered rows of each rule)."""
    trackers = {split: (part.X, RegressionErrors(part.Y)) for split, part in (("train", data.train), ("test", data.test))}
    out = []
    for i, rule in enumerate(model.rules):
        extra = {}
        for split, (X, errors) in trackers.items():
            rows = np.flatnonzero(rule_coverage(rule, X)).astype(np.int64)
            errors.add_head(rows, len(rows), rule.head_labels, rule.head_scores)
            extra.update({f"{split}_{k}": v for k, v in errors.measures().items()})
        coverage = int(rule_coverage(rule, data.train.X).sum())
        out.append(RuleRecord(i, rule, coverage, math.nan, math.nan, math.nan, math.nan, math.nan, extra=extra))
    return out


EVENTS = ("data_changed", "run_added", "run_updated", "run_ended", "run_settled", "run_removing", "run_removed",
          "run_renamed", "history_replaced")


class Controller:
    def __init__(self):
        self.data: LoadedData | None = None
        self.history = RunHistory()
        self.run: Run | None = None  # the run whose rules are shown
        self.estimator = None
        self.model = None
        self.whatif: WhatIf | None = None
        self.unsaved_models: list[str] = []  # runs whose model the last session could not hold
        for name in EVENTS:
            setattr(self, name, Event(name))

    # -- data and runs ---------------------------------------------------------------------------
    def set_data(self, loaded: LoadedData) -> None:
        self.data = loaded
        self.forget_model()
        self.data_changed.emit(loaded)

    def replace_history(self, history: RunHistory) -> None:
        """A session's runs replace this session's."""
        self.history = history
        self.forget_model()
        self.history_replaced.emit(history)

    def remove_run(self, run: Run) -> None:
        """``run`` leaves the session (its lines, its row; its components if it is shown)."""
        if run not in self.history.runs:
            return
        self.run_removing.emit(run)
        self.history.remove(run)
        if self.run is run:
            self.forget_model()
        self.run_removed.emit(run)

    def rename_run(self, run: Run, name: str) -> str:
        """Give ``run`` the name the user typed (stripped; ValueError when it is empty or another
        run's); every view showing the name follows ``run_renamed``."""
        name = check_name(name, self.history.names(but=run))
        if name != run.name:
            run.name = name
            self.run_renamed.emit(run)
        return name

    def forget_model(self) -> None:
        self.estimator = self.model = self.whatif = self.run = None

    def new_run(self, title: str, learner: str, params) -> Run:
        """A run on the loaded data, recording its data set, learner, parameters and seed."""
        run = self.history.new_run(title, learner, params, dataset=self.data.full.name, data_key=self.data.key,
                                   task=task_of_learner(learner))
        run.records = []
        return run

    def begin_run(self, spec: LearnerSpec, params, estimator=None) -> Run:
        """The run of a training that starts now (any learner): it joins the history at once and
        becomes the shown run."""
        run = self.new_run(run_title(spec, params, self.history), spec.key, params)
        run.status = "running"
        self.forget_model()
        self.run, self.estimator = run, estimator
        self.run_added.emit(run)
        return run

    def set_status(self, run: Run, status: str) -> None:
        """preparing | running | paused, while the run trains."""
        run.status = status
        self.run_updated.emit(run)

    def record(self, run: Run, steps) -> None:
        """Steps ``run`` streamed (rule records or any learner's steps): its series and records."""
        steps = list(steps)
        run.append(steps)
        run.records.extend(steps)
        self.run_updated.emit(run)

    def end_run(self, run: Run, state: str, elapsed: float, estimator) -> None:
        """The training of ``run`` ended (finished, stopped or failed): what it learned is kept."""
        run.status, run.elapsed, run.estimator = state, elapsed, estimator
        run.selected = getattr(estimator, "selected_steps_", None)  # global pruning's kept prefix
        run.ended_early = ended_early(estimator) if state == "finished" else None
        self.run_ended.emit(run)

    def settle(self, run: Run) -> None:
        """Every step of ``run`` is on screen (after a slowed-down display or a replay)."""
        run.shown = None
        self.run_settled.emit(run)

    def discard_run(self, run: Run) -> None:
        """A run that could not start: settled with no steps, then out of the history."""
        self.run_settled.emit(run)
        self.remove_run(run)

    # -- replay ------------------------------------------------------------------------------------
    def begin_replay(self, run: Run) -> list:
        """Show ``run`` again from its first step: its records, to be passed to :meth:`replayed`."""
        records = list(run.records) if run.records is not None else []
        run.shown = 0
        self.whatif = None
        self.run_updated.emit(run)
        return records

    def replayed(self, run: Run, n: int) -> None:
        """``n`` more steps of a replayed run are on screen."""
        run.shown = (run.shown or 0) + n
        self.run_updated.emit(run)

    # -- kernels -----------------------------------------------------------------------------------
    def needs_preparation(self, learner: str) -> bool:
        """Are the kernels of ``learner``'s default run on the loaded data not compiled yet?"""
        if self.data is None:
            return False
        try:
            estimator = get_learner(learner).make()
            return not is_prepared(kernel_setting(estimator, self.data.train.X, self.data.train.Y))
        except Exception:  # noqa: BLE001 - no such learner or no kernel key: nothing to prepare
            return False

    def prepares_on_own_data(self, learner: str) -> bool:
        """Whether ``learner``'s defaults and presets compile other kernels on the loaded data than on
        the built-in data (``python -m engine prepare`` then needs the loaded data): e.g. threaded
        sweeps for a file with many attributes and labels, interleaved rows from 8,192 examples."""
        if self.data is None:
            return False

        def keys(X, Y) -> set:
            return {setting_key(setting, X, Y) for setting in default_settings([learner])} - {None}

        builtin = builtin_data()
        return not keys(self.data.train.X, self.data.train.Y) <= keys(builtin["X"], builtin["Y"])

    def close_prompt(self, training: bool) -> str:
        """The question asked before unsaved runs (of every learner) are lost."""
        n = len(self.history)
        what = "A run is still training" if training else f"{n} run{'s' if n != 1 else ''}"
        return f"{what} and the changes since the session was last saved will be lost. Save the session first?"

    def why_not_inspectable(self, run: Run) -> str | None:
        """Why ``run``'s components cannot be shown on the loaded data (None: they can)."""
        est = run.estimator
        if shows_steps(spec_of(run)):
            if not run.records and est is None:
                return f"{run.name}: its steps were not kept (the run has no model)."
            return self._other_data(run, est)
        if getattr(est, "model_", None) is None:
            return f"{run.name}: its rules were not kept (the run has no model)."
        return self._other_data(run, est)

    def _other_data(self, run: Run, est) -> str | None:
        d = self.data
        if est is not None and d is not None and (est.n_features_in_ != d.train.n_features
                                                  or est.n_labels_ != d.train.n_labels):
            return f"{run.name} was trained on {run.dataset or 'other data'}: load that data set to inspect it."
        return None

    def show(self, run: Run, est) -> list:
        """Make ``run`` (with its fitted ``est``) the shown run; returns its records: rule records,
        or the steps of a learner whose steps are not rules (none for a run of an older session)."""
        run.estimator = est
        self.estimator, self.run, self.whatif = est, run, None
        if shows_steps(spec_of(run)):
            self.model = None
            return list(run.records or [])
        self.model = est.model_
        return records_of(run, self.model)

    def reconstruct_run(self, learner: str, est, name: str) -> Run:
        """A run for a model read from a file: its trajectory recomputed by switching its rules on one by
        one (engine WhatIf; losses stay NaN for a model that is not additive)."""
        model, d = est.model_, self.data
        params = dict(est.get_params()) if hasattr(est, "get_params") else {}
        run = self.history.new_run(name, learner, params, dataset=d.full.name, data_key=d.key,
                                   task=task_of_learner(learner))
        run.status = "loaded"
        if run.regression:
            run.append(regression_records(model, d))
            self.run_added.emit(run)
            return run
        n = len(model.rules)
        cov = [int(rule_coverage(r, d.train.X).sum()) for r in model.rules]
        losses = {k: [math.nan] * n for k in LOSSES}
        try:
            w = WhatIf(model, d.train.X, d.train.Y, d.test.X, d.test.Y)
            for i in range(n):
                w.set_active(i, False)
            for i in range(n):
                w.set_active(i, True)
                for key, value in w.losses().items():
                    losses[key][i] = value
        except ValueError:
            pass  # not an additive model: no trajectory
        run.append(RuleRecord(i, model.rules[i], cov[i], math.nan, losses["train_hamming"][i],
                              losses["train_subset"][i], losses["test_hamming"][i], losses["test_subset"][i])
                   for i in range(n))
        self.run_added.emit(run)
        return run

    # -- what-if ---------------------------------------------------------------------------------
    def set_rule_active(self, row: int, on: bool) -> dict:
        """Switch the shown model's rule ``row`` on or off; returns the losses (ValueError for a model
        that is not additive)."""
        if self.whatif is None:
            d = self.data
            self.whatif = WhatIf(self.model, d.train.X, d.train.Y, d.test.X, d.test.Y)
        self.whatif.set_active(row, on)
        return self.whatif.losses()

    def restore_switches(self, active) -> bool:
        """Switch off the rules ``active`` marks off (a session's, or a run shown again); False if the
        model does not allow it."""
        if active is None or all(active):
            return True
        try:
            for i in np.flatnonzero(~np.asarray(active, dtype=bool)):
                self.set_rule_active(int(i), False)
        except ValueError:
            self.whatif = None
            return False
        return True

    def whatif_losses(self) -> dict:
        if self.whatif is not None:
            return self.whatif.losses()
        return self.run.final_losses() if self.run is not None else {}

    # -- sessions --------------------------------------------------------------------------------
    @staticmethod
    def read_session(path) -> tuple[Session, LoadedData]:
        """A session file and its data, read and checked completely (ValueError, OSError) before
        anything changes: the file, every run and model, the data, and that the model fits them."""
        session = load_session(path)
        loaded = load_data(session.data)
        if session.estimator is not None:
            check_model_fits(session.estimator, loaded)
        return session, loaded

    def session(self, learner: str, params: dict, has_model: bool, active, view: dict | None = None) -> Session:
        """The session document: data, learner settings, the shown model and its switches, and every
        run of every learner with its series, its steps and its model (so any run can be inspected
        after reopening as it was).  A model that
        cannot be written (a run stopped before its first step) is left out and its run named in
        :attr:`unsaved_models`; its series and every other run are saved."""
        if self.data is None:
            raise ValueError("there is nothing to save: no data loaded")
        self.unsaved_models = []
        model_doc = self._model_document(self.estimator) if self.estimator is not None and has_model else None
        current = self.history.runs.index(self.run) if self.run in self.history.runs and model_doc else None
        switches = list(map(bool, active)) if model_doc and active is not None and not all(active) else None
        runs = []
        for run in self.history:
            d = run.to_dict()
            if run.estimator is not None and not (run is self.run and model_doc):
                d["model"] = self._model_document(run.estimator)
                if d["model"] is None:
                    del d["model"]
                    self.unsaved_models.append(run.name)
            if "model" not in d:  # the shown run's switches are the session's; a run without a model has none
                d.pop("active", None)
            steps = steps_document(run, "model" in d or (run is self.run and model_doc is not None))
            if steps is not None:
                d["steps"] = steps
            runs.append(d)
        return Session(data=self.data.spec, learner=learner, params=params, model=model_doc, runs=runs,
                       current_run=current, active=switches, view=dict(view or {}))

    @staticmethod
    def _model_document(estimator) -> dict | None:
        """The estimator's model document; None when it has none (not fitted, or no such method)."""
        try:
            return exports.model_document(estimator)
        except (AttributeError, ValueError, TypeError):
            return None
