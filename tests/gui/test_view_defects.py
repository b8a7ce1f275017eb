"""The walkthrough's defects in the views (issue 30), each one checked on the widget alone: the
trajectory plot names its runs outside the data (and in presentation mode with large type), the
learner plots keep legends and labels off the curves and inside the figure with honest axes, the
inspectors read from the back of a room and show long rule bodies whole."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt

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


def _legend_rect(plot):
    from PySide6.QtCore import QRect

    legend = plot.run_legend
    return QRect(legend.mapTo(plot, legend.rect().topLeft()), legend.size())


def _canvas_rect(plot, canvas):
    from PySide6.QtCore import QRect

    return QRect(canvas.mapTo(plot, canvas.rect().topLeft()), canvas.size())


def test_presentation_legend_names_the_runs_outside_the_data_in_large_type(qtbot, plot_with_runs):
    plot, runs = plot_with_runs
    plot.set_presentation(True)
    for size in ((900, 560), (640, 460)):
        plot.resize(*size)
        qtbot.waitUntil(lambda: plot.traj_canvas.width() < size[0] + 1 and plot.traj_canvas.width() > size[0] - 400)
        plot.draw_now()
        legend = plot.run_legend
        assert legend.isVisible() and legend.names() == [r.name for r in runs]
        assert legend.font().pixelSize() >= MIN_TICK_PX
        for tab, canvas in ((0, plot.traj_canvas), (1, plot.loss_canvas)):  # every tab has it, beside the data
            plot.tabs.setCurrentIndex(tab)
            assert legend.isVisible()
            assert not _legend_rect(plot).intersects(_canvas_rect(plot, canvas))
        plot.tabs.setCurrentIndex(0)
        ax, fig = plot.traj_ax, plot.traj_fig
        renderer = plot.traj_canvas.get_renderer()
        assert inside(ax.get_tightbbox(renderer), fig.bbox, slack=2)  # tick labels and axis labels too
        tick_pt = plot.tick_label_pt()  # the tick labels are pasted bitmaps of this size
        assert px(tick_pt, fig) >= MIN_TICK_PX
        for label in (ax.xaxis.label, ax.yaxis.label):
            assert label.get_fontsize() > tick_pt
        assert ax.bbox.height > 0.6 * fig.bbox.height  # the legend leaves the data the figure
    plot.set_presentation(False)
    legend = plot.traj_ax.get_legend()
    assert legend is None or not legend.get_visible()


def test_normal_mode_names_every_run_beside_the_plot_with_its_style_and_settings(qtbot, plot_with_runs):
    plot, runs = plot_with_runs
    plot.draw_now()
    legend = plot.run_legend
    assert legend.isVisible()
    assert legend.names() == [r.name for r in runs]  # two runs of one preset told apart by their names
    for i, run in enumerate(runs):
        assert legend.item(i).toolTip() == run.describe() and run.dash in legend.item(i).toolTip()
    plot.set_run_visible(runs[1], False)
    assert legend.names() == [runs[0].name, runs[2].name]
    legend_artist = plot.traj_ax.get_legend()
    assert legend_artist is None or not legend_artist.get_visible()  # nothing over the curves
    runs[0].name = "renamed"
    plot.redraw()
    assert legend.names()[0] == "renamed"


def test_twelve_runs_fit_a_scrollable_legend_and_each_line_has_its_runs_style(qtbot, plot_with_runs):
    from boomer_gui.plots.trajectory_plot import dash_style

    plot, runs = plot_with_runs
    for k in range(9):
        run = fake_run(plot.history, f"run {k}", 20 + k, 0.01 * k)
        plot.add_run(run, live=False)
    plot.set_presentation(True)
    plot.resize(900, 560)
    plot.draw_now()
    legend = plot.run_legend
    assert legend.count() == 12
    rows = legend.sizeHintForRow(0) * 12
    assert rows <= legend.viewport().height() or legend.verticalScrollBar().maximum() > 0  # all reachable
    styles = set()
    for run in plot.history:
        art = plot.lines_of(run)
        assert art.test.get_color() == run.color and art.test_marks.get_marker() == run.marker
        assert art.test.get_linestyle() == art.train.get_linestyle()
        assert art.test.get_linewidth() > art.train.get_linewidth()  # test thick, training thin
        styles.add((art.test.get_color(), art.test_marks.get_marker(), str(dash_style(run.dash))))
    assert len(styles) == 12


# -- the learner plots of label ranking and ML-ME (panels/step_view.py) -----------------------------
def expert_steps(values, key: str = "cll"):
    """ML-ME-like steps whose training and test CLL-loss are ``values`` (test a little lower)."""
    from engine.steps import Step

    return [Step(i, "expert", None, {f"train_{key}": v, f"test_{key}": v - 0.001, "n_experts": i + 1})
            for i, v in enumerate(values)]


def ranking_steps(n: int, scale: float = 1.0):
    from engine.steps import Step

    keys = ["train_loss"] + [f"{s}_{e}" for s in ("train", "test") for e in ("01", "dis", "Dom", "dom")]
    return [Step(i, "update", None, {k: scale * (0.9 - 0.4 * i / n + 0.01 * j) for j, k in enumerate(keys)})
            for i in range(n)]


@pytest.fixture
def learner_plots(qtbot):
    from boomer_gui.panels.step_view import MetricPlots
    from engine import registry

    plots = MetricPlots()
    qtbot.addWidget(plots)
    plots.resize(760, 330)
    plots.show()
    qtbot.waitExposed(plots)

    def show(key: str, steps, size=None):
        plots.set_spec(registry.get(key))
        if size is not None:
            plots.resize(*size)
            qtbot.waitUntil(lambda: abs(plots.canvas.width() - size[0]) <= 2)
        plots.set_steps(steps)
        plots.flush()
        plots.canvas.draw()
        return plots

    return show


def shown_ticks(ax, axis: str = "x") -> np.ndarray:
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    ticks = np.asarray(ax.get_xticks() if axis == "x" else ax.get_yticks(), float)
    return ticks[(ticks >= lo - 1e-9) & (ticks <= hi + 1e-9)]


@pytest.mark.parametrize("presentation", [False, True])
@pytest.mark.parametrize("size", [(760, 330), (460, 300), (1280, 420)])
def test_learner_plots_keep_legends_labels_and_titles_inside_the_figure_and_off_the_curves(
        qtbot, learner_plots, size, presentation):
    for key, steps in (("label-ranking", ranking_steps(30, scale=-12345.6)), ("ml-me", expert_steps([0.231] * 5)),
                       ("label-ranking", ranking_steps(30))):
        plots = learner_plots(key, [], size)
        if presentation:
            plots.set_presentation(True)
        plots.set_steps(steps)
        plots.flush()
        plots.canvas.draw()
        fig = plots.figure
        renderer = plots.canvas.get_renderer()
        axes = fig.axes
        assert axes
        for ax in axes:
            assert inside(ax.get_tightbbox(renderer), fig.bbox, slack=1), (key, size, ax.get_title())
            legend = ax.get_legend()
            if legend is not None:
                box = legend.get_window_extent(renderer)
                assert not any(overlaps(box, other.bbox) for other in axes), (key, size)
            for other in axes:  # no axes' labels on the neighbour's data
                if other is not ax:
                    assert not overlaps(ax.get_tightbbox(renderer), other.bbox)
            if presentation:
                for label in ax.get_xticklabels() + ax.get_yticklabels():
                    assert px(label.get_fontsize(), fig) >= MIN_TICK_PX


def test_mlme_y_axis_does_not_magnify_tiny_differences(qtbot, learner_plots):
    plots = learner_plots("ml-me", expert_steps([0.2325, 0.2290, 0.2276, 0.2280]))
    (ax,) = plots.figure.axes
    lo, hi = ax.get_ylim()
    assert hi - lo >= 0.05 and lo <= 0.2275 and hi >= 0.2325
    plots = learner_plots("ml-me", expert_steps([410.0, 388.0, 387.0, 387.5]))
    (ax,) = plots.figure.axes
    lo, hi = ax.get_ylim()
    assert hi - lo >= 0.1 * 410 and lo >= 0  # large values: a span in proportion, still nothing below 0


@pytest.mark.parametrize("n", [1, 2, 3, 5, 12])
def test_the_expert_axis_has_whole_experts_only(qtbot, learner_plots, n):
    plots = learner_plots("ml-me", expert_steps(list(np.linspace(0.4, 0.3, n))))
    (ax,) = plots.figure.axes
    ticks = shown_ticks(ax)
    assert ticks.size >= 1 and np.all(ticks == np.round(ticks)), ticks
    if n <= 5:
        assert set(range(1, n + 1)) <= set(ticks.astype(int))  # every expert named while they are few


# -- inspectors: presentation type and long rule bodies (rules/inspector.py, rules/explanation.py) ----
N_CONDITIONS = 33


def long_rule(n: int = N_CONDITIONS) -> Rule:
    """A rule of ``n`` conditions, one per attribute (|x_j| <= 1.5 or x_j > -1.5), that covers the
    examples whose attribute values are small."""
    conditions = tuple(Condition(j, "<=" if j % 2 else ">", 1.5 if j % 2 else -1.5) for j in range(n))
    return Rule(conditions, np.array([0, 2, 3]), np.array([0.8, -0.4, 0.3]))


@pytest.fixture
def small_data():
    """120 examples of 33 attributes with long names (as in real data sets) and 6 labels."""
    from engine.api import Dataset

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, N_CONDITIONS)).astype(np.float32)
    Y = (rng.random((120, 6)) < 0.4).astype(np.uint8)
    return Dataset(X, Y, [f"attribute_{j:02d}" for j in range(N_CONDITIONS)], [f"label{k}" for k in range(6)])


def plain(html: str) -> str:
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText().replace("\xa0", " ")


def test_the_inspector_shows_every_condition_of_a_long_body(qtbot, small_data):
    from boomer_gui.rules.inspector import RuleInspector

    inspector = RuleInspector()
    qtbot.addWidget(inspector)
    inspector.resize(900, 620)
    inspector.show()
    qtbot.waitExposed(inspector)
    inspector.set_data(small_data)
    rule = long_rule()
    inspector.show_record(RuleRecord(7, rule, 40, 0.5, 0.2, 0.6, 0.21, 0.62))
    shown = plain(inspector.conditions.text())
    assert all(c.to_text(small_data.schema) in shown for c in rule.conditions)
    scroll = inspector.conditions_scroll
    # all of it in sight, no scrolling needed
    qtbot.waitUntil(lambda: scroll.verticalScrollBar().maximum() == 0)
    label = inspector.conditions
    assert label.isVisible() and scroll.viewport().height() >= label.heightForWidth(label.width())
    assert inspector.examples.isVisible() and inspector.examples.height() >= 60  # the covered examples keep room
    inspector.show_record(RuleRecord(0, Rule((), np.array([0]), np.array([0.1])), 120, 0.1, 0.3, 0.8))
    assert plain(inspector.conditions.text()) == "(no conditions)"


def test_inspector_charts_have_large_ticks_in_presentation_mode_only(qtbot, small_data):
    from boomer_gui.rules.inspector import RuleInspector

    inspector = RuleInspector()
    qtbot.addWidget(inspector)
    inspector.resize(700, 520)
    inspector.show()
    qtbot.waitExposed(inspector)
    inspector.set_data(small_data)
    record = RuleRecord(3, long_rule(4), 40, 0.5, 0.2, 0.6)
    inspector.show_record(record)

    def tick_px():
        labels = [t for ax in (inspector.head_ax, inspector.freq_ax) for t in ax.get_xticklabels() + ax.get_yticklabels()]
        return min(px(t.get_fontsize(), inspector.figure) for t in labels)

    normal = tick_px()
    assert normal < MIN_TICK_PX  # on screen as before
    inspector.set_presentation(True)
    assert tick_px() >= MIN_TICK_PX
    assert inspector.head_heights()[0] == pytest.approx(0.8)  # the shown rule stays shown
    inspector.canvas.draw()
    renderer = inspector.canvas.get_renderer()
    for ax in (inspector.head_ax, inspector.freq_ax):
        assert inside(ax.get_tightbbox(renderer), inspector.figure.bbox, slack=1)
    assert not overlaps(inspector.head_ax.get_tightbbox(renderer), inspector.freq_ax.bbox)
    inspector.set_presentation(False)
    assert tick_px() == pytest.approx(normal)


def test_the_explanation_shows_a_long_rule_whole(qtbot, small_data):
    from boomer_gui.rules.explanation import ExplanationPanel
    from engine.api import rule_coverage
    from engine.model import RuleModel

    rule = long_rule()
    default = Rule((), np.arange(6), np.full(6, -0.2))
    model = RuleModel([default, rule], n_features=N_CONDITIONS, n_labels=6, schema=small_data.schema)
    panel = ExplanationPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 520)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_context(model, small_data)
    covered = int(np.flatnonzero(np.asarray(rule_coverage(rule, small_data.X)))[0])
    panel.show_example(covered)
    row = next(r for r in range(panel.table.rowCount())
               if panel.table.item(r, 0) is not None and panel.table.item(r, 0).data(Qt.UserRole) == 1)
    body = panel.table.item(row, 1)
    assert body.toolTip() == rule.to_text(small_data.schema)  # the whole rule on hovering the cut cell
    panel.table.setCurrentCell(row, 1)
    text = panel.rule_text.text()
    assert rule.to_text(small_data.schema) in text  # and under the table, word-wrapped
    assert panel.rule_text.wordWrap() and panel.rule_text.isVisible()
    # wrapped within the panel's width, not cut at its right edge
    assert panel.rule_scroll.horizontalScrollBar().maximum() == 0
    assert panel.rule_text.width() <= panel.width()
    qtbot.waitUntil(lambda: panel.rule_scroll.height() > 2 * panel.rule_text.fontMetrics().lineSpacing())
