"""Brute-force parity of the sweeps that share the walk of engine/core/sweep.py, with missing values,
zeros, negative values and nominal attributes: AdaBoost.MH's (every attribute's best split reaches
the smallest Z over all thresholds, computed from the definition, Schapire & Singer 1999:
Z = W0 + 2 sqrt(W+ W-) with the optimal votes and confidence) and SeCo's (the best heuristic value
over all conditions, from counts summed directly).  BOOMER's refinement sweep has its brute-force
tests in tests/test_refinement.py."""
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


# -- SeCo (engine/core/seco_search.py) ------------------------------------------------------------
def _seco_value(S, cov, C1, C0, U1, U0, G1, G0, heuristic, beta2, exhaustive, min_coverage, n_T):
    """The best head's heuristic value and covered pairs of the body covering the examples ``S``,
    from counts summed here directly (the head search is the kernel's; it has its own tests)."""
    from engine.core.seco_search import head_search, mask_bitset

    n = int(S.sum())
    if not min_coverage <= n < n_T:
        return None
    c1 = C1[S].sum(axis=0).astype(np.int64)
    c0 = C0[S].sum(axis=0).astype(np.int64)
    K = C1.shape[1]
    bits = mask_bitset(S.astype(np.uint8), G1.shape[1])
    v, size, pairs, _ = head_search(heuristic, beta2, exhaustive, c1, c0, U1, U0, n, G1, G0, bits, bits, 0,
                                    np.empty(K, np.int64), np.empty(K, np.int64))
    return (v, pairs) if size > 0 else None


def _seco_sweep(kernel, p, index, cov, C1, C0, T1, T0, n_T, U1, U0, G1, G0, code, beta2, exhaustive, min_coverage,
                cache, seg):
    """One of SeCo's sweeps over every attribute: the general one ("general") or the one for
    decomposable heuristics ("decomposable"); returns the five output arrays."""
    from engine.core.seco_search import Pairs, Walked, best_conditions, best_conditions_decomposable, mask_bitset

    out = (np.empty(p), np.empty(p, np.int64), np.empty(p, np.int64), np.empty(p), np.empty(p, np.int64))
    walked = Walked(index.ptr, index.rows, index.values, index.values, cache, seg, index.missing_ptr,
                    index.missing_rows, index.nominal)
    pairs = Pairs(C1, C0, T1, T0, U1, U0)
    settings = (code, beta2, exhaustive, min_coverage)
    cancel = np.zeros(1, dtype=np.uint8)
    if kernel == "general":
        best_conditions(p, walked, cov, mask_bitset(cov, G1.shape[1]), n_T, pairs, (G1, G0), settings, out, cancel)
    else:
        best_conditions_decomposable(p, walked, cov, n_T, pairs, settings, out, cancel)
    return out


@pytest.mark.parametrize("heuristic, kernel", [(h, k) for h in ("f-measure", "precision", "hamming-accuracy",
                                                                "recall") for k in ("general", "decomposable")]
                         + [("subset-accuracy", "general")])
