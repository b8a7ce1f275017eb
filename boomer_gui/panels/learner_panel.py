"""The learner panel, generated from ``engine.registry``: a combo box of the registered
learners, a form with one editor per declared parameter, and one button per preset.

Nothing here knows any particular learner: a newly registered ``LearnerSpec`` appears after
``refresh()`` with its own form and presets."""
from __future__ import annotations

import math
import random

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QHBoxLayout, QLabel,
                               QPushButton, QSizePolicy, QSpinBox, QToolButton, QVBoxLayout, QWidget)

from engine import registry

from boomer_gui.components.controller import task_message
from boomer_gui.components.state import preset_name
from boomer_gui.panels.wheel_guard import guard_wheel

INT_LIMIT = 2**31 - 1
NO_LIMIT = "no limit"


class _Editor:
    """One parameter's widget, with get/set in the parameter's own terms (None = no limit)."""

    def __init__(self, param, on_change):
        self.param = param
        p = param
        self.container = None
        if p.kind in ("choice", "option"):
            w = QComboBox()
            for c in p.choices:
                w.addItem(str(c), c)
            w.currentIndexChanged.connect(on_change)
            if p.kind == "option":  # mlrl-boomer's 'name{key=value,...}' may be typed in
                w.setEditable(True)
                w.setInsertPolicy(QComboBox.NoInsert)
                w.editTextChanged.connect(on_change)
        elif p.kind in ("int", "seed"):
            w = QSpinBox()
            lo = int(p.minimum) if p.minimum is not None else 0
            hi = int(p.maximum) if p.maximum is not None else INT_LIMIT
            hi = min(hi, INT_LIMIT)
            if p.optional:
                lo -= 1
                w.setSpecialValueText(NO_LIMIT)
            w.setRange(lo, hi)
            w.setAccelerated(True)
            w.valueChanged.connect(on_change)
        elif p.kind == "float":
            w = QDoubleSpinBox()
            lo = float(p.minimum) if p.minimum is not None else -1e9
            hi = float(p.maximum) if p.maximum is not None else 1e9
            decimals = 3
            if p.minimum is not None and 0 < p.minimum < 1:
                decimals = max(3, int(math.ceil(-math.log10(p.minimum))) + 1)
            w.setDecimals(decimals)
            if p.low_open and p.minimum is not None:  # (minimum, ...]: the smallest value shown above it
                lo += 10.0 ** -decimals
            w.setSingleStep(0.05 if hi - lo <= 1 else 0.1 if hi - lo <= 100 else 1.0)
            if p.optional:
                lo -= w.singleStep()
                w.setSpecialValueText(NO_LIMIT)
            w.setRange(lo, hi)
            w.valueChanged.connect(on_change)
        else:  # pragma: no cover - Parameter validates its kind
            raise ValueError(f"unknown parameter kind {p.kind!r}")
        self.widget = w
        tip = p.help or p.label or p.name
        w.setToolTip(f"{p.name}: {tip}" if tip != p.name else p.name)
        w.setObjectName(f"param_{p.name}")
        if p.kind == "seed":
            self.container = QWidget()
            h = QHBoxLayout(self.container)
            h.setContentsMargins(0, 0, 0, 0)
            h.addWidget(w, 1)
            dice = QToolButton()
            dice.setText("↻")
            dice.setToolTip("Draw a new random seed")
            dice.clicked.connect(lambda: w.setValue(random.randint(max(w.minimum(), 0), min(w.maximum(), 99999))))
            h.addWidget(dice)
        self.set(p.default)

    @property
    def outer(self) -> QWidget:
        return self.container or self.widget

    def get(self):
        p, w = self.param, self.widget
        if p.kind == "choice":
            return w.currentData()
        if p.kind == "option":
            return w.currentText().strip()
        if p.optional and w.value() == w.minimum():
            return None
        if p.kind == "float":
            return float(w.value())
        return int(w.value())

    def set(self, value) -> None:
        p, w = self.param, self.widget
        value = p.effective(value)  # None meaning the default shows the default
        if p.kind == "option":
            i = w.findData(value)
            if i >= 0:
                w.setCurrentIndex(i)
            w.setEditText(str(value))  # checked by the learner when a run starts
        elif p.kind == "choice":
            i = w.findData(value)
            if i < 0:
                i = w.findText(str(value))
            if i < 0:
                raise ValueError(f"{value!r} is not a choice of {p.name}: {', '.join(map(str, p.choices))}")
            w.setCurrentIndex(i)
        elif value is None:
            if not p.optional:
                raise ValueError(f"parameter {p.name} needs a value")
            w.setValue(w.minimum())
        else:
            w.setValue(value)


