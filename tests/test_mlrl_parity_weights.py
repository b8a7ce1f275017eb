"""Parity with mlrl-boomer 0.15.6 (the reference) for ``sample_weight``, ``output_sampling`` and the
attribute-type keywords of ``fit`` (``feature_sampling``'s ``num_retained``: tests/test_mlrl_parity_search.py),
run in the reference's own interpreter through ``tests/mlrl_reference_driver.py`` (``MLRL_REFERENCE_PYTHON``
names it; without it every test here is skipped, saying why).

The reference passes ``sample_weight`` to its instance sampling only, and only sampling with
replacement uses it (each draw adds the example's weight): without it the weights change nothing in
either learner.  Random samples (draws, output samples) come from different random generators, so
only deterministic settings are compared rule by rule.
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.model import rule_coverage
from engine.rules import Condition
from test_mlrl_parity import DETERMINISTIC, _WHY, _ask, _negative_data

pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _data(tmp_path, weights=None, n_train=160):
    X, Y = _negative_data()
    path = tmp_path / f"data-{len(list(tmp_path.iterdir()))}.npz"
    arrays = dict(X_train=X[:n_train], Y_train=Y[:n_train], X_test=X[n_train:])
    if weights is not None:
        arrays["sample_weight"] = weights
    np.savez(path, **arrays)
    return path, X[:n_train], Y[:n_train], X[n_train:]


def _reference(settings, tmp_path, weights=None, **request):
    path, *_ = _data(tmp_path, weights)
    return _ask({"kind": "fit", "data": str(path), "settings": settings, "rules": True, **request}, tmp_path)


def _same_rules(ref: dict, ours: BoomerClassifier, X_test) -> None:
    assert ref["n_rules"] == len(ours.rules_)
    for theirs, mine in zip(ref["rules"], ours.rules_):
        assert sorted((c[0], c[1]) for c in theirs["conditions"]) == sorted(
            (c.attribute, c.operator) for c in mine.conditions)
        labels = theirs["labels"] if theirs["labels"] is not None else list(range(len(theirs["scores"])))
        assert labels == [int(k) for k in mine.head_labels]
        assert theirs["scores"] == pytest.approx(list(mine.head_scores), rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(ours.decision_function(X_test), np.asarray(ref["scores"]), rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X_test), np.asarray(ref["predictions"]))


WEIGHTS = np.random.default_rng(5).random(160) * 3  # real-valued, some near zero


@pytest.mark.parametrize("sampling", ["none", "without-replacement{sample_size=0.5}", "stratified-output-wise"])
def test_weights_change_nothing_without_sampling_with_replacement_in_both(sampling, tmp_path):
    settings = {**DETERMINISTIC, "instance_sampling": sampling}
    weighted = _reference(settings, tmp_path, WEIGHTS)
    plain = _reference(settings, tmp_path)
    assert weighted["scores"] == plain["scores"]
    _, X, Y, X_test = _data(tmp_path)
    ours_weighted = BoomerClassifier(**settings).fit(X, Y, sample_weight=WEIGHTS)
    ours_plain = BoomerClassifier(**settings).fit(X, Y)
    np.testing.assert_array_equal(ours_weighted.decision_function(X_test), ours_plain.decision_function(X_test))
    if sampling == "none":  # deterministic: the same model as the reference's
        _same_rules(weighted, ours_weighted, X_test)


def test_weights_change_the_draws_of_sampling_with_replacement_in_both(tmp_path):
    settings = {**DETERMINISTIC, "instance_sampling": "with-replacement"}
    weighted = _reference(settings, tmp_path, WEIGHTS)
    plain = _reference(settings, tmp_path)
    ones = _reference(settings, tmp_path, np.ones(160))
    assert weighted["scores"] != plain["scores"] and ones["scores"] == plain["scores"]
    _, X, Y, X_test = _data(tmp_path)
    ours = [BoomerClassifier(**settings).fit(X, Y, sample_weight=w).decision_function(X_test)
            for w in (WEIGHTS, None, np.ones(160))]
    assert not np.array_equal(ours[0], ours[1])
    np.testing.assert_array_equal(ours[1], ours[2])


@pytest.mark.parametrize("weights", [-np.ones(40), np.full(40, np.nan), np.full(40, np.inf)])
def test_invalid_weights_are_refused_by_both(weights, tmp_path):
    """Negative, NaN and infinite weights: a ValueError in both.  (A wrong number of weights the
    reference accepts without a word; ours refuses it, see tests/test_boomer_sampling_weights.py.)"""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    path = tmp_path / "bad.npz"
    np.savez(path, X_train=X, Y_train=Y, X_test=X, sample_weight=weights)
    request = tmp_path / "bad.json"
    import json

    from reference_process import run_driver
    from test_mlrl_parity import DRIVER, REFERENCE
    request.write_text(json.dumps({"kind": "fit", "data": str(path), "settings": {"max_rules": 3}}))
    proc = run_driver(REFERENCE, DRIVER, request, 300)
    assert proc.returncode != 0 and "ValueError" in proc.stderr
    with pytest.raises(ValueError, match="sample_weight"):
        BoomerClassifier(max_rules=3).fit(X, Y, sample_weight=weights)


# -- output sampling -------------------------------------------------------------------------------

@pytest.mark.parametrize("head_type", ["complete", "single"])
@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable"])
def test_round_robin_output_sampling_gives_the_references_rules(head_type, loss, tmp_path):
    """Round-robin: rule t after the default rule predicts label (t - 1) mod K only; deterministic, so
    every rule and score is the reference's."""
    settings = {**DETERMINISTIC, "output_sampling": "round-robin", "head_type": head_type, "loss": loss}
    ref = _reference(settings, tmp_path)
    _, X, Y, X_test = _data(tmp_path)
    ours = BoomerClassifier(**settings).fit(X, Y)
    assert [list(r.head_labels) for r in ours.rules_[1:]] == [[t % 4] for t in range(len(ours.rules_) - 1)]
    _same_rules(ref, ours, X_test)


