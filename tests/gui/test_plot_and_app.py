"""Run list (hide/remove), several runs overlaid, the command line and the benchmark helpers."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from boomer_gui.app import initial_spec, parse_args


def test_runs_overlay_hide_and_remove(qtbot, make_window, train):
    from boomer_gui.panels.run_table import COL_SHOW

    window = make_window(max_rules=20)
    assert train(window) == "finished"
    window.learner_panel.apply_preset("Example-wise, multi-label heads")
    assert train(window) == "finished"
    plot, model = window.plot, window.run_model
    first, second = window.history.runs
    assert (first.color, first.marker) != (second.color, second.marker) and model.rowCount() == 2
    assert "example-wise logistic, multi-label heads (paper)" in second.name
    lines = plot.lines_of(first)
    box = model.index(0, COL_SHOW)
    assert model.setData(box, Qt.Unchecked, Qt.CheckStateRole)  # hide
    assert not first.visible and not lines.test.get_visible()
    assert model.setData(box, Qt.Checked, Qt.CheckStateRole)
    assert first.visible and lines.test.get_visible()
    window.run_table.view.selectRow(0)  # selecting shows the first run's rules
    assert window.run is first
    window.run_table.remove_button.click()
    assert window.history.runs == [second] and model.rowCount() == 1
    assert lines.test.axes is None  # its artists left the figure
    assert window.run is None and window.table_model.rowCount() == 0  # its rules left the screen
    plot.draw_now()
    assert len(plot.lines_of(second).test.get_xdata()) == len(second) == 20


def test_live_plot_stays_current(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 10, timeout=300_000)
    n = window.table_model.rowCount()
    assert len(window.plot.lines_of(window.run).test.get_xdata()) == len(window.run) >= n
    qtbot.waitUntil(lambda: window.plot.traj_canvas.full_draws >= 1, timeout=5000)
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active, timeout=5000)


def test_command_line():
    spec = initial_spec(parse_args([]))
    assert spec.kind == "synthetic" and spec.synthetic == "conditional-dependence"
    assert spec.test_mode == "generated" and spec.n_examples == spec.n_test == 2000
    spec = initial_spec(parse_args(["--synthetic", "marginal-dependence", "--examples", "500"]))
    assert spec.synthetic == "marginal-dependence" and spec.n_examples == 500
    spec = initial_spec(parse_args(["data.csv", "--labels", "a, b", "--test", "t.csv"]))
    assert spec.kind == "file" and spec.label_columns == ["a", "b"] and spec.test_mode == "file"


def test_bench_helpers(qapp, tmp_path):
    from boomer_gui.tools import bench

    data, desc = bench.bench_data(tmp_path / "absent.svm")
    assert (data.full.n_examples, data.full.n_features, data.full.n_labels) == (2417, 103, 14)
    assert "random stand-in" in desc
    full, live = bench.plot_update_time(qapp, n_rules=200, repeats=2)
    assert full > 0 and live > 0
    assert np.isfinite(full)


def test_screenshot_command_grabs_the_window_mid_training(qapp, tmp_path):
    from PySide6.QtGui import QImage

    from boomer_gui.tools import screenshot

    out = tmp_path / "shot.png"
    assert screenshot.main([str(out), "--rules", "12", "--select", "3", "--size", "1200x800"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    # not a blank grab: the window's widgets put many distinct colours on it
    colours = {image.pixel(x, y) for x in range(0, 1200, 37) for y in range(0, 800, 23)}
    assert len(colours) > 20
    with pytest.raises(SystemExit):
        screenshot.parse_args(["--rules", "5", "--select", "5"])
