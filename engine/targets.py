"""Targets as scikit-learn passes them and expects them back, for every multi-label learner.

A learner fits a label matrix ``Y`` (N x K of 0/1 or -1/+1).  scikit-learn's tools also pass a
1-D ``y`` of two classes (any values, e.g. strings): it is learned as one label whose relevant
class is the larger of the two, and ``predict`` returns the classes again, ``predict_proba`` the
two columns P(first class), P(second class) and ``decision_function`` one score per example, as
scikit-learn's binary classifiers do (and as mlrl-boomer 0.15.6 does).  More than two classes, or
a continuous ``y``, are refused with scikit-learn's "Unknown label type" message.  The tags say
what every learner can do: binary and multi-label targets, sparse and missing (NaN) features."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target

from .validation import check_features, check_n_features, check_training_data, feature_names_of, match_names


class MultiLabelTargets:
    """Mixin of the learners' estimators: 1-D binary targets in and out, and their tags."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # one label is binary; many are multi-label
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True  # NaN is a missing value
        return tags

    def _training_data(self, X, Y, X_test=None, Y_test=None, sample_weight=None):
        """``check_training_data`` after a 1-D ``Y`` (and ``Y_test``) became one label column;
        remembers the classes for :meth:`_as_classes` (``classes_``: a 1-D ``y``'s classes, or 0 and 1
        for a label matrix, as scikit-learn's multi-label classifiers have them).  With a (checked)
        ``sample_weight`` a 1-D ``y``'s classes are those of the examples of positive weight, as in
        mlrl-boomer 0.15.6: one class left is the constant prediction."""
        if Y is None:
            raise ValueError("this estimator requires y to be passed, but the target y is None (Y is missing)")
        self.classes_ = np.array([0, 1])
        self._one_label_y = False
        if not sp.issparse(Y):
            Y = np.asarray(Y)
        self._target_dtype = Y.dtype if Y.dtype.kind in "biuf" else None
        if Y.ndim == 1:
            Y, self.classes_ = _one_label(Y, "Y", sample_weight)
            self._one_label_y = True
            if Y_test is not None:
                Y_test = _encoded(Y_test, self.classes_, "Y_test")
        checked = check_training_data(X, Y, X_test, Y_test)
        names = feature_names_of(X)  # scikit-learn's feature_names_in_: a DataFrame's column names
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        return checked

    def _features(self, X, n_features: int):
        """``X`` checked for prediction: :func:`check_features`, the width the model was trained on, and
        a DataFrame's columns matched by name to ``feature_names_in_`` (reordered, with a warning, when
        they come in another order; ValueError naming the first unknown or missing name)."""
        fitted = getattr(self, "feature_names_in_", None)
        given = feature_names_of(X)
        if fitted is not None and given is not None:
            order = match_names(given, fitted)
            if order is not None:
                X = X.iloc[:, order]
        return check_n_features(check_features(X), n_features, type(self).__name__)

    def _one_d(self) -> bool:
        return getattr(self, "_one_label_y", False)

    def _as_classes(self, P: np.ndarray) -> np.ndarray:
        """Predicted 0/1 labels in the form of ``fit``'s targets (the classes of a 1-D ``y``)."""
        if not self._one_d():
            dtype = getattr(self, "_target_dtype", None)
            return P if dtype is None else np.asarray(P).astype(dtype, copy=False)
        return np.where(np.asarray(P)[:, 0] > 0, self.classes_[-1], self.classes_[0])

    def _as_class_probabilities(self, P: np.ndarray) -> np.ndarray:
        """Probabilities of the relevant label; for a 1-D ``y`` the two classes' columns."""
        if not self._one_d():
            return P
        p = np.asarray(P, dtype=np.float64)[:, -1]  # P(relevant): the only column, or the second of two
        return np.column_stack([1.0 - p, p]) if len(self.classes_) == 2 else np.ones((p.shape[0], 1))

    def _as_class_scores(self, F: np.ndarray) -> np.ndarray:
        """Scores of the relevant label; for a 1-D ``y`` one score per example."""
        return np.asarray(F)[:, 0] if self._one_d() else F


def _one_label(y, name: str, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """(N x 1 of 0/1, classes) of a 1-D target of one or two classes (of the examples of positive
    ``sample_weight``, if given)."""
    y = np.asarray(y)
    kind = type_of_target(y, input_name=name)  # 'binary' for one or two classes
    if kind not in ("binary", "unknown"):
        raise ValueError(f"Unknown label type: {kind}. Only binary classification is supported. The type of "
                         f"the target is {kind}: a 1-D {name} must hold two classes; give several labels as an "
                         "N x K matrix of 0/1")
    if kind == "unknown":
        raise ValueError(f"Unknown label type: {name} must hold class labels (numbers or strings)")
    classes = np.unique(y)
    if sample_weight is not None and len(sample_weight) == len(y):
        kept = np.unique(y[np.asarray(sample_weight) > 0])
        if kept.size == 1 and classes.size == 2:  # the weights leave one class: it is the prediction
            return (y == kept[0]).astype(np.uint8)[:, None], kept
    return _encoded(y, classes, name), classes


def _encoded(y, classes: np.ndarray, name: str) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D like the training targets, got shape {y.shape}")
    unknown = np.setdiff1d(np.unique(y), classes)
    if unknown.size:
        raise ValueError(f"{name} holds classes not seen in training: {', '.join(map(str, unknown[:3]))}")
    return (y == classes[-1]).astype(np.uint8)[:, None] if classes.size == 2 else np.ones((y.shape[0], 1), np.uint8)
