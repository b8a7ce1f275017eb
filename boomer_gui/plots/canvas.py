"""Matplotlib canvases for Qt: margins fixed in pixels (so axis labels never clip, whatever the
widget size, without a layout engine running at every draw) and fast blitting of live artists.

A canvas made with ``fit_text=True`` measures its axes' text (tick labels, axis labels, titles,
legends) before each draw and sets its margins so that all of it lies inside the figure and
off the neighbouring axes: for figures redrawn a few times a second at most (learner plots,
inspector charts), never for the live trajectory plot."""
from __future__ import annotations

import math

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

TEXT_PAD_PX = 6  # between text and the figure's edge or the next axes
REFIT_PX = 2  # margins change only when the text needs this much more or less room


def xaxis_depth_pt(ax) -> float:
    """How far (points) the x tick labels and the x label reach below the axes, plus a small gap:
    where a legend under the axes may start."""
    ticks = ax.xaxis.get_major_ticks()
    tick = (ticks[0].get_tick_padding() + ticks[0].get_pad()) if ticks else 7.0
    tick_labels = ax.get_xticklabels()
    size = tick_labels[0].get_fontsize() if tick_labels else 8.0
    label = ax.xaxis.labelpad + 1.25 * ax.xaxis.label.get_fontsize() if ax.xaxis.label.get_text() else 0.0
    return tick + 1.25 * size + label + 3.0


class MarginCanvas(FigureCanvasQTAgg):
    """A canvas whose subplot grid keeps fixed pixel margins and gaps when resized."""

    def __init__(self, figure, left=60, right=12, bottom=44, top=12, wspace=50, hspace=50, fit_text=False):
        super().__init__(figure)
        self.margins = dict(left=left, right=right, bottom=bottom, top=top, wspace=wspace, hspace=hspace)
        self.fit_text = fit_text

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
        if self.fit_text and self.fit_to_text():
            self.fit_to_text()  # the new axes size may move a tick label: measure once more
        super().draw()


class LiveCanvas(MarginCanvas):
    """A canvas that can redraw a few 'animated' artists quickly over a cached background."""

    def __init__(self, figure, **margins):
        super().__init__(figure, **margins)
        self.animated: list = []
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
        self._background = self.copy_from_bbox(self._bbox)
        self._draw_animated()

    def _draw_animated(self):
        for artist in self.animated:
            if artist.get_visible() and artist.axes is not None:
                artist.axes.draw_artist(artist)

    def invalidate(self):
        self._background = None

    def set_animated_artists(self, artists) -> None:
        self.animated = list(artists)
        self._background = None

    def fast_update(self) -> bool:
        """Blit the animated artists; False (and a full draw is scheduled) without a background."""
        if self._background is None or self.figure.bbox.width < 2:
            self.draw_idle()
            return False
        self.restore_region(self._background)
        self._draw_animated()
        self.blit(self._bbox)
        return True
