"""The run driver: one training at a time, from Start to its last step on screen.

It owns the training worker (:class:`~boomer_gui.adapters.training.TrainingRun`) and the paced
display (:class:`~boomer_gui.adapters.playback.Playback`), feeds what they deliver to the
application model (``begin_run``, ``record``, ``end_run``, ``settle``, replays), and keeps the
run controls and the status line current.  The views follow the model's events; what the driver
touches directly is the shown run's table (rules appear at the chosen pace) and the run bar."""
from __future__ import annotations

import time

from PySide6.QtCore import QObject
from superqt.utils import qthrottled

from boomer_gui.adapters.playback import Playback
from boomer_gui.adapters.training import TrainingRun
from boomer_gui.components.controller import format_losses, format_metrics, shows_steps, spec_of, task_mismatch
from boomer_gui.panels.run_controls import preparation_text

STATUS_INTERVAL_MS = 500
REPLAY_RATE = 10  # steps per second of a replay asked for at unlimited speed


class RunDriver(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.app = window.app
        self.training: TrainingRun | None = None
        self.playback = Playback(self)
        self.title = ""
        self.budget: tuple = (None, "rule")  # the run's step budget and the noun of a step
        self.started_at = 0.0
        self.ending = None  # (run, state, elapsed) of a run whose last records are still being shown
        self.replaying = None  # the run being replayed
        self.replay_started = 0.0
        self.step_after_batch = False
        self.playback.released.connect(self.display)
        self.playback.drained.connect(self._playback_drained)
        # progress, rate and losses a few times a second, not per batch (each label change repaints)
        self.refresh_soon = qthrottled(self.refresh_status, timeout=STATUS_INTERVAL_MS, leading=False, parent=self)

    # -- state -----------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.training is not None and self.training.active

    @property
    def playing(self) -> bool:
        return self.playback.pending > 0 or self.replaying is not None

    @property
    def state(self) -> str:
        """preparing | running | paused (training or showing steps) | idle."""
        if self.active:
            return self.training.state
        if self.playing:
            return "paused" if self.playback.paused else "running"
        return "idle"

    # -- start -----------------------------------------------------------------------------------
    def start(self) -> bool:
        """Train the setup panel's learner on the loaded data; the run joins the history at once."""
        w = self.w
        if self.active or w.loading:  # never train while the data may change
            return False
        self.settle()
        if self.app.data is None:
            w.show_error("No data", "Open a data file or generate a synthetic data set first.")
            return False
        spec, params = w.learner_panel.spec, w.learner_panel.params()
        mismatch = task_mismatch(spec, self.app.data)  # a classifier on real targets, a regressor on labels
        if mismatch is not None:
            w.show_error("Learner does not fit the data", mismatch)
            return False
        try:
            estimator = spec.make(**params)
        except (ValueError, TypeError) as exc:
            w.show_error("Invalid learner settings", w.error_text(exc))
            return False
        w.views.clear()
        w.browser.model.set_step_columns(spec.step_columns, spec.improvement)
        steps = spec.steps_of(params)  # rules, and revisions of rules
        self.budget = (steps, spec.component.noun if steps == spec.budget_of(params) else "step")
        w.plot.set_budget(spec.budget_of(params))
        run = self.app.begin_run(spec, params, estimator)
        w.views.show_steps_of(spec if shows_steps(spec) else None)
        if not self._launch(estimator, spec, params, run):
            return False
        w.unsaved = True
        self.title = run.name
        w.run_controls.set_budget(*self.budget)
        w.step_view.run = run if w.views.step_spec is not None else None
        w.run_table.select(run)
        if self.training.state == "preparing":  # its state signal came before the run was known
            self._enter_preparing()
        else:
            w.statusBar().showMessage(f"Training {self.title}…")
        w.update_enabled()
        return True

    def _launch(self, estimator, spec, params, run) -> bool:
        """Start the worker (or its kernel preparation); on failure the run leaves the history."""
        w = self.w
        data = self.app.data
        training = TrainingRun(estimator, data.train, data.test, parent=w, setting=(spec.key, params))
        training.batch.connect(self._on_batch)
        training.stateChanged.connect(self._on_state)
        training.preparing.connect(self._on_preparing)
        training.failed.connect(self._on_failed)
        training.warned.connect(lambda msg: w.statusBar().showMessage(f"Warning: {msg}", 10000))
        w.background_prep.pause()  # the run (and its own preparation, if any) first
        try:
            training.start()
        except (ValueError, TypeError, MemoryError) as exc:
            self.app.discard_run(run)
            training.deleteLater()
            w.background_prep.resume()
            w.show_error("Cannot start training", w.error_text(exc))
            w.update_enabled()
            return False
        self.training = training
        self.started_at = time.perf_counter()
        return True

    # -- preparing -------------------------------------------------------------------------------
    def _enter_preparing(self) -> None:
        if self.app.run is not None:
            self.app.set_status(self.app.run, "preparing")
        self._show_preparation({})
        self.w.update_enabled()

    def _on_preparing(self, progress: dict) -> None:
        if self.training is not None and self.sender() is self.training:
            self._show_preparation(progress)

    def _show_preparation(self, progress: dict) -> None:
        """The run's kernels are compiled in a child process: what, how many, how long (no rate)."""
        text = preparation_text(progress)
        self.w.run_controls.show_preparing(text)
        self.w.statusBar().showMessage(f"Preparing {self.title} (first use only): {text}")

    # -- pause, resume, stop, speed, step --------------------------------------------------------
    def pause(self) -> None:
        if self.playback.rate is not None or self.training is None:  # at full speed the learned rules still show
            self.playback.pause()
        if self.training is not None:
            self.training.pause()
        self.w.update_enabled()

    def resume(self) -> None:
        self.playback.resume()
        if self.training is not None:
            self.training.resume()
        self.w.update_enabled()

    def toggle_pause(self) -> None:
        if self.playback.paused or (self.training is not None and self.training.state == "paused"):
            self.resume()
        else:
            self.pause()

    def stop(self) -> None:
        if self.training is not None:
            self.training.stop()
        elif self.playing:  # a replay, or the last rules of a finished run: show the rest now
            self.playback.resume()
            self.settle()

    def set_speed(self, rate) -> None:
        """Rules shown per second (None: as fast as they are learned)."""
        self.playback.set_rate(rate)
        self.w.run_controls.show_speed(rate)
        self.w.update_enabled()

    def step(self) -> None:
        """Show one more rule: pause, then the next queued rule (learning one more if none is)."""
        if self.active and self.training.state == "running":
            self.training.pause()
        if self.playback.step():
            self.refresh_status()
            return
        if self.active and self.training.state == "paused" and self.w.views.step_spec is None:
            self.step_after_batch = True
            self.training.resume()

    # -- steps arriving --------------------------------------------------------------------------
    def _on_batch(self, records: list) -> None:
        if self.training is None or self.sender() is not self.training:
            return
        if self.w.views.step_spec is not None:  # steps that are not rules: shown as they arrive
            self.app.record(self.app.run, records)
            self.w.step_view.append(records)
            self.refresh_soon()
            return
        if self.step_after_batch:  # Step asked for one more rule: the learner pauses again
            self.step_after_batch = False
            self.training.pause()
            self.playback.pause()
            self.playback.feed(records)
            self.playback.step()
            return
        self.playback.feed(records)

    def display(self, records: list) -> None:
        """Records the playback releases: into the table and, through the model, the run's series."""
        run = self.replaying or self.app.run
        if run is None:
            return
        self.w.browser.model.append(records)
        if self.replaying is not None:
            self.app.replayed(run, len(records))
        else:
            self.app.record(run, records)
            if self.training is not None and self.training.state == "paused":
                self.w.views.explain_so_far()  # stepping while paused: the explanation follows
        if self.replaying is not None or self.training is None:
            self.w.browser.update_count()
            self.w.run_controls.set_progress(run.view_len(), self.playback.rate or 0.0, None,
                                             "replay" if self.replaying is not None else "")
        if self.training is None or self.training.state == "paused":
            self.refresh_status()  # paced play, Step and Replay: the losses of the step on screen
        else:
            self.refresh_soon()

    def refresh_status(self) -> None:
        """Progress, rate, time left and the losses of the step on screen."""
        w, t, run = self.w, self.training, self.app.run
        if t is not None and t.state != "preparing":
            w.run_controls.set_progress(t.received, t.meter.rate(), t.meter.eta(t.received, self.budget[0]),
                                        "paused" if t.state == "paused" else "")
            if run is not None:
                w.run_model.run_changed(run)  # its size and losses so far in the run table
        self.show_latest_losses()
        w.browser.update_count()

    def show_latest_losses(self) -> None:
        """The status bar's losses: of the last step *shown* (the table's last rule, a replay's
        position), or a non-rule learner's latest declared metrics."""
        w, run = self.w, self.replaying or self.app.run
        steps = w.step_view.model.steps if w.views.step_spec is not None else None
        if steps:
            w.loss_label.setText(format_metrics(w.views.step_spec, steps[-1].metrics))
        elif run is not None and len(run):
            w.loss_label.setText(format_losses(run.losses_at(run.view_len() - 1) if run.view_len() else {}))

    # -- the learner's state ---------------------------------------------------------------------
    def _on_state(self, state: str) -> None:
        if self.training is None or self.sender() is not self.training:
            return
        if state == "preparing":
            self._enter_preparing()
        elif state in ("running", "paused"):
            self._running_or_paused(state)
        else:
            self._ended(state)

    def _running_or_paused(self, state: str) -> None:
        w, t = self.w, self.training
        if self.app.run is not None:
            self.app.set_status(self.app.run, state)
        if w.run_controls.state == "preparing":  # prepared: the run itself starts now
            w.run_controls.set_budget(*self.budget)
            self.started_at = time.perf_counter()
        w.run_controls.set_state(state)
        w.run_controls.set_progress(t.received, t.meter.rate(), None, "paused" if state == "paused" else "")
        w.statusBar().showMessage("Paused" if state == "paused" else f"Training {self.title}…", 3000)
        if state == "paused":
            w.views.explain_so_far()
        else:
            w.views.forget_explanation()  # no model predictions while the learner computes
        w.update_enabled()

    def _ended(self, state: str) -> None:
        """finished | stopped | failed: the estimator holds what was learned so far."""
        w, run = self.w, self.app.run
        elapsed = time.perf_counter() - self.started_at
        self.refresh_soon.cancel()
        self.training = None
        self.app.end_run(run, state, elapsed, self.app.estimator)
        w.background_prep.resume()
        if w.views.step_spec is not None:
            self._steps_ended(run, state, elapsed)
            return
        self.ending = (run, state, elapsed)
        if self.playback.pending:  # the rules not yet shown follow at the chosen speed
            w.statusBar().showMessage(f"{run.name}: training {state}; showing its rules at the chosen speed", 6000)
            w.update_enabled()
            return
        self._complete(run, state, elapsed)

    def _steps_ended(self, run, state: str, elapsed: float) -> None:
        w = self.w
        n = len(w.step_view.model.steps)
        w.views.steps_fitted = n > 0
        w.step_view.plots.flush()
        self.app.settle(run)
        w.run_controls.finish(n, state, elapsed, run.ended_early)
        self.show_latest_losses()
        noun = w.views.step_spec.component.noun
        w.statusBar().showMessage(f"{run.name}: {n} {noun}{'' if n == 1 else 's'}, {state} after {elapsed:.1f} s",
                                  10000)
        w.update_enabled()

    def _complete(self, run, state: str, elapsed: float) -> None:
        """Every rule of a finished run is shown: attach the model (what-if, explanations)."""
        w = self.w
        self.ending = None
        self.app.model = getattr(self.app.estimator, "model_", None)
        w.browser.table.flush_repaint()
        self.app.settle(run)
        w.run_controls.finish(len(run), state, elapsed, run.ended_early)
        w.views.attach_model()
        early = f" — {run.ended_early}" if run.ended_early else ""
        w.statusBar().showMessage(f"{run.name}: {w.run_model.size_text(run)}, {state} after {elapsed:.1f} s{early}",
                                  15000 if early else 10000)
        w.update_enabled()

    def _on_failed(self, exc) -> None:
        if not self.w.closing:
            self.w.show_error("Training failed", self.w.error_text(exc))

    # -- replay ----------------------------------------------------------------------------------
    def replay(self, run=None) -> bool:
        """Show a finished run again rule by rule from its records (no retraining), at the chosen
        speed (REPLAY_RATE rules/s when it is unlimited)."""
        w = self.w
        run = run or self.app.run
        if run is None or self.active or shows_steps(spec_of(run)):
            return False
        if run is not self.app.run and not w.show_run(run):
            return False
        self.settle()
        records = self.app.begin_replay(run)
        if not records:
            self.app.settle(run)
            return False
        self.replaying = run
        self.replay_started = time.perf_counter()
        w.browser.model.clear()
        w.browser.model.set_checkable(False)
        w.plot.highlight(None, None)
        if self.playback.rate is None:
            self.set_speed(REPLAY_RATE)
        self.playback.resume()
        w.statusBar().showMessage(f"Replaying {run.name}…", 4000)
        self.playback.feed(records)
        w.update_enabled()
        return True

    def _playback_drained(self) -> None:
        if self.ending is not None and not self.playback.pending:
            self._complete(*self.ending)
        elif self.replaying is not None:
            self._finish_replay()

    def _finish_replay(self) -> None:
        run, self.replaying = self.replaying, None
        self.app.settle(run)
        self.w.views.attach_model()
        self.w.run_controls.finish(len(run), "replayed", time.perf_counter() - self.replay_started)
        self.w.update_enabled()

    def settle(self) -> None:
        """Finish what the playback still has to show (a run's last rules, a replay) at once."""
        if self.playback.pending:
            self.playback.flush()
        if self.replaying is not None:
            self._finish_replay()

    # -- closing ---------------------------------------------------------------------------------
    def shutdown(self, wait_ms: int) -> bool:
        """Stop the training (the rules learned so far are kept); False if its thread is still busy."""
        self.refresh_soon.cancel()
        training, stopped = self.training, True
        if training is not None and training.active:
            training.stop()
            stopped = training.wait(wait_ms)
        if training is not None:
            training.batcher.stop()
        return stopped
