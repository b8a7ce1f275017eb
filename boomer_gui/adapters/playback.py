"""Watchable runs: the steps a learner streams are shown at a chosen speed, one at a time on
request, or replayed from a finished run's records (no retraining).

The learner runs ahead at full speed; :class:`Playback` queues its records and releases them to
the window at ``rate`` steps per second (``None``: as they come).  The same queue replays a
finished run.  Only the pacing lives here; what a released record does is the window's business."""
from __future__ import annotations

import time
from collections import deque

from PySide6.QtCore import QObject, QTimer, Signal

TICK_MS = 40
SPEEDS = (None, 1000, 200, 50, 20, 10, 5, 2, 1)  # steps per second offered (None: unlimited)


class Playback(QObject):
    released = Signal(list)  # records to show now, in order
    drained = Signal()  # the queue became empty after a release

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rate: float | None = None
        self.paused = False
        self.queue: deque = deque()
        self._credit = 0.0
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    @property
    def pending(self) -> int:
        return len(self.queue)

    def feed(self, records) -> None:
        """New records from the learner (or a replay): shown now, or queued for their turn."""
        self.queue.extend(records)
        if self.rate is None and not self.paused:
            self._release(len(self.queue))
        else:
            self._start()

    def set_rate(self, rate: float | None) -> None:
        """Steps per second (None: as fast as they come; what is queued is shown at once)."""
        self.rate = None if rate is None else max(float(rate), 0.1)
        if self.rate is None and not self.paused:
            self._release(len(self.queue))
        else:
            self._start()

    def pause(self) -> None:
        self.paused = True
        self._timer.stop()

    def resume(self) -> None:
        self.paused = False
        if self.rate is None:
            self._release(len(self.queue))
        else:
            self._start()

    def step(self) -> bool:
        """Show the next queued record now (the playback pauses); False if none is queued."""
        self.pause()
        return self._release(1) > 0

    def flush(self) -> None:
        """Show everything queued now."""
        self._timer.stop()
        self._release(len(self.queue))

    def clear(self) -> None:
        self._timer.stop()
        self.queue.clear()

    def _start(self) -> None:
        if self.paused or self.rate is None or not self.queue or self._timer.isActive():
            return
        self._credit = 1.0  # the first record at once, the next ones at the rate
        self._last = time.perf_counter()
        self._tick()
        if self.queue:
            self._timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self.rate is not None:
            self._credit += (now - self._last) * self.rate
        self._last = now
        n = min(int(self._credit), len(self.queue))
        if n:
            self._credit -= n
            self._release(n)
        if not self.queue:
            self._timer.stop()

    def _release(self, n: int) -> int:
        n = min(n, len(self.queue))
        if n <= 0:
            return 0
        batch = [self.queue.popleft() for _ in range(n)]
        self.released.emit(batch)
        if not self.queue:
            self.drained.emit()
        return n
