"""The why-this-head tab: per label the statistics the selected rule's head was computed from,
the recomputed optimum, and for two attributes the rule's region (issue 15, 'why this head')."""
from __future__ import annotations

import numpy as np

from engine.head_explanation import head_statistics


def test_why_this_head_shows_the_statistics_of_the_selected_rule(qtbot, make_window, train):
    window = make_window(max_rules=10, loss="logistic-decomposable", head_type="complete")
    assert train(window) == "finished"
    window.details.setCurrentWidget(window.head_view)
    window.select_rule(4)
    view = window.head_view
    expected = head_statistics(window.estimator, window.data.train.X, window.data.train.Y, 4)
    assert view.stats is not None and view.stats.rule_index == 4
    assert view.table.rowCount() == len(expected.labels) == window.data.train.n_labels
    for r in range(view.table.rowCount()):
        assert view.table.item(r, 3).text() == f"{expected.gradient_sums[r]:+.4g}"
        assert view.table.item(r, 7).text() == f"{expected.head[r]:+.4f}"
        assert view.table.item(r, 6).text() == view.table.item(r, 7).text()  # optimum x shrinkage = head
    assert "Rule #4" in view.summary.text() and "λ (L2) = 1" in view.summary.text()
    assert not view.canvas.isHidden()  # two attributes: the rule's region is drawn
    patch = view.ax.patches[0]
    rule = window.model.rules[4]
    xs = [c.threshold for c in rule.conditions if c.attribute == 0]
    if xs:  # the box's left or right edge lies on one of the rule's thresholds on x1
        edges = (patch.get_x(), patch.get_x() + patch.get_width())
        assert any(np.isclose(e, t) for e in edges for t in xs)
    # the default rule is not shrunk; selecting it updates the tab while it is shown
    window.select_rule(0)
    assert view.stats.rule_index == 0 and view.stats.shrinkage == 1.0


def test_why_this_head_explains_what_it_cannot_do(qtbot, make_window, train):
    window = make_window(max_rules=5)
    window.learner_panel.set_learner("seco")
    window.learner_panel.set_params({"max_rules": 4})
    assert train(window) == "finished"
    window.details.setCurrentWidget(window.head_view)
    window.select_rule(1)
    assert window.head_view.stats is None and "BOOMER" in window.head_view.summary.text()
