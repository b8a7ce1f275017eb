"""Stop (and closing the window) take effect within a fraction of a second even in the middle of
a long rule; the rules learned before are kept."""
from __future__ import annotations

import time

from boomer_gui.components.state import DataSpec

# 100 labels (200 attributes), complete heads of the example-wise loss, all attributes: one rule
# takes tens of seconds here.
LONG_RULES = dict(loss="logistic-non-decomposable", head_type="complete", feature_sampling="none",
                  instance_sampling="none")
SPEC = DataSpec(kind="synthetic", synthetic="marginal-independence", n_examples=1500, n_test=200, n_labels=100)


def _warm_up(make_window, train):
    """Compile the kernels for these types on a tiny sample, so the timing below is the stop's."""
    w = make_window(spec=DataSpec(kind="synthetic", synthetic="marginal-independence", n_examples=60, n_test=20,
                                  n_labels=100), max_rules=3, **LONG_RULES)
    assert train(w) == "finished"
    w.close()


def test_stop_during_a_long_rule_is_quick_and_keeps_the_rules(make_window, train, qtbot):
    _warm_up(make_window, train)
    w = make_window(spec=SPEC, max_rules=50, **LONG_RULES)
    assert w.start_training()
    qtbot.waitUntil(lambda: w.table_model.rowCount() == 1, timeout=30000)  # the default rule
    qtbot.waitUntil(lambda: w.training.received == 1, timeout=5000)
    start = time.perf_counter()
    with qtbot.waitSignal(w.training.done, timeout=2000) as blocker:
        w.stop_training()
    assert time.perf_counter() - start < 0.5
    assert blocker.args == ["stopped"]
    assert w.table_model.rowCount() == 1 and len(w.model.rules) == 1


def test_closing_during_a_long_rule_stops_the_worker(make_window, train, qtbot):
    from boomer_gui.adapters.training import running_workers

    _warm_up(make_window, train)
    w = make_window(spec=SPEC, max_rules=50, **LONG_RULES)
    assert w.start_training()
    qtbot.waitUntil(lambda: w.table_model.rowCount() == 1, timeout=30000)
    start = time.perf_counter()
    w.close()
    qtbot.waitUntil(lambda: not running_workers(), timeout=2000)
    assert time.perf_counter() - start < 0.5