@pytest.mark.parametrize("seed", range(4))
def test_seco_sweep_finds_the_best_condition_of_every_attribute(seed, heuristic, kernel):
    from engine.core.seco_search import covered_counts, label_bitsets
    from engine.seco import HEURISTIC_CODES

    code = HEURISTIC_CODES[heuristic]
    rng = np.random.default_rng(seed)
    X, Y, _, nominal = _data(rng, n=50, nominal=seed % 2 == 1)
    n, K = Y.shape
    free = rng.random((n, K)) < 0.9  # some pairs already predicted
    C1 = np.ascontiguousarray(free & Y, dtype=np.uint8)
    C0 = np.ascontiguousarray(free & ~Y, dtype=np.uint8)
    W = max(1, (n + 63) // 64)
    G1, G0 = label_bitsets(C1, W), label_bitsets(C0, W)
    U1, U0 = C1.sum(axis=0).astype(np.int64), C0.sum(axis=0).astype(np.int64)
    cov = np.ones(n, dtype=np.uint8)
    if seed >= 2:
        cov[rng.random(n) < 0.3] = 0
    T1, T0 = np.empty(K, np.int64), np.empty(K, np.int64)
    n_T = covered_counts(cov, C1, C0, T1, T0)
    index = build_feature_index(X, nominal)
    p = X.shape[1]
    beta2, exhaustive, min_coverage = 1.0, False, 2  # typed as a fit passes them: its kernels serve here
    cache = np.empty(len(index.rows), dtype=np.int32)
    seg = np.zeros((p, 3), dtype=np.int64)
    out_v, out_p, out_op, out_thr, _ = _seco_sweep(kernel, p, index, cov, C1, C0, T1, T0, n_T, U1, U0, G1, G0, code,
                                                   beta2, exhaustive, min_coverage, cache, seg)
    for j in range(p):
        x = X[:, j].astype(np.float64)
        valid = cov.astype(bool) & ~np.isnan(x)
        values = np.unique(x[valid])
        if nominal[j]:
            candidates = [(op, v) for v in np.union1d(values, [0.0]) for op in ("==", "!=")]
        else:
            mids = (values[:-1] + values[1:]) / 2.0
            candidates = [(op, t) for t in mids for op in ("<=", ">")]
        scored = [s for s in (_seco_value(valid & _mask(x, op, t), cov, C1, C0, U1, U0, G1, G0, code, beta2,
                                          exhaustive, min_coverage, n_T) for op, t in candidates) if s is not None]
        if not scored:
            assert out_op[j] < 0
            continue
        best_v = max(v for v, _ in scored)
        best_p = max(pp for v, pp in scored if v >= best_v - 1e-12)
        assert out_v[j] == pytest.approx(best_v, abs=1e-12), j
        assert out_p[j] == best_p, j
        # the reported condition itself reaches that value
        got = _seco_value(valid & _mask(x, OPS[out_op[j]], out_thr[j]), cov, C1, C0, U1, U0, G1, G0, code, beta2,
                          exhaustive, min_coverage, n_T)
        assert got is not None and got[0] == pytest.approx(out_v[j], abs=1e-12)


@pytest.mark.parametrize("heuristic, kernel", [("f-measure", "decomposable"), ("subset-accuracy", "general")])
def test_seco_sweep_on_compacted_entries_equals_a_fresh_sweep(heuristic, kernel):
    """A rule's later conditions sweep only the entries the earlier sweeps compacted: the same
    results (value, pairs, operator, threshold, evaluations) as a sweep over the whole index."""
    from engine.core.seco_search import covered_counts, label_bitsets
    from engine.seco import HEURISTIC_CODES

    rng = np.random.default_rng(7)
    X, Y, _, nominal = _data(rng, n=80, nominal=True)
    n, K = Y.shape
    C1 = np.ascontiguousarray(Y, dtype=np.uint8)
    C0 = np.ascontiguousarray(~Y, dtype=np.uint8)
    W = max(1, (n + 63) // 64)
    G1, G0 = label_bitsets(C1, W), label_bitsets(C0, W)
    U1, U0 = C1.sum(axis=0).astype(np.int64), C0.sum(axis=0).astype(np.int64)
    index = build_feature_index(X, nominal)
    p = X.shape[1]
    cache = np.empty(len(index.rows), dtype=np.int32)
    seg = np.zeros((p, 3), dtype=np.int64)
    cov = np.ones(n, dtype=np.uint8)
    T1, T0 = np.empty(K, np.int64), np.empty(K, np.int64)
    code = HEURISTIC_CODES[heuristic]
    for step in range(3):  # the covered set shrinks, as when conditions are added
        n_T = covered_counts(cov, C1, C0, T1, T0)
        args = (kernel, p, index, cov, C1, C0, T1, T0, n_T, U1, U0, G1, G0, code, 1.0, False, 2)  # as a fit types them
        compacted = _seco_sweep(*args, cache, seg)
        fresh = _seco_sweep(*args, np.empty_like(cache), np.zeros_like(seg))
        assert seg[~nominal, 0].all()  # every numeric attribute's covered entries are compacted
        for a, b in zip(compacted, fresh):
            np.testing.assert_array_equal(a, b)
        cov[rng.random(n) < 0.3] = 0
