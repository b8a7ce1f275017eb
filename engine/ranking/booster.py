"""``LabelRankingBooster``: log-linear label ranking by boosting (Dekel, Manning & Singer, NIPS 2003).

f(x, y) = Σ_j λ_j h_j(x, y) with h_{w,y}(x, y') = φ_w(x)·[y' = y] (engine.ranking.features),
trained on preference graphs (engine.ranking.graphs) with the parallel update of Fig. 3
(engine.ranking.objective).  ``fit_iter`` yields one :class:`engine.steps.Step` per iteration
(SPEC A.10): its component is a :class:`ParallelUpdate`, its metrics the training loss, the
Theorem-1 bound, the actual decrease, and the four generalised errors with Hamming and subset
0/1 losses of the bipartition (train every step; test every ``eval_every`` steps)."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ..learner import not_fitted
from ..rules import Schema
from ..step_model_file import make_document, open_document, save_document, schema_of
from ..steps import CancelCheck, FitCancelled, Step
from ..parameters import FROM_INIT, Parameter
from ..targets import MultiLabelTargets
from ..validation import FromParamsMixin
from . import graphs as G
from .features import FEATURES, BaseFeatures
from .kernels import disagreement
from .objective import RankingObjective

LEARNER_KEY = "label-ranking"
GRAPHS = ("bipartite", "layered")
UPDATES = ("parallel", "sequential")
THRESHOLDS = ("calibration-label", "cardinality")
TOP_CHANGES = 10
MAX_ITERATIONS = 10_000_000  # the bound of every count a model file can set


@dataclass(frozen=True)
class Change:
    """A base function's coefficient change: "feature → label: Δλ (now λ)"."""

    feature: str
    label: str
    delta: float
    value: float

    def text(self) -> str:
        return f"{self.feature} → {self.label}: {self.delta:+.4g} (λ = {self.value:.4g})"


@dataclass(frozen=True)
class ParallelUpdate:
    """What one iteration changed: the largest |Δλ| (at most 10) and how many λ moved."""

    changes: tuple[Change, ...]
    n_changed: int

    def summary(self) -> str:
        return self.changes[0].text() if self.changes else "no change"


class _ErrorGraphs:
    """The bipartite graphs of a label matrix grouped by all four decompositions, for the errors."""

    def __init__(self, Y: np.ndarray, cancel=None):
        graphs = G.bipartite(Y, cancel=cancel)
        self.groups = {d: graphs.group(d) for d in G.DECOMPOSITIONS}
        self.keep = graphs.has_edges()  # examples without edges are dropped from the means (SPEC A.2 [A])
        self.out = np.zeros(len(Y))

    def errors(self, F: np.ndarray) -> dict:
        res = {}
        n = max(int(self.keep.sum()), 1)
        for d, g in self.groups.items():
            disagreement(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, self.out)
            res[d] = float(self.out[self.keep].sum()) / n if self.keep.any() else float("nan")
        return res


_METRIC_SUFFIX = {"0-1": "01", "dis": "dis", "Dom": "Dom", "dom": "dom"}


