"""Table 1's baselines (SPEC C.3): binary relevance, label powerset and classifier chains with
XGBoost's gradient-boosted trees, in the authors' settings: 66 % subsampling, ⌊log₂(L−1)+1⌋ of the L
attributes sampled at every split, 100 trees of depth 6, one thread, no early stopping; BR and CC with the logistic objective, LP with the softmax objective over the training
label sets (label sets never seen in training cannot be predicted).

One deviation: split finding is XGBoost's ``hist`` method, not ``exact`` as in the authors' scripts
(xgboost 1.0), because current XGBoost's exact method rejects per-split attribute sampling."""
from __future__ import annotations

import importlib.util

import numpy as np
import scipy.sparse as sp

from engine.predictors import unique_rows

from ..sampling import sampled_feature_count


INSTALL_BASELINES = "pip install 'boomer-gui[baselines]'"


def require_xgboost(who: str) -> None:
    """One-line ValueError when XGBoost, an optional dependency (the ``baselines`` extra), is not
    installed: ``who`` (e.g. ``xgboost-br``) needs it."""
    if importlib.util.find_spec("xgboost") is None:
        raise ValueError(f"{who} needs XGBoost, an optional dependency: {INSTALL_BASELINES}")


def xgb_classifier(n_features: int, n_classes: int, learning_rate: float, reg_lambda: float, seed: int,
                   n_estimators: int = 100, max_depth: int = 6):
    require_xgboost("Table 1's XGBoost baselines")
    import xgboost

    objective = {"objective": "binary:logistic"} if n_classes == 2 else {"objective": "multi:softmax",
                                                                        "num_class": n_classes}
    return xgboost.XGBClassifier(
        booster="gbtree", tree_method="hist", n_estimators=n_estimators, max_depth=max_depth,
        learning_rate=learning_rate, reg_lambda=reg_lambda, reg_alpha=0.0, subsample=0.66,
        colsample_bytree=1.0, colsample_bylevel=1.0,
        colsample_bynode=sampled_feature_count(n_features) / n_features if n_features else 1.0,
        n_jobs=1, random_state=seed, verbosity=0, **objective)


class _Binary:
    """One XGBoost model of a 0/1 target; a constant target is predicted as that constant."""

    def __init__(self, X, y, **params):
        y = np.asarray(y, dtype=np.uint8)
        self.constant = int(y[0]) if np.all(y == y[0]) else None
        if self.constant is None:
            self.model = xgb_classifier(X.shape[1], 2, **params).fit(X, y)

    def predict(self, X) -> np.ndarray:
        if self.constant is not None:
            return np.full(X.shape[0], self.constant, dtype=np.uint8)
        return self.model.predict(X).astype(np.uint8)

    def proba(self, X) -> np.ndarray:
        """P(y = 1 | x) per row."""
        if self.constant is not None:
            return np.full(X.shape[0], float(self.constant))
        return self.model.predict_proba(X)[:, 1]


class _Transformation:
    """A problem transformation with XGBoost models of the given settings."""

    def __init__(self, learning_rate=0.1, reg_lambda=1.0, random_state=1, n_estimators=100, max_depth=6):
        self.params = dict(learning_rate=learning_rate, reg_lambda=reg_lambda, seed=random_state,
                           n_estimators=n_estimators, max_depth=max_depth)


class BinaryRelevance(_Transformation):
    """One independent binary model per label."""

    def fit(self, X, Y):
        Y = np.asarray(Y, dtype=np.uint8)
        self.models_ = [_Binary(X, Y[:, k], **self.params) for k in range(Y.shape[1])]
        return self

    def predict(self, X) -> np.ndarray:
        return np.column_stack([m.predict(X) for m in self.models_]).astype(np.uint8)

    def predict_proba(self, X) -> np.ndarray:
        """Per label, the probability of its model (the scores of the ranking measures)."""
        return np.column_stack([m.proba(X) for m in self.models_])


class LabelPowerset(_Transformation):
    """One multi-class model whose classes are the label sets of the training data."""

    def fit(self, X, Y):
        Y = np.asarray(Y, dtype=np.uint8)
        self.label_sets_, classes = unique_rows(Y, return_inverse=True)
        classes = classes.ravel()
        if len(self.label_sets_) == 1:
            self.model_ = None
        elif len(self.label_sets_) == 2:
            self.model_ = xgb_classifier(X.shape[1], 2, **self.params).fit(X, classes)
        else:
            self.model_ = xgb_classifier(X.shape[1], len(self.label_sets_), **self.params).fit(X, classes)
        return self

    def predict(self, X) -> np.ndarray:
        if self.model_ is None:
            return np.repeat(self.label_sets_, X.shape[0], axis=0)
        return self.label_sets_[np.asarray(self.model_.predict(X), dtype=np.int64)]


class ClassifierChain(_Transformation):
    """Binary models along a label order; each also sees the labels before it in the chain (the true
    ones in training, its predecessors' predictions at test time).  ``order``: a permutation of the
    labels, or None for a random one drawn from ``order_seed``."""

    def __init__(self, learning_rate=0.1, reg_lambda=1.0, random_state=1, order=None, order_seed=1,
                 n_estimators=100, max_depth=6):
        super().__init__(learning_rate, reg_lambda, random_state, n_estimators, max_depth)
        self.order = order
        self.order_seed = order_seed

    def fit(self, X, Y):
        Y = np.asarray(Y, dtype=np.uint8)
        K = Y.shape[1]
        self.order_ = (np.random.default_rng(self.order_seed).permutation(K) if self.order is None
                       else np.asarray(self.order, dtype=np.int64))
        if sorted(self.order_.tolist()) != list(range(K)):
            raise ValueError(f"order must be a permutation of the {K} labels")
        self.models_ = []
        for i, k in enumerate(self.order_):
            self.models_.append(_Binary(_augment(X, Y[:, self.order_[:i]]), Y[:, k], **self.params))
        return self

    def predict(self, X) -> np.ndarray:
        P = np.zeros((X.shape[0], len(self.order_)), dtype=np.uint8)
        for i, (k, model) in enumerate(zip(self.order_, self.models_)):
            P[:, k] = model.predict(_augment(X, P[:, self.order_[:i]]))
        return P


def _augment(X, labels: np.ndarray):
    """The attributes followed by the given label columns."""
    if labels.shape[1] == 0:
        return X
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(labels.astype(np.float32))], format="csr")
    return np.hstack([np.asarray(X, dtype=np.float32), labels.astype(np.float32)])
