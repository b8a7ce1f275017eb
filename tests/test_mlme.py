"""ML-ME (Hong et al. 2014): SPEC B's acceptance tests T-B1 … T-B7 and the estimator."""
import itertools
import json
import threading

import numpy as np
import pytest
from scipy.special import logsumexp

from engine.mlme import MLMEClassifier
from engine.mlme import ctbn as C
from engine.mlme import logistic
from engine.mlme.mixture import Mixture, annealed_map, em, fit_gate, gate_objective, penalized_ll
from engine.persistence import estimator_from_document, load_estimator


def _random_forest(rng, d):
    """A random forest over d labels: each label picks an earlier label of a random order, or none."""
    order = rng.permutation(d)
    parents = np.full(d, -1)
    for pos in range(1, d):
        if rng.random() < 0.7:
            parents[order[pos]] = order[rng.integers(0, pos)]
    return parents


def _all_vectors(d):
    return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.uint8)


@pytest.mark.parametrize("d", [1, 3, 6, 9])
def test_max_sum_map_is_the_brute_force_argmax_and_probabilities_sum_to_one(d):
    """T-B1."""
    rng = np.random.default_rng(d)
    for trial in range(5):
        tree = C.CTBN(_random_forest(rng, d), rng.normal(scale=1.5, size=(d, 2, 4)))
        X = np.hstack([np.ones((7, 1)), rng.normal(size=(7, 3))])
        V = _all_vectors(d)
        logp = np.stack([tree.log_prob(X, np.repeat(v[None], 7, axis=0)) for v in V], axis=1)  # 7 x 2^d
        np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0)
        got = tree.map(X)
        np.testing.assert_allclose(tree.log_prob(X, got), logp.max(axis=1))
        marg = np.stack([(np.exp(logp) * V[:, i]).sum(axis=1) for i in range(d)], axis=1)
        np.testing.assert_allclose(tree.marginals(X), marg)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_maximum_branching_equals_brute_force(d):
    """T-B2: networkx's Chu-Liu/Edmonds against every acyclic parent function."""
    rng = np.random.default_rng(10 + d)
    for trial in range(10):
        scores = C.StructureScores(rng.normal(size=(d, d)) * 5 - 3, rng.normal(size=d) * 5 - 3)
        best = -np.inf
        for choice in itertools.product(range(-1, d), repeat=d):
            parents = np.array(choice)
            if (parents == np.arange(d)).any():
                continue
            try:
                C.topological_order(parents)
            except ValueError:
                continue
            best = max(best, C.structure_score(scores, parents))
        assert C.structure_score(scores, C.best_structure(scores)) == pytest.approx(best)


def _data(n=240, m=4, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    Y = np.zeros((n, d), dtype=np.uint8)
    Y[:, 0] = X[:, 0] + 0.5 * rng.normal(size=n) > 0
    for i in range(1, d):  # a chain with feature-dependent switching
        Y[:, i] = np.where(Y[:, i - 1] == 1, X[:, i % m] > -0.3, X[:, (i + 1) % m] > 0.8) ^ (rng.random(n) < 0.1)
    return X, Y


def test_em_never_lowers_the_penalised_likelihood():
    """T-B3: three experts with different structures, 15 EM iterations."""
    X, Y = _data()
    Xb = np.hstack([np.ones((len(X), 1)), X])
    rng = np.random.default_rng(1)
    experts = [C.CTBN(_random_forest(rng, 4), rng.normal(scale=0.3, size=(4, 2, 5))) for _ in range(3)]
    mix = Mixture(experts, rng.normal(scale=0.3, size=(3, 5)))
    result = em(mix, Xb, Y, l2=1.0, gate_l2=1.0, max_iter=15, tol=0.0)
    F = np.array(result.objective)
    assert len(F) == 16 and F[-1] > F[0]
    assert (np.diff(F) >= -1e-6 * np.abs(F[:-1])).all()
    assert F[-1] == pytest.approx(penalized_ll(mix, Xb, Y, 1.0, 1.0))


def test_gate_gradient_and_optimum():
    """T-B4: the gate gradient against central differences; without L2, at the optimum
    Σ_n h_k = Σ_n g_k (the bias coordinate of eq. 11)."""
    rng = np.random.default_rng(2)
    X = np.hstack([np.ones((50, 1)), rng.normal(size=(50, 3))])
    H = rng.dirichlet(np.ones(3), size=50)
    theta = rng.normal(size=12)
    _, grad = gate_objective(theta, X, H, 0.7)
    num = np.array([(gate_objective(theta + e, X, H, 0.7)[0] - gate_objective(theta - e, X, H, 0.7)[0]) / 2e-6
                    for e in np.eye(12) * 1e-6])
    np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-6)
    opt = fit_gate(X, H, 0.0, np.zeros((3, 4)), max_iter=500)
    A = X @ opt.T
    g = np.exp(A - logsumexp(A, axis=1, keepdims=True))
    np.testing.assert_allclose(g.sum(axis=0), H.sum(axis=0), atol=1e-3)


