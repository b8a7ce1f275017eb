"""Inspector, explanation and what-if, checked against the engine's own predictions."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.inspection import explain
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.model import rule_coverage


def test_selecting_a_rule_fills_the_inspector(qtbot, trained):
    trained.select_rule(4)
    record = trained.table_model.records[4]
    ins = trained.inspector
    assert ins.record is record
    assert len(ins.condition_texts) == len(record.rule.conditions)
    assert ins.condition_texts[0] == record.rule.conditions[0].to_text(trained.data.train.schema)
    np.testing.assert_allclose(ins.head_heights(), record.rule.dense_head(trained.data.train.n_labels))
    mask = rule_coverage(record.rule, trained.data.train.X)
    assert ins.examples_model.rowCount() == mask.sum()
    covered, overall = ins.frequency_heights()
    np.testing.assert_allclose(covered, trained.data.train.Y[mask].mean(axis=0))
    np.testing.assert_allclose(overall, trained.data.train.Y.mean(axis=0))
    assert trained.details.currentWidget() is ins
    trained.table.clearSelection()
    assert ins.record is None


def test_inspector_works_while_training(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 5, timeout=300_000)
    window.select_rule(2)
    assert window.inspector.record.index == 2
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active, timeout=5000)


def test_explanation_contributions_sum_to_scores(qtbot, trained):
    panel = trained.explanation
    assert panel.spin.isEnabled()
    assert panel.explanation is None  # computed only once the panel is shown
    trained.details.setCurrentWidget(panel)
    assert panel.explanation is not None
    for i in (0, 7, 21):
        panel.spin.setValue(i)
        ex = panel.explanation
        x = trained.data.test.X[i]
        np.testing.assert_allclose(ex.contributions.sum(axis=0), ex.scores, atol=1e-9)
        np.testing.assert_allclose(ex.scores, trained.model.scores(x[None, :])[0], atol=1e-9)
        shown = panel.table_contributions()
        np.testing.assert_allclose(shown[:-1].sum(axis=0), shown[-1], atol=1e-9)
        assert panel.table.rowCount() == len(ex.rule_indices) + 3
        assert panel.table_row_values("truth") == list(trained.data.test.Y[i])
        assert panel.table_row_values("prediction") == list(ex.prediction)
    panel.next_wrong.click()
    i = panel.example
    assert np.any(panel.explanation.prediction != trained.data.test.Y[i])


def _losses(model, data, active):
    out = {}
    for name, ds in (("train", data.train), ("test", data.test)):
        pred = model.predict(ds.X, active.astype(np.uint8))
        out[f"{name}_hamming"] = hamming_loss(ds.Y, pred)
        out[f"{name}_subset"] = subset_zero_one_loss(ds.Y, pred)
    return out


@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable"])
def test_switching_rules_off_matches_predict_with_active(qtbot, make_window, train, loss):
    window = make_window(max_rules=30, loss=loss)
    assert train(window) == "finished"
    window.details.setCurrentWidget(window.explanation)
    for row in (3, 7):
        window.set_rule_active(row, False)
    active = window.table_model.active.copy()
    assert not active[3] and not active[7] and active.sum() == len(active) - 2
    got = window.whatif_losses()
    expected = _losses(window.model, window.data, active)
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-12), k
    assert "what-if (2 rules off)" in window.loss_label.text()
    # the trajectory's end point moved to the what-if losses
    lines = window.plot.lines_of(window.run)
    assert lines.whatif.get_xdata()[0] == pytest.approx(expected["test_hamming"])
    assert lines.whatif.get_ydata()[0] == pytest.approx(expected["test_subset"])
    # the explanation ignores switched-off rules
    ex = window.explanation.explanation
    assert 3 not in ex.rule_indices and 7 not in ex.rule_indices
    x = window.data.test.X[window.explanation.example]
    ref = explain(window.model, x, active)
    np.testing.assert_allclose(ex.scores, ref.scores)
    # switching them back restores the run's final losses
    window.set_rule_active(3, True)
    window.set_rule_active(7, True)
    final = window.run.final_losses()
    got = window.whatif_losses()
    for k in final:
        assert got[k] == pytest.approx(final[k], abs=1e-12)
    assert window.run.whatif is None
    assert len(window.plot.lines_of(window.run).whatif.get_xdata()) == 0


def test_checkbox_click_toggles_whatif(qtbot, trained):
    from boomer_gui.rules.rule_table import COL_ON

    idx = trained.proxy.index(5, COL_ON)
    assert trained.proxy.setData(idx, Qt.Unchecked, Qt.CheckStateRole)
    assert not trained.table_model.active[trained.proxy.mapToSource(idx).row()]
    assert trained.whatif is not None


def test_steps_with_several_rules_get_one_row_per_rule(qtbot, make_window, train):
    """AdaBoost.MH stumps add two rules per round: the table has a row per model rule, so the
    what-if switches and the explanation's rule indices refer to the model's rules."""
    from engine import registry

    if "adaboost-mh" not in [s.key for s in registry.learners()]:
        pytest.skip("AdaBoost.MH is not registered")
    window = make_window(max_rules=10)
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"weak_learner": "stump", "max_rules": 10})
    assert train(window) == "finished"
    rules = window.model.rules
    assert window.table_model.rowCount() == len(rules) > len(window.run)
    assert [r.rule for r in window.table_model.records] == rules
    assert [r.index for r in window.table_model.records] == list(range(len(rules)))
    window.set_rule_active(3, False)
    expected = _losses(window.model, window.data, window.table_model.active)
    assert window.whatif_losses()["test_subset"] == pytest.approx(expected["test_subset"], abs=1e-12)


def test_mouse_click_on_the_painted_checkbox_switches_the_rule_off(qtbot, trained):
    """The table paints its rows itself; a click where it drew a rule's checkbox still toggles
    that rule (the indicator is drawn where Qt's delegate expects it)."""
    from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

    from boomer_gui.rules.rule_table import COL_ON

    view = trained.table
    view.scrollToTop()
    idx = trained.proxy.index(2, COL_ON)
    opt = QStyleOptionViewItem()
    opt.initFrom(view)
    opt.features = QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    opt.rect = view.visualRect(idx)
    box = view.style().subElementRect(QStyle.SE_ItemViewItemCheckIndicator, opt, view)
    before = view.viewport().grab().toImage()
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=box.center())
    row = trained.proxy.mapToSource(idx).row()
    qtbot.waitUntil(lambda: not trained.table_model.active[row], timeout=2000)
    after = view.viewport().grab().toImage()
    changed = [before.pixel(x, y) != after.pixel(x, y)
               for x in range(box.left(), box.right() + 1) for y in range(box.top(), box.bottom() + 1)]
    assert any(changed)  # the painted box shows the new state
    assert trained.whatif is not None


