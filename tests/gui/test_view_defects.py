"""The walkthrough's defects in the views (issue 30), each one checked on the widget alone: the
trajectory plot names its runs outside the data (and in presentation mode with large type), the
learner plots keep legends and labels off the curves and inside the figure with honest axes, the
inspectors read from the back of a room and show long rule bodies whole."""
from __future__ import annotations

import math

import numpy as np
import pytest

from boomer_gui.components.state import RunHistory
from engine.api import RuleRecord
from engine.rules import Condition, Rule, Schema

MIN_TICK_PX = 14


def px(fontsize_pt: float, figure) -> float:
    """A font size in points as pixels of the screen (the figure's dpi is scaled by the device ratio)."""
    ratio = max(getattr(figure.canvas, "device_pixel_ratio", 1.0), 1.0)
    return fontsize_pt * figure.dpi / ratio / 72


def overlaps(a, b) -> bool:
    """Do two display-space boxes share more than a pixel of area?"""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 1 and min(a.y1, b.y1) - max(a.y0, b.y0) > 1


def inside(inner, outer, slack: float = 1.0) -> bool:
    return (inner.x0 >= outer.x0 - slack and inner.y0 >= outer.y0 - slack and inner.x1 <= outer.x1 + slack
            and inner.y1 <= outer.y1 + slack)


def fake_run(history: RunHistory, title: str, n: int = 30, shift: float = 0.0):
    """A finished BOOMER-like run of ``n`` rules with falling training and test losses."""
    run = history.new_run(title, "boomer", {"max_rules": n}, dataset="synthetic", data_key="k")
    rule = Rule((), np.array([0]), np.array([1.0]))
    steps = np.arange(n)
    h = 0.25 * np.exp(-steps / 10) + 0.12 + shift
    s = 0.85 * np.exp(-steps / 12) + 0.25 + shift
    run.append([RuleRecord(i, rule, 10, 1.0, h[i] - 0.01, s[i] - 0.03, h[i], s[i]) for i in range(n)])
    run.status = "finished"
    return run


@pytest.fixture
def plot_with_runs(qtbot):
    """A trajectory plot at a 1280 x 800 projector's plot size with three runs, two of one preset."""
    from boomer_gui.plots.trajectory_plot import TrajectoryPlot

    history = RunHistory()
    runs = [fake_run(history, "boomer: Figure 1 (paper)"), fake_run(history, "boomer: Figure 1 (paper) #2", 20, 0.02),
            fake_run(history, "seco: Loza Mencía et al. (F-measure)", 40, 0.04)]
    plot = TrajectoryPlot(history)
    qtbot.addWidget(plot)
    for run in runs:
        plot.add_run(run, live=False)
    plot.resize(900, 560)
    plot.show()
    qtbot.waitExposed(plot)
    return plot, runs


def test_presentation_legend_names_the_runs_outside_the_data_in_large_type(qtbot, plot_with_runs):
    plot, runs = plot_with_runs
    plot.set_presentation(True)
    for size in ((900, 560), (640, 460)):
        plot.resize(*size)
        qtbot.waitUntil(lambda: plot.traj_canvas.width() < size[0] + 1 and plot.traj_canvas.width() > size[0] - 40)
        plot.draw_now()
        ax, fig = plot.traj_ax, plot.traj_fig
        legend = ax.get_legend()
        assert legend is not None and legend.get_visible()
        names = [t.get_text() for t in legend.get_texts()]
        assert all(r.name in names for r in runs)
        renderer = plot.traj_canvas.get_renderer()
        box = legend.get_window_extent(renderer)
        assert not overlaps(box, ax.bbox), (size, box, ax.bbox)  # never over the data
        assert inside(box, fig.bbox), (size, box, fig.bbox)  # and not cut off
        assert inside(ax.get_tightbbox(renderer), fig.bbox, slack=2)  # tick labels and axis labels too
        for label in ax.get_xticklabels() + ax.get_yticklabels():
            assert px(label.get_fontsize(), fig) >= MIN_TICK_PX
        for label in (ax.xaxis.label, ax.yaxis.label):
            assert label.get_fontsize() > ax.get_xticklabels()[0].get_fontsize()
        assert ax.bbox.height > 0.5 * fig.bbox.height  # the legend leaves the data most of the figure
    plot.set_presentation(False)
    legend = plot.traj_ax.get_legend()
    assert legend is None or not legend.get_visible()


def test_normal_mode_names_every_run_in_its_colour_above_the_plot(qtbot, plot_with_runs):
    plot, runs = plot_with_runs
    plot.draw_now()
    label = plot.runs_label
    assert label.isVisible()
    text = label.text()
    for run in runs:  # two runs of one preset told apart by their names
        assert run.name in text and run.color in text
    assert text.index(runs[0].name) < text.index(runs[1].name)
    plot.set_run_visible(runs[1], False)
    assert runs[1].name not in label.text() and runs[0].name in label.text()
    legend = plot.traj_ax.get_legend()
    assert legend is None or not legend.get_visible()  # nothing over the curves
    plot.set_presentation(True)
    assert not label.isVisible()  # the legend under the axes says it in presentation mode
