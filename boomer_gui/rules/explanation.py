"""Explanation of one test example's prediction: the rules covering it, each one's contribution
to every label's score, their sum (the scores), the prediction and the truth.

The numbers come from ``engine.inspection.explain``; this module only lays them out.  A rule's
body is cut in its table cell; its tooltip and the word-wrapped text under the table (for the
selected row) show the whole rule."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFrame, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QScrollArea, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from engine.api import explain, nearest_label_vectors, predictor_text
from engine.rules import Schema

# colour-blind-safe (Okabe & Ito): blue for positive, vermillion for negative; wrong cells also say so
_POS = QColor(0, 114, 178)
_NEG = QColor(213, 94, 0)
_WRONG = QColor(255, 221, 196)
_RIGHT = QColor(214, 232, 247)
SUMMARY_ROWS = 3  # Σ = score, prediction, truth
DEFAULT_TOP = 50  # covering rules listed before "show all"
RULE_TEXT_HINT = "Select a rule's row to read the whole rule here."
RULE_TEXT_LINES = 6  # the whole-rule text takes up to this many lines, then scrolls
MAX_VALUES_SHOWN = 12  # attribute values listed in the summary


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
        self.sort = QComboBox()
        self.sort.setToolTip("Order of the covering rules: as learned, or by the size of their contributions")
        self.sort.addItem("rule order", None)
        self.sort.addItem("largest effect first", -1)
        self.sort.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)  # fits a narrow column
        self.sort.setMinimumContentsLength(5)
        self.sort.currentIndexChanged.connect(lambda *_: self._redisplay())
        self.top = QSpinBox()
        self.top.setRange(1, 9999)  # 'all' lists more
        self.top.setValue(DEFAULT_TOP)
        self.top.setPrefix("top ")
        self.top.setToolTip("List this many covering rules; the others are summed in one row")
        self.top.valueChanged.connect(lambda *_: self._redisplay())
        self.show_all = QCheckBox("all")
        self.show_all.setToolTip("List every covering rule")
        self.show_all.toggled.connect(lambda on: (self.top.setEnabled(not on), self._redisplay()))
        self.values = QLabel("")
        self.values.setWordWrap(True)
        self.values.setTextInteractionFlags(Qt.TextSelectableByMouse)
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
        self.table.currentCellChanged.connect(lambda row, *_: self._show_rule_of_row(row))
        # the selected row's whole rule, word-wrapped (the body column shows its start)
        self.rule_text = QLabel(RULE_TEXT_HINT)
        self.rule_text.setObjectName("rule_text")
        self.rule_text.setWordWrap(True)
        self.rule_text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.rule_text.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.rule_scroll = QScrollArea()
        self.rule_scroll.setWidgetResizable(True)
        self.rule_scroll.setFrameShape(QFrame.NoFrame)
        self.rule_scroll.setWidget(self.rule_text)

        top = QHBoxLayout()
        top.addWidget(self.spin, 1)
        top.addWidget(self.next_wrong)
        order = QHBoxLayout()
        order.addWidget(QLabel("Rules:"))
        order.addWidget(self.sort, 1)
        order.addWidget(self.top)
        order.addWidget(self.show_all)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.values)
        layout.addLayout(order)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.rule_scroll)
        self._set_enabled(False)

    def _show_rule_of_row(self, row: int) -> None:
        item = self.table.item(row, 0) if row >= 0 else None
        index = item.data(Qt.UserRole) if item is not None else None
        if index is None or self.model is None:
            self.rule_text.setText(RULE_TEXT_HINT)
        else:
            self.rule_text.setText(f"Rule {int(index)}: {self.model.rules[int(index)].to_text(self.schema)}")
        self._fit_rule_text()

    def _fit_rule_text(self) -> None:
        """As high as the text (up to RULE_TEXT_LINES lines; then it scrolls)."""
        width = self.rule_scroll.viewport().width() or self.width()
        line = self.rule_text.fontMetrics().lineSpacing()
        need = self.rule_text.heightForWidth(max(width, 50))
        self.rule_scroll.setFixedHeight(max(line + 4, min(need, RULE_TEXT_LINES * line) + 4))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_rule_text()

    @property
    def regression(self) -> bool:
        """Is the test set's target real-valued (a regressor's model: its prediction is the summed heads)?"""
        return getattr(self.test, "task", "classification") == "regression"

    def _set_enabled(self, on: bool) -> None:
        self.spin.setEnabled(on)
        self.next_wrong.setEnabled(on and not self.regression)  # no misclassification of real targets

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
        self.sort.blockSignals(True)
        chosen = self.sort.currentData()
        while self.sort.count() > 2:
            self.sort.removeItem(2)
        for k in range(model.n_labels):
            self.sort.addItem(f"largest effect on {self.schema.label(k)}", k)
        i = self.sort.findData(chosen)
        self.sort.setCurrentIndex(max(i, 0))
        self.sort.blockSignals(False)
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
        """No model: nothing of the last one stays (its test set's size, its label choices)."""
        self.model = None
        self.explanation = None
        self.example = 0
        self.spin.blockSignals(True)
        self.spin.setMaximum(0)
        self.spin.setSuffix("")
        self.spin.blockSignals(False)
        while self.sort.count() > 2:
            self.sort.removeItem(2)
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.values.setText("")
        self.rule_text.setText(RULE_TEXT_HINT)
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
        self._x = x
        self._truth = np.asarray(self.test.Y[i], dtype=np.float64 if self.regression else np.uint8).ravel()
        self._fill(ex, self._truth)

    def _redisplay(self) -> None:
        if self.explanation is not None and self.model is not None:
            self._fill(self.explanation, self._truth)

    def shown_order(self, ex) -> np.ndarray:
        """Positions (into ``ex.rule_indices``) of the rules listed, in the chosen order and number."""
        n = len(ex.rule_indices)
        key = self.sort.currentData()
        if key is None:
            order = np.arange(n)
        elif key == -1:
            order = np.argsort(-np.abs(ex.contributions).sum(axis=1), kind="stable")
        else:
            order = np.argsort(-np.abs(ex.contributions[:, key]), kind="stable")
        return order if self.show_all.isChecked() else order[:self.top.value()]

    def _attribute_values(self, ex) -> str:
        """The example's values of the attributes its covering rules test (all, for few attributes)."""
        x = self._x
        if len(x) <= MAX_VALUES_SHOWN:
            used = list(range(len(x)))
        else:
            counts: dict[int, int] = {}
            for r in ex.rule_indices:
                for c in self.model.rules[int(r)].conditions:
                    counts[c.attribute] = counts.get(c.attribute, 0) + 1
            used = sorted(counts, key=lambda j: (-counts[j], j))
        shown = used[:MAX_VALUES_SHOWN]
        parts = []
        for j in shown:
            v = x[j]
            text = "?" if np.isnan(v) else (self.schema.value(j, v) if j in self.schema.nominal_values else f"{v:.4g}")
            parts.append(f"{self.schema.feature(j)} = {text}")
        more = len(used) - len(shown)
        what = "Attribute values" if len(x) <= MAX_VALUES_SHOWN else "Values of the attributes its rules test"
        return f"{what}: " + ", ".join(parts) + (f", … {more} more" if more > 0 else "")

    def _prediction_text(self, ex, names) -> str:
        """How the scores become the prediction: per label, or the nearest known label vector."""
        text = predictor_text(self.model)  # GFM or a predictor based on probabilities
        if text is not None:
            return text
        if self.model.prediction != "example-wise" or self.model.label_vectors is None:
            if self.model.prediction == "decision-list":
                return "Each label takes the first covering rule's vote."
            return "A label is predicted relevant when its score is positive."
        order, losses = nearest_label_vectors(self.model, ex.scores, 2)
        vecs = self.model.label_vectors

        def as_set(v):
            return "{" + (", ".join(names[k] for k in np.flatnonzero(v)) or "∅") + "}"

        text = (f"Example-wise prediction: the known training label vector nearest to the scores (eq. 19), "
                f"{as_set(vecs[order[0]])}, loss {losses[0]:.4f}")
        if len(order) > 1:
            text += f"; the next nearest, {as_set(vecs[order[1]])}, has {losses[1]:.4f}"
        return text + "."

    def _fill(self, ex, truth: np.ndarray) -> None:
        K = len(ex.scores)
        names = [self.schema.label(k) for k in range(K)]
        rules = self.model.rules
        order = self.shown_order(ex)
        hidden = len(ex.rule_indices) - len(order)
        n = len(order) + (1 if hidden else 0)
        t = self.table
        t.setUpdatesEnabled(False)
        t.clear()
        t.clearSpans()
        t.setColumnCount(2 + K)
        t.setRowCount(n + 3)
        t.setHorizontalHeaderLabels(["rule", "body"] + names)
        for k, name in enumerate(names):
            t.horizontalHeaderItem(2 + k).setToolTip(name)
        bold = QFont()
        bold.setBold(True)
        scale = float(np.max(np.abs(ex.contributions))) if len(ex.rule_indices) else 1.0
        # The outcome first (always in sight), then one row per listed covering rule.
        for i, pos in enumerate(order):
            r, contrib = ex.rule_indices[pos], ex.contributions[pos]
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
        if hidden:  # the rules not listed, summed: the column sums stay equal to the scores
            rest = np.delete(ex.contributions, order, axis=0).sum(axis=0)
            row = SUMMARY_ROWS + len(order)
            item = QTableWidgetItem(f"… {hidden} more rules (their sum)")
            item.setFont(bold)
            t.setItem(row, 0, item)
            t.setSpan(row, 0, 1, 2)
            for k, v in enumerate(rest):
                t.setItem(row, 2 + k, self._number(v, scale))
        if self.regression:
            self._fill_targets(ex, truth, names, bold)
        labels = [("Σ = score", ex.scores), ("prediction", ex.prediction), ("truth", truth)]
        for j, (name, values) in enumerate(labels if not self.regression else ()):
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
                    right = ex.prediction[k] == truth[k]
                    item = QTableWidgetItem(str(int(values[k])) + ("" if right or j != 1 else " ✗"))
                    item.setTextAlignment(Qt.AlignCenter)
                    item.setBackground(QBrush(_RIGHT if right else _WRONG))
                t.setItem(row, 2 + k, item)
        self._size_columns(ex, truth, names)
        t.setUpdatesEnabled(True)
        if self.regression:
            self._summarise_targets(ex, truth, names, hidden, len(order))
            return
        wrong = int(np.sum(ex.prediction != truth))
        pred = ", ".join(names[k] for k in np.flatnonzero(ex.prediction)) or "∅"
        true = ", ".join(names[k] for k in np.flatnonzero(truth)) or "∅"
        verdict = "correct" if wrong == 0 else f"{wrong} wrong label(s)"
        listed = "" if not hidden else f" (the {len(order)} listed, the rest summed)"
        self.summary.setText(f"<b>Example {self.example}</b>: {len(ex.rule_indices)} covering rule(s){listed}.<br>"
                             f"Prediction: {{{pred}}}<br>Truth: {{{true}}} — <b>{verdict}</b><br>"
                             f"<span style='color:#555'>{self._prediction_text(ex, names)}</span>"
                             + ("" if ex.probabilities is None else "<br>Probabilities: " + ", ".join(
                                 f"{names[k]} {p:.3f}" for k, p in enumerate(ex.probabilities))))
        self.values.setText(self._attribute_values(ex))
        self._show_rule_of_row(self.table.currentRow())

    def _size_columns(self, ex, truth: np.ndarray, names) -> None:
        """Each label's column wide enough for its numbers and (up to 14 characters of) its name."""
        t = self.table
        fm = t.fontMetrics()
        t.setColumnWidth(0, max(44, fm.horizontalAdvance("Σ = score") // 2 + 8))
        t.setColumnWidth(1, 150)
        widest = "+0.000" if not self.regression else max(  # real targets: as wide as the largest value
            (f"{v:+.3f}" for v in np.concatenate([ex.scores, truth, ex.scores - truth]) if abs(v) < 1e4),
            key=len, default="+0.000")
        number = fm.horizontalAdvance(widest) + 12
        for k in range(len(names)):
            t.setColumnWidth(2 + k, max(number, min(fm.horizontalAdvance(names[k]), fm.horizontalAdvance("m" * 14))
                                        + 16))

    def _fill_targets(self, ex, truth: np.ndarray, names, bold) -> None:
        """A regressor's outcome rows: the prediction (each target's summed contributions), the true value
        and the error (prediction − truth)."""
        for j, (name, values) in enumerate((("Σ = prediction", ex.scores), ("truth", truth),
                                            ("error", ex.scores - truth))):
            head = QTableWidgetItem(name)
            head.setFont(bold)
            self.table.setItem(j, 0, head)
            self.table.setSpan(j, 0, 1, 2)
            for k in range(len(names)):
                item = self._number(values[k], None)
                if j == 0:
                    item.setFont(bold)
                self.table.setItem(j, 2 + k, item)

    def _summarise_targets(self, ex, truth: np.ndarray, names, hidden: int, listed: int) -> None:
        listed_text = "" if not hidden else f" (the {listed} listed, the rest summed)"
        errors = ex.scores - truth
        self.summary.setText(
            f"<b>Example {self.example}</b>: {len(ex.rule_indices)} covering rule(s){listed_text}.<br>"
            "Prediction: " + ", ".join(f"{names[k]} {ex.scores[k]:.4g}" for k in range(len(names))) + "<br>"
            "Truth: " + ", ".join(f"{names[k]} {truth[k]:.4g}" for k in range(len(names))) +
            f" — squared error {float(np.mean(errors ** 2)):.4g}, absolute error {float(np.mean(np.abs(errors))):.4g} "
            "(means over the targets)<br><span style='color:#555'>Each target's prediction is the sum of the "
            "heads of the rules that cover the example.</span>")
        self.values.setText(self._attribute_values(ex))
        self._show_rule_of_row(self.table.currentRow())

    @staticmethod
    def _number(v: float, scale: float | None) -> QTableWidgetItem:
        item = QTableWidgetItem("" if v == 0 and scale is not None else f"{v:+.3f}" if abs(v) < 1e4 else f"{v:+.4g}")
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
        """The contributions as shown, one row per listed rule (and the summed rest), then the Σ row."""
        n = self.table.rowCount() - SUMMARY_ROWS if self.explanation is not None else 0
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
        return [int(self.table.item(row, 2 + k).text().split()[0]) for k in range(self.table.columnCount() - 2)]
