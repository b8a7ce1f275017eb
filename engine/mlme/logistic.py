"""Many instance-weighted, L2-regularised logistic regressions on one design matrix, fitted at once.

Problem p minimises Σ_n w_np [log(1 + e^{z_np}) − t_np z_np] + (λ/2)‖b_p[1:]‖², z = X b_p, with the
bias (column 0 of X, all ones) unpenalised (SPEC B.5 [A]).  The problems are independent, so their
sum is minimised by one L-BFGS run over the stacked coefficients (each matrix product serves all
problems; warm starts from the previous solution).  A degenerate problem (no weight, or weight on one
class only) gets the constant, Laplace-smoothed probability instead (SPEC B.5 [A])."""
from __future__ import annotations

import numpy as np
import scipy.optimize
from scipy.special import expit, log_expit

from ..steps import NEVER_CANCELLED, CancelCheck

DEGENERATE_MASS = 1e-9


def objective(B: np.ndarray, X: np.ndarray, T: np.ndarray, W: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Sum of the problems' penalised negative log-likelihoods and its gradient (same shape as B)."""
    Z = X @ B
    value = float(np.sum(W * (np.logaddexp(0.0, Z) - T * Z))) + 0.5 * l2 * float(np.sum(B[1:] ** 2))
    G = X.T @ (W * (expit(Z) - T))
    G[1:] += l2 * B[1:]
    return value, G


def fit(X: np.ndarray, T: np.ndarray, W: np.ndarray, l2: float, B0: np.ndarray | None = None,
        max_iter: int = 200, tol: float = 1e-6, cancel: CancelCheck = NEVER_CANCELLED) -> np.ndarray:
    """Coefficients (n_features x P) of P weighted logistic regressions; ``T``, ``W``: N x P.  Raises
    FitCancelled within one objective evaluation once ``cancel`` is set."""
    n_features, P = X.shape[1], T.shape[1]
    B = np.zeros((n_features, P)) if B0 is None else np.array(B0, dtype=np.float64)
    mass = W.sum(axis=0)
    pos = (W * T).sum(axis=0)
    degenerate = (mass <= DEGENERATE_MASS) | (pos <= DEGENERATE_MASS * np.maximum(mass, 1)) | \
        (mass - pos <= DEGENERATE_MASS * np.maximum(mass, 1))
    if degenerate.any():
        B[:, degenerate] = 0.0
        p = (pos[degenerate] + 1.0) / (mass[degenerate] + 2.0)
        B[0, degenerate] = np.log(p) - np.log1p(-p)
    live = np.flatnonzero(~degenerate)
    if len(live) == 0:
        return B
    Tl, Wl = np.ascontiguousarray(T[:, live]), np.ascontiguousarray(W[:, live])
    shape = (n_features, len(live))

    def f(v):
        cancel.check()  # line searches evaluate several times per iteration
        value, G = objective(v.reshape(shape), X, Tl, Wl, l2)
        return value, G.ravel()

    start = np.ascontiguousarray(B[:, live]).ravel()
    res = scipy.optimize.minimize(f, start, jac=True, method="L-BFGS-B", callback=cancel.optimizer_callback,
                                  options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-12})
    if res.fun <= f(start)[0]:  # never accept a worse point (EM's monotonicity relies on it)
        B[:, live] = res.x.reshape(shape)
    return B


def log_prob(X: np.ndarray, B: np.ndarray, T: np.ndarray) -> np.ndarray:
    """log P(t | x) per example and problem under coefficients B."""
    Z = X @ B
    return log_expit(np.where(T > 0, Z, -Z))
