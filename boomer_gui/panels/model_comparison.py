"""Tools > Compare two runs: two runs of the Runs table on the loaded data, their diff as a readable
report (matched rules, changed heads, rules only in one, per-label losses, examples predicted
differently), saved as Markdown or CSV.  The logic is the application model's (components.comparison)."""
from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QDialog, QDoubleSpinBox, QFileDialog, QHBoxLayout, QLabel, QPushButton,
                               QTextBrowser, QVBoxLayout)

from boomer_gui.components.comparison import RunComparison, comparable_runs, compare_runs

REPORT_FILTER = "Markdown (*.md);;CSV (*.csv)"


class CompareRunsDialog(QDialog):
    def __init__(self, app, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Compare two runs")
        self.app, self.comparison = app, None
        self.runs = comparable_runs(app)
        row = QHBoxLayout()
        self.combo_a, self.combo_b = QComboBox(), QComboBox()
        for combo in (self.combo_a, self.combo_b):
            combo.addItems([r.name for r in self.runs])
        self.combo_a.setCurrentIndex(max(len(self.runs) - 2, 0))
        self.combo_b.setCurrentIndex(max(len(self.runs) - 1, 0))
        self.tolerance = QDoubleSpinBox(decimals=3, minimum=0.0, maximum=1.0, singleStep=0.005, value=0.01)
        self.tolerance.setToolTip("Threshold gaps allowed when matching rule bodies, as a fraction of the "
                                  "attribute's range")
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.compare)
        self.save_button = QPushButton("Save report…")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._save_dialog)
        for widget in (QLabel("A:"), self.combo_a, QLabel("B:"), self.combo_b, QLabel("tolerance:"), self.tolerance,
                       self.compare_button, self.save_button):
            row.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        self.status = QLabel("" if len(self.runs) >= 2 else "Compare needs two runs of rule learners on the "
                             "loaded data.")
        layout.addWidget(self.status)
        self.report = QTextBrowser()
        layout.addWidget(self.report, 1)
        self.resize(1000, 700)

    def compare(self) -> RunComparison | None:
        """Diff the two chosen runs and show the report; a problem is said in the status line."""
        if len(self.runs) < 2:
            return None
        try:
            self.comparison = compare_runs(self.app, self.runs[self.combo_a.currentIndex()],
                                           self.runs[self.combo_b.currentIndex()], self.tolerance.value())
        except ValueError as error:
            self.comparison = None
            self.status.setText(str(error))
            self.save_button.setEnabled(False)
            return None
        d = self.comparison.diff
        self.status.setText(f"{len(d.matches)} matched rules ({len(d.changed_heads)} with other heads), "
                            f"{len(d.only_a)} only in A, {len(d.only_b)} only in B; "
                            f"{len(d.differing_examples)} {self.comparison.examples} examples predicted differently")
        self.report.setMarkdown(self.comparison.markdown())
        self.save_button.setEnabled(True)
        return self.comparison

    def save_report(self, path) -> None:
        self.comparison.save(path)

    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the comparison", "comparison.md", REPORT_FILTER)
        if path:
            try:
                self.save_report(path)
            except OSError as error:
                self.status.setText(f"cannot save the report: {error}")
