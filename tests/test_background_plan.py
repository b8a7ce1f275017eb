"""The window's background preparation without Qt (boomer_gui.components.background_preparation):
the queue of children, pausing while a run trains, and the count shown in the status bar."""
import numpy as np
import pytest

from engine import prepare, registry

from boomer_gui.components.background_preparation import BackgroundPlan, readiness_text, setting_ready


class Recorder:
    """What the plan asks of its adapter, in order."""

    def __init__(self, plan: BackgroundPlan):
        self.calls = []
        plan.start_child.connect(lambda args: self.calls.append(("start", args)))
        plan.suspend_child.connect(lambda: self.calls.append(("suspend",)))
        plan.resume_child.connect(lambda: self.calls.append(("resume",)))
        plan.kill_child.connect(lambda: self.calls.append(("kill",)))

    def take(self):
        calls, self.calls = self.calls, []
        return calls


def run_all_child(plan, total, ready, labels, fail=()):
    plan.event({"event": "families", "total": total, "ready": ready})
    for i, label in enumerate(labels):
        plan.event({"event": "setting", "index": i, "of": len(labels), "label": label})
        plan.event({"event": "error" if label in fail else "prepared", "label": label})


def test_the_setting_on_screen_first_then_every_family_with_the_count():
    plan = BackgroundPlan()
    calls = Recorder(plan)
    plan.begin("built-in", [], ("boomer", {"loss": "logistic-non-decomposable"}))
    assert calls.take() == [("start", ["--learner", "boomer", "--params", '{"loss": "logistic-non-decomposable"}'])]
    assert plan.text() == "preparing kernels in the background…"
    plan.event({"event": "setting", "label": "boomer"})
    plan.event({"event": "prepared", "label": "boomer"})  # not one of the --all child's families
    plan.child_finished(True)
    assert calls.take() == [("start", ["--all"])]
    run_all_child(plan, 22, 13, ["a"])
    assert plan.text() == "kernels ready for 14 of 22 kernel components · preparing a"
    plan.event({"event": "setting", "label": "b"})
    plan.event({"event": "error", "label": "b"})
    plan.child_finished(False)
    assert calls.take() == [] and not plan.active and plan.done
    assert plan.text() == "kernels ready for 14 of 22 kernel components (1 failed)"
    assert "built-in" not in plan.complete  # a failed family: asked again for new data


def test_a_run_suspends_the_child_and_its_end_resumes_it():
    plan = BackgroundPlan()
    calls = Recorder(plan)
    plan.begin("built-in", ["--data", "f.npz"])
    assert calls.take() == [("start", ["--all", "--data", "f.npz"])]
    run_all_child(plan, 5, 1, ["a"])
    plan.run_started()
    assert calls.take() == [("suspend",)]
    assert plan.text() == "kernels ready for 2 of 5 kernel components · paused while a run trains"
    plan.run_started()  # a second start without an end: nothing more
    assert calls.take() == []
    plan.run_ended()
    assert calls.take() == [("resume",)]
    run_all_child(plan, 5, 2, ["b", "c", "d"])
    plan.child_finished(True)
    assert plan.text() == "kernels ready for 5 of 5 kernel components" and "built-in" in plan.complete
    plan.begin("built-in", [])  # the same kind of data again: every family is ready, no child
    assert calls.take() == [] and not plan.active


def test_without_suspending_a_run_kills_the_child_and_its_end_starts_it_again():
    plan = BackgroundPlan(can_suspend=False)
    calls = Recorder(plan)
    plan.begin("k", [], ("seco", {}))
    calls.take()
    plan.run_started()
    assert calls.take() == [("kill",)] and plan.child is None
    assert plan.text() == "preparing kernels in the background…"
    plan.run_ended()
    assert calls.take() == [("start", ["--learner", "seco", "--params", "{}"])]


def test_a_queue_waits_for_the_run_and_off_means_nothing():
    plan = BackgroundPlan()
    calls = Recorder(plan)
    plan.run_started()
    plan.begin("k", [])  # new data while a run trains (the window refuses that, but the plan waits)
    assert calls.take() == []
    plan.run_ended()
    assert calls.take() == [("start", ["--all"])]
    plan.set_enabled(False)
    assert calls.take() == [("kill",)] and plan.text() == "" and not plan.active
    plan.begin("k", [], ("boomer", {}))
    assert calls.take() == [] and not plan.active


@pytest.fixture
def stamps(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOMER_PREPARE_STAMPS", str(tmp_path / "stamps"))


def test_the_mark_beside_start(stamps):
    spec = registry.get("boomer")
    X, Y = np.zeros((30, 3)), np.eye(30, 4, dtype=np.uint8)
    assert setting_ready(spec, {"loss": "nonsense"}, X, Y) is None
    assert setting_ready(spec, {"head_type": "single"}, X, Y) is False
    prepare.mark_prepared(prepare.kernel_setting(spec.make(head_type="single"), X, Y), 1.0)
    assert setting_ready(spec, {"head_type": "single", "shrinkage": 0.5}, X, Y) is True  # the same family
    assert setting_ready(registry.get("cc-lr"), {}, X, Y) is True  # compiles nothing
    assert readiness_text("boomer", True) == "ready"
    assert readiness_text("boomer", False) == "first run compiles (~45 s)"
    assert readiness_text("seco", None) == ""


def test_a_setting_that_makes_several_stamps_ready_counts_each_of_them():
    """A prepared setting can stamp a core family and an optional part at once ('stamped': 2); the count
    never passes the total."""
    plan = BackgroundPlan()
    plan.begin("built-in", [])
    plan.event({"event": "families", "total": 5, "ready": 1})
    plan.event({"event": "prepared", "label": "boomer: holdout=random, loss=squared-error-decomposable",
                "stamped": 2})
    assert plan.ready == 3 and plan.text().startswith("kernels ready for 3 of 5 kernel components")
    plan.event({"event": "prepared", "label": "x", "stamped": 4})
    assert plan.ready == 5
