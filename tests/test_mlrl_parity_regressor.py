"""Parity of :class:`engine.boomer.BoomerRegressor` with mlrl-boomer 0.15.6's ``BoomerRegressor`` (the
reference), run in its own interpreter through ``engine/bench/regressor_driver.py``: the same
parameters, defaults and values, and with deterministic settings (64-bit statistics, no sampling, no binning,
no holdout) the same rules and predictions on ``atp7d`` (Mulan's 6-target data) and a synthetic 3-target set.

Where the two part, the test names why:

- an exact tie (two conditions covering the same training examples, so the same head): ours takes the earlier
  attribute, as the classifier does (``engine.core.refinement.TIE_TOLERANCE``), the reference the one whose sums
  happened to round lower;
- the reference's single-output (and partial) heads on dense targets recompute the statistics of outputs
  0..n-1 instead of the head's outputs (``DecomposableRegressionLoss::updateDecomposableStatistics`` with a
  ``PartialIndexVector``), so after a head for another output its statistics stay stale and it learns the same
  rule again; ours updates the head's outputs.  For such heads its non-decomposable loss recomputes the covered
  examples' statistics with every target read as a label (+1 if non-zero, else -1); ours with the targets.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_regression

from engine.boomer import BoomerRegressor
from test_mlrl_parity import ask_reference, reference_missing

DRIVER = Path(__file__).resolve().parents[1] / "engine" / "bench" / "regressor_driver.py"
DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"

_WHY = reference_missing("mlrl.boosting", "mlrl-boomer")
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")

DETERMINISTIC = dict(statistic_type="64-bit", feature_sampling="none", instance_sampling="none",
                     feature_binning="none", holdout="none")
# the reference's effective defaults (its C++ BoomerRegressor::Config::useDefaults, 0.15.6), as ours spells them
DEFAULTS = dict(random_state=1, feature_format=None, output_format=None, prediction_format=None,
                statistic_format=None, statistic_type="32-bit", default_rule="auto", rule_induction="top-down-greedy",
                max_rules=1000, time_limit=0, global_pruning="none", post_optimization="none", head_type="auto",
                loss="squared-error-decomposable", output_sampling="none", instance_sampling="none",
                feature_sampling="without-replacement", holdout="auto", feature_binning="auto", rule_pruning="none",
                shrinkage=0.3, l1_regularization_weight=0.0, l2_regularization_weight=1.0,
                parallel_rule_refinement=None, parallel_statistic_update=None, parallel_prediction=None)


def _ask(request: dict, tmp_path) -> dict:
    return ask_reference(DRIVER, request, tmp_path)


def synthetic():
    """make_regression's 3 targets, standardized and halved (the non-decomposable loss of the reference is
    the Euclidean norm only while |y|^2 < the number of targets), attributes rounded to 3 decimals."""
    X, Y = make_regression(240, 8, n_targets=3, random_state=1, noise=10.0)
    Y = 0.5 * (Y - Y.mean(axis=0)) / Y.std(axis=0)
    X = np.round(X, 3)
    return X[:160], Y[:160], X[160:], Y[160:]


def atp7d():
    if not (DATA_DIR / "atp7d.arff").exists():
        pytest.skip(f"atp7d.arff not found in {DATA_DIR}")
    from engine.datasets import load

    data = load(DATA_DIR / "atp7d.arff")
    X, Y = data.X.astype(np.float64), data.Y.astype(np.float64)
    return X[:200], Y[:200], X[200:], Y[200:]


DATA = {"synthetic": synthetic, "atp7d": atp7d}


def _fit_both(data: str, settings: dict, tmp_path):
    X, Y, X_test, Y_test = DATA[data]()
    path = tmp_path / "data.npz"
    np.savez(path, X_train=X, Y_train=Y, X_test=X_test)
    ref = _ask({"kind": "fit", "data": str(path), "settings": settings, "rules": True, "incremental": 1}, tmp_path)
    ours = BoomerRegressor(**settings).fit(X, Y)
    return ref, ours, X, X_test, Y_test


def _body(conditions) -> list:
    """A body as a sorted list of (attribute, operator, float32 threshold): the reference lists conditions
    by kind, ours in the order they were added."""
    if conditions and isinstance(conditions[0], (list, tuple)):
        return sorted((int(a), op, float(np.float32(t))) for a, op, t in conditions)
    return sorted((c.attribute, c.operator, float(np.float32(c.threshold))) for c in conditions)


def _covered(body, X) -> np.ndarray:
    covered = np.ones(X.shape[0], dtype=bool)
    X32 = X.astype(np.float32)
    for a, op, t in body:
        covered &= (X32[:, a] <= np.float32(t)) if op == "<=" else (X32[:, a] > np.float32(t))
    return covered


def _same_until(ref, ours, X, n: int, rtol: float = 1e-9) -> int:
    """How many of the first ``n`` rules (the default rule first) have the reference's body and head."""
    for i in range(min(n, len(ref["rules"]), len(ours.rules_))):
        a, b = ref["rules"][i], ours.rules_[i]
        if _body(a["conditions"]) != _body(b.conditions) or not np.allclose(a["scores"], b.head_scores, rtol=rtol,
                                                                          atol=1e-12):
            return i
    return min(n, len(ref["rules"]), len(ours.rules_))


