"""Plain events of the application model: views connect callbacks, the model emits.  No Qt, so
the model is driven and tested without a window; the Qt views connect their slots directly
(everything happens on the GUI thread, workers reach the model through queued signals)."""
from __future__ import annotations

from typing import Callable


class Event:
    """A named event: ``connect(callback)``, ``disconnect(callback)``, ``emit(*args)`` calls every
    connected callback in the order they were connected."""

    def __init__(self, name: str):
        self.name = name
        self._callbacks: list[Callable] = []

    def connect(self, callback: Callable) -> Callable:
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args) -> None:
        for callback in list(self._callbacks):
            callback(*args)

    def __repr__(self) -> str:
        return f"Event({self.name!r}, {len(self._callbacks)} connected)"
