"""The ML-ME mixture: softmax gate over CTBN experts, EM for fixed structures, annealed MAP (SPEC B.4-B.7)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.optimize
from scipy.special import logsumexp

from ..steps import NEVER_CANCELLED, CancelCheck
from . import logistic
from .ctbn import CTBN, ROOT, coef_from_columns, columns_from_coef, node_log_probs, problem_matrices

M_STEP_ITERATIONS = 30  # L-BFGS steps per M-step (warm-started; a generalised EM step never lowers the objective)


@dataclass
class Mixture:
    experts: list[CTBN]
    gate: np.ndarray  # K x n_features (θ_G; bias in column 0)

    @property
    def n_experts(self) -> int:
        return len(self.experts)

    def log_gate(self, X: np.ndarray) -> np.ndarray:
        """log g_k(x) (eq. 5), N x K."""
        A = X @ self.gate.T
        return A - logsumexp(A, axis=1, keepdims=True)

    def expert_log_probs(self, X, Y, Zs=None) -> np.ndarray:
        """log P(y | x, T_k), N x K."""
        Zs = Zs or [e.logits(X) for e in self.experts]
        return np.stack([node_log_probs(Z, Y, e.parents).sum(axis=1) for Z, e in zip(Zs, self.experts)], axis=1)

    def log_prob(self, X, Y, Zs=None, log_g=None) -> np.ndarray:
        """log P_mix(y | x) = logsumexp_k(log g_k(x) + log P(y | x, T_k)) (eq. 6), per example."""
        log_g = self.log_gate(X) if log_g is None else log_g
        return logsumexp(log_g + self.expert_log_probs(X, Y, Zs), axis=1)

    def penalty(self, l2: float, gate_l2: float) -> float:
        """(λ_G/2)Σ‖θ_G,k[1:]‖² + (λ/2)Σ over every LR ‖w[1:]‖² (a root's one LR counted once)."""
        total = 0.5 * gate_l2 * float(np.sum(self.gate[:, 1:] ** 2))
        for e in self.experts:
            for i, p in enumerate(e.parents):
                slots = (0,) if p == ROOT else (0, 1)
                total += 0.5 * l2 * sum(float(np.sum(e.coef[i, v, 1:] ** 2)) for v in slots)
        return total

    def marginals(self, X: np.ndarray) -> np.ndarray:
        g = np.exp(self.log_gate(X))
        return sum(g[:, [k]] * e.marginals(X) for k, e in enumerate(self.experts))


# ----------------------------------------------------------------------------------------- gate
def gate_objective(theta_flat, X, H, gate_l2) -> tuple[float, np.ndarray]:
    """−l_G + (λ_G/2)‖θ[1:]‖² of the M-step (eq. 10) and its gradient; −∂l_G/∂θ_k = −Σ_n (h_k − g_k) x (eq. 11)."""
    K = H.shape[1]
    theta = theta_flat.reshape(K, X.shape[1])
    A = X @ theta.T
    log_g = A - logsumexp(A, axis=1, keepdims=True)
    value = -float(np.sum(H * log_g)) + 0.5 * gate_l2 * float(np.sum(theta[:, 1:] ** 2))
    G = -(H - np.exp(log_g)).T @ X
    G[:, 1:] += gate_l2 * theta[:, 1:]
    return value, G.ravel()


def fit_gate(X, H, gate_l2: float, theta0: np.ndarray, max_iter: int = 100,
             cancel: CancelCheck = NEVER_CANCELLED) -> np.ndarray:
    if H.shape[1] == 1:
        return np.zeros_like(theta0)
    start = theta0.ravel()

    def f(theta_flat):
        cancel.check()
        return gate_objective(theta_flat, X, H, gate_l2)

    res = scipy.optimize.minimize(f, start, jac=True, method="L-BFGS-B", callback=cancel.optimizer_callback,
                                  options={"maxiter": max_iter, "ftol": 1e-12, "gtol": 1e-7})
    if res.fun > gate_objective(start, X, H, gate_l2)[0]:
        return theta0
    return res.x.reshape(theta0.shape)


# ------------------------------------------------------------------------------------------- EM
@dataclass
class EMResult:
    iterations: int
    objective: list = field(default_factory=list)  # penalised observed log-likelihood after each iteration


def penalized_ll(mix: Mixture, X, Y, l2, gate_l2) -> float:
    return float(mix.log_prob(X, Y).sum()) - mix.penalty(l2, gate_l2)


def em(mix: Mixture, X, Y, l2: float, gate_l2: float, max_iter: int = 50, tol: float = 1e-5,
       cancel: CancelCheck = NEVER_CANCELLED) -> EMResult:
    """Algorithm 1: E-step (eq. 9, log space), M-step (eq. 10): gate by L-BFGS, every expert LR as one
    stacked weighted L2 logistic regression, all warm-started; stops at a relative increase < tol.
    Raises FitCancelled (from any EM or L-BFGS iteration) once ``cancel`` is set."""
    result = EMResult(0, [penalized_ll(mix, X, Y, l2, gate_l2)])
    for it in range(max_iter):
        cancel.check()
        joint = mix.log_gate(X) + mix.expert_log_probs(X, Y)
        H = np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
        mix.gate = fit_gate(X, H, gate_l2, mix.gate, cancel=cancel)
        columns, layout = [], []
        Ts, Ws = [], []
        for k, e in enumerate(mix.experts):
            nodes, values, T, W = problem_matrices(Y, H[:, k], e.parents)
            Ts.append(T)
            Ws.append(W)
            columns.append(columns_from_coef(e.coef, nodes, values))
            layout.append((nodes, values))
        B = logistic.fit(X, np.hstack(Ts), np.hstack(Ws), l2, np.hstack(columns), max_iter=M_STEP_ITERATIONS,
                         cancel=cancel)
        start = 0
        for e, (nodes, values) in zip(mix.experts, layout):
            e.coef = coef_from_columns(B[:, start:start + len(nodes)], nodes, values, Y.shape[1])
            start += len(nodes)
        result.iterations = it + 1
        result.objective.append(penalized_ll(mix, X, Y, l2, gate_l2))
        prev, now = result.objective[-2], result.objective[-1]
        if abs(now - prev) <= tol * max(abs(prev), 1e-12):
            break
    return result


# ------------------------------------------------------------------------------------ MAP by SA
def annealed_map(mix: Mixture, X: np.ndarray, iterations: int = 150, t0: float = 1.0, alpha: float = 0.95,
                 seed: int = 0, cancel: CancelCheck = NEVER_CANCELLED) -> np.ndarray:
    """Approximate argmax_y P_mix(y | x) (SPEC B.7): start from the expert MAP with the highest mixture
    probability, flip one random label per step, Metropolis acceptance on E = −log P_mix at
    temperature T_t = t0·α^t; the best state visited is returned.  Vectorised over examples."""
    Zs = [e.logits(X) for e in mix.experts]
    log_g = mix.log_gate(X)
    candidates = [e.map(X, Z) for e, Z in zip(mix.experts, Zs)]
    scores = np.stack([mix.log_prob(X, Yc, Zs, log_g) for Yc in candidates], axis=1)
    pick = np.argmax(scores, axis=1)
    n, d = X.shape[0], mix.experts[0].n_labels
    Y = np.stack(candidates, axis=1)[np.arange(n), pick].copy()
    energy = -scores[np.arange(n), pick]
    best, best_energy = Y.copy(), energy.copy()
    rng = np.random.default_rng(seed)
    rows = np.arange(n)
    for t in range(1, iterations + 1):
        cancel.check()
        temperature = t0 * alpha ** t
        flip = rng.integers(0, d, size=n)
        proposal = Y.copy()
        proposal[rows, flip] ^= 1
        e_new = -mix.log_prob(X, proposal, Zs, log_g)
        delta = e_new - energy
        accept = (delta <= 0) | (rng.random(n) < np.exp(-np.maximum(delta, 0) / max(temperature, 1e-300)))
        Y[accept] = proposal[accept]
        energy[accept] = e_new[accept]
        better = energy < best_energy
        best[better] = Y[better]
        best_energy[better] = energy[better]
    return best
