"""The rule inspector's threshold editor (issue 59, item 2): dragging the threshold line updates the
rule's coverage and the model's losses, checked against the edited model predicted from scratch;
Undo restores the original threshold; Apply adds a what-if run and leaves the original untouched."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from boomer_gui.rules.threshold_panel import ThresholdPanel
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.model import RuleModel, rule_coverage
from engine.rules import Condition, Rule


def _edited(model: RuleModel, r: int, c: int, threshold: float, head=None) -> RuleModel:
    rules = list(model.rules)
    conditions = list(rules[r].conditions)
    conditions[c] = Condition(conditions[c].attribute, conditions[c].operator, threshold)
    rules[r] = Rule(conditions, rules[r].head_labels, rules[r].head_scores if head is None else head)
    return RuleModel(rules, model.n_features, model.n_labels, model.prediction, model.loss, model.label_vectors,
                     model.schema, model.nominal, model.predictors)


def _expected_texts(model, r, c, threshold, train, test, head=None):
    """The coverage line's start and the losses the panel must show, from scratch."""
    edited = _edited(model, r, c, threshold, head)
    n = int(rule_coverage(edited.rules[r], train.X).sum())
    losses = []
    for part in (train, test):
        P = edited.predict(part.X)
        losses += [f"{hamming_loss(part.Y, P):.4f}", f"{subset_zero_one_loss(part.Y, P):.4f}"]
    return f"covers {n} of {train.n_examples} training examples", losses


def _shows(panel, coverage: str, losses: list[str]) -> bool:
    text = panel.loss_label.text()
    edited_values = [part.split(" → ")[1].rstrip(",") for part in text.replace("\n", ", ").split(", ")
                     if " → " in part]
    return panel.coverage_label.text().startswith(coverage) and edited_values == losses


def _drag(qtbot, panel, start: float, end: float) -> None:
    panel.canvas.draw()
    qtbot.mousePress(panel.canvas, Qt.LeftButton, pos=QPoint(*panel.data_to_widget(start)))
    qtbot.mouseMove(panel.canvas, QPoint(*panel.data_to_widget((start + end) / 2)))
    qtbot.mouseMove(panel.canvas, QPoint(*panel.data_to_widget(end)))
    qtbot.mouseRelease(panel.canvas, Qt.LeftButton, pos=QPoint(*panel.data_to_widget(end)))


def _condition_that_moves(model, train):
    """A rule, condition and target threshold whose edit changes the rule's coverage."""
    for r, rule in enumerate(model.rules):
        for c, cond in enumerate(rule.conditions):
            values = np.sort(np.unique(train.X[:, cond.attribute]))
            target = float(np.quantile(values, 0.3 if cond.threshold > np.median(values) else 0.7))
            if rule_coverage(_edited(model, r, c, target).rules[r], train.X).sum() != \
                    rule_coverage(rule, train.X).sum():
                return r, c, target
    raise AssertionError("no condition whose edit changes the coverage")


