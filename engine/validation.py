"""Input checks shared by every learner: one clear ValueError before any work starts."""
from __future__ import annotations

import numbers
import warnings
from dataclasses import replace

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
        Xs = _canonical_csc(check_sparse(X, name))
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


def check_sparse(X, name: str = "X"):
    """``X`` (any SciPy sparse matrix or array) after checking the structure a kernel would index with:
    two dimensions, numeric values, integer indices inside the shape and never negative, and for CSR/CSC
    an index pointer that starts at 0, never decreases and ends within the stored entries.  Raises one
    ValueError naming the problem (a matrix built from ``(data, indices, indptr)`` is not checked by
    SciPy); other formats are returned as COO, whose coordinates are checked the same way."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional, got {X.ndim} dimension(s)")
    if X.format not in ("csr", "csc", "coo"):
        X = X.tocoo()  # bsr/dia/lil/dok: built in Python from their own, bounded structures
    if X.data.dtype.kind not in "biuf":
        kind = "complex numbers" if X.data.dtype.kind == "c" else f"values of type {X.data.dtype}"
        raise FeatureTypeError(f"{name} (sparse) holds {kind}: its stored values must be real numbers")
    if X.format == "coo":
        for axis, coords in (("row", X.row), ("column", X.col)):
            _check_indices(coords, X.shape[0 if axis == "row" else 1], f"{name} (sparse COO) {axis}", len(X.data))
        return X
    major, minor = (X.shape[0], X.shape[1]) if X.format == "csr" else (X.shape[1], X.shape[0])
    where = f"{name} (sparse {X.format.upper()})"
    indptr = np.asarray(X.indptr)
    if indptr.dtype.kind not in "iu" or indptr.ndim != 1 or len(indptr) != major + 1:
        raise ValueError(f"{where}: indptr must hold {major + 1} integers (one more than its "
                         f"{'rows' if X.format == 'csr' else 'columns'}), has {indptr.size} of type {indptr.dtype}")
    indptr = indptr.astype(np.int64)  # unsigned pointers would wrap around in the differences (uint64 beyond
    steps = np.diff(indptr)           # 2**63 becomes negative, and is refused)
    if indptr[0] != 0 or (steps < 0).any():
        at = 0 if indptr[0] != 0 else int(np.flatnonzero(steps < 0)[0]) + 1
        raise ValueError(f"{where}: indptr must start at 0 and never decrease, but indptr[{at}] = {int(indptr[at])}")
    n_stored = int(indptr[-1])
    if len(X.indices) != len(X.data) or n_stored > len(X.indices):
        raise ValueError(f"{where}: indptr ends at {n_stored} entries, but indices has {len(X.indices)} and data "
                         f"{len(X.data)}")
    _check_indices(X.indices[:n_stored], minor, f"{where} {'column' if X.format == 'csr' else 'row'}", n_stored)
    return X


def _check_indices(indices, bound: int, where: str, n_values: int) -> None:
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu" or indices.ndim != 1 or len(indices) != n_values:
        raise ValueError(f"{where} indices must be {n_values} integers, got {indices.size} of type {indices.dtype}")
    if indices.size == 0:
        return
    low, high = int(indices.min()), int(indices.max())
    if low < 0:
        raise ValueError(f"{where} index {low} is negative (entry {int(np.argmin(indices))})")
    if high >= bound:
        raise ValueError(f"{where} index {high} is outside the shape (0..{bound - 1}) (entry "
                         f"{int(np.argmax(indices))})")


def _canonical_csc(X) -> sp.csc_matrix:
    """CSC float32 with sorted indices and no duplicate entries (summed, as SciPy sums them); the
    caller's matrix is never modified (sorting happens on a copy)."""
    plain = (np.int32, np.int64)
    if X.format == "coo" and (X.row.dtype not in plain or X.col.dtype not in plain):
        X = sp.coo_matrix((X.data, (X.row.astype(np.int64), X.col.astype(np.int64))), shape=X.shape)
    elif X.format in ("csr", "csc"):
        n = int(X.indptr[-1])
        if n != len(X.indices) or X.indices.dtype not in plain or X.indptr.dtype not in plain:
            X = type(X)((X.data[:n], X.indices[:n].astype(np.int64), X.indptr.astype(np.int64)), shape=X.shape)
    Xs = sp.csc_matrix(X, dtype=np.float32)
    if not _is_canonical(Xs.indptr, Xs.indices):  # computed: a cached has_canonical_format may be stale
        Xs = Xs.copy()
        Xs.has_canonical_format = False
        Xs.sum_duplicates()  # sorts the indices of each column and adds up repeated entries, in place
    return Xs