def test_one_expert_is_the_single_ctbn():
    """T-B5: with K = 1 the mixture's probabilities, MAP and marginals are the CTBN's."""
    X, Y = _data(seed=3)
    Xb = np.hstack([np.ones((len(X), 1)), X])
    rng = np.random.default_rng(0)
    tree = C.CTBN(_random_forest(rng, 4), rng.normal(size=(4, 2, 5)))
    mix = Mixture([tree], np.zeros((1, 5)))
    np.testing.assert_allclose(mix.log_prob(Xb, Y), tree.log_prob(Xb, Y))
    np.testing.assert_array_equal(annealed_map(mix, Xb), tree.map(Xb))
    np.testing.assert_allclose(mix.marginals(Xb), tree.marginals(Xb))


def test_reweighting_is_normalised_and_decreasing():
    """T-B6: ω ∝ 1 − P(y | x; M) sums to 1, is non-negative and strictly decreasing in P."""
    X, Y = _data(seed=4)
    est = MLMEClassifier(n_experts=2, early_stopping=False, max_em_iter=3)
    steps = list(est.fit_iter(X, Y))
    assert len(steps) == 2
    # recompute the weights the second expert was learned on from the first expert alone
    first = MLMEClassifier(n_experts=1, early_stopping=False).fit(X, Y).mixture_
    Xb = est._design(X)
    p = np.exp(first.log_prob(Xb, Y))
    omega = (1 - p) / (1 - p).sum()
    assert omega.min() >= 0 and omega.sum() == pytest.approx(1.0)
    order = np.argsort(p)
    assert (np.diff(omega[order]) <= 1e-15).all()
    assert steps[1].component.omega_max == pytest.approx(omega.max())
    assert steps[1].component.omega_ess == pytest.approx(1 / np.sum(omega ** 2))


def test_annealed_map_never_worse_than_the_best_expert_map_and_usually_exact():
    """T-B7 (i) on every example; (ii) against exhaustive search over all 2^6 label vectors."""
    rng = np.random.default_rng(5)
    d = 6
    experts = [C.CTBN(_random_forest(rng, d), rng.normal(scale=1.2, size=(d, 2, 5))) for _ in range(3)]
    mix = Mixture(experts, rng.normal(size=(3, 5)))
    X = np.hstack([np.ones((300, 1)), rng.normal(size=(300, 4))])
    got = annealed_map(mix, X, seed=3)
    p_got = mix.log_prob(X, got)
    best_expert = np.max([mix.log_prob(X, e.map(X)) for e in experts], axis=0)
    assert (p_got >= best_expert - 1e-12).all()
    V = _all_vectors(d)
    exact = np.max([mix.log_prob(X, np.repeat(v[None], len(X), axis=0)) for v in V], axis=0)
    assert np.mean(np.isclose(p_got, exact)) >= 0.95


