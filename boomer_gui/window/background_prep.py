"""The window's background preparation: :class:`~boomer_gui.components.background_preparation.BackgroundPlan`
run with low-priority ``python -m engine prepare`` children, its progress in the status bar and the
mark beside Start ('ready' or 'first run compiles').

``BOOMER_NO_BACKGROUND_PREPARE`` (tests) or View ▸ Prepare kernels in the background turns it off.
The built-in data's families are prepared on the built-in data; a file whose usual settings need
other families (threaded sweeps, interleaved rows) on a copy of the loaded data."""
from __future__ import annotations

import contextlib
import os

from PySide6.QtCore import QObject

from boomer_gui.adapters.preparation import KernelPreparation, data_copy
from boomer_gui.components.background_preparation import BackgroundPlan, readiness_text, setting_ready

OFF_ENV = "BOOMER_NO_BACKGROUND_PREPARE"


class BackgroundPreparation(QObject):
    LEARNER = "boomer"  # the learner whose usual settings decide whether a file needs its own families

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.plan = BackgroundPlan(can_suspend=KernelPreparation.can_suspend, enabled=not os.environ.get(OFF_ENV))
        self.process: KernelPreparation | None = None
        self.data_key: str | None = None  # the data the queue prepares for
        self.data_file: str | None = None  # the copy of them the children read (None: the built-in data)
        self.extra_args: list[str] = []  # tests: e.g. ['--families', FILE] for a small set of families
        plan = self.plan
        plan.start_child.connect(self._start_child)
        plan.kill_child.connect(self._kill_child)
        plan.suspend_child.connect(lambda: self.process is not None and self.process.suspend())
        plan.resume_child.connect(lambda: self.process is not None and self.process.resume())
        plan.changed.connect(self._show)

    # -- the window's events -----------------------------------------------------------------------
    def data_changed(self) -> bool:
        """The window shows new data: prepare the setting on screen and every family for them (a
        queue for other data is replaced).  Returns whether a child started."""
        w = self.w
        self.show_readiness()
        if not self.plan.enabled or w.app.data is None:
            return False
        if self.process is not None and self.data_key == w.app.data.key:
            return False
        self.stop()
        data_args, kind = [], "built-in"
        if w.app.prepares_on_own_data(self.LEARNER):
            self.data_file = data_copy(w.app.data.train, w.app.data.test, "boomer-background-")
            if self.data_file is None:  # no room for the copy: each run prepares itself
                return False
            data_args, kind = ["--data", self.data_file], w.app.data.key
        self.data_key = w.app.data.key
        self.plan.begin(kind, data_args, None if self.on_screen_ready() is not False else self._on_screen())
        self.show_readiness()
        return self.process is not None

    def setting_changed(self) -> None:
        """The learner panel changed: mark the setting; prepare it when nothing else is being prepared."""
        self.show_readiness()
        w = self.w
        if self.plan.enabled and not self.plan.active and w.app.data is not None and \
                self.on_screen_ready() is False and not w.training_active:
            self.data_key = None
            self.data_changed()

    def pause(self) -> None:
        """A run starts: the child waits (suspended) until it ends."""
        self.plan.run_started()

    def resume(self) -> None:
        """The run ended: its setting is prepared now, and the child goes on."""
        self.plan.run_ended()
        self.show_readiness()

    def set_enabled(self, on: bool) -> None:
        """View ▸ Prepare kernels in the background."""
        self.plan.set_enabled(on)
        if on:
            self.data_key = None
            self.data_changed()
        else:
            self.stop()

    def stop(self) -> None:
        """Kill the child and forget the queue (the kernels compiled so far stay in the cache)."""
        self.plan.stop()
        self._kill_child()
        if self.data_file is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.data_file)
            self.data_file = None
        self.data_key = None

    # -- the setting on screen -----------------------------------------------------------------------
    def _on_screen(self) -> tuple | None:
        panel = self.w.learner_panel
        return None if panel.spec is None else (panel.spec.key, panel.params())

    def on_screen_ready(self) -> bool | None:
        data, panel = self.w.app.data, self.w.learner_panel
        if data is None or panel.spec is None:
            return None
        return setting_ready(panel.spec, panel.params(), data.train.X, data.train.Y)

    def show_readiness(self) -> None:
        """The mark beside Start for the setting on the learner panel."""
        panel = self.w.learner_panel
        key = panel.spec.key if panel.spec is not None else ""
        self.w.run_controls.set_readiness(readiness_text(key, self.on_screen_ready()))

    # -- the children -------------------------------------------------------------------------------
    def _start_child(self, args: list) -> None:
        self.process = KernelPreparation([*args, *self.extra_args] if args[:1] == ["--all"] else args,
                                         self.w, low_priority=True)
        self.process.event.connect(self._on_event)
        self.process.finished.connect(self._on_finished)
        self.process.start()

    def _kill_child(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.deleteLater()
            self.process = None

    def _on_event(self, event: dict) -> None:
        if self.sender() is self.process:
            self.plan.event(event)
            if event.get("event") == "prepared":
                self.show_readiness()

    def _on_finished(self, ok: bool, message: str) -> None:
        if self.sender() is not self.process:
            return
        self._kill_child()
        if not ok and message:
            self.w.statusBar().showMessage(f"Some kernels could not be prepared in advance: {message}", 8000)
        self.plan.child_finished(ok)
        self.show_readiness()

    def _show(self) -> None:
        self.w.background_label.setText(self.plan.text())
