"""The window's layout: the setup panel in a dock on the left, the run bar on top, the shown run's
components (rules or steps) and the table of all runs over the trajectory plot and the details,
and the status bar.  Widgets are created by the window; here they are placed."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDockWidget, QGroupBox, QLabel, QProgressBar, QScrollArea, QSplitter, QStackedWidget,
                               QTabWidget, QToolBar, QVBoxLayout, QWidget)

from boomer_gui.experiment.tab import ExperimentTab
from boomer_gui.panels.wheel_guard import guard_wheel

LOSS_LABEL_WIDTH = 320  # the window must still fit a 1280-pixel projector


def setup_dock(window) -> QDockWidget:
    """Learner and data panels in a scroll area (the wheel scrolls, never changes a setting).  The
    learner comes first: its presets must be in sight on a 1280 x 800 projector (Figure 1 in four
    clicks); the data are loaded at start-up and changed less often."""
    setup = QWidget()
    layout = QVBoxLayout(setup)
    layout.setContentsMargins(4, 4, 4, 4)
    for title, widget in (("Learner", window.learner_panel), ("Data", window.data_panel)):
        box = QGroupBox(title)
        inner = QVBoxLayout(box)
        inner.setContentsMargins(6, 6, 6, 6)
        inner.addWidget(widget)
        layout.addWidget(box)
    layout.addStretch(1)
    scroll = QScrollArea()
    scroll.setWidget(setup)
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    scroll.setMinimumWidth(setup.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
    dock = QDockWidget("Setup", window)
    dock.setObjectName("setup")
    dock.setWidget(scroll)
    dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetFloatable)
    window.addDockWidget(Qt.LeftDockWidgetArea, dock)
    guard_wheel(setup)
    return dock


def run_bar(window) -> QToolBar:
    """Run controls and progress stay visible whatever the setup panel's scroll position."""
    bar = QToolBar("Training", window)
    bar.setObjectName("training")
    bar.setMovable(False)
    bar.addWidget(window.run_controls)
    window.addToolBar(Qt.TopToolBarArea, bar)
    guard_wheel(window.run_controls)
    return bar


def central_area(window) -> None:
    """``top_tabs`` (the shown run's components | all runs) over ``bottom`` (plot | details)."""
    w = window
    w.centre = QStackedWidget()
    w.centre.addWidget(w.browser)
    w.centre.addWidget(w.step_view)
    w.top_tabs = QTabWidget()
    w.top_tabs.addTab(w.centre, "Rules")
    w.top_tabs.addTab(w.run_table, "Runs")
    w.experiment_tab = ExperimentTab()
    w.top_tabs.addTab(w.experiment_tab, "Experiment")
    w.details = QTabWidget()
    for widget, title in ((w.inspector, "Rule inspector"), (w.head_view, "Why this head"),
                          (w.explanation, "Explain a test example"), (w.step_view.inspector, "Step inspector"),
                          (w.step_view.plots, "Learner plots")):
        w.details.addTab(widget, title)
    w.bottom = QSplitter(Qt.Horizontal)
    w.bottom.addWidget(w.plot)
    w.bottom.addWidget(w.details)
    w.bottom.setStretchFactor(0, 1)
    w.bottom.setStretchFactor(1, 1)
    w.bottom.setSizes([560, 640])
    w.splitter = QSplitter(Qt.Vertical)
    w.splitter.addWidget(w.top_tabs)
    w.splitter.addWidget(w.bottom)
    w.splitter.setSizes([400, 500])
    w.setCentralWidget(w.splitter)
    w.top_tabs.currentChanged.connect(lambda _: _experiment_shown(w, w.top_tabs.currentWidget() is w.experiment_tab))


def _experiment_shown(w, shown: bool) -> None:
    """The Experiment tab takes the window: the plot, details and setup are hidden while it shows
    (the setup as it was when it comes back)."""
    w.bottom.setVisible(not shown)
    dock = getattr(w, "setup_dock", None)
    if dock is None or shown == getattr(w, "_setup_hidden_for_experiment", False):
        return
    if shown:
        w._setup_was_visible = dock.isVisible()
        dock.hide()
    elif w._setup_was_visible:
        dock.show()
    w._setup_hidden_for_experiment = shown


def status_bar(window) -> None:
    """The losses on the right, a data-loading progress bar, and the background preparation."""
    w = window
    w.loss_label = QLabel("")
    w.loss_label.setMinimumWidth(LOSS_LABEL_WIDTH)
    w.loss_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
    w.statusBar().addPermanentWidget(w.loss_label)
    w.load_progress = QProgressBar()
    w.load_progress.setRange(0, 1000)
    w.load_progress.setMaximumWidth(200)
    w.load_progress.setFormat("loading %p%")
    w.load_progress.hide()
    w.statusBar().addPermanentWidget(w.load_progress)
    # a normal status bar widget (temporary messages cover it), empty when nothing is prepared
    w.background_label = QLabel("")
    w.background_label.setToolTip("The kernels of every setting the learner panels can reach are compiled once, "
                                  "in a low-priority process (the setting on screen first); a run pauses it. "
                                  "View ▸ Prepare kernels in the background turns it off.")
    w.statusBar().addWidget(w.background_label, 1)
