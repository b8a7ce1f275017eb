"""Input checks shared by every learner: one clear ValueError before any work starts."""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .parameters import DeclaredParameters


class FeatureTypeError(ValueError, TypeError):
    """Features that are not numbers (a ValueError like every input error, and the TypeError
    scikit-learn's checks expect)."""


def check_features(X, name: str = "X"):
    """Dense float32 (C-contiguous) or CSC float32; NaN means missing, inf is rejected."""
    if X is None:
        raise ValueError(f"{name} is missing")
    if not sp.issparse(X) and not isinstance(X, np.ndarray):
        X = np.asarray(X)  # lists, pandas, array-likes: their dtype, once
    if X.dtype.kind == "c":
        raise ValueError(f"{name} holds complex numbers: complex data is not supported")
    if sp.issparse(X):
        Xs = sp.csc_matrix(X, dtype=np.float32)
        if Xs.ndim != 2:
            raise ValueError(f"{name} must be two-dimensional")
        data = Xs.data
    else:
        try:
            Xs = np.asarray(X, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise FeatureTypeError(f"{name} must be numeric (nominal values encoded as codes): {exc}") from None
        if Xs.ndim != 2:
            raise ValueError(f"{name} must be two-dimensional (examples x attributes), got shape {Xs.shape}. Reshape "
                             "your data: X.reshape(-1, 1) for one attribute, X.reshape(1, -1) for one example")
        Xs = np.ascontiguousarray(Xs)
        data = Xs
    if Xs.shape[0] == 0:
        raise ValueError(f"{name} has zero examples: 0 sample(s) (shape={Xs.shape}) while a minimum of 1 is required.")
    if Xs.shape[1] == 0:
        raise ValueError(f"{name} has zero attributes: 0 feature(s) (shape={Xs.shape}) while a minimum of 1 is "
                         "required.")
    if np.isinf(data).any():
        raise ValueError(f"{name} contains infinite values or values beyond the float32 range (±3.4e38); "
                         "use NaN for missing values")
    return Xs


def check_n_features(X, n_features: int, estimator: str):
    """``X`` unchanged if it has the ``n_features`` attributes the model was trained on."""
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {estimator} is expecting {n_features} features as "
                         "input (the attributes it was trained on)")
    return X


def check_labels(Y, n_examples: int | None = None, name: str = "Y") -> np.ndarray:
    """Binary labels (0/1 or -1/+1, dense or sparse, 1-D for a single label) as uint8 N x K."""
    if Y is None:
        raise ValueError(f"{name} is missing")
    Ya = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Ya.ndim == 1:
        Ya = Ya[:, None]
    if Ya.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional (examples x labels), got shape {Ya.shape}")
    if Ya.shape[1] == 0:
        raise ValueError(f"{name} has zero labels")
    if n_examples is not None and Ya.shape[0] != n_examples:
        raise ValueError(f"X has {n_examples} examples but {name} has {Ya.shape[0]}")
    if Ya.dtype == np.bool_ or (Ya.dtype == np.uint8 and (Ya.size == 0 or Ya.max() <= 1)):
        # already 0/1: no float64 copy to check, and no copy at all when C-contiguous and writeable
        return np.require(Ya if Ya.dtype == np.uint8 else Ya.view(np.uint8), requirements=["C", "W"])
    try:
        Yf = Ya.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric 0/1 or -1/+1") from None
    if np.isnan(Yf).any():
        raise ValueError(f"{name} contains NaN; labels must be 0/1 or -1/+1")
    values = np.unique(Yf)
    if np.isin(values, (0.0, 1.0)).all():
        return np.ascontiguousarray(Yf, dtype=np.uint8)
    if np.isin(values, (-1.0, 1.0)).all():
        return np.ascontiguousarray(Yf > 0, dtype=np.uint8)
    bad = [v for v in values if v not in (0.0, 1.0, -1.0)][:3]
    raise ValueError(f"{name} must contain only 0/1 or -1/+1, found {', '.join(f'{v:g}' for v in bad)}")


