"""Reliability of predicted probabilities (engine.reliability): bins, ECE and Brier by hand, and the
estimators' refusal of probabilities turned into a reason."""
from __future__ import annotations

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.reliability import estimator_reliability, reliability_curve


def test_bins_ece_and_brier_by_hand():
    P = np.array([[0.05, 0.15], [0.12, 0.95], [1.0, 0.5]])
    Y = np.array([[0, 1], [0, 1], [1, 0]])
    r = reliability_curve(P, Y, n_bins=4)  # bins [0, .25), [.25, .5), [.5, .75), [.75, 1]
    assert r.counts.tolist() == [3, 0, 1, 2]
    np.testing.assert_allclose(r.mean_predicted[[0, 2, 3]], [(0.05 + 0.15 + 0.12) / 3, 0.5, 0.975])
    np.testing.assert_allclose(r.observed[[0, 2, 3]], [1 / 3, 0.0, 1.0])
    assert np.isnan(r.mean_predicted[1]) and np.isnan(r.observed[1])
    ece = (3 * abs(1 / 3 - 0.32 / 3) + 1 * 0.5 + 2 * 0.025) / 6
    assert r.ece == pytest.approx(ece)
    assert r.brier == pytest.approx(np.mean((P - Y) ** 2))


def test_perfectly_calibrated_forecasts_have_no_calibration_error():
    P = np.repeat([0.1, 0.3, 0.7], 10)[:, None]
    Y = np.concatenate([[1] + [0] * 9, [1] * 3 + [0] * 7, [1] * 7 + [0] * 3])[:, None]
    assert reliability_curve(P, Y, n_bins=10).ece == pytest.approx(0.0, abs=1e-12)


def test_a_loss_without_probabilities_gives_a_reason():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(80, 3)), (rng.random((80, 2)) < 0.5).astype(np.uint8)
    est = BoomerClassifier(loss="squared-error-decomposable", max_rules=3).fit(X, Y)
    with pytest.raises(ValueError, match="not supported"):
        estimator_reliability(est, X, Y)
    calibrated = BoomerClassifier(max_rules=5, marginal_probability_calibration="isotonic").fit(X, Y)
    r = estimator_reliability(calibrated, X, Y)
    assert r.n_forecasts == Y.size


def test_an_explanation_carries_the_models_probabilities_and_predictor():
    from engine.inspection import explain, predictor_text

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    Y = ((X[:, :2] + rng.normal(size=(120, 2))) > 0).astype(np.uint8)
    est = BoomerClassifier(loss="logistic-non-decomposable", max_rules=6, binary_predictor="gfm",
                           joint_probability_calibration="isotonic").fit(X, Y)
    ex = explain(est.model_, X[4])
    np.testing.assert_allclose(ex.probabilities, est.predict_proba(X[4:5])[0])
    np.testing.assert_array_equal(ex.prediction, est.predict(X[4:5])[0])
    assert predictor_text(est.model_).startswith("GFM prediction") and "(calibrated)" in predictor_text(est.model_)
    plain = BoomerClassifier(loss="squared-error-decomposable", max_rules=3).fit(X, Y)
    assert explain(plain.model_, X[4]).probabilities is None and predictor_text(plain.model_) is None


def test_a_single_label_is_one_forecast_per_example():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(80, 3)), (rng.random((80, 1)) < 0.5).astype(np.uint8)
    est = BoomerClassifier(max_rules=4).fit(X, Y)
    assert est.predict_proba(X).shape == (80, 2)
    assert estimator_reliability(est, X, Y).n_forecasts == 80
