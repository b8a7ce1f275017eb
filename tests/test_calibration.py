"""Isotonic calibration as mlrl-boomer 0.15.6 fits and applies it (engine.calibration): hand-computed
cases, its documented departures from the textbook PAV, and the checked file form."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine.calibration import IsotonicCalibration, apply_bins, fit_bins, isotonic_pav


def _bins(p, y):
    t, v = fit_bins(np.array(p, dtype=float), np.array(y, dtype=float))
    return list(zip(t.tolist(), v.tolist()))


def test_one_violation_is_pooled_by_hand():
    # bins 0, 1, 0, 1: the pair (1, 0) pools to 0.5 and keeps the first threshold
    assert _bins([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]) == [(0.1, 0.0), (0.2, 0.5), (0.4, 1.0)]


def test_a_chain_of_violations_by_hand():
    # 0.9 absorbs 0.1 (0.5); 0.5 absorbs 0.2 (0.35); 0.35 absorbs 0.3: the mean of the pool values
    # (0.35 + 0.3) / 2 = 0.325, where the weighted PAV gives (0.9 + 0.1 + 0.2 + 0.3) / 4 = 0.375
    t, v = fit_bins(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.9, 0.1, 0.2, 0.3]))
    assert t.tolist() == [0.1] and v[0] == pytest.approx(0.325)
    assert isotonic_pav(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.9, 0.1, 0.2, 0.3]))[0] == pytest.approx(0.375)


def test_equal_probabilities_form_one_bin_weighing_one():
    # (0.1: 1, 0) is one bin of value 0.5 that weighs as much as the single (0.2: 0): pool 0.25
    assert _bins([0.1, 0.1, 0.2, 0.5], [1, 0, 0, 1]) == [(0.1, 0.25), (0.5, 1.0)]


def test_the_largest_probabilities_keep_their_last_outcome():
    # mlrl-boomer's duplicate removal stores the last pair's outcome for the last run, not the mean
    assert _bins([0.2, 0.7, 0.7, 0.7], [0, 0, 1, 1])[-1] == (0.7, 1.0)
    assert _bins([0.2, 0.7, 0.7, 0.7], [0, 1, 1, 0])[-1] == (0.2, 0.0)  # 0 pools down with the first bin


def test_fitted_values_never_decrease():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        p = np.round(rng.random(n), 1)  # many ties
        t, v = fit_bins(p, (rng.random(n) < p).astype(float))
        assert np.all(np.diff(t) > 0) and np.all(np.diff(v) >= -1e-12)


def test_agrees_with_pav_when_no_pool_has_more_than_two_pairs():
    """Distinct probabilities, outcomes 0/1: while the textbook PAV pools at most two pairs, every
    pool of mlrl-boomer's walk is one pair absorbing its successor, and the values at the pools'
    first thresholds agree (pools of pools are where the unweighted means part, see above)."""
    rng = np.random.default_rng(5)
    agreed = 0
    for _ in range(400):
        n = int(rng.integers(2, 12))
        p = np.sort(rng.random(n))
        y = (rng.random(n) < p).astype(float)
        pav = isotonic_pav(p, y)
        runs = np.diff(np.flatnonzero(np.diff(np.r_[np.nan, pav, np.nan]) != 0))
        if runs.max() > 2:
            continue
        t, v = fit_bins(p, y)
        np.testing.assert_allclose(v, pav[np.searchsorted(p, t)])
        agreed += 1
    assert agreed > 50


def test_pav_is_the_least_squares_isotonic_fit():
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        x = rng.random(n)
        y = rng.random(n)
        np.testing.assert_allclose(isotonic_pav(x, y), IsotonicRegression().fit_transform(np.sort(x), y[np.argsort(x)]))


def test_interpolation_between_pools_and_the_ends_by_hand():
    t, v = np.array([0.2, 0.6]), np.array([0.1, 0.5])
    out = apply_bins(t, v, np.array([0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0]))
    # below the first pool towards (0, 0), between pools linear, above the last towards (1, 1)
    np.testing.assert_allclose(out, [0.0, 0.05, 0.1, 0.3, 0.5, 0.75, 1.0])


def test_zero_under_a_first_threshold_of_zero_is_nan_as_in_the_reference():
    assert np.isnan(apply_bins(np.array([0.0, 0.5]), np.array([0.2, 0.4]), np.array([0.0]))[0])
    assert apply_bins(np.array([0.0, 0.5]), np.array([0.2, 0.4]), np.array([0.25]))[0] == pytest.approx(0.3)


def test_an_empty_list_leaves_probabilities_alone():
    np.testing.assert_array_equal(apply_bins(np.zeros(0), np.zeros(0), np.array([0.3, 0.9])), [0.3, 0.9])


def test_file_form_round_trips_and_is_checked():
    cal = IsotonicCalibration.fit(np.array([[0.1, 0.5], [0.4, 0.2], [0.8, 0.9]]), np.array([[0, 1], [1, 0], [1, 1]]))
    back = IsotonicCalibration.from_dict(json.loads(json.dumps(cal.to_dict())), "cal", 2)
    for a, b in zip(cal.thresholds + cal.values, back.thresholds + back.values):
        np.testing.assert_array_equal(a, b)
    good = cal.to_dict()
    for bad, message in [(good[:1], "lists"), ([[[0.5, 0.1], [0.4, 0.2]], good[1]], "increase"),
                         ([[[0.5, 1.5]], good[1]], r"\[0, 1\]"), ([[[0.5]], good[1]], "threshold, value"),
                         ([[["a", 0.1]], good[1]], "number"), ("x", "list")]:
        with pytest.raises(ValueError, match=message):
            IsotonicCalibration.from_dict(bad, "cal", 2)
