"""Start, Pause/Resume and Stop, with a progress bar: rules learned, rules per second, time left.

One row, made for the main window's always-visible toolbar."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QStyle, QWidget


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


class RunControls(QWidget):
    startRequested = Signal()
    pauseRequested = Signal()
    resumeRequested = Signal()
    stopRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        style = self.style()
        self.start_button = QPushButton(style.standardIcon(QStyle.SP_MediaPlay), "Start")
        self.start_button.setToolTip("Train the selected learner on the training data (Ctrl+R)")
        self.pause_button = QPushButton(style.standardIcon(QStyle.SP_MediaPause), "Pause")
        self.pause_button.setToolTip("Pause or resume training between two rules")
        self.stop_button = QPushButton(style.standardIcon(QStyle.SP_MediaStop), "Stop")
        self.stop_button.setToolTip("Stop training; the rules learned so far are kept")
        self.noun = "rule"
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setFormat("%v / %m rules")
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
        for button in (self.start_button, self.pause_button, self.stop_button):
            layout.addWidget(button)
        layout.addSpacing(8)
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
        """idle | running | paused (| finished | stopped | failed, shown as idle)."""
        self.state = state if state in ("running", "paused") else "idle"
        running = self.state in ("running", "paused")
        self.start_button.setEnabled(not running and can_start)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        style = self.style()
        if self.state == "paused":
            self.pause_button.setText("Resume")
            self.pause_button.setIcon(style.standardIcon(QStyle.SP_MediaPlay))
        else:
            self.pause_button.setText("Pause")
            self.pause_button.setIcon(style.standardIcon(QStyle.SP_MediaPause))

    def set_budget(self, budget: int | None, noun: str = "rule") -> None:
        """The run's step budget; ``noun`` names a step ("rule", "iteration", "expert")."""
        self.noun = noun
        if budget:
            self.progress.setRange(0, int(budget))
            self.progress.setFormat(f"%v / %m {noun}s")
        else:
            self.progress.setRange(0, 0)  # busy indicator: the learner has no step budget
            self.progress.setFormat(f"%v {noun}s")
        self.progress.setValue(0)

    def set_progress(self, n: int, rate: float, eta: float | None, state: str = "") -> None:
        if self.progress.maximum() > 0:
            self.progress.setValue(min(n, self.progress.maximum()))
        noun = self.noun
        parts = [f"{n} {noun}s", f"{rate:,.0f} {noun}s/s" if rate >= 10 else f"{rate:.1f} {noun}s/s"]
        if eta is not None:
            parts.append(f"ETA {format_eta(eta)}")
        if state:
            parts.append(state)
        self.info.setText(" · ".join(parts))

    def finish(self, n: int, state: str, elapsed: float) -> None:
        if self.progress.maximum() == 0:
            self.progress.setRange(0, max(n, 1))
        self.progress.setValue(min(n, self.progress.maximum()))
        self.info.setText(f"{n} {self.noun}s · {state} after {elapsed:.1f} s")
