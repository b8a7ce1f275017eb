"""Label dependencies of the shown run (View > Label dependencies): two heatmaps on one colour scale,
the share of rules whose heads hold both labels and the share of training examples with both
labels; clicking a cell lists the rules behind it, and choosing one selects it in the rule table."""
from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PySide6.QtWidgets import QDialog, QLabel, QListWidget, QListWidgetItem, QMessageBox, QVBoxLayout
from PySide6.QtCore import Qt

from boomer_gui.components.label_dependencies import (RunDependencies, cell_rules, cell_text,
                                                      shown_run_dependencies)

MAX_TICK_LABELS = 40


class LabelDependencyDialog(QDialog):
    def __init__(self, run: RunDependencies, select_rule=None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Label dependencies")
        self.run, self.select_rule, self.cell = run, select_rule, None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(run.title))
        self.figure = Figure(figsize=(10, 4.8), layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        layout.addWidget(self.canvas, 3)
        self.cell_label = QLabel("Click a cell to list the rules behind it.")
        self.cell_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(self.cell_label)
        self.rule_list = QListWidget()
        self.rule_list.currentItemChanged.connect(self._rule_chosen)
        layout.addWidget(self.rule_list, 1)
        self._draw()
        self.canvas.mpl_connect("button_press_event", self._clicked)
        self.resize(1100, 760)

    def _draw(self) -> None:
        d = self.run.dependencies
        rules, data = d.rule_share, d.data_share
        vmax = max(float(rules.max(initial=0)), float(data.max(initial=0)), 1e-12)
        self.axes = self.figure.subplots(1, 2)
        titles = (f"rules: share whose heads hold both labels (strength {d.strength:g})",
                  "training data: share of examples with both labels")
        self.markers = []
        for ax, matrix, title in zip(self.axes, (rules, data), titles):
            image = ax.imshow(matrix, vmin=0, vmax=vmax, cmap="viridis", origin="upper", interpolation="nearest")
            ax.set_title(title, fontsize=9)
            self._ticks(ax)
            marker = Rectangle((-0.5, -0.5), 1, 1, fill=False, edgecolor="red", linewidth=2, visible=False)
            ax.add_patch(marker)
            self.markers.append(marker)
        self.figure.colorbar(image, ax=list(self.axes), shrink=0.8, label="share")
        self.canvas.draw_idle()

    def _ticks(self, ax) -> None:
        names = self.run.dependencies.label_names
        if len(names) > MAX_TICK_LABELS:
            return
        ax.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
        ax.set_yticks(range(len(names)), names, fontsize=7)

    def _clicked(self, event) -> None:
        if event.inaxes not in tuple(self.axes) or event.xdata is None:
            return
        self.show_cell(int(round(event.ydata)), int(round(event.xdata)))

    def show_cell(self, i: int, j: int) -> None:
        """Mark cell (i, j) in both heatmaps and list the rules behind it."""
        K = self.run.dependencies.n_labels
        if not (0 <= i < K and 0 <= j < K):
            return
        self.cell = (i, j)
        for marker in self.markers:
            marker.set_xy((j - 0.5, i - 0.5))
            marker.set_visible(True)
        self.canvas.draw_idle()
        self.cell_label.setText(cell_text(self.run, i, j))
        self.rule_list.clear()
        for index, text in cell_rules(self.run, i, j):
            item = QListWidgetItem(text)
            item.setData(Qt.UserRole, index)
            self.rule_list.addItem(item)

    def _rule_chosen(self, item, _previous=None) -> None:
        if item is not None and self.select_rule is not None:
            self.select_rule(int(item.data(Qt.UserRole)))


def show_label_dependencies(window) -> LabelDependencyDialog | None:
    """Open the shown run's label dependencies, or say why there are none."""
    try:
        run = shown_run_dependencies(window.app)
    except ValueError as error:
        QMessageBox.information(window, "Label dependencies", str(error))
        return None
    dialog = LabelDependencyDialog(run, window.select_rule, window)
    dialog.show()
    return dialog
