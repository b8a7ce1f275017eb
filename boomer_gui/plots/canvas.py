"""Matplotlib canvases for Qt: margins fixed in pixels (so axis labels never clip, whatever the
widget size, without a layout engine running at every draw) and fast blitting of live artists.

A canvas made with ``fit_text=True`` measures its axes' text (tick labels, axis labels, titles,
legends) before each draw and sets its margins so that all of it lies inside the figure and
off the neighbouring axes: for figures redrawn a few times a second at most (learner plots,
inspector charts), never for the live trajectory plot."""
from __future__ import annotations

import math
import time

import matplotlib as mpl
import numpy as np

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory, offset_copy

TEXT_PAD_PX = 6  # between text and the figure's edge or the next axes
REFIT_PX = 2  # margins change only when the text needs this much more or less room


def xaxis_depth_pt(ax, tick_pt: float | None = None) -> float:
    """How far (points) the x tick labels (of size ``tick_pt``, measured when not given) and the x
    label reach below the axes, plus a small gap: where a legend under the axes may start."""
    label = 1.25 * ax.xaxis.label.get_fontsize() if ax.xaxis.label.get_text() else -ax.xaxis.labelpad
    return xaxis_label_offset_pt(ax, tick_pt) + label + 3.0


def xaxis_label_offset_pt(ax, tick_pt: float | None = None) -> float:
    """How far (points) below the axes the x label starts: tick marks, their padding and the tick
    labels of size ``tick_pt`` (measured from the axes when not given)."""
    if tick_pt is None:
        ticks = ax.xaxis.get_major_ticks()
        tick = (ticks[0].get_tick_padding() + ticks[0].get_pad()) if ticks else 7.0
        tick_labels = ax.get_xticklabels()
        tick_pt = tick_labels[0].get_fontsize() if tick_labels else 8.0
    else:  # outward ticks of matplotlib's default length and padding
        tick = mpl.rcParams["xtick.major.size"] + mpl.rcParams["xtick.major.pad"]
    return tick + 1.25 * tick_pt + ax.xaxis.labelpad


def pin_axis_labels(ax, tick_pt: float, left_pt: float | None = None) -> None:
    """Put the axis labels at fixed places (the x label under the tick labels; the y label, if
    ``left_pt`` is given, that many points right of the figure's left edge) instead of matplotlib's automatic ones,
    which measure every tick label of the axes and its siblings at each draw (a third of the
    cost of a complete redraw of a plot with few artists).  Call again when type sizes change."""
    fig = ax.figure
    below = offset_copy(ax.transAxes, fig=fig, y=-xaxis_label_offset_pt(ax, tick_pt), units="points")
    ax.xaxis.set_label_coords(0.5, 0.0, transform=below)
    if left_pt is None:
        return
    ax.yaxis.label.set_verticalalignment("top")  # rotated: the text lies right of its x position
    ax.yaxis.set_label_coords(left_pt / 72.0, 0.5, transform=blended_transform_factory(fig.dpi_scale_trans,
                                                                                        ax.transAxes))


class TickGrid:
    """The major grid of a linear axes as one collection that follows the ticks (drawn in one call
    instead of one line artist per tick).  Vertical lines are placed in data x and axes y, so only
    a change of the x limits moves them, and vice versa."""

    def __init__(self, ax, **style):
        self.ax = ax
        self.vertical = LineCollection([], transform=blended_transform_factory(ax.transData, ax.transAxes), **style)
        self.horizontal = LineCollection([], transform=blended_transform_factory(ax.transAxes, ax.transData), **style)
        for lines in (self.vertical, self.horizontal):
            ax.add_collection(lines, autolim=False)
        ax.grid(False)
        ax.callbacks.connect("xlim_changed", lambda _ax: self.update())
        ax.callbacks.connect("ylim_changed", lambda _ax: self.update())
        self.update()

    @staticmethod
    def _inside(locs, lim) -> list:
        lo, hi = min(lim), max(lim)
        return [v for v in locs if lo <= v <= hi]

    def update(self) -> None:
        ax = self.ax
        xs = self._inside(ax.xaxis.get_majorticklocs(), ax.get_xlim())
        ys = self._inside(ax.yaxis.get_majorticklocs(), ax.get_ylim())
        self.vertical.set_segments([[(x, 0.0), (x, 1.0)] for x in xs])
        self.horizontal.set_segments([[(0.0, y), (1.0, y)] for y in ys])


