"""The runs' legend beside the plots: a compact, scrollable list of the visible runs, each with its
line style (colour, dash and marker, as drawn) and its name; the name's tooltip is the run's whole
name and settings.  It sits outside the axes, so it never covers a curve and costs a redraw nothing;
it serves every plot tab."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QAbstractItemView, QListView, QListWidget, QListWidgetItem

from boomer_gui.components.run_identity import DASH_PATTERNS

_ICONS: dict = {}
LARGE_PX = 15  # the names' type in presentation mode (12 runs' names, two lines each, fit 800 px)
MIN_CELL = 300  # pixels of a name under the plots (more room: more columns)
ROWS_UNDER = 3  # rows of names the band under the plots shows before it scrolls


def _marker(p: QPainter, marker: str, cx: float, cy: float, r: float) -> None:
    pts = {"^": [(0, -1), (1, 0.8), (-1, 0.8)], "v": [(-1, -0.8), (1, -0.8), (0, 1)],
           "D": [(0, -1.1), (1, 0), (0, 1.1), (-1, 0)]}.get(marker)
    if marker == "s":
        p.drawRect(int(cx - r * 0.85), int(cy - r * 0.85), int(1.7 * r), int(1.7 * r))
    elif pts:
        p.drawPolygon(QPolygonF([QPointF(cx + x * r, cy + y * r) for x, y in pts]))
    else:
        p.drawEllipse(QPointF(cx, cy), r, r)


def style_icon(color: str, marker: str, dash: str, width: int = 34, height: int = 14) -> QIcon:
    """An icon of a run's line: its dash pattern in its colour with its marker in the middle
    (``width`` 0: the marker alone)."""
    key = (color, marker, dash, width, height)
    if key not in _ICONS:
        size = max(width, height)
        pix = QPixmap(size, height)
        pix.fill(Qt.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.Antialiasing)
        if width:
            pen = QPen(QColor(color), 2.0)
            pattern = DASH_PATTERNS.get(dash)
            if pattern:
                pen.setDashPattern(list(pattern))
            p.setPen(pen)
            p.drawLine(QPointF(1, height / 2), QPointF(size - 1, height / 2))
        p.setBrush(QColor(color))
        p.setPen(QPen(QColor(color).darker(130), 1))
        _marker(p, marker, size / 2, height / 2, height * 0.32)
        p.end()
        _ICONS[key] = QIcon(pix)
    return _ICONS[key]


class RunLegend(QListWidget):
    """One row per visible run (its style and name); scrolls when the runs do not fit."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("run_legend")
        self.setSelectionMode(QAbstractItemView.NoSelection)
        self.setFocusPolicy(Qt.NoFocus)
        self.setTextElideMode(Qt.ElideRight)  # under the plots a long name is cut with "…" (tooltip: all)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setIconSize(QSize(34, 14))
        self.setStyleSheet("QListWidget#run_legend { border: none; background: transparent; }")
        self._key, self._runs = None, []
        self.large, self.beside = False, True
        self._fit()

    def set_large(self, on: bool) -> None:
        """Presentation mode: larger type and icons, a wider column."""
        self.large = bool(on)
        self._fit()

    def set_beside(self, on: bool) -> None:
        """A column beside the plots (True), or a band under them: full width, at most
        :data:`ROWS_UNDER` rows high, in as many columns as the names allow."""
        self.beside = bool(on)
        self._fit()

    def _fit(self) -> None:
        font = self.font()
        font.setPixelSize(LARGE_PX if self.large else 12)
        self.setFont(font)
        self.setIconSize(QSize(40, 16) if self.large else QSize(34, 14))
        row = self.fontMetrics().height() + 6
        if self.beside:
            self.setFlow(QListView.TopToBottom)
            self.setWrapping(False)
            self.setWordWrap(True)  # a name wraps in the column: whole
            self.setGridSize(QSize())
            self.setMinimumHeight(0)
            self.setMaximumHeight(16777215)
            self.setFixedWidth(self._column_width())
        else:
            self.setMinimumWidth(0)
            self.setMaximumWidth(16777215)
            self.setFlow(QListView.LeftToRight)
            self.setWrapping(True)  # names side by side, in rows
            self.setWordWrap(False)  # one line a name (elided; its tooltip has it all)
            self.setResizeMode(QListView.Adjust)
            self._fit_grid()
        self._key = None
        self.set_runs(self._runs)

    def set_runs(self, runs) -> None:
        """Show ``runs`` (in order), rebuilt only when a name or style changed."""
        self._runs = list(runs)
        key = tuple((r.name, r.color, r.marker, r.dash, r.describe()) for r in runs)
        if key == self._key:
            return
        self._key = key
        if self.beside:
            self.setFixedWidth(self._column_width())
        else:
            self._fit_grid()
        self.clear()
        icon = self.iconSize()
        for run in runs:
            item = QListWidgetItem(style_icon(run.color, run.marker, run.dash, icon.width(), icon.height()), run.name)
            item.setToolTip(run.describe())
            item.setData(Qt.UserRole, id(run))
            self.addItem(item)

    def _fit_grid(self) -> None:
        """Under the plots: as many columns of names as :data:`MIN_CELL` pixels each allow."""
        width = max(self.viewport().width() - 4, 100)
        cell = MIN_CELL * (1.3 if self.large else 1.0)
        columns = max(1, int(width // cell))
        row = self.fontMetrics().height() + 6
        self.setGridSize(QSize(width // columns, row))
        rows = -(-max(len(self._runs), 1) // columns)  # as many rows as the names need, up to ROWS_UNDER
        self.setFixedHeight(min(rows, ROWS_UNDER) * row + 6)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self.beside:
            self._fit_grid()

    def _column_width(self) -> int:
        """Beside the plots: as wide as the longest name needs, at most 280 (presentation) or 220 px."""
        widest = max((self.fontMetrics().horizontalAdvance(r.name) for r in self._runs), default=0)
        need = widest + self.iconSize().width() + 2 * self.spacing() + 24
        return int(min(280 if self.large else 220, max(need, 120)))

    def names(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]
