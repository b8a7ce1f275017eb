"""The synthetic multi-target regression kind ``linear-regression``: shapes and types, one problem for
every seed (the same coefficients, fresh samples), make_regression's sparsity and scale, the noise
level (the Bayes MSE), and its name in the experimenter's data (``synthetic:...``)."""
import numpy as np
import pytest

from engine.api import SYNTHETIC_KINDS, SYNTHETIC_REGRESSION_KINDS, make_synthetic
from engine.datasets.synthetic import (REGRESSION_FEATURES, REGRESSION_INFORMATIVE, REGRESSION_NOISE, label_angles,
                                       regression_coefficients)
from engine.evaluation.data import fingerprint, load_parts, resolve, task_of


def test_shapes_names_and_types():
    data = make_synthetic("linear-regression", n_examples=200, n_labels=3, seed=4)
    assert SYNTHETIC_REGRESSION_KINDS == ("linear-regression",) and "linear-regression" not in SYNTHETIC_KINDS
    assert data.X.shape == (200, REGRESSION_FEATURES) and data.X.dtype == np.float32
    assert data.Y.shape == (200, 3) and data.Y.dtype == np.float64
    assert data.bayes_Y.shape == (200, 3) and data.label_names == ["t1", "t2", "t3"]
    assert data.feature_names == [f"x{j}" for j in range(1, REGRESSION_FEATURES + 1)]
    assert data.name == "linear-regression" and data.source == "synthetic:linear-regression:seed=4"
    assert task_of(data) == "regression" and task_of(make_synthetic("marginal-dependence", 20)) == "classification"


def test_every_seed_draws_the_same_problem():
    a, b, c = (make_synthetic("linear-regression", n_examples=300, n_labels=2, seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert not np.array_equal(a.X, c.X)
    coef = regression_coefficients(2)
    for data in (a, c):  # the noiseless targets are the same linear function of the stored attributes
        np.testing.assert_allclose(data.bayes_Y, data.X.astype(np.float64) @ coef, rtol=1e-12)
        # least squares on the noisy targets finds the coefficients back (noise 10 on 300 examples)
        fitted, *_ = np.linalg.lstsq(data.X.astype(np.float64), data.Y, rcond=None)
        np.testing.assert_allclose(fitted, coef, atol=3.0)


def test_make_regressions_sparsity_scale_and_noise():
    coef = regression_coefficients(3)
    assert coef.shape == (REGRESSION_FEATURES, 3)
    informative = np.flatnonzero(np.any(coef != 0, axis=1))
    assert len(informative) == REGRESSION_INFORMATIVE  # the same informative attributes for every target
    assert np.all((coef[informative] > 0) & (coef[informative] < 100))  # make_regression's 100 * U(0, 1)
    np.testing.assert_array_equal(regression_coefficients(3), coef)
    data = make_synthetic("linear-regression", n_examples=20_000, n_labels=3, seed=1)
    bayes_mse = np.mean((data.Y - data.bayes_Y) ** 2, axis=0)
    np.testing.assert_allclose(bayes_mse, REGRESSION_NOISE ** 2, rtol=0.05)


def test_bad_arguments_are_one_error():
    with pytest.raises(ValueError, match="valid kinds: .*linear-regression"):
        make_synthetic("friedman", 10)
    with pytest.raises(ValueError, match="must be positive"):
        make_synthetic("linear-regression", 10, n_labels=0)
    with pytest.raises(ValueError, match="targets, not labels"):
        label_angles("linear-regression", 3)


def test_the_experimenter_names_it():
    spec = resolve("synthetic:linear-regression:examples=60,targets=2,seed=3")
    assert spec.name == "linear-regression:examples=60,targets=2,seed=3" and spec.task == "regression"
    assert spec.files == ("synthetic:linear-regression:examples=60,targets=2,seed=3",)
    assert resolve("synthetic:linear-regression").files == ("synthetic:linear-regression:examples=1000,targets=3,"
                                                            "seed=0",)
    assert resolve("synthetic:linear-regression:labels=2,examples=60,seed=3").fingerprint == spec.fingerprint
    assert fingerprint(spec.files) != resolve("synthetic:linear-regression:examples=60,targets=2,seed=4").fingerprint
    X, Y, sizes = load_parts(spec.name, spec.files)
    data = make_synthetic("linear-regression", 60, 2, 3)
    np.testing.assert_array_equal(X, data.X)
    np.testing.assert_array_equal(Y, data.Y)
    assert Y.dtype == np.float64 and sizes == (60,)
    assert resolve("synthetic:conditional-dependence:examples=50").task == "classification"
    for bad, message in (("synthetic:friedman", "unknown synthetic data kind 'friedman'"),
                         ("synthetic:linear-regression:rows=5", "got 'rows=5'"),
                         ("synthetic:linear-regression:examples=-5", "got 'examples=-5'"),
                         ("synthetic:linear-regression:examples=1", r"examples must be in \[2, 10000000\]")):
        with pytest.raises(ValueError, match=message):
            resolve(bad)