class MarginCanvas(FigureCanvasQTAgg):
    """A canvas whose subplot grid keeps fixed pixel margins and gaps when resized."""

    def __init__(self, figure, left=60, right=12, bottom=44, top=12, wspace=50, hspace=50, fit_text=False):
        super().__init__(figure)
        self.margins = dict(left=left, right=right, bottom=bottom, top=top, wspace=wspace, hspace=hspace)
        self.fit_text = fit_text
        self.draw_seconds = 0.0  # what the last complete draw took

    def fit_margins(self, width: int, height: int) -> None:
        if width < 50 or height < 50:
            return
        m = self.margins
        left, right = m["left"] / width, 1 - m["right"] / width
        bottom, top = m["bottom"] / height, 1 - m["top"] / height
        rows, cols = 1, 1
        for ax in self.figure.axes:
            spec = ax.get_subplotspec()
            if spec is not None:
                rows, cols = spec.get_gridspec().get_geometry()
                break
        inner_w = width - m["left"] - m["right"]
        inner_h = height - m["bottom"] - m["top"]
        axes_w = max(1.0, (inner_w - (cols - 1) * m["wspace"]) / cols)
        axes_h = max(1.0, (inner_h - (rows - 1) * m["hspace"]) / rows)
        if right > left and top > bottom:
            self.figure.subplots_adjust(left=left, right=right, bottom=bottom, top=top,
                                        wspace=m["wspace"] / axes_w, hspace=m["hspace"] / axes_h)

    def resizeEvent(self, event):
        self.fit_margins(event.size().width(), event.size().height())
        super().resizeEvent(event)

    def text_margins(self, renderer) -> dict:
        """The margins and gaps (pixels) that hold every visible axes' text as it is laid out now."""
        ratio = max(float(self.device_pixel_ratio), 1.0)
        need = dict(left=0.0, right=0.0, bottom=0.0, top=0.0, wspace=0.0, hspace=0.0)
        inner = dict(left=0.0, right=0.0, bottom=0.0, top=0.0)  # overhangs towards a neighbour
        for ax in self.figure.axes:
            spec = ax.get_subplotspec()
            if spec is None or not ax.get_visible():
                continue
            rows, cols = spec.get_gridspec().get_geometry()
            box, tight = ax.bbox, ax.get_tightbbox(renderer)
            over = dict(left=(box.x0 - tight.x0) / ratio, right=(tight.x1 - box.x1) / ratio,
                        bottom=(box.y0 - tight.y0) / ratio, top=(tight.y1 - box.y1) / ratio)
            outer = dict(left=spec.colspan.start == 0, right=spec.colspan.stop == cols,
                         bottom=spec.rowspan.stop == rows, top=spec.rowspan.start == 0)
            for side, value in over.items():
                target = need if outer[side] else inner
                target[side] = max(target[side], value)
        need["wspace"] = inner["left"] + inner["right"]
        need["hspace"] = inner["bottom"] + inner["top"]
        return {k: int(math.ceil(max(v, 0.0))) + TEXT_PAD_PX for k, v in need.items()}

    def fit_to_text(self) -> bool:
        """Set the margins to what the text needs (see :meth:`text_margins`); True if they changed."""
        width, height = self.width(), self.height()
        if width < 50 or height < 50 or not self.figure.axes:
            return False
        need = self.text_margins(self.get_renderer())
        changed = {k: v for k, v in need.items() if abs(v - self.margins[k]) > REFIT_PX}
        if not changed:
            return False
        self.margins.update(changed)
        self.fit_margins(width, height)
        return True

    def draw(self):
        start = time.perf_counter()
        if self.fit_text and self.fit_to_text():
            self.fit_to_text()  # the new axes size may move a tick label: measure once more
        super().draw()
        self.draw_seconds = time.perf_counter() - start