def _is_canonical(indptr: np.ndarray, indices: np.ndarray) -> bool:
    """Whether every column's row indices strictly increase (sorted, no duplicates)."""
    increasing = np.diff(indices) > 0  # signed, checked indices: no difference overflows
    starts = indptr[1:-1].astype(np.int64)
    starts = starts[(starts > 0) & (starts < len(indices))]
    increasing[starts - 1] = True  # a new column may start lower
    return bool(increasing.all())


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
    Ya = check_sparse(Y, name).toarray() if sp.issparse(Y) else np.asarray(Y)
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


def check_training_data(X, Y, X_test=None, Y_test=None, check_outputs=None, outputs: str = "labels"):
    """(X, Y, X_test, Y_test) checked like :func:`check_features` / ``check_outputs`` (default
    :func:`check_labels`; a regressor's real targets have their own, ``outputs`` naming them); the test
    pair is optional but must come whole and match the training data's attributes and outputs."""
    check_outputs = check_labels if check_outputs is None else check_outputs
    Xc = check_features(X)
    Yc = check_outputs(Y, Xc.shape[0])
    if (X_test is None) != (Y_test is None):
        raise ValueError("give both X_test and Y_test, or neither")
    Xv = Yv = None
    if X_test is not None:
        Xv = check_features(X_test, "X_test")
        Yv = check_outputs(Y_test, Xv.shape[0], "Y_test")
        if Xv.shape[1] != Xc.shape[1]:
            raise ValueError(f"X_test has {Xv.shape[1]} attributes, X has {Xc.shape[1]}")
        if Yv.shape[1] != Yc.shape[1]:
            raise ValueError(f"Y_test has {Yv.shape[1]} {outputs}, Y has {Yc.shape[1]}")
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


# -- data against a fitted model's schema ------------------------------------------------------------
def match_schema(names, nominal_values, schema, n_features: int, what: str = "the data",
                 reference: str = "the model"):
    """How data with attribute ``names`` (and ``nominal_values``: attribute -> its values, for the
    nominal ones) meet a model trained on ``n_features`` attributes described by ``schema``.

    Returns ``(order, note)``: ``order`` (None: use the columns as they are) picks the data's columns in
    the model's order when the data hold the model's attributes by name in another order, ``note`` then
    tells the user so.  Raises ValueError naming the first difference for a count, a name or a kind
    (nominal/numeric) that differs, and for a nominal attribute whose values differ from the model's.
    A model without attribute names (fitted on plain arrays) is checked for the count only.  ``what`` and
    ``reference`` name the two sides in messages."""
    n_data = len(names) if names is not None else None
    if n_data is not None and n_data != n_features:
        raise ValueError(f"{what} have {n_data} attributes, but {reference} has {n_features}")
    model_names = list(schema.feature_names) if schema is not None else []
    if not model_names or names is None:
        return None, None
    names = list(names)
    order, note = None, None
    if names != model_names:
        order = _order_by_name(names, model_names, what, reference)
        moved = next(j for j in range(n_features) if order[j] != j)
        note = (f"{what} hold the attributes of {reference} in another order; they were matched by name (e.g. "
                f"'{model_names[moved]}' is attribute {moved + 1} of {reference} and column {order[moved] + 1} of "
                f"{what})")
    for j, name in enumerate(model_names):
        given = nominal_values.get(j if order is None else int(order[j]))
        expected = schema.nominal_values.get(j)
        if (given is None) != (expected is None):
            kinds = ("nominal", "numeric") if expected is not None else ("numeric", "nominal")
            raise ValueError(f"attribute '{name}' is {kinds[0]} in {reference} but {kinds[1]} in {what}; give it "
                             f"as {kinds[0]}, as in the training data")
        if given is not None and list(given) != list(expected):
            raise ValueError(f"nominal attribute '{name}' has the values {_values(given)} in {what} but "
                             f"{_values(expected)} in {reference}; its value codes would mean other values")
    return order, note


