"""Runs told apart (issue 55): every run a line style of its own (colour, marker and dash together),
a name saying what defines it, unique in the window, and renamed only to a name no other run has."""
from __future__ import annotations

from itertools import combinations

import pytest

from boomer_gui.components.run_identity import (DASHES, MARKERS, PALETTE, check_name, describe_setting,
                                                loss_label, next_style, unique_name)
from boomer_gui.components.state import RunHistory
from engine.registry import get


def test_twenty_runs_share_no_style_and_neighbours_differ_in_colour_marker_and_dash():
    history = RunHistory()
    runs = [history.new_run("r", "boomer", {}) for _ in range(40)]
    styles = [(r.color, r.marker, r.dash) for r in runs]
    assert len(set(styles[:20])) == 20 and len(set(styles)) == 40
    for a, b in zip(runs, runs[1:]):
        assert a.color != b.color and a.marker != b.marker and a.dash != b.dash
    # two of the first 15 runs share at most one of the three
    for a, b in combinations(runs[:15], 2):
        assert (a.color == b.color) + (a.marker == b.marker) + (a.dash == b.dash) <= 1
    assert {r.color for r in runs} == set(PALETTE) and {r.marker for r in runs} == set(MARKERS)
    assert {r.dash for r in runs} == set(DASHES)


def test_a_new_run_takes_a_style_no_remaining_run_has():
    history = RunHistory()
    runs = [history.new_run("r", "boomer", {}) for _ in range(5)]
    history.remove(runs[1])
    styles = {(r.color, r.marker, r.dash) for r in history.runs}
    for _ in range(30):
        run = history.new_run("r", "boomer", {})
        assert (run.color, run.marker, run.dash) not in styles
        styles.add((run.color, run.marker, run.dash))
    # every style taken: the counter's, rather than failing
    assert next_style(3, [next_style(k, []) for k in range(200)]) == next_style(3, [])


def test_names_are_unique_in_the_window_with_a_suffix_only_on_collisions():
    history = RunHistory()
    names = [history.new_run(t, "boomer", {}).name for t in ("a", "b", "a", "a", "a #2")]
    assert names == ["a", "b", "a #2", "a #3", "a #4"]
    assert unique_name("c", names) == "c"
    with pytest.raises(ValueError, match="already named"):
        check_name("  b ", names)
    with pytest.raises(ValueError, match="needs a name"):
        check_name("   ", names)
    assert check_name("  my   run ", names) == "my run"


def _name(key, **params):
    spec = get(key)
    return describe_setting(key, params, spec.defaults(), spec.presets, spec.budget, spec.title)


def test_boomer_runs_are_named_by_loss_and_heads_and_presets_are_told_apart():
    spec = get("boomer")
    # the case: a squared-hinge run was named "(feature_binning=auto, head_type=auto, holdout=auto)"
    assert _name("boomer", loss="squared-hinge-decomposable") == "BOOMER · label-wise squared hinge, auto heads"
    assert loss_label("logistic-non-decomposable") == "example-wise logistic"
    preset_names = [_name("boomer", **values) for values in spec.presets.values()]
    assert len(set(preset_names)) == len(preset_names)
    assert preset_names[:4] == ["BOOMER · label-wise logistic, single-label heads (paper)",
                                "BOOMER · label-wise logistic, multi-label heads (paper)",
                                "BOOMER · example-wise logistic, single-label heads (paper)",
                                "BOOMER · example-wise logistic, multi-label heads (paper)"]
    # a preset with another budget is still that preset, the budget said; the rest: settings off the defaults
    paper = spec.presets["Example-wise, multi-label heads"]
    assert _name("boomer", **{**paper, "max_rules": 300}).endswith("multi-label heads (paper) · max_rules=300")
    # a preset with a setting changed: that preset and that setting (not the preset's differences from the defaults)
    lw = spec.presets["Label-wise, single-label heads"]
    assert _name("boomer", **{**lw, "shrinkage": 0.1}) == \
        "BOOMER · label-wise logistic, single-label heads (paper) · shrinkage=0.1"
    custom = _name("boomer", shrinkage=0.1, max_rules=200, random_state=3, holdout=0.2)
    assert custom == "BOOMER · label-wise logistic, auto heads · max_rules=200, shrinkage=0.1, holdout=0.2, +1 more"


def test_other_learners_are_named_by_their_preset_and_changed_settings():
    assert _name("seco", **get("seco").presets["F-measure (the paper)"]) == "SeCo · F-measure (the paper)"
    short_rules = "AdaBoost.MH · Short rules (≤ 3 conditions)"
    assert _name("adaboost-mh", weak_learner="rule", max_conditions=3) == short_rules
    assert _name("ml-me", n_experts=1, structure="tree") == "ML-ME · Single CTBN"  # the budget matches too
    assert _name("ml-me", n_experts=3) == "ML-ME · Paper (5 experts, early stopping) · n_experts=3"
    assert _name("label-ranking", decomposition="dis", eval_every=5) == \
        "Label ranking · Trained with dis · eval_every=5"
    assert _name("cc-lr") == "Classifier chain" and _name("cc-lr", l2=1.0) == "Classifier chain · l2=1"


def test_the_application_model_renames_a_run_and_says_so():
    from boomer_gui.components.controller import Controller

    app = Controller()
    a, b = (app.history.new_run(t, "boomer", {}) for t in ("a", "b"))
    renamed = []
    app.run_renamed.connect(renamed.append)
    assert app.rename_run(a, " lecture 1 ") == "lecture 1" and a.name == "lecture 1" and renamed == [a]
    with pytest.raises(ValueError):
        app.rename_run(b, "lecture 1")
    assert b.name == "b" and renamed == [a]
    app.rename_run(a, "lecture 1")  # unchanged: no event
    assert renamed == [a]


def test_a_runs_style_survives_a_session_and_old_sessions_get_dashes():
    history = RunHistory()
    runs = [history.new_run("r", "boomer", {}) for _ in range(4)]
    items = history.to_list()
    back = RunHistory.from_list(items)
    assert [(r.color, r.marker, r.dash) for r in back] == [(r.color, r.marker, r.dash) for r in runs]
    for d in items:
        del d["dash"]
    old = RunHistory.from_list(items)
    assert [r.dash for r in old] == [DASHES[k % 3] for k in range(4)]
