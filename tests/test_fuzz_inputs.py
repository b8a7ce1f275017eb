"""Fuzz targets for inputs given in memory: malformed sparse matrices (CSC, CSR, COO built from raw
arrays, which SciPy does not check) and data whose schema differs from a fitted model's.

Sparse: every drawn matrix is either accepted, and then every learner fits and predicts on it, or
refused with one ValueError; a matrix SciPy's full format check rejects is never accepted.  The
target runs in a child process, so an out-of-bounds read that crashes fails the test instead of
ending pytest.  Schema: a fitted model's data with its columns permuted, renamed, dropped, repeated,
of the other kind or with other nominal values give the model's predictions (same names in another
order) or one ValueError, as an independent oracle says.

The budget is the hypothesis profile's (tests/conftest.py): ``ci`` or ``long``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import BoomerClassifier
from engine.datasets import Dataset
from engine.validation import features_for_model

pytestmark = pytest.mark.fuzz

ROOT = Path(__file__).resolve().parents[1]
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# ----------------------------------------------------------------------------- sparse matrices
SPARSE_TARGET = r'''
import sys
import numpy as np, scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st
from engine.registry import learners

QUICK = {"boomer": {"max_rules": 3}, "adaboost-mh": {"max_rules": 3}, "seco": {"max_rules": 2},
         "label-ranking": {"max_iterations": 2}, "ml-me": {"n_experts": 2, "max_em_iter": 2}, "cc-lr": {}}
SPECS = {s.key: s for s in learners()}
COUNTS = {"examples": 0, "refused": 0, "fitted": 0}


@st.composite
def matrices(draw):
    n, d = draw(st.integers(1, 7)), draw(st.integers(1, 5))
    fmt = draw(st.sampled_from(["csc", "csr", "coo"]))
    nnz = draw(st.integers(0, 14))
    bound = max(n, d) + 3
    index = st.integers(-3, bound) if draw(st.booleans()) else st.integers(0, min(n, d) - 1)
    itype = draw(st.sampled_from([np.int32, np.int64, np.uint32, np.int8]))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, np.bool_, np.complex64, np.float16]))
    values = st.one_of(st.floats(-1e5, 1e5), st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, 1e39]))
    data = np.array(draw(st.lists(values, min_size=nnz, max_size=nnz)), dtype=np.float64).astype(dtype)
    X = getattr(sp, fmt + "_matrix")((n, d))
    if fmt == "coo":
        X.data = data
        X.row = np.array(draw(st.lists(index, min_size=nnz, max_size=nnz)), dtype=np.int64).astype(itype)
        X.col = np.array(draw(st.lists(index, min_size=nnz + draw(st.sampled_from([0, 0, 0, 1])),
                                       max_size=nnz + 1)), dtype=np.int64)[:nnz + 1].astype(itype)
        return X
    major = n if fmt == "csr" else d
    cuts = sorted(draw(st.lists(st.integers(0, nnz), min_size=major - 1, max_size=major - 1)))
    indptr = [0] + cuts + [nnz]
    if draw(st.booleans()):  # spoil the pointer
        k = draw(st.integers(0, len(indptr) - 1))
        indptr[k] = draw(st.integers(-2, nnz + 3))
        if draw(st.booleans()):
            indptr = indptr[:-1] if draw(st.booleans()) else indptr + [nnz]
    X.data = data
    X.indices = np.array(draw(st.lists(index, min_size=nnz, max_size=nnz)), dtype=np.int64).astype(itype)
    X.indptr = np.array(indptr, dtype=np.int64).astype(itype)
    return X


def scipy_accepts(X) -> bool:
    try:
        Y = X.copy() if X.format == "coo" else type(X)((X.data, X.indices, X.indptr), shape=X.shape)
        if X.format != "coo":
            Y.check_format(full_check=True)
        else:
            if (X.row.size != X.data.size or X.col.size != X.data.size or (X.row < 0).any() or (X.col < 0).any()
                    or (X.row.size and (X.row.max() >= X.shape[0] or X.col.max() >= X.shape[1]))):
                return False
        return True
    except Exception:
        return False


@settings(max_examples=int(sys.argv[1]), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(matrices(), st.sampled_from(sorted(QUICK)), st.integers(0, 2 ** 16))
def target(X, key, seed):
    from engine.validation import check_features

    COUNTS["examples"] += 1
    valid = scipy_accepts(X)
    try:
        check_features(X)
        accepted = True
    except ValueError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
        accepted = False
    assert valid or not accepted, "a matrix SciPy's full check rejects was accepted"
    Y = (np.random.default_rng(seed).random((X.shape[0], 2)) < 0.5).astype(np.uint8)
    est = SPECS[key].make(**QUICK[key])
    try:
        est.fit(X, Y)
    except ValueError as exc:
        assert str(exc).strip()
        COUNTS["refused"] += 1
        return
    assert accepted, "fit accepted what check_features refused"
    COUNTS["fitted"] += 1
    P = np.asarray(est.predict(X).toarray() if hasattr(est.predict(X), "toarray") else est.predict(X))
    assert P.shape == (X.shape[0], 2) and set(np.unique(P)) <= {0, 1}


target()
print(f"ok: {COUNTS['examples']} examples, {COUNTS['refused']} refused, {COUNTS['fitted']} fitted and predicted")
'''


def test_fuzz_malformed_sparse_matrices():
    n = settings.default.max_examples
    proc = subprocess.run([sys.executable, "-c", SPARSE_TARGET, str(n)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60 + 6 * n, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stdout.strip().startswith("ok"), \
        f"exit {proc.returncode} (negative: killed by a signal):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    print(proc.stdout.strip())  # the counts, shown with pytest -s


# ----------------------------------------------------------------------------- schema mismatches
NAMES = ["a", "b", "c", "d"]
VALUES = {1: ["x", "y", "z"]}  # attribute b is nominal


def _table(n, seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n), rng.random(n), rng.normal(size=n)])
    Y = np.column_stack([X[:, 0] > 0.2, (X[:, 1] == 1) | (X[:, 2] > 0.7)]).astype(np.uint8)
    return X.astype(np.float32), Y


@pytest.fixture(scope="module")
def schema_model():
    X, Y = _table(150, 0)
    est = BoomerClassifier(max_rules=10).fit_dataset(Dataset(X, Y, list(NAMES), ["y0", "y1"], dict(VALUES)))
    Xt, _ = _table(40, 1)
    return est, Xt, np.asarray(est.predict(Xt))


@st.composite
def columns(draw):
    """A drawn data layout: (source attribute, name, nominal values or None) per column."""
    cols = [(j, NAMES[j], VALUES.get(j)) for j in range(4)]
    cols = draw(st.permutations(cols))
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["rename", "drop", "repeat", "kind", "values", "none"]))
        i = draw(st.integers(0, len(cols) - 1))
        j, name, values = cols[i]
        if kind == "rename":
            cols[i] = (j, draw(st.sampled_from(["a", "b", "c", "d", "e", "A", "a ", "", "b'"])), values)
        elif kind == "drop" and len(cols) > 1:
            cols.pop(i)
        elif kind == "repeat":
            cols.insert(draw(st.integers(0, len(cols))), cols[i])
        elif kind == "kind":
            cols[i] = (j, name, None if values else ["x", "y", "z"])
        elif kind == "values" and values:
            cols[i] = (j, name, draw(st.sampled_from([["z", "y", "x"], ["x", "y"], ["x", "y", "z", "w"]])))
    return cols


def _accepted(cols, kinds: bool = True) -> bool:
    """The oracle: the model's names, each once, each with the model's kind and values (when ``kinds``)."""
    names = [name for _, name, _ in cols]
    if sorted(names) != sorted(NAMES):
        return False
    return not kinds or all(values == VALUES.get(NAMES.index(name)) for _, name, values in cols)


def _faithful(cols) -> bool:
    """Whether every column holds the values its name says (then predictions must be the model's)."""
    return all(name == NAMES[j] for j, name, _ in cols)


@pytest.fixture(scope="module")
def frame_model():
    X, Y = _table(150, 0)
    est = BoomerClassifier(max_rules=10).fit(pd.DataFrame(X, columns=NAMES), Y)
    Xt, _ = _table(40, 1)
    return est, np.asarray(est.predict(Xt))


@FUZZ
@given(columns(), st.booleans())
def test_fuzz_schema_mismatch(schema_model, frame_model, cols, as_frame):
    est, Xt, expected = schema_model
    X = np.column_stack([Xt[:, j] for j, _, _ in cols]).astype(np.float32)
    names = [name for _, name, _ in cols]
    if as_frame:  # scikit-learn's way: a DataFrame's names (it has no kinds) against feature_names_in_
        est, expected = frame_model
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                P = np.asarray(est.predict(pd.DataFrame(X, columns=names)))
        except ValueError as exc:
            assert str(exc).strip()
            assert not _accepted(cols, kinds=False), f"refused {names}: {exc}"
            return
        assert _accepted(cols, kinds=False), f"accepted {names}"
        if _faithful(cols):
            np.testing.assert_array_equal(P, expected)
        return
    data = Dataset(X, np.zeros((len(X), 2), np.uint8), names, ["y0", "y1"],
                   {i: values for i, (_, _, values) in enumerate(cols) if values})
    try:
        Xm, note = features_for_model(est, data)
    except ValueError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
        assert not _accepted(cols), f"refused {cols}: {exc}"
        return
    assert _accepted(cols), f"accepted {cols}"
    assert (note is None) == (names == NAMES)
    if _faithful(cols):
        np.testing.assert_array_equal(np.asarray(est.predict(Xm)), expected)
