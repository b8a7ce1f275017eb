"""Session files: everything needed to reopen a demo as it was (JSON, no Qt).

A session holds the data source (file path or synthetic kind/size/seed) and split, the learner
key and parameters, the current model (the estimator's own model document), which rules are
switched on, every run of every learner (its trajectory, its steps, its model and its what-if
switches) and the view: filters, the selected rule and step, the explained example, the shown tabs."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engine import model_document as check
from engine import persistence
from engine.fileio import atomic_write_text
from engine.registry import get as get_learner

from boomer_gui.components.state import DataSpec, RunHistory

SESSION_FORMAT = "boomer-gui-session"
SESSION_VERSION = 1


@dataclass
class Session:
    data: DataSpec
    learner: str
    params: dict
    model: dict | None = None
    runs: list = field(default_factory=list)  # Run.to_dict() of every run
    current_run: int | None = None  # index into runs of the run the model belongs to
    active: list | None = None  # what-if switches of the model's rules
    view: dict = field(default_factory=dict)  # the rule filters and the selected rule (VIEW_FIELDS)
    estimator: object | None = field(default=None, repr=False, compare=False)  # built from ``model``
    checked_runs: RunHistory | None = field(default=None, repr=False, compare=False)  # built from ``runs``

    def to_dict(self) -> dict:
        return {"format": SESSION_FORMAT, "version": SESSION_VERSION, "data": self.data.to_dict(),
                "learner": {"key": self.learner, "params": self.params}, "model": self.model,
                "runs": self.runs, "current_run": self.current_run, "active": self.active, "view": self.view}

    @classmethod
    def from_dict(cls, d: dict) -> "Session":
        """A session from its document, checked completely before anything is applied.

        Data spec, learner key and parameters, the model (by the engine's model checks; the
        estimator is built here and kept in :attr:`estimator`), every run, ``current_run`` and
        the what-if switches are validated; any problem is one ValueError.  Afterwards only
        loading the data file itself can fail."""
        if not isinstance(d, dict) or d.get("format") != SESSION_FORMAT:
            raise ValueError("not a session file of this tool")
        version = d.get("version", 0)
        if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= SESSION_VERSION:
            raise ValueError(f"session version {version!r} is not one this program reads (1 to {SESSION_VERSION})")
        for key in ("data", "learner"):
            if key not in d:
                raise ValueError(f"malformed session file: missing field {key!r}")
        data = DataSpec.from_dict(d["data"])
        learner = check.mapping(d["learner"], "learner")
        key = check.string(learner.get("key"), "learner, key")
        params = dict(check.mapping(learner.get("params") or {}, "learner, params"))
        if key:
            get_learner(key).factory.from_params(params)  # unknown names and bad values: ValueError
        estimator = None
        model = d.get("model")
        if model is not None:
            estimator = persistence.estimator_from_document(model, "session model")
        runs = check.sequence(d.get("runs") or [], "runs", max_length=10_000)
        current = d.get("current_run")
        if current is not None:
            if model is None:
                raise ValueError("current_run: the session has no model")
            current = check.integer(current, "current_run", 0, max(len(runs), 1))
            if current >= len(runs):
                raise ValueError(f"current_run: {current} but the session has {len(runs)} runs")
        # every run, its model and its steps checked, once (the shown run's model is the session's)
        checked_runs = RunHistory.from_list(runs, {current: estimator} if current is not None else None)
        active = d.get("active")
        if active is not None:
            if estimator is None:
                raise ValueError("active: the session has no model")
            active = check.sequence(active, "active")
            if getattr(estimator, "model_", None) is None:
                raise ValueError("active: the session's model has no rules to switch")
            if len(active) != len(estimator.model_.rules) or not all(isinstance(a, bool) for a in active):
                raise ValueError(f"active: expected {len(estimator.model_.rules)} true/false switches, "
                                 f"one per rule of the model")
        session = cls(data=data, learner=key, params=params, model=model, runs=list(runs), current_run=current,
                      active=active, view=check_view(d.get("view")))
        session.estimator = estimator
        session.checked_runs = checked_runs
        return session

    def history(self) -> RunHistory:
        """The session's runs (built when the file was checked; a new session builds them now)."""
        if self.checked_runs is None:
            self.checked_runs = RunHistory.from_list(self.runs)
        return self.checked_runs


VIEW_FIELDS = ("label_filter", "attribute_filter", "text_filter", "strongly", "selected_rule", "selected_step",
               "example", "top_tab", "details_tab", "plot_tab")


def check_view(view) -> dict:
    """The view state of a session: label and attribute filters (indices or null), the filter text,
    the selected rule and step, the explained test example and the shown tabs (indices or null);
    unknown fields are refused."""
    if view is None:
        return {}
    view = check.mapping(view, "view")
    unknown = sorted(str(k) for k in view if k not in VIEW_FIELDS)
    if unknown:
        raise ValueError(f"view: unknown field(s) {', '.join(unknown)}")
    out = {}
    for key, value in view.items():
        if key == "text_filter":
            out[key] = check.string(value, f"view, {key}")[:1000]
        elif key == "strongly":
            if not isinstance(value, bool):
                raise ValueError("view, strongly: expected true or false")
            out[key] = value
        elif value is not None:
            out[key] = check.integer(value, f"view, {key}", 0, 10 ** 7)
        else:
            out[key] = None
    return out


def save_session(path, session: Session) -> None:
    atomic_write_text(path, json.dumps(session.to_dict(), indent=1))


def load_session(path) -> Session:
    """Read and check a session file completely (see :meth:`Session.from_dict`); ValueError for
    any bad content, FileNotFoundError for a missing file."""
    doc = persistence.read_json_file(path, "session file")
    try:
        return Session.from_dict(doc)
    except ValueError as exc:
        raise ValueError(f"{Path(path).name}: {exc}") from None