def test_weighted_logistic_regressions_match_separate_fits():
    """Stacked fitting solves each problem as if alone (here against scikit-learn), degenerate ones
    get the Laplace-smoothed constant."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 3))
    Xb = np.hstack([np.ones((200, 1)), X])
    T = (X @ rng.normal(size=(3, 2)) + rng.normal(size=(200, 2)) > 0).astype(float)
    W = rng.random((200, 2))
    T = np.hstack([T, np.ones((200, 1))])  # one class only: degenerate
    W = np.hstack([W, np.ones((200, 1))])
    B = logistic.fit(Xb, T, W, l2=2.0, tol=1e-9, max_iter=1000)
    for p in range(2):
        ref = LogisticRegression(C=1 / 2.0, tol=1e-10, max_iter=10000).fit(X, T[:, p], sample_weight=W[:, p])
        np.testing.assert_allclose(B[1:, p], ref.coef_[0], atol=1e-4)
        np.testing.assert_allclose(B[0, p], ref.intercept_[0], atol=1e-4)
    assert B[0, 2] == pytest.approx(np.log(201 / 1)) and not B[1:, 2].any()


def test_mlme_on_emotions_streams_experts_and_round_trips(tmp_path, shared_data):
    from engine.datasets import load

    d = load(shared_data / "emotions.arff")
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(d.Y))
    tr, te = idx[:400], idx[400:]
    est = MLMEClassifier(n_experts=2, max_em_iter=10)
    steps = list(est.fit_iter(d.X[tr], d.Y[tr], d.X[te], d.Y[te]))
    assert 1 <= len(steps) <= 2 and steps[0].component.accepted and steps[-1].component.refit
    assert all(s.kind == "expert" for s in steps)
    m = steps[-1].metrics
    P = est.predict(d.X[te])
    assert m["test_subset"] == pytest.approx(np.mean((P != d.Y[te]).any(axis=1)))
    assert m["test_cll"] == pytest.approx(-est.log_likelihood(d.X[te], d.Y[te]).sum())
    assert m["test_subset"] < 0.8  # predicting the most frequent label set: 0.83 on this split
    prob = est.predict_proba(d.X[te])
    assert prob.shape == d.Y[te].shape and (prob >= 0).all() and (prob <= 1).all()
    path = tmp_path / "mlme.json"
    est.save(path)
    again = load_estimator(path)
    np.testing.assert_array_equal(again.predict(d.X[te]), P)
    np.testing.assert_allclose(again.log_likelihood(d.X[te], d.Y[te]), est.log_likelihood(d.X[te], d.Y[te]))
    doc = json.loads(path.read_text())
    doc["model"]["experts"][0]["parents"] = [1, 0] + doc["model"]["experts"][0]["parents"][2:]
    with pytest.raises(ValueError, match="cycle"):
        estimator_from_document(doc)
    doc = json.loads(path.read_text())
    doc["model"]["gate"] = []
    with pytest.raises(ValueError, match="gate"):
        estimator_from_document(doc)


def test_bad_input_and_cancel():
    X, Y = _data(seed=7)
    with pytest.raises(ValueError, match="n_experts"):
        MLMEClassifier(n_experts=0).fit(X, Y)
    with pytest.raises(ValueError, match="at least 10"):
        MLMEClassifier().fit(X[:5], Y[:5])
    event = threading.Event()
    event.set()
    est = MLMEClassifier()
    assert list(est.fit_iter(X, Y, cancel=event)) == []


def test_independent_structure_is_binary_relevance():
    """structure='independent' with one expert: every label its own logistic regression, so the
    MAP is thresholding each marginal at 1/2 and the likelihood factorises over labels."""
    X, Y = _data(seed=8)
    est = MLMEClassifier(n_experts=1, structure="independent", early_stopping=False).fit(X, Y)
    assert (est.mixture_.experts[0].parents == -1).all()
    p = est.predict_proba(X)
    np.testing.assert_array_equal(est.predict(X), (p > 0.5).astype(np.uint8))
    np.testing.assert_allclose(est.log_likelihood(X, Y), np.sum(np.log(np.where(Y == 1, p, 1 - p)), axis=1))
