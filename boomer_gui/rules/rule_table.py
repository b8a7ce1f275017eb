"""The rule table: a model of rule records, a filtering proxy, a head delegate and the view.

Rows are appended in batches (one ``beginInsertRows`` per batch); texts are formatted lazily
and cached, so tens of thousands of rules stream without lag.  Column 0 is the "on" checkbox
of the what-if analysis; it is checkable only while a finished model is attached."""
from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
from PySide6.QtCore import (QAbstractTableModel, QLine, QModelIndex, QPointF, QRect, QSortFilterProxyModel, Qt, QTimer,
                            Signal)
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap, QStaticText, QTransform
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QStyle, QStyledItemDelegate, QStyleOptionViewItem,
                               QTableView)

from engine.rules import Schema

COLUMNS = ("on", "#", "body", "head", "coverage", "improvement", "train H", "train 0/1", "test H", "test 0/1")
COL_ON, COL_INDEX, COL_BODY, COL_HEAD, COL_COVERAGE, COL_IMPROVEMENT, COL_TRH, COL_TRS, COL_TEH, COL_TES = range(10)
_LOSS_FIELDS = {COL_TRH: "train_hamming", COL_TRS: "train_subset", COL_TEH: "test_hamming", COL_TES: "test_subset"}
_TOOLTIPS = {
    COL_ON: "Switch the rule off to see the losses without it (what-if; needs a finished run)",
    COL_HEAD: "Strongest labels of the head; the bars show the score of every label",
    COL_COVERAGE: "Training examples covered by the rule",
    COL_IMPROVEMENT: "Decrease of the training objective achieved by the rule",
    COL_TRH: "Hamming loss on the training data after this rule",
    COL_TRS: "Subset 0/1 loss on the training data after this rule",
    COL_TEH: "Hamming loss on the test data after this rule",
    COL_TES: "Subset 0/1 loss on the test data after this rule",
}
# Roles as plain ints: comparing an int with a Qt enum costs microseconds in PySide6, and data()
# is called thousands of times per repaint.
DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
CHECK = int(Qt.ItemDataRole.CheckStateRole.value)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
RecordRole = int(Qt.ItemDataRole.UserRole.value) + 1
HeadRole = RecordRole + 1
SortRole = RecordRole + 2
RevisionRole = RecordRole + 3  # the revision steps (post-optimization) that changed a row's rule, oldest first
_ROLES = frozenset((DISPLAY, CHECK, ALIGN, TOOLTIP, RecordRole, HeadRole, SortRole, RevisionRole))
REVISED = "↻"  # the "#" cell of a revised rule: "12 ↻2" (revised twice)
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_HORIZONTAL = Qt.Orientation.Horizontal
_LEFT = int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter).value)
_CHECKED, _UNCHECKED = Qt.CheckState.Checked, Qt.CheckState.Unchecked
_SELECTED = int(QStyle.StateFlag.State_Selected.value)
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_CHECKABLE = _FLAGS | Qt.ItemFlag.ItemIsUserCheckable
_NO_PEN = Qt.PenStyle.NoPen
_NO_BRUSH = Qt.BrushStyle.NoBrush
_ELIDE = Qt.TextElideMode.ElideRight
_PLAIN = Qt.TextFormat.PlainText
_IDENTITY = QTransform()
_ALTERNATE = int(QStyleOptionViewItem.ViewItemFeature.Alternate.value)
HEAD_LABELS_SHOWN = 3
ROW_HEIGHT = 22
REPAINT_INTERVAL_S = 0.5  # while rules stream in, the table repaints at most twice a second ...
REPAINT_DUTY = 0.01  # ... and spends at most 1 % of the GUI thread's time repainting (slow machines wait longer)

STRONG_SHARE = 0.5  # the label filter's "strongly": at least half the head's largest |score|


