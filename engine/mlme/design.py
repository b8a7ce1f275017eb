"""The design matrix ML-ME's logistic regressions share: a bias column and the attributes
standardised on the training data, missing values at the training mean."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def standardiser(X) -> tuple[np.ndarray, np.ndarray]:
    """(mean, scale) of every attribute, ignoring missing values; constant attributes get scale 1."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = np.nanmean(Xd, axis=0)
        std = np.nanstd(Xd, axis=0)
    return np.nan_to_num(mean, nan=0.0), np.where(np.isfinite(std) & (std > 0), std, 1.0)


# Standardised values are clipped to this many standard deviations: a real value is never near it, and
# every logit (a sum of bounded weights times bounded values) stays finite, so no inf - inf = NaN.
MAX_STANDARDISED = 1e6


def design(X, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """[1, standardised x] with missing values at the training mean."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    with np.errstate(over="ignore"):
        Z = (Xd.astype(np.float64) - mean) / scale
    Z = np.clip(np.nan_to_num(Z, nan=0.0), -MAX_STANDARDISED, MAX_STANDARDISED)
    return np.hstack([np.ones((len(Z), 1)), Z])
