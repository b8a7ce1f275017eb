"""The trajectory plot: Hamming vs subset 0/1 loss after every rule, for every run.

A run's measure pair is its trajectory's (engine.trajectory.MEASURE_PAIRS): a classification run is drawn
on the first two tabs, a regression run's training and test MSE and MAE on the third ("MSE, MAE vs
rules", shown while the session has a regression run); a live run brings its own tab to the front.

Two tabs of matplotlib figures (no pyplot): the trajectories (x = Hamming loss, y = subset 0/1
loss, training dashed and test solid, markers after 1, 2, 4, ... rules and the last (Figure 1), grey
isometrics of slope 1 and the Bayes-optimal point of synthetic data), and each loss against
the number of rules.  Lines are created once per run and updated with ``set_data``; updates
are throttled.  While a run streams, its lines are drawn by blitting over a cached background
as long as they stay inside the axes; a full ``draw_idle`` happens only when the limits must
grow, when the tab is shown or when runs change.  Finished runs stay as named coloured curves
that can be hidden or removed in the run list beside the plot.

Every run has a line style of its own (colour, marker and dash pattern together, see
components/run_identity.py): its test line is drawn thick, its training line thin and faded, both in
the run's dash pattern.  The plot names its runs outside the data, in a scrollable list beside the
tabs (plots/run_legend.py: a Qt list, no cost to a redraw) that serves both tabs; presentation mode
makes its type large.
"""
from __future__ import annotations

import math
import time

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from engine.api import atomic_savefig
from PySide6.QtCore import QSize
from superqt.utils import qthrottled
from matplotlib.backends.backend_qtagg import NavigationToolbar2QT
from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from boomer_gui.components.run_identity import DASH_PATTERNS
from boomer_gui.plots.canvas import LiveCanvas, TickGrid, pin_axis_labels
from boomer_gui.plots.run_legend import RunLegend
from boomer_gui.plots.raster_text import RasterLabel, RasterTickLabels
from boomer_gui.components.state import Run, RunHistory, marker_positions

UPDATE_INTERVAL_MS = 250  # live updates at most four times a second ...
UPDATE_DUTY = 0.01  # ... and at most 1 % of the GUI thread's time (slow machines update less often)
MAX_UPDATE_INTERVAL_MS = 1000
ISOMETRIC_LINES = 10  # about this many isometrics cross the visible axes

EMPTY_HAMMING_MAX = 0.5  # x range of the empty trajectory plot (subset 0/1 loss: 0 to 1)

# type sizes (points; the figures have 100 dpi, so 12 pt are 16.7 px) on screen and in presentation mode
TICK_PT, LABEL_PT, TITLE_PT = 8, 9, 10
TICK_PAD_PT = 3.5  # between the axes and the tick labels (matplotlib's default)
PRESENTATION_SCALE = 1.5  # presentation mode: ticks 12 pt (16.7 px), axis labels 13.5 pt, titles 15 pt
BESIDE_MIN_WIDTH = 640  # narrower plots show the runs' legend under the tabs
TRAIN_ALPHA = 0.55  # a run's training line: thin and faded; its test line: thick
TRAJ_MARGINS = dict(left=62, bottom=46, top=10, right=12)
LOSS_MARGINS = dict(left=56, bottom=46, top=30, right=12, wspace=56)


def dash_style(dash: str):
    """matplotlib's linestyle of a run's dash pattern (run_identity.DASHES)."""
    pattern = DASH_PATTERNS.get(dash)
    return "-" if pattern is None else (0, pattern)


def nice_step(span: float) -> float:
    """1, 2 or 5 times a power of ten, close to ``span``."""
    if not span > 0:
        return 0.05
    exponent = math.floor(math.log10(span))
    base = span / 10 ** exponent
    return (1 if base < 1.5 else 2 if base < 3.5 else 5 if base < 7.5 else 10) * 10 ** exponent


def isometric_segments(xlim, ylim, n: int = ISOMETRIC_LINES) -> list:
    """Segments of the lines y = x + c (slope 1) crossing the box, ``c`` on a round grid."""
    (x0, x1), (y0, y1) = xlim, ylim
    lo, hi = y0 - x1, y1 - x0  # the range of c = y - x inside the box
    step = nice_step((hi - lo) / n)
    first = math.floor(lo / step) * step
    cs = first + step * np.arange(int(math.ceil((hi - first) / step)) + 1)
    return [[(x0, x0 + c), (x1, x1 + c)] for c in cs]
EXPORT_FILTER = "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _finite(a: np.ndarray) -> np.ndarray:
    return a[np.isfinite(a)]


def _line(ax, fmt: str = "-", **style) -> Line2D:
    """An empty line on ``ax`` without ``ax.plot``'s argument parsing and data-limit bookkeeping
    (a run's 18 lines cost 36 ms that way, at the moment a run starts)."""
    if fmt in ("-", "--", ":", "-."):
        style.setdefault("linestyle", fmt)
    else:  # a marker
        style.setdefault("marker", fmt)
    line = Line2D([], [], **style)
    ax.add_artist(line)
    return line


def _vline(ax, **style) -> Line2D:
    """A vertical line across ``ax`` at no x yet (``set_xdata([x, x])`` places it)."""
    line = Line2D([np.nan, np.nan], [0.0, 1.0], transform=ax.get_xaxis_transform(), **style)
    ax.add_artist(line)
    return line


