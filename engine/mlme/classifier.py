"""``MLMEClassifier``: mixtures of conditional tree-structured Bayesian network experts
(Hong, Batal & Hauskrecht 2014; SPEC B), learned one expert at a time.

``fit_iter`` yields one :class:`engine.steps.Step` per expert tried (SPEC B.6, B.12): the expert's
tree is learned on re-weighted data (ω ∝ 1 − P(y|x) under the current mixture), all parameters are
refitted by EM, and the mixture is scored on an internal validation split; a drop of that
log-likelihood rejects the expert and ends training.  The last mixture is refitted on all
training data.  Prediction is the annealed MAP of the mixture (SPEC B.7)."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin

from ..learner import not_fitted
from ..parameters import FROM_INIT, Parameter
from ..rules import Schema
from ..step_model_file import make_document, open_document, save_document, schema_of
from ..steps import CancelCheck, FitCancelled, Step
from ..threads import with_single_threaded_blas
from ..targets import MultiLabelTargets
from ..validation import FromParamsMixin, check_labels
from . import ctbn as C
from .design import design, standardiser
from .mixture import Mixture, annealed_map, em, penalized_ll

LEARNER_KEY = "ml-me"
STRUCTURES = ("tree", "independent")
# Upper bounds of the parameters a model file can set (far above the paper's 5 experts, 50 EM
# iterations and 150 annealing steps): prediction work grows with sa_iterations, so a file must not
# be able to ask for 10^9 of them.
MAX_EXPERTS = 1_000
MAX_EM_ITERATIONS = 100_000
MAX_SA_ITERATIONS = 10_000


@dataclass(frozen=True)
class ExpertStep:
    """What one step did: the expert's tree, the data weights it was learned on, EM and the decision."""

    expert: int  # 1-based number of the expert tried
    tree: str  # "y3 ← y1, …; roots …"
    parents: tuple[int, ...]
    arc_weights: tuple[float, ...]  # W_{π(i)→i} of the chosen arcs (eq. 13)
    omega_max: float
    omega_ess: float  # effective sample size 1/Σω²
    em_iterations: int
    em_objective: tuple[float, ...]  # penalised log-likelihood after each EM iteration
    accepted: bool
    refit: bool  # the mixture was refitted on all training data after this step

    def summary(self) -> str:
        return f"expert {self.expert}: {self.tree}" if self.accepted else f"expert {self.expert} rejected"


