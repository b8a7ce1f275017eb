"""The label-dependency view: the shown run's matrices (application model) and, in the dialog, a
click on a heatmap cell lists the rules behind it; choosing one selects it."""
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from boomer_gui.components.label_dependencies import cell_rules, cell_text, shown_run_dependencies
from boomer_gui.plots.label_dependency_plot import LabelDependencyDialog
from test_label_dependencies import Y, _model


def _app():
    train = SimpleNamespace(Y=Y, label_names=["a", "b", "c"])
    return SimpleNamespace(estimator=SimpleNamespace(model_=_model()), data=SimpleNamespace(train=train),
                           run=SimpleNamespace(name="run 1"))


def test_the_shown_runs_dependencies_and_a_cells_text():
    run = shown_run_dependencies(_app())
    assert run.title.startswith("run 1: 4 rules")
    assert cell_text(run, 0, 1) == "a & b: 1 of 4 rules (25.0%); 2 of 4 examples (50.0%); phi +0.577"
    assert [k for k, _ in cell_rules(run, 2, 2)] == [2, 3, 4]
    assert cell_rules(run, 0, 1)[0][1] == "#1  {f0 <= 0.5} -> (a: +0.80, b: -0.30)"


def test_no_run_or_no_rule_model_is_said():
    app = _app()
    app.estimator = SimpleNamespace()
    with pytest.raises(ValueError, match="no fitted rule model"):
        shown_run_dependencies(app)


def _cell_point(dialog, ax, i, j) -> QPoint:
    x, y = ax.transData.transform((j, i))
    ratio = dialog.canvas.device_pixel_ratio
    return QPoint(int(round(x / ratio)), int(round((dialog.figure.bbox.height - y) / ratio)))


@pytest.mark.parametrize("side", [0, 1])
def test_clicking_a_cell_lists_its_rules_and_choosing_one_selects_it(qtbot, side):
    chosen = []
    dialog = LabelDependencyDialog(shown_run_dependencies(_app()), chosen.append)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.canvas.draw()
    ax = dialog.axes[side]
    qtbot.mouseClick(dialog.canvas, Qt.LeftButton, pos=_cell_point(dialog, ax, 2, 2))
    qtbot.waitUntil(lambda: dialog.cell == (2, 2))
    texts = [dialog.rule_list.item(r).text() for r in range(dialog.rule_list.count())]
    assert [t.split()[0] for t in texts] == ["#2", "#3", "#4"]
    qtbot.mouseClick(dialog.canvas, Qt.LeftButton, pos=_cell_point(dialog, ax, 0, 1))
    qtbot.waitUntil(lambda: dialog.cell == (0, 1))
    assert dialog.rule_list.count() == 1 and dialog.rule_list.item(0).text().startswith("#1 ")
    assert "a & b" in dialog.cell_label.text()
    assert tuple(dialog.markers[0].get_xy()) == (0.5, -0.5)
    dialog.rule_list.setCurrentRow(0)
    assert chosen == [1]
    qtbot.mouseClick(dialog.canvas, Qt.LeftButton, pos=_cell_point(dialog, ax, 1, 2))
    qtbot.waitUntil(lambda: dialog.cell == (1, 2))
    assert dialog.rule_list.count() == 0
    np.testing.assert_array_equal(dialog.run.dependencies.rule_counts[1], [1, 1, 0])
