"""Multi-output regression measures: per target and averaged over the targets.

Every function takes the true values ``Y`` and the predictions ``P``: N x T real arrays (a 1-D array
is one target).  Bad input (other shapes, no example, NaN or infinite values) is one ValueError
naming the problem, raised before anything is computed.

* ``mse``, ``rmse``, ``mae``, ``median-ae`` (median absolute error): errors, lower is better.
* ``r2``: the coefficient of determination 1 - SS_res / SS_tot per target, higher is better.  A
  constant target (SS_tot = 0) scores 1 if predicted exactly, else 0 (scikit-learn's
  ``force_finite``); with fewer than two examples R² is undefined (NaN).
* ``mape``: mean absolute percentage error as a fraction, |y - p| / max(|y|, ε) with ε the float64
  machine epsilon (scikit-learn's convention for zero targets), lower is better.

Averages are uniform over the targets (RMSE too: the mean of the targets' RMSEs, as scikit-learn's
``multioutput="uniform_average"``), except ``r2-variance-weighted``: the targets' R² weighted by their
SS_tot (scikit-learn's ``"variance_weighted"``; uniform when every target is constant)."""
from __future__ import annotations

import numpy as np

__all__ = ["PER_TARGET", "AVERAGED", "HIGHER_IS_BETTER", "checked", "per_target", "averaged"]


def checked(Y, P) -> tuple[np.ndarray, np.ndarray]:
    """(Y, P) as N x T float64 arrays; ValueError naming the first problem."""
    Y, P = _matrix(Y, "true values"), _matrix(P, "predictions")
    if Y.shape != P.shape:
        raise ValueError(f"regression measures: true values of shape {Y.shape} but predictions of shape {P.shape}; "
                         "both must be examples x targets")
    if Y.shape[0] == 0 or Y.shape[1] == 0:
        raise ValueError(f"regression measures need at least one example and one target, got shape {Y.shape}")
    for A, what in ((Y, "true values"), (P, "predictions")):
        bad = ~np.isfinite(A)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"regression measures: the {what} hold {int(bad.sum())} NaN or infinite value(s), the "
                             f"first at example {i}, target {j} ({A[i, j]})")
    return Y, P


def _matrix(A, what: str) -> np.ndarray:
    if hasattr(A, "toarray"):
        A = A.toarray()
    try:
        A = np.asarray(A, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"regression measures: the {what} are not numbers") from None
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError(f"regression measures: the {what} must be a 1-D or 2-D array, got shape {A.shape}")
    return A


def _mse(Y, P) -> np.ndarray:
    return np.mean((Y - P) ** 2, axis=0)


def _rmse(Y, P) -> np.ndarray:
    return np.sqrt(_mse(Y, P))


def _mae(Y, P) -> np.ndarray:
    return np.mean(np.abs(Y - P), axis=0)


def _median_ae(Y, P) -> np.ndarray:
    return np.median(np.abs(Y - P), axis=0)


def _mape(Y, P) -> np.ndarray:
    return np.mean(np.abs(Y - P) / np.maximum(np.abs(Y), np.finfo(np.float64).eps), axis=0)


def _r2_parts(Y, P) -> tuple[np.ndarray, np.ndarray]:
    """(R² per target, SS_tot per target)."""
    residual = np.sum((Y - P) ** 2, axis=0)
    total = np.sum((Y - Y.mean(axis=0)) ** 2, axis=0)
    if Y.shape[0] < 2:
        return np.full(Y.shape[1], np.nan), total
    r2 = np.where(total > 0, 1.0 - residual / np.where(total > 0, total, 1.0), np.where(residual == 0, 1.0, 0.0))
    return r2, total


def _r2(Y, P) -> np.ndarray:
    return _r2_parts(Y, P)[0]


PER_TARGET = {"mse": _mse, "rmse": _rmse, "mae": _mae, "median-ae": _median_ae, "r2": _r2, "mape": _mape}
AVERAGED = (*PER_TARGET, "r2-variance-weighted")
HIGHER_IS_BETTER = {"r2", "r2-variance-weighted"}


def per_target(name: str, Y, P) -> np.ndarray:
    """The measure ``name`` (a key of :data:`PER_TARGET`) of every target: a length-T array."""
    if name not in PER_TARGET:
        raise ValueError(f"unknown regression measure {name!r}; known: {', '.join(PER_TARGET)}")
    return PER_TARGET[name](*checked(Y, P))


def averaged(name: str, Y, P) -> float:
    """The measure ``name`` (one of :data:`AVERAGED`) averaged over the targets."""
    if name == "r2-variance-weighted":
        r2, total = _r2_parts(*checked(Y, P))
        return float(np.average(r2, weights=total) if np.any(total > 0) else np.mean(r2))
    return float(np.mean(per_target(name, Y, P)))
