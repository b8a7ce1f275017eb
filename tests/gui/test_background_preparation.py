"""A window left open prepares every kernel family in the background (``python -m engine prepare
--all``, here on a small set of families that the session's compiled_kernels fixture compiled
already, so the children load them from the cache), shows how far it is, and a setting picked
afterwards is marked ready and starts without a preparation child."""
from __future__ import annotations

import json
import time

import pytest

import boomer_gui.adapters.training as training
from engine import prepare

FIRST_STEP_WITHIN_S = 10.0  # an unprepared BOOMER family compiles for 40 s and more


@pytest.fixture
def small_families(tmp_path, monkeypatch):
    """Background preparation on, with stamps of its own and two families (the defaults, and
    single-label heads)."""
    monkeypatch.delenv("BOOMER_NO_BACKGROUND_PREPARE")
    monkeypatch.setenv("BOOMER_PREPARE_STAMPS", str(tmp_path / "stamps"))  # the children's too
    monkeypatch.setattr(training, "is_prepared", prepare.is_prepared)  # runs ask the real stamps
    path = tmp_path / "families.json"
    path.write_text(json.dumps([{"learner": "boomer", "params": {}, "label": "boomer: defaults"},
                                {"learner": "boomer", "params": {"head_type": "single"},
                                 "label": "boomer: single-label heads"}]))
    return str(path)


def test_background_preparation_finishes_and_a_setting_picked_afterwards_starts_at_once(qtbot, make_window,
                                                                                       small_families):
    window = make_window()
    prep = window.background_prep
    prep.extra_args = ["--families", small_families]
    assert window.run_controls.readiness.text() == "first run compiles (~45 s)"
    first = window.background
    assert first is not None and first.args[:2] == ["--learner", "boomer"]  # the setting on screen first
    qtbot.waitUntil(lambda: prep.plan.child == ["--all"], timeout=120_000)
    assert window.run_controls.readiness.text() == "ready"  # prepared by the first child
    qtbot.waitUntil(lambda: prep.plan.total is not None, timeout=120_000)
    assert prep.plan.ready == 1  # the defaults, prepared by the first child: --all skips them
    qtbot.waitUntil(lambda: not prep.plan.active, timeout=120_000)
    assert window.background_label.text() == "kernels ready for 2 of 2 kernel components"
    assert window.background is None

    window.learner_panel.set_params({"head_type": "single", "shrinkage": 0.5, "max_rules": 5})  # picked now
    assert window.run_controls.readiness.text() == "ready"
    begin = time.perf_counter()
    assert window.start_training()
    t = window.training
    assert t.preparation is None and t.state == "running"  # no child: the kernels are in the cache
    done = []
    t.done.connect(done.append)
    with qtbot.waitSignal(t.batch, timeout=int(FIRST_STEP_WITHIN_S * 1000)):
        pass
    assert time.perf_counter() - begin < FIRST_STEP_WITHIN_S
    qtbot.waitUntil(lambda: done == ["finished"], timeout=60_000)


def test_the_view_switch_turns_the_background_preparation_off_and_on(qtbot, make_window, monkeypatch):
    import boomer_gui.components.background_preparation as background_preparation
    from boomer_gui.adapters.preparation import KernelPreparation

    monkeypatch.delenv("BOOMER_NO_BACKGROUND_PREPARE")
    monkeypatch.setattr(background_preparation, "is_prepared", lambda key: False)
    started = []
    monkeypatch.setattr(KernelPreparation, "start", lambda self: started.append(self.args))
    window = make_window()
    assert window.act_background_prepare.isChecked() and started and started[0][:2] == ["--learner", "boomer"]
    window.act_background_prepare.trigger()  # off: the child is killed, nothing is shown
    assert not window.act_background_prepare.isChecked()
    assert window.background is None and window.background_label.text() == ""
    window.learner_panel.set_params({"head_type": "single"})  # no new child while off
    assert len(started) == 1
    assert window.run_controls.readiness.text() == "first run compiles (~45 s)"  # the mark stays
    window.act_background_prepare.trigger()  # on again: the setting on screen first
    assert len(started) == 2 and started[1][:2] == ["--learner", "boomer"] and '"single"' in started[1][3]
    window.background_prep.stop()
