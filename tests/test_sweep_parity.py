"""Brute-force parity of AdaBoost.MH's sweep (engine/core/stumps.py): for every attribute the
kernel's best split reaches the smallest Z over all thresholds, computed here directly from the
definition (Schapire & Singer 1999: Z = W0 + 2 sqrt(W+ W-) with the optimal votes and confidence),
with missing values, zeros, negative values and nominal attributes.  The refinement sweep of BOOMER
has its own brute-force tests (tests/test_refinement.py), SeCo's below."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.core.features import build_feature_index
from engine.core.stumps import MODE_RULE, MODE_STUMP, best_splits, covered_totals

OPS = ("<=", ">", "==", "!=")


def _mask(x, op, thr):
    with np.errstate(invalid="ignore"):
        return {"<=": x <= thr, ">": x > thr, "==": x == thr, "!=": (x != thr) & ~np.isnan(x)}[op]


def _z_of_parts(parts, A, d, W_all):
    """Z of a hypothesis voting sign(sum A) on each part (abstaining elsewhere): W0 + sqrt(W^2 - r^2)
    summed as the definition has it, W+ - W- = r and W+ + W- = W over the parts."""
    W = sum(d[p].sum() for p in parts)
    r = sum(np.abs(A[p].sum(axis=0)).sum() for p in parts)
    return (W_all - W) + math.sqrt(max(W * W - r * r, 0.0))


def _data(rng, n=60, nominal=False):
    X = rng.normal(size=(n, 4)).round(1)
    X[rng.random((n, 4)) < 0.15] = 0.0  # implicit zeros in the sorted index
    X[rng.random((n, 4)) < 0.1] = np.nan  # missing values
    nom = np.zeros(4, dtype=bool)
    if nominal:
        X[:, 3] = rng.integers(0, 3, size=n).astype(float)
        X[rng.random(n) < 0.1, 3] = np.nan
        nom[3] = True
    Y = rng.random((n, 3)) < 0.4
    D = rng.random((n, 3))
    D /= D.sum()
    return X.astype(np.float32), Y, D, nom


def _brute_force(X, A, d, W_all, cov, j, nominal, mode):
    x = X[:, j].astype(np.float64)
    covered = cov.astype(bool)
    valid = covered & ~np.isnan(x)
    best = math.inf
    values = np.unique(x[valid])
    if nominal:
        candidates = [("==", v) for v in values] + [("!=", v) for v in values]
    else:
        mids = (values[:-1] + values[1:]) / 2.0
        candidates = [(op, t) for t in mids for op in ("<=", ">")]
    for op, thr in candidates:
        side = valid & _mask(x, op, thr)
        if mode == MODE_STUMP:
            other = valid & ~side
            if not side.any() or not other.any():
                continue
            z = _z_of_parts([np.flatnonzero(side), np.flatnonzero(other)], A, d, W_all)
        else:
            if not side.any() or side.sum() == covered.sum():
                continue
            z = _z_of_parts([np.flatnonzero(side)], A, d, W_all)
        best = min(best, z)
    return best


@pytest.mark.parametrize("mode", [MODE_STUMP, MODE_RULE], ids=["stump", "rule"])
@pytest.mark.parametrize("seed", range(6))
def test_adaboost_sweep_finds_the_smallest_z_of_every_attribute(seed, mode):
    rng = np.random.default_rng(seed)
    X, Y, D, nominal = _data(rng, nominal=seed % 2 == 1)
    A = D * np.where(Y, 1.0, -1.0)
    d = D.sum(axis=1)
    W_all = float(d.sum())
    cov = np.ones(len(X), dtype=np.uint8)
    if mode == MODE_RULE and seed >= 3:
        cov[rng.random(len(X)) < 0.3] = 0  # a rule being refined covers a subset
    index = build_feature_index(X, nominal)
    S_T = np.empty(A.shape[1])
    W_T, n_T = covered_totals(cov, A, d, S_T)
    p = X.shape[1]
    out_z, out_op, out_thr = np.empty(p), np.empty(p, dtype=np.int64), np.empty(p)
    best_splits(np.arange(p, dtype=np.int64), p, index.ptr, index.rows, index.values, index.missing_ptr,
                index.missing_rows, index.nominal, cov, A, d, S_T, W_T, n_T, W_all, mode, out_z, out_op, out_thr,
                np.zeros(1, dtype=np.uint8))
    for j in range(p):
        expected = _brute_force(X, A, d, W_all, cov, j, bool(nominal[j]), mode)
        if not math.isfinite(expected):
            assert out_op[j] < 0
            continue
        assert out_z[j] == pytest.approx(expected, rel=1e-9, abs=1e-12), j
        # the reported split itself reaches that Z
        x = X[:, j].astype(np.float64)
        valid = cov.astype(bool) & ~np.isnan(x)
        side = valid & _mask(x, OPS[out_op[j]], out_thr[j])
        parts = [np.flatnonzero(side)] + ([np.flatnonzero(valid & ~side)] if mode == MODE_STUMP else [])
        assert _z_of_parts(parts, A, d, W_all) == pytest.approx(out_z[j], rel=1e-9, abs=1e-12)
