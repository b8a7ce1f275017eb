"""``fit_iter(..., cancel=EVENT)`` stops within a fraction of a second even inside one long rule;
the rules learned before are kept and the unfinished one is dropped."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier

# The target; measured here: about 0.01 s (the watcher polls the event every 20 ms).
STOP_WITHIN_S = 0.2


def _data(n, d, K, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = (X @ rng.normal(size=(d, K)) + rng.normal(size=(n, K)) > 0).astype(np.uint8)
    return X, Y


def _cancel_during_step(make, X, Y, steps_before=1, delay=0.4):
    """Warm the kernels up on a small sample, take ``steps_before`` steps, set the event ``delay`` s
    into the next one; returns (seconds from set to the end, estimator, records received)."""
    make(3).fit(X[:60], Y[:60])  # compile every kernel with these types (cached on disk)
    est = make(50)
    event = threading.Event()
    it = est.fit_iter(X, Y, cancel=event)
    records = [next(it) for _ in range(steps_before)]
    set_at = []

    def fire():
        set_at.append(time.perf_counter())
        event.set()

    timer = threading.Timer(delay, fire)
    timer.start()
    try:
        records.extend(it)  # ends by itself once the event is set
        ended = time.perf_counter()
    finally:
        timer.cancel()
    assert set_at, "the step finished before the event was set: make the data larger"
    return ended - set_at[0], est, records


def test_boomer_stops_inside_a_long_complete_head_rule():
    # one rule here takes ~40 s (100 labels: a 100 x 100 solve per candidate split)
    X, Y = _data(2000, 40, 100)

    def make(r):
        return BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", max_rules=r,
                                feature_sampling="none", instance_sampling="none")

    waited, est, records = _cancel_during_step(make, X, Y)
    assert waited < STOP_WITHIN_S
    assert len(records) == 1 and len(est.rules_) == 1 and est.rules_[0].is_default
    assert est.predict(X[:5]).shape == (5, 100)


def test_seco_stops_inside_a_long_rule():
    X, Y = _data(4000, 40, 10)

    def make(r):  # exhaustive subset accuracy: 2^10 heads per threshold (the F-measure is far quicker)
        return SeCoClassifier(max_rules=r, search="pakdd-2018{heuristic=subset-accuracy,head_search=exhaustive}")

    waited, est, records = _cancel_during_step(make, X, Y, steps_before=0)  # its first rule takes minutes
    assert waited < STOP_WITHIN_S
    assert records == [] and all(r.is_default for r in est.rules_)
    assert est.predict(X[:5]).shape == (5, 10)


def test_cancel_flag_reaches_every_sweep_kernel():
    """With the flag set, each learner's sweep kernel reports no condition at once."""
    from engine.core.features import build_feature_index
    from engine.core.stumps import best_splits

    X, Y = _data(300, 5, 3)
    index = build_feature_index(X, np.zeros(5, bool))
    A = np.where(Y > 0, 1.0, -1.0) / Y.size
    d = np.abs(A).sum(axis=1)
    S_T = A.sum(axis=0)
    out_z, out_op, out_thr = np.empty(5), np.empty(5, np.int64), np.empty(5)
    args = (np.arange(5, dtype=np.int64), 5, index.ptr, index.rows, index.values, index.missing_ptr,
            index.missing_rows, index.nominal, np.ones(300, np.uint8), A, d, S_T, float(d.sum()), 300,
            float(d.sum()), 0, out_z, out_op, out_thr)
    best_splits(*args, np.zeros(1, np.uint8))
    assert (out_op >= 0).any()
    best_splits(*args, np.ones(1, np.uint8))
    assert (out_op == -1).all()


@pytest.mark.parametrize("heuristic", ["f-measure", "subset-accuracy"])
def test_cancel_flag_reaches_both_seco_sweeps(heuristic):
    from engine.core.features import build_feature_index
    from engine.core.seco_search import (Pairs, Walked, best_conditions, best_conditions_decomposable,
                                         covered_counts, label_bitsets, mask_bitset)
    from engine.seco import HEURISTIC_CODES

    X, Y = _data(300, 5, 3)
    index = build_feature_index(X, np.zeros(5, bool))
    C1, C0 = np.ascontiguousarray(Y, dtype=np.uint8), np.ascontiguousarray(1 - Y, dtype=np.uint8)
    U1, U0 = C1.sum(axis=0).astype(np.int64), C0.sum(axis=0).astype(np.int64)
    cov = np.ones(300, np.uint8)
    T1, T0 = np.empty(3, np.int64), np.empty(3, np.int64)
    n_T = covered_counts(cov, C1, C0, T1, T0)
    walked = Walked(index.ptr, index.rows, index.values, index.values, np.empty(len(index.rows), np.int32),
                    np.zeros((5, 3), np.int64), index.missing_ptr, index.missing_rows, index.nominal)
    pairs = Pairs(C1, C0, T1, T0, U1, U0)
    outs = (np.empty(5), np.empty(5, np.int64), np.empty(5, np.int64), np.empty(5), np.empty(5, np.int64))
    code = HEURISTIC_CODES[heuristic]

    def sweep(flag):
        if heuristic == "subset-accuracy":
            best_conditions(5, walked, cov, mask_bitset(cov, 5), n_T, pairs, (label_bitsets(C1, 5),
                            label_bitsets(C0, 5)), (code, 1.0, False, 1), outs, np.full(1, flag, np.uint8))
        else:
            best_conditions_decomposable(5, walked, cov, n_T, pairs, (code, 1.0, False, 1), outs,
                                         np.full(1, flag, np.uint8))
        return outs[2].copy()

    assert (sweep(0) >= 0).any()
    assert (sweep(1) == -1).all()


@pytest.mark.parametrize("make", [
    lambda: BoomerClassifier(max_rules=30, random_state=3),
    lambda: BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", max_rules=20),
    lambda: AdaBoostMHClassifier(max_rules=20),
    lambda: SeCoClassifier(max_rules=10),
])
def test_an_unset_event_changes_nothing(make):
    X, Y = _data(300, 6, 4, seed=2)
    plain = make().fit(X, Y)
    with_event = make()
    records = list(with_event.fit_iter(X, Y, cancel=threading.Event()))
    assert with_event.rules_ == plain.rules_
    assert [r.train_hamming for r in records] == [r.train_hamming for r in plain.records_]


def test_an_event_set_before_the_start_learns_nothing_and_leaves_no_thread():
    X, Y = _data(200, 5, 3)
    event = threading.Event()
    event.set()
    before = threading.active_count()
    est = AdaBoostMHClassifier(max_rules=20)
    assert list(est.fit_iter(X, Y, cancel=event)) == []
    assert est.rules_ == [] and threading.active_count() == before


def test_cancel_between_steps_keeps_every_finished_step():
    X, Y = _data(300, 6, 4)
    event = threading.Event()
    est = AdaBoostMHClassifier(max_rules=50)
    received = []
    for record in est.fit_iter(X, Y, cancel=event):
        received.append(record)
        if len(received) == 7:
            event.set()
    assert len(received) == 7 and est.records_ == received
    assert len(est.rules_) == sum(len(r.rules) for r in received)