def _same_predictions(ref, ours, X_test, n: int) -> None:
    ours_steps = list(ours.predict_incrementally(X_test))
    assert len(ours_steps) == len(ref["incremental"])
    for i in range(min(n, len(ours_steps))):
        np.testing.assert_allclose(ours_steps[i], np.asarray(ref["incremental"][i]), rtol=0, atol=1e-6,
                                   err_msg=f"after rule {i}")


# -- parameters --------------------------------------------------------------------------------------------

def test_parameter_names_and_effective_defaults(tmp_path):
    """The same 26 names; ours spells the reference's effective defaults (its None), which
    ``BoomerRegressor(**reference.get_params())`` resolves to: the same model as ``BoomerRegressor()``."""
    ref_params = _ask({"kind": "params"}, tmp_path)
    assert set(BoomerRegressor().get_params()) == set(ref_params) and len(ref_params) == 26
    assert BoomerRegressor().get_params() == DEFAULTS
    X, Y, _, _ = synthetic()
    given = BoomerRegressor(**{**ref_params, "max_rules": 5}).fit(X, Y)
    default = BoomerRegressor(max_rules=5).fit(X, Y)
    np.testing.assert_array_equal(given.predict(X), default.predict(X))


def test_the_default_model_is_the_references(tmp_path):
    """The reference's defaults (32-bit statistics, attributes sampled as its generator draws them): the same
    rules and, to float32's precision, the same predictions."""
    settings = {"max_rules": 20}
    ref, ours, X, X_test, _ = _fit_both("synthetic", settings, tmp_path)
    assert _same_until(ref, ours, X, 20, rtol=1e-4) == 20  # float32 statistics: the sums' rounding differs
    np.testing.assert_allclose(ours.predict(X_test), np.asarray(ref["predictions"]), rtol=1e-5, atol=1e-5)


VALID = [
    {"loss": "squared-error-non-decomposable"},
    {"head_type": "single"}, {"head_type": "complete"}, {"head_type": "partial-fixed{output_ratio=0.5}"},
    {"head_type": "partial-dynamic{threshold=0.1,exponent=1.5}"},
    {"instance_sampling": "with-replacement{sample_size=0.5}"}, {"instance_sampling": "without-replacement"},
    {"feature_sampling": "none"}, {"output_sampling": "round-robin"}, {"output_sampling": "without-replacement"},
    {"holdout": "random", "global_pruning": "post-pruning{min_rules=2}"},
    {"global_pruning": "pre-pruning{min_rules=2,num_past=2,num_recent=2}"},
    {"feature_binning": "equal-width"}, {"feature_binning": "equal-frequency{bin_ratio=0.5}"},
    {"rule_induction": "top-down-beam-search{beam_width=2}"}, {"rule_pruning": "irep",
                                                               "instance_sampling": "without-replacement"},
    {"post_optimization": "sequential{num_iterations=1}"}, {"statistic_type": "64-bit"},
    {"statistic_format": "sparse"}, {"default_rule": "false"}, {"time_limit": 5}, {"shrinkage": 1.0},
    {"l1_regularization_weight": 0.5}, {"l2_regularization_weight": 0.0},
    {"parallel_rule_refinement": "false"}, {"parallel_statistic_update": "true{num_preferred_threads=2}"},
    {"parallel_prediction": "false"}, {"prediction_format": "dense"}, {"feature_format": "sparse"},
    {"output_format": "dense"}, {"random_state": 7},
]


