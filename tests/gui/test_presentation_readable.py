"""Presentation mode at 1280 x 800 (issue 55): the runs' legend outside the axes on every plot tab,
the rule table with 8 rows and more of large type and its head column whole, the inspector's head
chart tall enough with label names that do not overlap."""
from __future__ import annotations

from itertools import combinations

from PySide6.QtGui import QFontInfo

from boomer_gui.rules.rule_table import COL_HEAD

MIN_PX = 14


def _overlap(a, b) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5


def test_presentation_mode_at_1280_by_800_is_readable(qtbot, make_window, train):
    window = make_window(max_rules=30)
    window.resize(1280, 800)
    assert train(window) == "finished"
    window.select_rule(3)
    window.set_presentation(True)
    table = window.table
    central = window.centralWidget()
    qtbot.waitUntil(lambda: window.plot.width() >= 0.6 * central.width() - 4 and table.viewport().height() > 0)
    plot = window.plot
    for tab in (0, 1):  # every plot tab names the runs, beside the axes
        plot.tabs.setCurrentIndex(tab)
        assert plot.run_legend.isVisible() and plot.run_legend.names() == [window.run.name]
        legend_left = plot.run_legend.mapTo(plot, plot.run_legend.rect().topLeft()).x()
        assert legend_left >= plot.tabs.mapTo(plot, plot.tabs.rect().topRight()).x()
    assert QFontInfo(plot.run_legend.font()).pixelSize() >= MIN_PX
    # the rule table: large type, 8 rows and more, the head column whole in the view
    assert QFontInfo(table.font()).pixelSize() >= MIN_PX
    assert table.viewport().height() // table.rowHeight(0) >= 8
    header = table.horizontalHeader()
    left = header.sectionViewportPosition(COL_HEAD)
    assert left >= 0 and left + header.sectionSize(COL_HEAD) <= table.viewport().width()
    # the inspector's head chart: tall, large ticks, label names apart
    inspector = window.inspector
    window.details.setCurrentWidget(inspector)
    qtbot.waitUntil(lambda: inspector.canvas.isVisible() and inspector.canvas.height() > 100)
    inspector.canvas.draw()
    ratio = max(inspector.canvas.device_pixel_ratio, 1.0)
    head_px = inspector.head_ax.bbox.height / ratio
    assert head_px >= 60, head_px
    renderer = inspector.canvas.get_renderer()
    for ax in (inspector.head_ax, inspector.freq_ax):
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        for t in labels:
            assert t.get_fontsize() * inspector.figure.dpi / 72 / ratio >= MIN_PX
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert not any(_overlap(a, b) for a, b in combinations(boxes, 2))
    assert [t.get_text() for t in inspector.freq_ax.get_xticklabels()] == \
        [window.data.train.schema.label(k) for k in range(window.data.train.n_labels)]
    window.set_presentation(False)
    assert header.visualIndex(COL_HEAD) > header.visualIndex(2)  # the body before the head again
