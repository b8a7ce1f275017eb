"""The window's background preparation of kernels, without Qt: what to compile next, when to pause,
and how far it is.

For the data on screen the plan is a queue of ``python -m engine prepare`` children: first the
setting on the learner panel when its kernels are not compiled yet, then ``--all`` (every kernel
component the panels can reach, skipping those already prepared; see :mod:`engine.families`).  A run
pauses the child (suspended, or killed and started again later where a process cannot be
suspended: the families prepared so far are stamped and skipped then); the run's end resumes it.
The adapter (:mod:`boomer_gui.window.background_prep`) runs the children and calls :meth:`event`
and :meth:`child_finished`; it follows :attr:`start_child`, :attr:`suspend_child`,
:attr:`resume_child`, :attr:`kill_child` and redraws on :attr:`changed`."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from engine.prepare import is_prepared, kernel_setting

from boomer_gui.components.events import Event

COMPILE_ESTIMATE_S = {"boomer": 45, "adaboost-mh": 15, "seco": 15}  # an empty cache's first step (cold_start.md)
DEFAULT_ESTIMATE_S = 20


def setting_ready(spec, params: dict, X, Y) -> bool | None:
    """Whether a run of ``spec`` with ``params`` on data like ``X``, ``Y`` finds its kernels compiled
    (None: the setting is not valid, its run will say why)."""
    try:
        return is_prepared(kernel_setting(spec.make(**params), X, Y))
    except Exception:  # noqa: BLE001 - any invalid parameter
        return None


def readiness_text(learner: str, ready: bool | None) -> str:
    """The mark beside Start: 'ready', or how long the first run compiles."""
    if ready is None:
        return ""
    if ready:
        return "ready"
    return f"first run compiles (~{COMPILE_ESTIMATE_S.get(learner, DEFAULT_ESTIMATE_S)} s)"


@dataclass
class BackgroundPlan:
    """The queue of children for the data on screen and the families' count.

    ``can_suspend``: the adapter can stop and continue a child (POSIX signals); else a pause kills it
    and the resume starts the job again."""

    can_suspend: bool = True
    enabled: bool = True
    jobs: list = field(default_factory=list)  # args of the children still to start
    child: list | None = None  # args of the running (or suspended) child
    suspended: bool = False
    training: bool = False
    total: int | None = None  # kernel components (stamps: the --all child's 'families' event)
    ready: int = 0
    failed: int = 0
    current: str = ""  # the setting being prepared
    done: bool = False
    complete: set = field(default_factory=set)  # data kinds whose families were all ready

    def __post_init__(self):
        self.start_child = Event("start_child")  # (args)
        self.suspend_child = Event("suspend_child")
        self.resume_child = Event("resume_child")
        self.kill_child = Event("kill_child")
        self.changed = Event("changed")
        self.data_kind = ""

    # -- what to prepare ---------------------------------------------------------------------------
    def begin(self, data_kind: str, data_args: list, first: tuple | None = None) -> None:
        """New data (``data_kind`` names what their families depend on; ``data_args`` are ``--data
        FILE`` or nothing): the on-screen setting ``first`` = (learner, params) when not ready, then
        every family.  Nothing when off, or when every family was found ready for this kind before."""
        self.stop()
        self.data_kind = data_kind
        if not self.enabled:
            return
        if first is not None:
            learner, params = first
            self.jobs.append(["--learner", learner, "--params", json.dumps(params, default=str), *data_args])
        if data_kind not in self.complete:
            self.jobs.append(["--all", *data_args])
        self._next()

    def stop(self) -> None:
        """Kill the child and forget the queue (the kernels compiled so far stay in the cache)."""
        if self.child is not None:
            self.kill_child.emit()
        self.jobs, self.child, self.suspended = [], None, False
        self.total, self.ready, self.failed, self.current, self.done = None, 0, 0, "", False
        self.changed.emit()

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        if not on:
            self.stop()

    def _next(self) -> None:
        if self.child is None and self.jobs and not self.training:  # a run's end starts it
            self.child = self.jobs.pop(0)
            self.start_child.emit(list(self.child))
        elif self.child is None and not self.jobs:
            self.done = self.total is not None
        self.changed.emit()

    # -- runs --------------------------------------------------------------------------------------
    def run_started(self) -> None:
        self.training = True
        self._pause()
        self.changed.emit()

    def run_ended(self) -> None:
        self.training = False
        if self.suspended:
            self.suspended = False
            self.resume_child.emit()
        self._next()

    def _pause(self) -> None:
        if self.child is None or self.suspended:
            return
        if self.can_suspend:
            self.suspended = True
            self.suspend_child.emit()
        else:  # started again after the run: the prepared families are skipped then
            self.kill_child.emit()
            self.jobs.insert(0, self.child)
            self.child = None

    # -- the child's progress ------------------------------------------------------------------------
    def event(self, event: dict) -> None:
        """A JSON event of the running child (see :mod:`engine.prepare`)."""
        kind = event.get("event")
        all_child = self.child is not None and self.child[:1] == ["--all"]
        if kind == "families" and all_child:
            self.total, self.ready = int(event.get("total", 0)), int(event.get("ready", 0))
            if self.total == self.ready:
                self.complete.add(self.data_kind)
        elif kind == "setting":
            self.current = str(event.get("label", ""))
        elif kind == "prepared" and all_child:  # a setting can make more than one stamp ready
            self.ready += int(event.get("stamped", 1))
            self.ready = self.ready if self.total is None else min(self.ready, self.total)
        elif kind == "error" and all_child:
            self.failed += 1
        else:
            return
        self.changed.emit()

    def child_finished(self, ok: bool) -> None:
        """The running child ended by itself (``ok``: every setting it had was prepared)."""
        if self.child is not None and self.child[:1] == ["--all"] and ok:
            self.complete.add(self.data_kind)
        self.child, self.suspended, self.current = None, False, ""
        self._next()

    # -- how far it is ------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.child is not None or bool(self.jobs)

    def text(self) -> str:
        """'kernels ready for 14 of 22 kernel components · preparing …' for the status bar."""
        if not self.enabled:
            return ""
        if self.total is None:
            return "preparing kernels in the background…" if self.active else ""
        counted = f"kernels ready for {self.ready:,} of {self.total:,} kernel components"
        if self.failed:
            counted += f" ({self.failed} failed)"
        if not self.active:
            return counted
        if self.training:
            return counted + " · paused while a run trains"
        return counted + (f" · preparing {self.current}" if self.current else "")
