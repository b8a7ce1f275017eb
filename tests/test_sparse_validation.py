"""Every sparse matrix is checked before a kernel reads it: indices inside the shape and never negative,
an index pointer that starts at 0, never decreases and ends within the stored entries, real values;
unsorted or repeated entries are sorted (and summed) on a copy.  A malformed CSC/CSR built by SciPy from
``(data, indices, indptr)`` (SciPy does not check the indices then) gives one ValueError naming the
problem in ``fit``, ``predict``, ``predict_proba`` and ``decision_function`` of every learner and in
``python -m engine prepare --data``, never an out-of-bounds read.

The probes run in a child process: a regression that reads out of bounds may crash (SIGSEGV), which
must fail the test, not end pytest."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from engine import BoomerClassifier
from engine.validation import check_features, check_sparse

ROOT = Path(__file__).resolve().parents[1]

MALFORMED = {  # name -> (how the matrix is spoiled, a fragment of the expected message)
    "csc row index beyond the shape": ("csc", "indices", 10 ** 6, "outside the shape"),
    "csc row index = n_rows": ("csc", "indices", "n", "outside the shape"),
    "csc negative row index": ("csc", "indices", -5, "is negative"),
    "csr column index beyond the shape": ("csr", "indices", 10 ** 6, "outside the shape"),
    "csr negative column index": ("csr", "indices", -1, "is negative"),
    "csc decreasing indptr": ("csc", "indptr", "decrease", "never decrease"),
    "csc indptr not starting at 0": ("csc", "indptr", "start", "must start at 0"),
    "csr indptr beyond the entries": ("csr", "indptr", "end", "indptr ends at"),
    "csc indptr of another length": ("csc", "indptr", "short", "indptr must hold"),
    "coo row beyond the shape": ("coo", "row", 10 ** 6, "outside the shape"),
    "coo negative column": ("coo", "col", -3, "is negative"),
    "csc complex values": ("csc", "data", "complex", "complex numbers"),
}

PROBE = r'''
import json, sys
import numpy as np, scipy.sparse as sp
from engine.datasets import make_synthetic
from engine.registry import learners

CASES = json.loads(sys.argv[1])
QUICK = {"boomer": {"max_rules": 3}, "adaboost-mh": {"max_rules": 3}, "seco": {"max_rules": 2},
         "label-ranking": {"max_iterations": 3}, "ml-me": {"n_experts": 2, "max_em_iter": 2}, "cc-lr": {}}
data = make_synthetic("conditional-dependence", n_examples=40, seed=0)


def spoiled(fmt, field, how):
    X = getattr(sp, fmt + "_matrix")(data.X)
    X = X.copy()
    n_rows = X.shape[0]
    if field in ("indices", "row", "col"):
        arr = getattr(X, field).astype(np.int64)
        arr[len(arr) // 2] = n_rows if how == "n" else how
        setattr(X, field, arr)
    elif field == "data":
        X.data = X.data.astype(np.complex64)
    else:
        ptr = X.indptr.astype(np.int64)
        if how == "decrease":
            ptr[1] = ptr[2] + 1
        elif how == "start":
            ptr[0] = 1
        elif how == "end":
            ptr[-1] = len(X.indices) + 7
        else:
            ptr = ptr[:-1]
        X.indptr = ptr
    return X


out = {}
for spec in learners():
    est = spec.make(**QUICK.get(spec.key, {}))
    fitted = spec.make(**QUICK.get(spec.key, {})).fit(data.X, data.Y)
    for case, (fmt, field, how, _) in CASES.items():
        X = spoiled(fmt, field, how)
        calls = [("fit", lambda: est.fit(X, data.Y))] + [
            (m, lambda m=m: getattr(fitted, m)(X)) for m in ("predict", "predict_proba", "decision_function")
            if hasattr(fitted, m)]
        for method, call in calls:
            try:
                call()
                result = "returned"
            except ValueError as exc:
                result = "ValueError: " + str(exc)
            except Exception as exc:
                result = f"{type(exc).__name__}: {exc}"
            out[f"{spec.key} {method} {case}"] = result
    Y = sp.csr_matrix(data.Y)
    Y.indices = Y.indices.astype(np.int64)
    Y.indices[1] = 99
    try:
        est.fit(data.X, Y)
        out[f"{spec.key} fit sparse labels"] = "returned"
    except ValueError as exc:
        out[f"{spec.key} fit sparse labels"] = "ValueError: " + str(exc)
print(json.dumps(out))
'''


def _child(code: str, *args, timeout=900):
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_malformed_sparse_matrices_give_one_clear_value_error_in_every_learner():
    proc = _child(PROBE, json.dumps(MALFORMED))
    assert proc.returncode == 0, f"the probe process ended with {proc.returncode} (a crash?): {proc.stderr[-2000:]}"
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) >= 6 * (len(MALFORMED) * 3 + 1)
    wrong = {k: v for k, v in results.items()
             if not v.startswith("ValueError: ") or
             (not k.endswith("sparse labels") and MALFORMED[k.split(" ", 2)[2]][3] not in v)}
    assert not wrong, wrong
    assert all("\n" not in v for v in results.values())


def test_prepare_refuses_an_out_of_bounds_csc_file_with_a_message(tmp_path):
    X = sp.csc_matrix(np.eye(6, 3, dtype=np.float32))
    indices = X.indices.astype(np.int32)
    indices[1] = 4000
    path = tmp_path / "bad.npz"
    np.savez(path, X_data=X.data, X_indices=indices, X_indptr=X.indptr, X_shape=np.array(X.shape),
             Y=np.eye(6, 2, dtype=np.uint8))
    proc = subprocess.run([sys.executable, "-m", "engine", "prepare", "--learner", "boomer", "--params",
                           '{"max_rules": 5}', "--data", str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "bad.npz: X (sparse CSC) row index 4000 is outside the shape (0..5)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unsorted_and_repeated_entries_are_sorted_on_a_copy_and_learn_the_same_model():
    rng = np.random.default_rng(0)
    X = sp.random(80, 5, density=0.4, format="csc", random_state=1, dtype=np.float32)
    Y = (rng.random((80, 2)) < 0.4).astype(np.uint8)
    reversed_ = X.copy()
    for j in range(X.shape[1]):  # every column's entries in reverse order
        a, b = X.indptr[j], X.indptr[j + 1]
        reversed_.indices[a:b] = X.indices[a:b][::-1]
        reversed_.data[a:b] = X.data[a:b][::-1]
    reversed_.has_sorted_indices = True  # a stale flag must not be trusted
    before = reversed_.indices.copy()
    canonical = check_features(reversed_)
    np.testing.assert_array_equal(canonical.toarray(), X.toarray())
    np.testing.assert_array_equal(reversed_.indices, before)  # the caller's matrix is untouched
    a = BoomerClassifier(max_rules=5).fit(X, Y)
    b = BoomerClassifier(max_rules=5).fit(reversed_, Y)
    assert [str(r) for r in a.rules_] == [str(r) for r in b.rules_]
    np.testing.assert_array_equal(reversed_.indices, before)
    doubled = sp.csc_matrix((np.r_[X.data, X.data], np.r_[X.indices, X.indices],
                             X.indptr * 2), shape=X.shape)  # each column's entries twice (contiguous)
    doubled.indptr = np.r_[[0], np.cumsum(np.diff(X.indptr) * 2)].astype(np.int32)
    for j in range(X.shape[1]):
        a0, b0 = X.indptr[j], X.indptr[j + 1]
        a1 = doubled.indptr[j]
        doubled.indices[a1:a1 + 2 * (b0 - a0)] = np.r_[X.indices[a0:b0], X.indices[a0:b0]]
        doubled.data[a1:a1 + 2 * (b0 - a0)] = np.r_[X.data[a0:b0], X.data[a0:b0]]
    np.testing.assert_allclose(check_features(doubled).toarray(), 2 * X.toarray())  # summed, as SciPy sums


@pytest.mark.parametrize("fmt", ["bsr", "lil", "dok", "dia", "coo"])
def test_other_sparse_formats_are_checked_and_converted(fmt):
    X = sp.random(20, 4, density=0.5, format="csr", random_state=0, dtype=np.float32)
    np.testing.assert_array_equal(check_features(X.asformat(fmt)).toarray(), X.toarray())


def test_loaders_and_check_sparse_agree_on_a_valid_matrix():
    X = sp.random(30, 7, density=0.3, format="csr", random_state=2, dtype=np.float32)
    assert check_sparse(X) is X
    with pytest.raises(ValueError, match="two-dimensional"):
        check_sparse(sp.coo_array(np.ones(3)))


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_an_unsigned_index_pointer_that_wraps_around_is_refused(dtype):
    """Found by the long fuzz run (SIGSEGV, heap corruption): ``indptr`` -2 stored as uint32 is 4294967294,
    and differences of unsigned pointers never look negative."""
    X = sp.csr_matrix(np.ones((4, 1), np.float32))
    X.indptr = np.array([0, 2, 1, 3, 4], dtype=dtype)  # decreasing at 2
    with pytest.raises(ValueError, match=r"never decrease, but indptr\[2\] = 1"):
        check_features(X)
    X.indptr = np.array([0, -2, 1, 3, 4]).astype(dtype)  # wrapped around
    with pytest.raises(ValueError, match="never decrease"):
        check_features(X)
    X = sp.csc_matrix(np.ones((3, 2), np.float32))
    X.indices = np.array([0, 1, 2, 0, 1, 2 ** 40], dtype=dtype) if dtype == np.uint64 else \
        np.array([0, 1, 2, 0, 1, 2 ** 31], dtype=dtype)
    with pytest.raises(ValueError, match="outside the shape"):
        check_features(X)
