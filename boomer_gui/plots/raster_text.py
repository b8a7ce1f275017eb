"""Tick labels drawn from cached bitmaps.

Matplotlib lays out and rasterises every glyph of every tick label at every complete redraw: with
a dozen labels that is about half the cost of redrawing the trajectory plot.  The labels of a
live plot repeat ("0.00", "0.06", ...), so :class:`RasterTickLabels` renders each string once per
size, colour and resolution (with matplotlib itself, on a small transparent figure) and pastes the
bitmap at every later draw.  On a vector backend (SVG, PDF exports) it draws ordinary text."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform


class TextBitmap(NamedTuple):
    """A text rasterised by matplotlib: ``image`` (RGBA, rows bottom to top as ``draw_image`` takes
    them), the pixel of the image on the text's anchor, and the text's box relative to the anchor."""

    image: np.ndarray
    anchor_x: int
    anchor_y: int
    box: tuple[float, float, float, float]  # x0, y0, width, height from the anchor


@lru_cache(maxsize=8)
def _scratch_figure(dpi: float) -> Figure:
    return Figure(dpi=dpi)


@lru_cache(maxsize=1024)
def text_bitmap(text: str, size_pt: float, dpi: float, color, rotation: float = 0.0, ha: str = "center",
                va: str = "center", rotation_mode: str = "default") -> TextBitmap:
    """``text`` drawn by matplotlib, aligned by ``ha``/``va`` at a whole pixel of a small transparent
    image, cropped to its ink and its box: pasted with that pixel on an anchor, it lies where
    matplotlib would draw it (to the pixel: matplotlib rounds text positions as well)."""
    side = int(2 * (len(text) + 2) * size_pt * dpi / 72.0) + 20
    renderer = RendererAgg(side, side, dpi)
    mid = side // 2
    artist = Text(mid, mid, text, ha=ha, va=va, fontsize=size_pt, color=color, rotation=rotation,
                  rotation_mode=rotation_mode, transform=IdentityTransform())
    artist.set_figure(_scratch_figure(dpi))  # text layout reads the resolution from its figure
    artist.draw(renderer)
    rgba = np.asarray(renderer.buffer_rgba())
    height, width = rgba.shape[:2]
    box = artist.get_window_extent(renderer)
    x0, x1, y0, y1 = math.floor(box.x0), math.ceil(box.x1), math.floor(box.y0), math.ceil(box.y1)
    ink = rgba[..., 3] > 0
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size:  # rows count from the top, y from the bottom
        x0, x1 = min(x0, int(cols[0])), max(x1, int(cols[-1]) + 1)
        y0, y1 = min(y0, height - 1 - int(rows[-1])), max(y1, height - int(rows[0]))
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    image = np.ascontiguousarray(rgba[height - y1:height - y0][::-1, x0:x1])
    return TextBitmap(image, mid - x0, mid - y0, (box.x0 - mid, box.y0 - mid, box.width, box.height))


def _hashable(color):
    return tuple(color) if isinstance(color, (list, np.ndarray)) else color


def text_box(bitmap: TextBitmap, x: float, y: float) -> Bbox:
    """The text's box (display pixels) when its anchor is at (x, y)."""
    dx, dy, w, h = bitmap.box
    return Bbox.from_bounds(x + dx, y + dy, w, h)


def paste(renderer, bitmap: TextBitmap, x: float, y: float) -> None:
    """Draw ``bitmap`` with its anchor at (x, y), rounded to whole pixels."""
    gc = renderer.new_gc()
    renderer.draw_image(gc, round(x) - bitmap.anchor_x, round(y) - bitmap.anchor_y, bitmap.image)
    gc.restore()


