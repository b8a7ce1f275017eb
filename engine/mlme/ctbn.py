"""Conditional tree-structured Bayesian networks (CTBN), one expert of ML-ME (SPEC B.2-B.3).

Every label Y_i has the features and at most one parent label; P(y | x, T) = Π_i P(y_i | x, y_π(i))
(eq. 3), each factor a logistic regression chosen by the parent's value ("switching"; roots have
one).  Coefficients are held as ``coef[i, v]`` (parent value v; a root's two slots are equal), so
logits of all nodes are one tensor product ``Z[n, i, v]``."""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.special import expit, log_expit

from ..steps import NEVER_CANCELLED, CancelCheck
from . import logistic

ROOT = -1


def topological_order(parents: np.ndarray) -> np.ndarray:
    """Labels ordered so that every parent comes before its children."""
    d = len(parents)
    order, placed = [], np.zeros(d, dtype=bool)
    frontier = [i for i in range(d) if parents[i] == ROOT]
    while frontier:
        i = frontier.pop()
        order.append(i)
        placed[i] = True
        frontier.extend(c for c in range(d) if parents[c] == i and not placed[c])
    if len(order) != d:
        raise ValueError("the parent structure has a cycle")
    return np.array(order, dtype=np.int64)


@dataclass
class CTBN:
    parents: np.ndarray  # (d,) parent label or -1
    coef: np.ndarray  # (d, 2, n_features)

    @property
    def n_labels(self) -> int:
        return len(self.parents)

    def logits(self, X: np.ndarray) -> np.ndarray:
        """Z[n, i, v] = w_{i,v} · x_n."""
        return np.einsum("nf,ivf->niv", X, self.coef, optimize=True)

    def log_prob(self, X: np.ndarray, Y: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """log P(y | x, T) per example (eq. 3)."""
        Z = self.logits(X) if Z is None else Z
        return node_log_probs(Z, Y, self.parents).sum(axis=1)

    def map(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """Exact argmax_y P(y | x, T) by max-sum over the tree (SPEC B.2)."""
        Z = self.logits(X) if Z is None else Z
        return max_sum(Z, self.parents)

    def marginals(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """P(y_i = 1 | x, T): parents' marginals propagated down the tree."""
        Z = self.logits(X) if Z is None else Z
        p = np.zeros(Z.shape[:2])
        sig = expit(Z)
        for i in topological_order(self.parents):
            q = self.parents[i]
            p[:, i] = sig[:, i, 0] if q == ROOT else (1 - p[:, q]) * sig[:, i, 0] + p[:, q] * sig[:, i, 1]
        return p

    def describe(self, label) -> str:
        """"y3 ← y1, y5 ← y3; roots y1, y2" with ``label(i)`` naming labels."""
        edges = [f"{label(i)} ← {label(int(p))}" for i, p in enumerate(self.parents) if p != ROOT]
        roots = [label(i) for i, p in enumerate(self.parents) if p == ROOT]
        return ", ".join(edges) + ("; " if edges else "") + "roots " + ", ".join(roots)


def node_log_probs(Z: np.ndarray, Y: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """log P(y_i | x, y_π(i)) per example and label (N x d)."""
    n, d = Y.shape
    v = np.where(parents == ROOT, 0, Y[:, np.maximum(parents, 0)])  # N x d parent values
    z = np.take_along_axis(Z, v[:, :, None].astype(np.int64), axis=2)[:, :, 0]
    return log_expit(np.where(Y > 0, z, -z))


def max_sum(Z: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Max-sum MAP of a forest of binary nodes, vectorised over examples (leaves first, then back)."""
    n, d = Z.shape[:2]
    order = topological_order(parents)
    # phi[n, i, yi, yp] = log P(y_i | x, y_p)
    phi = np.stack([log_expit(-Z), log_expit(Z)], axis=2)  # n, i, yi, v
    incoming = np.zeros((n, d, 2))  # Σ of children's messages m_c(y_i)
    best = np.zeros((n, d, 2), dtype=np.uint8)  # b_i(y_p)
    for i in order[::-1]:
        val = phi[:, i] + incoming[:, i][:, :, None]  # n, yi, yp
        p = parents[i]
        if p != ROOT:
            best[:, i] = np.argmax(val, axis=1)
            incoming[:, p] += np.max(val, axis=1)
    Y = np.zeros((n, d), dtype=np.uint8)
    for i in order:
        p = parents[i]
        if p == ROOT:
            Y[:, i] = np.argmax(phi[:, i, :, 0] + incoming[:, i], axis=1)
        else:
            Y[:, i] = np.take_along_axis(best[:, i], Y[:, p][:, None].astype(np.int64), axis=1)[:, 0]
    return Y


# ----------------------------------------------------------------------------------- parameters
def _problems(parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(node, parent value) of every logistic regression of a structure; value -1 = a root's one LR."""
    nodes, values = [], []
    for i, p in enumerate(parents):
        for v in ((ROOT,) if p == ROOT else (0, 1)):
            nodes.append(i)
            values.append(v)
    return np.array(nodes, dtype=np.int64), np.array(values, dtype=np.int64)


def problem_matrices(Y: np.ndarray, weights: np.ndarray, parents: np.ndarray):
    """Targets and weights (N x P) of a structure's LRs: node i's LR for parent value v sees the
    examples with y_π(i) = v (SPEC B.5, M-step for the experts)."""
    nodes, values = _problems(parents)
    T = Y[:, nodes].astype(np.float64)
    W = np.repeat(weights[:, None], len(nodes), axis=1)
    switched = values != ROOT
    if switched.any():
        pv = Y[:, parents[nodes[switched]]]
        W[:, switched] *= (pv == values[switched])
    return nodes, values, T, W


def coef_from_columns(B: np.ndarray, nodes, values, d: int) -> np.ndarray:
    coef = np.zeros((d, 2, B.shape[0]))
    for col, (i, v) in enumerate(zip(nodes, values)):
        if v == ROOT:
            coef[i, 0] = coef[i, 1] = B[:, col]
        else:
            coef[i, v] = B[:, col]
    return coef


def columns_from_coef(coef: np.ndarray, nodes, values) -> np.ndarray:
    return np.stack([coef[i, max(v, 0)] for i, v in zip(nodes, values)], axis=1)


def fit_parameters(X, Y, weights, parents, l2: float, warm: np.ndarray | None = None,
                   cancel: CancelCheck = NEVER_CANCELLED) -> np.ndarray:
    """All LRs of one structure on weighted data (weights scaled by the caller)."""
    nodes, values, T, W = problem_matrices(Y, weights, parents)
    B0 = None if warm is None else columns_from_coef(warm, nodes, values)
    return coef_from_columns(logistic.fit(X, T, W, l2, B0, cancel=cancel), nodes, values, Y.shape[1])


# ----------------------------------------------------------------------------------- structure
@dataclass(frozen=True)
class StructureScores:
    """Edge weights of the complete graph (eq. 13): ``pair[j, i]`` = W_{j→i}, ``self_[i]`` = W_{i→i}."""

    pair: np.ndarray
    self_: np.ndarray


def edge_weights(X, Y, omega, l2: float, rng: np.random.Generator, holdout: float = 1 / 3,
                 cancel: CancelCheck = NEVER_CANCELLED) -> StructureScores:
    """Weighted conditional log-likelihoods on a hold-out part of every candidate parent (SPEC B.3)."""
    n, d = Y.shape
    perm = rng.permutation(n)
    n_h = max(1, int(round(n * holdout)))
    h, tr = perm[:n_h], perm[n_h:]
    if len(tr) == 0:
        tr = h
    w_tr = omega[tr] * (len(tr) / max(omega[tr].sum(), 1e-300))  # weights summing to the sample size
    # problems: d self LRs, then (j, i, v) for j != i, v in {0, 1}
    js, is_, vs = [], [], []
    for i in range(d):
        for j in range(d):
            if i != j:
                for v in (0, 1):
                    js.append(j)
                    is_.append(i)
                    vs.append(v)
    js, is_, vs = np.array(js, dtype=np.int64), np.array(is_, dtype=np.int64), np.array(vs, dtype=np.int64)
    targets = np.concatenate([np.arange(d), is_])
    T = Y[tr][:, targets].astype(np.float64)
    W = np.repeat(w_tr[:, None], len(targets), axis=1)
    W[:, d:] *= (Y[tr][:, js] == vs)
    B = logistic.fit(X[tr], T, W, l2, cancel=cancel)
    lp = logistic.log_prob(X[h], B, Y[h][:, targets].astype(np.float64))
    oh = omega[h]
    self_ = (oh[:, None] * lp[:, :d]).sum(axis=0)
    pair = np.zeros((d, d))
    chosen = Y[h][:, js] == vs  # the LR used for example n is the one of its parent value
    contrib = (oh[:, None] * lp[:, d:] * chosen).sum(axis=0)
    np.add.at(pair, (js, is_), contrib)
    return StructureScores(pair, self_)


def best_structure(scores: StructureScores) -> np.ndarray:
    """The maximum branching (Chu-Liu/Edmonds via networkx): a super-root's arc r → i carries
    W_{i→i}; all arcs into a node are shifted by one constant to be positive (the argmax is
    unchanged, SPEC B.3).  Returns the parent of each label (-1 for roots)."""
    d = len(scores.self_)
    G = nx.DiGraph()
    root = d
    for i in range(d):
        incoming = np.r_[scores.self_[i], np.delete(scores.pair[:, i], i)]
        shift = 1.0 - float(incoming.min())
        G.add_edge(root, i, weight=float(scores.self_[i]) + shift)
        for j in range(d):
            if j != i:
                G.add_edge(j, i, weight=float(scores.pair[j, i]) + shift)
    tree = nx.maximum_spanning_arborescence(G, attr="weight")
    parents = np.full(d, ROOT, dtype=np.int64)
    for u, v in tree.edges():
        parents[v] = ROOT if u == root else u
    return parents


def structure_score(scores: StructureScores, parents: np.ndarray) -> float:
    """Score(T) = Σ_i W_{π(i)→i} (eq. 12)."""
    return float(sum(scores.self_[i] if p == ROOT else scores.pair[p, i] for i, p in enumerate(parents)))
