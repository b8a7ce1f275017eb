"""Regression measures: hand-computed values on a 4 x 2 example, agreement with scikit-learn's metrics
on random data (per target and averaged), the conventions for constant targets and zero targets, and
one clear error for bad input."""
import numpy as np
import pytest
from sklearn import metrics as skm

from engine.regression_metrics import AVERAGED, HIGHER_IS_BETTER, PER_TARGET, averaged, per_target

# targets: t1 = 1, 2, 3, 4 (mean 2.5, SS_tot 5); t2 = 2, 2, 2, 6 (mean 3, SS_tot 12)
Y = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 2.0], [4.0, 6.0]])
P = np.array([[2.0, 2.0], [2.0, 3.0], [1.0, 2.0], [4.0, 4.0]])
# errors: t1 = -1, 0, 2, 0 ; t2 = 0, -1, 0, 2
HAND = {
    "mse": [5 / 4, 5 / 4],
    "rmse": [np.sqrt(5 / 4), np.sqrt(5 / 4)],
    "mae": [3 / 4, 3 / 4],
    "median-ae": [0.5, 0.5],  # |e| sorted: 0, 0, 1, 2
    "r2": [1 - 5 / 5, 1 - 5 / 12],
    "mape": [(1 / 1 + 0 + 2 / 3 + 0) / 4, (0 + 1 / 2 + 0 + 2 / 6) / 4],
}


@pytest.mark.parametrize("name", sorted(PER_TARGET))
def test_hand_computed_per_target_and_uniform_average(name):
    np.testing.assert_allclose(per_target(name, Y, P), HAND[name], rtol=1e-12)
    assert averaged(name, Y, P) == pytest.approx(np.mean(HAND[name]), rel=1e-12)


def test_variance_weighted_r2_by_hand():
    # weights SS_tot = 5 and 12: (5 * 0 + 12 * 7/12) / 17 = 7/17
    assert averaged("r2-variance-weighted", Y, P) == pytest.approx(7 / 17, rel=1e-12)
    assert averaged("r2", Y, P) == pytest.approx((0 + 7 / 12) / 2, rel=1e-12)


SKLEARN = {"mse": skm.mean_squared_error, "rmse": skm.root_mean_squared_error, "mae": skm.mean_absolute_error,
           "median-ae": skm.median_absolute_error, "r2": skm.r2_score, "mape": skm.mean_absolute_percentage_error}


@pytest.mark.parametrize("name", sorted(PER_TARGET))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_scikit_learn(name, seed):
    rng = np.random.default_rng(seed)
    n, t = int(rng.integers(2, 60)), int(rng.integers(1, 5))
    Yr = rng.normal(scale=10.0, size=(n, t))
    Pr = Yr + rng.normal(scale=3.0, size=(n, t))
    if seed == 2:
        Yr[0] = 0.0  # a zero target: MAPE divides by the machine epsilon, as scikit-learn does
    np.testing.assert_allclose(per_target(name, Yr, Pr), SKLEARN[name](Yr, Pr, multioutput="raw_values"),
                               rtol=1e-10)
    assert averaged(name, Yr, Pr) == pytest.approx(SKLEARN[name](Yr, Pr, multioutput="uniform_average"), rel=1e-10)
    if name == "r2":
        assert averaged("r2-variance-weighted", Yr, Pr) == pytest.approx(
            skm.r2_score(Yr, Pr, multioutput="variance_weighted"), rel=1e-10)


def test_constant_targets_follow_scikit_learns_force_finite():
    Yc = np.array([[1.0, 5.0], [1.0, 5.0], [1.0, 5.0]])
    Pc = np.array([[1.0, 4.0], [1.0, 5.0], [1.0, 6.0]])
    np.testing.assert_array_equal(per_target("r2", Yc, Pc), [1.0, 0.0])  # exact: 1, not: 0
    np.testing.assert_array_equal(per_target("r2", Yc, Pc), skm.r2_score(Yc, Pc, multioutput="raw_values"))
    # every target constant: the variance weights are all 0, so the average is uniform (as scikit-learn's)
    assert averaged("r2-variance-weighted", Yc, Pc) == 0.5 == skm.r2_score(Yc, Pc, multioutput="variance_weighted")


def test_one_example_r2_is_undefined_and_a_vector_is_one_target():
    assert np.isnan(averaged("r2", [[1.0, 2.0]], [[1.5, 2.0]]))
    assert averaged("mse", [1.0, 2.0, 4.0], [1.0, 1.0, 1.0]) == pytest.approx(10 / 3)
    assert per_target("mae", [1.0, 2.0, 4.0], [1.0, 1.0, 1.0]).shape == (1,)


def test_which_are_higher_is_better():
    assert HIGHER_IS_BETTER == {"r2", "r2-variance-weighted"}
    assert set(AVERAGED) == set(PER_TARGET) | {"r2-variance-weighted"}


@pytest.mark.parametrize("Yb, Pb, message", [
    (np.zeros((3, 2)), np.zeros((3, 3)), r"true values of shape \(3, 2\) but predictions of shape \(3, 3\)"),
    (np.zeros((3, 2)), np.zeros((2, 2)), r"true values of shape \(3, 2\) but predictions of shape \(2, 2\)"),
    (np.zeros((0, 2)), np.zeros((0, 2)), r"at least one example and one target"),
    (np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), r"1-D or 2-D array"),
    (np.array([[1.0, np.nan]]), np.zeros((1, 2)), r"true values hold 1 NaN or infinite value\(s\), the first at "
                                                   r"example 0, target 1"),
    (np.zeros((2, 1)), np.array([[0.0], [np.inf]]), r"predictions hold 1 NaN or infinite value\(s\), the first at "
                                                    r"example 1, target 0"),
    (np.array([["a"], ["b"]]), np.zeros((2, 1)), r"true values are not numbers"),
])
def test_bad_input_is_one_clear_error(Yb, Pb, message):
    for name in AVERAGED:
        with pytest.raises(ValueError, match=message):
            averaged(name, Yb, Pb)


def test_an_unknown_measure_is_named():
    with pytest.raises(ValueError, match="unknown regression measure 'msle'; known: mse, rmse"):
        per_target("msle", Y, P)
