"""``python -m engine prepare --all`` / ``--list``: every kernel family the learner panels can reach
(engine.families), skipping the families already prepared."""
import itertools
import json

import pytest

from engine import prepare, registry
from engine.cli import main
from engine.families import Family, learner_families, panel_moves, reachable_families


@pytest.fixture
def stamps(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOMER_PREPARE_STAMPS", str(tmp_path / "stamps"))
    return tmp_path / "stamps"


@pytest.fixture(scope="module")
def builtin():
    return prepare.builtin_data()


def test_boomer_families_cover_every_combination_of_the_family_parameters(builtin):
    """Brute force: every combination of loss, head type, label binning and statistics type the
    panel offers has its core family among the enumerated stamps, each stamp once, represented by a
    setting that needs it; the defaults and the presets come first; each optional part (feature
    binning, holdout, global pruning) is a stamp of its own, represented with the defaults' core
    family for 32-bit statistics."""
    X, Y = builtin["X"], builtin["Y"]
    spec = registry.get("boomer")
    families = learner_families(spec, X, Y)
    keys = [f.key for f in families]
    assert len(keys) == len(set(keys))
    for family in families[:: max(1, len(families) // 60)]:  # a sample: each stamp is its setting's
        assert family.key in prepare.stamps_of(prepare.setting_key(family.setting, X, Y))
    assert families[0].setting.label == "boomer: defaults"
    first = set(keys[:1 + len(spec.presets)])
    assert all(prepare.setting_key(prepare.Setting("boomer", p), X, Y)[0] in first for p in spec.presets.values())
    params = {p.name: p.choices for p in spec.parameters}
    brute = set()
    for loss, head, binning, stats in itertools.product(params["loss"], params["head_type"], params["label_binning"],
                                                        params["statistic_type"]):
        setting = prepare.Setting("boomer", {"loss": loss, "head_type": head, "label_binning": binning,
                                             "statistic_type": stats})
        brute.update(prepare.stamps_of(prepare.setting_key(setting, X, Y)))
    assert len(brute) > 20 and brute <= set(keys)
    parts = {f.key.split("|")[0]: f for f in families if not f.key.startswith("boomer|") and "32-bit" in f.key
             or f.key.startswith("boomer-feature-binning")}
    assert sorted(parts) == ["boomer-feature-binning", "boomer-global-pruning", "boomer-holdout"]
    defaults = prepare.setting_key(prepare.Setting("boomer", {}), X, Y)
    for family in parts.values():
        assert prepare.setting_key(family.setting, X, Y) == (*defaults, family.key)
    assert len(families) < 200  # the products of the parts were 1,152


def test_learners_without_a_family_key_get_their_defaults_presets_and_single_changes(builtin):
    """AdaBoost.MH's key is its whole parameter set: its families are the defaults, the presets (the
    'Stumps' preset is the defaults) and each single change of them, without repeats."""
    spec = registry.get("adaboost-mh")
    families = learner_families(spec, builtin["X"], builtin["Y"])
    settings = [dict(f.setting.params) for f in families]
    assert settings[:3] == [{}, dict(spec.presets["Rules"]), dict(spec.presets["Short rules (≤ 3 conditions)"])]
    assert {"feature_sampling": "without-replacement"} in settings
    assert {"weak_learner": "rule", "max_conditions": 3, "feature_sampling": "without-replacement"} in settings
    assert {"max_conditions": 3} in settings  # "Short rules" with stumps (the default weak learner)
    assert len(settings) == 7  # 3 starts x 2 feature samplings, and the stumps of 'Short rules'; no more
    assert ("loss", "logistic-non-decomposable") in panel_moves(registry.get("boomer"))
    assert ("l1_regularization_weight", 0.1) in panel_moves(registry.get("boomer"))
    assert not learner_families(registry.get("cc-lr"), builtin["X"], builtin["Y"])  # compiles nothing


def test_every_learners_defaults_and_presets_come_before_the_other_families(builtin):
    families = reachable_families(["adaboost-mh", "label-ranking"], builtin["X"], builtin["Y"])
    starts = [f.start for f in families]
    assert starts == sorted(starts, reverse=True)
    # 'Stumps' is AdaBoost.MH's defaults, 'Trained with dom' label ranking's
    assert [f.setting.learner for f in families if f.start] == ["adaboost-mh"] * 3 + ["label-ranking"] * 4
    assert families[0].setting.label == "adaboost-mh: defaults"


def _families_file(tmp_path) -> str:
    path = tmp_path / "families.json"
    path.write_text(json.dumps([
        {"learner": "boomer", "params": {}, "label": "boomer defaults"},
        {"learner": "boomer", "params": {"shrinkage": 0.1}, "label": "same family"},  # one family with the first
        {"learner": "label-ranking", "params": {}, "label": "ranking defaults"}]))
    return str(path)


def test_list_and_all_prepare_only_the_families_not_stamped(tmp_path, stamps, capsys):
    families = _families_file(tmp_path)
    X, Y = prepare.builtin_data()["X"], prepare.builtin_data()["Y"]
    ranking = prepare.setting_key(prepare.Setting("label-ranking", {}), X, Y)
    prepare.mark_prepared(ranking, 1.0)  # prepared before: skipped
    assert main(["prepare", "--list", "--families", families]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["would compile  boomer defaults", "ready          ranking defaults",
                     "2 kernel components: 1 ready, 1 would compile"]

    assert main(["prepare", "--all", "--families", families, "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0] == {"event": "families", "total": 2, "ready": 1}
    assert [e["label"] for e in events if e["event"] == "setting"] == ["boomer defaults"]
    assert [e["event"] for e in events if e["event"] in ("prepared", "error")] == ["prepared"]
    assert events[-1]["event"] == "done" and events[-1]["settings"] == 1 and events[-1]["failed"] == 0
    assert prepare.is_prepared(prepare.setting_key(prepare.Setting("boomer", {}), X, Y))

    assert main(["prepare", "--all", "--families", families]) == 0  # nothing left to prepare
    out = capsys.readouterr().out
    assert "2 kernel components: 2 ready, 0 to prepare" in out and "prepared 0 of 0 settings" in out


def test_all_refuses_a_single_learner_and_a_bad_families_file(tmp_path, stamps, capsys):
    assert main(["prepare", "--all", "--learner", "boomer"]) == 2
    assert "--learner prepares one setting" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"learner": "boomer"}')
    assert main(["prepare", "--list", "--families", str(bad)]) == 2
    assert "a JSON list of objects" in capsys.readouterr().err
    bad.write_text('[{"learner": "boomer", "params": {"loss": "nonsense"}}]')
    assert main(["prepare", "--list", "--families", str(bad)]) == 2
    assert "invalid parameters" in capsys.readouterr().err


def test_a_family_is_ready_once_its_key_is_stamped(stamps):
    family = Family("boomer|probe", prepare.Setting("boomer", {}))
    assert not family.ready
    prepare.mark_prepared("boomer|probe", 0.5)
    assert family.ready


def test_list_enumerates_the_reachable_families_of_the_learners_asked_for(stamps, capsys):
    assert main(["prepare", "--list", "--learners", "adaboost-mh"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "would compile  adaboost-mh: defaults"
    assert len(lines) == 8 and lines[-1] == "7 kernel components: 0 ready, 7 would compile"
