"""BOOMER's post-optimization in the window: revision steps change the row of the rule they revise
(the row shows the new rule, its "#" cell says how often it was revised, its tooltip what it
replaced), the rows stay the model's rules (what-if, explanations), the run counts the revisions as
steps that add no rule, and replays and reopened sessions show the same."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from boomer_gui.components.controller import belongs_to, records_of, step_of
from boomer_gui.components.state import Run
from boomer_gui.rules.rule_table import COL_BODY, COL_INDEX, COL_ON, REVISED, RevisionRole, RuleTableModel
from engine.learner import RuleRecord, RuleRevision
from engine.rules import Condition, Rule


def _rule(i: int, label: int = 0) -> Rule:
    return Rule((Condition(0, "<=", float(i)),), np.array([label]), np.array([0.5 + i]))


def test_a_revision_changes_its_rules_row_and_says_what_it_replaced(qtmodeltester):
    model = RuleTableModel()
    model.set_schema(None, 2)
    inserted, changed = [], []
    model.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    model.dataChanged.connect(lambda first, last, roles=(): changed.append((first.row(), last.row())))
    rules = [RuleRecord(i, _rule(i), 10, 0.1, 0.3, 0.5) for i in range(4)]
    first = RuleRevision(4, 2, rules[2].rule, _rule(7, 1), 1, 12, 0.2, 0.25, 0.4, 0.3, 0.6)
    second = RuleRevision(5, 2, first.rule, _rule(8, 1), 2, 13, 0.05, 0.2, 0.35)
    generation = model.generation
    model.append(rules[:3] + [rules[3], first])  # rules and a revision in one batch
    model.append([second])
    assert inserted == [(0, 3)] and model.rowCount() == 4  # a revision adds no row
    assert changed == [(2, 2), (2, 2)] and model.generation == generation + 2
    row = model.records[2]
    assert row.rule is second.rule and row.index == 2 and row.coverage == 13
    assert (row.train_hamming, row.test_hamming) == (0.2, None)
    assert model.index(2, COL_INDEX).data() == f"2 {REVISED}2" and model.index(1, COL_INDEX).data() == "1"
    assert model.index(2, COL_BODY).data() == second.rule.body_text(model.schema)
    assert model.index(2, 0).data(RevisionRole) == (first, second) and model.index(1, 0).data(RevisionRole) == ()
    tip = model.index(2, COL_INDEX).data(Qt.ToolTipRole)
    assert "Revised 2×" in tip and rules[2].rule.to_text(model.schema) in tip and first.rule.to_text(model.schema) in tip
    qtmodeltester.check(model)
    model.clear()
    assert model.revisions == {}


def test_a_post_optimized_run_shows_the_model_s_rules_revised(qtbot, make_window, train):
    window = make_window(max_rules=8, post_optimization="sequential{num_iterations=2}")
    assert train(window) == "finished"
    assert window.driver.budget[0] == 8 + 7 * 2  # rules and revisions: the progress counts both
    run, model, table = window.run, window.run.estimator.model_, window.table_model
    assert len(run) == 8 + 14 and run.revised == 14
    assert list(run.n_rules) == list(range(1, 9)) + [8] * 14  # revisions add no rule
    assert table.rowCount() == len(model.rules) == 8
    assert [r.rule for r in table.records] == model.rules
    revised = [row for row in range(8) if table.index(row, 0).data(RevisionRole)]
    assert revised == list(range(1, 8))  # every rule but the default rule, twice
    assert all(len(table.revisions[row]) == 2 for row in revised)
    assert table.index(3, COL_INDEX).data() == f"3 {REVISED}2"
    # counts name rules and revisions apart (not "22 rules")
    assert window.count_label.text() == "8 rules from 22 steps (14 revisions)"
    assert window.run_model.size_text(run) == "8 rules, 14 revisions"
    assert window.run_controls.count.text() == "22 / 22 steps"
    # the revised rule's point on the trajectory is its latest revision
    assert step_of(run, 3, 8) == max(i for i, r in enumerate(run.records) if r.kind == "revision" and r.revises == 3)
    # what-if still switches the model's rules
    assert table.flags(table.index(3, COL_ON)) & Qt.ItemIsUserCheckable
    window.set_rule_active(3, False)
    assert not table.active[3]

    assert window.replay()
    window.driver.settle()
    assert table.rowCount() == 8 and [r.rule for r in table.records] == model.rules
    assert sorted(table.revisions) == revised


def test_a_session_keeps_how_many_steps_were_revisions():
    rules = [RuleRecord(i, _rule(i), 10, 0.1, 0.3 - 0.01 * i, 0.5) for i in range(3)]
    revisions = [RuleRevision(3 + j, 1 + j, rules[1 + j].rule, _rule(5 + j), 1, 9, 0.1, 0.2, 0.4) for j in range(2)]
    run = Run(name="1: boomer", color="C0", learner="boomer", params={"post_optimization": "sequential"})
    run.records = rules + revisions
    run.append(run.records)
    again = Run.from_dict(run.to_dict())
    assert again.revised == 2 and list(again.n_rules) == [1, 2, 3, 3, 3]

    class Model:  # the model's rules: the revised ones
        pass

    model = Model()
    model.rules = [rules[0].rule, revisions[0].rule, revisions[1].rule]
    assert belongs_to(again, model)
    rebuilt = records_of(again, model)
    assert [r.rule for r in rebuilt] == model.rules
    assert [r.train_hamming for r in rebuilt] == [r.train_hamming for r in rules]  # each rule's own step
    assert "revised" not in Run(name="2", color="C1").to_dict()  # runs without revisions are saved as before
