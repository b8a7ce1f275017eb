"""The reliability diagram of the shown run (View > Reliability diagram): mean forecast against
observed frequency per probability bin, the diagonal of perfect calibration, and the forecasts per
bin beneath; the expected calibration error and the Brier score in the title."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from PySide6.QtWidgets import QDialog, QLabel, QMessageBox, QVBoxLayout

from boomer_gui.components.reliability import RunReliability, shown_run_reliability
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg


class ReliabilityDialog(QDialog):
    def __init__(self, result: RunReliability, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Reliability diagram")
        self.result = result
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(result.title))
        if result.detail:
            layout.addWidget(QLabel(result.detail))
        self.figure = Figure(figsize=(5.5, 5.5), layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        layout.addWidget(self.canvas)
        self._draw()
        self.resize(560, 640)

    def _draw(self) -> None:
        curve = self.result.curve
        top, bottom = self.figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
        top.plot([0, 1], [0, 1], "--", color="0.6", label="perfectly calibrated")
        filled = curve.counts > 0
        top.plot(curve.mean_predicted[filled], curve.observed[filled], "o-", color="#0072B2", label="this run")
        top.set_xlim(0, 1)
        top.set_ylim(0, 1)
        top.set_ylabel("observed frequency")
        top.set_title(f"ECE {curve.ece:.4f}   Brier {curve.brier:.4f}")
        top.legend(loc="upper left")
        widths = np.diff(curve.edges)
        bottom.bar(curve.edges[:-1], curve.counts, width=widths, align="edge", color="#56B4E9", edgecolor="white")
        bottom.set_xlabel("predicted probability")
        bottom.set_ylabel("forecasts")
        self.axes = (top, bottom)
        self.canvas.draw_idle()


def show_reliability(window) -> ReliabilityDialog | None:
    """Open the shown run's reliability diagram, or say why there is none."""
    try:
        result = shown_run_reliability(window.app)
    except ValueError as error:
        QMessageBox.information(window, "Reliability diagram", str(error))
        return None
    dialog = ReliabilityDialog(result, window)
    dialog.show()
    return dialog
