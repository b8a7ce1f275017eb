"""Which labels a rule model predicts together, against how often they occur together in the data.

**In the rules' heads.**  A rule *holds* label k when k is in its head with a score that counts:
for a partial head (fewer labels than the model has) every non-zero score counts; for a complete
head (every label, as BOOMER's complete heads have) only the strong ones count,
``|s| >= strength * max|s|`` of that head (``strength`` 0.5 by default), since a complete head
gives every label some score and "all labels together" would say nothing.  The sign does not
matter: a head saying "k present, l absent" predicts k and l together as much as one saying both
are present.  Rules with an empty body (default rules) are left out: they carry the labels'
marginals, not a dependency.  Cell (i, j) of ``rule_counts`` is the number of rules holding both
i and j (the diagonal: rules holding i); ``rule_share`` divides by the rules counted.

**In the data.**  ``data_counts`` (i, j) is the number of training examples with both labels
relevant (the diagonal: with label i); ``data_share`` divides by the examples.  ``phi`` is the
phi coefficient (Pearson's correlation of the two 0/1 label columns), NaN for a label that is
constant on the data; it says whether a pair occurs together more (> 0) or less (< 0) often than
independent labels would.  The view shows the two shares side by side on one colour scale."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .model import RuleModel


@dataclass(frozen=True)
class LabelDependencies:
    label_names: tuple[str, ...]
    rule_counts: np.ndarray  # K x K int: rules holding both labels (diagonal: holding the label)
    data_counts: np.ndarray  # K x K int: training examples with both labels relevant
    phi: np.ndarray  # K x K float: phi coefficient of the two label columns (NaN: a constant label)
    cell_rules: tuple[tuple[tuple[int, ...], ...], ...]  # [i][j]: indices of the rules behind cell (i, j)
    n_rules: int  # rules counted (those with a body)
    n_examples: int
    strength: float

    @property
    def n_labels(self) -> int:
        return len(self.label_names)

    @property
    def rule_share(self) -> np.ndarray:
        return self.rule_counts / self.n_rules if self.n_rules else np.zeros(self.rule_counts.shape)

    @property
    def data_share(self) -> np.ndarray:
        return self.data_counts / self.n_examples if self.n_examples else np.zeros(self.data_counts.shape)

    def rules_behind(self, i: int, j: int) -> tuple[int, ...]:
        return self.cell_rules[i][j]


def held_labels(labels: np.ndarray, scores: np.ndarray, n_labels: int, strength: float) -> np.ndarray:
    """The labels of a head that count (see the module docstring), ascending."""
    labels = np.asarray(labels, dtype=np.int64)
    magnitude = np.abs(np.asarray(scores, dtype=np.float64))
    keep = magnitude > 0
    if len(labels) >= n_labels and keep.any():
        keep &= magnitude >= strength * magnitude.max()
    return np.sort(labels[keep])


def _check(model: RuleModel, Y, strength: float) -> None:
    if not isinstance(model, RuleModel):
        raise ValueError(f"label dependencies need a rule model, not {type(model).__name__}")
    if Y.ndim != 2 or Y.shape[1] != model.n_labels:
        raise ValueError(f"the labels have shape {Y.shape}; the model predicts {model.n_labels} labels")
    if not 0 < strength <= 1:
        raise ValueError(f"strength must be in (0, 1], got {strength}")


def _data_counts(Y) -> np.ndarray:
    if sp.issparse(Y):
        B = sp.csr_matrix(Y != 0).astype(np.int64)
        return np.asarray((B.T @ B).todense(), dtype=np.int64)
    B = (np.asarray(Y) != 0).astype(np.int64)
    return B.T @ B


def _phi(counts: np.ndarray, n: int) -> np.ndarray:
    """Phi from the co-occurrence counts: (n n11 - n1 m1) / sqrt(n1 (n - n1) m1 (n - m1))."""
    ones = np.diag(counts).astype(np.float64)
    spread = ones * (n - ones)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = (n * counts - np.outer(ones, ones)) / np.sqrt(np.outer(spread, spread))
    phi[~np.isfinite(phi)] = np.nan
    return phi


def label_dependencies(model, Y, strength: float = 0.5, label_names=None) -> LabelDependencies:
    """The K x K dependency matrices of ``model`` (a :class:`RuleModel` or an estimator with one in
    ``model_``) and the training labels ``Y`` (n x K, dense or sparse, non-zero = relevant)."""
    model = getattr(model, "model_", model)
    Y = Y if sp.issparse(Y) else np.asarray(Y)
    _check(model, Y, strength)
    K = model.n_labels
    cells: list[list[list[int]]] = [[[] for _ in range(K)] for _ in range(K)]
    counts = np.zeros((K, K), dtype=np.int64)
    n_rules = 0
    for index, rule in enumerate(model.rules):
        if not rule.conditions:
            continue
        n_rules += 1
        held = held_labels(rule.head_labels, rule.head_scores, K, strength)
        counts[np.ix_(held, held)] += 1
        for i in held:
            for j in held:
                cells[i][j].append(index)
    data = _data_counts(Y)
    if label_names is not None and len(label_names) != K:
        raise ValueError(f"{len(label_names)} label names for {K} labels")
    if label_names is None:
        schema = model.schema
        label_names = [schema.label(k) if schema else f"y{k}" for k in range(K)]
    return LabelDependencies(tuple(str(n) for n in label_names), counts, data, _phi(data, Y.shape[0]),
                             tuple(tuple(tuple(c) for c in row) for row in cells), n_rules, int(Y.shape[0]),
                             float(strength))