REGRESSION_TAB = 2  # the tab of regression runs' MSE and MAE against rules


class _NoLine:
    """Where a regression run's trajectory would go: it has none on the Hamming/subset axes."""

    @staticmethod
    def set_data(*args) -> None:
        pass


_NO_LINE = _NoLine()


class _RunArtists:
    """A run's lines: its trajectory on ``traj_ax`` (a classification run's), each of its two measures
    against rules on ``hamming_ax`` and ``subset_ax`` (a regression run's: the MSE and MAE axes)."""

    def __init__(self, run: Run, traj_ax, hamming_ax, subset_ax):
        c, ls = run.color, dash_style(run.dash)
        self.train = _line(traj_ax, "-", color=c, lw=1.0, alpha=TRAIN_ALPHA, ls=ls)
        self.test = _line(traj_ax, "-", color=c, lw=2.0, ls=ls)
        m = run.marker
        self.train_marks = _line(traj_ax, m, ls="none", color=c, ms=3.5, alpha=TRAIN_ALPHA)
        self.test_marks = _line(traj_ax, m, ls="none", color=c, ms=5.5, mec="white", mew=0.6)
        self.whatif = _line(traj_ax, "D", ls="none", mfc="none", mec=c, ms=9, mew=1.8)
        self.whatif_link = _line(traj_ax, ":", color=c, lw=1.2)
        # global pruning: the kept prefix's point (a square) and its rule count on the loss plots
        self.selected = _line(traj_ax, "s", ls="none", mfc="none", mec=c, mew=2.2, ms=13, zorder=5)
        self.h_selected = _vline(hamming_ax, color=c, ls="-.", lw=1.2)
        self.s_selected = _vline(subset_ax, color=c, ls="-.", lw=1.2)
        self.h_train = _line(hamming_ax, "-", color=c, lw=0.9, alpha=TRAIN_ALPHA, ls=ls)
        self.h_test = _line(hamming_ax, "-", color=c, lw=1.8, ls=ls)
        self.s_train = _line(subset_ax, "-", color=c, lw=0.9, alpha=TRAIN_ALPHA, ls=ls)
        self.s_test = _line(subset_ax, "-", color=c, lw=1.8, ls=ls)
        # the selected rule's point (a ring) and its rule count on the loss plots
        self.point = _line(traj_ax, "o", ls="none", mfc="none", mec="black", mew=2.0, ms=14, zorder=6)
        self.h_point = _vline(hamming_ax, color="black", ls=":", lw=1.2)
        self.s_point = _vline(subset_ax, color="black", ls=":", lw=1.2)
        self.traj = [self.train, self.test, self.train_marks, self.test_marks]
        self.losses = [self.h_train, self.h_test, self.s_train, self.s_test]
        self.extra = [self.whatif, self.whatif_link, self.selected, self.h_selected, self.s_selected, self.point,
                      self.h_point, self.s_point]

    def all(self):
        return self.traj + self.losses + self.extra

    def set_animated(self, on: bool):
        for a in self.traj + self.losses:
            a.set_animated(on)

    def remove(self):
        for a in self.all():
            a.remove()


class PlotToolbar(NavigationToolbar2QT):
    """Matplotlib's zoom and pan (and home/back/forward); a zoomed or panned view is kept until
    Home, instead of being replaced by the next automatic scaling."""

    toolitems = [t for t in NavigationToolbar2QT.toolitems if t[0] in ("Home", "Back", "Forward", "Pan", "Zoom")]

    def __init__(self, canvas, plot: "TrajectoryPlot", tab: int):
        super().__init__(canvas, None, coordinates=False)
        self.plot, self.tab = plot, tab
        self.setIconSize(QSize(18, 18))

    def release_zoom(self, event):
        super().release_zoom(event)
        self.plot._user_view[self.tab] = True

    def release_pan(self, event):
        super().release_pan(event)
        self.plot._user_view[self.tab] = True

    def home(self, *args):
        self.plot._user_view[self.tab] = False
        self.plot.redraw()


