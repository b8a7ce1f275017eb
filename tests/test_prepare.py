"""Preparing a run's kernels ahead of the run (engine.prepare), and the kernel families that keep a
fit from compiling what it does not call (engine.core.refinement, engine.core.boosting_step)."""
import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import engine.boomer.settings as boomer_settings
from engine import BoomerClassifier, prepare
from engine.core.refinement import (INTERLEAVE_MIN_EXAMPLES, PARALLEL_MIN_WORK, first_step_family,
                                    fixed_label_family, may_thread, rule_refinement)
from engine.core.head_variants import HEAD_BINNED, HEAD_COMPLETE, HEAD_PARTIAL_FIXED, HEAD_SINGLE
from engine.datasets import make_synthetic


@pytest.fixture
def stamps(tmp_path, monkeypatch):
    monkeypatch.setattr(prepare, "stamp_folder", lambda: tmp_path / "stamps")
    return tmp_path / "stamps"


def _data(n=300, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (rng.random((n, k)) < 0.4).astype(np.uint8)
    return X, Y


def test_a_prepared_setting_is_stamped_and_other_settings_are_not(stamps):
    X, Y = _data()
    data = {"X": X, "Y": Y, "X_test": X[:50], "Y_test": Y[:50], "nominal": None}
    single = BoomerClassifier(max_rules=3, head_type="single")
    complete = BoomerClassifier(max_rules=3, head_type="complete")
    assert not prepare.is_prepared(prepare.kernel_setting(single, X, Y))
    key, seconds = prepare.prepare_setting(prepare.Setting("boomer", {"max_rules": 50, "head_type": "single"}), data)
    assert key == prepare.kernel_setting(single, X, Y) and seconds >= 0
    assert prepare.is_prepared(key)
    # the stamp names the kernels, not the parameters that change no kernel
    assert prepare.is_prepared(prepare.kernel_setting(BoomerClassifier(head_type="single", shrinkage=0.1,
                                                                       random_state=7), X, Y))
    assert not prepare.is_prepared(prepare.kernel_setting(complete, X, Y))
    # nor data that needs the threaded kernels
    big_X, big_Y = _data(n=PARALLEL_MIN_WORK, d=4, k=3)
    assert prepare.kernel_setting(single, big_X, big_Y) != key


def test_a_stamp_from_other_kernel_sources_does_not_count(stamps, monkeypatch):
    prepare.mark_prepared("some key", 1.0)
    assert prepare.is_prepared("some key")
    monkeypatch.setattr(prepare, "_DIGEST", "sources of another version")
    assert not prepare.is_prepared("some key")
    assert prepare.is_prepared(None)  # a learner that compiles nothing needs no preparation


def test_data_round_trip_dense_sparse_and_no_pickles(tmp_path):
    X, Y = _data(n=20)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 1, X, 0.0))
    path = tmp_path / "d.npz"
    prepare.save_data(path, Xs, Y, X, Y, np.array([False, True, False, False]))
    back = prepare.load_data(path)
    assert sp.issparse(back["X"]) and np.array_equal(back["X"].toarray(), Xs.toarray())
    assert np.array_equal(back["X_test"], X) and np.array_equal(back["Y"], Y)
    assert back["nominal"].tolist() == [False, True, False, False]
    hostile = tmp_path / "hostile.npz"
    np.savez(hostile, X=np.array([object()], dtype=object), Y=Y)
    with pytest.raises(ValueError):
        prepare.load_data(hostile)
    np.savez(tmp_path / "empty.npz", Z=Y)
    with pytest.raises(ValueError, match="no training data"):
        prepare.load_data(tmp_path / "empty.npz")


def test_families_follow_the_heads_and_the_size():
    assert first_step_family(HEAD_SINGLE, False, 1.0, 0.0) == "fast"
    assert first_step_family(HEAD_COMPLETE, False, 1.0, 0.0) == "fast"
    assert first_step_family(HEAD_COMPLETE, True, 1.0, 0.0) == "variants"  # a full Hessian: K x K solves
    assert first_step_family(HEAD_SINGLE, False, 1.0, 0.5) == "variants"  # L1
    assert first_step_family(HEAD_SINGLE, False, 0.0, 0.0) == "variants"  # no L2
    assert first_step_family(HEAD_PARTIAL_FIXED, False, 1.0, 0.0) == "variants"
    assert first_step_family(HEAD_BINNED, True, 1.0, 0.0) == "variants"
    assert fixed_label_family(False, 10**6) == "none"
    assert fixed_label_family(True, INTERLEAVE_MIN_EXAMPLES - 1) == "columns"
    assert fixed_label_family(True, INTERLEAVE_MIN_EXAMPLES) == "one"
    # the bound of a step's work: m sampled attributes x N covered examples x (K + S) statistics
    assert not may_thread(1000, 7, 6, 6, False) and may_thread(2000, 7, 6, 6, False)
    assert may_thread(10, 7, 6, 21, True)  # a full Hessian: threads whenever there are two candidates
    assert not may_thread(10**6, 1, 6, 21, True)  # one candidate: nothing to share
    with pytest.raises(ValueError, match="unknown kernel family"):
        rule_refinement("fast", "two", False)


