"""Scrolling the setup panel with the mouse wheel never changes a setting (a wheel event over an
unfocused combo box or spin box scrolls the panel instead)."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget


def _guardable(root):
    return [w for w in root.findChildren(QWidget) if isinstance(w, (QComboBox, QAbstractSpinBox)) and w.isEnabled()]


def _wheel(widget, notches: int) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def _settings(window):
    setup = window.setup_dock.widget().widget()
    return _guardable(setup)


def test_wheel_over_any_setup_widget_changes_nothing(window):
    window.resize(1280, 800)
    widgets = _settings(window)
    assert len(widgets) >= 8  # data panel and learner panel
    before = (window.learner_panel.spec.key, window.learner_panel.params(), window.data_panel.spec.to_dict(),
              [w.currentIndex() if isinstance(w, QComboBox) else w.value() for w in widgets])
    for w in widgets:
        for notches in (-3, 12, -12):
            _wheel(w, notches)
    after = (window.learner_panel.spec.key, window.learner_panel.params(), window.data_panel.spec.to_dict(),
             [w.currentIndex() if isinstance(w, QComboBox) else w.value() for w in widgets])
    assert after == before


def test_wheel_scrolls_the_panel_instead(window, qtbot):
    window.resize(1280, 600)
    bar = window.setup_dock.widget().verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(0)
    _wheel(_settings(window)[0], -3)  # wheel down
    assert bar.value() > 0


def test_the_learner_panel_rebuilt_for_another_learner_is_guarded_too(window):
    window.learner_panel.set_learner("seco")
    widgets = _guardable(window.learner_panel)
    assert widgets and all(w.property("wheel_guarded") for w in widgets)
    before = window.learner_panel.params()
    for w in widgets:
        _wheel(w, 5)
    assert window.learner_panel.params() == before and window.learner_panel.spec.key == "seco"


def test_a_focused_widget_still_takes_the_wheel(window, qtbot):
    combo = window.learner_panel.combo
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    index = combo.currentIndex()
    _wheel(combo, -1)
    assert combo.currentIndex() != index