def _fmt(x, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


class RuleTableModel(QAbstractTableModel):
    """Rule records in learning order."""

    activeToggled = Signal(int, bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.records: list = []
        self.schema = Schema()
        self.n_labels = 0
        self.active = np.ones(0, dtype=bool)
        self.checkable = False
        self._body: list = []  # cached texts, None until shown
        self._head: list = []
        self._dense: list = []
        self._attrs: list = []
        self._strong: list = []
        self._search: list = []
        self._cells: list = []
        self._max_abs = 0.0
        self.generation = 0  # bumped when rows are removed or replaced (delegates drop their caches)
        self.step_columns: tuple = ()  # the learner's own numbers per step, as extra columns
        self.improvement_help = _TOOLTIPS[COL_IMPROVEMENT]
        self.revisions: dict = {}  # row -> the revision steps that replaced its rule, in order

    # -- filling ------------------------------------------------------------------------------
    def set_schema(self, schema: Schema | None, n_labels: int) -> None:
        self.schema = schema or Schema()
        self.n_labels = int(n_labels)

    def clear(self) -> None:
        self.generation += 1
        self.beginResetModel()
        self.records = []
        self.active = np.ones(0, dtype=bool)
        self.checkable = False
        self._body, self._head, self._dense, self._attrs, self._strong, self._search = [], [], [], [], [], []
        self._cells = []
        self._max_abs = 0.0
        self.revisions = {}
        self.endResetModel()

    def append(self, records: list) -> None:
        """Add the rules of some learning steps, one row per rule of the model (a step may add
        several rules, e.g. both sides of a stump: each gets its own row, with the step's
        losses; only the step's first rule has a known coverage).  A revision step (post-optimization)
        adds no row: it changes the row of the rule it revises (:meth:`revise`)."""
        if any(getattr(r, "kind", "") == "revision" for r in records):
            start = 0
            for i, rec in enumerate(records):
                if getattr(rec, "kind", "") == "revision":
                    self.append(records[start:i])
                    self.revise(rec)
                    start = i + 1
            return self.append(records[start:])
        records = self._rows_of(records)
        if not records:
            return
        first = len(self.records)
        self.beginInsertRows(QModelIndex(), first, first + len(records) - 1)
        self.records.extend(records)
        n = len(records)
        for cache in (self._body, self._head, self._dense, self._attrs, self._strong, self._search, self._cells):
            cache.extend([None] * n)
        self.active = np.concatenate([self.active, np.ones(n, dtype=bool)])
        for r in records:
            if r.rule.conditions and len(r.rule.head_scores):  # the default rule would flatten the others
                self._max_abs = max(self._max_abs, float(np.max(np.abs(r.rule.head_scores))))
        self.endInsertRows()

    def revise(self, revision) -> None:
        """A revision step replaced the rule of row ``revision.revises``: the row shows the new rule,
        with the step's coverage, improvement and losses, and is marked (``#`` column, tooltip,
        :data:`RevisionRole`)."""
        row = int(revision.revises)
        if not 0 <= row < len(self.records):
            return
        self.records[row] = replace(self.records[row], rule=revision.rule, coverage=revision.coverage,
                                    improvement=revision.improvement, train_hamming=revision.train_hamming,
                                    train_subset=revision.train_subset, test_hamming=revision.test_hamming,
                                    test_subset=revision.test_subset)
        self.revisions.setdefault(row, []).append(revision)
        for cache in (self._body, self._head, self._dense, self._attrs, self._strong, self._search, self._cells):
            cache[row] = None
        if revision.rule.conditions and len(revision.rule.head_scores):
            self._max_abs = max(self._max_abs, float(np.max(np.abs(revision.rule.head_scores))))
        self.generation += 1  # a row's texts and bars changed: the delegates drop their caches
        self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))

    def revision_text(self, row: int) -> str:
        """What the revisions of ``row`` replaced, for its tooltip ('' if it was not revised)."""
        steps = self.revisions.get(row)
        if not steps:
            return ""
        lines = [f"Revised {len(steps)}× by post-optimization (relearned in the context of the other rules):"]
        lines += [f"step {r.index} (pass {r.iteration}) replaced: {r.old_rule.to_text(self.schema)}" for r in steps]
        return "\n".join(lines)

    def _rows_of(self, records: list) -> list:
        rows = []
        n = len(self.records)
        for rec in records:
            rules = getattr(rec, "rules", None) or (rec.rule,)
            for j, rule in enumerate(rules):
                index = n + len(rows)
                if j == 0 and rec.index == index and len(rules) == 1:
                    rows.append(rec)
                else:  # a row of its own: the model's rule index, its rule, the step's losses
                    extra = {"extra_rules": (), "extra_coverage": ()} if hasattr(rec, "extra_rules") else {}
                    more = getattr(rec, "extra_coverage", ())
                    coverage = rec.coverage if j == 0 else (more[j - 1] if j - 1 < len(more) else -1)
                    rows.append(replace(rec, index=index, rule=rule, coverage=coverage, **extra))
        return rows

    def set_checkable(self, checkable: bool) -> None:
        self.checkable = bool(checkable)
        if self.records:
            self.dataChanged.emit(self.index(0, COL_ON), self.index(len(self.records) - 1, COL_ON))

    @property
    def head_scale(self) -> float:
        """Largest absolute head score of the rules other than the default rule (bar scale)."""
        return self._max_abs or 1.0

    # -- cached per-row facts ---------------------------------------------------------------
    def cells(self, row: int) -> tuple:
        """The display texts of a row (None for the checkbox column), formatted once."""
        c = self._cells[row]
        if c is None:
            rec = self.records[row]
            extra = getattr(rec, "extra", None) or {}
            revised = len(self.revisions.get(row, ()))
            c = (None, f"{rec.index} {REVISED}{revised}" if revised else str(rec.index),
                 self.body_text(row) if rec.rule.conditions else "{} (default rule)",
                 self.head_text(row), str(rec.coverage) if rec.coverage >= 0 else "–", _fmt(rec.improvement, 3),
                 *(_fmt(getattr(rec, _LOSS_FIELDS[k])) for k in (COL_TRH, COL_TRS, COL_TEH, COL_TES)),
                 *(_fmt(extra.get(m.name), 4) for m in self.step_columns))
            self._cells[row] = c
        return c

    def body_text(self, row: int) -> str:
        t = self._body[row]
        if t is None:
            t = self.records[row].rule.body_text(self.schema)
            self._body[row] = t
        return t

    def head_text(self, row: int) -> str:
        t = self._head[row]
        if t is None:
            t = self.records[row].rule.head_text(self.schema, max_labels=HEAD_LABELS_SHOWN)
            self._head[row] = t
        return t

    def dense_head(self, row: int) -> np.ndarray:
        h = self._dense[row]
        if h is None:
            h = self.records[row].rule.dense_head(self.n_labels)
            self._dense[row] = h
        return h

    def attributes(self, row: int) -> frozenset:
        a = self._attrs[row]
        if a is None:
            a = frozenset(c.attribute for c in self.records[row].rule.conditions)
            self._attrs[row] = a
        return a

    def predicted_labels(self, row: int, strong: bool = False) -> frozenset:
        """The labels the rule's head scores (any non-zero score), or with ``strong`` the labels it
        is about: scored at least ``STRONG_SHARE`` of the head's largest absolute score (a single-label
        head's label; a complete head, which scores every label, its strongest ones)."""
        cached = self._strong[row]
        if cached is None:
            rule = self.records[row].rule
            scores = np.abs(np.asarray(rule.head_scores, dtype=float))
            top = scores.max() if scores.size else 0.0
            cached = (frozenset(int(k) for k, v in zip(rule.head_labels, scores) if v != 0),
                      frozenset(int(k) for k, v in zip(rule.head_labels, scores) if v != 0 and v >= STRONG_SHARE * top))
            self._strong[row] = cached
        return cached[1] if strong else cached[0]

    def search_text(self, row: int) -> str:
        t = self._search[row]
        if t is None:
            rule = self.records[row].rule
            t = (self.body_text(row) + " " + rule.head_text(self.schema)).lower()
            self._search[row] = t
        return t

    # -- Qt model interface ---------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS) + len(self.step_columns)

    def set_step_columns(self, metrics, improvement: str | None = None) -> None:
        """The learner's own numbers per step (``Metric``s of ``RuleRecord.extra``) as extra columns,
        and what its 'improvement' means (the column's tooltip)."""
        metrics = tuple(metrics)
        self.improvement_help = improvement or _TOOLTIPS[COL_IMPROVEMENT]
        if metrics == self.step_columns:
            return
        self.beginResetModel()
        self.step_columns = metrics
        self._cells = [None] * len(self.records)
        self.generation += 1
        self.endResetModel()

    def headerData(self, section, orientation, role=DISPLAY):
        if role != DISPLAY and role != TOOLTIP or not 0 <= section < self.columnCount() or orientation != _HORIZONTAL:
            return None
        if section >= len(COLUMNS):
            m = self.step_columns[section - len(COLUMNS)]
            return m.label if role == DISPLAY else f"{m.name}: the learner's own number for the step that added the rule"
        if role == TOOLTIP and section == COL_IMPROVEMENT:
            return self.improvement_help
        return COLUMNS[section] if role == DISPLAY else _TOOLTIPS.get(section)

    def flags(self, index):
        if not index.isValid():
            return _NO_FLAGS
        return _CHECKABLE if self.checkable and index.column() == COL_ON else _FLAGS

    def data(self, index, role=DISPLAY):
        if role not in _ROLES or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if row >= len(self.records):
            return None
        rec = self.records[row]
        if role == DISPLAY:
            return self.cells(row)[col]
        if role == ALIGN:
            return None if col in (COL_BODY, COL_HEAD, COL_ON) else _RIGHT
        if role == CHECK:
            return (_CHECKED if self.active[row] else _UNCHECKED) if col == COL_ON else None
        if role == HeadRole:
            return self.dense_head(row) if col == COL_HEAD else None
        if role == RecordRole:
            return rec
        if role == TOOLTIP:
            text = rec.rule.to_text(self.schema) if col in (COL_BODY, COL_HEAD) else None
            if row in self.revisions and col in (COL_INDEX, COL_BODY, COL_HEAD):
                text = "\n\n".join(t for t in (text, self.revision_text(row)) if t)
            return text
        if role == RevisionRole:
            return tuple(self.revisions.get(row, ()))
        # SortRole
        if col in (COL_ON, COL_INDEX):
            return float(rec.index) if col == COL_INDEX else float(self.active[row])
        if col == COL_BODY:
            return self.body_text(row)
        if col == COL_HEAD:
            return float(np.max(np.abs(rec.rule.head_scores))) if len(rec.rule.head_scores) else 0.0
        if col == COL_COVERAGE:
            return float(rec.coverage)
        if col >= len(COLUMNS):
            value = (getattr(rec, "extra", None) or {}).get(self.step_columns[col - len(COLUMNS)].name)
            return -math.inf if value is None or math.isnan(value) else float(value)
        value = rec.improvement if col == COL_IMPROVEMENT else getattr(rec, _LOSS_FIELDS[col])
        return -math.inf if value is None or math.isnan(value) else float(value)

    def setData(self, index, value, role=Qt.EditRole):
        if not (index.isValid() and index.column() == COL_ON and role == CHECK and self.checkable):
            return False
        on = value in (Qt.Checked, Qt.Checked.value, 2, True)
        row = index.row()
        if bool(self.active[row]) == on:
            return True
        self.active[row] = on
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.activeToggled.emit(row, on)
        return True


