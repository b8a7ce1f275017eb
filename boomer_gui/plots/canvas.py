"""Matplotlib canvases for Qt: margins fixed in pixels (so axis labels never clip, whatever the
widget size, without a layout engine running at every draw) and fast blitting of live artists."""
from __future__ import annotations

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg


class MarginCanvas(FigureCanvasQTAgg):
    """A canvas whose subplot grid keeps fixed pixel margins and gaps when resized."""

    def __init__(self, figure, left=60, right=12, bottom=44, top=12, wspace=50, hspace=50):
        super().__init__(figure)
        self.margins = dict(left=left, right=right, bottom=bottom, top=top, wspace=wspace, hspace=hspace)

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
