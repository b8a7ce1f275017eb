"""The data panel: open a data file or generate a synthetic set, choose the test data, and see
what was loaded (examples, attributes, labels with their frequencies, label cardinality and
distinct label sets).  Loading itself is done by the main window (it owns error reporting);
the panel only emits a :class:`DataSpec`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog,
                               QFormLayout, QGroupBox, QHeaderView, QLabel, QListWidget, QListWidgetItem,
                               QMessageBox, QPushButton, QSpinBox, QStackedWidget, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from engine.api import SYNTHETIC_KINDS, SYNTHETIC_REGRESSION_KINDS, test_sibling

from boomer_gui.components.state import (MAX_SYNTHETIC_EXAMPLES, MAX_SYNTHETIC_LABELS, DataSpec, LoadedData, csv_header,
                                         target_ranges)

DATA_FILTER = "Multi-label data (*.arff *.svm *.svmlight *.libsvm *.txt *.csv);;All files (*)"
TEST_MODE_TEXT = {"generated": "Fresh synthetic sample", "split": "Random split", "file": "Separate test file"}


def checkable_list(names) -> QListWidget:
    """A list of names with (unticked) checkboxes."""
    widget = QListWidget()
    for name in names:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
        item.setCheckState(Qt.Unchecked)
        widget.addItem(item)
    return widget


def checked_names(widget: QListWidget) -> list[str]:
    return [widget.item(i).text() for i in range(widget.count()) if widget.item(i).checkState() == Qt.Checked]


class CsvLabelDialog(QDialog):
    """Pick the label columns of a CSV file (trailing 0/1-looking columns preselected)."""

    def __init__(self, path, columns: list[str], parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Label columns of {Path(path).name}")
        self.list = checkable_list(columns)
        if columns:
            self.list.item(len(columns) - 1).setCheckState(Qt.Checked)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Tick the columns that are labels (0/1); the others are attributes."))
        layout.addWidget(self.list)
        layout.addWidget(buttons)

    def label_columns(self) -> list[str]:
        return checked_names(self.list)


class LabelChoiceDialog(QDialog):
    """The labels of a file could not be found: tick the label attributes, or pick its Mulan XML file."""

    def __init__(self, path, candidates: list[str], reason: str = "", parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Which attributes of {Path(path).name} are labels?")
        self._xml: str | None = None
        self.list = checkable_list(candidates)
        explanation = QLabel(
            "The file does not say which attributes are labels (no Mulan XML file beside it and no MEKA "
            "'-C n' in its relation name).\n\nTick the label attributes (binary {0,1} attributes are listed), "
            "or choose the data set's Mulan XML file.")
        explanation.setWordWrap(True)
        if reason:
            explanation.setToolTip(reason)
        self.xml_button = QPushButton("Choose Mulan XML file…")
        self.xml_button.clicked.connect(self._choose_xml)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.Ok)
        self.list.itemChanged.connect(self._update_ok)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addWidget(self.list)
        layout.addWidget(self.xml_button)
        layout.addWidget(buttons)
        self._folder = str(Path(path).parent)
        self._update_ok()

    def _update_ok(self, *args) -> None:
        self.ok_button.setEnabled(bool(self.label_columns()))

    def _choose_xml(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Mulan label file", self._folder, "Mulan labels (*.xml)")
        if path:
            self.set_xml(path)

    def set_xml(self, path) -> None:
        self._xml = str(path)
        self.accept()

    def label_columns(self) -> list[str]:
        return checked_names(self.list)

    def choice(self) -> dict:
        """``{'xml': path}`` or ``{'label_columns': [...]}`` for the data spec."""
        if self._xml:
            return {"xml": self._xml, "label_columns": None}
        return {"label_columns": self.label_columns(), "xml": None}


class DataPanel(QWidget):
    dataRequested = Signal(object)  # DataSpec

    def __init__(self, parent=None):
        super().__init__(parent)
        self.spec = DataSpec()
        self.loaded: LoadedData | None = None
        self._file_spec: DataSpec | None = None

        self.open_button = QPushButton("Open data file…")
        self.open_button.setToolTip("ARFF (Mulan with .xml, or MEKA), svmlight (.svm) or CSV")
        self.open_button.clicked.connect(self.choose_file)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.open_button)
        layout.addWidget(self._synthetic_group())
        layout.addWidget(self._test_group())
        self._build_summary()
        layout.addWidget(self.summary)
        layout.addWidget(self.labels_table)
        self.set_spec(self.spec)

    def _synthetic_group(self) -> QGroupBox:
        """The synthetic data's kind, size, labels and seed (unticked while a file is loaded)."""
        self.kind = QComboBox()
        for k in SYNTHETIC_KINDS:
            self.kind.addItem(k, k)
        for k in SYNTHETIC_REGRESSION_KINDS:  # real-valued targets (multi-output regression)
            self.kind.addItem(f"{k} (real targets)", k)
        self.kind.setCurrentIndex(SYNTHETIC_KINDS.index("conditional-dependence"))
        self.n_examples = QSpinBox()
        self.n_examples.setRange(10, MAX_SYNTHETIC_EXAMPLES)
        self.n_examples.setSingleStep(500)
        self.n_examples.setValue(2000)
        self.n_labels = QSpinBox()
        self.n_labels.setRange(1, MAX_SYNTHETIC_LABELS)
        self.n_labels.setValue(6)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 2)
        self.generate_button = QPushButton("Generate")
        self.generate_button.setToolTip("Draw a synthetic data set (BOOMER paper, Sec. 5.1)")
        self.generate_button.clicked.connect(self.generate)
        synth = QGroupBox("Synthetic data")
        self.synthetic_box = synth
        synth.setCheckable(True)  # unticked while a file is loaded
        sf = QFormLayout(synth)
        sf.addRow("Kind", self.kind)
        sf.addRow("Training examples", self.n_examples)
        sf.addRow("Labels", self.n_labels)
        sf.addRow("Seed", self.seed)
        sf.addRow(self.generate_button)
        return synth

    def _test_group(self) -> QGroupBox:
        """Where the test data come from: generated, a split of the training data, or a file."""
        self.test_mode = QComboBox()
        for mode, text in TEST_MODE_TEXT.items():
            self.test_mode.addItem(text, mode)
        self.test_mode.currentIndexChanged.connect(self._mode_changed)
        self.fraction = QDoubleSpinBox()
        self.fraction.setRange(0.05, 0.9)
        self.fraction.setSingleStep(0.05)
        self.fraction.setValue(0.3)
        self.fraction.setDecimals(2)
        self.split_seed = QSpinBox()
        self.split_seed.setRange(0, 2**31 - 2)
        self.n_test = QSpinBox()
        self.n_test.setRange(10, MAX_SYNTHETIC_EXAMPLES)
        self.n_test.setSingleStep(500)
        self.n_test.setValue(2000)
        self.test_file_button = QPushButton("Choose test file…")
        self.test_file_button.clicked.connect(self.choose_test_file)
        self.test_file_label = QLabel("–")
        self.test_file_label.setWordWrap(True)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Rebuild the training and test data with these settings")
        self.apply_button.clicked.connect(self.apply_split)

        self.mode_stack = QStackedWidget()
        gen_page = QWidget()
        gf = QFormLayout(gen_page)
        gf.setContentsMargins(0, 0, 0, 0)
        gf.addRow("Test examples", self.n_test)
        self.gen_note = QLabel("seed = training seed + 1")
        self.gen_note.setStyleSheet("color: palette(mid);")
        gf.addRow(self.gen_note)
        split_page = QWidget()
        spf = QFormLayout(split_page)
        spf.setContentsMargins(0, 0, 0, 0)
        spf.addRow("Test fraction", self.fraction)
        spf.addRow("Split seed", self.split_seed)
        file_page = QWidget()
        fl = QVBoxLayout(file_page)
        fl.setContentsMargins(0, 0, 0, 0)
        fl.addWidget(self.test_file_button)
        fl.addWidget(self.test_file_label)
        self._pages = {"generated": 0, "split": 1, "file": 2}
        for page in (gen_page, split_page, file_page):
            self.mode_stack.addWidget(page)
        test = QGroupBox("Test data")
        tl = QVBoxLayout(test)
        tl.addWidget(self.test_mode)
        tl.addWidget(self.mode_stack)
        tl.addWidget(self.apply_button, 0, Qt.AlignRight)
        return test

    def _build_summary(self) -> None:
        self.summary = QLabel("No data")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.labels_table = QTableWidget(0, 2)
        self.labels_table.setHorizontalHeaderLabels(["label", "frequency"])
        self.labels_table.verticalHeader().hide()
        self.labels_table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.labels_table.verticalHeader().setDefaultSectionSize(19)
        self.labels_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.labels_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.labels_table.setMinimumHeight(90)
        self.labels_table.setMaximumHeight(170)

    # -- spec <-> widgets ------------------------------------------------------------------
    def set_spec(self, spec: DataSpec) -> None:
        """Show a spec's settings in the widgets (without loading anything)."""
        self.spec = spec
        if spec.kind == "synthetic":
            self.kind.setCurrentIndex(max(0, self.kind.findData(spec.synthetic)))
            self.n_examples.setValue(int(spec.n_examples))
            self.n_labels.setValue(int(spec.n_labels))
            self.seed.setValue(int(spec.seed))
        self._show_source(spec.kind)
        self.n_test.setValue(int(spec.n_test))
        self.fraction.setValue(float(spec.test_fraction))
        self.split_seed.setValue(int(spec.split_seed))
        self.test_file_label.setText(spec.test_path or "–")
        self._test_path = spec.test_path
        gen_item = self.test_mode.model().item(self.test_mode.findData("generated"))
        gen_item.setEnabled(spec.kind == "synthetic")
        self.test_mode.setCurrentIndex(self.test_mode.findData(spec.test_mode))
        self._mode_changed()

    def _show_source(self, kind: str) -> None:
        """A file is loaded: the generator's box is unticked and greyed (its settings do not
        describe the data); ticking it again offers them, and Generate, to go back to synthetic data."""
        synthetic = kind == "synthetic"
        self.synthetic_box.setChecked(synthetic)
        self.synthetic_box.setToolTip("" if synthetic else "A file is loaded; tick to generate synthetic data instead")

    def _mode_changed(self, *args) -> None:
        mode = self.test_mode.currentData()
        self.mode_stack.setCurrentIndex(self._pages.get(mode, 1))

    def _test_settings(self) -> dict:
        mode = self.test_mode.currentData()
        return {"test_mode": mode, "test_fraction": float(self.fraction.value()),
                "split_seed": int(self.split_seed.value()), "n_test": int(self.n_test.value()),
                "test_path": self._test_path if mode == "file" else None}

    # -- actions ------------------------------------------------------------------------------
    def generate(self) -> None:
        settings = self._test_settings()
        if self.spec.kind != "synthetic" and settings["test_mode"] != "file":
            settings["test_mode"] = "generated"
        if settings["test_mode"] == "file" and not settings["test_path"]:
            settings["test_mode"] = "generated"
        spec = DataSpec(kind="synthetic", synthetic=self.kind.currentData(), n_examples=int(self.n_examples.value()),
                        n_labels=int(self.n_labels.value()), seed=int(self.seed.value()), **settings)
        self.dataRequested.emit(spec)

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a multi-label data set", "", DATA_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path, label_columns=None, test_path=None) -> bool:
        """Request a data file; a CSV file without ``label_columns`` asks for them."""
        path = str(path)
        if Path(path).suffix.lower() == ".csv" and not label_columns:
            label_columns = self.ask_label_columns(path)
            if not label_columns:
                return False
        settings = self._test_settings()
        sibling = test_sibling(path) if not test_path else None
        if sibling is not None and self.ask_use_test_file(path, sibling):
            test_path = sibling
        if test_path:
            settings.update(test_mode="file", test_path=str(test_path))
        elif settings["test_mode"] != "split":
            settings["test_mode"] = "split"
            settings["test_path"] = None
        spec = DataSpec(kind="file", path=path, label_columns=list(label_columns) if label_columns else None,
                        **settings)
        self.dataRequested.emit(spec)
        return True

    def ask_use_test_file(self, path, sibling) -> bool:
        """Offer a training file's test sibling (``scene-test.arff`` for ``scene-train.arff``) as the
        test set (tests replace this)."""
        answer = QMessageBox.question(
            self, "Use the test file?", f"{Path(sibling).name} lies beside {Path(path).name}.\n\nUse it as the "
            "test set (instead of a random split of the training file)?", QMessageBox.Yes | QMessageBox.No,
            QMessageBox.Yes)
        return answer == QMessageBox.Yes

    def ask_label_columns(self, path) -> list[str] | None:
        try:
            columns = csv_header(path)
        except OSError:
            columns = []
        if not columns:
            return None
        dialog = CsvLabelDialog(path, columns, self)
        if dialog.exec() != QDialog.Accepted:
            return None
        return dialog.label_columns()

    def choose_test_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a test data set", "", DATA_FILTER)
        if path:
            self._test_path = path
            self.test_file_label.setText(path)

    def apply_split(self) -> None:
        settings = self._test_settings()
        if settings["test_mode"] == "file" and not settings["test_path"]:
            self.choose_test_file()
            settings = self._test_settings()
            if not settings["test_path"]:
                return
        d = self.spec.to_dict()
        if d["kind"] == "synthetic":
            d.update(synthetic=self.kind.currentData(), n_examples=int(self.n_examples.value()),
                     n_labels=int(self.n_labels.value()), seed=int(self.seed.value()))
        d.update(settings)
        self.dataRequested.emit(DataSpec.from_dict(d))

    # -- what was loaded --------------------------------------------------------------------
    def show_data(self, loaded: LoadedData) -> None:
        self.loaded = loaded
        self.set_spec(loaded.spec)
        if loaded.task == "regression":
            self._show_targets(loaded)
            return
        full, train, test = loaded.full, loaded.train, loaded.test
        n_nominal = len(full.nominal_values)
        src = loaded.spec.path if loaded.spec.kind == "file" else f"synthetic, seed {loaded.spec.seed}"
        bayes = loaded.bayes_point
        bayes_text = (f"<br>Bayes-optimal on test: Hamming {bayes[0]:.4f}, subset 0/1 {bayes[1]:.4f}"
                      if bayes else "")
        self.summary.setText(
            f"<b>{full.name}</b> <span style='color:gray'>({src})</span><br>"
            f"{train.n_examples} training + {test.n_examples} test examples<br>"
            f"{full.n_features} attributes: {full.n_features - n_nominal} numeric, {n_nominal} nominal<br>"
            f"{full.n_labels} labels, cardinality {train.label_cardinality:.3f}, "
            f"{train.n_distinct_label_sets} distinct label sets{bayes_text}")
        self.summary.setToolTip(loaded.spec.describe())
        self.labels_table.setColumnCount(2)
        self.labels_table.setHorizontalHeaderLabels(["label", "frequency"])
        freq = train.label_frequencies
        t = self.labels_table
        t.setRowCount(len(freq))
        for k, f in enumerate(freq):
            name = QTableWidgetItem(train.label_names[k] if k < len(train.label_names) else f"y{k}")
            value = QTableWidgetItem(f"{f:.3f}")
            value.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            value.setData(Qt.UserRole, float(f))
            shade = int(255 - 90 * float(np.clip(f, 0, 1)))
            value.setBackground(QBrush(QColor(shade, shade, 255)))
            t.setItem(k, 0, name)
            t.setItem(k, 1, value)

    def _show_targets(self, loaded: LoadedData) -> None:
        """Regression data: the summary names the targets, the table each one's minimum, mean and maximum."""
        full, train, test = loaded.full, loaded.train, loaded.test
        src = loaded.spec.path if loaded.spec.kind == "file" else f"synthetic, seed {loaded.spec.seed}"
        n_nominal = len(full.nominal_values)
        self.summary.setText(
            f"<b>{full.name}</b> <span style='color:gray'>({src})</span><br>"
            f"{train.n_examples} training + {test.n_examples} test examples<br>"
            f"{full.n_features} attributes: {full.n_features - n_nominal} numeric, {n_nominal} nominal<br>"
            f"{full.n_labels} real-valued target{'s' if full.n_labels != 1 else ''} (regression)")
        self.summary.setToolTip(loaded.spec.describe())
        t = self.labels_table
        t.setColumnCount(4)
        t.setHorizontalHeaderLabels(["target", "min", "mean", "max"])
        rows = target_ranges(train)
        t.setRowCount(len(rows))
        for k, (name, *values) in enumerate(rows):
            t.setItem(k, 0, QTableWidgetItem(name))
            for c, v in enumerate(values, start=1):
                item = QTableWidgetItem(f"{v:.4g}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                item.setData(Qt.UserRole, v)
                t.setItem(k, c, item)

    def set_editable(self, on: bool) -> None:
        for w in (self.open_button, self.synthetic_box, self.apply_button, self.test_file_button):
            w.setEnabled(on)
