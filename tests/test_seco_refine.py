"""SeCo's numeric refinement (engine.core.seco_refine) finds the condition the reference's search finds:
the same as the exhaustive kernel that evaluates every candidate in the reference's order
(engine.core.seco_search.mlrl_numeric_conditions), on random data with negative values, zeros (dense and
sparse attributes), ties, missing values, instance weights, covered subsets and candidate labels, for every
heuristic and head search; and the stratified sample drawn per rule is engine.holdout's."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.core.features import build_feature_index
from engine.core.seco_refine import ATTR, BEST_Q, BEST_THR, COUNT, END, INVERSE, OP, START, Body, LabelCounts, Vectors
from engine.core.seco_search import (HEAD_PARTIAL_ALL, HEAD_PARTIAL_SEARCH, HEAD_SINGLE_MODE, Columns, Heuristic,
                                     mlrl_numeric_conditions)
from engine.holdout import split_holdout
from engine.seco import (MLRL_HEURISTICS, _base_vectors, _best_chunk, _label_counts, _OutputWise, _run_chunks,
                         _step_scratch, lift_tables)

F32 = np.float32
HEURISTICS = [("accuracy", 0.0), ("precision", 0.0), ("recall", 0.0), ("laplace", 0.0),
              ("weighted-relative-accuracy", 0.0), ("f-measure", 0.25), ("f-measure", 0.0), ("f-measure", np.inf),
              ("f-measure", 2.0), ("m-estimate", 22.466), ("m-estimate", 0.0), ("m-estimate", np.inf)]
LIFTS = ("none", "peak", "kln", "peak{peak_label=3,max_lift=2.5}", "peak{peak_label=2,curvature=2}")


def _data(rng, sparse_input):
    n, d, K = int(rng.integers(30, 120)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
    X = np.round(rng.normal(size=(n, d)), int(rng.integers(0, 3))).astype(np.float32)
    X[rng.random((n, d)) < rng.random() * 0.5] = 0
    if not sparse_input:
        X[rng.random((n, d)) < rng.random() * 0.1] = np.nan
    if rng.random() < 0.3:
        X = np.abs(X)
    Y = (rng.random((n, K)) < rng.random(K) * 0.7).astype(np.uint8)
    return (sp.csc_matrix(X) if sparse_input else X), Y


def _reference(index, sparse, features, covered, w, coverage, Y, majority, cand, min_cov, h, p, mode, lift, max_lift,
               floor):
    """The exhaustive search's choice: the best quality, ties to the earlier attribute, above ``floor``; over
    the attributes' vectors in the reference's order (equal values of a sparse attribute as std::sort leaves
    them, engine.seco._base_vectors), as ours searches them."""
    bptr, brows, bvals = _base_vectors(index, (1 - sparse).astype(np.uint8), np.ones(index.n_features, bool),
                                       len(covered))
    free = coverage == 0
    C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
    C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
    wf = w.astype(np.float64)
    m = len(features)
    out = (np.empty(m, np.float32), np.empty(m, np.int64), np.empty(m), np.empty(m, np.int64),
           np.empty((m, 3), np.int64))
    heads = (Heuristic(h, p, mode, lift, max_lift), majority, cand, len(cand))
    mlrl_numeric_conditions(features, Columns(bptr, brows, bvals, index.missing_ptr, index.missing_rows), covered, wf,
                            sparse, (C1, C0, wf @ C1, wf @ C0), min_cov, heads, out, np.zeros(1, np.int64))
    q, op, thr, cnt, where = out
    best = None
    for c in range(m):
        if op[c] >= 0 and (best is None or q[c] > q[best]):
            best = c
    if best is None or not q[best] > floor:
        return None
    return float(q[best]), int(features[best]), int(op[best]), float(thr[best]), int(cnt[best]), tuple(where[best])


def _ours(index, dense, order, covered, w, coverage, Y, majority, cand, min_cov, h, p, mode, lift, max_lift, floor,
          chunks):
    """Our search in ``chunks`` threads, the attributes in ``order``."""
    n = Y.shape[0]
    bptr, brows, bvals = _base_vectors(index, dense, np.ones(index.n_features, bool), n)
    Wm, U, maj = _label_counts(Y, coverage, w, cand, majority)
    out_f, out_i, best, scratch = _step_scratch(chunks, len(cand))
    best[0] = floor
    full = bool(covered.all())
    vectors = Vectors(bptr, brows, bvals, np.empty_like(brows), np.empty_like(bvals),
                      np.zeros(index.n_features, np.int64), np.full(index.n_features, -1, np.int64), index.missing_ptr,
                      index.missing_rows, dense)
    args = (order, vectors, Body(0, full, covered, w), LabelCounts(Wm, U, maj), Heuristic(h, p, mode, lift, max_lift),
            min_cov, float(floor), np.zeros(index.n_features), best)
    _run_chunks(args, chunks, out_f, out_i, scratch, np.zeros(1, np.uint8))  # a fit's cancel flag
    c = _best_chunk(out_f, out_i)
    if c < 0:
        return None
    return (float(out_f[c, BEST_Q]), int(out_i[c, ATTR]), int(out_i[c, OP]), float(out_f[c, BEST_THR]),
            int(out_i[c, COUNT]), (int(out_i[c, START]), int(out_i[c, END]), int(out_i[c, INVERSE])))


@pytest.mark.parametrize("seed", range(12))
def test_the_same_condition_as_the_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for case in range(25):
        X, Y = _data(rng, sparse_input=case % 4 == 3)
        n, K = Y.shape
        index = build_feature_index(X, np.zeros(X.shape[1], bool))
        stored = np.diff(index.ptr) + np.diff(index.missing_ptr)
        dense = (stored >= n).astype(np.uint8) if sp.issparse(X) else np.ones(index.n_features, np.uint8)
        name, p = HEURISTICS[(seed + case) % len(HEURISTICS)]
        h, p = MLRL_HEURISTICS[name], F32(p)
        mode = (HEAD_SINGLE_MODE, HEAD_PARTIAL_SEARCH, HEAD_PARTIAL_ALL)[int(rng.integers(3))]
        cand = np.arange(K, dtype=np.int64)
        if rng.random() < 0.4:
            cand = np.sort(rng.choice(K, int(rng.integers(1, K + 1)), replace=False)).astype(np.int64)
        lift, max_lift = lift_tables(LIFTS[case % len(LIFTS)], K, Y)
        majority = (Y.sum(axis=0) > n / 2).astype(np.uint8)
        coverage = (rng.random((n, K)) < rng.random() * 0.5).astype(np.uint8)
        w = np.ones(n, np.int64)
        if rng.random() < 0.5:
            w = rng.integers(0, 3, n).astype(np.int64)
        covered = np.ones(n, np.uint8)
        if rng.random() < 0.5:
            covered = (rng.random(n) < 0.6).astype(np.uint8)
        min_cov = int(rng.integers(1, 6))
        floor = F32(0.0) if rng.random() < 0.6 else F32(rng.random() * 0.6)
        features = np.arange(index.n_features, dtype=np.int64)
        expected = _reference(index, (1 - dense).astype(np.uint8), features, covered, w.astype(np.float64), coverage,
                              Y, majority, cand, min_cov, h, p, mode, lift, max_lift, floor)
        for chunks, order in ((1, features), (2, features[::-1].copy()), (3, rng.permutation(features))):
            got = _ours(index, dense, order, covered, w, coverage, Y, majority, cand, min_cov, h, p, mode, lift,
                        max_lift, floor, chunks)
            assert got == expected, (seed, case, name, mode, chunks)
        checked += expected is not None
    assert checked > 5


def test_the_stratified_sample_is_the_holdout_split():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n, K = int(rng.integers(3, 150)), int(rng.integers(1, 8))
        Y = (rng.random((n, K)) < rng.random(K) * 0.6).astype(np.uint8)
        size = int(rng.integers(1, n))
        strata = _OutputWise(Y, size)
        for seed in range(3):
            _, expected = split_holdout(Y, "stratified-output-wise", size / n, seed)
            assert np.array_equal(np.sort(strata.sample(seed)), expected)