@pytest.mark.parametrize("settings", VALID, ids=[",".join(f"{k}={v}" for k, v in s.items()) for s in VALID])
def test_every_value_the_reference_takes_is_accepted_and_fits(settings, tmp_path):
    settings = {"max_rules": 6, **settings}
    assert _ask({"kind": "check", "settings": settings}, tmp_path)["ok"]
    X, Y, X_test, _ = synthetic()
    est = BoomerRegressor(**settings).fit(X, Y)
    assert 1 <= len(est.rules_) <= 6 and est.predict(X_test).shape == (X_test.shape[0], 3)


INVALID = [{"loss": "logistic-decomposable"}, {"holdout": "stratified-output-wise"},
           {"instance_sampling": "stratified-output-wise"}, {"instance_sampling": "stratified-example-wise"},
           {"head_type": "bogus"}, {"shrinkage": 0.0}, {"max_rules": -1}, {"statistic_type": "16-bit"},
           {"holdout": "random{holdout_set_size=1.0}"}]


@pytest.mark.parametrize("settings", INVALID, ids=[",".join(f"{k}={v}" for k, v in s.items()) for s in INVALID])
def test_values_the_reference_refuses_are_refused(settings, tmp_path):
    assert not _ask({"kind": "check", "settings": settings}, tmp_path)["ok"]
    X, Y, _, _ = synthetic()
    with pytest.raises(ValueError, match=next(iter(settings))):
        BoomerRegressor(**settings).fit(X, Y)


# -- rules and predictions with deterministic settings -------------------------------------------------------

def test_decomposable_complete_heads_synthetic(tmp_path):
    """Every one of 100 rules and the predictions after each of the first 10 are the reference's; so is the
    test MSE after 100 rules (within 1 %)."""
    settings = {**DETERMINISTIC, "loss": "squared-error-decomposable", "head_type": "complete", "max_rules": 100}
    ref, ours, X, X_test, Y_test = _fit_both("synthetic", settings, tmp_path)
    assert _same_until(ref, ours, X, 100) == 100
    _same_predictions(ref, ours, X_test, 10)
    ref_mse = np.mean((np.asarray(ref["predictions"]) - Y_test) ** 2)
    assert abs(np.mean((ours.predict(X_test) - Y_test) ** 2) / ref_mse - 1) < 0.01


def test_decomposable_complete_heads_atp7d_to_the_first_tie(tmp_path):
    """The first 9 rules and their predictions are the reference's; the 10th is an exact tie: the
    conditions ``x69 > 4.5`` (ours, the earlier attribute) and ``x78 <= 36.5`` (the reference's) cover the
    same training examples, so both rules have the same head."""
    settings = {**DETERMINISTIC, "loss": "squared-error-decomposable", "head_type": "complete", "max_rules": 10}
    ref, ours, X, X_test, _ = _fit_both("atp7d", settings, tmp_path)
    assert _same_until(ref, ours, X, 10) == 9
    _same_predictions(ref, ours, X_test, 9)
    a, b = _body(ref["rules"][9]["conditions"]), _body(ours.rules_[9].conditions)
    assert set(a) ^ set(b) == {(69, ">", 4.5), (78, "<=", 36.5)}
    np.testing.assert_array_equal(_covered(a, X), _covered(b, X))
    np.testing.assert_allclose(ours.rules_[9].head_scores, ref["rules"][9]["scores"], rtol=1e-12)


def test_non_decomposable_complete_heads_synthetic(tmp_path):
    """The first 10 rules and predictions are the reference's (complete heads solve the full system, an
    indefinite one as the reference's sysv, engine.core.indefinite).  Later its systems get ill-conditioned and
    rounding decides: no comparison after 100 rules."""
    settings = {**DETERMINISTIC, "loss": "squared-error-non-decomposable", "head_type": "complete", "max_rules": 10}
    ref, ours, X, X_test, _ = _fit_both("synthetic", settings, tmp_path)
    assert _same_until(ref, ours, X, 10) == 10
    _same_predictions(ref, ours, X_test, 10)


def test_non_decomposable_complete_heads_atp7d(tmp_path):
    """atp7d's prices (|y|^2 far above 6) leave no condition that improves the reference's objective: both
    learn the default rule only, with the same head."""
    settings = {**DETERMINISTIC, "loss": "squared-error-non-decomposable", "head_type": "complete", "max_rules": 10}
    ref, ours, X, X_test, _ = _fit_both("atp7d", settings, tmp_path)
    assert ref["n_rules"] == len(ours.rules_) == 1
    _same_predictions(ref, ours, X_test, 1)