class RuleFilterProxy(QSortFilterProxyModel):
    """Filter rules by a label in their head, an attribute in their body and free text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label: int | None = None
        self.attribute: int | None = None
        self.text = ""
        self.strong = True  # the label filter matches labels the head scores strongly, not any score
        self.identity = True  # no filter and no sorting: proxy rows are source rows (a fast path)
        self.setSortRole(SortRole)
        self.setDynamicSortFilter(True)

    def sort(self, column, order=Qt.AscendingOrder):
        super().sort(column, order)
        self._update_identity()

    def _update_identity(self):
        self.identity = not self.filtering and self.sortColumn() < 0

    def set_filters(self, label: int | None = None, attribute: int | None = None, text: str = "",
                    strong: bool | None = None) -> None:
        def assign():
            self.label, self.attribute, self.text = label, attribute, (text or "").strip().lower()
            self.strong = self.strong if strong is None else bool(strong)

        if hasattr(self, "beginFilterChange"):  # Qt >= 6.9
            self.beginFilterChange()
            assign()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:  # pragma: no cover - older Qt
            assign()
            self.invalidateFilter()
        self._update_identity()

    def set_label(self, label):
        self.set_filters(label, self.attribute, self.text)

    def set_attribute(self, attribute):
        self.set_filters(self.label, attribute, self.text)

    def set_text(self, text):
        self.set_filters(self.label, self.attribute, text)

    @property
    def filtering(self) -> bool:
        return self.label is not None or self.attribute is not None or bool(self.text)

    def filterAcceptsRow(self, row, parent):
        if not self.filtering:
            return True
        m = self.sourceModel()
        if self.label is not None and self.label not in m.predicted_labels(row, self.strong):
            return False
        if self.attribute is not None and self.attribute not in m.attributes(row):
            return False
        if self.text and self.text not in m.search_text(row):
            return False
        return True


class TextDelegate(QStyledItemDelegate):
    """Paints a cell's background and its text directly, with the laid-out text cached as
    QStaticText: one Python call per cell instead of the eight data()/flags() calls of a
    style-drawn item, and no text layout when a row is painted again.  This matters while rules
    stream in and the view repaints several times a second."""

    CACHE_LIMIT = 30000

    def __init__(self, parent=None):
        super().__init__(parent)
        self._static: dict = {}
        self._seen: set = set()  # cells painted once, not laid out yet
        self._generation = None
        self._colors = None

    def _source_row(self, index):
        model = index.model()
        if isinstance(model, RuleFilterProxy) and model.identity:
            source, row = model.sourceModel(), index.row()
        elif isinstance(model, QSortFilterProxyModel):
            source, row = model.sourceModel(), model.mapToSource(index).row()
        else:
            source, row = model, index.row()
        if not isinstance(source, RuleTableModel) or not 0 <= row < len(source.records):
            return None, -1
        self.sync(source)
        return source, row

    def sync(self, source) -> bool:
        """Drop the cached texts when the model's rows were replaced (or the cache is full); True if so."""
        full = len(self._static) + len(self._seen) > self.CACHE_LIMIT
        if full or self._generation != (id(source), source.generation):
            self._generation = (id(source), source.generation)
            self._static.clear()
            self._seen.clear()
            return True
        return False

    def set_palette(self, p) -> None:
        """(highlight, alternate base, highlighted text, text) colours of ``p``."""
        self._colors = (p.highlight(), p.alternateBase(), p.highlightedText().color(), p.text().color())

    def _background(self, painter, option, rect) -> bool:
        if self._colors is None:
            self.set_palette(option.palette)
        selected = bool(option.state.value & _SELECTED)
        if selected:
            painter.fillRect(rect, self._colors[0])
        elif option.features.value & _ALTERNATE:
            painter.fillRect(rect, self._colors[1])
        return selected

    def draw_text(self, painter, fm, rect: QRect, key, text: str, selected: bool, right: bool) -> None:
        """Draw a cell's text, elided to ``rect``, from the cache of laid-out texts."""
        width = rect.width()
        k = (key, width)
        st = self._static.get(k)
        if st is None and k not in self._seen:
            # First paint of a cell (while rules stream in, most cells are painted once): one
            # C++ call lays out, aligns and draws; the laid-out text is kept from the second on.
            self._seen.add(k)
            painter.setPen(self._colors[2] if selected else self._colors[3])
            if right:
                painter.drawText(rect, _RIGHT, text)
            else:
                painter.drawText(rect, _LEFT, fm.elidedText(text, _ELIDE, width))
            return
        if st is None:
            # The advance is measured once and serves for eliding and right alignment; the
            # layout happens at the first draw.
            w = fm.horizontalAdvance(text)
            if w > width:
                text = fm.elidedText(text, _ELIDE, width)
                w = width
            static = QStaticText(text)
            static.setTextFormat(_PLAIN)
            if right:  # the exact (fractional) width, so the text sits where drawText put it
                static.prepare(_IDENTITY, painter.font())
                w = static.size().width()
            self._static[k] = st = (static, w, fm.height())
        static, w, h = st
        painter.setPen(self._colors[2] if selected else self._colors[3])
        x = rect.left() + width - w if right else rect.left()
        painter.drawStaticText(QPointF(x, rect.top() + (rect.height() - h) / 2), static)

    def paint(self, painter, option, index):
        source, row = self._source_row(index)
        if source is None:
            return super().paint(painter, option, index)
        col = index.column()
        r = option.rect
        selected = self._background(painter, option, r)
        rect = QRect(r.left() + 4, r.top(), max(0, r.width() - 8), r.height())
        self.draw_text(painter, option.fontMetrics, rect, (row, col), source.cells(row)[col] or "", selected,
                       col != COL_BODY)

    def clear_cache(self) -> None:
        self._static.clear()
        self._seen.clear()
        self._colors = None