class MLMEClassifier(MultiLabelTargets, FromParamsMixin, ClassifierMixin, BaseEstimator):
    """ML-ME (registry key ``'ml-me'``).

    Parameters ([A]: readings of the paper, SPEC B.8)
    ----------
    n_experts : the most experts (K_max = 5, the paper's K).
    l2 : L2 weight of every expert logistic regression (on weights summing to the sample size); the
        paper tunes it by cross-validation [A]; 10 was best of {1, 10, 30, 100} on an emotions split.
    gate_l2 : L2 weight of the softmax gate (bias unpenalised) [A; the authors' demo uses 1; on emotions
        (5-fold CV) 100 kept 2.2 experts and gave EMA 0.304 / CLL 275.5, 1 kept 1.0 (0.288 / 282.3)].
    early_stopping : stop when the internal-validation log-likelihood drops (B.6) [A].
    validation_size : the internal validation fraction (80/20) [A].
    structure_holdout : fraction of the data scoring candidate parents (eq. 12-13) [A].
    max_em_iter, em_tol : EM stops after this many iterations or a relative increase < em_tol [A].
    sa_iterations, sa_t0, sa_alpha : annealed MAP: steps, start temperature, cooling factor [P/A].
    structure : 'tree' (the paper's CTBN experts) or 'independent' (no label parents: with one expert
        this is binary relevance with logistic regressions, the paper's BR baseline).
    random_state : seeds the splits and the annealing.
    """

    LEARNER_NAME = LEARNER_KEY

    PARAMETERS = (
        Parameter("n_experts", "int", FROM_INIT, "Experts", "most experts (the paper: 5)", minimum=1,
                  maximum=MAX_EXPERTS),
        Parameter("l2", "float", FROM_INIT, "L2 weight (experts)", "of every logistic regression", minimum=0.0,
                  maximum=1e6),
        Parameter("gate_l2", "float", FROM_INIT, "L2 weight (gate)", "of the softmax gate", minimum=0.0, maximum=1e6),
        Parameter("early_stopping", "choice", FROM_INIT, "Early stopping", "stop when the internal-validation "
                  "likelihood drops", choices=(True, False)),
        Parameter("validation_size", "float", FROM_INIT, "Validation share", "internal validation for early "
                  "stopping", minimum=0.0, maximum=0.9, low_open=True, shown=False),
        Parameter("structure_holdout", "float", FROM_INIT, "Structure holdout", "share held out to choose "
                  "structures", minimum=0.0, maximum=0.9, low_open=True, shown=False),
        Parameter("max_em_iter", "int", FROM_INIT, "EM iterations", "per expert added", minimum=0,
                  maximum=MAX_EM_ITERATIONS),
        Parameter("em_tol", "float", FROM_INIT, "EM tolerance", "relative change that ends EM", minimum=0.0,
                  maximum=1.0, shown=False),
        Parameter("sa_iterations", "int", FROM_INIT, "Annealing steps", "MAP search per example (the paper: 150)",
                  minimum=0, maximum=MAX_SA_ITERATIONS),
        Parameter("sa_t0", "float", FROM_INIT, "Annealing T0", "start temperature", minimum=0.0, maximum=1e6,
                  low_open=True, shown=False),
        Parameter("sa_alpha", "float", FROM_INIT, "Annealing α", "cooling factor", minimum=0.0, maximum=1.0,
                  low_open=True, shown=False),
        Parameter("structure", "choice", FROM_INIT, "Expert structure", "tree: each label may have one parent "
                  "label (CTBN); independent: none (binary relevance)", choices=STRUCTURES),
        Parameter("random_state", "seed", FROM_INIT, "Seed", "splits and annealing", minimum=0, maximum=2**32 - 1),
    )

    def __init__(self, n_experts=5, l2=10.0, gate_l2=100.0, early_stopping=True, validation_size=0.2,
                 structure_holdout=1 / 3, max_em_iter=50, em_tol=1e-5, sa_iterations=150, sa_t0=1.0,
                 sa_alpha=0.95, structure="tree", random_state=1):
        self.n_experts = n_experts
        self.l2 = l2
        self.gate_l2 = gate_l2
        self.early_stopping = early_stopping
        self.validation_size = validation_size
        self.structure_holdout = structure_holdout
        self.max_em_iter = max_em_iter
        self.em_tol = em_tol
        self.sa_iterations = sa_iterations
        self.sa_t0 = sa_t0
        self.sa_alpha = sa_alpha
        self.structure = structure
        self.random_state = random_state

    # ------------------------------------------------------------------------------ features
    def _design(self, X) -> np.ndarray:
        return design(X, self.mean_, self.scale_)

    # ------------------------------------------------------------------------------ training
    def kernel_setting(self, profile) -> None:
        """ML-ME compiles no kernels (NumPy and SciPy only): nothing to prepare before a run
        (engine.prepare.kernel_setting; the window then starts learning at once)."""
        return None

    def fit_iter(self, X, Y, X_test=None, Y_test=None, *, nominal_attributes=None, schema: Schema | None = None,
                 cancel: threading.Event | None = None) -> Iterator[Step]:
        """Validate everything, then yield one :class:`Step` per expert tried (kind ``'expert'``)."""
        self._check_params()
        Xc, Yc, Xv, Yv = self._training_data(X, Y, X_test, Y_test)
        n = Xc.shape[0]
        if n < 10:
            raise ValueError(f"ML-ME needs at least 10 training examples, got {n} (n_samples={n})")
        Xd = Xc.toarray() if sp.issparse(Xc) else np.asarray(Xc, dtype=np.float64)
        self.mean_, self.scale_ = standardiser(Xd)
        self.n_features_in_, self.n_labels_, self.schema_ = Xc.shape[1], Yc.shape[1], schema or Schema()
        self.mixture_ = None
        design = self._design(Xd)
        val = None if Xv is None else (self._design(Xv), Yv)
        return self._grow_until_cancelled(design, Yc, val, CancelCheck(cancel))

    @with_single_threaded_blas
    def _grow_until_cancelled(self, X, Y, val, cancel: CancelCheck) -> Iterator[Step]:
        """The steps of :meth:`_grow`; once ``cancel`` is set (seen in any EM, L-BFGS or annealing
        iteration) the unfinished step is dropped, the mixture of the last step kept, and no step
        follows."""
        kept = None
        try:
            for step in self._grow(X, Y, val, cancel):
                cancel.check()  # a step finished while cancelling is dropped like an unfinished one
                kept = self.mixture_
                yield step
        except FitCancelled:
            self.mixture_ = kept

    def _grow(self, X, Y, val, cancel: CancelCheck) -> Iterator[Step]:
        rng = np.random.default_rng(self.random_state)
        n = len(Y)
        if self.early_stopping:
            perm = rng.permutation(n)
            n_val = max(1, int(round(n * self.validation_size)))
            inner, held = perm[n_val:], perm[:n_val]
        else:
            inner, held = np.arange(n), None
        Xi, Yi = X[inner], Y[inner]

        label = self.schema_.label
        current: Mixture | None = None
        best_val = -np.inf
        for k in range(1, self.n_experts + 1):
            cancel.check()
            if current is None:
                omega = np.full(len(Yi), 1.0 / len(Yi))
            else:  # SPEC B.6 step 2.1: ω ∝ 1 − P(y | x; M)
                miss = 1.0 - np.exp(np.minimum(current.log_prob(Xi, Yi), 0.0))
                omega = miss / miss.sum() if miss.sum() > 0 else np.full(len(Yi), 1.0 / len(Yi))
            if self.structure == "tree":
                scores = C.edge_weights(Xi, Yi, omega, self.l2, rng, self.structure_holdout, cancel)
                parents = C.best_structure(scores)
            else:
                d = Yi.shape[1]
                scores = C.StructureScores(np.zeros((d, d)), np.full(d, np.nan))
                parents = np.full(d, C.ROOT, dtype=np.int64)
            coef = C.fit_parameters(Xi, Yi, omega * len(Yi), parents, self.l2, cancel=cancel)
            expert = C.CTBN(parents, coef)
            if current is None:
                candidate = Mixture([expert], np.zeros((1, X.shape[1])))
            else:
                candidate = Mixture([C.CTBN(e.parents, e.coef.copy()) for e in current.experts] + [expert],
                                    np.vstack([current.gate, np.zeros((1, X.shape[1]))]))
            fit = em(candidate, Xi, Yi, self.l2, self.gate_l2, self.max_em_iter, self.em_tol, cancel)
            val_ll = float(candidate.log_prob(X[held], Y[held]).sum()) if held is not None else float("nan")
            accepted = current is None or held is None or val_ll >= best_val
            last = not accepted or k == self.n_experts
            if accepted:
                current, best_val = candidate, val_ll
            self.mixture_ = current
            refit = False
            if last and held is not None:  # SPEC B.6 step 3: parameters relearnt on all training data
                final = Mixture([C.CTBN(e.parents, e.coef.copy()) for e in current.experts], current.gate.copy())
                em(final, X, Y, self.l2, self.gate_l2, self.max_em_iter, self.em_tol, cancel)
                self.mixture_, refit = final, True
            arcs = tuple(float(scores.self_[i] if p == C.ROOT else scores.pair[p, i]) for i, p in enumerate(parents))
            component = ExpertStep(k, expert.describe(label), tuple(int(p) for p in parents), arcs,
                                   float(omega.max()), float(1.0 / np.sum(omega ** 2)), fit.iterations,
                                   tuple(fit.objective), accepted, refit)
            metrics = {"n_experts": float(self.mixture_.n_experts),
                       "penalized_ll": penalized_ll(candidate, Xi, Yi, self.l2, self.gate_l2),
                       "em_iterations": float(fit.iterations), "ess": component.omega_ess}
            if held is not None:
                metrics["internal_val_ll"] = val_ll
            metrics.update(self._scores("train", X, Y, cancel))
            if val is not None:
                metrics.update(self._scores("test", *val, cancel))
            yield Step(k - 1, "expert", component, metrics)
            if last:
                return

    def _scores(self, prefix: str, X, Y, cancel: CancelCheck) -> dict:
        P = annealed_map(self.mixture_, X, self.sa_iterations, self.sa_t0, self.sa_alpha, self._sa_seed(), cancel)
        wrong = P != Y
        return {f"{prefix}_hamming": float(wrong.mean()), f"{prefix}_subset": float(wrong.any(axis=1).mean()),
                f"{prefix}_cll": float(-self.mixture_.log_prob(X, Y).sum())}

    def _sa_seed(self) -> int:
        return 0 if self.random_state is None else int(self.random_state)

    def fit(self, X, Y, **kwargs):
        for _ in self.fit_iter(X, Y, **kwargs):
            pass
        return self

    # ------------------------------------------------------------------------------ prediction
    def _check_X(self, X) -> np.ndarray:
        if getattr(self, "mixture_", None) is None:
            raise not_fitted(self)
        Xc = self._features(X, self.n_features_in_)
        return self._design(Xc)

    def predict(self, X) -> np.ndarray:
        """Annealed MAP label vectors of the mixture (SPEC B.7)."""
        Xd = self._check_X(X)
        return self._as_classes(annealed_map(self.mixture_, Xd, self.sa_iterations, self.sa_t0, self.sa_alpha,
                                             self._sa_seed()))

    def predict_proba(self, X) -> np.ndarray:
        """Per-label marginals P(y_i = 1 | x) of the mixture."""
        Xd = self._check_X(X)
        return self._as_class_probabilities(np.clip(self.mixture_.marginals(Xd), 0.0, 1.0))  # sums may round past 1

    def log_likelihood(self, X, Y) -> np.ndarray:
        """log P(y | x) per example (natural log; the CLL-loss is minus its sum)."""
        Xb = self._check_X(X)
        Yc = check_labels(Y, Xb.shape[0])
        if Yc.shape[1] != self.n_labels_:
            raise ValueError(f"Y has {Yc.shape[1]} labels, the model has {self.n_labels_}")
        return self.mixture_.log_prob(Xb, Yc)

    # ------------------------------------------------------------------------------ persistence
    def to_model_dict(self) -> dict:
        if getattr(self, "mixture_", None) is None:
            raise not_fitted(self)
        mix = self.mixture_
        return make_document(LEARNER_KEY, self.get_params(), self.n_features_in_, self.n_labels_, self.schema_,
                             mean=self.mean_.tolist(), scale=self.scale_.tolist(), gate=mix.gate.tolist(),
                             experts=[{"parents": e.parents.tolist(), "coef": e.coef.tolist()} for e in mix.experts])

    def save(self, path) -> None:
        save_document(self.to_model_dict(), path)

    @classmethod
    def from_model_dict(cls, doc: Mapping) -> "MLMEClassifier":
        """A fitted model from a model document; every field is checked (ValueError naming it)."""
        from .. import model_document as checks

        est, m, n_features, d = open_document(cls, doc)
        width = n_features + 1

        def matrix(value, field, shape):
            flat = np.asarray(_numbers(value, field, shape), dtype=np.float64)
            return flat.reshape(shape)

        def _numbers(value, field, shape):
            if len(shape) == 1:
                items = checks.sequence(value, field, max_length=shape[0])
                if len(items) != shape[0]:
                    raise ValueError(f"{field}: {len(items)} entries, expected {shape[0]}")
                return [checks.number(v, f"{field}[{i}]") for i, v in enumerate(items)]
            items = checks.sequence(value, field, max_length=shape[0])
            if len(items) != shape[0]:
                raise ValueError(f"{field}: {len(items)} entries, expected {shape[0]}")
            return [_numbers(v, f"{field}[{i}]", shape[1:]) for i, v in enumerate(items)]

        mean = matrix(m.get("mean"), "model, mean", (n_features,))
        scale = matrix(m.get("scale"), "model, scale", (n_features,))
        if (scale <= 0).any():
            raise ValueError("model, scale: entries must be positive")
        experts_doc = checks.sequence(m.get("experts"), "model, experts", max_length=10_000)
        if not experts_doc:
            raise ValueError("model, experts: at least one expert expected")
        gate = matrix(m.get("gate"), "model, gate", (len(experts_doc), width))
        experts = []
        for k, e in enumerate(experts_doc):
            e = checks.mapping(e, f"model, experts[{k}]")
            ps = checks.sequence(e.get("parents"), f"model, experts[{k}].parents", max_length=d)
            if len(ps) != d:
                raise ValueError(f"model, experts[{k}].parents: {len(ps)} entries, expected {d}")
            parents = np.array([checks.integer(p, f"model, experts[{k}].parents[{i}]", -1, d)
                                for i, p in enumerate(ps)], dtype=np.int64)
            if (parents == np.arange(d)).any():
                raise ValueError(f"model, experts[{k}].parents: a label is its own parent")
            try:
                C.topological_order(parents)
            except ValueError:
                raise ValueError(f"model, experts[{k}].parents: the parents form a cycle") from None
            coef = matrix(e.get("coef"), f"model, experts[{k}].coef", (d, 2, width))
            experts.append(C.CTBN(parents, coef))
        est.mean_, est.scale_ = mean, scale
        est.n_features_in_, est.n_labels_ = n_features, d
        est.schema_ = schema_of(m, n_features, d)
        est.mixture_ = Mixture(experts, gate)
        return est
