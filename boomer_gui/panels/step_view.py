"""The view of any learner's steps, built from its registry declaration (engine.registry).

For learners whose steps are not rules (label ranking, mixtures of experts, …): a table of steps
whose columns are the declared component columns and metrics, the declared plots (one axes per
plot, one line per (x, y) metric pair, throttled ``set_data`` + ``draw_idle``), and an inspector
showing the declared presentation of the selected step.  Nothing here knows a particular learner.

The :class:`StepView` widget is the table; its :attr:`~StepView.plots` and
:attr:`~StepView.inspector` are widgets of their own that the window places beside the rule
inspector (the trajectory plot of all runs stays where it is).  It shows the steps of one run, the
one selected in the run table."""
from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTextBrowser, QVBoxLayout, QWidget
from superqt.utils import qthrottled

from engine.api import atomic_savefig
from engine.registry import STEP, LearnerSpec

from boomer_gui.plots.canvas import MarginCanvas, xaxis_depth_pt

UPDATE_INTERVAL_MS = 250
ROW_HEIGHT = 22
# type sizes (points at 100 dpi) on screen; presentation mode scales them (ticks 10.5 pt = 14.6 px)
TICK_PT, LABEL_PT, TITLE_PT, LEGEND_PT = 7, 8, 9, 6.5
PRESENTATION_SCALE = 1.5
MIN_SPAN = 0.05  # a y axis spans at least this much (absolute) ...
MIN_RELATIVE_SPAN = 0.1  # ... and this share of its largest value: small differences stay small


def honest_limits(lo: float, hi: float) -> tuple[float, float]:
    """Y limits around the data [lo, hi] that do not magnify tiny differences: a span of at least
    MIN_SPAN and MIN_RELATIVE_SPAN of the largest magnitude, 5 % padding, and never below 0 for
    data that are not negative (losses, error rates)."""
    span = max(hi - lo, MIN_SPAN, MIN_RELATIVE_SPAN * max(abs(lo), abs(hi)))
    mid = (lo + hi) / 2
    low, high = mid - span / 2, mid + span / 2
    if lo >= 0 > low:
        low, high = 0.0, high - low
    pad = 0.05 * (high - low)
    return (max(low - pad, 0.0) if lo >= 0 else low - pad), high + pad


def step_limits(first: float, last: float) -> tuple[float, float]:
    """X limits of a step axis: whole steps, at least half a step beyond the first and the last."""
    pad = max(0.5, 0.03 * (last - first))
    return first - pad, last + pad


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return str(value)


