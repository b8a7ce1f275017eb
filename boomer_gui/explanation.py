"""Explanation of one test example's prediction: the rules covering it, each one's contribution
to every label's score, their sum (the scores), the prediction and the truth.

The numbers come from ``engine.inspection.explain``; this module only lays them out."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSpinBox,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from engine.inspection import explain
from engine.rules import Schema

_POS = QColor(46, 139, 87)
_NEG = QColor(200, 55, 55)
_WRONG = QColor(255, 214, 214)
_RIGHT = QColor(214, 240, 214)
SUMMARY_ROWS = 3  # Σ = score, prediction, truth


def _row(X, i: int) -> np.ndarray:
    x = X[i]
    if sp.issparse(x):
        x = x.toarray()
    return np.asarray(x, dtype=np.float32).ravel()


class ExplanationPanel(QWidget):
    ruleClicked = Signal(int)  # index of a rule in the model

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = None
        self.test = None
        self.active = None
        self.schema = Schema()
        self.explanation = None
        self.example = 0
        self._wrong = None  # misclassified test examples, computed on demand
        self._stale = False  # the shown explanation is out of date (computed when shown)

        self.spin = QSpinBox()
        self.spin.setPrefix("test example ")
        self.spin.setMinimum(0)
        self.spin.setMaximum(0)
        self.spin.setToolTip("Index of the test example to explain")
        self.spin.valueChanged.connect(self.show_example)
        self.next_wrong = QPushButton("Next misclassified")
        self.next_wrong.setToolTip("Jump to the next test example whose predicted label set is wrong")
        self.next_wrong.clicked.connect(self._next_wrong)
        self.summary = QLabel("Explanations need a trained model (finish or stop a run).")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setDefaultSectionSize(58)
        self.table.setWordWrap(False)
        self.table.cellDoubleClicked.connect(self._double_clicked)

        top = QHBoxLayout()
        top.addWidget(self.spin, 1)
        top.addWidget(self.next_wrong)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        self._set_enabled(False)

    def _set_enabled(self, on: bool) -> None:
        self.spin.setEnabled(on)
        self.next_wrong.setEnabled(on)

    # -- context ------------------------------------------------------------------------------
    def set_context(self, model, test, active=None, schema: Schema | None = None) -> None:
        """A finished model and the test data; ``active`` marks rules switched on (what-if)."""
        self.model, self.test = model, test
        if active is not None and model is not None and len(active) != len(model.rules):
            active = None
        self.active = None if active is None else np.asarray(active, dtype=bool)
        self._wrong = None
        self.schema = schema or (model.schema if model is not None and model.schema else Schema())
        ok = model is not None and test is not None and test.n_examples > 0 and len(model.rules) > 0
        self._set_enabled(ok)
        if not ok:
            self.clear("Explanations need a trained model (finish or stop a run).")
            return
        self.spin.blockSignals(True)
        self.spin.setMaximum(test.n_examples - 1)
        self.spin.setSuffix(f" of {test.n_examples}")
        self.spin.blockSignals(False)
        self.example = min(self.spin.value(), test.n_examples - 1)
        self._refresh()

    def set_active(self, active) -> None:
        self.active = None if active is None else np.asarray(active, dtype=bool)
        self._wrong = None
        if self.model is not None and self.test is not None:
            self._refresh()

    def _refresh(self) -> None:
        """Explain now if the panel is shown, else when it is shown next (saves the work at the
        end of every run while nobody looks)."""
        if self.isVisible():
            self._stale = False
            self.show_example(self.example)
        else:
            self._stale = True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale and self.model is not None and self.test is not None:
            self._stale = False
            self.show_example(self.example)

    def clear(self, message: str = "") -> None:
        self.model = None
        self.explanation = None
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.summary.setText(message or "Explanations need a trained model (finish or stop a run).")
        self._set_enabled(False)

    # -- showing ------------------------------------------------------------------------------
    def show_example(self, i: int) -> None:
        if self.model is None or self.test is None:
            return
        self._stale = False
        i = int(max(0, min(i, self.test.n_examples - 1)))
        if self.spin.value() != i:
            self.spin.blockSignals(True)
            self.spin.setValue(i)
            self.spin.blockSignals(False)
        self.example = i
        x = _row(self.test.X, i)
        ex = explain(self.model, x, self.active)
        self.explanation = ex
        truth = np.asarray(self.test.Y[i], dtype=np.uint8).ravel()
        self._fill(ex, truth)

    def _fill(self, ex, truth: np.ndarray) -> None:
        K = len(ex.scores)
        names = [self.schema.label(k) for k in range(K)]
        rules = self.model.rules
        n = len(ex.rule_indices)
        t = self.table
        t.setUpdatesEnabled(False)
        t.clear()
        t.clearSpans()
        t.setColumnCount(2 + K)
        t.setRowCount(n + 3)
        t.setHorizontalHeaderLabels(["rule", "body"] + names)
        bold = QFont()
        bold.setBold(True)
        scale = float(np.max(np.abs(ex.contributions))) if n else 1.0
        # The outcome first (always in sight), then one row per covering rule.
        for i, (r, contrib) in enumerate(zip(ex.rule_indices, ex.contributions)):
            row = SUMMARY_ROWS + i
            item = QTableWidgetItem(str(int(r)))
            item.setData(Qt.UserRole, int(r))
            item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            t.setItem(row, 0, item)
            body = rules[int(r)].body_text(self.schema) if rules[int(r)].conditions else "{} (default rule)"
            bi = QTableWidgetItem(body)
            bi.setToolTip(rules[int(r)].to_text(self.schema))
            t.setItem(row, 1, bi)
            for k, v in enumerate(contrib):
                t.setItem(row, 2 + k, self._number(v, scale))
        labels = [("Σ = score", ex.scores), ("prediction", ex.prediction), ("truth", truth)]
        for j, (name, values) in enumerate(labels):
            row = j
            head = QTableWidgetItem(name)
            head.setFont(bold)
            t.setItem(row, 0, head)
            t.setSpan(row, 0, 1, 2)
            for k in range(K):
                if j == 0:
                    item = self._number(values[k], None)
                    item.setFont(bold)
                else:
                    item = QTableWidgetItem(str(int(values[k])))
                    item.setTextAlignment(Qt.AlignCenter)
                    item.setBackground(QBrush(_RIGHT if ex.prediction[k] == truth[k] else _WRONG))
                t.setItem(row, 2 + k, item)
        t.setColumnWidth(0, 44)
        t.setColumnWidth(1, 150)
        for k in range(K):
            t.setColumnWidth(2 + k, 52)
        t.setUpdatesEnabled(True)
        wrong = int(np.sum(ex.prediction != truth))
        pred = ", ".join(names[k] for k in np.flatnonzero(ex.prediction)) or "∅"
        true = ", ".join(names[k] for k in np.flatnonzero(truth)) or "∅"
        verdict = "correct" if wrong == 0 else f"{wrong} wrong label(s)"
        self.summary.setText(f"<b>Example {self.example}</b>: {n} covering rule(s).<br>"
                             f"Prediction: {{{pred}}}<br>Truth: {{{true}}} — <b>{verdict}</b>")

    @staticmethod
    def _number(v: float, scale: float | None) -> QTableWidgetItem:
        item = QTableWidgetItem("" if v == 0 and scale is not None else f"{v:+.3f}")
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
        item.setData(Qt.UserRole + 1, float(v))
        if v != 0:
            item.setForeground(QBrush(_POS if v > 0 else _NEG))
        return item

    def _next_wrong(self) -> None:
        if self.model is None or self.test is None:
            return
        if self._wrong is None:  # one vectorised prediction of the whole test set
            pred = self.model.predict(self.test.X, None if self.active is None else self.active.astype(np.uint8))
            self._wrong = np.any(pred != np.asarray(self.test.Y, dtype=np.uint8), axis=1)
        n = len(self._wrong)
        order = (self.example + 1 + np.arange(n)) % n
        hits = order[self._wrong[order]]
        if len(hits):
            self.show_example(int(hits[0]))
        else:
            self.summary.setText(self.summary.text() + "<br>No misclassified test example.")

    def _double_clicked(self, row: int, col: int) -> None:
        item = self.table.item(row, 0)
        if item is not None and item.data(Qt.UserRole) is not None:
            self.ruleClicked.emit(int(item.data(Qt.UserRole)))

    # -- for tests --------------------------------------------------------------------------
    def table_contributions(self) -> np.ndarray:
        """The contributions as shown, one row per covering rule, then the Σ row, as numbers."""
        n = len(self.explanation.rule_indices) if self.explanation is not None else 0
        K = self.table.columnCount() - 2
        rows = [SUMMARY_ROWS + i for i in range(n)] + [0]
        out = np.zeros((n + 1, K))
        for i, r in enumerate(rows):
            for k in range(K):
                item = self.table.item(r, 2 + k)
                out[i, k] = item.data(Qt.UserRole + 1) if item is not None else 0.0
        return out

    def table_row_values(self, name: str) -> list[int]:
        """The 'prediction' or 'truth' row as shown."""
        row = {"prediction": 1, "truth": 2}[name]
        return [int(self.table.item(row, 2 + k).text()) for k in range(self.table.columnCount() - 2)]
