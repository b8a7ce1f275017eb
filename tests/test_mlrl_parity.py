"""Parity with mlrl-boomer 0.15.6 (the reference), run in its own interpreter through
``tests/mlrl_reference_driver.py``: same defaults, same refusals, same scores where the search is the
same.  ``MLRL_REFERENCE_PYTHON`` names the interpreter (default ``/work/refvenv/bin/python``); without
it every test here is skipped, saying why.

Where the two searches differ (see the README): mlrl-boomer never evaluates the threshold just above
the smallest non-negative value of an attribute among the covered examples (its descending pass stops
one entry early), so exact parity is checked on attributes with negative values only, where both
searches offer the same thresholds.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.boomer import BoomerClassifier, head_kind

REFERENCE = os.environ.get("MLRL_REFERENCE_PYTHON", "/work/refvenv/bin/python")
DRIVER = Path(__file__).with_name("mlrl_reference_driver.py")


def _reference_available() -> str | None:
    if not Path(REFERENCE).exists():
        return f"no reference interpreter at {REFERENCE} (set MLRL_REFERENCE_PYTHON to a Python with mlrl-boomer)"
    probe = subprocess.run([REFERENCE, "-c", "import mlrl.boosting"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{REFERENCE} cannot import mlrl.boosting"
    return None


_WHY = _reference_available()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _ask(request: dict, tmp_path) -> dict:
    path = tmp_path / f"request-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(request))
    proc = subprocess.run([REFERENCE, str(DRIVER), str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _negative_data(n=240, d=6, k=4, seed=0):
    """Attributes with distinct negative values only; labels that depend on them."""
    rng = np.random.default_rng(seed)
    X = -(np.abs(rng.normal(size=(n, d))) + 0.05)
    X = np.round(X, 4).astype(np.float32).astype(np.float64)
    W = rng.normal(size=(d, k))
    Y = ((X @ W + 0.3 * rng.normal(size=(n, k))) > np.median(X @ W, axis=0)).astype(np.uint8)
    return X, Y


def _fit_both(settings: dict, tmp_path, n_train=160):
    X, Y = _negative_data()
    data = tmp_path / "data.npz"
    np.savez(data, X_train=X[:n_train], Y_train=Y[:n_train], X_test=X[n_train:])
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "rules": True}, tmp_path)
    ours = BoomerClassifier(**settings).fit(X[:n_train], Y[:n_train])
    return ref, ours, X[n_train:]


DETERMINISTIC = dict(loss="logistic-decomposable", head_type="complete", max_rules=12, instance_sampling="none",
                     feature_sampling="none", statistic_type="64-bit", feature_binning="none", label_binning="none",
                     holdout="none", global_pruning="none")


def test_same_rules_and_scores_with_deterministic_settings(tmp_path):
    """Label-wise logistic loss, complete heads, no sampling, 64-bit: every rule's conditions and
    head, the test scores and predictions are the reference's."""
    ref, ours, X_test = _fit_both(DETERMINISTIC, tmp_path)
    assert ref["n_rules"] == len(ours.rules_) == 12
    for theirs, mine in zip(ref["rules"], ours.rules_):
        key = sorted((c[0], c[1]) for c in theirs["conditions"])
        assert key == sorted((c.attribute, c.operator) for c in mine.conditions)
        # thresholds: the reference stores float32 midpoints
        t_ref = sorted((c[0], c[1], c[2]) for c in theirs["conditions"])
        t_our = sorted((c.attribute, c.operator, c.threshold) for c in mine.conditions)
        assert [t for *_, t in t_ref] == pytest.approx([t for *_, t in t_our], abs=1e-6)
        # the reference multiplies by the shrinkage in 32 bits (0.3f = 0.3 x (1 + 4e-8))
        assert theirs["scores"] == pytest.approx(list(mine.head_scores), rel=1e-7, abs=1e-12)
    np.testing.assert_allclose(ours.decision_function(X_test), np.asarray(ref["scores"]), rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X_test), np.asarray(ref["predictions"]))


def test_default_model_with_feature_sampling_none_is_the_references(tmp_path):
    """Both defaults (auto heads: complete; 32-bit statistics; no instance sampling; auto binning and
    holdout: none here), with only the random attribute samples switched off."""
    ref, ours, X_test = _fit_both({"feature_sampling": "none", "max_rules": 12}, tmp_path)
    assert ref["n_rules"] == len(ours.rules_)
    assert all(len(r["scores"]) == 4 for r in ref["rules"]) and all(len(r.head_scores) == 4 for r in ours.rules_)
    np.testing.assert_allclose(ours.decision_function(X_test), np.asarray(ref["scores"]), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X_test), np.asarray(ref["predictions"]))