class GrowingLine:
    """A live line whose points are only ever appended: what was drawn stays in the canvas's cached
    background, and a copy of the line (same style) draws just the points added since."""

    def __init__(self, line):
        self.line = line
        self.tail = Line2D([], [])
        self.tail.update_from(line)
        self.tail.set_animated(True)
        line.axes.add_line(self.tail)
        self.baked = 0  # points of the line in the background
        self._last = None

    def data(self):
        return np.asarray(self.line.get_xdata(orig=True)), np.asarray(self.line.get_ydata(orig=True))

    def mark_baked(self) -> None:
        x, y = self.data()
        self.baked = len(x)
        self._last = (float(x[-1]), float(y[-1])) if len(x) else None

    def only_appended(self) -> bool:
        """Are the baked points still the line's first points?"""
        x, y = self.data()
        if len(x) < self.baked:
            return False
        return self.baked == 0 or (float(x[self.baked - 1]), float(y[self.baked - 1])) == self._last

    def draw_new_points(self) -> bool:
        """Draw the segment from the last baked point to the end; False if there was nothing new."""
        x, y = self.data()
        if len(x) <= self.baked or not self.line.get_visible():
            return False
        start = max(self.baked - 1, 0)
        self.tail.set_data(x[start:], y[start:])
        self.line.axes.draw_artist(self.tail)
        self.mark_baked()
        return True

    def remove(self) -> None:
        self.tail.remove()


class LiveCanvas(MarginCanvas):
    """A canvas that can redraw a few 'animated' artists quickly over a cached background.  Lines
    declared growing are baked into the background as they grow, so a live update costs the same
    after 1,000 rules as after 10."""

    def __init__(self, figure, **margins):
        super().__init__(figure, **margins)
        self.animated: list = []
        self.growing: list[GrowingLine] = []
        self._background = None
        self.full_draws = 0
        self.mpl_connect("draw_event", self._on_draw)

    def _live_bbox(self):
        """The region the animated artists can touch: the union of their axes (lines are clipped)."""
        from matplotlib.transforms import Bbox

        axes = {a.axes for a in self.animated if a.axes is not None}
        if not axes:
            return self.figure.bbox
        return Bbox.union([ax.bbox for ax in axes]).expanded(1.0, 1.0)

    def _on_draw(self, event):
        self.full_draws += 1
        self._bbox = self._live_bbox()
        if self.growing:  # the growing lines as they are now become part of the background
            for g in self.growing:
                if g.line.get_visible():
                    g.line.axes.draw_artist(g.line)
                g.mark_baked()
        self._background = self.copy_from_bbox(self._bbox)
        self._draw_animated()

    def _draw_animated(self):
        grown = {id(g.line) for g in self.growing}
        for artist in self.animated:
            if artist.get_visible() and artist.axes is not None and id(artist) not in grown:
                artist.axes.draw_artist(artist)

    def invalidate(self):
        self._background = None

    def set_animated_artists(self, artists, growing=()) -> None:
        """``artists`` are redrawn at every :meth:`fast_update`; those of them in ``growing`` are
        lines that only grow (see :class:`GrowingLine`)."""
        for g in self.growing:
            g.remove()
        self.animated = list(artists)
        self.growing = [GrowingLine(line) for line in growing]
        self._background = None

    def fast_update(self) -> bool:
        """Blit the animated artists; False (and a full draw is scheduled) without a background, or
        when a growing line lost or changed points."""
        if self._background is None or self.figure.bbox.width < 2 or \
                not all(g.only_appended() for g in self.growing):
            self.draw_idle()
            return False
        self.restore_region(self._background)
        if any([g.draw_new_points() for g in self.growing]):
            self._background = self.copy_from_bbox(self._bbox)
        self._draw_animated()
        self.blit(self._bbox)
        return True
