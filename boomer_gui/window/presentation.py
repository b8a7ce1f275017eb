"""Presentation mode (View, F11), for a lecture hall: large type, the setup hidden, and the
trajectory plot taking two thirds of the window's width over its whole height, with the runs'
legend beside the data; the rules and runs and the inspector share the column on the right.
Turning it off restores the layout as it was."""
from __future__ import annotations

from PySide6.QtCore import Qt

from boomer_gui.panels.run_table import (COL_DATA, COL_LEARNER, COL_SIZE, COL_STATUS, COL_TEH, COL_TES, COL_TIME,
                                         COL_TRH, COL_TRS)
from boomer_gui.rules.rule_table import COL_BODY, COL_HEAD

# the run's name says what matters; its test losses stay
RUN_COLUMNS_HIDDEN = (COL_DATA, COL_LEARNER, COL_SIZE, COL_TRH, COL_TRS, COL_TIME, COL_STATUS)

SCALE = 1.4
PLOT_SHARE = 0.6  # of the central area's width, over its whole height (the runs' legend beside the axes)
RULES_SHARE = 0.55  # of the right column's height: the rule table (8 rows and more), the inspector below


class PresentationMode:
    def __init__(self, window):
        self.w = window
        self.saved: dict | None = None

    @property
    def on(self) -> bool:
        return self.saved is not None

    def _tables(self) -> list:
        w = self.w
        return [w.browser.table, w.run_table.view, w.explanation.table, w.inspector.examples, w.head_view.table]

    def set(self, on: bool) -> None:
        on = bool(on)
        if on == self.on:
            return
        self._enter() if on else self._leave()
        w = self.w
        w.plot.set_presentation(on)
        for view in (w.inspector, w.head_view, w.step_view):  # their charts' type, too
            view.set_presentation(on)
        w.act_presentation.setChecked(on)

    def _enter(self) -> None:
        w = self.w
        header = w.browser.table.horizontalHeader()
        self.saved = dict(font=w.font(), setup=w.setup_dock.isVisible(), split=w.splitter.sizes(),
                          bottom=w.bottom.sizes(), rows=[t.verticalHeader().defaultSectionSize() for t in self._tables()],
                          columns=[header.sectionSize(c) for c in range(header.count())])
        font = w.font()
        font.setPointSizeF(font.pointSizeF() * SCALE)
        w.setFont(font)
        w.setup_dock.hide()
        self._plot_beside()
        height = w.fontMetrics().height() + 8
        for table in self._tables():
            table.verticalHeader().setDefaultSectionSize(height)
        for c, width in enumerate(self.saved["columns"]):  # numbers stay readable in large type
            if c != COL_BODY:
                header.resizeSection(c, int(width * (1.15 if c == COL_HEAD else SCALE)))
        runs = w.run_table.view
        self.saved["run_columns"] = [runs.isColumnHidden(c) for c in RUN_COLUMNS_HIDDEN]
        for c in RUN_COLUMNS_HIDDEN:  # the names get the narrow column's width
            runs.setColumnHidden(c, True)
        self.saved["loss_widths"] = [runs.columnWidth(c) for c in (COL_TEH, COL_TES)]
        for c in (COL_TEH, COL_TES):  # a loss of large type whole
            runs.setColumnWidth(c, w.fontMetrics().horizontalAdvance("0.0000") + 18)
        # the head before the body: in the narrow column the head is never cut, the body is elided
        header.moveSection(header.visualIndex(COL_HEAD), header.visualIndex(COL_BODY))

    def _plot_beside(self) -> None:
        """[rules over (plot | details)] becomes [plot | (rules over details)]."""
        w = self.w
        width, height = w.width(), w.splitter.height()  # the setup dock is hidden: the window's width
        w.bottom.insertWidget(0, w.top_tabs)
        w.splitter.insertWidget(0, w.plot)
        w.splitter.setOrientation(Qt.Horizontal)
        w.bottom.setOrientation(Qt.Vertical)
        right = width - int(width * PLOT_SHARE)
        for part in (w.top_tabs, w.details):  # their own minimum (every tab's) must not squeeze the plot
            part.setMinimumWidth(min(right, part.minimumSizeHint().width()))
        w.splitter.setSizes([int(width * PLOT_SHARE), right])
        top = int(height * RULES_SHARE)
        w.bottom.setSizes([top, height - top])

    def _plot_below(self) -> None:
        w = self.w
        for part in (w.top_tabs, w.details):
            part.setMinimumWidth(0)
        w.bottom.insertWidget(0, w.plot)
        w.splitter.insertWidget(0, w.top_tabs)
        w.splitter.setOrientation(Qt.Vertical)
        w.bottom.setOrientation(Qt.Horizontal)

    def _leave(self) -> None:
        w, saved = self.w, self.saved
        self.saved = None
        w.setFont(saved["font"])
        w.setup_dock.setVisible(saved["setup"])
        self._plot_below()
        w.splitter.setSizes(saved["split"])
        w.bottom.setSizes(saved["bottom"])
        for table, h in zip(self._tables(), saved["rows"]):
            table.verticalHeader().setDefaultSectionSize(h)
        for c, hidden in zip(RUN_COLUMNS_HIDDEN, saved["run_columns"]):
            w.run_table.view.setColumnHidden(c, hidden)
        for c, width in zip((COL_TEH, COL_TES), saved["loss_widths"]):
            w.run_table.view.setColumnWidth(c, width)
        header = w.browser.table.horizontalHeader()
        header.moveSection(header.visualIndex(COL_HEAD), header.visualIndex(COL_BODY) + 1)
        for c, width in enumerate(saved["columns"]):
            if c != COL_BODY:
                header.resizeSection(c, width)