class HeadDelegate(TextDelegate):
    """Draws one small bar per label (green up for positive, red down for negative scores)
    to the left of the text of the strongest labels."""

    POS = QColor(0, 114, 178)  # colour-blind safe (Okabe & Ito): blue up, vermillion down
    NEG = QColor(213, 94, 0)
    AXIS = QColor(160, 160, 160)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bar_width = 3
        self._bars: dict = {}  # the bar geometry per row, scale and size

    def sync(self, source) -> bool:
        dropped = super().sync(source)
        if dropped:
            self._bars.clear()
        return dropped

    def clear_cache(self) -> None:
        super().clear_cache()
        self._bars.clear()

    def strip_width(self, n_labels: int) -> int:
        return min(160, max(1, n_labels) * (self.bar_width + 1)) + 6

    def paint(self, painter, option, index):
        source, row = self._source_row(index)
        if source is None:
            return QStyledItemDelegate.paint(self, painter, option, index)
        rect: QRect = option.rect
        selected = self._background(painter, option, rect)
        self.draw_head(painter, option.fontMetrics, rect, source, row, selected)

    def draw_head(self, painter, fm, rect: QRect, source, row: int, selected: bool) -> None:
        """The bar strip over all labels and the strongest labels' text (background painted)."""
        head = source.dense_head(row)
        K = len(head)
        strip = self.strip_width(K) if K else 0
        if K:
            mid = rect.top() + rect.height() // 2
            left = rect.left() + 3
            painter.setPen(QPen(self.AXIS, 1))
            painter.drawLine(left, mid, rect.left() + strip - 3, mid)
            painter.setPen(_NO_PEN)
            up, down = self.bars(row, head, source.head_scale, strip - 6, rect.height() // 2 - 3)
            painter.translate(left, mid)
            if up:
                painter.setBrush(self.POS)
                painter.drawRects(up)
            if down:
                painter.setBrush(self.NEG)
                painter.drawRects(down)
            painter.translate(-left, -mid)
            painter.setBrush(_NO_BRUSH)
        text_rect = QRect(rect.left() + strip + 3, rect.top(), max(0, rect.width() - strip - 6), rect.height())
        self.draw_text(painter, fm, text_rect, (row, COL_HEAD), source.head_text(row), selected, False)

    def bars(self, row: int, head: np.ndarray, scale: float, width: int, half: int) -> tuple[list, list]:
        """The positive and the negative bars within ``width`` pixels, relative to the strip's axis
        (up from it, and down from the pixel below it), at most ``half`` pixels high.  With
        more labels than the strip has room for (2 pixels each), neighbouring labels share a bar,
        the one of the largest absolute score among them."""
        K = len(head)
        key = (row, scale, width, half)
        cached = self._bars.get(key)
        if cached is not None:
            return cached
        if K * (self.bar_width + 1) <= width:
            values, bar = head, self.bar_width
        else:
            slots = max(1, min(K, width // 2))
            starts = (np.arange(slots) * K) // slots
            magnitude = np.abs(head)
            pick = starts + np.array([int(np.argmax(magnitude[a:b])) for a, b in
                                      zip(starts, np.append(starts[1:], K))]) if slots < K else starts
            values, bar = head[pick], max(1, width // slots - 1)
        heights = np.maximum(1, np.rint(np.minimum(1.0, np.abs(values) / scale) * half)).astype(int)
        xs = np.arange(len(values)) * (bar + 1)
        up = [QRect(int(x), -int(h), bar, int(h)) for x, h, v in zip(xs, heights, values) if v > 0]
        down = [QRect(int(x), 1, bar, int(h)) for x, h, v in zip(xs, heights, values) if v < 0]
        if len(self._bars) > self.CACHE_LIMIT:
            self._bars.clear()
        self._bars[key] = up, down
        return up, down


class RuleTableView(QTableView):
    """Fixed row heights; follows the newest rule unless the user scrolled away or selected one."""

    ruleSelected = Signal(object)  # a RuleRecord, or None
    row_painter = True  # paint whole rows in paintEvent (False: Qt's per-cell delegate painting)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.ExtendedSelection)  # several rules for Ctrl+C
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.ElideRight)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)
        vh = self.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.Fixed)
        vh.setDefaultSectionSize(ROW_HEIGHT)
        vh.setMinimumSectionSize(ROW_HEIGHT)
        vh.hide()
        hh = self.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.Interactive)
        hh.setStretchLastSection(False)
        hh.setHighlightSections(False)
        self.text_delegate = TextDelegate(self)
        self.head_delegate = HeadDelegate(self)
        for col in range(len(COLUMNS)):
            if col != COL_ON:
                self.setItemDelegateForColumn(col, self.head_delegate if col == COL_HEAD else self.text_delegate)
        self.follow = True
        self._was_at_bottom = True
        self._last_repaint = 0.0
        self._holding = False
        self._follow_pending = False
        self._repaint_timer = QTimer(self)
        self._repaint_timer.setSingleShot(True)
        self._repaint_timer.timeout.connect(self._release_repaint)
        self._check_key, self._check_pixmaps = None, {}
        self.paint_seconds = 0.0  # the last complete repaint of the rows (the cost a held repaint saves)

    def repaint_interval(self) -> float:
        """Seconds between repaints while rows stream in: REPAINT_INTERVAL_S, or longer where a
        repaint costs more than REPAINT_DUTY of that (a slow or busy machine), so the table never
        takes the GUI thread, and with it the learner's Python, from the run."""
        return max(REPAINT_INTERVAL_S, self.paint_seconds / REPAINT_DUTY)

    # -- painting ------------------------------------------------------------------------------
    def paintEvent(self, event):
        """Paint the visible rows in one Python call: per-cell delegate calls cost ~25 µs each
        in PySide6, and while rules stream in the view repaints a screenful of new rows twice a
        second.  Other models fall back to Qt's painting."""
        model = self.model()
        source = model.sourceModel() if isinstance(model, QSortFilterProxyModel) else model
        if not self.row_painter or not isinstance(source, RuleTableModel):
            return super().paintEvent(event)  # per-cell painting through the delegates
        painter = QPainter(self.viewport())
        start = time.perf_counter()
        try:
            self._paint_rows(painter, event.rect(), model, source)
        finally:
            painter.end()
        if event.rect().height() >= self.viewport().height() // 2:  # a repaint of the rows, not of a cell
            self.paint_seconds = time.perf_counter() - start

    def _paint_rows(self, painter, clip: QRect, model, source) -> None:
        n = model.rowCount()
        if n == 0:
            return
        first = self.rowAt(clip.top())
        if first < 0:
            first = 0 if clip.top() < self.rowViewportPosition(0) else n
        last = self.rowAt(clip.bottom())
        last = n - 1 if last < 0 else last
        columns = []
        for col in range(source.columnCount()):  # the learner's step columns too
            if self.isColumnHidden(col):
                continue
            x, w = self.columnViewportPosition(col), self.columnWidth(col)
            if w > 0 and x + w > clip.left() and x <= clip.right():
                columns.append((col, x, w))
        text, head = self.text_delegate, self.head_delegate
        palette = self.palette()
        text.set_palette(palette)
        head.set_palette(palette)
        text.sync(source)
        head.sync(source)
        highlight, alternate = text._colors[0], text._colors[1]
        fm = self.fontMetrics()
        selected_rows = {i.row() for i in self.selectionModel().selectedRows()} if self.selectionModel() else set()
        identity = isinstance(model, RuleFilterProxy) and model.identity or model is source
        check, check_states = self._check_option(source.checkable)
        style = self.style()
        grid = QColor.fromRgba(style.styleHint(QStyle.SH_Table_GridLineColor, check, self) & 0xFFFFFFFF) \
            if self.showGrid() else None
        g = 1 if grid is not None else 0  # cells exclude the grid line, as in Qt's own painting
        width = columns[-1][1] + columns[-1][2] if columns else 0
        boxes = self._check_boxes(check, check_states, [c for c in columns if c[0] == COL_ON], g)
        alternating = self.alternatingRowColors()
        for r in range(first, last + 1):
            y, h = self.rowViewportPosition(r), self.rowHeight(r) - g
            row = r if identity else model.mapToSource(model.index(r, 0)).row()
            if not 0 <= row < len(source.records):
                continue
            selected = r in selected_rows
            if selected:
                painter.fillRect(QRect(0, y, width, h), highlight)
            elif r & 1 and alternating:
                painter.fillRect(QRect(0, y, width, h), alternate)
            cells = source.cells(row)
            for col, x, w in columns:
                w -= g
                if col == COL_ON:
                    at, pixmaps = boxes
                    painter.drawPixmap(at.x(), y + at.y(), pixmaps[(bool(source.active[row]), selected)])
                elif col == COL_HEAD:
                    head.draw_head(painter, fm, QRect(x, y, w, h), source, row, selected)
                else:
                    text.draw_text(painter, fm, QRect(x + 4, y, max(0, w - 8), h), (row, col), cells[col] or "",
                                   selected, col != COL_BODY)
        if grid is not None:
            painter.setPen(grid)
            bottom = self.rowViewportPosition(last) + self.rowHeight(last) - 1 if last >= first else clip.bottom()
            lines = [QLine(x + w - 1, clip.top(), x + w - 1, bottom) for col, x, w in columns]
            for r in range(first, last + 1):
                y = self.rowViewportPosition(r) + self.rowHeight(r) - 1
                lines.append(QLine(0, y, width - 1, y))
            painter.drawLines(lines)

    def _check_boxes(self, check, states, on_column, g):
        """(where the indicator sits in a row at y = 0, its pixmap per (on, selected)) for the "on"
        column, drawn by the style once per state, size and pixel ratio rather than once per row."""
        if not on_column:
            return None
        _, x, w = on_column[0]
        check.rect = QRect(x, 0, w - g, self.rowHeight(0) - g if self.model().rowCount() else ROW_HEIGHT - g)
        at = self.style().subElementRect(QStyle.SE_ItemViewItemCheckIndicator, check, self)
        ratio = self.devicePixelRatioF()
        key = (at.width(), at.height(), ratio, int(check.state.value), tuple(int(f.value) for f in states.values()),
               self.palette().cacheKey(), self.style().name())
        if self._check_key != key:
            pixmaps = {}
            for state, flags in states.items():
                pixmap = QPixmap(max(1, round(at.width() * ratio)), max(1, round(at.height() * ratio)))
                pixmap.setDevicePixelRatio(ratio)
                pixmap.fill(Qt.GlobalColor.transparent)
                p = QPainter(pixmap)
                check.rect = QRect(0, 0, at.width(), at.height())
                check.state = flags
                self.style().drawPrimitive(QStyle.PE_IndicatorItemViewItemCheck, check, p, self)
                p.end()
                pixmaps[state] = pixmap
            self._check_key, self._check_pixmaps = key, pixmaps
        return at, self._check_pixmaps

    def shutdown(self) -> None:
        """No repaint is pending any more (the window is closing)."""
        self._repaint_timer.stop()

    def _check_option(self, enabled: bool):
        """A style option for the "on" checkboxes, and the states to draw them in."""
        opt = QStyleOptionViewItem()
        opt.initFrom(self)
        opt.features = QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
        base = QStyle.StateFlag.State_Enabled if enabled else QStyle.StateFlag.State_None
        states = {
            (on, sel): base | (QStyle.StateFlag.State_On if on else QStyle.StateFlag.State_Off)
            | (QStyle.StateFlag.State_Selected if sel else QStyle.StateFlag.State_None)
            for on in (False, True) for sel in (False, True)}
        return opt, states

    def setModel(self, model):
        super().setModel(model)
        hh = self.horizontalHeader()
        # the body stretches; the head's bars and three strongest labels fit in 230 pixels
        widths = {COL_ON: 30, COL_INDEX: 58, COL_BODY: 330, COL_HEAD: 230, COL_COVERAGE: 62,
                  COL_IMPROVEMENT: 86, COL_TRH: 60, COL_TRS: 62, COL_TEH: 60, COL_TES: 62}
        for c, w in widths.items():
            hh.resizeSection(c, w)
        hh.setSectionResizeMode(COL_BODY, QHeaderView.Stretch)
        model.rowsAboutToBeInserted.connect(self._before_insert)
        model.rowsInserted.connect(self._after_insert)
        self.selectionModel().selectionChanged.connect(self._selection_changed)
        self.setSortingEnabled(True)
        hh.setSortIndicator(-1, Qt.AscendingOrder)
        model.sort(-1)

    def _before_insert(self, *args):
        sb = self.verticalScrollBar()
        # a pending (held back) follow counts as being at the bottom
        self._was_at_bottom = self._follow_pending or sb.value() >= sb.maximum() - 2
        now = time.perf_counter()
        self._holding = self._repaint_timer.isActive() or now - self._last_repaint < self.repaint_interval()
        if self._holding:
            # The vertical header tells the view that the row count changed, and the view then
            # relayouts and repaints the whole viewport.  While batches arrive quickly, that
            # message is held back and delivered once per interval (see _release_repaint).
            self.verticalHeader().blockSignals(True)

    def _after_insert(self, parent, first, last):
        follow = self.follow and self._was_at_bottom and not self.selectionModel().hasSelection()
        if self._holding:
            self.verticalHeader().blockSignals(False)
            self._follow_pending = self._follow_pending or follow
            if not self._repaint_timer.isActive():
                wait = self.repaint_interval() - (time.perf_counter() - self._last_repaint)
                self._repaint_timer.start(max(1, int(wait * 1000)))
            return
        self._last_repaint = time.perf_counter()
        if follow:
            self.scroll_to_newest()

    def _release_repaint(self):
        """Deliver the held-back row count change (one relayout and repaint) and follow."""
        self._last_repaint = time.perf_counter()
        n = self.model().rowCount() if self.model() is not None else 0
        self.rowCountChanged(n, n)
        if self._follow_pending and not self.selectionModel().hasSelection():
            self.updateGeometries()  # the scroll range must include the new rows first
            self.scroll_to_newest()
        self._follow_pending = False

    def flush_repaint(self):
        """Repaint now if a repaint is being held back (end of a run)."""
        if self._repaint_timer.isActive():
            self._repaint_timer.stop()
            self._release_repaint()

    def scroll_to_newest(self):
        model = self.model()
        if model is None or model.rowCount() == 0:
            return
        if isinstance(model, QSortFilterProxyModel) and model.sortColumn() >= 0:
            src = model.sourceModel()
            idx = model.mapFromSource(src.index(src.rowCount() - 1, COL_INDEX))
            if idx.isValid():
                self.scrollTo(idx, QAbstractItemView.EnsureVisible)
            return
        self.scrollToBottom()

    def _selection_changed(self, *args):
        self.ruleSelected.emit(self.selected_record())

    def selected_record(self):
        """The rule to inspect: the current row when it is selected, else the first selected one."""
        rows = self.selectionModel().selectedRows()
        current = self.currentIndex()
        if current.isValid() and self.selectionModel().isRowSelected(current.row(), current.parent()):
            return current.sibling(current.row(), 0).data(RecordRole)
        return rows[0].data(RecordRole) if rows else None

    def select_source_row(self, row: int) -> None:
        model = self.model()
        src_index = model.sourceModel().index(row, COL_INDEX) if isinstance(model, QSortFilterProxyModel) else \
            model.index(row, COL_INDEX)
        idx = model.mapFromSource(src_index) if isinstance(model, QSortFilterProxyModel) else src_index
        if idx.isValid():
            self.selectRow(idx.row())
            self.scrollTo(idx)
