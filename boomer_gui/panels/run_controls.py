"""Start, Pause/Resume and Stop, with a progress bar: rules learned, rules per second, time left;
while a run's kernels are prepared, what is compiled and for how long.

One row, made for the main window's always-visible toolbar."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QStyle, QWidget

from boomer_gui.adapters.playback import SPEEDS


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


PREPARING_TIP = ("The kernels of this setting are compiled once, after installation (a few minutes), in a "
                 "separate process; later runs start at once. Stop works at any moment.")


def preparation_text(progress: dict) -> str:
    """'compiling NAME · 12 kernels compiled · 0:42' from a KernelPreparation's progress."""
    kernel, n = progress.get("kernel"), int(progress.get("compiled", 0))
    return " · ".join([f"compiling {kernel}" if kernel else "starting the compiler",
                       f"{n} kernel{'' if n == 1 else 's'} compiled", format_eta(progress.get("elapsed", 0.0))])


class RunControls(QWidget):
    startRequested = Signal()
    pauseRequested = Signal()
    resumeRequested = Signal()
    stopRequested = Signal()
    speedChanged = Signal(object)  # steps per second, None: unlimited
    stepRequested = Signal()
    replayRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        style = self.style()
        self.start_button = QPushButton(style.standardIcon(QStyle.SP_MediaPlay), "Start")
        self.start_button.setToolTip("Train the selected learner on the training data (Ctrl+R)")
        self.pause_button = QPushButton(style.standardIcon(QStyle.SP_MediaPause), "Pause")
        self.pause_button.setToolTip("Pause or resume training between two rules")
        self.stop_button = QPushButton(style.standardIcon(QStyle.SP_MediaStop), "Stop")
        self.stop_button.setToolTip("Stop training; the rules learned so far are kept")
        self.step_button = QPushButton(style.standardIcon(QStyle.SP_MediaSkipForward), "Step")
        self.step_button.setToolTip("Pause and show one more rule (Ctrl+Right)")
        self.readiness = QLabel("")  # 'ready' or 'first run compiles (~45 s)' for the setting on screen
        self.readiness.setToolTip("Whether the kernels of the learner panel's setting are compiled already; "
                                  "the window compiles them in the background")
        self.readiness.setSizePolicy(QSizePolicy.Maximum, QSizePolicy.Preferred)
        self.readiness.setMinimumWidth(1)  # gives way on a narrow screen rather than widening the window
        self.replay_button = QPushButton(style.standardIcon(QStyle.SP_BrowserReload), "Replay")
        self.replay_button.setToolTip("Show the shown run again, rule by rule, from its records (no retraining)")
        self.speed = QComboBox()
        for rate in SPEEDS:
            self.speed.addItem("full speed" if rate is None else f"{rate} rules/s", rate)
        self.speed.setToolTip("How fast new rules appear (learning runs ahead at full speed)")
        self.speed.setFocusPolicy(Qt.StrongFocus)  # the wheel changes it only when it has focus
        self.speed.currentIndexChanged.connect(lambda i: self.speedChanged.emit(self.speed.itemData(i)))
        self.step_button.clicked.connect(self.stepRequested)
        self.replay_button.clicked.connect(self.replayRequested)
        self.noun = "rule"
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)  # the count beside the bar, never under its fill
        self.count = QLabel("")
        self.count.setMinimumWidth(110)
        self.count.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self.progress.valueChanged.connect(lambda *_: self._show_count())
        self.info = QLabel("Ready")
        self.info.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # text changes never relayout
        self.start_button.clicked.connect(self.startRequested)
        self.pause_button.clicked.connect(self._pause_clicked)
        self.stop_button.clicked.connect(self.stopRequested)
        self.progress.setMinimumWidth(180)
        self.progress.setMaximumWidth(320)
        self.info.setMinimumWidth(200)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.start_button)
        layout.addWidget(self.readiness)
        for button in (self.pause_button, self.stop_button, self.step_button, self.replay_button):
            layout.addWidget(button)
        layout.addWidget(self.speed)
        layout.addSpacing(8)
        layout.addWidget(self.count)
        layout.addWidget(self.progress, 1)
        layout.addWidget(self.info, 2)
        self.state = "idle"
        self.set_state("idle")

    def _pause_clicked(self):
        if self.state == "paused":
            self.resumeRequested.emit()
        elif self.state == "running":
            self.pauseRequested.emit()

    def set_state(self, state: str, can_start: bool = True) -> None:
        """idle | preparing | running | paused (| finished | stopped | failed, shown as idle)."""
        self.state = state if state in ("preparing", "running", "paused") else "idle"
        active = self.state != "idle"
        self.start_button.setEnabled(not active and can_start)
        self.pause_button.setEnabled(self.state in ("running", "paused"))
        self.stop_button.setEnabled(active)
        style = self.style()
        if self.state == "paused":
            self.pause_button.setText("Resume")
            self.pause_button.setIcon(style.standardIcon(QStyle.SP_MediaPlay))
        else:
            self.pause_button.setText("Pause")
            self.pause_button.setIcon(style.standardIcon(QStyle.SP_MediaPause))

    def set_readiness(self, text: str) -> None:
        """The mark beside Start: 'ready', 'first run compiles (~45 s)' or nothing."""
        self.readiness.setText(text)
        color = "#2e7d32" if text == "ready" else "#b26a00"
        self.readiness.setStyleSheet(f"color: {color}; font-size: small;" if text else "")

    def set_watchable(self, step: bool, replay: bool) -> None:
        self.step_button.setEnabled(step)
        self.replay_button.setEnabled(replay)

    def show_speed(self, rate) -> None:
        """Show ``rate`` in the speed box (without emitting)."""
        i = self.speed.findData(rate)
        if i < 0:
            self.speed.addItem(f"{rate:g} rules/s", rate)
            i = self.speed.count() - 1
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(i)
        self.speed.blockSignals(False)

    def _show_count(self) -> None:
        """'2 / 5 experts' (a budget), '7 iterations' (none), or nothing while preparing."""
        bar, noun = self.progress, self.noun
        if self.progress.format() == "preparing…":
            self.count.setText("")
        elif bar.maximum() > 0:
            self.count.setText(f"{bar.value()} / {bar.maximum()} {noun}s")
        else:
            self.count.setText("")

    def set_budget(self, budget: int | None, noun: str = "rule") -> None:
        """The run's step budget; ``noun`` names a step ("rule", "iteration", "expert")."""
        self.noun = noun
        self.info.setToolTip("")
        if budget:
            self.progress.setRange(0, int(budget))
            self.progress.setFormat(f"%v / %m {noun}s")
        else:
            self.progress.setRange(0, 0)  # busy indicator: the learner has no step budget
            self.progress.setFormat(f"%v {noun}s")
        self.progress.setValue(0)
        self._show_count()

    def show_preparing(self, text: str) -> None:
        """The run's kernels are being compiled: a busy bar and ``text`` (no rate, no ETA)."""
        self.progress.setRange(0, 0)
        self.progress.setFormat("preparing…")
        self._show_count()
        self.info.setText(f"preparing: {text}")
        self.info.setToolTip(PREPARING_TIP)

    def set_progress(self, n: int, rate: float, eta: float | None, state: str = "") -> None:
        """Steps so far, the rate (once known: two arrivals), the time left and a note."""
        if self.progress.maximum() > 0:
            self.progress.setValue(min(n, self.progress.maximum()))
        noun = self.noun
        parts = [f"{n} {noun}s"]
        if rate > 0:
            parts.append(f"{rate:,.0f} {noun}s/s" if rate >= 10 else f"{rate:.1f} {noun}s/s")
        if eta is not None:
            parts.append(f"ETA {format_eta(eta)}")
        if state:
            parts.append(state)
        self.info.setText(" · ".join(parts))

    def show_run(self, run, noun: str | None = None) -> None:
        """A run picked in the run table: its own size, status and time, not the last run's."""
        n = len(run)
        self.noun = noun or self.noun
        self.progress.setRange(0, max(n, 1))
        self.progress.setFormat(f"%v / %m {self.noun}s")
        self.progress.setValue(n)
        self._show_count()
        took = f" after {run.elapsed:.1f} s" if run.elapsed is not None else ""
        self.info.setText(f"{run.name}: {n} {self.noun}{'s' if n != 1 else ''} · {run.status}{took}")
        self.info.setToolTip(run.describe())

    def reset(self) -> None:
        """No run shown (another session opened): nothing of the last run stays."""
        self.progress.setRange(0, 1)
        self.progress.setFormat("")
        self.progress.setValue(0)
        self.count.setText("")
        self.info.setText("Ready")
        self.info.setToolTip("")

    def finish(self, n: int, state: str, elapsed: float, ended_early: str | None = None) -> None:
        """The run's last step is shown; ``ended_early`` says why it ended before its budget."""
        if self.progress.maximum() == 0:
            self.progress.setRange(0, max(n, 1))
            self.progress.setFormat(f"%v / %m {self.noun}s")
        self.progress.setValue(min(n, self.progress.maximum()))
        early = " · ended early (hover for why)" if ended_early else ""
        self.info.setText(f"{n} {self.noun}s · {state} after {elapsed:.1f} s{early}")
        self.info.setToolTip(ended_early or "")
        self._show_count()