class RasterLabel(Artist):
    """Draws a hidden matplotlib ``Text`` (e.g. an axis label) from a cached bitmap: same text, size,
    colour, rotation, place and alignment, read from it at every draw."""

    def __init__(self, ax, source: Text):
        super().__init__()
        self.source = source
        source.set_visible(False)
        self.set_zorder(2.6)
        self._text = Text(0, 0, "")
        ax.add_artist(self)

    def _bitmap(self) -> TextBitmap:
        s = self.source
        return text_bitmap(s.get_text(), float(s.get_fontsize()), float(self.figure.dpi), _hashable(s.get_color()),
                           float(s.get_rotation()), s.get_horizontalalignment(), s.get_verticalalignment(),
                           s.get_rotation_mode())

    def _anchor(self) -> tuple[float, float]:
        s = self.source
        x, y = s.get_transform().transform(s.get_position())
        return float(x), float(y)

    def get_window_extent(self, renderer=None) -> Bbox:
        if not self.source.get_text():
            return Bbox.null()
        return text_box(self._bitmap(), *self._anchor())

    def draw(self, renderer) -> None:
        s = self.source
        if not self.get_visible() or not s.get_text():
            return
        if isinstance(renderer, RendererAgg):
            paste(renderer, self._bitmap(), *self._anchor())
        else:  # vector output: the text itself
            t = self._text
            t.update_from(s)
            t.set_text(s.get_text())
            t.set_transform(s.get_transform())
            t.set_position(s.get_position())
            t.set_figure(self.figure)
            t.draw(renderer)
        self.stale = False


class RasterTickLabels(Artist):
    """The major tick labels of one axis (``'x'``: centred under the axes; ``'y'``: right-aligned
    left of them), in place of matplotlib's own (turn those off with ``tick_params``)."""

    def __init__(self, ax, which: str, size_pt: float, pad_pt: float = 3.5, color: str = "black"):
        super().__init__()
        if which not in ("x", "y"):
            raise ValueError(f"which must be 'x' or 'y', not {which!r}")
        self.ax, self.which = ax, which
        self.size_pt, self.pad_pt, self.color = size_pt, pad_pt, color
        self.set_zorder(2.6)
        self._text = Text(0, 0, "", transform=IdentityTransform())
        ax.add_artist(self)
        self._text.set_figure(ax.figure)

    def set_size(self, size_pt: float) -> None:
        self.size_pt = size_pt
        self.stale = True

    def labels(self) -> list[tuple[float, str]]:
        """(position in data units, text) of the labels inside the view, as matplotlib would write them."""
        axis = self.ax.xaxis if self.which == "x" else self.ax.yaxis
        locs = np.asarray(axis.get_majorticklocs(), dtype=float)
        texts = axis.get_major_formatter().format_ticks(locs)
        lo, hi = sorted(self.ax.get_xlim() if self.which == "x" else self.ax.get_ylim())
        tol = 1e-9 * max(hi - lo, 1e-300)
        return [(float(v), t) for v, t in zip(locs, texts) if t and lo - tol <= v <= hi + tol]

    @property
    def alignment(self) -> tuple[str, str]:
        return ("center", "top") if self.which == "x" else ("right", "center_baseline")  # as matplotlib's

    def _anchors(self) -> list[tuple[str, float, float]]:
        """(text, x, y) in display pixels: the top centre (x labels) or the right middle (y labels)."""
        pad = self.pad_pt * self.figure.dpi / 72.0
        box, to_pixels = self.ax.bbox, self.ax.transData.transform
        if self.which == "x":
            return [(text, to_pixels((value, 0.0))[0], box.y0 - pad) for value, text in self.labels()]
        return [(text, box.x0 - pad, to_pixels((0.0, value))[1]) for value, text in self.labels()]

    def _placed(self) -> list[tuple[str, TextBitmap, float, float]]:
        """(text, its bitmap, anchor x, anchor y) of each label."""
        ha, va = self.alignment
        dpi = float(self.figure.dpi)
        return [(text, text_bitmap(text, float(self.size_pt), dpi, self.color, 0.0, ha, va), x, y)
                for text, x, y in self._anchors()]

    def label_boxes(self) -> list[tuple[str, Bbox]]:
        """Each label's text and its box in display pixels."""
        return [(text, text_box(bitmap, x, y)) for text, bitmap, x, y in self._placed()]

    def get_window_extent(self, renderer=None) -> Bbox:
        boxes = [box for _text, box in self.label_boxes()]
        return Bbox.union(boxes) if boxes else Bbox.null()

    def draw(self, renderer) -> None:
        if not self.get_visible():
            return
        if isinstance(renderer, RendererAgg):
            for _text, bitmap, x, y in self._placed():
                paste(renderer, bitmap, x, y)
        else:  # vector output: real text
            t = self._text
            t.set_fontsize(self.size_pt)
            t.set_color(self.color)
            t.set_horizontalalignment(self.alignment[0])
            t.set_verticalalignment(self.alignment[1])
            for text, x, y in self._anchors():
                t.set_position((x, y))
                t.set_text(text)
                t.draw(renderer)
        self.stale = False
