"""First use: the run controls are always visible (a toolbar, not below the setup panel's fold)
and the empty trajectory plot shows the full loss ranges."""
from __future__ import annotations


def test_run_controls_are_in_the_toolbar_and_visible_at_1280x800(window, qtbot):
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.run_controls.start_button.isVisible())
    assert window.run_controls.parent() is not None
    assert window.run_bar.isVisible() and not window.run_bar.isMovable()
    # the start button lies inside the window, whatever the setup panel's scroll position
    pos = window.run_controls.start_button.mapTo(window, window.run_controls.start_button.rect().bottomRight())
    assert 0 < pos.x() <= window.width() and 0 < pos.y() <= 120
    setup = window.setup_dock.widget()
    setup.verticalScrollBar().setValue(setup.verticalScrollBar().maximum())
    assert window.run_controls.start_button.isVisible() and window.run_controls.progress.isVisible()


def test_the_empty_plot_spans_the_full_loss_ranges(window):
    window.plot._autoscale(0)
    x0, x1 = window.plot.traj_ax.get_xlim()
    y0, y1 = window.plot.traj_ax.get_ylim()
    assert (x0, y0) == (0.0, 0.0) and x1 >= 0.5 and y1 >= 1.0
    assert window.plot.bayes is not None  # the Bayes star is drawn, but does not set the zoom
