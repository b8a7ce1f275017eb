"""Baselines of regression experiments: the mean predictor (each target's training mean, the
reference every regressor must beat: its R² on the training data is 0) and two of scikit-learn's
multi-output regressors, a CART regression tree and ridge regression, with their own defaults.

Missing attribute values (NaN) are left to the estimator: the tree routes them at each split, ridge
regression refuses them (the task fails with scikit-learn's error)."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data


class MeanRegressor(RegressorMixin, BaseEstimator):
    """Predicts every target's mean over the training examples, whatever the attributes."""

    def fit(self, X, Y):
        X, Y = validate_data(self, X, Y, accept_sparse=True, ensure_all_finite=False, multi_output=True,
                             y_numeric=True)
        Y = np.asarray(Y, dtype=np.float64)
        self.mean_ = Y.mean(axis=0)
        return self

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "mean_")
        X = validate_data(self, X, accept_sparse=True, ensure_all_finite=False, reset=False)
        return np.tile(self.mean_, (X.shape[0],) + (1,) * (self.mean_.ndim == 1))


def decision_tree(max_depth=None, min_samples_leaf=5, random_state=1):
    """scikit-learn's ``DecisionTreeRegressor`` (squared error, multi-output)."""
    from sklearn.tree import DecisionTreeRegressor

    return DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=random_state)


def ridge(alpha=1.0):
    """scikit-learn's ``Ridge`` (one L2-regularised linear model per target, with intercepts)."""
    from sklearn.linear_model import Ridge

    return Ridge(alpha=alpha)