def _order_by_name(names: list, model_names: list, what: str, reference: str = "the model") -> np.ndarray:
    position = {}
    for i, name in enumerate(names):
        if name in position:
            raise ValueError(f"{what} name the attribute '{name}' twice (columns {position[name] + 1} and {i + 1}): "
                             "columns cannot be matched to the model's by name")
        position[name] = i
    for j, name in enumerate(model_names):
        if name not in position:
            extra = next((n for n in names if n not in set(model_names)), None)
            instead = f" (they have '{extra}' instead)" if extra is not None else ""
            raise ValueError(f"attribute {j + 1} of {reference}, '{name}', is not in {what}{instead}: the data "
                             f"must have the attributes of {reference}")
    return np.array([position[name] for name in model_names], dtype=np.int64)


def _values(values) -> str:
    shown = ", ".join(repr(str(v)) for v in list(values)[:6])
    return "{" + shown + (", ..." if len(values) > 6 else "") + "}"


def reorder_columns(X, order):
    """``X`` (dense or sparse) with its columns in ``order`` (None: ``X`` itself)."""
    if order is None:
        return X
    if sp.issparse(X):
        return sp.csc_matrix(check_sparse(X))[:, order]
    return np.asarray(X)[:, order]


def features_for_model(est, data, what: str = "the data"):
    """``(X, note)``: a data set's features (``engine.datasets.Dataset``) as the fitted ``est`` expects
    them, its columns matched by name to the model's schema (:func:`match_schema`; ``note`` says when
    they were reordered).  ValueError when count, names or kinds differ."""
    schema = getattr(est, "schema_", None)
    n_features = getattr(est, "n_features_in_", None)
    if n_features is None:
        raise ValueError("the model is not fitted")
    order, note = match_schema(data.feature_names, data.nominal_values, schema, int(n_features), what)
    return reorder_columns(data.X, order), note


def feature_names_of(X):
    """The column names of a DataFrame-like ``X`` when they are all strings (scikit-learn's rule for
    ``feature_names_in_``), as an object array; None otherwise."""
    columns = getattr(X, "columns", None)
    if columns is None or sp.issparse(X):
        return None
    names = np.asarray(list(columns), dtype=object)
    return names if names.size and all(isinstance(n, str) for n in names) else None


def match_names(given, fitted):
    """The order (None: as given) that puts a DataFrame's columns ``given`` in the order of ``fitted``
    (the names ``fit`` saw); the same names in another order are reordered with a UserWarning, unknown
    or missing names raise ValueError (scikit-learn's message first)."""
    given, fitted = list(given), list(fitted)
    if given == fitted:
        return None
    unseen = [n for n in given if n not in set(fitted)]
    missing = [n for n in fitted if n not in set(given)]
    if unseen or missing or len(given) != len(fitted):
        parts = ([f"Feature names unseen at fit time: {', '.join(map(repr, unseen[:5]))}"] if unseen else []) + \
                ([f"Feature names seen at fit time, yet now missing: {', '.join(map(repr, missing[:5]))}"]
                 if missing else []) + ([] if unseen or missing else ["a column name occurs twice"])
        raise ValueError("The feature names should match those that were passed during fit. " + "; ".join(parts))
    order = _order_by_name(given, fitted, "X")
    warnings.warn("X has the feature names seen at fit time in another order; its columns were matched by name",
                  UserWarning, stacklevel=3)
    return order


def matched_to(train, test, what: str = "the test data"):
    """``(test, note)``: a test data set (``engine.datasets.Dataset``) with its attributes matched by name
    to the training set's (:func:`match_schema`), reordered when they come in another order."""
    order, note = match_schema(test.feature_names, test.nominal_values, train.schema, train.n_features, what,
                               "the training data")
    if order is None:
        return test, None
    return replace(test, X=reorder_columns(test.X, order), feature_names=list(train.feature_names),
                   nominal_values={j: list(v) for j, v in train.nominal_values.items()}), note