def check_nominal(nominal, n_features: int, name: str = "nominal_attributes") -> np.ndarray:
    """Nominal (or, ``name``: other typed) attributes given as a boolean mask or a list of indices ->
    boolean mask."""
    mask = np.zeros(n_features, dtype=bool)
    if nominal is None:
        return mask
    arr = np.asarray(nominal)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(f"{name} mask has length {arr.size}, expected {n_features}")
        return arr.copy()
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a boolean mask or a list of attribute indices")
    if arr.size and arr.dtype.kind not in "iu":
        try:
            values = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a boolean mask or a list of attribute indices") from None
        if not (np.isfinite(values) & (values == np.round(values))).all():
            bad = next(v for v in arr.ravel() if not (np.isfinite(float(v)) and float(v) == round(float(v))))
            raise ValueError(f"{name} must hold attribute indices (integers), found {bad!r}")
    idx = arr.astype(np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n_features):
        raise ValueError(f"{name} contains an index outside 0..{n_features - 1}")
    if len(np.unique(idx)) != idx.size:
        raise ValueError(f"{name} names an attribute twice")
    mask[idx] = True
    return mask


def check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not supported; choose one of {', '.join(map(repr, choices))}")


def check_int(name: str, value, minimum: int, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}{' or None' if allow_none else ''}, got {value!r}")


def check_float(name: str, value, low: float, high: float = np.inf, low_open: bool = False) -> None:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")


def check_random_state(value) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0):
        raise ValueError(f"random_state must be a non-negative integer or None, got {value!r}")


class FromParamsMixin(DeclaredParameters):
    """``cls.from_params(mapping)``: an estimator from parameters read from a file, checked like ``fit``
    checks them (unknown names and bad values raise ValueError)."""

    @classmethod
    def from_params(cls, params):
        unknown = sorted(str(p) for p in params if p not in cls._get_param_names())
        if unknown:
            raise ValueError(f"unknown parameter(s) of {cls.__name__}: {', '.join(unknown)}")
        est = cls(**params)
        est._check_params()
        return est


def check_training_data(X, Y, X_test=None, Y_test=None):
    """(X, Y, X_test, Y_test) checked like :func:`check_features` / :func:`check_labels`; the test
    pair is optional but must come whole and match the training data's attributes and labels."""
    Xc = check_features(X)
    Yc = check_labels(Y, Xc.shape[0])
    if (X_test is None) != (Y_test is None):
        raise ValueError("give both X_test and Y_test, or neither")
    Xv = Yv = None
    if X_test is not None:
        Xv = check_features(X_test, "X_test")
        Yv = check_labels(Y_test, Xv.shape[0], "Y_test")
        if Xv.shape[1] != Xc.shape[1]:
            raise ValueError(f"X_test has {Xv.shape[1]} attributes, X has {Xc.shape[1]}")
        if Yv.shape[1] != Yc.shape[1]:
            raise ValueError(f"Y_test has {Yv.shape[1]} labels, Y has {Yc.shape[1]}")
    return Xc, Yc, Xv, Yv


def check_sample_weight(sample_weight, n_examples: int) -> np.ndarray | None:
    """``fit``'s ``sample_weight``: None, or one finite, non-negative weight per training example with at
    least one positive (float64 holding float32 values, as mlrl-boomer 0.15.6 keeps them).  One
    ValueError naming the problem otherwise, before any work starts."""
    if sample_weight is None:
        return None
    if sp.issparse(sample_weight):
        raise ValueError("sample_weight must be a dense 1-D array of one weight per example, got a sparse matrix")
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers (one weight per example)") from None
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D (one weight per example), got shape {w.shape}")
    if w.shape[0] != n_examples:
        raise ValueError(f"sample_weight has {w.shape[0]} weights for {n_examples} examples; give one per example")
    if np.isnan(w).any():
        raise ValueError(f"sample_weight contains NaN (at example {int(np.flatnonzero(np.isnan(w))[0])})")
    if np.isinf(w).any() or (np.abs(w) > np.finfo(np.float32).max).any():
        raise ValueError("sample_weight contains infinite values or values beyond the float32 range (±3.4e38)")
    if (w < 0).any():
        first = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"sample_weight contains negative weights (e.g. {w[first]:g} at example {first}); weights "
                         "must be >= 0")
    w32 = w.astype(np.float32)
    if not (w32 > 0).any():
        raise ValueError("sample_weight: every weight is zero (or below float32's smallest number); at least one "
                         "example needs a positive weight")
    return w32.astype(np.float64)