class TrajectoryPlot(QWidget):
    """Tabs with the two figures, the run list and the throttled live updates."""


    def __init__(self, history: RunHistory | None = None, parent=None):
        super().__init__(parent)
        self.history = history if history is not None else RunHistory()
        self.bayes: tuple[float, float] | None = None
        self.budget: int | None = None
        self.nouns: dict[str, str] = {}  # learner key -> what a step is called ("rule", "iteration", "expert")
        self._artists: dict[int, _RunArtists] = {}
        self._live: Run | None = None
        self._checked = 0  # records of the live run already checked against the axes limits
        self._dirty_full = {0: True, 1: True, 2: True}

        self.traj_fig = Figure(figsize=(6, 4), dpi=100)
        self.traj_ax = self.traj_fig.add_subplot()
        self.loss_fig = Figure(figsize=(6, 4), dpi=100)
        self.hamming_ax = self.loss_fig.add_subplot(1, 2, 1)
        self.subset_ax = self.loss_fig.add_subplot(1, 2, 2)
        self.reg_fig = Figure(figsize=(6, 4), dpi=100)  # regression runs: MSE and MAE against rules
        self.mse_ax = self.reg_fig.add_subplot(1, 2, 1)
        self.mae_ax = self.reg_fig.add_subplot(1, 2, 2)
        self._setup_axes()
        self.traj_canvas = LiveCanvas(self.traj_fig, **TRAJ_MARGINS)
        self.loss_canvas = LiveCanvas(self.loss_fig, **LOSS_MARGINS)
        self.reg_canvas = LiveCanvas(self.reg_fig, **LOSS_MARGINS)
        self.canvases = (self.traj_canvas, self.loss_canvas, self.reg_canvas)  # by tab
        for canvas in self.canvases:
            canvas.setMinimumSize(QSize(200, 150))

        self.legend_label = QLabel(
            "<span style='color:#444'><b>━━</b> test &nbsp;&nbsp; <span style='color:#999'>──</span> training &nbsp;&nbsp;"
            " ●■▲ after 1, 2, 4, … rules and the last"
            " &nbsp;&nbsp; <span style='color:#aaa'>⋰</span> isometrics (slope 1) &nbsp;&nbsp; ★ Bayes-optimal "
            "(test) &nbsp;&nbsp; □ kept by global pruning</span>")
        self.legend_label.setStyleSheet("font-size: 8pt;")
        self.legend_label.setWordWrap(True)  # wraps on narrow screens instead of widening the window
        # the runs' names and line styles, beside the tabs (both tabs)
        self.run_legend = RunLegend()
        traj_page = QWidget()
        tp = QVBoxLayout(traj_page)
        tp.setContentsMargins(0, 2, 0, 0)
        tp.setSpacing(0)
        tp.addWidget(self.legend_label)
        tp.addWidget(self.traj_canvas, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(traj_page, "Hamming vs subset 0/1")
        self.tabs.addTab(self.loss_canvas, "Losses vs rules")
        self.tabs.addTab(self.reg_canvas, "MSE, MAE vs rules")
        self.tabs.setTabToolTip(REGRESSION_TAB, "Regression runs: mean squared and mean absolute error on the "
                                                "training (thin) and test (thick) data after every rule")
        self.tabs.setTabVisible(REGRESSION_TAB, False)
        self.tabs.currentChanged.connect(self._tab_changed)

        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the shown plot as PNG, SVG or PDF")
        tools = self._toolbars()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self._plots = QBoxLayout(QBoxLayout.LeftToRight)  # beside the tabs, or under them when narrow
        self._plots.setContentsMargins(0, 0, 0, 0)
        self._plots.setSpacing(2)
        self._plots.addWidget(self.tabs, 1)
        self._plots.addWidget(self.run_legend)
        layout.addLayout(self._plots, 1)
        layout.addLayout(tools)
        self._user_view = {0: False, 1: False, 2: False}  # zoomed or panned by the user: no autoscaling
        self.presentation = False
        self.current_key = ""
        self._highlight_at: tuple[Run, int] | None = None
        self._hover = self.traj_ax.annotate("", (0, 0), xytext=(12, 12), textcoords="offset points", fontsize=8,
                                            bbox=dict(boxstyle="round", fc="white", ec="0.6", alpha=0.95),
                                            zorder=10, visible=False)
        self.traj_canvas.mpl_connect("motion_notify_event", self._on_motion)

        # redraws: at most one every UPDATE_INTERVAL_MS, the last request always honoured
        self._flush_soon = qthrottled(self._flush, timeout=UPDATE_INTERVAL_MS, leading=False, parent=self)
        self._pending_live = False

    def _toolbars(self) -> QHBoxLayout:
        """Zoom and pan for each tab's figure (the shown tab's), and the export button."""
        self.traj_tools = PlotToolbar(self.traj_canvas, self, 0)
        self.loss_tools = PlotToolbar(self.loss_canvas, self, 1)
        self.reg_tools = PlotToolbar(self.reg_canvas, self, REGRESSION_TAB)
        tools = QHBoxLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        for bar in (self.traj_tools, self.loss_tools, self.reg_tools):
            tools.addWidget(bar)
        self.loss_tools.hide()
        self.reg_tools.hide()
        tools.addStretch(1)
        tools.addWidget(self.export_button)
        return tools

    # -- axes -----------------------------------------------------------------------------
    def _setup_axes(self):
        # Few, small tick labels: text is most of the cost of a complete redraw.
        for a in (self.traj_ax, self.hamming_ax, self.subset_ax, self.mse_ax, self.mae_ax):
            a.tick_params(labelsize=TICK_PT)
            a.yaxis.set_major_locator(MaxNLocator(nbins=5))
        self.traj_ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        ax = self.traj_ax
        ax.set_xlabel("Hamming loss", fontsize=LABEL_PT)
        ax.set_ylabel("subset 0/1 loss", fontsize=LABEL_PT)
        self._grid = TickGrid(ax, colors="0.25", alpha=0.25, linewidths=0.5, zorder=0.5)
        # the grid marks the ticks: no tick lines; the tick labels are pasted from cached bitmaps
        ax.tick_params(length=0, bottom=False, left=False, labelbottom=False, labelleft=False)
        self._tick_labels = [RasterTickLabels(ax, which, TICK_PT, pad_pt=TICK_PAD_PT) for which in ("x", "y")]
        self._axis_labels = [RasterLabel(ax, ax.xaxis.label), RasterLabel(ax, ax.yaxis.label)]
        self._isometrics = LineCollection(isometric_segments((0, 0.3), (0, 1)), colors="0.8", linewidths=0.6,
                                          linestyles=":", zorder=0)
        ax.add_collection(self._isometrics, autolim=False)
        self._bayes_artist, = ax.plot([], [], "*", ls="none", color="black", ms=13, zorder=5)
        self._legend = ax.legend(handles=[Line2D([], [], color="0.3", ls="-", lw=2.0, label="test"),
                           Line2D([], [], color="0.3", ls="-", lw=1.0, alpha=TRAIN_ALPHA, label="training"),
                           Line2D([], [], color="0.3", ls="none", marker="o", ms=4, label="1, 2, 4, … rules and the last"),
                           Line2D([], [], color="0.82", ls=":", label="isometrics (slope 1)"),
                           Line2D([], [], color="black", ls="none", marker="*", ms=10, label="Bayes-optimal (test)"),
                           Line2D([], [], color="0.3", ls="none", marker="s", mfc="none", mew=1.8, ms=9,
                                  label="kept by global pruning")],
                  loc="upper left", fontsize=8, framealpha=0.85)
        # A matplotlib legend costs more than the rest of a redraw: on screen a Qt label says the
        # same; the legend is shown only in exported figures.
        self._legend.set_visible(False)
        ax.set_xlim(0, EMPTY_HAMMING_MAX)
        ax.set_ylim(0, 1)
        for a, title in ((self.hamming_ax, "Hamming loss"), (self.subset_ax, "subset 0/1 loss"),
                         (self.mse_ax, "mean squared error"), (self.mae_ax, "mean absolute error")):
            a.set_title(title, fontsize=TITLE_PT)
            a.set_xlabel("rules", fontsize=LABEL_PT)
            a.set_xscale("log")
            a.grid(True, alpha=0.25, lw=0.5, which="both")
            a.set_xlim(1, 1000)
        self._pin_labels(1.0)

    def _pin_labels(self, scale: float) -> None:
        """Axis labels at fixed places, the y label 3 points from the figure's left edge (see :func:`pin_axis_labels`)."""
        for a in (self.traj_ax, self.hamming_ax, self.subset_ax, self.mse_ax, self.mae_ax):
            pin_axis_labels(a, TICK_PT * scale, left_pt=3 * scale if a is self.traj_ax else None)

    # -- runs ------------------------------------------------------------------------------
    def set_history(self, history: RunHistory) -> None:
        for art in self._artists.values():
            art.remove()
        self._artists.clear()
        self._live = None
        for canvas in self.canvases:
            canvas.set_animated_artists([])
        self.history = history
        self._highlight_at = None
        for run in history:
            self._add_artists(run)
            self._refresh_run(run)
        self.redraw()

    def add_run(self, run: Run, live: bool = True) -> None:
        self._add_artists(run)
        if live:
            self._live = run
            self._checked = 0
            self._artists[id(run)].set_animated(True)
            art = self._artists[id(run)]
            if run.regression:
                self.reg_canvas.set_animated_artists(art.losses, growing=art.losses)
            else:
                self.traj_canvas.set_animated_artists(art.traj, growing=[art.train, art.test])
                self.loss_canvas.set_animated_artists(art.losses, growing=art.losses)
            self.show_measures_of(run)
        self._refresh_run(run)
        self.redraw()

    def show_measures_of(self, run: Run) -> None:
        """Bring the tab of ``run``'s measures to the front: a regression run's MSE and MAE, or a
        classification run's Hamming-versus-subset plot (when the regression tab is shown)."""
        self._show_regression_tab()
        if run.regression and self.tabs.currentIndex() != REGRESSION_TAB:
            self.tabs.setCurrentIndex(REGRESSION_TAB)
        elif not run.regression and self.tabs.currentIndex() == REGRESSION_TAB:
            self.tabs.setCurrentIndex(0)

    def _show_regression_tab(self) -> None:
        """The regression tab is there while the session has a regression run."""
        wanted = any(r.regression for r in self.history)
        if self.tabs.isTabVisible(REGRESSION_TAB) != wanted:
            self.tabs.setTabVisible(REGRESSION_TAB, wanted)

    def _add_artists(self, run: Run) -> None:
        axes = (self.mse_ax, self.mae_ax) if run.regression else (self.hamming_ax, self.subset_ax)
        self._artists[id(run)] = _RunArtists(run, self.traj_ax, *axes)
        self._apply_visibility(run)

    def finish_run(self, run: Run) -> None:
        """The run is no longer live: its lines join the static background."""
        art = self._artists.get(id(run))
        if art is not None:
            art.set_animated(False)
        if self._live is run:
            self._live = None
            for canvas in self.canvases:
                canvas.set_animated_artists([])
            self._pace(0.0)  # no longer paced by the live updates' cost
        self._refresh_run(run)
        self.redraw()

    def remove_run(self, run: Run) -> bool:
        """Forget ``run``'s lines (the run table takes it out of the history); not while it is live."""
        if self._live is run:
            return False
        art = self._artists.pop(id(run), None)
        if art is not None:
            art.remove()
        if self._highlight_at is not None and self._highlight_at[0] is run:
            self._highlight_at = None
        self.redraw()
        return True

    def set_run_visible(self, run: Run, visible: bool) -> None:
        run.visible = bool(visible)
        self._apply_visibility(run)
        self.redraw()

    def set_current_key(self, key: str) -> None:
        """Runs trained on other data than ``key`` are drawn faded."""
        self.current_key = key
        for run in self.history:
            self._apply_visibility(run)
        self.redraw()

    def _apply_visibility(self, run: Run):
        art = self._artists.get(id(run))
        if art is not None:
            faded = bool(run.data_key and self.current_key and run.data_key != self.current_key)
            for a in art.all():
                a.set_visible(run.visible)
            for a in art.traj + art.losses:
                training = a in (art.train, art.train_marks, art.h_train, art.s_train)
                a.set_alpha(0.2 if faded else (TRAIN_ALPHA if training else None))

    def run_by_id(self, key):
        return next((r for r in self.history if id(r) == key), None)

    def highlight(self, run: Run | None, index: int | None) -> None:
        """Ring the point of ``run`` after its rule ``index`` (0-based; None clears)."""
        if self._highlight_at is not None:
            old = self._artists.get(id(self._highlight_at[0]))
            if old is not None:
                old.point.set_data([], [])
                old.h_point.set_xdata([np.nan, np.nan])
                old.s_point.set_xdata([np.nan, np.nan])
        self._highlight_at = None
        art = self._artists.get(id(run)) if run is not None else None
        if art is not None and index is not None and 0 <= index < len(run):
            key = "test" if run.has_test() else "train"
            if not run.regression:  # a regression run has no trajectory point
                mx, my = run.measures
                art.point.set_data([run.series[f"{key}_{mx}"][index]], [run.series[f"{key}_{my}"][index]])
            art.h_point.set_xdata([index + 1, index + 1])
            art.s_point.set_xdata([index + 1, index + 1])
            self._highlight_at = (run, index)
        self.redraw()

    # -- hover --------------------------------------------------------------------------------
    def nearest_point(self, x_px: float, y_px: float, radius: float = 10.0):
        """(run, record index, split) of the plotted point nearest to display pixel (x, y), within
        ``radius`` pixels; None if there is none."""
        best, best_d = None, radius
        to_px = self.traj_ax.transData.transform
        for run in self._visible_runs():
            if run.regression:  # not on the trajectory axes
                continue
            m = run.view_len()
            for split in ("test", "train"):
                if split == "test" and not run.has_test():
                    continue
                xy = np.column_stack([run.array(f"{split}_hamming")[:m], run.array(f"{split}_subset")[:m]])
                ok = np.isfinite(xy).all(axis=1)
                if not ok.any():
                    continue
                px = to_px(xy[ok])
                d = np.hypot(px[:, 0] - x_px, px[:, 1] - y_px)
                i = int(np.argmin(d))
                if d[i] < best_d:
                    best_d, best = float(d[i]), (run, int(np.flatnonzero(ok)[i]), split)
        return best

    def hover_text(self, run: Run, i: int, split: str) -> str:
        s = run.series
        noun = self.nouns.get(run.learner, "rule")
        return (f"{run.name}\nafter {i + 1} {noun}{'s' if i else ''} ({split})\n"
                f"Hamming {s[f'{split}_hamming'][i]:.4f}\nsubset 0/1 {s[f'{split}_subset'][i]:.4f}")

    def _on_motion(self, event) -> None:
        if event.inaxes is not self.traj_ax or self._live is not None:
            if self._hover.get_visible():
                self._hover.set_visible(False)
                self.traj_canvas.draw_idle()
            return
        hit = self.nearest_point(event.x, event.y)
        if hit is None:
            if self._hover.get_visible():
                self._hover.set_visible(False)
                self.traj_canvas.draw_idle()
            return
        run, i, split = hit
        s = run.series
        self._hover.xy = (s[f"{split}_hamming"][i], s[f"{split}_subset"][i])
        self._hover.set_text(self.hover_text(run, i, split))
        # keep the label inside the axes: to the left of points in the right half
        right = event.x > self.traj_ax.bbox.x0 + 0.6 * self.traj_ax.bbox.width
        top = event.y > self.traj_ax.bbox.y0 + 0.6 * self.traj_ax.bbox.height
        self._hover.set_position((-12 if right else 12, -12 if top else 12))
        self._hover.set_ha("right" if right else "left")
        self._hover.set_va("top" if top else "bottom")
        self._hover.set_visible(True)
        self.traj_canvas.draw_idle()

    # -- presentation ---------------------------------------------------------------------------
    def set_presentation(self, on: bool) -> None:
        """Large type (ticks 16.7 px, axis labels larger), the runs' legend under the axes instead of
        the labels above them; off restores the screen sizes."""
        self.presentation = bool(on)
        big = PRESENTATION_SCALE if on else 1.0
        for a in (self.traj_ax, self.hamming_ax, self.subset_ax, self.mse_ax, self.mae_ax):
            a.tick_params(labelsize=TICK_PT * big)
            a.xaxis.label.set_size(LABEL_PT * big)
            a.yaxis.label.set_size(LABEL_PT * big)
        for labels in self._tick_labels:
            labels.set_size(TICK_PT * big)
        for a in (self.hamming_ax, self.subset_ax, self.mse_ax, self.mae_ax):
            a.title.set_size(TITLE_PT * big)
        self._pin_labels(big)
        self._hover.set_fontsize(8 * big)
        self.legend_label.setStyleSheet(f"font-size: {12 if on else 8}pt;")
        self.run_legend.set_large(on)
        for canvas, base in ((self.traj_canvas, TRAJ_MARGINS), (self.loss_canvas, LOSS_MARGINS),
                             (self.reg_canvas, LOSS_MARGINS)):
            canvas.margins.update({k: int(v * big) for k, v in base.items() if k in ("left", "bottom", "top")})
            canvas.fit_margins(canvas.width(), canvas.height())
        self.redraw()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_legend()

    def _place_legend(self) -> None:
        """The runs' legend beside the tabs when the plot is wide enough to spare its column, else
        under them (full width, a few rows high, scrolling)."""
        beside = self.width() >= BESIDE_MIN_WIDTH
        direction = QBoxLayout.LeftToRight if beside else QBoxLayout.TopToBottom
        if self._plots.direction() != direction or self.run_legend.beside != beside:
            self._plots.setDirection(direction)
            self.run_legend.set_beside(beside)

    def tick_label_pt(self) -> float:
        """The type size (points) of the trajectory axes' tick labels."""
        return float(self._tick_labels[0].size_pt)

    def axis_label_boxes(self) -> list:
        """The display boxes of the trajectory axes' x and y labels."""
        return [label.get_window_extent() for label in self._axis_labels]

    def _update_run_names(self) -> None:
        """The runs' legend beside the tabs lists the visible runs drawn on the tab in front: a regression
        run's on the MSE and MAE tab, a classification run's on the other two."""
        self._show_regression_tab()
        regression_tab = self.tabs.currentIndex() == REGRESSION_TAB
        self.run_legend.set_runs([r for r in self._visible_runs() if bool(r.regression) == regression_tab])

    # -- data -------------------------------------------------------------------------------
    def set_bayes_point(self, point: tuple[float, float] | None) -> None:
        self.bayes = point
        if point is None:
            self._bayes_artist.set_data([], [])
        else:
            self._bayes_artist.set_data([point[0]], [point[1]])
        self.redraw()

    def set_budget(self, budget: int | None) -> None:
        self.budget = budget

    def _refresh_run(self, run: Run) -> None:
        """set_data on the run's lines from its series (no new artists)."""
        art = self._artists.get(id(run))
        if art is None:
            return
        m = run.view_len()
        marks = marker_positions(m)
        has_test = run.has_test()
        mx, my = run.measures
        for split, line, line_marks, h_line, s_line in (("train", art.train, art.train_marks, art.h_train, art.s_train),
                                                        ("test", art.test, art.test_marks, art.h_test, art.s_test)):
            h, s = run.array(f"{split}_{mx}")[:m], run.array(f"{split}_{my}")[:m]
            if run.regression:  # its measures against rules only, no trajectory on the Hamming/subset axes
                line, line_marks = _NO_LINE, _NO_LINE
            if split == "test" and not has_test:
                h = s = np.zeros(0)
            # a learner that evaluates every few steps: the line joins the steps that reported
            known = np.isfinite(h) & np.isfinite(s)
            if not known.all():
                n, k = np.flatnonzero(known) + 1, marks[known[marks]] if h.size else marks[:0]
                line.set_data(h[known], s[known])
                line_marks.set_data(h[k], s[k])
                h_line.set_data(n, h[known])
                s_line.set_data(n, s[known])
                continue
            n = run.n_rules[:len(h)]
            line.set_data(h, s)
            line_marks.set_data(h[marks] if h.size else [], s[marks] if h.size else [])
            h_line.set_data(n, h)
            s_line.set_data(n, s)
        self._set_selected(run, art, has_test)
        self._set_whatif(run, art)

    @staticmethod
    def _set_selected(run: Run, art: _RunArtists, has_test: bool) -> None:
        """Mark the prefix global pruning kept (none: hidden)."""
        k = run.selected
        if k is None or not 1 <= k <= len(run):
            art.selected.set_data([], [])
            x = np.nan
        else:
            key, (mx, my) = "test" if has_test else "train", run.measures
            if not run.regression:
                art.selected.set_data([run.series[f"{key}_{mx}"][k - 1]], [run.series[f"{key}_{my}"][k - 1]])
            x = k
        art.h_selected.set_xdata([x, x])
        art.s_selected.set_xdata([x, x])

    def _set_whatif(self, run: Run, art: _RunArtists):
        w = run.whatif
        if not w or not len(run) or run.regression:
            art.whatif.set_data([], [])
            art.whatif_link.set_data([], [])
            return
        key = "test" if "test_hamming" in w else "train"
        end_series = ("test_hamming", "test_subset") if key == "test" else ("train_hamming", "train_subset")
        x0, y0 = run.series[end_series[0]][-1], run.series[end_series[1]][-1]
        x1, y1 = w[f"{key}_hamming"], w[f"{key}_subset"]
        art.whatif.set_data([x1], [y1])
        art.whatif_link.set_data([x0, x1], [y0, y1])

    def update_whatif(self, run: Run) -> None:
        """Show the end point of the run with some rules switched off (``run.whatif``)."""
        art = self._artists.get(id(run))
        if art is not None:
            self._set_whatif(run, art)
            self.redraw()

    def run_updated(self, run: Run) -> None:
        """New records were appended to ``run``; its lines get the new data (``set_data``) at
        the next throttled tick, not for every batch."""
        if run is self._live:
            self._pending_live = True
        else:
            self._refresh_run(run)
            self._dirty_full = {0: True, 1: True, 2: True}
        self._schedule()

    # -- drawing ----------------------------------------------------------------------------
    def redraw(self) -> None:
        """Full redraw (limits recomputed) of the visible tab at the next tick."""
        self._update_run_names()
        self._dirty_full = {0: True, 1: True, 2: True}
        self._schedule()

    def _schedule(self):
        self._flush_soon()

    def _flush(self):
        start = time.perf_counter()
        canvas = self._flush_now()
        # a complete redraw happens at the canvas's next paint: count what the last one cost
        self._pace(time.perf_counter() - start + (canvas.draw_seconds if canvas is not None else 0.0))

    def _pace(self, seconds: float) -> None:
        """The next update waits UPDATE_INTERVAL_MS, or while a run streams longer where an update
        costs more than UPDATE_DUTY of that (capped at MAX_UPDATE_INTERVAL_MS; clicks are never paced)."""
        interval = UPDATE_INTERVAL_MS
        if self._live is not None:
            interval = int(min(MAX_UPDATE_INTERVAL_MS, max(interval, 1000.0 * seconds / UPDATE_DUTY)))
        if interval != self._flush_soon.timeout():
            self._flush_soon.setTimeout(interval)

    def _flush_now(self):
        """set_data on the live run; blit, or schedule a complete redraw (returns its canvas)."""
        tab = self.tabs.currentIndex()
        canvas = self.canvases[tab]
        live = self._live
        if self._pending_live and live is not None:
            self._refresh_run(live)
            if self._needs_new_limits(live, self._checked):
                self._dirty_full = {0: True, 1: True, 2: True}
            self._checked = len(live)
        if self._dirty_full.get(tab):
            self._dirty_full[tab] = False
            self._autoscale(tab)
            canvas.invalidate()
            canvas.draw_idle()
            self._pending_live = False
            return canvas
        if self._pending_live:
            canvas.fast_update()
        self._pending_live = False
        return None

    def shutdown(self) -> None:
        """No redraw is pending any more (the window is closing)."""
        self._flush_soon.cancel()

    def draw_now(self) -> None:
        """Synchronous full draw of the visible tab (exports, tests, benchmarks)."""
        self._flush_soon.cancel()
        if self._live is not None:
            self._refresh_run(self._live)
            self._checked = len(self._live)
        tab = self.tabs.currentIndex()
        self._dirty_full[tab] = False
        self._autoscale(tab)
        self.canvases[tab].draw()
        self._pending_live = False

    def _tab_changed(self, tab: int):
        self.traj_tools.setVisible(tab == 0)
        self.loss_tools.setVisible(tab == 1)
        self.reg_tools.setVisible(tab == REGRESSION_TAB)
        self._update_run_names()
        self._dirty_full[tab] = True
        self._schedule()

    def _visible_runs(self):
        return [r for r in self.history if r.visible and len(r)]

    def _needs_new_limits(self, run: Run, start: int) -> bool:
        """Do the live run's records from ``start`` on leave the current axes of the visible tab?"""
        if start >= len(run):
            return False

        def outside(ax, values: np.ndarray, axis: str) -> bool:
            v = _finite(values[start:])
            if not v.size:
                return False
            lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
            return bool(v.min() < lo or v.max() > hi)

        tab = self.tabs.currentIndex()
        if run.regression != (tab == REGRESSION_TAB):  # the run has no lines on this tab
            return False
        if tab == 0:
            return any(outside(self.traj_ax, run.array(k), "x") for k in ("train_hamming", "test_hamming")) or \
                any(outside(self.traj_ax, run.array(k), "y") for k in ("train_subset", "test_subset"))
        x_ax, y_ax = (self.mse_ax, self.mae_ax) if run.regression else (self.hamming_ax, self.subset_ax)
        if len(run) > x_ax.get_xlim()[1]:
            return True
        mx, my = run.measures
        return any(outside(x_ax, run.array(k), "y") for k in (f"train_{mx}", f"test_{mx}")) or \
            any(outside(y_ax, run.array(k), "y") for k in (f"train_{my}", f"test_{my}"))

    def _autoscale(self, tab: int):
        if self._user_view.get(tab):
            if tab == 0:
                self._isometrics.set_segments(isometric_segments(self.traj_ax.get_xlim(), self.traj_ax.get_ylim()))
            return
        runs = [r for r in self._visible_runs() if r.regression == (tab == REGRESSION_TAB)]
        live = self._live
        if tab == 0 and not runs:
            # nothing learned yet: the full loss ranges (the Bayes star alone would zoom to a point)
            bx, by = self.bayes if self.bayes else (0.0, 0.0)
            self.traj_ax.set_xlim(0.0, max(EMPTY_HAMMING_MAX, 1.1 * bx))
            self.traj_ax.set_ylim(0.0, max(1.0, 1.05 * by))
            self._isometrics.set_segments(isometric_segments(self.traj_ax.get_xlim(), self.traj_ax.get_ylim()))
            return
        if tab == 0:
            xs = [np.array([self.bayes[0]])] if self.bayes else []
            ys = [np.array([self.bayes[1]])] if self.bayes else []
            for r in runs:
                pairs = [("train_hamming", "train_subset")]
                if r.has_test():
                    pairs.append(("test_hamming", "test_subset"))
                for kx, ky in pairs:
                    xs.append(_finite(r.array(kx)))
                    ys.append(_finite(r.array(ky)))
                if r.whatif:
                    xs.append(np.array([v for k, v in r.whatif.items() if k.endswith("hamming")], dtype=float))
                    ys.append(np.array([v for k, v in r.whatif.items() if k.endswith("subset")], dtype=float))
            x = np.concatenate(xs) if xs else np.zeros(0)
            y = np.concatenate(ys) if ys else np.zeros(0)
            if x.size and y.size:
                lo_x, hi_x, lo_y, hi_y = float(x.min()), float(x.max()), float(y.min()), float(y.max())
                wx, wy = max(hi_x - lo_x, 0.01), max(hi_y - lo_y, 0.02)
                if live is not None:
                    # losses fall while a run streams: start the axes at 0 so that the limits
                    # (and a complete redraw) rarely have to change until the run ends
                    self.traj_ax.set_xlim(0.0, hi_x + 0.05 * wx)
                    self.traj_ax.set_ylim(0.0, hi_y + 0.05 * wy)
                else:
                    self.traj_ax.set_xlim(max(0.0, lo_x - 0.05 * wx), hi_x + 0.05 * wx)
                    self.traj_ax.set_ylim(max(0.0, lo_y - 0.05 * wy), hi_y + 0.05 * wy)
            self._isometrics.set_segments(isometric_segments(self.traj_ax.get_xlim(), self.traj_ax.get_ylim()))
            return
        n_max = max([len(r) for r in runs] + [self.budget or 0, 10])
        if live is not None and self.budget and live.regression == (tab == REGRESSION_TAB):
            n_max = max(n_max, self.budget)
        x_ax, y_ax = (self.mse_ax, self.mae_ax) if tab == REGRESSION_TAB else (self.hamming_ax, self.subset_ax)
        mx, my = ("mse", "mae") if tab == REGRESSION_TAB else ("hamming", "subset")
        for ax in (x_ax, y_ax):
            ax.set_xlim(1, n_max * 1.05)
        for ax, keys in ((x_ax, (f"train_{mx}", f"test_{mx}")), (y_ax, (f"train_{my}", f"test_{my}"))):
            vals = np.concatenate([_finite(r.array(k)) for r in runs for k in keys] or [np.zeros(0)])
            if vals.size:
                lo, hi = float(vals.min()), float(vals.max())
                w = max(hi - lo, 0.01 if tab != REGRESSION_TAB else 1e-9 + 0.01 * abs(hi))
                ax.set_ylim(0.0 if live is not None else max(0.0, lo - 0.05 * w), hi + 0.05 * w)

    # -- export -----------------------------------------------------------------------------
    def export(self, path: str, which: str | None = None) -> None:
        """Save the trajectory figure (or ``which='losses'``) as PNG, SVG or PDF (by suffix)."""
        fig = {"losses": self.loss_fig, "regression": self.reg_fig}.get(which, self.traj_fig)
        ax_tab = {"losses": 1, "regression": REGRESSION_TAB}.get(which, 0)
        self._autoscale(ax_tab)
        animated = [a for a in fig.findobj() if hasattr(a, "get_animated") and a.get_animated()]
        for a in animated:
            a.set_animated(False)
        # In a file the runs need names: a legend with the line styles and one entry per run.
        runs = [Line2D([], [], color=r.color, lw=2, ls=dash_style(r.dash), marker=r.marker, label=r.name)
                for r in self._visible_runs()]
        runs = [h for h, r in zip(runs, self._visible_runs()) if r.regression == (ax_tab == REGRESSION_TAB)]
        legend_ax = {0: self.traj_ax, 1: self.subset_ax}.get(ax_tab, self.mae_ax)
        styles = self._legend.legend_handles if ax_tab == 0 else [
            Line2D([], [], color="0.3", ls="-", lw=1.8, label="test"),
            Line2D([], [], color="0.3", ls="-", lw=0.9, alpha=TRAIN_ALPHA, label="training")]
        legend = legend_ax.legend(handles=list(styles) + runs, loc="best",
                                  fontsize=7, framealpha=0.85)
        try:
            atomic_savefig(fig, path, dpi=150)
        finally:
            legend.remove()
            if self._legend not in self.traj_ax.artists:  # the hidden style legend stays for the next export
                self.traj_ax.add_artist(self._legend)
            for a in animated:
                a.set_animated(True)
        self.canvases[ax_tab].draw_idle()

    # -- introspection (tests) --------------------------------------------------------------
    def plotted_runs(self) -> list[Run]:
        """The runs with lines on the plots, in the history's order (any learner)."""
        return [r for r in self.history if id(r) in self._artists]

    def lines_of(self, run: Run) -> _RunArtists | None:
        if run is self._live:
            self._refresh_run(run)
        return self._artists.get(id(run))
