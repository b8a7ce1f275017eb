"""The rule inspector: a selected rule's conditions, its full head, the training examples it
covers and how often each label occurs among them compared with the whole training data; a second
tab edits one of its thresholds (:mod:`boomer_gui.rules.threshold_panel`).

Every condition is shown, however long the body: a word-wrapped paragraph (conditions are never
split across lines) that takes the room it needs, scrolling only beyond most of the inspector's
height.  The charts' margins are fitted to their text; presentation mode enlarges their type
(ticks 15.3 px)."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from matplotlib.figure import Figure
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QHeaderView, QLabel, QScrollArea, QSplitter, QTableView,
                               QTabWidget, QVBoxLayout, QWidget)

from engine.api import rule_coverage
from engine.rules import Schema

from boomer_gui.plots.canvas import MarginCanvas
from boomer_gui.rules.threshold_panel import ThresholdPanel

POS, NEG = "#0072B2", "#D55E00"  # colour-blind safe (Okabe & Ito)
MAX_TICK_LABELS = 18
MAX_NAME = 12  # characters of a label name under a chart
TICK_PT, TITLE_PT = 7, 9  # chart type (points at 100 dpi): 9.7 px ticks on screen ...
PRESENTATION_SCALE = 11 / 7  # ... 15.3 px in presentation mode
PRESENTATION_CHART_SHARE = 0.5  # of the inspector's width, for the charts in presentation mode
CONDITIONS_SHARE = 0.6  # the conditions take at most this share of the left column's height, then scroll


def conditions_html(texts, link_colour: str | None = None) -> str:
    """Conditions joined by ∧, each kept on one line (lines break only between conditions); with a
    ``link_colour`` each is a link ``condition:i`` (click: edit its threshold) in that colour."""
    def keep(i: int, text: str) -> str:
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(" ", "&nbsp;")
        return f'<a href="condition:{i}" style="color: {link_colour}; text-decoration: none">{text}</a>' \
            if link_colour else text
    return " <b>∧</b> ".join(keep(i, t) for i, t in enumerate(texts))


def _short(name: str) -> str:
    return name if len(name) <= MAX_NAME else name[:MAX_NAME - 1] + "…"


def _dense_rows(X, rows: np.ndarray) -> np.ndarray:
    block = X[rows]
    if sp.issparse(block):
        block = block.toarray()
    return np.asarray(block, dtype=np.float32)


class CoveredExamplesModel(QAbstractTableModel):
    """Training examples covered by a rule: example number, relevant labels, attribute values
    (the rule's own attributes first)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows = np.zeros(0, dtype=np.int64)
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.labels = np.zeros((0, 0), dtype=np.uint8)
        self.columns: list[int] = []  # attribute index per value column
        self.schema = Schema()
        self._label_text: dict[int, str] = {}

    def set_examples(self, X, Y, rows, schema: Schema, first_attributes=()) -> None:
        self.beginResetModel()
        self.rows = np.asarray(rows, dtype=np.int64)
        n_features = X.shape[1]
        first = [j for j in dict.fromkeys(int(a) for a in first_attributes) if 0 <= j < n_features]
        rest = [j for j in range(n_features) if j not in set(first)]
        self.columns = first + rest
        self.values = _dense_rows(X, self.rows) if len(self.rows) else np.zeros((0, n_features), np.float32)
        self.labels = np.asarray(Y[self.rows], dtype=np.uint8) if len(self.rows) else np.zeros((0, Y.shape[1]), np.uint8)
        self.schema = schema or Schema()
        self.n_first = len(first)
        self._label_text = {}
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self.rows = np.zeros(0, dtype=np.int64)
        self.values = np.zeros((0, 0), dtype=np.float32)
        self.labels = np.zeros((0, 0), dtype=np.uint8)
        self.columns = []
        self._label_text = {}
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else (2 + len(self.columns) if len(self.rows) or self.columns else 0)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation != Qt.Horizontal or role not in (Qt.DisplayRole, Qt.ToolTipRole):
            return None
        if section == 0:
            return "example"
        if section == 1:
            return "labels"
        if 2 <= section < 2 + len(self.columns):
            j = self.columns[section - 2]
            name = self.schema.feature(j)
            if role == Qt.ToolTipRole:
                return f"{name} (attribute {j}{', used by the rule' if section - 2 < self.n_first else ''})"
            return ("• " + name) if section - 2 < self.n_first else name
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or role not in (Qt.DisplayRole, Qt.TextAlignmentRole):
            return None
        r, c = index.row(), index.column()
        if r >= len(self.rows) or c >= 2 + len(self.columns):
            return None
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignLeft | Qt.AlignVCenter) if c == 1 else int(Qt.AlignRight | Qt.AlignVCenter)
        if c == 0:
            return str(int(self.rows[r]))
        if c == 1:
            text = self._label_text.get(r)
            if text is None:
                text = ", ".join(self.schema.label(int(k)) for k in np.flatnonzero(self.labels[r])) or "∅"
                self._label_text[r] = text
            return text
        j = self.columns[c - 2]
        v = float(self.values[r, j])
        if math.isnan(v):
            return "?"
        if j in self.schema.nominal_values:
            return self.schema.value(j, v)
        return f"{v:.4g}"


