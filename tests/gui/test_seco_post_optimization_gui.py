"""SeCo's sequential post-optimization in the window (mlrl-seco's, engine/seco/): the run streams its
revisions as steps that add no rule, the progress counts them (the registry's extra steps) and the rule
table's rows are the model's rules as revised (the default rule, SeCo's last, included)."""
from __future__ import annotations

from boomer_gui.rules.rule_table import RevisionRole


def test_a_post_optimized_seco_run_shows_its_rules_revised(qtbot, make_window, train):
    window = make_window(max_rules=6)
    window.learner_panel.set_learner("seco")
    window.learner_panel.set_params({"max_rules": 6, "instance_sampling": "none",
                                     "post_optimization": "sequential{num_iterations=2}"})
    assert train(window) == "finished"
    run, model, table = window.run, window.run.estimator.model_, window.table_model
    revisions = [r for r in run.records if r.kind == "revision"]
    assert window.driver.budget[0] == 6 + 5 * 2  # rules and revisions: the progress counts both
    assert len(revisions) == run.revised == 10 and len(run) == len(model.rules) + 10
    assert run.records[-1].kind == "rule" and run.records[-1].rule.conditions == ()  # the default rule, last
    assert table.rowCount() == len(model.rules) == 6
    assert [r.rule for r in table.records] == model.rules
    revised = [row for row in range(6) if table.index(row, 0).data(RevisionRole)]
    assert revised == list(range(5)) and all(len(table.revisions[row]) == 2 for row in revised)
