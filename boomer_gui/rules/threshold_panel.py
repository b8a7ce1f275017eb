"""The rule inspector's threshold editor: a condition of the shown rule on a histogram of its attribute
(training values, stacked: covered by the rule's other conditions or not), its threshold a line to
drag (or a spin box); the rule's coverage, its head (kept or re-optimised) and the model's training
and test losses follow, throttled to one edit per :data:`THROTTLE_MS`.  Apply hands the edited model
to the window as a what-if run; Undo returns to the original threshold.  The logic is
``components.threshold_edit``'s."""
from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout,
                               QWidget)

from boomer_gui.components.threshold_edit import ThresholdSession, coverage_text, head_text, losses_text

THROTTLE_MS = 40
COVERED, OTHER, LINE = "#0072B2", "#BBBBBB", "#D55E00"  # Okabe & Ito


class ThresholdPanel(QWidget):
    applyRequested = Signal(object, str)  # what-if estimator, run name
    edited = Signal(object)  # each ThresholdEdit shown

    def __init__(self, parent=None):
        super().__init__(parent)
        self.session = ThresholdSession()
        self.record = None
        self.original = None  # the edit at the original threshold (coverage and losses before)
        self._dragging = False
        self.threshold = float("nan")  # exact (the spin box shows it rounded)
        self._stale = False  # a rule is shown whose condition is not selected yet (panel hidden)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(THROTTLE_MS)
        self._timer.timeout.connect(self.update_edit)
        self._build()

    def _build(self) -> None:
        self.combo = QComboBox()
        self.combo.setToolTip("The condition whose threshold is edited")
        self.combo.currentIndexChanged.connect(lambda *_: self.select_condition())
        self.figure = Figure(figsize=(4, 2.4), dpi=100, layout="constrained")  # the legend above the axes fits
        self.ax = self.figure.add_subplot(1, 1, 1)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setMinimumSize(160, 100)
        self.canvas.mpl_connect("button_press_event", self._press)
        self.canvas.mpl_connect("motion_notify_event", self._motion)
        self.canvas.mpl_connect("button_release_event", self._release)
        self.line = None
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(4)
        self.spin.setRange(-1e12, 1e12)
        self.spin.setMaximumWidth(120)
        self.spin.setToolTip("the threshold (the operator is the condition's)")
        self.spin.valueChanged.connect(self._spin_changed)
        self.reoptimise = QCheckBox("re-optimise head")
        self.reoptimise.setMinimumWidth(self.reoptimise.sizeHint().width())
        self.reoptimise.setToolTip("the closed-form head of the covered training examples at the scores of all other "
                                   "rules (BOOMER); off: the rule keeps its head")
        self.reoptimise.toggled.connect(lambda *_: self.schedule())
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("a what-if run: a new run with the edited model; the original run stays as it is")
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("back to the original threshold and head")
        self.undo_button.clicked.connect(self.undo)
        self.coverage_label, self.head_label, self.loss_label = QLabel(""), QLabel(""), QLabel("")
        for label in (self.coverage_label, self.head_label, self.loss_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.status = QLabel("Select a rule to edit one of its thresholds.")
        self.status.setWordWrap(True)
        self.head_label.setTextFormat(Qt.PlainText)
        top = QHBoxLayout()
        top.addWidget(QLabel("Condition"))
        top.addWidget(self.combo, 1)
        controls = QHBoxLayout()
        controls.addWidget(self.spin)
        controls.addWidget(self.reoptimise)
        controls.addStretch(1)
        controls.addWidget(self.undo_button)
        controls.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(3)
        layout.addLayout(top)
        layout.addWidget(self.canvas, 1)
        layout.addLayout(controls)
        for widget in (self.coverage_label, self.head_label, self.loss_label, self.status):
            layout.addWidget(widget)
        self._enable(False)
        self.setMinimumSize(160, 160)  # never holds the inspector's charts back (presentation mode)

    def _enable(self, on: bool) -> None:
        for widget in (self.spin, self.reoptimise, self.apply_button, self.undo_button):
            widget.setEnabled(on)
        self.reoptimise.setEnabled(on and self.session.can_reoptimise)

    # -- what is shown -------------------------------------------------------------------------
    def set_context(self, estimator, train, test, run_name: str = "", schema=None) -> None:
        """The finished run whose thresholds can be edited (None: none)."""
        self.session.set_context(estimator, train, test, run_name, schema)
        self.show_rule(self.record)

    def show_rule(self, record) -> None:
        """The shown rule's conditions in the combo box; the first is selected when the panel shows."""
        self.record = record
        self._timer.stop()
        self.session.deselect()
        self.original = None
        self.combo.blockSignals(True)
        self.combo.clear()
        schema = self.session.schema
        if record is not None:
            self.combo.addItems([c.to_text(schema) for c in record.rule.conditions])
        self.combo.blockSignals(False)
        self._stale = True
        if self.isVisible():
            self.select_condition()
        else:
            self._show_message(self._reason() or "")

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.select_condition()

    def _reason(self) -> str | None:
        if self.record is None:
            return "Select a rule to edit one of its thresholds."
        index = int(self.record.index)
        reason = self.session.why_not(index)
        if reason is None and self.session.model.rules[index] != self.record.rule:
            reason = "the shown rule is not the finished model's rule of that number"
        return reason

    def _show_message(self, text: str) -> None:
        self._enable(False)
        self.status.setText(text)
        for label in (self.coverage_label, self.head_label, self.loss_label):
            label.setText("")
        self.ax.clear()
        self.line = None
        self.canvas.draw_idle()

    def select_condition(self) -> None:
        """The combo box's condition: its histogram and the edit at its original threshold."""
        self._stale = False
        reason = self._reason()
        if reason is None and self.combo.currentIndex() < 0:
            reason = "the rule has no conditions"
        if reason is not None:
            self._show_message(reason)
            return
        try:
            hist = self.session.select(int(self.record.index), self.combo.currentIndex())
        except ValueError as error:
            self._show_message(f"cannot edit this threshold: {error}")
            return
        self._draw_histogram(hist)
        self.spin.blockSignals(True)
        self.spin.setDecimals(0 if hist.nominal else 4)
        self.spin.setPrefix(f"{hist.operator} ")
        width = float(hist.edges[-1] - hist.edges[0])
        self.spin.setSingleStep(1.0 if hist.nominal else max(width / 200, 1e-4))
        self.spin.blockSignals(False)
        self._move(hist.threshold)
        self.reoptimise.blockSignals(True)
        self.reoptimise.setChecked(False)
        self.reoptimise.blockSignals(False)
        self._enable(True)
        self.status.setText("")
        self.original = self.session.edit(hist.threshold, False)
        self._show_edit(self.original)

    def _draw_histogram(self, hist) -> None:
        ax = self.ax
        ax.clear()
        centres = (hist.edges[:-1] + hist.edges[1:]) / 2
        widths = np.diff(hist.edges) * 0.9
        ax.bar(centres, hist.covered, widths, color=COVERED, label="covered by the other conditions")
        ax.bar(centres, hist.other, widths, bottom=hist.covered, color=OTHER, label="not covered by them")
        self.line = ax.axvline(hist.threshold, color=LINE, lw=2.0)
        name = self.session.schema.feature(hist.attribute)
        missing = f" ({hist.n_missing} missing)" if hist.n_missing else ""
        ax.set_xlabel(f"{name} (training values){missing}", fontsize=8)
        ax.set_ylabel("examples", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False,
                  title=f"{hist.operator} threshold (drag the line); training examples", title_fontsize=7,
                  alignment="left", borderaxespad=0.1)
        ax.set_xlim(hist.edges[0] - 0.02 * (hist.edges[-1] - hist.edges[0]) - 0.01,
                    hist.edges[-1] + 0.02 * (hist.edges[-1] - hist.edges[0]) + 0.01)
        self.canvas.draw_idle()

    # -- editing -------------------------------------------------------------------------------
    def set_threshold(self, value: float) -> None:
        """Move the threshold exactly (as a drag does); the edit follows, throttled."""
        if self.session.histogram is not None and self.session.histogram.nominal:
            value = float(round(value))
        self._move(value)
        self.schedule()

    def _move(self, value: float) -> None:
        """The threshold, the line and the spin box (without its signal) at ``value``."""
        self.threshold = float(value)
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        if self.line is not None:
            self.line.set_xdata([value, value])
            self.canvas.draw_idle()

    def _spin_changed(self, value: float) -> None:
        """A threshold typed or stepped in the spin box (exactly as shown)."""
        self.set_threshold(value)

    def schedule(self) -> None:
        if self.session.rule is not None and not self._timer.isActive():
            self._timer.start()

    def update_edit(self) -> None:
        """The edit at the spin box's threshold (the throttle's timeout)."""
        if self.session.rule is None:
            return
        try:
            edit = self.session.edit(self.threshold, self.reoptimise.isChecked())
        except ValueError as error:
            self.status.setText(f"cannot edit: {error}")
            return
        self._show_edit(edit)

    def _show_edit(self, edit) -> None:
        n_train = self.session.train.n_examples
        self.coverage_label.setText(coverage_text(edit, self.original, n_train))
        self.head_label.setText(head_text(edit, self.session.schema, max_labels=4))
        self.loss_label.setText(losses_text(edit, self.session.editor().original_losses))
        self.apply_button.setEnabled(edit.changed)
        self.edited.emit(edit)

    def apply(self) -> None:
        self.update_edit()  # the threshold shown, not one the throttle has not reached yet
        edit = self.session.last
        if edit is None or not edit.changed:
            self.status.setText("nothing to apply: the threshold and head are the original ones")
            return
        estimator, name = self.session.whatif(edit)
        self.applyRequested.emit(estimator, name)

    def undo(self) -> None:
        if self.session.histogram is None:
            return
        self.reoptimise.blockSignals(True)
        self.reoptimise.setChecked(False)
        self.reoptimise.blockSignals(False)
        self.set_threshold(self.session.original_threshold)
        self._timer.stop()
        self.update_edit()

    # -- dragging the line ---------------------------------------------------------------------
    def _press(self, event) -> None:
        if self.line is None or event.inaxes is not self.ax or event.button != 1 or event.xdata is None:
            return
        self._dragging = True
        self.set_threshold(float(event.xdata))

    def _motion(self, event) -> None:
        if self._dragging and event.inaxes is self.ax and event.xdata is not None:
            self.set_threshold(float(event.xdata))

    def _release(self, event) -> None:
        if self._dragging:
            self._dragging = False
            self._timer.stop()
            self.update_edit()  # the final position at once

    # -- for tests -----------------------------------------------------------------------------
    def line_position(self) -> float:
        return float(self.line.get_xdata()[0])

    def data_to_widget(self, x: float):
        """The canvas widget's point (logical pixels) of threshold ``x`` at the axes' mid-height."""
        y_mid = sum(self.ax.get_ylim()) / 2
        px, py = self.ax.transData.transform((x, y_mid))
        ratio = max(self.canvas.device_pixel_ratio, 1.0)
        return int(round(px / ratio)), int(round((self.figure.bbox.height - py) / ratio))
