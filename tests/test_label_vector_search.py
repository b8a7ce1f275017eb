"""Eq. (19) by hash index and best-first search equals the linear scan over all known vectors:
same minimum cost on random cases (ties, zero scores, y* unknown, every example-wise loss)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.label_vectors import build_index, best_label_vector, linear_best
from engine.core.losses import LOSS_CODES, label_costs
from engine.model import RuleModel, label_vector_index

EXAMPLE_WISE = [name for name in LOSS_CODES if "non-decomposable" in name]


def _costs(loss, f, vector):
    pos, neg = np.empty(len(f)), np.empty(len(f))
    label_costs(LOSS_CODES[loss], f, pos, neg)
    return float(np.where(vector > 0, pos, neg).sum())


def _search(loss, F, vectors, budget=512):
    vectors = np.ascontiguousarray(vectors, dtype=np.uint8)
    ptr, idx = label_vector_index(vectors)
    keys, hashes, table = build_index(vectors, ptr, idx)
    K = vectors.shape[1]
    pos, neg = np.empty(K), np.empty(K)
    fast, slow = [], []
    for f in F:
        fast.append(best_label_vector(LOSS_CODES[loss], f, ptr, idx, keys, hashes, table, pos, neg, budget))
        label_costs(LOSS_CODES[loss], f, pos, neg)
        slow.append(linear_best(neg.sum(), ptr, idx, pos, neg))
    return vectors, fast, slow


@pytest.mark.parametrize("loss", EXAMPLE_WISE)
@pytest.mark.parametrize("budget", [0, 3, 512])
def test_search_finds_a_vector_of_minimum_cost(loss, budget):
    rng = np.random.default_rng(1)
    for K in (1, 3, 8, 20):
        vectors = np.unique(rng.random((60, K)) < 0.3, axis=0)
        F = rng.normal(scale=2.0, size=(80, K))
        F[:5] = 0.0  # all labels tie
        F[5:10] = np.round(F[5:10])  # many ties
        vectors, fast, slow = _search(loss, F, vectors, budget)
        for f, a, b in zip(F, fast, slow):
            assert _costs(loss, f, vectors[a]) == pytest.approx(_costs(loss, f, vectors[b]), rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.integers(0, 2 ** 32 - 1), st.sampled_from(EXAMPLE_WISE))
def test_search_equals_brute_force_property(K, M, seed, loss):
    rng = np.random.default_rng(seed)
    vectors = (rng.random((M, K)) < rng.random()).astype(np.uint8)  # duplicates allowed
    F = rng.normal(scale=rng.uniform(0.01, 5), size=(10, K))
    vectors, fast, slow = _search(loss, F, vectors)
    for f, a, b in zip(F, fast, slow):
        assert _costs(loss, f, vectors[a]) == pytest.approx(_costs(loss, f, vectors[b]), rel=1e-12, abs=1e-12)


def test_prediction_with_mostly_distinct_vectors_matches_the_scan():
    """Many distinct vectors (the case that was quadratic) give the brute-force answer."""
    rng = np.random.default_rng(3)
    K, M = 20, 3000
    vectors = np.unique(rng.random((M, K)) < 0.4, axis=0).astype(np.uint8)
    model = RuleModel([], n_features=1, n_labels=K, prediction="example-wise", loss="logistic-non-decomposable",
                      label_vectors=vectors)
    F = rng.normal(size=(500, K))
    P = model.predict_from_scores(F)
    _, _, slow = _search("logistic-non-decomposable", F, vectors)
    for f, p, b in zip(F, P, slow):
        assert _costs("logistic-non-decomposable", f, p) == pytest.approx(
            _costs("logistic-non-decomposable", f, vectors[b]), rel=1e-12)


def test_a_huge_rule_budget_starts_at_once_with_small_memory():
    import tracemalloc

    from engine import BoomerClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4)).astype(np.float32)
    Y = (rng.random((200, 3)) < 0.5).astype(np.uint8)
    BoomerClassifier(max_rules=3).fit(X, Y)  # compiled
    tracemalloc.start()
    est = BoomerClassifier(max_rules=50_000_000)
    it = est.fit_iter(X, Y)
    records = [next(it) for _ in range(5)]
    it.close()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(records) == 5 and len(est.rules_) == 5
    assert peak < 20 * 1024 ** 2  # was 400 MB of per-rule seeds alone