@pytest.mark.parametrize("value", ["without-replacement{sample_size=0}", "without-replacement{sample_size=1.0}",
                                   "without-replacement{min_samples=0}",
                                   "without-replacement{min_samples=3,max_samples=2}", "round-robin{sample_size=0.5}",
                                   "random"])
def test_invalid_output_sampling_is_refused_by_both(value, tmp_path):
    answer = _ask({"kind": "check", "settings": {"output_sampling": value}}, tmp_path)
    assert not answer["ok"], f"the reference accepts {value}"
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    with pytest.raises(ValueError):
        BoomerClassifier(max_rules=3, output_sampling=value).fit(X, Y)


@pytest.mark.parametrize("value", ["none", "round-robin", "without-replacement",
                                   "without-replacement{sample_size=0.5,min_samples=2,max_samples=0}"])
def test_valid_output_sampling_is_accepted_by_both(value, tmp_path):
    answer = _ask({"kind": "check", "settings": {"output_sampling": value, "max_rules": 5}}, tmp_path)
    assert answer["ok"], answer
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(40, 4)), (rng.random((40, 3)) < 0.4).astype(np.uint8)
    assert len(BoomerClassifier(max_rules=5, output_sampling=value).fit(X, Y).rules_) == 5


def test_output_sampling_without_replacement_defaults_to_one_label_per_rule_in_both(tmp_path):
    settings = {**DETERMINISTIC, "output_sampling": "without-replacement"}
    ref = _reference(settings, tmp_path)
    _, X, Y, _ = _data(tmp_path)
    ours = BoomerClassifier(**settings).fit(X, Y)
    assert all(len(r["scores"]) == 1 for r in ref["rules"][1:])
    assert all(len(r.head_labels) == 1 for r in ours.rules_[1:])


# -- ordinal attributes -------------------------------------------------------------------------------

def _ordinal_data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(-3, 7, n), rng.integers(0, 2, n), rng.normal(size=n).round(3) - 5,
                         rng.integers(1, 12, n)]).astype(float)
    Y = np.column_stack([(X[:, 0] > 2) ^ (rng.random(n) < .1), (X[:, 3] <= 4) | (X[:, 1] == 1),
                         X[:, 2] < -5]).astype(np.uint8)
    return X, Y


@pytest.mark.parametrize("head_type", ["complete", "single"])
def test_ordinal_attributes_give_the_references_rules(head_type, tmp_path):
    """Ordinal attributes (integer thresholds, '<=' / '>'), a binary one ('=='), a numeric one with
    negative values: deterministic settings, every condition, head and test score the reference's."""
    X, Y = _ordinal_data()
    path = tmp_path / "ordinal.npz"
    np.savez(path, X_train=X[:160], Y_train=Y[:160], X_test=X[160:])
    settings = {**DETERMINISTIC, "head_type": head_type}
    ref = _ask({"kind": "fit", "data": str(path), "settings": settings, "rules": True,
                "fit_kwargs": {"ordinal_feature_indices": [0, 1, 3]}}, tmp_path)
    ours = BoomerClassifier(**settings).fit(X[:160], Y[:160], ordinal_feature_indices=[0, 1, 3])
    assert ref["n_rules"] == len(ours.rules_)
    same_conditions = 0
    for theirs, mine in zip(ref["rules"], ours.rules_):
        t_ref = sorted((c[0], c[1], c[2]) for c in theirs["conditions"])
        t_our = sorted((c.attribute, c.operator, c.threshold) for c in mine.conditions)
        if [c[:2] for c in t_ref] == [c[:2] for c in t_our]:
            same_conditions += 1
            assert [c[2] for c in t_ref] == pytest.approx([c[2] for c in t_our], abs=1e-6)
        else:  # the reference reached the rule by another path (a redundant condition): the same examples
            for part in (X[:160], X[160:]):
                theirs_cover = np.all([Condition(a, o, t).covers(part[:, a]) for a, o, t in t_ref], axis=0)
                assert np.array_equal(theirs_cover, rule_coverage(mine, part.astype(np.float32)))
        # the reference's shrinkage is 0.3 in float32: scores drift by ~1e-8 over the rules
        assert theirs["scores"] == pytest.approx(list(mine.head_scores), rel=1e-6, abs=1e-8)
    assert same_conditions >= len(ours.rules_) - 1
    np.testing.assert_allclose(ours.decision_function(X[160:]), np.asarray(ref["scores"]), rtol=1e-6, atol=1e-9)
