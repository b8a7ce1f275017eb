"""Live lines that only grow are baked into the canvas's background as they grow: an update
draws the new points only, and the picture is the one a complete redraw gives."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from boomer_gui.plots.canvas import LiveCanvas


@pytest.fixture
def live(qtbot):
    fig = Figure(figsize=(6, 4), dpi=100)
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    canvas = LiveCanvas(fig)
    qtbot.addWidget(canvas)
    canvas.resize(600, 400)
    canvas.show()
    qtbot.waitExposed(canvas)
    line, = ax.plot([], [], "-", lw=1.8, color="tab:blue")
    line.set_animated(True)
    marks, = ax.plot([], [], "o", ls="none", color="tab:orange")
    marks.set_animated(True)
    canvas.set_animated_artists([line, marks], growing=[line])
    canvas.draw()
    return canvas, line, marks


def _walk(n: int):
    t = np.linspace(0, 1, n)
    return 0.05 + 0.9 * t, 0.5 + 0.4 * np.sin(7 * t) * (1 - t)


def test_updates_draw_only_new_points_and_match_a_complete_redraw(live):
    canvas, line, marks = live
    x, y = _walk(400)
    for end in range(10, 401, 30):
        line.set_data(x[:end], y[:end])
        marks.set_data(x[[0, end - 1]], y[[0, end - 1]])
        previous = canvas.growing[0].baked
        assert canvas.fast_update()
        tail = canvas.growing[0].tail.get_xdata()
        assert len(tail) == end - max(previous - 1, 0)  # the new points and the one before them
    incremental = np.asarray(canvas.buffer_rgba()).astype(int)
    canvas.draw()
    complete = np.asarray(canvas.buffer_rgba()).astype(int)
    differ = np.abs(incremental - complete).max(axis=2) > 60
    assert differ.sum() <= 20, differ.sum()  # at most a few antialiased pixels at the joins


def test_a_line_that_lost_points_is_redrawn_completely(live, qtbot):
    canvas, line, _marks = live
    x, y = _walk(100)
    line.set_data(x, y)
    assert canvas.fast_update()
    draws = canvas.full_draws
    line.set_data(x[:50], y[:50])  # e.g. a replay starting again
    assert not canvas.fast_update()
    qtbot.waitUntil(lambda: canvas.full_draws > draws)
    assert canvas.growing[0].baked == 50
    line.set_data(x[:60] + 0.01, y[:60])  # changed points, not appended ones
    assert not canvas.fast_update()


def test_declaring_no_live_artists_removes_the_tails(live):
    canvas, line, _marks = live
    tail = canvas.growing[0].tail
    assert tail in line.axes.lines
    canvas.set_animated_artists([])
    assert tail not in line.axes.lines and not canvas.growing
