"""``post_optimization`` against mlrl-boomer 0.15.6 (run through ``tests/mlrl_reference_driver.py``;
skipped, saying why, without the reference): the same refusals and acceptances, and with
deterministic settings (no sampling, 64-bit statistics, attributes with negative values, where both
numeric searches offer the same thresholds) the same rules and scores after the relearning."""
from __future__ import annotations

import numpy as np
import pytest

from engine.boomer import BoomerClassifier

from test_mlrl_parity import _WHY, DETERMINISTIC, DRIVER, _negative_data, ask_reference  # noqa: E402 - the shared driver

pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


@pytest.mark.parametrize("value", ["sequential{num_iterations=0}", "sequential{bogus=1}",
                                   "sequential{refine_heads=yes}", "none{num_iterations=2}"])
def test_invalid_values_are_refused_by_both(value, tmp_path):
    answer = ask_reference(DRIVER, {"kind": "check", "settings": {"post_optimization": value, "max_rules": 3}},
                           tmp_path)
    assert not answer["ok"], f"the reference accepts {value!r}"
    X, Y = _negative_data(40, 4, 3)
    with pytest.raises(ValueError, match="post_optimization"):
        BoomerClassifier(post_optimization=value, max_rules=3).fit(X, Y)


@pytest.mark.parametrize("value", ["sequential{}",
                                   "sequential{num_iterations=3,refine_heads=true,resample_features=false}"])
def test_valid_values_are_accepted_by_both(value, tmp_path):
    answer = ask_reference(DRIVER, {"kind": "check", "settings": {"post_optimization": value, "max_rules": 3}},
                           tmp_path)
    assert answer["ok"], answer
    X, Y = _negative_data(40, 4, 3)
    BoomerClassifier(post_optimization=value, max_rules=3).fit(X, Y)


CASES = [
    {"post_optimization": "sequential"},
    {"post_optimization": "sequential{resample_features=false}"},
    {"post_optimization": "sequential{num_iterations=3,refine_heads=true}"},
    {"post_optimization": "sequential", "head_type": "single"},
    {"post_optimization": "sequential{refine_heads=true}", "head_type": "single"},
    {"post_optimization": "sequential", "loss": "logistic-non-decomposable"},
    {"post_optimization": "sequential", "output_sampling": "round-robin"},
    {"post_optimization": "sequential{refine_heads=true}", "output_sampling": "round-robin"},
]


@pytest.fixture(scope="module")
def reference_fits(tmp_path_factory):
    """The reference's models of every case (one fit each), on the first 160 of 240 examples."""
    tmp = tmp_path_factory.mktemp("post-optimization")
    X, Y = _negative_data()
    data = tmp / "data.npz"
    np.savez(data, X_train=X[:160], Y_train=Y[:160], X_test=X[160:])
    return X, Y, [ask_reference(DRIVER, {"kind": "fit", "data": str(data), "settings": {**DETERMINISTIC, **case},
                                         "rules": True}, tmp) for case in CASES]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[" ".join(f"{k}={v}" for k, v in c.items()) for c in CASES])
def test_same_rules_and_scores_after_post_optimization(case, reference_fits):
    """Every rule (conditions, float32 thresholds, head) after the relearning, the test scores and
    predictions are the reference's; the relearning changed the model (it is not the plain fit)."""
    X, Y, answers = reference_fits
    ref, settings = answers[case], {**DETERMINISTIC, **CASES[case]}
    ours = BoomerClassifier(**settings).fit(X[:160], Y[:160])
    assert ref["n_rules"] == len(ours.rules_) == DETERMINISTIC["max_rules"]
    for theirs, mine in zip(ref["rules"], ours.rules_):
        assert sorted((c[0], c[1]) for c in theirs["conditions"]) == sorted((c.attribute, c.operator)
                                                                            for c in mine.conditions)
        t_ref = sorted((c[0], c[1], c[2]) for c in theirs["conditions"])
        t_our = sorted((c.attribute, c.operator, c.threshold) for c in mine.conditions)
        assert [t for *_, t in t_ref] == pytest.approx([t for *_, t in t_our], abs=1e-6)
        # the reference shrinks in 32 bits (0.3f); revisions take such heads back and add new ones
        assert theirs["scores"] == pytest.approx(list(mine.head_scores), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(ours.decision_function(X[160:]), np.asarray(ref["scores"]), rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X[160:]), np.asarray(ref["predictions"]))
    plain = BoomerClassifier(**{**settings, "post_optimization": "none"}).fit(X[:160], Y[:160])
    assert [str(r) for r in plain.rules_] != [str(r) for r in ours.rules_]
