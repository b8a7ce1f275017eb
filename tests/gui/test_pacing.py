"""While a run streams, the rule table and the live plot take a bounded share of the GUI thread:
they update at their usual pace, or less often where an update costs more (a slow or busy machine)."""
from __future__ import annotations

import numpy as np
from engine.api import RuleRecord
from engine.rules import Rule

from boomer_gui.components.state import RunHistory
from boomer_gui.plots import trajectory_plot as tp
from boomer_gui.rules import rule_table as rt


def test_the_table_repaints_less_often_where_a_repaint_costs_more(qtbot):
    table = rt.RuleTableView()
    qtbot.addWidget(table)
    table.paint_seconds = 0.004  # 4 ms: the usual half second keeps it under 1 %
    assert table.repaint_interval() == rt.REPAINT_INTERVAL_S
    table.paint_seconds = 0.030  # 30 ms: 3 s keeps it at 1 %
    assert abs(table.repaint_interval() - 0.030 / rt.REPAINT_DUTY) < 1e-12
    assert abs(table.repaint_interval() - 3.0) < 1e-9


def _plot_with_live_run(qtbot):
    history = RunHistory()
    plot = tp.TrajectoryPlot(history)
    qtbot.addWidget(plot)
    run = history.new_run("live", "boomer", {})
    plot.add_run(run, live=True)
    rule = Rule((), np.array([0]), np.array([0.0]))
    run.append([RuleRecord(i, rule, 1, 0.0, 0.3, 0.9, 0.3, 0.9) for i in range(3)])
    return plot, run


def test_the_live_plot_updates_less_often_where_an_update_costs_more(qtbot):
    plot, run = _plot_with_live_run(qtbot)
    plot._pace(0.002)  # 2 ms: four updates a second are 0.8 %
    assert plot._flush_soon.timeout() == tp.UPDATE_INTERVAL_MS
    plot._pace(0.006)  # 6 ms: every 600 ms is 1 %
    assert plot._flush_soon.timeout() == 600
    plot._pace(0.5)  # however slow, a second at most
    assert plot._flush_soon.timeout() == tp.MAX_UPDATE_INTERVAL_MS
    plot.finish_run(run)  # no longer streaming: clicks and redraws at the usual pace
    assert plot._flush_soon.timeout() == tp.UPDATE_INTERVAL_MS
    plot._pace(0.5)
    assert plot._flush_soon.timeout() == tp.UPDATE_INTERVAL_MS


def test_a_flush_is_paced_by_its_own_cost_and_a_scheduled_redraw(qtbot):
    plot, run = _plot_with_live_run(qtbot)
    plot.traj_canvas.draw_seconds = 0.010  # the last complete draw took 10 ms
    plot._dirty_full = {0: True, 1: True}  # this flush schedules a complete redraw
    plot._flush()
    assert plot._flush_soon.timeout() >= 1000  # 10 ms / 1 %
