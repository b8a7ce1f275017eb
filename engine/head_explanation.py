"""Why a boosted rule's head has its values: the statistics it was computed from.

BOOMER computes a rule's head from the gradients and Hessians of the loss, summed over the
training examples the rule covers, at the scores of the rules before it (Rapp et al. 2020,
Alg. 1 line 7 with unit weights; eq. 14 for single-label heads, eq. 16/17 for complete ones),
and multiplies it by the shrinkage.  :func:`head_statistics` recomputes all of it from the model
and the training data, so a user can see, e.g., that a head is negative although most covered
examples are relevant because the earlier rules already over-predict the label."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import is_regressor

from .core.boosting import refresh_example_losses
from .core.heads import diagonal_position
from .core.losses import LOSS_CODES, is_decomposable, n_hessian_entries, update_statistics
from .core.regression_losses import REGRESSION_CODES
from .head_solution import head_solution
from .model import rule_coverage


@dataclass(frozen=True)
class HeadStatistics:
    """Per head label (``labels``): the sums of gradients and (diagonal) Hessians over the
    covered training examples, the unshrunk optimum recomputed from them, and the head."""

    rule_index: int
    labels: np.ndarray
    gradient_sums: np.ndarray
    hessian_sums: np.ndarray  # the diagonal entries (the full matrix enters complete heads)
    solution: np.ndarray  # unshrunk optimum for the head labels (eq. 14 / 16 / 17)
    head: np.ndarray  # the rule's head scores
    relevant_share: np.ndarray  # fraction of covered examples for which the label is relevant (regression: mean target)
    mean_score: np.ndarray  # mean score of the covered examples before the rule
    shrinkage: float  # 1 for the default rule
    l2: float
    l1: float
    n_covered: int
    n_train: int
    loss: str
    full_hessian: bool
    loss_before: float  # mean training loss (the learner's loss function) before the rule
    loss_after: float
    note: str = ""
    regression: bool = False  # a regressor's: squared-error statistics of real-valued targets

    @property
    def recomputed_head(self) -> np.ndarray:
        return self.shrinkage * self.solution


def head_statistics(estimator, X, Y, index: int) -> HeadStatistics:
    """The statistics behind rule ``index`` of a fitted BOOMER ``estimator`` on its training data
    ``X``, ``Y`` (the rows it was fitted on; a holdout set, ``holdout_indices_``, is left out but for the
    default rule).
    ValueError for a learner whose heads are not computed from gradient statistics."""
    model = getattr(estimator, "model_", None)
    if model is None or not hasattr(estimator, "l2_regularization_weight") or model.loss not in LOSS_CODES:
        raise ValueError("head statistics exist for gradient-boosted rules (BOOMER) only")
    rules = model.rules
    if not 0 <= index < len(rules):
        raise ValueError(f"rule {index} does not exist (the model has {len(rules)} rules)")
    Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
    n, K = Y.shape
    if K != model.n_labels:
        raise ValueError(f"the model has {model.n_labels} labels, the data {K}")
    in_train = np.ones(n, dtype=bool)
    holdout = getattr(estimator, "holdout_indices_", None)
    if holdout is not None and len(holdout):
        in_train[np.asarray(holdout, dtype=np.int64)] = False
    train_rows = np.flatnonzero(in_train).astype(np.int64)
    active = np.zeros(len(rules), dtype=np.uint8)
    active[:index] = 1
    F = model.scores(X, active)
    rule = rules[index]
    # the default rule is computed from every example, the holdout set's too (as mlrl-boomer does)
    counted = np.ones(n, dtype=bool) if index == 0 and not rule.conditions else in_train
    rows = np.flatnonzero(rule_coverage(rule, X) & counted).astype(np.int64)
    regression = is_regressor(estimator) and model.loss in REGRESSION_CODES  # its squared error of real targets
    code = REGRESSION_CODES[model.loss] if regression else LOSS_CODES[model.loss]
    full = not is_decomposable(model.loss)
    if regression:  # the real-valued targets and scores in float32, as the regressor's statistics hold them
        labels01 = np.ascontiguousarray(Y, dtype=np.float32)
        F = F.astype(np.float32)
    else:
        labels01 = np.ascontiguousarray(Y > 0, dtype=np.uint8)  # the 0/1 labels the loss kernels read

    m = len(rows)
    G = np.zeros((m, K), dtype=F.dtype)
    H = np.zeros((m, n_hessian_entries(K, not full)), dtype=F.dtype)
    Fc = np.ascontiguousarray(F[rows])
    update_statistics(code, labels01[rows], Fc, np.arange(m, dtype=np.int64), m, G, H)
    g, h = G.sum(axis=0, dtype=np.float64), H.sum(axis=0, dtype=np.float64)
    values = estimator.effective() if hasattr(estimator, "effective") else estimator  # None: the default
    l2 = float(values.l2_regularization_weight)
    l1 = float(getattr(values, "l1_regularization_weight", 0.0))
    labels = rule.head_labels
    diag = np.array([diagonal_position(int(k), K, full) for k in labels], dtype=np.int64)
    solution, note = head_solution(g, h, labels, full, l2, l1)
    if getattr(estimator, "label_binning_used", False) and len(labels) == K and (full or rule.is_default):
        note = "label binning: the learner solved a smaller, binned system; the exact optimum is shown"
    shrinkage = 1.0 if rule.is_default else float(values.shrinkage)

    losses = np.zeros(n)
    before = refresh_example_losses(code, labels01, F, train_rows, len(train_rows), losses)
    Fa = F.copy()
    Fa[np.ix_(rows, labels)] += rule.head_scores.astype(F.dtype)
    after = before + refresh_example_losses(code, labels01, Fa, rows, m, losses)
    n_train = max(len(train_rows), 1)
    return HeadStatistics(
        rule_index=index, labels=labels.copy(), gradient_sums=g[labels], hessian_sums=h[diag], solution=solution,
        head=rule.head_scores.copy(), relevant_share=(Y[rows][:, labels] if regression else Y[rows][:, labels] > 0)
        .mean(axis=0, dtype=np.float64) if m else np.zeros(len(labels)),
        mean_score=Fc[:, labels].mean(axis=0, dtype=np.float64) if m else np.zeros(len(labels)),
        shrinkage=shrinkage, l2=l2, l1=l1, n_covered=m, n_train=len(train_rows), loss=model.loss,
        full_hessian=full, loss_before=before / n_train, loss_after=after / n_train, note=note, regression=regression)
