"""The window's menus reach the three views of issue 59: View > Label dependencies (choosing a rule
selects it in the rule table), Tools > Simplify the shown run (the result becomes a new, shown run)
and Tools > Compare two runs (the original against its simplified version)."""
from __future__ import annotations

from boomer_gui.panels.model_comparison import CompareRunsDialog
from boomer_gui.panels.simplification import SimplifyDialog
from boomer_gui.plots.label_dependency_plot import LabelDependencyDialog


def _last(w, kind):
    return w.findChildren(kind)[-1]


def test_simplify_then_compare_then_label_dependencies_from_the_menus(trained, qtbot):
    w = trained
    original, n_runs = w.app.run, len(w.app.history.runs)
    n_rules = len(w.app.estimator.model_.rules)
    w.act_simplify.trigger()
    dialog = _last(w, SimplifyDialog)
    dialog.epsilon.setValue(0.01)
    with qtbot.waitSignal(dialog.finished_search, timeout=120_000) as blocker:
        assert dialog.start()
    result = blocker.args[0]
    qtbot.waitUntil(lambda: dialog.worker is None)
    runs = w.app.history.runs
    assert len(runs) == n_runs + 1 and "· simplified (ε=0.01)" in runs[-1].name
    assert w.app.run is runs[-1] and len(w.app.estimator.model_.rules) == len(result.kept_rules)
    assert len(original.estimator.model_.rules) == n_rules  # the original run keeps its model
    dialog.close()

    w.act_compare_runs.trigger()
    compare = _last(w, CompareRunsDialog)
    assert compare.comparison is not None
    assert (compare.comparison.name_a, compare.comparison.name_b) == (original.name, runs[-1].name)
    d = compare.comparison.diff
    assert d.n_rules_a == n_rules and len(d.matches) + len(d.only_a) == n_rules
    compare.close()

    w.act_label_dependencies.trigger()
    deps = _last(w, LabelDependencyDialog)
    i = next(k for k in range(deps.run.dependencies.n_labels) if deps.run.dependencies.rules_behind(k, k))
    deps.show_cell(i, i)
    deps.rule_list.setCurrentRow(0)
    rule = deps.run.dependencies.rules_behind(i, i)[0]
    assert [index.row() for index in w.browser.table.selectionModel().selectedRows()] == [rule]
    deps.close()