def test_the_inspector_shows_the_steps_own_numbers(qtbot, make_window, train):
    """AdaBoost.MH's alpha, Z and the prod-Z bound of a round (computed by the learner) are in the
    inspector, with the round's improvement of the bound; BOOMER's holdout loss likewise."""
    import math

    window = make_window(max_rules=6)
    window.learner_panel.set_learner("adaboost-mh")
    window.learner_panel.set_params({"weak_learner": "stump", "max_rules": 6})
    assert train(window) == "finished"
    record = window.table_model.records[2]
    window.inspector.show_record(record)
    text = window.inspector.step_label.text()
    extra = record.extra
    assert f"α (confidence) {extra['alpha']:.4g}" in text and f"Z (normaliser) {extra['Z']:.4g}" in text
    assert f"∏Z (training error bound) {extra['bound']:.4g}" in text
    assert math.isclose(extra["alpha"], 0.5 * math.log((1 + extra["r"]) / (1 - extra["r"])), rel_tol=1e-9) or \
        extra["abstained"] > 0  # alpha = 1/2 ln((1+r)/(1-r)) without abstentions (Schapire & Singer)
    assert f"improvement {record.improvement:.4g}" in text
    window.inspector.clear()
    assert window.inspector.step_label.text() == ""

    boomer = make_window(max_rules=8, holdout="random")
    assert train(boomer) == "finished"
    last = boomer.table_model.records[-1]
    boomer.inspector.show_record(last)
    assert f"holdout loss {last.extra['holdout_loss']:.4g}" in boomer.inspector.step_label.text()


def test_explanation_is_readable_sorted_limited_and_says_how_it_predicts(qtbot, make_window, train):
    """The example's attribute values, rules sorted by their effect, the top k listed with the rest
    summed (the columns still add up to the scores), and the example-wise prediction shown as the
    nearest known label vector, which is the model's prediction."""
    from engine.inspection import nearest_label_vectors

    window = make_window(max_rules=60, loss="logistic-non-decomposable", head_type="complete")
    assert train(window) == "finished"
    panel = window.explanation
    window.details.setCurrentWidget(panel)
    panel.show_example(4)
    ex = panel.explanation
    x = window.data.test.X[4]
    assert panel.values.text() == f"Attribute values: x1 = {x[0]:.4g}, x2 = {x[1]:.4g}"
    order, losses = nearest_label_vectors(window.model, ex.scores, 2)
    np.testing.assert_array_equal(window.model.label_vectors[order[0]], ex.prediction)
    assert f"loss {losses[0]:.4f}" in panel.summary.text() and "nearest" in panel.summary.text()

    panel.sort.setCurrentIndex(panel.sort.findData(-1))  # largest effect first
    panel.show_all.setChecked(False)
    panel.top.setValue(5)
    shown = panel.table_contributions()
    assert shown.shape[0] == 5 + 1 + 1  # five rules, the summed rest, the Σ row
    effects = np.abs(shown[:5]).sum(axis=1)
    assert list(effects) == sorted(effects, reverse=True)
    assert effects[0] == pytest.approx(np.abs(ex.contributions).sum(axis=1).max())
    np.testing.assert_allclose(shown[:-1].sum(axis=0), shown[-1], atol=1e-9)  # still adds up to Σ
    assert "more rules" in panel.table.item(3 + 5, 0).text()
    panel.show_all.setChecked(True)
    assert panel.table_contributions().shape[0] == len(ex.rule_indices) + 1
