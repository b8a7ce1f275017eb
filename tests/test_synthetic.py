"""Synthetic generators: shapes, determinism, geometry, Bayes risk and label dependence."""
from __future__ import annotations

import numpy as np
import pytest

from engine.datasets import SYNTHETIC_KINDS, make_synthetic
from engine.datasets.synthetic import label_angles
from engine.metrics import hamming_loss, subset_zero_one_loss

K = 6
N = 10_000
FRESH_SEED = 2024  # "fresh" examples: a seed no other test uses


@pytest.mark.parametrize("kind", SYNTHETIC_KINDS)
def test_shapes_names_and_types(kind):
    data = make_synthetic(kind, n_examples=500, n_labels=4, seed=3)
    n_features = 8 if kind == "marginal-independence" else 2
    assert data.X.shape == (500, n_features) and data.X.dtype == np.float32
    assert data.Y.shape == (500, 4) and data.Y.dtype == np.uint8
    assert data.bayes_Y.shape == (500, 4) and data.bayes_Y.dtype == np.uint8
    assert data.feature_names == [f"x{j}" for j in range(1, n_features + 1)]
    assert data.label_names == ["y1", "y2", "y3", "y4"]
    assert data.name == kind and data.nominal_values == {}
    assert np.all(data.X[:, 0::2] ** 2 + data.X[:, 1::2] ** 2 <= 1.0 + 1e-6)  # points in the unit disc


@pytest.mark.parametrize("kind", SYNTHETIC_KINDS)
def test_same_seed_same_data_other_seed_other_sample_same_concept(kind):
    a, b, c = (make_synthetic(kind, n_examples=300, seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    np.testing.assert_array_equal(a.bayes_Y, b.bayes_Y)
    assert not np.array_equal(a.X, c.X)
    for data in (a, c):  # the documented boundaries produce bayes_Y for every seed
        theta = label_angles(kind, K)
        X = data.X.astype(np.float64)
        if kind == "marginal-independence":
            x1, x2 = X[:, 0::2], X[:, 1::2]
        else:
            x1, x2 = X[:, [0]], X[:, [1]]
        np.testing.assert_array_equal(data.bayes_Y, (np.cos(theta) * x2 - np.sin(theta) * x1 > 0))


def test_marginal_dependence_angles_are_documented_steps():
    np.testing.assert_allclose(np.degrees(label_angles("marginal-dependence", 4)), [30, 35, 40, 45])


# Bayes risk on 10,000 fresh examples, within 3 standard errors:
#   independent flips, Hamming: sd of one entry sqrt(0.1 * 0.9) = 0.3 over N*K = 60,000 entries
#     -> SE = 0.3 / sqrt(60000) = 0.00122, margin 0.0037;
#   flips of whole examples, Hamming = fraction of flipped examples: SE = 0.3 / sqrt(10000) = 0.003, margin 0.009;
#   subset 0/1 with independent flips, p = 1 - 0.9**6 = 0.4686: SE = sqrt(p (1 - p) / 10000) = 0.0050, margin 0.015;
#   subset 0/1 with whole-example flips, p = 0.1: SE = 0.003, margin 0.009.
BAYES = [
    ("marginal-independence", 0.1, 3 * 0.3 / np.sqrt(N * K), 1 - 0.9 ** K, 0.015),
    ("marginal-dependence", 0.1, 3 * 0.3 / np.sqrt(N * K), 1 - 0.9 ** K, 0.015),
    ("conditional-dependence", 0.1, 3 * 0.3 / np.sqrt(N), 0.1, 3 * 0.3 / np.sqrt(N)),
]


@pytest.mark.parametrize("kind, hamming, hamming_margin, subset, subset_margin", BAYES)
def test_bayes_optimal_predictions_reach_the_analytic_risk(kind, hamming, hamming_margin, subset, subset_margin):
    data = make_synthetic(kind, n_examples=N, n_labels=K, seed=FRESH_SEED)
    assert hamming_loss(data.Y, data.bayes_Y) == pytest.approx(hamming, abs=hamming_margin)
    assert subset_zero_one_loss(data.Y, data.bayes_Y) == pytest.approx(subset, abs=subset_margin)
    # every label is positive for half of the disc: marginals 0.5, SE 0.005, margin 0.015
    np.testing.assert_allclose(data.Y.mean(axis=0), 0.5, atol=0.015)


def test_conditional_dependence_flips_all_labels_of_an_example_together():
    data = make_synthetic("conditional-dependence", n_examples=2000, seed=5)
    flipped = data.Y != data.bayes_Y
    assert np.all(flipped.all(axis=1) | ~flipped.any(axis=1))
    assert 0.05 < flipped.all(axis=1).mean() < 0.15


def _correlations(Y):
    C = np.corrcoef(Y.T.astype(np.float64))
    return C[~np.eye(len(C), dtype=bool)]


def test_dependent_labels_correlate_independent_ones_do_not():
    # marginal dependence: labels k, l disagree without noise with probability |k - l| * 5 / 180, at most
    # 25/180 = 0.139; with 10% independent flips: 0.139 * 0.82 + 0.861 * 0.18 = 0.269, correlation 0.46.
    dependent = make_synthetic("marginal-dependence", n_examples=N, seed=11)
    assert _correlations(dependent.Y).min() > 0.35
    # independent points: correlation 0 with SE 1 / sqrt(N) = 0.01
    independent = make_synthetic("marginal-independence", n_examples=N, seed=11)
    assert np.abs(_correlations(independent.Y)).max() < 0.05


def test_axis_parallel_cells_approach_the_bayes_risk():
    """A staircase of 40 x 40 axis-parallel cells (majority vote per cell) gets close to Hamming 0.1."""
    train = make_synthetic("marginal-dependence", n_examples=N, seed=21)
    test = make_synthetic("marginal-dependence", n_examples=N, seed=22)
    bins = np.linspace(-1, 1, 41)

    def cells(X):
        return np.clip(np.digitize(X[:, 0], bins) - 1, 0, 39) * 40 + np.clip(np.digitize(X[:, 1], bins) - 1, 0, 39)

    votes = np.zeros((1600, K))
    counts = np.zeros((1600, 1))
    np.add.at(votes, cells(train.X), train.Y)
    np.add.at(counts, cells(train.X), 1)
    prediction = (votes / np.maximum(counts, 1) > 0.5)[cells(test.X)]
    assert hamming_loss(test.Y, prediction) < 0.14


def test_unknown_kind_lists_the_valid_ones():
    with pytest.raises(ValueError, match="marginal-independence, marginal-dependence, conditional-dependence"):
        make_synthetic("nonsense")
    with pytest.raises(ValueError, match="positive"):
        make_synthetic("marginal-dependence", n_examples=0)