@pytest.mark.parametrize("data", ["synthetic", "atp7d"])
def test_single_output_heads_until_the_references_stale_statistics(data, tmp_path):
    """The default rule and the first single-output rule are the reference's.  Its first rule's head predicts an
    output other than 0 here, whose statistics the reference then leaves stale (the module docstring): its
    second rule repeats the first, ours, on fresh statistics, is another."""
    settings = {**DETERMINISTIC, "loss": "squared-error-decomposable", "head_type": "single", "max_rules": 3}
    ref, ours, X, X_test, _ = _fit_both(data, settings, tmp_path)
    assert _same_until(ref, ours, X, 3) == 2
    _same_predictions(ref, ours, X_test, 2)
    first, second = ref["rules"][1], ref["rules"][2]
    assert first["labels"] != [0] and first == second
    assert _body(ours.rules_[2].conditions) != _body(first["conditions"])


def _diagonal_statistics(F, Y):
    """The non-decomposable squared error's gradients and Hessian diagonal (the reference's arithmetic)."""
    x = F * F - 2 * Y * F + 1
    s = x.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        g, h = (F - Y) / np.sqrt(s), (s - x) / s ** 1.5
    return np.where(np.isfinite(g), g, 0.0), np.where(np.isfinite(h), h, 0.0)


def test_single_output_heads_non_decomposable_until_the_references_label_signs(tmp_path):
    """The default rule and the first single-output rule are the reference's.  It then recomputes the covered
    examples' statistics with each target read as a label, +1 if non-zero, else -1 (its non-decomposable
    loss's ``updateDecomposableStatistics`` for a ``PartialIndexVector`` on a dense regression matrix passes
    ``binaryConversionFunction``): its second rule's head is what those statistics give, ours is another."""
    settings = {**DETERMINISTIC, "loss": "squared-error-non-decomposable", "head_type": "single", "max_rules": 3}
    ref, ours, X, X_test, _ = _fit_both("synthetic", settings, tmp_path)
    assert _same_until(ref, ours, X, 2) == 2
    _same_predictions(ref, ours, X_test, 2)
    Y = synthetic()[1].astype(np.float32).astype(np.float64)
    F = np.zeros_like(Y)
    F[:] = ref["rules"][0]["scores"]
    first = _covered(_body(ref["rules"][1]["conditions"]), X)
    F[first, ref["rules"][1]["labels"][0]] += ref["rules"][1]["scores"][0]
    G, H = _diagonal_statistics(F, Y)
    G[first], H[first] = _diagonal_statistics(F[first], np.where(Y[first] != 0, 1.0, -1.0))
    second, k = _covered(_body(ref["rules"][2]["conditions"]), X), ref["rules"][2]["labels"][0]
    head = -G[second, k].sum() / (H[second, k].sum() + 1.0) * float(np.float32(0.3))
    assert head == pytest.approx(ref["rules"][2]["scores"][0], rel=1e-9)
    assert _body(ours.rules_[2].conditions) != _body(ref["rules"][2]["conditions"])


def test_incremental_predictions_are_the_references(tmp_path):
    settings = {**DETERMINISTIC, "head_type": "complete", "max_rules": 8}
    ref, ours, X, X_test, _ = _fit_both("synthetic", settings, tmp_path)
    _same_predictions(ref, ours, X_test, 8)


@pytest.mark.parametrize("pruning", ["post-pruning{min_rules=5}", "pre-pruning{min_rules=5,num_past=3,num_recent=3}"])
def test_the_automatic_holdout_set_is_the_references_random_one(pruning, tmp_path):
    """``holdout`` left to 'auto' is, with global pruning, a random holdout set (a regressor's; a classifier's is
    stratified) drawn as the reference draws it: the default rule from every example (the holdout set's too),
    the first rule from the training examples it covers, both the reference's.  (Later thresholds may differ,
    as the classifier's do: the reference's midpoints also see the holdout set's values,
    tests/test_mlrl_parity_random.py.)"""
    settings = {**DETERMINISTIC, "global_pruning": pruning, "head_type": "complete", "max_rules": 2}
    settings.pop("holdout")  # not given: the reference refuses the value 'auto' that ours spells its default
    ref, ours, X, X_test, _ = _fit_both("synthetic", settings, tmp_path)
    assert len(ours.holdout_indices_) == int(np.float32(0.33) * np.float32(len(X)))
    assert ref["n_rules"] == len(ours.rules_) == 2
    for a, b in zip(ref["rules"], ours.rules_):
        np.testing.assert_allclose(b.head_scores, a["scores"], rtol=1e-9)
