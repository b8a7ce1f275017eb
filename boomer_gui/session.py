"""Session files: everything needed to reopen a demo as it was (JSON, no Qt).

A session holds the data source (file path or synthetic kind/size/seed) and split, the learner
key and parameters, the current model (the estimator's own model document), which rules are
switched on, and the trajectories of all runs."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .state import DataSpec, RunHistory

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

    def to_dict(self) -> dict:
        return {"format": SESSION_FORMAT, "version": SESSION_VERSION, "data": self.data.to_dict(),
                "learner": {"key": self.learner, "params": self.params}, "model": self.model,
                "runs": self.runs, "current_run": self.current_run, "active": self.active}

    @classmethod
    def from_dict(cls, d: dict) -> "Session":
        if not isinstance(d, dict) or d.get("format") != SESSION_FORMAT:
            raise ValueError("not a session file of this tool")
        if int(d.get("version", 0)) > SESSION_VERSION:
            raise ValueError(f"session version {d.get('version')} is newer than this program understands")
        try:
            learner = d["learner"]
            return cls(data=DataSpec.from_dict(d["data"]), learner=str(learner["key"]),
                       params=dict(learner.get("params") or {}), model=d.get("model"),
                       runs=list(d.get("runs") or []), current_run=d.get("current_run"), active=d.get("active"))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed session file: missing or wrong field {exc}") from None

    def history(self) -> RunHistory:
        return RunHistory.from_list(self.runs)


def save_session(path, session: Session) -> None:
    Path(path).write_text(json.dumps(session.to_dict(), indent=1), encoding="utf-8")


def load_session(path) -> Session:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{Path(path).name} is not a JSON session file: {exc}") from None
    return Session.from_dict(doc)
