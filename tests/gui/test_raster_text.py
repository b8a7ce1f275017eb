"""The trajectory plot's tick and axis labels are pasted from cached bitmaps (a complete redraw
costs half as much); they must lie where matplotlib's own labels would, and exports to vector
formats must keep real text."""
from __future__ import annotations

import numpy as np
import pytest

from boomer_gui.plots.raster_text import RasterTickLabels, text_bitmap
from boomer_gui.plots.trajectory_plot import TrajectoryPlot


def _centre(box):
    return np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])


@pytest.fixture
def plot(qtbot):
    plot = TrajectoryPlot()
    qtbot.addWidget(plot)
    plot.resize(900, 480)
    plot.show()
    qtbot.waitExposed(plot)
    plot.traj_ax.set_xlim(0.0, 0.37)
    plot.traj_ax.set_ylim(0.0, 1.0)
    yield plot
    plot.shutdown()


@pytest.mark.parametrize("presentation", [False, True])
def test_labels_lie_where_matplotlibs_own_would(plot, presentation):
    plot.set_presentation(presentation)
    plot.draw_now()
    ax = plot.traj_ax
    renderer = plot.traj_canvas.get_renderer()
    raster_x, raster_y = plot._tick_labels
    for raster, axis in ((raster_x, ax.xaxis), (raster_y, ax.yaxis)):
        ours = {text: text_box for text, text_box in raster.label_boxes()}
        assert len(ours) >= 4
        ax.tick_params(labelbottom=True, labelleft=True)  # matplotlib's labels, for comparison only
        theirs = {t.get_text(): t.get_window_extent(renderer) for t in axis.get_ticklabels()
                  if t.get_visible() and t.get_text()}
        ax.tick_params(labelbottom=False, labelleft=False)
        assert set(ours) <= set(theirs), (sorted(ours), sorted(theirs))
        for text, box in ours.items():
            assert np.abs(_centre(box) - _centre(theirs[text])).max() <= 1.0, text
            assert abs(box.width - theirs[text].width) <= 1.0 and abs(box.height - theirs[text].height) <= 1.0
            assert box.height == pytest.approx(theirs[text].height, abs=1.0)
    for label in plot._axis_labels:
        source = label.source
        source.set_visible(True)
        theirs = source.get_window_extent(renderer)
        source.set_visible(False)
        ours = label.get_window_extent(renderer)
        assert np.abs(_centre(ours) - _centre(theirs)).max() <= 1.0, source.get_text()
        assert abs(ours.width - theirs.width) <= 1.0 and abs(ours.height - theirs.height) <= 1.0


def test_bitmaps_are_rendered_once_per_text_size_and_resolution(plot):
    plot.draw_now()
    before = text_bitmap.cache_info()
    for _ in range(3):
        plot.draw_now()
    after = text_bitmap.cache_info()
    assert after.misses == before.misses and after.hits > before.hits
    big = text_bitmap("0.25", 12.0, 100.0, "black", 0.0, "center", "top")
    small = text_bitmap("0.25", 8.0, 100.0, "black", 0.0, "center", "top")
    assert big.image.shape[0] > small.image.shape[0] and big.image.shape[1] > small.image.shape[1]
    assert big.image[..., 3].max() > 0  # ink, not an empty bitmap


def test_vector_exports_keep_real_text(plot, tmp_path):
    plot.draw_now()
    path = tmp_path / "plot.svg"
    plot.export(str(path))
    svg = path.read_text()
    labels = [text for raster in plot._tick_labels for text, _box in raster.label_boxes()]
    assert labels
    assert "<image" not in svg  # no pasted bitmaps: the labels are text (glyph paths) in a vector file
    assert svg.count('id="text_') >= len(labels) + 2  # every tick label and both axis labels


def test_tick_labels_refuse_an_unknown_axis(plot):
    with pytest.raises(ValueError, match="'x' or 'y'"):
        RasterTickLabels(plot.traj_ax, "z", 8.0)
