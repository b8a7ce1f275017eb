"""Tools > Compare two runs and Tools > Simplify the shown run, on hand-built rule models: the
application model's checks, the comparison report, and the simplification run in a worker thread
whose result becomes a new run (pytest-qt, no sleeps)."""
from types import SimpleNamespace

import numpy as np
import pytest

from boomer_gui.components.comparison import comparable_runs, compare_runs
from boomer_gui.components.simplification import simplify_request
from boomer_gui.panels.model_comparison import CompareRunsDialog
from boomer_gui.panels.simplification import SimplifyDialog
from engine.api import simplify
from engine.model import RuleModel
from engine.rules import Rule
from test_label_dependencies import Y, _model

X = np.array([[0.2, 0.1], [0.7, 0.5], [0.3, 0.9], [0.9, 0.0]])


def _other_model():
    """The hand model without rule 3 and with rule 1's head changed."""
    m = _model()
    r1 = m.rules[1]
    rules = [m.rules[0], Rule(r1.conditions, r1.head_labels, np.array([0.8, 0.6])), m.rules[2], m.rules[4]]
    return RuleModel(rules, n_features=2, n_labels=3, schema=m.schema)


def _data(test=True):
    part = SimpleNamespace(X=X, Y=Y, n_examples=len(X))
    return SimpleNamespace(train=part, test=part if test else None, key="data-1")


def _app(test=True):
    runs = [SimpleNamespace(name="run 1", estimator=SimpleNamespace(model_=_model()), data_key="data-1",
                            learner="boomer"),
            SimpleNamespace(name="run 2", estimator=SimpleNamespace(model_=_other_model()), data_key="data-1",
                            learner="boomer"),
            SimpleNamespace(name="other data", estimator=SimpleNamespace(model_=_model()), data_key="data-2",
                            learner="boomer")]
    return SimpleNamespace(history=SimpleNamespace(runs=runs), data=_data(test), run=runs[0],
                           estimator=runs[0].estimator)


def test_runs_on_other_data_are_not_comparable():
    app = _app()
    assert [r.name for r in comparable_runs(app)] == ["run 1", "run 2"]
    with pytest.raises(ValueError, match="trained on other data"):
        compare_runs(app, app.history.runs[0], app.history.runs[2])
    with pytest.raises(ValueError, match="two different runs"):
        compare_runs(app, app.history.runs[0], app.history.runs[0])


def test_the_compare_dialog_shows_and_saves_the_diff(qtbot, tmp_path):
    dialog = CompareRunsDialog(_app())
    qtbot.addWidget(dialog)
    assert dialog.combo_a.count() == 2 and dialog.combo_b.currentText() == "run 2"
    comparison = dialog.compare()
    d = comparison.diff
    assert [(m.index_a, m.index_b) for m in d.matches] == [(0, 0), (1, 1), (2, 2), (4, 3)]
    assert d.only_a == (3,) and d.only_b == ()
    assert [m.index_a for m in d.changed_heads] == [1]
    assert dialog.status.text().startswith("4 matched rules (1 with other heads), 1 only in A, 0 only in B")
    assert "Rules only in run 1" in dialog.report.toMarkdown()
    dialog.save_report(tmp_path / "diff.csv")
    assert (tmp_path / "diff.csv").read_text().splitlines()[0] == "section,a,b,value_a,value_b,detail"
    dialog.save_report(tmp_path / "diff.md")
    assert (tmp_path / "diff.md").read_text().startswith("# Model diff: run 1 against run 2")
    dialog.combo_b.setCurrentIndex(0)
    assert dialog.compare() is None and dialog.status.text() == "pick two different runs"
    assert not dialog.save_button.isEnabled()


def test_bad_simplification_requests_are_named_before_any_work():
    with pytest.raises(ValueError, match="no test set"):
        simplify_request(_app(test=False), 0.01, "hamming", "test")
    with pytest.raises(ValueError, match="unknown measure"):
        simplify_request(_app(), 0.01, "accuracy", "test")
    with pytest.raises(ValueError, match="ε must be"):
        simplify_request(_app(), float("nan"))
    app = _app()
    app.estimator = None
    with pytest.raises(ValueError, match="no fitted rule model"):
        simplify_request(app, 0.01)


def test_simplify_runs_in_a_worker_and_adds_the_simplified_run(qtbot):
    app, added = _app(), []
    dialog = SimplifyDialog(app, lambda run, est, name: added.append((run, est, name)))
    qtbot.addWidget(dialog)
    dialog.epsilon.setValue(0.25)
    dialog.part.setCurrentText("training")
    with qtbot.waitSignal(dialog.finished_search, timeout=120_000) as blocker:
        assert dialog.start()
        assert not dialog.start()  # one search at a time
    result = blocker.args[0]
    qtbot.waitUntil(lambda: dialog.worker is None)
    expected = simplify(_model(), X, Y, "hamming", 0.25)
    assert result.removed_rules == expected.removed_rules and result.loss == pytest.approx(expected.loss)
    assert result.loss <= result.full_loss + 0.25 and result.removed_rules
    assert dialog.removed.count() == len(result.removed_rules) + len(result.removed_conditions)
    assert dialog.removed.item(0).text() == f"rule {result.removed_rules[0]}"
    (run, est, name), = added
    assert run is app.run and name == "run 1 · simplified (ε=0.25)"
    assert est.model_ is result.model and len(app.estimator.model_.rules) == 5  # the original is untouched
    n = len(result.removed_rules) + 1
    kept, loss = dialog.ax.lines[0].get_data()
    assert list(kept) == [c[0] for c in result.curve[:n]] and list(loss) == [c[2] for c in result.curve[:n]]
    kept, loss = dialog.ax.lines[1].get_data()
    assert list(loss) == [c[2] for c in result.curve[n - 1:]]
    assert f"{result.full_loss:.4f} → {result.loss:.4f}" in dialog.status.text()


def test_a_bad_request_is_said_in_the_dialog(qtbot):
    dialog = SimplifyDialog(_app(test=False))
    qtbot.addWidget(dialog)
    assert not dialog.start()
    assert "no test set" in dialog.status.text() and dialog.worker is None
