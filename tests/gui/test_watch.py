"""Watchable runs: a speed limit on how fast rules appear, a single step, and replay of a finished
run from its records, with the table, the plot and the explanation following (issue 15)."""
from __future__ import annotations


def test_speed_limit_shows_rules_at_their_pace_and_stop_shows_the_rest(qtbot, make_window):
    window = make_window(max_rules=12)
    window.set_speed(1)  # one rule per second: the learner finishes long before the table does
    assert window.run_controls.speed.currentData() == 1
    assert window.start_training()
    with qtbot.waitSignal(window.training.done, timeout=300_000):
        pass
    assert window.table_model.rowCount() < 12 and window.playback.pending > 0
    assert len(window.plot.lines_of(window.run).train.get_xdata()) == window.table_model.rowCount()
    assert not window.table_model.checkable  # the model is attached only when every rule is shown
    window.stop_training()  # stop: everything learned is shown at once
    assert window.table_model.rowCount() == 12 and window.playback.pending == 0
    assert window.table_model.checkable and window.model is not None and len(window.model.rules) == 12


def test_step_shows_one_rule_at_a_time_and_explain_works_while_paused(qtbot, make_window):
    window = make_window(max_rules=100000)
    assert window.start_training()
    qtbot.waitUntil(lambda: window.table_model.rowCount() >= 3, timeout=300_000)
    window.set_speed(1)
    window.pause_training()
    qtbot.waitUntil(lambda: window.training.state == "paused", timeout=10000)
    n = window.table_model.rowCount()
    for k in range(1, 4):
        window.step()
        qtbot.waitUntil(lambda: window.table_model.rowCount() == n + k, timeout=10000)
    assert window.training.state == "paused" or window.playback.pending
    qtbot.waitUntil(lambda: window.training.state == "paused", timeout=10000)
    # while paused the explanation uses the rules shown so far
    rows = window.table_model.rowCount()
    assert window.explanation.model is not None and len(window.explanation.model.rules) == rows
    window.explanation.show_example(0)
    assert window.explanation.explanation is not None
    assert set(window.explanation.explanation.rule_indices) <= set(range(rows))
    window.stop_training()
    qtbot.waitUntil(lambda: not window.training_active, timeout=30000)
    window.stop_training()  # and the rest of the queue at once
    assert not window.playing


def test_replay_a_finished_run_from_its_records(qtbot, make_window, train):
    window = make_window(max_rules=15)
    assert train(window) == "finished"
    run = window.run
    rules = [r.rule for r in window.table_model.records]
    window.set_speed(200)
    assert window.replay()
    assert window.table_model.rowCount() <= 2 and run.shown is not None and run.shown <= 2
    assert len(window.plot.lines_of(run).train.get_xdata()) == run.view_len() < 15
    assert not window.table_model.checkable  # no what-if while the run is replayed
    qtbot.waitUntil(lambda: not window.playing, timeout=20000)
    assert [r.rule for r in window.table_model.records] == rules  # the same rules, not retrained
    assert run.shown is None and len(window.plot.lines_of(run).train.get_xdata()) == 15
    assert window.table_model.checkable and len(window.history.runs) == 1
