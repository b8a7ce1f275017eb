"""The synthetic data of the BOOMER paper (Sec. 5.1, after Dembczyński et al., 2012).

Points are uniform in the unit disc.  A label is 1 if its point lies on the positive side of a line
through the origin at angle ``theta``, i.e. if ``cos(theta) * x2 - sin(theta) * x1 > 0``.  Noise then
flips labels; the noiseless labels are the Bayes-optimal prediction for Hamming and subset 0/1 loss
(``Dataset.bayes_Y``).  The label angles are fixed for a given kind and number of labels, so different
seeds draw fresh samples of the same problem (e.g. a training set with seed 0, a test set with seed 1).

* ``marginal-independence``: every label has its own point (attributes ``x{2k+1}``, ``x{2k+2}`` for
  label ``k``); angles drawn uniformly from [0, 2 pi) by a generator with the fixed seed 12345; each
  label entry is flipped independently with probability 0.1.  Bayes risk: Hamming 0.1, subset 0/1
  ``1 - 0.9**K`` (0.469 for K = 6).
* ``marginal-dependence``: one point (``x1``, ``x2``) for all labels; label ``k`` (0-based) has angle
  ``pi/6 + k*pi/36`` (30, 35, 40, ... degrees); independent flips with probability 0.1.  Bayes risk as
  for marginal independence.
* ``conditional-dependence``: as marginal dependence, but each example has all its labels flipped
  together with probability 0.1.  Bayes risk: Hamming 0.1, subset 0/1 0.1.

Multi-target regression (``SYNTHETIC_REGRESSION_KINDS``):

* ``linear-regression``: scikit-learn's ``make_regression`` model with ``n_labels`` targets: 10 standard
  normal attributes, 5 of them informative, targets ``X @ coef`` plus Gaussian noise of standard
  deviation 10.  The coefficients are ``make_regression``'s, drawn once from the fixed seed 12345 (so,
  as above, seeds draw samples of the same problem); ``bayes_Y`` holds the noiseless targets (the
  predictions of least squared error, Bayes MSE 100).  ``Y`` is float64, N x T.
"""
from __future__ import annotations

import numpy as np

from .dataset import Dataset

SYNTHETIC_KINDS = ("marginal-independence", "marginal-dependence", "conditional-dependence")
SYNTHETIC_REGRESSION_KINDS = ("linear-regression",)
NOISE = 0.1
_ANGLE_SEED = 12345
REGRESSION_FEATURES, REGRESSION_INFORMATIVE, REGRESSION_NOISE = 10, 5, 10.0
_COEF_SEED = 12345


def label_angles(kind: str, n_labels: int) -> np.ndarray:
    """The angle (radians) of every label's decision boundary (the classification kinds)."""
    _check_kind(kind)
    if kind in SYNTHETIC_REGRESSION_KINDS:
        raise ValueError(f"{kind!r} has targets, not labels with decision boundaries")
    if kind == "marginal-independence":
        return np.random.default_rng(_ANGLE_SEED).uniform(0.0, 2.0 * np.pi, n_labels)
    return np.pi / 6 + np.arange(n_labels) * np.pi / 36


def make_synthetic(kind: str, n_examples: int = 10000, n_labels: int = 6, seed: int = 0) -> Dataset:
    """Draw ``n_examples`` examples of one of ``SYNTHETIC_KINDS`` or ``SYNTHETIC_REGRESSION_KINDS``
    (``n_labels`` targets); the same seed gives the same data."""
    _check_kind(kind)
    if n_examples < 1 or n_labels < 1:
        raise ValueError(f"n_examples and n_labels must be positive, got {n_examples} and {n_labels}")
    if kind in SYNTHETIC_REGRESSION_KINDS:
        return make_regression_data(n_examples, n_labels, seed)
    rng = np.random.default_rng(seed)
    theta = label_angles(kind, n_labels)
    n_points = n_labels if kind == "marginal-independence" else 1
    X = _unit_disc(rng, n_examples, n_points).reshape(n_examples, 2 * n_points).astype(np.float32)
    points = X.astype(np.float64).reshape(n_examples, n_points, 2)  # labels follow the stored float32 values
    clean = (np.cos(theta) * points[:, :, 1] - np.sin(theta) * points[:, :, 0] > 0).astype(np.uint8)
    if kind == "conditional-dependence":
        flips = np.repeat(rng.random((n_examples, 1)) < NOISE, n_labels, axis=1)
    else:
        flips = rng.random((n_examples, n_labels)) < NOISE
    Y = (clean ^ flips).astype(np.uint8)
    return Dataset(X=X, Y=Y, feature_names=[f"x{j + 1}" for j in range(X.shape[1])],
                   label_names=[f"y{k + 1}" for k in range(n_labels)], name=kind,
                   source=f"synthetic:{kind}:seed={seed}", bayes_Y=clean)


def regression_coefficients(n_targets: int) -> np.ndarray:
    """The ``linear-regression`` kind's coefficients (attributes x targets): ``make_regression``'s,
    drawn from the fixed seed."""
    from sklearn.datasets import make_regression

    _, _, coef = make_regression(n_samples=1, n_features=REGRESSION_FEATURES, n_informative=REGRESSION_INFORMATIVE,
                                 n_targets=n_targets, noise=0.0, coef=True, random_state=_COEF_SEED)
    return np.asarray(coef, dtype=np.float64).reshape(REGRESSION_FEATURES, n_targets)


def make_regression_data(n_examples: int, n_targets: int, seed: int = 0) -> Dataset:
    """``n_examples`` examples of the ``linear-regression`` kind (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_examples, REGRESSION_FEATURES)).astype(np.float32)
    clean = X.astype(np.float64) @ regression_coefficients(n_targets)  # targets follow the stored float32 values
    Y = clean + rng.normal(scale=REGRESSION_NOISE, size=clean.shape)
    return Dataset(X=X, Y=Y, feature_names=[f"x{j + 1}" for j in range(REGRESSION_FEATURES)],
                   label_names=[f"t{k + 1}" for k in range(n_targets)], name="linear-regression",
                   source=f"synthetic:linear-regression:seed={seed}", bayes_Y=clean,
                   task="regression")


def _unit_disc(rng, n: int, m: int) -> np.ndarray:
    """``n x m`` points drawn uniformly from the unit disc."""
    radius = np.sqrt(rng.random((n, m)))
    phi = rng.uniform(0.0, 2.0 * np.pi, (n, m))
    return np.stack([radius * np.cos(phi), radius * np.sin(phi)], axis=-1)


def _check_kind(kind: str) -> None:
    if kind not in SYNTHETIC_KINDS and kind not in SYNTHETIC_REGRESSION_KINDS:
        raise ValueError(f"unknown synthetic data kind {kind!r}; valid kinds: "
                         f"{', '.join(SYNTHETIC_KINDS + SYNTHETIC_REGRESSION_KINDS)}")