class LabelRankingBooster(MultiLabelTargets, FromParamsMixin, ClassifierMixin, BaseEstimator):
    """Boosted log-linear label ranking over preference graphs.

    Parameters (SPEC A; [A] marks readings of the paper exposed as parameters)
    ----------
    decomposition : '0-1' | 'dis' | 'Dom' | 'dom' — the loss's decomposition A of eq. (1).
    graph : 'bipartite' (relevant ≻ irrelevant) | 'layered' (3 layers from ``hierarchy``, A.8).
    hierarchy : parent label index per label (-1 = top level), for ``graph='layered'``.
    features : 'per-label' (the paper's φ_w(x)·[y'=y], φ rescaled to [0, 1]) | 'thresholds'
        (indicators x_a > θ: every base function reads as a rule "x_a > θ → y").
    n_thresholds : thresholds per attribute for ``features='thresholds'``.
    update : 'parallel' (Fig. 3) | 'sequential' (one base function per step; extension, A.6).
    threshold : bipartition rule, not in the paper [A]: 'calibration-label' (a virtual label ⊥
        ranked between relevant and irrelevant labels, A.10 (a)) | 'cardinality' (top r̂ labels).
    max_iterations : the budget (one step per iteration).
    tol : stop when an iteration lowers the loss by less than ``tol`` times the loss.
    smoothing : ε of δ = ½ ln((W⁺+ε)/(W⁻+ε)) where only one of W± is zero (A.4 [A]).
    eval_every : test metrics every this many steps (and at the last).
    """

    PARAMETERS = (
        Parameter("decomposition", "choice", FROM_INIT, "Decomposition", "how each preference graph is split into "
                  "subgraphs: the loss's reading of a mistake (eq. 1)", choices=G.DECOMPOSITIONS),
        Parameter("graph", "choice", FROM_INIT, "Graph", "bipartite (relevant over irrelevant labels) or layered "
                  "(a label hierarchy)", choices=GRAPHS, shown=False),
        Parameter("hierarchy", "object", FROM_INIT, "Hierarchy", "parent label of every label (-1: top level)",
                  shown=False),
        Parameter("features", "choice", FROM_INIT, "Base features", "per-label: scaled attribute values (the "
                  "paper); thresholds: x > θ indicators, each reads as a rule", choices=FEATURES),
        Parameter("n_thresholds", "int", FROM_INIT, "Thresholds", "per attribute, for threshold features", minimum=1,
                  maximum=255),
        Parameter("update", "choice", FROM_INIT, "Update", "parallel: all coefficients (Fig. 3); sequential: "
                  "one base function per step (an extension)", choices=UPDATES),
        Parameter("threshold", "choice", FROM_INIT, "Bipartition", "how rankings become label sets "
                  "(not in the paper): a calibration label, or the training label cardinality",
                  choices=THRESHOLDS),
        Parameter("max_iterations", "int", FROM_INIT, "Iterations", "boosting iterations (steps)", minimum=1,
                  maximum=MAX_ITERATIONS),
        Parameter("tol", "float", FROM_INIT, "Tolerance", "stop when the loss falls by less", minimum=0.0,
                  maximum=1.0, shown=False),
        Parameter("smoothing", "float", FROM_INIT, "Smoothing ε", "of the update where one weight is zero",
                  minimum=0.0, maximum=1.0, shown=False),
        Parameter("eval_every", "int", FROM_INIT, "Test every", "test metrics every this many steps", minimum=1,
                  maximum=MAX_ITERATIONS),
    )

    def __init__(self, decomposition="dom", graph="bipartite", hierarchy=None, features="per-label",
                 n_thresholds=8, update="parallel", threshold="calibration-label", max_iterations=200,
                 tol=1e-9, smoothing=1e-3, eval_every=10):
        self.decomposition = decomposition
        self.graph = graph
        self.hierarchy = hierarchy
        self.features = features
        self.n_thresholds = n_thresholds
        self.update = update
        self.threshold = threshold
        self.max_iterations = max_iterations
        self.tol = tol
        self.smoothing = smoothing
        self.eval_every = eval_every

    LEARNER_NAME = LEARNER_KEY

    def _check_combination(self) -> None:
        if self.graph == "layered" and self.hierarchy is None:
            raise ValueError("graph='layered' needs hierarchy: the parent label index of every label (-1 = top level)")
        if self.graph == "bipartite" and self.hierarchy is not None:
            raise ValueError("hierarchy is only used with graph='layered'")

    # ---------------------------------------------------------------------------- training
    def fit_iter(self, X, Y, X_test=None, Y_test=None, *, nominal_attributes=None, schema: Schema | None = None,
                 cancel: threading.Event | None = None, graphs=None) -> Iterator[Step]:
        """Validate everything, then yield one :class:`Step` per iteration.

        The set-up (preference graphs, base features, the objective) is done when the first step
        is asked for, in the thread that consumes the steps, and it looks at ``cancel`` between
        its phases and every few hundred examples: a Stop during the set-up ends the run at once,
        unfitted.  ``graphs`` (optional): per training example a list of (above, below) label pairs,
        used as the supervision instead of the graphs built from ``Y`` (``Y`` still defines the
        bipartition's calibration and the reported errors).  ``nominal_attributes`` is accepted
        for interface compatibility; nominal codes are used as numbers."""
        self._check_params()
        Xc, Yc, Xv, Yv = self._training_data(X, Y, X_test, Y_test)
        calibration = self.threshold == "calibration-label"
        if self.graph == "layered":
            G.check_parents(self.hierarchy, Yc.shape[1])
        user_graphs = None if graphs is None else self._training_graphs(Yc, graphs, calibration)
        if user_graphs is None:
            G.check_edge_count(Yc, calibration)  # a lower bound of the layered graphs' edges
        self.coef_ = None  # a refit cancelled during its set-up leaves no half-replaced model
        return self._set_up_and_iterate(Xc, Yc, Xv, Yv, schema or Schema(), user_graphs, CancelCheck(cancel))

    def _set_up_and_iterate(self, Xc, Yc, Xv, Yv, schema: Schema, user_graphs, cancel: CancelCheck) -> Iterator[Step]:
        k = Yc.shape[1]
        calibration = self.threshold == "calibration-label"
        try:
            parents = None if self.graph == "bipartite" else self.hierarchy
            train_graphs = user_graphs if user_graphs is not None else G.layered(Yc, parents, calibration,
                                                                                   cancel=cancel.check)
            cancel.check()
            base = BaseFeatures.fit(self.features, Xc, self.n_thresholds, cancel=cancel.check)
            cancel.check()
            phi = base.transform(Xc)
            cancel.check()
            objective = RankingObjective(phi, train_graphs.group(self.decomposition), k + calibration, self.smoothing)
            cancel.check()
            train_errors = _ErrorGraphs(Yc, cancel.check)
            val = None if Xv is None else (base.transform(Xv), Yv, _ErrorGraphs(Yv, cancel.check))
            cancel.check()
        except FitCancelled:
            return
        sums = Yc.sum(axis=1)
        self.n_features_in_, self.n_labels_, self.schema_ = Xc.shape[1], k, schema
        self.base_features_, self.calibration_ = base, calibration
        self.cardinality_ = int(round(float(sums.mean())))
        self.n_examples_without_edges_ = int(((sums == 0) | (sums == k)).sum())  # bipartite graphs without edges
        self.coef_ = np.zeros((base.n_base, k + calibration))
        yield from self._iterate(objective, Yc, train_errors, val, base.names(list(schema.feature_names) or None),
                                 cancel)

    def _training_graphs(self, Y, graphs, calibration: bool) -> G.PreferenceGraphs:
        k = Y.shape[1]
        if graphs is None:
            parents = None if self.graph == "bipartite" else self.hierarchy
            return G.layered(Y, parents, calibration)
        if len(graphs) != len(Y):
            raise ValueError(f"graphs: {len(graphs)} preference graphs for {len(Y)} examples")
        user = G.from_edge_lists(graphs, k)
        if not calibration:
            return user
        cal = G.bipartite(Y, calibration=True)  # the ⊥ edges come from Y
        per_example = []
        for i in range(len(Y)):
            a, b = cal.init[cal.ptr[i]:cal.ptr[i + 1]], cal.term[cal.ptr[i]:cal.ptr[i + 1]]
            touches = (a == k) | (b == k)
            per_example.append((np.r_[user.init[user.ptr[i]:user.ptr[i + 1]], a[touches]],
                                np.r_[user.term[user.ptr[i]:user.ptr[i + 1]], b[touches]]))
        return G._assemble(per_example, k + 1)

    def _iterate(self, objective: RankingObjective, Y, train_errors: _ErrorGraphs, val, base_names,
                 cancel) -> Iterator[Step]:
        lam = self.coef_
        F = objective.scores(lam)
        try:
            cancel.check()
            loss = objective.evaluate(F)
        except FitCancelled:
            return
        self.initial_loss_ = loss
        label_names = [self.schema_.label(y) for y in range(self.n_labels_)] + ["⊥ (calibration)"]
        for t in range(self.max_iterations):
            try:  # the event is read between the phases of an update; λ changes only once it is complete
                cancel.check()
                w_plus, w_minus = objective.gradient_parts()
                cancel.check()
                if self.update == "parallel":
                    upd = objective.parallel_update(w_plus, w_minus)
                else:
                    upd = objective.sequential_update(w_plus, w_minus)
                F_new = F + objective.phi @ upd.delta
                cancel.check()
                new_loss = objective.evaluate(F_new)
                decrease = loss - new_loss
                metrics = {"train_loss": new_loss, "bound": upd.bound, "decrease": decrease,
                           "slack": decrease - upd.bound}
                cancel.check()
                metrics.update(self._scored("train", F_new, Y, train_errors))
                last = t + 1 == self.max_iterations or decrease <= self.tol * max(loss, 1e-300)
                if val is not None and ((t + 1) % self.eval_every == 0 or t == 0 or last):
                    phi_v, Yv, errs_v = val
                    cancel.check()
                    scores = np.ascontiguousarray(phi_v @ (lam + upd.delta))
                    metrics.update(self._scored("test", scores, Yv, errs_v, ranking=True))
                cancel.check()
            except FitCancelled:
                return
            lam += upd.delta
            F = F_new
            loss = new_loss
            yield Step(t, "update", _describe(upd.delta, lam, base_names, label_names), metrics)
            if last:
                return

    def _scored(self, prefix: str, F: np.ndarray, Y: np.ndarray, errs: _ErrorGraphs, ranking=False) -> dict:
        from .. import metrics as M

        S = self._label_scores(F)
        out = {f"{prefix}_{_METRIC_SUFFIX[d]}": v for d, v in errs.errors(np.ascontiguousarray(S)).items()}
        P = self._bipartition(S)
        out[f"{prefix}_hamming"] = float(np.mean(P != Y))
        out[f"{prefix}_subset"] = float(np.mean((P != Y).any(axis=1)))
        if ranking:
            out[f"{prefix}_rank_loss"] = M.rank_loss(Y, S)
            out[f"{prefix}_average_precision"] = M.average_precision(Y, S)
        return out

    def fit(self, X, Y, **kwargs):
        for _ in self.fit_iter(X, Y, **kwargs):
            pass
        return self

    # ---------------------------------------------------------------------------- prediction
    def _fitted(self):
        if getattr(self, "coef_", None) is None:
            raise not_fitted(self)

    def _label_scores(self, F: np.ndarray) -> np.ndarray:
        k = self.n_labels_
        return F[:, :k] - F[:, k:k + 1] if self.calibration_ else F[:, :k]

    def _bipartition(self, S: np.ndarray) -> np.ndarray:
        if self.calibration_:
            return (S > 0).astype(np.uint8)
        P = np.zeros(S.shape, dtype=np.uint8)
        r = min(self.cardinality_, S.shape[1])
        if r > 0:
            top = np.argsort(-S, axis=1, kind="stable")[:, :r]
            np.put_along_axis(P, top, 1, axis=1)
        return P

    def _check_X(self, X):
        self._fitted()
        Xc = self._features(X, self.n_features_in_)
        return Xc

    def _scores(self, X) -> np.ndarray:
        Xc = self._check_X(X)
        return self._label_scores(np.asarray(self.base_features_.transform(Xc) @ self.coef_))

    def decision_function(self, X) -> np.ndarray:
        """Label scores f(x, y) (minus f(x, ⊥) with the calibration label: > 0 means relevant)."""
        return self._as_class_scores(self._scores(X))

    def predict(self, X) -> np.ndarray:
        """The bipartition (``threshold``): N x K of 0/1."""
        return self._as_classes(self._bipartition(self._scores(X)))

    def rank(self, X) -> np.ndarray:
        """Label indices per example, most preferred first (ties in label order)."""
        return np.argsort(-self._scores(X), axis=1, kind="stable")

    # ---------------------------------------------------------------------------- persistence
    def to_model_dict(self) -> dict:
        self._fitted()
        params = self.get_params()
        if params.get("hierarchy") is not None:
            params["hierarchy"] = [int(p) for p in np.asarray(self.hierarchy)]
        return make_document(LEARNER_KEY, params, self.n_features_in_, self.n_labels_, self.schema_,
                             calibration=bool(self.calibration_), cardinality=self.cardinality_,
                             base_features=self.base_features_.to_dict(), coefficients=self.coef_.tolist())

    def save(self, path) -> None:
        save_document(self.to_model_dict(), path, indent=1)

    @classmethod
    def from_model_dict(cls, doc: Mapping) -> "LabelRankingBooster":
        """A fitted booster from a model document; every field is checked (ValueError)."""
        from .. import model_document as checks

        est, m, n_features, n_labels = open_document(cls, doc)
        calibration = m.get("calibration")
        if not isinstance(calibration, bool) or calibration != (est.threshold == "calibration-label"):
            raise ValueError("model, calibration: must be true exactly when threshold is 'calibration-label'")
        base = BaseFeatures.from_dict(m.get("base_features"), n_features)
        rows = checks.sequence(m.get("coefficients"), "model, coefficients", max_length=base.n_base)
        if len(rows) != base.n_base:
            raise ValueError(f"model, coefficients: {len(rows)} rows, the base features need {base.n_base}")
        width = n_labels + calibration
        coef = np.zeros((base.n_base, width))
        for r, row in enumerate(rows):
            row = checks.sequence(row, f"model, coefficients[{r}]", max_length=width)
            if len(row) != width:
                raise ValueError(f"model, coefficients[{r}]: {len(row)} entries, expected {width}")
            coef[r] = [checks.number(v, f"model, coefficients[{r}][{c}]") for c, v in enumerate(row)]
        est.cardinality_ = checks.integer(m.get("cardinality"), "model, cardinality", 0, n_labels + 1)
        est.schema_ = schema_of(m, n_features, n_labels)
        est.n_features_in_, est.n_labels_, est.base_features_, est.calibration_ = n_features, n_labels, base, calibration
        est.coef_ = coef
        return est


def _describe(delta: np.ndarray, lam: np.ndarray, base_names, label_names) -> ParallelUpdate:
    flat = np.abs(delta).ravel()
    moved = int(np.count_nonzero(flat))
    top = np.argsort(-flat, kind="stable")[:min(TOP_CHANGES, moved)]
    changes = []
    for j in top:
        w, y = divmod(int(j), delta.shape[1])
        changes.append(Change(base_names[w], label_names[y], float(delta[w, y]), float(lam[w, y])))
    return ParallelUpdate(tuple(changes), moved)