@pytest.mark.parametrize("loss", ["logistic-decomposable", "squared-hinge-decomposable", "logistic-non-decomposable"])
def test_auto_head_type_resolves_as_the_reference(loss, tmp_path):
    """'auto' heads are complete heads (the reference's single-label heads for sparse statistics of
    the squared hinge loss need a sparse label matrix it prefers them for)."""
    settings = {**DETERMINISTIC, "loss": loss, "head_type": "auto", "max_rules": 4}
    settings.pop("label_binning")
    ref, ours, _ = _fit_both(settings, tmp_path)
    ref_sizes = {len(r["scores"]) for r in ref["rules"][1:]}
    our_sizes = {len(r.head_scores) for r in ours.rules_[1:]}
    assert ref_sizes == our_sizes == {4} and head_kind(loss, "auto") == "complete"


@pytest.mark.parametrize("settings", [
    {"instance_sampling": "with-replacement{sample_size=0}"},
    {"instance_sampling": "with-replacement{sample_size=1.5}"},
    {"instance_sampling": "without-replacement{min_samples=0}"},
    {"feature_sampling": "without-replacement{sample_size=1.0}"},
    {"head_type": "bogus"},
    {"shrinkage": 0.0},
    {"max_rules": -1},
    {"global_pruning": "pre-pruning{aggregation=median}"},
    {"global_pruning": "pre-pruning{aggregation=arithmetic-mean}"},
    {"rule_induction": "top-down-greedy{max_conditions=-1}"},
    {"rule_induction": "top-down-greedy{min_support=1.0}"},
    {"label_binning": "equal-width{bin_ratio=0}"},
    {"holdout": "random{holdout_set_size=0}"},
    {"holdout": "random{holdout_set_size=1.0}"},
    {"statistic_type": "16-bit"},
])
def test_invalid_values_are_refused_by_both(settings, tmp_path):
    answer = _ask({"kind": "check", "settings": settings}, tmp_path)
    assert not answer["ok"], f"the reference accepts {settings}"
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    with pytest.raises(ValueError):
        BoomerClassifier(**settings).fit(X, Y)


@pytest.mark.parametrize("settings", [
    {"instance_sampling": "with-replacement"},
    {"instance_sampling": "without-replacement{sample_size=0.5}"},
    {"instance_sampling": "stratified-output-wise{sample_size=0.5,min_samples=2,max_samples=30}"},
    {"instance_sampling": "stratified-example-wise"},
    {"feature_sampling": "without-replacement{sample_size=0.5}"},
    {"global_pruning": "pre-pruning{aggregation=avg,min_rules=5,num_past=2,num_recent=2}"},
    {"rule_induction": "top-down-greedy{max_conditions=2,min_coverage=3,min_support=0.1}"},
    {"statistic_type": "32-bit"},
    {"head_type": "partial-dynamic{threshold=0.1,exponent=1.5}"},
    {"holdout": "random", "global_pruning": "post-pruning{min_rules=2}"},
])
def test_valid_values_are_accepted_by_both(settings, tmp_path):
    settings = {"max_rules": 8, **settings}
    answer = _ask({"kind": "check", "settings": settings}, tmp_path)
    assert answer["ok"], answer
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    assert len(BoomerClassifier(**settings).fit(X, Y).rules_) >= 1


@pytest.mark.parametrize("parameter", ["holdout", "feature_binning", "label_binning"])
def test_auto_is_only_the_references_default_not_a_value(parameter, tmp_path):
    """mlrl-boomer 0.15.6 resolves these parameters 'automatically' when they are not given but
    refuses the value 'auto'; ours spells its default 'auto' and accepts it (a documented difference)."""
    answer = _ask({"kind": "check", "settings": {parameter: "auto", "max_rules": 3}}, tmp_path)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    assert len(BoomerClassifier(**{parameter: "auto", "max_rules": 3}).fit(X, Y).rules_) == 3
    assert BoomerClassifier().get_params()[parameter] == "auto"
    if parameter == "holdout":
        assert not answer["ok"] and "auto" in answer["message"]
