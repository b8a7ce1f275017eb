"""The rule table with its filters (label, attribute, free text) and the count of rules shown."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget
from superqt.utils import qdebounced

from boomer_gui.components import exports
from boomer_gui.rules.rule_table import (COL_TEH, COL_TES, COL_TRH, COL_TRS, RecordRole, RuleFilterProxy, RuleTableModel,
                                        RuleTableView)

FILTER_DELAY_MS = 200


class RuleBrowser(QWidget):
    """``model`` (the rules), ``proxy`` (filtered and sorted), ``table`` (the view) and the filter
    widgets.  ``steps_of_run`` (set by the window) returns the shown run's number of steps and
    their noun when they are not one rule each ('20 rules from 10 rounds')."""

    def _show_loss_columns(self) -> None:
        """The Hamming and subset 0/1 columns are a classifier's: hidden while the steps report a
        regressor's MSE and MAE (its own columns, from the learner's step columns)."""
        regression = any(m.name.endswith("_mse") for m in self.model.step_columns)
        for column in (COL_TRH, COL_TRS, COL_TEH, COL_TES):
            if self.table.isColumnHidden(column) != regression:
                self.table.setColumnHidden(column, regression)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = RuleTableModel(self)
        self.proxy = RuleFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = RuleTableView()
        self.table.setModel(self.proxy)
        self.model.modelReset.connect(self._show_loss_columns)
        self.steps_of_run: Callable[[], tuple[int, str] | None] = lambda: None
        self.label_filter = QComboBox()
        self.label_filter.setToolTip("Only rules whose head scores this label")
        self.label_mode = QComboBox()
        self.label_mode.addItem("strongly", True)
        self.label_mode.addItem("at all", False)
        self.label_mode.setToolTip("strongly: the label's score is at least half the head's strongest (a complete "
                                   "head scores every label); at all: any non-zero score")
        self.attribute_filter = QComboBox()
        self.attribute_filter.setToolTip("Only rules with a condition on this attribute")
        for combo in (self.label_filter, self.attribute_filter):  # narrow enough for presentation mode's column
            combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(5)
        self.attribute_filter.setMaximumWidth(200)
        self.text_filter = QLineEdit()
        self.text_filter.setPlaceholderText("Filter rules by text…")
        self.text_filter.setClearButtonEnabled(True)
        self.text_filter.setMinimumWidth(60)
        self.count_label = QLabel("0 rules")
        self.count_label.setMinimumWidth(90)
        self.count_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        self._lay_out()
        self.label_filter.currentIndexChanged.connect(self.apply_filters)
        self.label_mode.currentIndexChanged.connect(self.apply_filters)
        self.attribute_filter.currentIndexChanged.connect(self.apply_filters)
        self.apply_filters_soon = qdebounced(self.apply_filters, timeout=FILTER_DELAY_MS, parent=self)
        self.text_filter.textChanged.connect(lambda *_: self.apply_filters_soon())
        for signal in (self.proxy.rowsRemoved, self.proxy.modelReset, self.proxy.layoutChanged):
            signal.connect(self.update_count)

    def _lay_out(self) -> None:
        """Label and attribute filters on one row, the text filter and the count on the next: the
        browser fits the narrow column of presentation mode."""
        choices = QHBoxLayout()
        choices.setContentsMargins(0, 0, 0, 0)
        for text, widgets in (("Label", (self.label_filter, self.label_mode)), ("Attribute", (self.attribute_filter,))):
            choices.addWidget(QLabel(text))
            for widget in widgets:
                choices.addWidget(widget)
        choices.addStretch(1)
        search = QHBoxLayout()
        search.setContentsMargins(0, 0, 0, 0)
        search.addWidget(self.text_filter, 1)
        search.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addLayout(choices)
        layout.addLayout(search)
        layout.addWidget(self.table)

    def fill_filters(self, ds) -> None:
        """The label and attribute choices of a data set (filters reset, the text kept)."""
        for combo, names, everything in ((self.label_filter, ds.label_names, "all labels"),
                                         (self.attribute_filter, ds.feature_names, "all attributes")):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for i, name in enumerate(names):
                combo.addItem(name, i)
            combo.blockSignals(False)
        self.proxy.set_filters(None, None, self.text_filter.text())

    def apply_filters(self) -> None:
        self.proxy.set_filters(self.label_filter.currentData(), self.attribute_filter.currentData(),
                               self.text_filter.text(), self.label_mode.currentData())
        self.update_count()

    def update_count(self, *args) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        text = f"{total} rules" if shown == total else f"{shown} of {total} rules"
        steps = self.steps_of_run()
        if steps is not None and steps[0] != total:
            n, noun = steps
            text += f" from {n} {noun}{'s' if n != 1 else ''}"
            if noun == "step" and n > total:
                text += f" ({n - total} revisions)"
        self.count_label.setText(text)

    def selected_records(self) -> list:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(RecordRole) for r in rows]

    def selected_text(self, schema) -> str:
        """The selected rules as tab-separated text: a header row, then one row per rule with the
        columns of the CSV export."""
        shown = sorted({i.row() for i in self.table.selectionModel().selectedRows()})  # in the table's order
        rows = [self.proxy.mapToSource(self.proxy.index(r, 0)).row() for r in shown]
        if not rows:
            return ""
        records = [self.model.records[i] for i in rows]
        active = [bool(self.model.active[i]) for i in rows] if len(self.model.active) == len(self.model.records) \
            else None
        return exports.rules_tsv(records, schema, active)

    def shown_rows(self) -> list[int]:
        """The rows (of the model, in learning order) that the filters keep."""
        if not self.proxy.filtering:
            return list(range(self.model.rowCount()))
        return sorted(self.proxy.mapToSource(self.proxy.index(r, 0)).row() for r in range(self.proxy.rowCount()))

    def filter_text(self) -> str:
        """What the filters keep, in words: "label 'amazed' (strongly); attribute 'x'; text 'y'"."""
        parts = []
        if self.proxy.label is not None:
            parts.append(f"label '{self.label_filter.currentText()}' ({self.label_mode.currentText()})")
        if self.proxy.attribute is not None:
            parts.append(f"attribute '{self.attribute_filter.currentText()}'")
        if self.proxy.text:
            parts.append(f"text '{self.proxy.text}'")
        return "; ".join(parts) or "no filter"

    # -- sessions ------------------------------------------------------------------------------------
    def view_state(self) -> dict:
        """The filters and the selected rule, as a session keeps them."""
        selected = self.selected_records()
        return {"label_filter": self.label_filter.currentData(), "attribute_filter": self.attribute_filter.currentData(),
                "text_filter": self.text_filter.text(), "strongly": bool(self.label_mode.currentData()),
                "selected_rule": int(selected[0].index) if selected else None}

    def restore_view(self, view: dict) -> None:
        """Filters and selection of a session (entries that do not fit the data are left as they are)."""
        for combo, key in ((self.label_filter, "label_filter"), (self.attribute_filter, "attribute_filter")):
            at = combo.findData(view.get(key))
            if at >= 0:
                combo.setCurrentIndex(at)
        self.text_filter.setText(view.get("text_filter", ""))
        self.label_mode.setCurrentIndex(self.label_mode.findData(view.get("strongly", True)))
        self.apply_filters()
        rule = view.get("selected_rule")
        if rule is not None and rule < self.model.rowCount():
            self.table.select_source_row(rule)

    def shutdown(self) -> None:
        self.apply_filters_soon.cancel()
        self.table.shutdown()
