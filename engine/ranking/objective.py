"""The log-linear ranking objective and its boosting updates (Dekel et al. 2003, Fig. 3; SPEC A.3-A.6).

Base functions have the paper's form h_{w,y}(x, y') = φ_w(x)·[y' = y] (SPEC A.4, "efficient
form"), so the model is F = Φ Λ with Φ the m x n_w matrix of φ_w(x_i) and Λ the n_w x k matrix of
λ_{w,y}.  For an edge a -> b, π_{i,e,(w,y)} = φ_w(x_i)([y=b] - [y=a]); splitting Φ into its
positive and negative parts gives W± for any real-valued φ:

    W⁺ = Φ₊ᵀ Q_in + Φ₋ᵀ Q_out,   W⁻ = Φ₊ᵀ Q_out + Φ₋ᵀ Q_in,

with Q_in/Q_out the per-vertex sums of q_{t,i,e}/s_i (kernels.loss_and_flows); W⁺ − W⁻ is the
gradient of L.  One iteration costs O(nnz(Φ)·k + Σ_i |E_i|)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .graphs import Grouping
from .kernels import loss_and_flows


@dataclass(frozen=True)
class Update:
    """One boosting update: the change of Λ, the guaranteed decrease (Theorem 1) and W±."""

    delta: np.ndarray  # n_w x k: λ_{t+1} - λ_t
    bound: float
    w_plus: np.ndarray
    w_minus: np.ndarray


class RankingObjective:
    """L(Λ) = Σ_i (1/s_i) Σ_k log(1 + Σ_{e∈E_ik} exp(f(x_i, term e) − f(x_i, init e))) for fixed
    base features ``phi`` (m x n_w, dense or sparse) and a decomposition's ``grouping``."""

    def __init__(self, phi, grouping: Grouping, n_labels: int, smoothing: float = 1e-3):
        Phi = sp.csr_matrix(phi, dtype=np.float64)
        self.phi = Phi
        self.phi_pos = Phi.maximum(0).tocsr()
        self.phi_pos_t = self.phi_pos.T.tocsr()
        neg = (-Phi).maximum(0).tocsr()
        self.phi_neg_t = neg.T.tocsr() if neg.nnz else None
        self.grouping = grouping
        self.n_labels = n_labels
        self.smoothing = smoothing
        abs_phi = abs(Phi)
        # π of Fig. 3: the largest ℓ1 norm of an edge vector, 2·max_i ‖φ(x_i)‖₁ (SPEC A.4, [R])
        self.pi = 2.0 * float(abs_phi.sum(axis=1).max()) if Phi.shape[0] else 0.0
        # π_j of the sequential variant (SPEC A.6): max_i |φ_w(x_i)|, the same for every label
        self.pi_feature = np.asarray(abs_phi.max(axis=0).todense()).ravel()
        m = Phi.shape[0]
        self.q_in = np.zeros((m, n_labels))
        self.q_out = np.zeros((m, n_labels))

    def scores(self, lam: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self.phi @ lam)

    def evaluate(self, F: np.ndarray) -> float:
        """L at scores F; fills ``q_in``/``q_out`` for :meth:`gradient_parts`."""
        g = self.grouping
        return float(loss_and_flows(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, self.q_in, self.q_out))

    def gradient_parts(self) -> tuple[np.ndarray, np.ndarray]:
        """(W⁺, W⁻) at the scores last passed to :meth:`evaluate` (n_w x k each)."""
        w_plus = self.phi_pos_t @ self.q_in
        w_minus = self.phi_pos_t @ self.q_out
        if self.phi_neg_t is not None:
            w_plus += self.phi_neg_t @ self.q_out
            w_minus += self.phi_neg_t @ self.q_in
        return np.asarray(w_plus), np.asarray(w_minus)

    # ------------------------------------------------------------------------------- updates
    def _step_sizes(self, w_plus: np.ndarray, w_minus: np.ndarray) -> np.ndarray:
        """δ = ½ ln(W⁺/W⁻); 0 where a base function never touches an edge; where only one side is
        zero, smoothed: ½ ln((W⁺+ε)/(W⁻+ε)), ε = smoothing · mean(W⁺+W⁻) (SPEC A.4, [A])."""
        total = w_plus + w_minus
        delta = np.zeros_like(w_plus)
        exact = (w_plus > 0) & (w_minus > 0)
        delta[exact] = 0.5 * np.log(w_plus[exact] / w_minus[exact])
        one_sided = (total > 0) & ~exact
        if one_sided.any():
            if self.smoothing <= 0:
                raise ValueError("a base function has W⁺ = 0 or W⁻ = 0 and smoothing is 0: the update would be "
                                 "infinite; use smoothing > 0")
            eps = self.smoothing * float(total[total > 0].mean())
            delta[one_sided] = 0.5 * np.log((w_plus[one_sided] + eps) / (w_minus[one_sided] + eps))
        return delta

    @staticmethod
    def _gains(w_plus, w_minus, delta) -> np.ndarray:
        """W⁺(1 − e^{−δ}) + W⁻(1 − e^{δ}) per coordinate: (√W⁺ − √W⁻)² at the exact δ (Theorem 1)."""
        return w_plus * -np.expm1(-delta) + w_minus * -np.expm1(delta)

    def parallel_update(self, w_plus, w_minus) -> Update:
        """Fig. 3: λ_{t+1} = λ_t − δ_t/π for all coordinates; bound = (1/π) Σ_j gain_j (Theorem 1)."""
        if self.pi <= 0:
            return Update(np.zeros_like(w_plus), 0.0, w_plus, w_minus)
        delta = self._step_sizes(w_plus, w_minus)
        bound = float(self._gains(w_plus, w_minus, delta).sum()) / self.pi
        return Update(-delta / self.pi, bound, w_plus, w_minus)

    def sequential_update(self, w_plus, w_minus) -> Update:
        """Extension (SPEC A.6, not in the paper): only j* = argmax_j gain_j/π_j moves, by −δ_j*/π_j*."""
        delta = self._step_sizes(w_plus, w_minus)
        pi_j = np.broadcast_to(self.pi_feature[:, None], delta.shape)
        gains = np.where(pi_j > 0, self._gains(w_plus, w_minus, delta) / np.where(pi_j > 0, pi_j, 1.0), 0.0)
        change = np.zeros_like(delta)
        if gains.size == 0 or not np.any(gains > 0):
            return Update(change, 0.0, w_plus, w_minus)
        j = np.unravel_index(int(np.argmax(gains)), gains.shape)
        change[j] = -delta[j] / pi_j[j]
        return Update(change, float(gains[j]), w_plus, w_minus)
