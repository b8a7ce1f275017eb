"""mlrl-boomer's scale settings in the window: typed options, errors, the kept prefix on the plot."""
from __future__ import annotations

import numpy as np


def _editor(window, name):
    return window.learner_panel.findChild(object, f"param_{name}")


def test_scale_settings_are_in_the_learner_panel(window):
    for name in ("feature_binning", "label_binning", "holdout", "global_pruning", "statistic_type", "head_type"):
        assert _editor(window, name) is not None, name
    combo = _editor(window, "feature_binning")
    assert combo.isEditable() and [combo.itemText(i) for i in range(combo.count())] == \
        ["auto", "none", "equal-width", "equal-frequency", "equal-width-midpoint", "equal-frequency-midpoint"]
    assert "equal-width{bin_ratio=0.33,min_bins=2,max_bins=0}" in combo.toolTip()
    combo.setEditText("equal-frequency{bin_ratio=0.1}")  # typed as in mlrl-boomer
    assert window.learner_panel.params()["feature_binning"] == "equal-frequency{bin_ratio=0.1}"


def test_a_bad_option_is_reported_before_training(window, errors):
    window.learner_panel.set_params({"feature_binning": "equal-width{bins=4}"})
    assert not window.start_training()
    assert errors and errors[0][0] == "Cannot start training"
    assert "unknown option 'bins'" in errors[0][1] and "bin_ratio" in errors[0][1]
    assert window.training is None and len(window.history) == 0
    assert window.run_controls.start_button.isEnabled()


def test_the_kept_prefix_of_global_pruning_is_marked_on_the_plot(qtbot, make_window, train):
    window = make_window(max_rules=60, holdout="random",
                         global_pruning="post-pruning{min_rules=5}", feature_binning="equal-width")
    assert train(window) == "finished"
    run = window.run
    kept = window.estimator.selected_steps_
    assert run.selected == kept and 5 <= kept <= 60 == len(run)
    assert len(window.model.rules) == kept
    art = window.plot.lines_of(run)
    x, y = art.selected.get_data()
    assert list(x) == [run.series["test_hamming"][kept - 1]] and list(y) == [run.series["test_subset"][kept - 1]]
    assert list(art.h_selected.get_xdata()) == [kept, kept]
    holdout = [r.extra["holdout_loss"] for r in window.table_model.records]
    assert kept == int(np.argmin(holdout[4:])) + 5
    # the session keeps the marker
    from boomer_gui.components.state import Run
    assert Run.from_dict(run.to_dict()).selected == kept


def test_parameters_without_effect_are_greyed(window):
    """SeCo's lift function only matters for partial heads, label binning only for complete and partial
    heads (of every loss: a label-wise loss bins its default rule), AdaBoost's condition limit only for the
    rule weak learner; the panel follows the other values as they change."""
    panel = window.learner_panel
    panel.set_learner("seco")
    lift = _editor(window, "lift_function")
    panel.set_params({"head_type": "single"})
    assert not lift.isEnabled()
    panel.set_params({"head_type": "partial"})
    assert lift.isEnabled()
    panel.set_learner("boomer")
    binning = _editor(window, "label_binning")
    panel.set_params({"loss": "logistic-decomposable", "head_type": "single"})
    assert not binning.isEnabled()
    panel.set_params({"loss": "logistic-decomposable", "head_type": "partial-dynamic"})
    assert binning.isEnabled()  # partial heads are binned too, as mlrl-boomer 0.15.6 bins them
    panel.set_params({"loss": "logistic-decomposable", "head_type": "complete"})
    assert binning.isEnabled()
    panel.set_params({"loss": "logistic-non-decomposable", "head_type": "complete"})
    assert binning.isEnabled()
    _editor(window, "head_type").setEditText("single")  # typed: the panel reacts to edits too
    assert not binning.isEnabled()
    panel.set_learner("adaboost-mh")
    panel.set_params({"weak_learner": "stump"})
    assert not _editor(window, "max_conditions").isEnabled()
    panel.set_params({"weak_learner": "rule"})
    assert _editor(window, "max_conditions").isEnabled()