@pytest.mark.parametrize("params", [{}, {"head_type": "complete"},
                                    {"loss": "logistic-non-decomposable", "head_type": "complete"}],
                         ids=["single", "complete", "example-wise complete"])
def test_serial_and_threaded_families_learn_the_same_rules(params, monkeypatch):
    """The serial family (small data) and the threaded one (both kernels, chosen per step) differ
    only in who does the work."""
    X, Y = _data(n=400, d=6, k=4, seed=3)
    rules = []
    for threaded in (False, True):
        monkeypatch.setattr(boomer_settings, "may_thread", lambda *args, _t=threaded: _t)
        est = BoomerClassifier(max_rules=15, random_state=2, **params).fit(X, Y)
        rules.append([(r.conditions, r.head_labels.tolist(), r.head_scores.tolist()) for r in est.rules_])
    assert rules[0] == rules[1]


def test_prepare_command_reports_progress_as_json_lines(tmp_path):
    X, Y = _data(n=120)
    path = tmp_path / "data.npz"
    prepare.save_data(path, X, Y)
    env_stamps = tmp_path / "cache"
    proc = subprocess.run([sys.executable, "-m", "engine", "prepare", "--learner", "boomer", "--params",
                           json.dumps({"shrinkage": 0.5}), "--data", str(path), "--json"],
                          capture_output=True, text=True, timeout=900,
                          env={**__import__("os").environ, "BOOMER_PREPARE_STAMPS": str(env_stamps)})
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "setting" and kinds[-1] == "done" and "prepared" in kinds
    assert events[-1]["failed"] == 0
    assert all(e["compiled"] >= 0 for e in events if e["event"] == "compiling")
    bad = subprocess.run([sys.executable, "-m", "engine", "prepare", "--learner", "boomer", "--params", "[1]"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "JSON object" in bad.stderr


def test_prepare_reports_a_bad_setting_and_prepares_the_others(stamps):
    events = []
    X, Y = _data(n=80)
    failed = prepare.prepare([prepare.Setting("boomer", {"shrinkage": 7.0}, "bad"),
                              prepare.Setting("boomer", {}, "good")],
                             {"X": X, "Y": Y}, events.append)
    assert failed == 1
    errors = [e for e in events if e["event"] == "error"]
    assert len(errors) == 1 and errors[0]["label"] == "bad" and "shrinkage" in errors[0]["message"]
    assert [e["label"] for e in events if e["event"] == "prepared"] == ["good"]


def test_default_settings_start_with_boomer_and_cover_every_preset():
    from engine import registry

    settings = prepare.default_settings()
    assert settings[0].learner == "boomer" and dict(settings[0].params) == {}
    for spec in registry.learners():
        labels = {s.label for s in settings if s.learner == spec.key}
        assert f"{spec.key}: defaults" in labels
        assert all(f"{spec.key}: {name}" in labels for name in spec.presets)
    builtin = prepare.builtin_data()
    ds = make_synthetic("conditional-dependence", 2000, 6, 0)
    assert np.array_equal(builtin["X"], ds.X)


def test_settings_with_the_same_kernels_are_prepared_once():
    data = prepare.builtin_data()
    boomer = [s for s in prepare.default_settings(["boomer"])]
    distinct = prepare.distinct_settings(boomer, data)
    labels = [s.label for s in distinct]
    # the defaults (mlrl-boomer's: complete heads, 32-bit statistics) and the fifth preset (the same
    # values spelled out) compile the same kernels; the paper's four Figure 1 presets each their own
    assert "boomer: defaults" in labels and "boomer: mlrl-boomer 0.15.6 defaults" not in labels
    assert len(distinct) == 5
    bad = prepare.Setting("boomer", {"shrinkage": 7.0}, "bad")
    assert bad in prepare.distinct_settings([bad, bad], data)  # invalid: kept, so preparing reports it
