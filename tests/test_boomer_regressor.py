"""BoomerRegressor as a scikit-learn regressor: the estimator checks (multi-output regression tags), real
targets in and out, fit_iter streaming rules with their MSE, incremental predictions, clear errors."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import is_regressor
from sklearn.datasets import make_regression
from sklearn.utils.estimator_checks import parametrize_with_checks

from engine.boomer import BoomerRegressor

_WEIGHTS_AS_THE_REFERENCE = ("sample_weight weighs only the draws of instance_sampling='with-replacement', as in "
                             "mlrl-boomer 0.15.6: integer weights are not repeated rows")


def expected_failures(estimator) -> dict[str, str]:
    return {"check_sample_weight_equivalence_on_dense_data": _WEIGHTS_AS_THE_REFERENCE,
            "check_sample_weight_equivalence_on_sparse_data": _WEIGHTS_AS_THE_REFERENCE}


@parametrize_with_checks([BoomerRegressor(max_rules=10)], expected_failed_checks=expected_failures)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _data(n=120, targets=3, seed=0):
    X, Y = make_regression(n, 5, n_targets=targets, random_state=seed, noise=1.0)
    return np.round(X, 3), Y


def test_is_a_multi_output_regressor_with_real_predictions():
    X, Y = _data()
    est = BoomerRegressor(max_rules=30, statistic_type="64-bit")
    assert is_regressor(est) and est.__sklearn_tags__().target_tags.multi_output
    P = est.fit(X, Y).predict(X)
    assert P.shape == Y.shape and P.dtype == np.float64
    assert np.mean((P - Y) ** 2) < 0.5 * np.mean((Y - Y.mean(axis=0)) ** 2)  # learns something
    assert not hasattr(est, "predict_proba") and not hasattr(est, "decision_function")
    y = Y[:, 0]
    assert BoomerRegressor(max_rules=5).fit(X, y).predict(X).shape == (len(y),)


def test_fit_iter_streams_each_rule_with_the_training_and_test_mse():
    X, Y = _data()
    est = BoomerRegressor(max_rules=6, statistic_type="64-bit")
    records = list(est.fit_iter(X[:90], Y[:90], X[90:], Y[90:]))
    assert len(records) == 6 == len(est.rules_)
    for k, record in enumerate(records):  # the MSE of the first k + 1 rules, as predicted
        partial = np.zeros_like(Y)
        for rule in est.rules_[:k + 1]:
            from engine.model import rule_coverage
            partial[np.ix_(rule_coverage(rule, X), rule.head_labels)] += rule.head_scores
        assert record.extra["train_mse"] == pytest.approx(np.mean((partial[:90] - Y[:90]) ** 2), rel=1e-6)
        assert record.extra["test_mse"] == pytest.approx(np.mean((partial[90:] - Y[90:]) ** 2), rel=1e-6)
    assert records[-1].extra["train_mse"] < records[0].extra["train_mse"]


def test_predict_incrementally_ends_at_predict():
    X, Y = _data()
    est = BoomerRegressor(max_rules=7).fit(X, Y)
    steps = list(est.predict_incrementally(X))
    assert len(steps) == 7
    np.testing.assert_allclose(steps[-1], est.predict(X))


def test_the_default_rule_predicts_the_mean_target_shrunk_by_the_l2_weight():
    """g = f - y, h = 1 per output (mlrl-boomer's regression statistics): at f = 0 the default rule's
    head is sum(y) / (N + lambda), not shrunk."""
    X, Y = _data(n=50)
    est = BoomerRegressor(max_rules=1, statistic_type="64-bit", l2_regularization_weight=2.0).fit(X, Y)
    Y32 = Y.astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(est.rules_[0].head_scores, Y32.sum(axis=0) / (50 + 2.0), rtol=1e-12)


def test_regression_statistics_by_hand():
    from engine.core.losses import example_loss, update_statistics
    from engine.core.regression_losses import SQERR_REG_DEC, SQERR_REG_NONDEC

    Y = np.array([[2.0, -1.0]], dtype=np.float32)
    F = np.array([[0.5, 0.5]])
    G, H = np.empty((1, 2)), np.empty((1, 2))
    update_statistics(SQERR_REG_DEC, Y, F, np.arange(1), 1, G, H)
    np.testing.assert_array_equal(G, [[-1.5, 1.5]]) and np.testing.assert_array_equal(H, [[1.0, 1.0]])
    assert example_loss(SQERR_REG_DEC, Y[0], F[0]) == 1.5 ** 2 * 2
    # non-decomposable: x_k = f^2 - 2 y f + 1 = (-0.75, 2.25), s = 1.5
    G, H = np.empty((1, 2)), np.empty((1, 3))
    update_statistics(SQERR_REG_NONDEC, Y, F, np.arange(1), 1, G, H)
    s = 1.5
    np.testing.assert_allclose(G, [[-1.5 / np.sqrt(s), 1.5 / np.sqrt(s)]])
    np.testing.assert_allclose(H, [[(s + 0.75) / s ** 1.5, 1.5 * 1.5 / s ** 1.5, (s - 2.25) / s ** 1.5]])
    # a negative sum (|y|^2 above the outputs' count): no finite quotient, so zero statistics, as the reference
    F = np.zeros((1, 2))
    Y = np.array([[3.0, 0.0]], dtype=np.float32)
    update_statistics(SQERR_REG_NONDEC, Y, np.array([[1.0, 0.0]]), np.arange(1), 1, G, H)  # s = 1 - 6 + 1 + 1 < 0
    assert not G.any() and not H.any()


@pytest.mark.parametrize("y, message", [
    (np.array([[1.0, np.nan]] * 10), "y contains NaN"),
    (np.array([[1.0, np.inf]] * 10), "y contains an infinite value"),
    (np.array([["a", "b"]] * 10), "y must hold numbers"),
    (np.ones((9, 2)), "X has 10 examples but y has 9"),
])
def test_bad_targets_are_one_clear_error(y, message):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=message):
        BoomerRegressor(max_rules=2).fit(X, y)


def test_values_only_a_classifier_takes_are_refused():
    X, Y = _data(n=40)
    for settings in ({"loss": "logistic-decomposable"}, {"holdout": "stratified-output-wise"},
                     {"instance_sampling": "stratified-example-wise"}):
        with pytest.raises(ValueError, match=next(iter(settings))):
            BoomerRegressor(**settings).fit(X, Y)
    with pytest.raises(TypeError):
        BoomerRegressor(label_binning="none")


@pytest.mark.parametrize("name", list(BoomerRegressor().get_params()))
def test_none_means_the_default(name):
    """As mlrl-boomer's: None for any parameter is its default (kept by get_params, the default model)."""
    from engine.parameters import declared

    X, Y = _data(n=60)
    base = {"max_rules": 6, "instance_sampling": "with-replacement", "random_state": 3}
    default = next(p.default for p in declared(BoomerRegressor) if p.name == name)
    none = BoomerRegressor(**{**base, name: None}).fit(X, Y)
    given = BoomerRegressor(**{**base, name: default}).fit(X, Y)
    assert none.get_params()[name] is None
    np.testing.assert_array_equal(none.predict(X), given.predict(X))


def test_a_saved_model_predicts_the_same():
    import json

    X, Y = _data(n=60)
    est = BoomerRegressor(max_rules=5).fit(X, Y)
    doc = json.loads(json.dumps(est.to_model_dict()))
    assert doc["learner"] == "boomer-regressor"
    np.testing.assert_array_equal(BoomerRegressor.from_model_dict(doc).predict(X), est.predict(X))


def test_float32_statistics_are_computed_in_float32_as_the_reference_does():
    """32-bit statistics of the non-decomposable squared error: x, their sum, the root and the quotients in
    float32, the power s^1.5 in double then rounded (C++'s std::pow(float, double))."""
    from engine.core.losses import update_statistics
    from engine.core.regression_losses import SQERR_REG_NONDEC

    rng = np.random.default_rng(3)
    Y = rng.normal(size=(50, 3)).astype(np.float32) * np.float32(0.4)
    F = rng.normal(size=(50, 3)).astype(np.float32) * np.float32(0.3)
    G, H = np.empty((50, 3), np.float32), np.empty((50, 6), np.float32)
    update_statistics(SQERR_REG_NONDEC, Y, F, np.arange(50), 50, G, H)
    for i in range(50):
        f, y = F[i], Y[i]
        x = f * f + (np.float32(-2) * y * f) + np.float32(1)
        s = np.float32(0)
        for v in x:
            s = np.float32(s + v)
        root, power = np.sqrt(s), np.float32(np.float64(s) ** 1.5)
        np.testing.assert_array_equal(G[i], (f - y) / root)
        d = f - y
        expected = [(s - x[0]) / power, -d[0] * d[1] / power, -d[0] * d[2] / power, (s - x[1]) / power,
                    -d[1] * d[2] / power, (s - x[2]) / power]
        np.testing.assert_array_equal(H[i], np.array(expected, dtype=np.float32))
