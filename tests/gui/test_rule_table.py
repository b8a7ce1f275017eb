"""The rule table model, its proxy and delegate; the covered-examples model."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from boomer_gui.rules.inspector import CoveredExamplesModel
from boomer_gui.rules.rule_table import COL_BODY, COL_COVERAGE, COL_HEAD, COL_ON, RecordRole, RuleFilterProxy, RuleTableModel


def test_model_passes_qtmodeltester(trained, qtmodeltester):
    assert trained.table_model.rowCount() == 40
    qtmodeltester.check(trained.table_model)
    qtmodeltester.check(trained.proxy)


def test_covered_examples_model_passes_qtmodeltester(trained, qtmodeltester):
    record = trained.table_model.records[3]
    trained.inspector.show_record(record)
    model = trained.inspector.examples_model
    assert model.rowCount() > 0
    qtmodeltester.check(model)
    empty = CoveredExamplesModel()
    qtmodeltester.check(empty)


def test_filters_by_label_attribute_and_text(trained):
    proxy, model = trained.proxy, trained.table_model
    total = model.rowCount()
    trained.label_filter.setCurrentIndex(trained.label_filter.findData(2))
    shown = [proxy.index(r, 0).data(RecordRole) for r in range(proxy.rowCount())]
    assert 0 < len(shown) < total
    assert all(2 in set(int(k) for k in rec.rule.head_labels) for rec in shown)
    trained.label_filter.setCurrentIndex(0)
    trained.browser.attribute_filter.setCurrentIndex(trained.browser.attribute_filter.findData(0))
    shown = [proxy.index(r, 0).data(RecordRole) for r in range(proxy.rowCount())]
    assert shown and all(any(c.attribute == 0 for c in rec.rule.conditions) for rec in shown)
    trained.browser.attribute_filter.setCurrentIndex(0)
    trained.browser.text_filter.setText("x2 >")
    trained.browser.apply_filters()
    shown = [proxy.index(r, 0).data(RecordRole) for r in range(proxy.rowCount())]
    assert shown and all("x2 >" in rec.rule.body_text(trained.data.train.schema) for rec in shown)
    assert "of" in trained.count_label.text()
    trained.browser.text_filter.setText("")
    trained.browser.apply_filters()
    assert proxy.rowCount() == total


def test_sorting_by_loss(trained):
    trained.table.sortByColumn(8, Qt.AscendingOrder)  # test Hamming
    values = [trained.proxy.index(r, 0).data(RecordRole).test_hamming for r in range(trained.proxy.rowCount())]
    assert values == sorted(values)


def test_head_column_and_fixed_rows(trained):
    idx = trained.proxy.index(1, COL_HEAD)
    head = idx.data(Qt.UserRole + 2)
    assert head.shape == (trained.data.train.n_labels,)
    assert trained.proxy.index(1, COL_BODY).data().startswith("{")
    vh = trained.table.verticalHeader()
    assert vh.sectionResizeMode(0) == vh.ResizeMode.Fixed
    pix = trained.table.grab()  # the delegate paints without errors
    assert not pix.isNull()


def test_checkbox_only_with_finished_model(qtbot, window, train):
    model = RuleTableModel()
    assert not (model.flags(model.index(0, COL_ON)) & Qt.ItemIsUserCheckable)
    train(window)
    idx = window.table_model.index(2, COL_ON)
    assert window.table_model.flags(idx) & Qt.ItemIsUserCheckable
    assert idx.data(Qt.CheckStateRole) == Qt.Checked


def test_append_is_one_insertion_per_batch():
    from engine.learner import RuleRecord
    from engine.rules import Condition, Rule

    model = RuleTableModel()
    model.set_schema(None, 3)
    events = []
    model.rowsInserted.connect(lambda parent, first, last: events.append((first, last)))
    recs = [RuleRecord(i, Rule((Condition(0, "<=", float(i)),), np.array([i % 3]), np.array([0.5])), 1, 0.1, 0.2, 0.3)
            for i in range(250)]
    model.append(recs[:100])
    model.append(recs[100:])
    assert events == [(0, 99), (100, 249)]
    proxy = RuleFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_label(1)
    assert proxy.rowCount() == len([r for r in recs if r.index % 3 == 1])


def test_row_painter_looks_like_per_cell_painting(trained, qapp):
    """The view paints whole rows itself (fast while rules stream); the picture must match
    Qt's own per-cell painting through the delegates: first paint, cached paint, selection."""
    from PySide6.QtGui import QImage

    view = trained.table
    view.resize(1100, 400)
    view.select_source_row(3)
    qapp.processEvents()

    def picture(row_painter: bool) -> QImage:
        view.row_painter = row_painter
        view.text_delegate.clear_cache()
        view.head_delegate.clear_cache()
        first = view.viewport().grab().toImage()
        again = view.viewport().grab().toImage()  # second paint: laid-out texts from the cache
        return first, again

    try:
        (rows_first, rows_again), (cells, _) = picture(True), picture(False)
    finally:
        view.row_painter = True
    assert rows_first.size() == cells.size()

    def differing(a, b) -> float:
        """Fraction of differing pixels (every third row and column)."""
        w, h = a.width(), a.height()
        differ = sum(a.pixel(x, y) != b.pixel(x, y) for x in range(0, w, 3) for y in range(0, h, 3))
        return differ / ((w + 2) // 3 * ((h + 2) // 3))

    for image in (rows_first, rows_again):
        assert differing(image, cells) < 0.01  # anti-aliasing of a few glyphs at most
    # the selected row is highlighted in both
    sel_y = view.rowViewportPosition(view.selectionModel().selectedRows()[0].row()) + 5
    other_y = sel_y + view.rowHeight(0)
    assert rows_first.pixel(200, sel_y) == cells.pixel(200, sel_y) != cells.pixel(200, other_y)
    # sorted: proxy rows are mapped to the model's rows
    view.sortByColumn(COL_COVERAGE, Qt.AscendingOrder)
    qapp.processEvents()
    try:
        (rows_sorted, _), (cells_sorted, _) = picture(True), picture(False)
    finally:
        view.row_painter = True
        view.sortByColumn(-1, Qt.AscendingOrder)
    assert differing(rows_sorted, cells_sorted) < 0.01 and differing(rows_sorted, rows_first) > 0.05


def test_label_filter_on_complete_heads_lists_the_rules_about_the_label(make_window, train):
    """Complete heads score all 6 labels: 'strongly' (the default) lists the rules whose score for the
    label is at least half their strongest one, so the filter narrows the table; 'at all' lists every
    rule that scores the label (all of them here)."""
    w = make_window(max_rules=30, loss="logistic-non-decomposable", head_type="complete", label_binning="none")
    assert train(w) == "finished"
    records = w.table_model.records

    def strong(label):
        return [rec.index for rec in records if abs(rec.rule.head_scores[list(rec.rule.head_labels).index(label)])
                >= 0.5 * np.abs(rec.rule.head_scores).max()]

    label = next((k for k in range(6) if 0 < len(strong(k)) < len(records)), None)
    assert label is not None, "no label whose strong rules are some but not all: the filter would not narrow"
    w.label_filter.setCurrentIndex(w.label_filter.findData(label))
    shown = [w.proxy.index(r, 0).data(RecordRole).index for r in range(w.proxy.rowCount())]
    assert shown == strong(label)
    assert w.count_label.text() == f"{len(shown)} of {len(records)} rules"
    w.browser.label_mode.setCurrentIndex(w.browser.label_mode.findData(False))
    assert w.proxy.rowCount() == sum(1 for rec in records if label in set(int(k) for k, v in
                                                                         zip(rec.rule.head_labels, rec.rule.head_scores)
                                                                         if v != 0)) > len(shown)


def test_ctrl_c_copies_the_selected_rules_as_text(trained, qtbot):
    from PySide6.QtCore import QItemSelectionModel
    from PySide6.QtWidgets import QApplication

    sel = trained.table.selectionModel()
    for row in (2, 4):
        sel.select(trained.proxy.index(row, 1), QItemSelectionModel.Select | QItemSelectionModel.Rows)
    trained.table.setFocus()
    qtbot.waitUntil(trained.table.hasFocus)
    qtbot.keyClick(trained.table, Qt.Key_C, Qt.ControlModifier)
    lines = [line.split("\t") for line in QApplication.clipboard().text().splitlines()]
    schema = trained.data.train.schema
    records = trained.table_model.records
    assert lines[0][:4] == ["index", "active", "body", "head"]  # a header row, the columns of the CSV export
    assert [line[:4] for line in lines[1:]] == [[str(records[i].index), "1", records[i].rule.body_text(schema),
                                                 records[i].rule.head_text(schema)] for i in (2, 4)]


def test_rules_read_as_intervals_and_filters_match_what_is_shown(qapp):
    """Problem 7: redundant conditions are merged in the body column; the text filter matches the
    shown text, not a condition that is not shown; the label filter 'at all' matches any non-zero head
    score (not only the strongest three), 'strongly' the labels scored at least half the strongest;
    the full rule is the tooltip."""
    from PySide6.QtCore import Qt

    from engine.learner import RuleRecord
    from engine.rules import Condition, Rule, Schema

    from boomer_gui.rules.rule_table import COL_BODY

    schema = Schema(("x1", "x2"), tuple(f"y{k}" for k in range(6)))
    merged = Rule((Condition(0, "<=", 0.3627), Condition(0, "<=", -0.709), Condition(0, ">", -0.8274)),
                  np.arange(6), np.array([0.9, 0.8, 0.7, 0.6, 0.0, 0.05]), schema)
    other = Rule((Condition(1, ">", 0.5),), np.array([4]), np.array([0.2]), schema)
    model = RuleTableModel()
    model.set_schema(schema, 6)
    model.append([RuleRecord(0, merged, 10, 0.1, 0.2, 0.3), RuleRecord(1, other, 5, 0.1, 0.2, 0.3)])
    assert model.index(0, COL_BODY).data() == "{-0.8274 < x1 <= -0.709}"
    assert model.index(0, COL_BODY).data(Qt.ToolTipRole) == merged.to_text(schema)
    proxy = RuleFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_filters(None, None, "0.3627")  # a bound the merged text does not show
    assert proxy.rowCount() == 0
    proxy.set_filters(None, None, "-0.8274 < x1")
    assert proxy.rowCount() == 1
    proxy.set_filters(5, None, "", strong=False)  # y5's score 0.05 is weak, still a match 'at all'
    assert proxy.rowCount() == 1
    proxy.set_filters(5, None, "", strong=True)  # ... but not 'strongly' (0.05 < 0.9 / 2)
    assert proxy.rowCount() == 0
    proxy.set_filters(3, None, "", strong=True)  # y3: 0.6 >= 0.9 / 2
    assert proxy.rowCount() == 1
    proxy.set_filters(4, None, "", strong=False)  # y4: zero in the first rule, non-zero in the second
    assert [proxy.index(r, 0).data(RecordRole).index for r in range(proxy.rowCount())] == [1]


def test_head_bars_one_per_label_or_the_strongest_of_neighbours(qapp):
    """A few labels: one 3-pixel bar per label, its height |score| / scale of the half height.
    Hundreds of labels (the bars used to run past the strip into the next columns): the strip
    holds at most width / 2 bars, each the label of the largest |score| among its neighbours."""
    from boomer_gui.rules.rule_table import HeadDelegate

    delegate = HeadDelegate()
    head = np.array([0.5, -1.0, 0.0, 2.0])
    up, down = delegate.bars(0, head, 2.0, 154, 8)
    assert [(r.x(), r.y(), r.width(), r.height()) for r in up] == [(0, -2, 3, 2), (12, -8, 3, 8)]
    assert [(r.x(), r.y(), r.width(), r.height()) for r in down] == [(4, 1, 3, 4)]

    many = np.full(983, -0.01)
    many[500] = 3.0  # one strong positive label among weak negatives
    up, down = delegate.bars(1, many, 3.0, 154, 8)
    bars = up + down
    assert len(bars) == 77 and all(r.x() >= 0 and r.x() + r.width() <= 154 for r in bars)
    assert len(up) == 1 and up[0].height() == 8 and up[0].x() == (500 * 77 // 983) * 2
    assert all(r.height() == 1 for r in down)  # tiny scores still show as one pixel
