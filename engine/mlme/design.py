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


def design(X, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """[1, standardised x] with missing values at the training mean."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    Z = (Xd.astype(np.float64) - mean) / scale
    return np.hstack([np.ones((len(Z), 1)), np.nan_to_num(Z, nan=0.0)])