def test_drag_undo_and_apply_in_the_window(trained, qtbot):
    w = trained
    original_run, n_runs = w.app.run, len(w.app.history.runs)
    model, train, test = w.app.estimator.model_, w.app.data.train, w.app.data.test
    r, c, target = _condition_that_moves(model, train)
    w.act_edit_threshold.trigger()  # Tools > Edit a threshold of the selected rule
    inspector = w.inspector
    assert w.details.currentWidget() is inspector and inspector.mode_tabs.currentWidget() is inspector.threshold
    w.select_rule(r)
    panel = inspector.threshold
    inspector.mode_tabs.setCurrentIndex(0)
    inspector.conditions.linkActivated.emit(f"condition:{c}")  # the condition clicked in the Rule tab
    assert inspector.mode_tabs.currentWidget() is panel and panel.combo.currentIndex() == c
    qtbot.waitUntil(lambda: panel.session.rule == r and panel.session.condition == c and panel.line is not None)
    start = model.rules[r].conditions[c].threshold
    original_cover, original_losses = _expected_texts(model, r, c, start, train, test)
    assert _shows(panel, original_cover, original_losses)

    _drag(qtbot, panel, start, target)
    threshold = panel.threshold
    assert panel.spin.value() == pytest.approx(threshold, abs=1e-4)
    assert threshold == pytest.approx(target, abs=0.05 * float(np.ptp(train.X[:, model.rules[r].conditions[c].attribute])))
    assert panel.line_position() == pytest.approx(threshold)
    cover, losses = _expected_texts(model, r, c, threshold, train, test)
    assert cover != original_cover
    qtbot.waitUntil(lambda: _shows(panel, cover, losses))

    panel.undo_button.click()
    qtbot.waitUntil(lambda: _shows(panel, original_cover, original_losses))
    assert panel.threshold == start and not panel.apply_button.isEnabled()

    _drag(qtbot, panel, start, target)
    panel.reoptimise.setChecked(True)
    qtbot.waitUntil(lambda: panel.head_label.text().startswith("head (re-optimised)"))
    edit = panel.session.last
    cover, losses = _expected_texts(model, r, c, panel.threshold, train, test, edit.rule.head_scores)
    qtbot.waitUntil(lambda: _shows(panel, cover, losses))

    panel.apply_button.click()
    runs = w.app.history.runs
    assert len(runs) == n_runs + 1 and runs[-1] is w.app.run and "head re-optimised" in runs[-1].name
    applied = w.app.estimator.model_.rules[r]
    assert applied.conditions[c].threshold == edit.threshold == panel.threshold
    np.testing.assert_array_equal(applied.head_scores, edit.rule.head_scores)
    assert original_run.estimator.model_.rules[r].conditions[c].threshold == start  # the original is untouched


# A hand-made model for the panel alone
X = np.array([[0.1, 1.0], [0.4, 0.0], [0.6, 1.0], [0.8, 1.0], [0.9, 0.0], [0.3, 1.0]], dtype=np.float32)
Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 1], [0, 1]], dtype=np.uint8)
HAND = RuleModel([Rule((), [0, 1], [0.2, -0.1]),
                  Rule((Condition(0, "<=", 0.5),), [0], [0.7]),
                  Rule((Condition(0, ">", 0.5), Condition(1, ">", 0.5)), [0, 1], [-0.4, 0.3])],
                 2, 2, loss="logistic-decomposable")


def _panel(qtbot) -> ThresholdPanel:
    data = SimpleNamespace(X=X, Y=Y, n_examples=len(X))
    panel = ThresholdPanel()
    qtbot.addWidget(panel)
    panel.resize(640, 420)
    panel.show()
    panel.set_context(SimpleNamespace(model_=HAND), data, data, "hand")
    return panel


def test_the_spin_box_edits_and_rules_without_conditions_say_why(qtbot):
    panel = _panel(qtbot)
    panel.show_rule(SimpleNamespace(index=0, rule=HAND.rules[0]))
    assert panel.status.text() == "the default rule has no conditions" and not panel.spin.isEnabled()
    panel.show_rule(SimpleNamespace(index=2, rule=HAND.rules[2]))
    assert panel.combo.count() == 2 and panel.spin.value() == pytest.approx(0.5)
    assert not panel.reoptimise.isEnabled()  # no BOOMER estimator: the head is kept
    assert panel.coverage_label.text() == "covers 2 of 6 training examples (was 2), 2 test examples (was 2)"
    panel.spin.setValue(0.2)  # x0 > 0.2 and x1 > 0.5: rows 2, 3, 5
    with qtbot.waitSignal(panel.edited, timeout=5000):
        pass
    cover, losses = _expected_texts(HAND, 2, 0, 0.2, SimpleNamespace(X=X, Y=Y, n_examples=6),
                                    SimpleNamespace(X=X, Y=Y, n_examples=6))
    assert cover == "covers 3 of 6 training examples"
    assert _shows(panel, cover, losses)
    panel.set_context(None, None, None)
    assert panel.status.text().startswith("thresholds can be edited in a finished rule model")
