"""Scrolling a settings panel never changes a setting: a combo box or spin box takes wheel events
only once it has focus (clicked or tabbed into); otherwise the wheel scrolls the enclosing panel."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QWidget

GUARDED = (QComboBox, QAbstractSpinBox)


class WheelGuard(QObject):
    """Event filter: a wheel event over an unfocused guarded widget scrolls its scroll area instead."""

    def eventFilter(self, obj, event) -> bool:
        if event.type() != QEvent.Wheel or not isinstance(obj, GUARDED) or obj.hasFocus():
            return False
        area = obj.parentWidget()
        while area is not None and not isinstance(area, QAbstractScrollArea):
            area = area.parentWidget()
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True  # the setting itself never sees it


_GUARD: WheelGuard | None = None


def guard_wheel(root: QWidget) -> None:
    """Guard every combo box and spin box under ``root`` (call again after adding widgets)."""
    global _GUARD
    if _GUARD is None:
        _GUARD = WheelGuard()
    for widget in root.findChildren(QWidget):
        if isinstance(widget, GUARDED) and not widget.property("wheel_guarded"):
            widget.setFocusPolicy(Qt.StrongFocus)  # no focus by wheel
            widget.installEventFilter(_GUARD)
            widget.setProperty("wheel_guarded", True)