# How the learners' step metrics (``RuleRecord.extra``) read in the inspector.
STEP_METRIC_LABELS = {
    "alpha": "α (confidence)", "Z": "Z (normaliser)", "bound": "∏Z (training error bound)", "r": "edge r",
    "abstained": "abstaining weight", "wrong": "wrong weight", "holdout_loss": "holdout loss",
    "train_loss": "training loss", "heuristic": "heuristic value", "head_size": "head labels",
    "head_evaluations": "heads evaluated", "remaining": "examples left"}


def step_metrics_text(record) -> str:
    """The step's own numbers and its improvement of the learner's objective, one line."""
    parts = []
    improvement = getattr(record, "improvement", float("nan"))
    if improvement == improvement:  # not NaN
        parts.append(f"improvement {improvement:.4g}")
    for name, value in (getattr(record, "extra", None) or {}).items():
        if value == value:
            parts.append(f"{STEP_METRIC_LABELS.get(name, name)} {value:.4g}")
    return "Step: " + ", ".join(parts) if parts else ""


class RuleInspector(QWidget):
    """Shows one rule of the table in detail."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.train = None
        self.schema = Schema()
        self.record = None
        self.mask = None
        self._bars_for = None
        self._upright = None  # the label names under the charts stand upright

        self.title = QLabel("Select a rule in the table to inspect it.")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # the learning step's own numbers (AdaBoost's alpha and Z, a holdout loss, SeCo's heuristic, ...)
        self.step_label = QLabel("")
        self.step_label.setWordWrap(True)
        self.step_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.step_label.setObjectName("step_metrics")
        self.conditions = QLabel("")
        self.conditions.setObjectName("conditions")
        self.conditions.setWordWrap(True)
        self.conditions.setTextFormat(Qt.RichText)
        self.conditions.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.conditions.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.conditions.setToolTip("The rule's conditions (all must hold); click one to edit its threshold")
        self.conditions.linkActivated.connect(self._condition_clicked)
        self.conditions_scroll = QScrollArea()
        self.conditions_scroll.setWidgetResizable(True)
        self.conditions_scroll.setFrameShape(QFrame.StyledPanel)
        self.conditions_scroll.setWidget(self.conditions)
        self.conditions_scroll.setMinimumHeight(40)
        self.condition_texts: list[str] = []
        self.presentation = False
        self.figure = Figure(figsize=(4, 3.4), dpi=100)
        self.head_ax = self.figure.add_subplot(2, 1, 1)
        self.freq_ax = self.figure.add_subplot(2, 1, 2)
        # margins fitted to the charts' text (upright label names, presentation type) before each draw
        self.canvas = MarginCanvas(self.figure, left=48, right=8, bottom=34, top=22, hspace=62, fit_text=True)
        self.canvas.setMinimumSize(160, 160)
        self.canvas.mpl_connect("resize_event", self._canvas_resized)
        self.examples_model = CoveredExamplesModel(self)
        self.examples = QTableView()
        self.examples.setModel(self.examples_model)
        self.examples.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.examples.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.examples.verticalHeader().setDefaultSectionSize(20)
        self.examples.verticalHeader().hide()
        self.examples.horizontalHeader().setDefaultSectionSize(72)
        self.examples.setWordWrap(False)
        self.examples_label = QLabel("Covered training examples")
        self.examples_label.setWordWrap(True)  # its width never holds the charts back (presentation mode)

        left = self.left = QSplitter(Qt.Vertical)
        cond_box = QWidget()
        cl = self._cond_layout = QVBoxLayout(cond_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(QLabel("Conditions"))
        cl.addWidget(self.conditions_scroll, 1)
        ex_box = QWidget()
        el = QVBoxLayout(ex_box)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(self.examples_label)
        el.addWidget(self.examples)
        left.addWidget(cond_box)
        left.addWidget(ex_box)
        left.setSizes([80, 320])
        left.setStretchFactor(1, 1)
        splitter = self.splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.canvas)
        splitter.setSizes([380, 260])
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.step_label)
        layout.addWidget(self._mode_tabs(splitter), 1)
        self._setup_axes(0)

    def _mode_tabs(self, rule_view: QWidget) -> QTabWidget:
        """The rule (conditions, examples, charts), or the threshold editor of a condition, the whole width."""
        self.threshold = ThresholdPanel()
        self.mode_tabs = QTabWidget()
        self.mode_tabs.setDocumentMode(True)  # no frame: the charts keep their room
        self.mode_tabs.addTab(rule_view, "Rule")
        self.mode_tabs.addTab(self.threshold, "Edit a threshold")
        return self.mode_tabs

    def set_data(self, train, schema: Schema | None = None) -> None:
        """The training data whose covered examples are shown."""
        self.train = train
        self.schema = schema or (train.schema if train is not None else Schema())
        self._bars_for = None  # new label names: rebuild the charts
        self.clear()

    def set_threshold_context(self, estimator, test=None, run_name: str = "") -> None:
        """The finished run whose thresholds can be edited on the training data (None: none)."""
        self.threshold.set_context(estimator, self.train if estimator is not None else None, test, run_name,
                                   self.schema)

    def show_threshold_editor(self, condition: int | None = None) -> None:
        """The threshold editor in front (of condition ``condition`` of the shown rule, when given)."""
        if condition is not None and 0 <= condition < self.threshold.combo.count():
            self.threshold.combo.setCurrentIndex(condition)
        self.mode_tabs.setCurrentWidget(self.threshold)

    def _condition_clicked(self, link: str) -> None:
        if link.startswith("condition:"):
            self.show_threshold_editor(int(link.split(":", 1)[1]))

    def clear(self) -> None:
        shown = self.record is not None
        self.threshold.show_rule(None)
        self.record = None
        self.mask = None
        self.title.setText("Select a rule in the table to inspect it.")
        self.step_label.setText("")
        self._set_conditions([])
        self.examples_model.clear()
        self.examples_label.setText("Covered training examples")
        K = self.train.n_labels if self.train is not None else 0
        if K != self._bars_for:
            self._setup_axes(K)
        elif shown:
            for bar in list(self.head_bars) + list(self.cov_bars) + list(self.all_bars):
                bar.set_height(0.0)
        else:
            return  # nothing on the charts changed: no redraw (a run may be starting)
        self.canvas.draw_idle()

    def _setup_axes(self, K: int) -> None:
        """Create the bars once per number of labels; rules only change their heights."""
        self._bars_for = K
        big = PRESENTATION_SCALE if self.presentation else 1.0
        for ax in (self.head_ax, self.freq_ax):
            ax.clear()
            ax.tick_params(labelsize=TICK_PT * big)
            ax.grid(True, axis="y", alpha=0.3, lw=0.5)
        title_pt = max(TITLE_PT, TICK_PT * big)  # in presentation mode as large as the ticks, so it fits
        self.head_ax.set_title("head: score per label", fontsize=title_pt)
        # the title names the bars (no legend over tall bars): covered left in blue, all right in grey
        self.freq_ax.set_title("label frequency:\ncovered (blue), all (grey)", fontsize=title_pt)
        x = np.arange(K)
        self.head_bars = self.head_ax.bar(x, np.zeros(K), color=POS, width=0.8)
        self.head_ax.axhline(0, color="0.4", lw=0.6)
        self.cov_bars = self.freq_ax.bar(x - 0.2, np.zeros(K), width=0.4, color="#1f77b4", label="covered")
        self.all_bars = self.freq_ax.bar(x + 0.2, np.zeros(K), width=0.4, color="0.7", label="all")
        self.freq_ax.set_ylim(0, 1.05)
        self._upright = None
        self._set_tick_labels()

    def _set_tick_labels(self) -> None:
        """Label names under the bars: side by side when they fit the charts' width (measured on the
        canvas, about 0.62 em a character plus a gap), else upright and only under the lower chart."""
        K = self._bars_for or 0
        if not K:
            return
        big = PRESENTATION_SCALE if self.presentation else 1.0
        names = [_short(self.schema.label(k)) for k in range(K)]
        step = max(1, int(math.ceil(K / MAX_TICK_LABELS)))
        shown = names[::step]
        char_px = 0.62 * TICK_PT * big * self.figure.dpi / 72 / max(self.canvas.device_pixel_ratio, 1.0)
        axes_px = max(self.canvas.width() - 60 * big, 40)
        upright = sum(len(n) * char_px + 6 for n in shown) > axes_px
        if upright == self._upright:
            return
        self._upright = upright
        x = np.arange(K)
        for ax in (self.head_ax, self.freq_ax):
            ax.set_xticks(x[::step])
            ax.set_xticklabels(shown, rotation=90 if upright else 0, fontsize=TICK_PT * big)
            ax.set_xlim(-0.6, K - 0.4)
        # upright names only under the lower chart (the canvas fits its margins to them)
        self.head_ax.tick_params(labelbottom=not upright)

    def set_presentation(self, on: bool) -> None:
        """Large chart type for a projector (ticks 15.3 px), the charts half the inspector's width;
        off: the screen layout."""
        if bool(on) == self.presentation:
            return
        self.presentation = bool(on)
        # a projector shows the rule and its charts: the threshold editor's tab bar leaves them its height
        if on:
            self.mode_tabs.setCurrentWidget(self.splitter)
        self.mode_tabs.tabBar().setVisible(not on)
        # the rule's summary over the conditions (presentation) or over everything: there the charts
        # take the inspector's whole height
        self.title.setMinimumHeight(0)
        into = self._cond_layout if on else self._layout
        into.insertWidget(0, self.title)
        into.insertWidget(1, self.step_label)
        # beside the conditions and examples, the charts take half the width in presentation mode
        # (their full height: the column is narrow but tall enough for two charts of large type)
        self._share_charts()
        record = self.record
        self._setup_axes(self._bars_for or 0)
        if record is not None:
            self.show_record(record)
        else:
            self.canvas.draw_idle()

    def _set_conditions(self, texts: list[str], links: bool = False) -> None:
        self.condition_texts = list(texts)
        colour = self.conditions.palette().color(QPalette.WindowText).name() if links else None
        self.conditions.setText(conditions_html(texts, colour))
        self._fit_conditions()

    def _fit_conditions(self) -> None:
        """Give the conditions the height they need (up to CONDITIONS_SHARE of the column)."""
        sizes = self.left.sizes()
        total = sum(sizes)
        if total <= 0 or not self.condition_texts:
            return
        width = self.conditions_scroll.viewport().width() or self.conditions_scroll.width()
        box = self.left.widget(0).layout()
        header = 0  # everything over the conditions (in presentation mode the rule's summary, too)
        for i in range(box.count()):
            widget = box.itemAt(i).widget()
            if widget is None or widget is self.conditions_scroll or not widget.isVisibleTo(self):
                continue
            hfw = widget.heightForWidth(max(width, 50)) if widget.hasHeightForWidth() else -1
            header += (hfw if hfw > 0 else widget.sizeHint().height()) + box.spacing()
        if self.presentation:  # the rule's summary over the conditions is never squeezed
            self.title.setMinimumHeight(max(self.title.heightForWidth(max(width, 50)), 0))
        frame = 2 * self.conditions_scroll.frameWidth() + 2
        need = self.conditions.heightForWidth(max(width, 50)) + header + frame
        top = int(min(max(need, 60), (0.75 if self.presentation else CONDITIONS_SHARE) * total))
        self.left.setSizes([top, total - top])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_conditions()
        if self.presentation:
            self._share_charts()

    def _share_charts(self) -> None:
        total = sum(self.splitter.sizes()) or self.width()
        share = PRESENTATION_CHART_SHARE if self.presentation else 0.4
        self.splitter.setSizes([total - int(total * share), int(total * share)])

    def _canvas_resized(self, _event=None) -> None:
        """Names side by side or upright, as the charts' new width allows."""
        if self._bars_for:
            upright = self._upright
            self._set_tick_labels()
            if upright != self._upright:
                self.canvas.draw_idle()

    def show_record(self, record) -> None:
        if record is None:
            self.clear()
            return
        self.record = record
        self.threshold.show_rule(record)
        rule = record.rule
        schema = self.schema
        self.step_label.setText(step_metrics_text(record))
        if not rule.conditions:
            self.title.setText(f"Rule #{record.index} – the default rule (covers every example)")
        self._set_conditions([c.to_text(schema) for c in rule.conditions] or ["(no conditions)"],
                             links=bool(rule.conditions))
        K = self.train.n_labels if self.train is not None else int(rule.head_labels.max(initial=-1)) + 1
        if self._bars_for != K:
            self._setup_axes(K)
        head = rule.dense_head(K)
        for bar, v in zip(self.head_bars, head):
            bar.set_height(v)
            bar.set_color(POS if v >= 0 else NEG)
        lo, hi = float(min(0.0, head.min(initial=0.0))), float(max(0.0, head.max(initial=0.0)))
        pad = 0.08 * max(hi - lo, 1e-3)
        self.head_ax.set_ylim(lo - pad, hi + pad)
        if self.train is not None:
            self.mask = rule_coverage(rule, self.train.X)
            rows = np.flatnonzero(self.mask)
            Y = np.asarray(self.train.Y, dtype=np.float64)
            covered = Y[rows].mean(axis=0) if len(rows) else np.zeros(K)
            overall = Y.mean(axis=0)
            for bar, v in zip(self.cov_bars, covered):
                bar.set_height(v)
            for bar, v in zip(self.all_bars, overall):
                bar.set_height(v)
            self.examples_model.set_examples(self.train.X, self.train.Y, rows, schema,
                                             [c.attribute for c in rule.conditions])
            self.examples.setColumnWidth(0, 58)
            self.examples.setColumnWidth(1, 120)
            n, N = len(rows), self.train.n_examples
            self.examples_label.setText(f"Covered training examples: {n} of {N} ({n / max(N, 1):.1%})")
            if rule.conditions:
                self.title.setText(f"Rule #{record.index}: {len(rule.conditions)} condition(s), "
                                   f"covers {n} of {N} training examples; head with {len(rule.head_labels)} label(s)")
        if self.presentation:  # the summary is over the conditions: their share follows its lines
            self._fit_conditions()
        self.canvas.draw_idle()

    # -- for tests --------------------------------------------------------------------------
    def head_heights(self) -> np.ndarray:
        return np.array([b.get_height() for b in self.head_bars])

    def frequency_heights(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([b.get_height() for b in self.cov_bars]), np.array([b.get_height() for b in self.all_bars]))