class StepTableModel(QAbstractTableModel):
    """One row per step: '#', the component columns, then every declared metric (blank where a
    step did not report it).  Steps are appended in batches (one ``beginInsertRows`` each)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.spec: LearnerSpec | None = None
        self.steps: list = []

    def set_spec(self, spec: LearnerSpec | None) -> None:
        self.beginResetModel()
        self.spec, self.steps = spec, []
        self.endResetModel()

    def headers(self) -> list[str]:
        if self.spec is None:
            return []
        return ["#"] + [c.title for c in self.spec.component.columns] + [m.label for m in self.spec.metrics]

    def append(self, steps) -> None:
        steps = list(steps)
        if not steps:
            return
        n = len(self.steps)
        self.beginInsertRows(QModelIndex(), n, n + len(steps) - 1)
        self.steps.extend(steps)
        self.endInsertRows()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.steps)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers())

    def value(self, row: int, col: int):
        """The raw value of a cell (numbers stay numbers, for sorting)."""
        step = self.steps[row]
        if col == 0:
            return step.index + 1
        columns = self.spec.component.columns
        if col <= len(columns):
            return columns[col - 1].value(step)
        metric = self.spec.metrics[col - 1 - len(columns)]
        return step.metrics.get(metric.name)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.steps):
            return None
        if role == Qt.DisplayRole:
            return _fmt(self.value(index.row(), index.column()))
        if role == Qt.UserRole:
            v = self.value(index.row(), index.column())
            if isinstance(v, (int, float)):
                return float("inf") if isinstance(v, float) and math.isnan(v) else float(v)
            return "" if v is None else str(v)
        if role == Qt.TextAlignmentRole and index.column() != 1:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal and 0 <= section < len(self.headers()):
            return self.headers()[section]
        if role == Qt.ToolTipRole and orientation == Qt.Horizontal and self.spec is not None:
            first = 1 + len(self.spec.component.columns)
            if section >= first:
                m = self.spec.metrics[section - first]
                return f"{m.name}: {'lower' if m.lower_is_better else 'higher'} is better"
        return None


def is_trajectory(plot) -> bool:
    """Is ``plot`` the Hamming-versus-subset-0/1 trajectory (drawn for every run on the window's
    trajectory plot, so not repeated among a learner's own plots)?"""
    return all(x.endswith("_hamming") and y.endswith("_subset") for x, y in plot.series)


def _split_label(label: str) -> tuple[str, str | None]:
    """'0-1 error (train)' -> ('0-1 error', 'train'): lines of one metric on both splits share a colour."""
    for split in ("train", "test"):
        if label.endswith(f" ({split})"):
            return label[: -len(split) - 3], split
    return label, None


class MetricPlots(QWidget):
    """The learner's declared plots (but the trajectory: see :func:`is_trajectory`), side by side,
    updated by ``set_data`` and a throttled redraw.  A metric on both splits is one colour, dashed
    for training and solid for test, named once in the legend."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure = Figure(figsize=(8, 3))
        # margins fitted to the text before each draw: no clipped label, title or legend
        self.canvas = MarginCanvas(self.figure, left=62, right=14, bottom=46, top=28, wspace=70, fit_text=True)
        self.presentation = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.canvas)
        self.spec: LearnerSpec | None = None
        self.lines: list = []  # (axes, line, x name, y name)
        self._x: dict[str, list] = {}
        self._flush_soon = qthrottled(self._flush, timeout=UPDATE_INTERVAL_MS, leading=False, parent=self)

    def set_spec(self, spec: LearnerSpec | None) -> None:
        self._flush_soon.cancel()
        self.figure.clear()
        self.spec, self.lines, self._x = spec, [], {}
        if spec is None or not spec.plots:
            self.canvas.draw_idle()
            return
        plots = self.plots_of(spec)
        for p, plot in enumerate(plots):
            ax = self.figure.add_subplot(1, len(plots), p + 1)
            self._add_plot(ax, plot)
        self.canvas.fit_margins(self.canvas.width(), self.canvas.height())
        self.canvas.draw_idle()

    @staticmethod
    def plots_of(spec: LearnerSpec | None) -> tuple:
        """The plots of ``spec`` shown here: all but the trajectory (the window draws it for every run)."""
        return tuple(p for p in spec.plots if not is_trajectory(p)) if spec is not None else ()

    def _add_plot(self, ax, plot) -> None:
        big = PRESENTATION_SCALE if self.presentation else 1.0
        ax.set_title(plot.title, fontsize=TITLE_PT * big)
        ax.set_xlabel(plot.xlabel or self._label(plot.series[0][0]), fontsize=LABEL_PT * big)
        ax.set_ylabel(plot.ylabel or self._label(plot.series[0][1]), fontsize=LABEL_PT * big)
        ax.tick_params(labelsize=TICK_PT * big)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        # steps are whole: every step while they are few, then 1, 2 or 5 times a power of ten (fewer
        # ticks in large type, where the plots share a narrow column)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3 if big > 1 else 6, integer=True, steps=[1, 2, 5, 10],
                                               min_n_ticks=1))
        ax.grid(True, alpha=0.3)
        colours, handles, splits = {}, [], set()
        for x, y in plot.series:
            name, split = _split_label(self._label(y))
            splits.add(split)
            colour = colours.setdefault(name, f"C{len(colours)}")
            (line,) = ax.plot([], [], "--" if split == "train" else "-", lw=1.4, color=colour, label=name)
            if len(handles) < len(colours):
                handles.append(Line2D([], [], color=colour, lw=1.6, label=name))
            self.lines.append((ax, line, x, y))
        if {"train", "test"} <= splits:
            handles += [Line2D([], [], color="0.3", ls="--", lw=1.2, label="train"),
                        Line2D([], [], color="0.3", ls="-", lw=1.4, label="test")]
        if len(handles) > 1:  # below the axes' label, in the bottom margin (fitted to it): never over the lines
            ncol = 2 if len(handles) > 2 else len(handles)
            below = offset_copy(ax.transAxes, fig=self.figure, y=-xaxis_depth_pt(ax), units="points")
            ax.legend(handles=handles, fontsize=LEGEND_PT * big, loc="upper center", bbox_to_anchor=(0.5, 0),
                      bbox_transform=below, ncol=ncol, frameon=False, handlelength=1.6, columnspacing=0.8,
                      borderpad=0.2, labelspacing=0.2)

    def set_presentation(self, on: bool) -> None:
        """Large type (ticks 14.6 px) for a projector; the plots are built again with it."""
        if bool(on) != self.presentation:
            self.presentation = bool(on)
            steps = getattr(self, "_steps", None)
            self.set_spec(self.spec)
            if steps is not None:
                self._steps = steps
                self.flush()

    def _label(self, name: str) -> str:
        if name == STEP:
            return (self.spec.component.noun if self.spec else "step")
        m = self.spec.metric(name) if self.spec else None
        return m.label if m else name

    def set_steps(self, steps: list) -> None:
        """Show these steps (the whole run so far); the redraw follows within 250 ms."""
        self._steps = steps
        self._flush_soon()

    def flush(self) -> None:
        self._flush_soon.cancel()
        self._flush()

    def shutdown(self) -> None:
        self._flush_soon.cancel()

    def _flush(self) -> None:
        steps = getattr(self, "_steps", [])
        for ax, line, x, y in self.lines:
            xs, ys = [], []
            for s in steps:
                yv = s.metrics.get(y)
                xv = s.index + 1 if x == STEP else s.metrics.get(x)
                if xv is not None and yv is not None and math.isfinite(xv) and math.isfinite(yv):
                    xs.append(xv)
                    ys.append(yv)
            line.set_data(xs, ys)
        for ax in {a for a, *_ in self.lines}:
            self._autoscale(ax)
        self.canvas.draw_idle()

    def _autoscale(self, ax) -> None:
        """Limits around the axes' data: whole steps on a step axis, a y span that keeps small
        differences small (:func:`honest_limits`)."""
        lines = [(line, x) for a, line, x, _ in self.lines if a is ax]
        xs = np.concatenate([np.asarray(line.get_xdata(), float) for line, _ in lines] or [np.zeros(0)])
        ys = np.concatenate([np.asarray(line.get_ydata(), float) for line, _ in lines] or [np.zeros(0)])
        if not xs.size:
            return
        if all(x == STEP for _, x in lines):
            ax.set_xlim(*step_limits(float(xs.min()), float(xs.max())))
        else:
            lo, hi = float(xs.min()), float(xs.max())
            pad = 0.05 * (hi - lo) or 0.05 * max(abs(hi), 1.0)
            ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(*honest_limits(float(ys.min()), float(ys.max())))

    def series(self, x: str, y: str) -> tuple[np.ndarray, np.ndarray]:
        """The data of the (x, y) line (for tests and exports)."""
        for _, line, lx, ly in self.lines:
            if (lx, ly) == (x, y):
                return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        raise KeyError((x, y))

    def export(self, path) -> None:
        atomic_savefig(self.figure, path, dpi=150)


class StepView(QWidget):
    """The table of a run's steps; :attr:`plots` and :attr:`inspector` are placed by the window."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = StepTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.UserRole)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(110)
        self.plots = MetricPlots()
        self.inspector = QTextBrowser()
        self.inspector.setOpenExternalLinks(False)
        self.inspector.setPlaceholderText("Select a step to see what it changed.")
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table)
        self.spec: LearnerSpec | None = None
        self.schema = None
        self.run = None  # the run whose steps are shown

    def set_spec(self, spec: LearnerSpec | None, schema=None) -> None:
        self.spec, self.schema, self.run = spec, schema, None
        self.model.set_spec(spec)
        self.plots.set_spec(spec)
        self.inspector.clear()
        if spec is not None:  # fixed widths that show every header (no per-row measuring)
            fm = self.table.horizontalHeader().fontMetrics()
            for c, title in enumerate(self.model.headers()):
                self.table.setColumnWidth(c, max(60, fm.horizontalAdvance(title) + 28))
            if spec.component.columns:
                self.table.setColumnWidth(1, max(self.table.columnWidth(1), 320))

    def show_run(self, run, spec: LearnerSpec, schema=None, summary: str | None = None) -> None:
        """Show ``run``'s steps (all of them, at once); ``summary`` (HTML: its model) fills the
        inspector until a step is selected."""
        self.set_spec(spec, schema)
        self.run = run
        self.append(list(run.records or []))
        self.plots.flush()
        if summary:
            self.show_summary(summary)

    def append(self, steps: list) -> None:
        self.model.append(steps)
        self.plots.set_steps(self.model.steps)

    def show_summary(self, html: str) -> None:
        self.inspector.setHtml(html)

    def select_step(self, index: int) -> None:
        """Select the step with this index (0-based) in the table."""
        for row in range(self.proxy.rowCount()):
            src = self.proxy.mapToSource(self.proxy.index(row, 0))
            if self.model.steps[src.row()].index == index:
                self.table.selectRow(row)
                return

    def selected_step(self) -> int | None:
        """The index of the selected step (None: none is)."""
        rows = self.table.selectionModel().selectedRows()
        if not rows or not self.model.steps:
            return None
        return int(self.model.steps[self.proxy.mapToSource(rows[0]).row()].index)

    def _current_changed(self, current, _previous) -> None:
        if not current.isValid() or self.spec is None:
            return
        step = self.model.steps[self.proxy.mapToSource(current).row()]
        view = self.spec.component
        if view.inspect is not None:
            self.inspector.setHtml(view.inspect(step, self.schema))
        else:
            rows = "".join(f"<tr><td>{k}</td><td align='right'>{_fmt(v)}</td></tr>" for k, v in step.metrics.items())
            self.inspector.setHtml(f"<h3>{view.noun.capitalize()} {step.index + 1}</h3><p>{step.component!s}</p>"
                                   f"<table>{rows}</table>")

    def set_presentation(self, on: bool) -> None:
        """Large type in the learner plots (the step inspector's text follows the window's font)."""
        self.plots.set_presentation(on)

    def shutdown(self) -> None:
        """No redraw is pending any more (the window is closing)."""
        self.plots.shutdown()