class LearnerPanel(QWidget):
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.editors: dict[str, _Editor] = {}
        self.preset_buttons: dict[str, QPushButton] = {}
        self._spec = None
        self._updating = False
        self.task: str | None = None  # the loaded data's: learners of the other task are greyed
        self.data_name = "the loaded data"

        self.combo = QComboBox()
        self.combo.setToolTip("The learning algorithm (from the engine's learner registry)")
        self.combo.currentIndexChanged.connect(self._learner_changed)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setStyleSheet("color: palette(mid);")
        self.task_note = QLabel()  # which learners the data allow, or why the chosen one cannot learn from them
        self.task_note.setObjectName("task_note")
        self.task_note.setWordWrap(True)
        self.task_note.hide()
        self.presets_box = QWidget()
        self.presets_layout = QGridLayout(self.presets_box)
        self.presets_layout.setContentsMargins(0, 0, 0, 0)
        self.presets_layout.setSpacing(3)
        self.form_box = QWidget()
        self.form = QFormLayout(self.form_box)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.reset_button = QPushButton("Defaults")
        self.reset_button.setToolTip("Reset every parameter to its default")
        self.reset_button.clicked.connect(self.reset_defaults)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo)
        layout.addWidget(self.task_note)
        layout.addWidget(self.description)
        self.presets_title = QLabel("Presets:")
        layout.addWidget(self.presets_title)
        layout.addWidget(self.presets_box)
        layout.addWidget(self.form_box)
        layout.addWidget(self.reset_button, 0, Qt.AlignRight)
        self.refresh()

    # -- registry -------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the registry (e.g. after a learner was registered)."""
        current = self._spec.key if self._spec is not None else None
        specs = registry.learners()
        self.combo.blockSignals(True)
        self.combo.clear()
        for spec in specs:
            self.combo.addItem(spec.title, spec.key)
        keys = [s.key for s in specs]
        self.combo.setCurrentIndex(keys.index(current) if current in keys else 0)
        self.combo.blockSignals(False)
        self._mark_tasks()
        self._build(self.combo.currentData())

    def _learner_changed(self, _index: int) -> None:
        self._build(self.combo.currentData())
        self.changed.emit()

    # -- the data's task ----------------------------------------------------------------------
    def set_task(self, task: str | None, data_name: str = "the loaded data") -> None:
        """Offer the learners of ``task`` ('classification': 0/1 labels, 'regression': real targets; None:
        every learner); the others stay in the list, greyed.  A chosen learner of the other task gives way to
        the first one that fits."""
        self.task, self.data_name = task, data_name
        self._mark_tasks()
        spec = self._spec
        if task is not None and spec is not None and not spec.fits_task(task):
            fitting = [i for i in range(self.combo.count()) if registry.get(self.combo.itemData(i)).fits_task(task)]
            if fitting:
                self.combo.setCurrentIndex(fitting[0])
        self._show_task_note()

    def fits(self, key: str) -> bool:
        """Does the learner ``key`` learn from the loaded data's task?"""
        return self.task is None or registry.get(key).fits_task(self.task)

    def _mark_tasks(self) -> None:
        model = self.combo.model()
        for i in range(self.combo.count()):
            spec = registry.get(self.combo.itemData(i))
            fits = self.task is None or spec.fits_task(self.task)
            item = model.item(i)
            item.setEnabled(fits)
            item.setToolTip("" if fits else task_message(spec, self.task, self.data_name))

    def _show_task_note(self) -> None:
        spec = self._spec
        problem = task_message(spec, self.task, self.data_name) if spec is not None else None
        if problem is not None:
            self.task_note.setText(problem)
            self.task_note.setStyleSheet("color: #b00020; font-weight: bold;")
        elif self.task == "regression":
            self.task_note.setText("Real-valued targets: the learners for regression are offered.")
            self.task_note.setStyleSheet("color: palette(mid);")
        self.task_note.setVisible(problem is not None or self.task == "regression")

    def _build(self, key) -> None:
        self._updating = True
        while self.form.rowCount():
            self.form.removeRow(0)
        for b in self.preset_buttons.values():
            b.deleteLater()
        self.preset_buttons.clear()
        self.editors.clear()
        self._spec = registry.get(key) if key is not None else None
        spec = self._spec
        if spec is None:
            self.description.setText("No learner is registered.")
            self._updating = False
            return
        self.description.setText(spec.description)
        self.description.setVisible(bool(spec.description))
        self._show_task_note()
        self._labels = {}
        for p in spec.parameters:
            if not p.shown:  # advanced settings: from Python or the command line
                continue
            ed = _Editor(p, self._edited)
            self.editors[p.name] = ed
            label = QLabel(p.label or p.name)
            label.setToolTip(ed.widget.toolTip())
            self._labels[p.name] = label
            self.form.addRow(label, ed.outer)
        for i, name in enumerate(spec.presets):
            b = QPushButton(name)
            b.setCheckable(True)
            b.setToolTip("\n".join(f"{k} = {v}" for k, v in spec.presets[name].items()))
            b.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
            b.setStyleSheet("text-align: left; padding: 2px 6px;")
            b.clicked.connect(lambda _=False, n=name: self.apply_preset(n))
            self.presets_layout.addWidget(b, i, 0)
            self.preset_buttons[name] = b
        self.presets_title.setVisible(bool(spec.presets))
        guard_wheel(self)  # scrolling over the new editors never changes them
        self._updating = False
        self._mark_preset()
        self._mark_applicable()

    # -- values ---------------------------------------------------------------------------
    @property
    def spec(self):
        return self._spec

    def params(self) -> dict:
        return {name: ed.get() for name, ed in self.editors.items()}

    def set_learner(self, key: str) -> None:
        i = self.combo.findData(key)
        if i < 0:
            self.refresh()
            i = self.combo.findData(key)
        if i < 0:
            raise ValueError(f"unknown learner {key!r}")
        self.combo.setCurrentIndex(i)

    def set_params(self, params: dict) -> None:
        unknown = set(params) - set(self.editors)
        if unknown:
            raise ValueError(f"unknown parameter(s) for {self._spec.title}: {', '.join(sorted(unknown))}")
        self._updating = True
        try:
            for name, value in params.items():
                self.editors[name].set(value)
        finally:
            self._updating = False
        self._mark_preset()
        self._mark_applicable()
        self.changed.emit()

    def apply_preset(self, name: str) -> None:
        self.set_params(dict(self._spec.presets[name]))

    def reset_defaults(self) -> None:
        if self._spec is not None:
            self.set_params({k: v for k, v in self._spec.defaults().items() if k in self.editors})

    def current_preset(self) -> str | None:
        return preset_name(self._spec.presets, self.params(), (self._spec.budget,)) if self._spec is not None else None

    def _edited(self, *args) -> None:
        if self._updating:
            return
        self._mark_preset()
        self._mark_applicable()
        self.changed.emit()

    def _mark_applicable(self) -> None:
        """Parameters without effect under the other values (e.g. β without the F-measure) are greyed."""
        if self._spec is None:
            return
        params = self.params()
        for p in self._spec.parameters:
            if p.name not in self.editors:
                continue
            on = p.applies_to(params)
            self.editors[p.name].outer.setEnabled(on)
            self._labels[p.name].setEnabled(on)

    def _mark_preset(self) -> None:
        current = self.current_preset()
        for name, b in self.preset_buttons.items():
            b.setChecked(name == current)

    def set_editable(self, on: bool) -> None:
        self.combo.setEnabled(on)
        self.form_box.setEnabled(on)
        self.presets_box.setEnabled(on)
        self.reset_button.setEnabled(on)
