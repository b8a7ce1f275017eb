"""Classifier chains of L2-regularised logistic regressions (Read et al. 2009), the baseline ML-ME's
paper compares with (SPEC B.11): label k of the chain is predicted from the attributes and the labels
before it, greedily at prediction time.  Uses ML-ME's logistic regression and design (standardised
attributes and a bias), so the two are comparable.  ``fit_iter`` yields one step per label."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin

from ..learner import not_fitted
from ..parameters import FROM_INIT, Parameter
from ..rules import Schema
from ..step_model_file import make_document, open_document, save_document, schema_of
from ..steps import CancelCheck, FitCancelled, Step
from ..threads import with_single_threaded_blas
from ..targets import MultiLabelTargets
from ..validation import FromParamsMixin, check_labels
from . import logistic
from .design import design, standardiser

LEARNER_KEY = "cc-lr"


@dataclass(frozen=True)
class ChainLink:
    """One step: the regression of one label on the attributes and the labels before it."""

    label: int
    position: int
    inputs: tuple[int, ...]  # the labels it reads
    strongest: str  # its largest coefficients, as text
    name: str = ""  # the label's name (the data's schema)

    def summary(self) -> str:
        return f"label {self.name or self.label} after {len(self.inputs)} label(s): {self.strongest}"


class LogisticChainClassifier(MultiLabelTargets, FromParamsMixin, ClassifierMixin, BaseEstimator):
    """Classifier chain of logistic regressions (registry key ``'cc-lr'``).

    l2 : L2 weight of every regression (ML-ME's default, so the baseline is comparable).
    order : the chain as a permutation of the labels; None = the original label order (as the paper)."""

    PARAMETERS = (
        Parameter("l2", "float", FROM_INIT, "L2 weight", "of every logistic regression (ML-ME's default)",
                  minimum=0.0, maximum=1e6),
        Parameter("order", "object", FROM_INIT, "Order", "the chain as a permutation of the labels (None: original)",
                  shown=False),
    )

    def __init__(self, l2=10.0, order=None):
        self.l2 = l2
        self.order = order

    def kernel_setting(self, profile) -> None:
        """The chain compiles no kernels (NumPy and SciPy only): nothing to prepare before a run
        (engine.prepare.kernel_setting; the window then starts learning at once)."""
        return None

    def fit_iter(self, X, Y, X_test=None, Y_test=None, *, nominal_attributes=None, schema: Schema | None = None,
                 cancel: threading.Event | None = None) -> Iterator[Step]:
        self._check_params()
        Xc, Yc, Xv, Yv = self._training_data(X, Y, X_test, Y_test)
        val = None if Xv is None else (Xv, Yv)
        K = Yc.shape[1]
        order = np.arange(K) if self.order is None else np.asarray(self.order, dtype=np.int64)
        if sorted(order.tolist()) != list(range(K)):
            raise ValueError(f"order must be a permutation of the {K} labels, got {self.order!r}")
        self.mean_, self.scale_ = standardiser(Xc)
        self.n_features_in_, self.n_labels_, self.schema_ = Xc.shape[1], K, schema or Schema()
        self.order_ = order
        self.coef_: list[np.ndarray] = []
        self.prior_ = Yc.mean(axis=0)
        return self._grow(design(Xc, self.mean_, self.scale_), Yc, val, CancelCheck(cancel))

    @with_single_threaded_blas
    def _grow(self, D, Y, val, cancel: CancelCheck) -> Iterator[Step]:
        """One step per label; once ``cancel`` is set (seen in every L-BFGS iteration) the unfinished
        link is dropped and no step follows."""
        ones = np.ones((len(Y), 1))
        for i, k in enumerate(self.order_):
            try:
                cancel.check()
                A = np.hstack([D, Y[:, self.order_[:i]].astype(np.float64)])
                b = logistic.fit(A, Y[:, [k]].astype(np.float64), ones, float(self.l2), cancel=cancel)[:, 0]
                self.coef_.append(b)
                metrics = self._scores("train", D, Y)
                if val is not None:
                    metrics.update(self._scores("test", design(val[0], self.mean_, self.scale_), val[1]))
                cancel.check()
            except FitCancelled:
                del self.coef_[i:]
                return
            yield Step(i, "label", self._link(i, k, b), metrics)

    def _link(self, i: int, k: int, b: np.ndarray) -> ChainLink:
        names = [self.schema_.feature(j) for j in range(self.n_features_in_)] + \
                [self.schema_.label(int(j)) for j in self.order_[:i]]
        top = np.argsort(-np.abs(b[1:]))[:3]
        text = ", ".join(f"{names[j]} {b[1 + j]:+.2f}" for j in top)
        return ChainLink(int(k), i, tuple(int(j) for j in self.order_[:i]), text, self.schema_.label(int(k)))

    def _walk(self, D) -> tuple[np.ndarray, np.ndarray]:
        """Greedy predictions and P(y_k = 1 | x, ŷ before k) along the chain learned so far; labels
        not reached yet are predicted by their training majority."""
        n, K = len(D), self.n_labels_
        P = np.tile((self.prior_ > 0.5).astype(np.uint8), (n, 1))
        prob = np.tile(self.prior_, (n, 1))
        for i, b in enumerate(self.coef_):
            k = self.order_[i]
            z = D @ b[: D.shape[1]] + P[:, self.order_[:i]] @ b[D.shape[1]:]
            prob[:, k] = expit(z)
            P[:, k] = z > 0
        return P, prob

    def _scores(self, prefix: str, D, Y) -> dict:
        P, _ = self._walk(D)
        wrong = P != Y
        out = {f"{prefix}_hamming": float(wrong.mean()), f"{prefix}_subset": float(wrong.any(axis=1).mean())}
        if len(self.coef_) == self.n_labels_:
            out[f"{prefix}_cll"] = float(-self._log_prob(D, Y).sum())
        return out

    def _log_prob(self, D, Y) -> np.ndarray:
        total = np.zeros(len(D))
        for i, b in enumerate(self.coef_):
            k = self.order_[i]
            z = D @ b[: D.shape[1]] + Y[:, self.order_[:i]].astype(np.float64) @ b[D.shape[1]:]
            total += np.where(Y[:, k] > 0, log_expit(z), log_expit(-z))
        return total

    def fit(self, X, Y, **kwargs):
        for _ in self.fit_iter(X, Y, **kwargs):
            pass
        return self

    def _check_X(self, X) -> np.ndarray:
        if not getattr(self, "coef_", None):
            raise not_fitted(self)
        Xc = self._features(X, self.n_features_in_)
        return design(Xc, self.mean_, self.scale_)

    def predict(self, X) -> np.ndarray:
        """Greedy chain prediction: each label from the attributes and the predictions before it."""
        return self._as_classes(self._walk(self._check_X(X))[0])

    def predict_proba(self, X) -> np.ndarray:
        """P(y_k = 1 | x, the greedy predictions before k)."""
        return self._as_class_probabilities(self._walk(self._check_X(X))[1])

    def log_likelihood(self, X, Y) -> np.ndarray:
        """log P(y | x) = Σ_k log P(y_k | x, y before k) per example (exact for a chain)."""
        D = self._check_X(X)
        Yc = check_labels(Y, D.shape[0])
        if Yc.shape[1] != self.n_labels_:
            raise ValueError(f"Y has {Yc.shape[1]} labels, the model has {self.n_labels_}")
        return self._log_prob(D, Yc)

    # ------------------------------------------------------------------------------ persistence
    def to_model_dict(self) -> dict:
        if not getattr(self, "coef_", None):
            raise not_fitted(self)
        return make_document(LEARNER_KEY, self.get_params(), self.n_features_in_, self.n_labels_, self.schema_,
                             mean=self.mean_.tolist(), scale=self.scale_.tolist(), prior=self.prior_.tolist(),
                             order=self.order_.tolist(), coef=[b.tolist() for b in self.coef_])

    def save(self, path) -> None:
        save_document(self.to_model_dict(), path)

    @classmethod
    def from_model_dict(cls, doc: Mapping) -> "LogisticChainClassifier":
        """A fitted chain from a model document; every field is checked (ValueError naming it)."""
        from .. import model_document as checks

        est, m, d, K = open_document(cls, doc)

        def vector(value, field, length):
            items = checks.sequence(value, field, max_length=length)
            if len(items) != length:
                raise ValueError(f"{field}: {len(items)} entries, expected {length}")
            return np.array([checks.number(v, f"{field}[{i}]") for i, v in enumerate(items)], dtype=np.float64)

        mean, scale = vector(m.get("mean"), "model, mean", d), vector(m.get("scale"), "model, scale", d)
        if (scale <= 0).any():
            raise ValueError("model, scale: entries must be positive")
        prior = vector(m.get("prior"), "model, prior", K)
        if ((prior < 0) | (prior > 1)).any():
            raise ValueError("model, prior: entries must lie in [0, 1]")
        order_items = checks.sequence(m.get("order"), "model, order", max_length=K)
        order = np.array([checks.integer(v, f"model, order[{i}]", 0, K) for i, v in enumerate(order_items)],
                         dtype=np.int64)
        if sorted(order.tolist()) != list(range(K)):
            raise ValueError(f"model, order: not a permutation of the {K} labels")
        links = checks.sequence(m.get("coef"), "model, coef", max_length=K)
        if not links:
            raise ValueError("model, coef: at least one regression expected")
        coef = [vector(b, f"model, coef[{i}]", d + 1 + i) for i, b in enumerate(links)]
        est.mean_, est.scale_, est.prior_, est.order_, est.coef_ = mean, scale, prior, order, coef
        est.n_features_in_, est.n_labels_ = d, K
        est.schema_ = schema_of(m, d, K)
        return est
