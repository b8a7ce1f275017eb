"""Log-linear label ranking (Dekel et al. 2003): SPEC A's acceptance tests T-A1 … T-A9."""
import itertools
import json
import threading

import numpy as np
import pytest
import scipy.optimize

from engine import metrics as M
from engine.persistence import estimator_from_document, load_estimator
from engine.ranking import LabelRankingBooster
from engine.ranking.graphs import DECOMPOSITIONS, bipartite, from_edge_lists, layered
from engine.ranking.kernels import disagreement, subgraph_loss
from engine.ranking.measures import generalized_error
from engine.ranking.objective import RankingObjective

TOY_X = np.array([[1, 2], [2, 0.5], [0.5, 1.5]])
TOY_GRAPHS = [[(0, 2), (0, 3), (1, 2), (1, 3)], [(0, 1), (1, 2), (2, 0), (3, 1)],
              [(2, 3), (2, 0), (2, 1), (3, 0), (3, 1)]]
# SPEC A.9: L(λ=0), bound₁, L after 1, 10 and 200 updates
GOLDEN = {"0-1": (5.010635, 0.024193, 4.967837, 4.847258, 4.785586),
          "dis": (2.079442, 0.016622, 2.050048, 1.970951, 1.914811),
          "Dom": (3.034213, 0.016193, 3.005500, 2.940564, 2.898081),
          "dom": (2.890372, 0.036564, 2.825658, 2.695576, 2.632823)}
GOLDEN_W = {
    "dis": ([0.35, 0.6, 0.5, 0.3, 0.3625, 0.425, 0.5625, 0.65],
            [0.5, 0.5, 0.4, 0.35, 0.5625, 0.5625, 0.5125, 0.3625]),
    "0-1": ([0.566667, 0.966667, 0.8, 0.483333, 0.6, 0.7, 0.9, 1.05],
            [0.8, 0.8, 0.65, 0.566667, 0.9, 0.9, 0.85, 0.6]),
    "Dom": ([0.395833, 0.645833, 0.583333, 0.395833, 0.5, 0.5625, 0.729167, 0.854167],
            [0.583333, 0.583333, 0.4375, 0.416667, 0.729167, 0.729167, 0.625, 0.5625]),
    "dom": ([0.444444, 0.555556, 0.666667, 0.416667, 0.416667, 0.444444, 0.75, 0.916667],
            [0.555556, 0.666667, 0.527778, 0.333333, 0.722222, 0.75, 0.666667, 0.388889]),
}
GOLDEN_LAMBDA2 = {"dis": [0.029723, -0.015193, -0.018595, 0.012846, 0.036614, 0.023358, -0.007758, -0.048662],
                  "0-1": [0.028737, -0.01577, -0.017303, 0.013255, 0.033789, 0.020943, -0.004763, -0.046635]}


def _run(objective, n_base, k, iterations, update="parallel"):
    """Losses, bounds, W± of the first step and λ after every update."""
    lam = np.zeros((n_base, k))
    losses, bounds, lams, first = [], [], [], None
    F = objective.scores(lam)
    losses.append(objective.evaluate(F))
    for _ in range(iterations):
        wp, wm = objective.gradient_parts()
        u = objective.parallel_update(wp, wm) if update == "parallel" else objective.sequential_update(wp, wm)
        first = first or (wp.ravel().copy(), wm.ravel().copy())
        lam = lam + u.delta
        lams.append(lam.ravel().copy())
        bounds.append(u.bound)
        losses.append(objective.evaluate(objective.scores(lam)))
    return np.array(losses), np.array(bounds), lams, first


@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_golden_numbers_of_the_toy_problem(decomposition):
    """T-A9: losses, bound, W⁺/W⁻ and λ₂ of the notes' reference implementation."""
    graphs = from_edge_lists(TOY_GRAPHS, 4)
    obj = RankingObjective(TOY_X, graphs.group(decomposition), 4)
    assert obj.pi == 6.0
    losses, bounds, lams, (wp, wm) = _run(obj, 2, 4, 200)
    L0, b1, L1, L10, L200 = GOLDEN[decomposition]
    np.testing.assert_allclose([losses[0], bounds[0], losses[1], losses[10], losses[200]], [L0, b1, L1, L10, L200],
                               atol=2e-6)
    np.testing.assert_allclose(wp, GOLDEN_W[decomposition][0], atol=1e-6)
    np.testing.assert_allclose(wm, GOLDEN_W[decomposition][1], atol=1e-6)
    if decomposition in GOLDEN_LAMBDA2:
        np.testing.assert_allclose(lams[0], GOLDEN_LAMBDA2[decomposition], atol=1e-6)
    # after 200 updates: training errors (0-1, dis, Dom, dom) = (0.6667, 0.35, 0.4167, 0.3333)
    F = TOY_X @ lams[-1].reshape(2, 4)
    errs = []
    for d in DECOMPOSITIONS:
        g = graphs.group(d)
        out = np.zeros(3)
        disagreement(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, out)
        errs.append(out.mean())
    np.testing.assert_allclose(errs, [0.6667, 0.35, 0.4167, 0.3333], atol=1e-4)


def test_figure_2_errors():
    """T-A8 / T-A1: dis = 3/8, Dom = 2/4, dom = 3/5 and 0-1 = 1 for the order 1 ≻ 2 ≻ 3 ≻ 4 ≻ 5."""
    edges = [(1, 2), (1, 4), (1, 5), (2, 3), (3, 1), (3, 5), (5, 2), (5, 4)]
    graphs = from_edge_lists([[(a - 1, b - 1) for a, b in edges]], 5)
    F = np.array([[5.0, 4, 3, 2, 1]])
    got = {}
    for d in DECOMPOSITIONS:
        g = graphs.group(d)
        out = np.zeros(1)
        disagreement(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, out)
        got[d] = out[0]
    assert got == pytest.approx({"0-1": 1.0, "dis": 3 / 8, "Dom": 2 / 4, "dom": 3 / 5})


def _random_problem(rng, m=6, k=5, d=3, signed=True):
    X = rng.normal(size=(m, d)) if signed else rng.random((m, d))
    lists = []
    for _ in range(m):
        pairs = [(a, b) for a in range(k) for b in range(k) if a != b]
        chosen = rng.choice(len(pairs), size=rng.integers(1, 7), replace=False)
        seen, edges = set(), []
        for c in chosen:  # simple graphs, cycles allowed, no antiparallel pairs
            a, b = pairs[c]
            if (b, a) not in seen:
                seen.add((a, b))
                edges.append((a, b))
        lists.append(edges)
    return X, from_edge_lists(lists, k), k


@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_gradient_is_w_plus_minus_w_minus(decomposition):
    """T-A2: ∂L/∂λ = W⁺ − W⁻ against central differences, with real-valued (signed) features."""
    rng = np.random.default_rng(3)
    X, graphs, k = _random_problem(rng)
    obj = RankingObjective(X, graphs.group(decomposition), k)
    lam = rng.normal(scale=0.3, size=(X.shape[1], k))
    obj.evaluate(obj.scores(lam))
    wp, wm = obj.gradient_parts()
    num = np.zeros_like(lam)
    h = 1e-6
    for idx in np.ndindex(lam.shape):
        e = np.zeros_like(lam)
        e[idx] = h
        num[idx] = (obj.evaluate(obj.scores(lam + e)) - obj.evaluate(obj.scores(lam - e))) / (2 * h)
    np.testing.assert_allclose(wp - wm, num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("update", ["parallel", "sequential"])
def test_theorem_1_bound_holds_at_every_iteration(update):
    """T-A3/T-A4/T-A5: decrease ≥ bound ≥ 0 each iteration; losses non-increasing; ε_gen ≤ L/ln 2
    per example — 40 random cyclic problems × 4 decompositions, signed features."""
    rng = np.random.default_rng(11)
    worst = np.inf
    for trial in range(40):
        X, graphs, k = _random_problem(rng, signed=trial % 2 == 0)
        for d in DECOMPOSITIONS:
            g = graphs.group(d)
            obj = RankingObjective(X, g, k)
            losses, bounds, lams, _ = _run(obj, X.shape[1], k, 25, update)
            decrease = losses[:-1] - losses[1:]
            assert (bounds >= 0).all()
            slack = decrease - bounds
            assert (slack >= -1e-12 * np.maximum(1, losses[:-1])).all(), (trial, d, slack.min())
            worst = min(worst, slack.min())
            for lam in lams[::5]:
                F = X @ lam.reshape(X.shape[1], k)
                err, loss = np.zeros(len(X)), np.zeros(len(X))
                disagreement(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, err)
                subgraph_loss(F, g.g_ptr, g.g_example, g.init, g.term, g.weight, loss)
                assert (err <= loss / np.log(2) + 1e-12).all()
    assert worst >= -1e-12


def test_values_at_zero_for_multilabel_graphs():
    """T-A6: per example ln(1 + r(k−r)), ln 2, ln(1 + k − r), ln(1 + r)."""
    Y = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 1]])
    k = 5
    r = Y.sum(1)
    graphs = bipartite(Y)
    expected = {"0-1": np.log(1 + r * (k - r)), "dis": np.full(3, np.log(2)), "Dom": np.log(1 + k - r),
                "dom": np.log(1 + r)}
    for d, want in expected.items():
        g = graphs.group(d)
        out = np.zeros(3)
        subgraph_loss(np.zeros((3, k)), g.g_ptr, g.g_example, g.init, g.term, g.weight, out)
        np.testing.assert_allclose(out, want)


def test_converges_to_the_minimum_found_by_lbfgs():
    """T-A7: on a non-separable problem L(λ_T) approaches L-BFGS's minimum and the bound vanishes."""
    X = np.array([[1.0, 0.2], [0.4, 1.0], [1.0, 0.5], [0.3, 0.9]])
    lists = [[(0, 1), (1, 2)], [(1, 0), (2, 0)], [(1, 0), (1, 2)], [(0, 1), (2, 1)]]  # conflicting supervision
    graphs = from_edge_lists(lists, 3)
    obj = RankingObjective(X, graphs.group("dis"), 3)
    losses, bounds, _, _ = _run(obj, 2, 3, 3000)

    def f(v):
        loss = obj.evaluate(obj.scores(v.reshape(2, 3)))
        wp, wm = obj.gradient_parts()
        return loss, (wp - wm).ravel()

    best = scipy.optimize.minimize(f, np.zeros(6), jac=True, method="L-BFGS-B").fun
    assert losses[-1] - best < 1e-3
    assert bounds[-1] < 1e-6


def test_generalized_error_metric_matches_brute_force():
    rng = np.random.default_rng(5)
    Y = rng.random((40, 6)) < 0.35
    S = rng.integers(0, 4, size=(40, 6)).astype(float)  # many ties: ties count as errors
    rows = [i for i in range(40) if 0 < Y[i].sum() < 6]

    def brute(i):
        rel, irr = np.flatnonzero(Y[i]), np.flatnonzero(~Y[i])
        bad = [S[i, a] <= S[i, b] for a, b in itertools.product(rel, irr)]
        return {"0-1": float(any(bad)), "dis": np.mean(bad),
                "Dom": np.mean([any(S[i, a] <= S[i, b] for b in irr) for a in rel]),
                "dom": np.mean([any(S[i, a] <= S[i, b] for a in rel) for b in irr])}

    for d in DECOMPOSITIONS:
        assert generalized_error(Y, S, d) == pytest.approx(np.mean([brute(i)[d] for i in rows]))


def test_layered_graph_and_calibration_label():
    """Layer 1 = relevant, layer 2 = their siblings, layer 3 = the rest (SPEC A.8); ⊥ between 1 and 2."""
    parents = np.array([-1, -1, 0, 0, 1])  # 2, 3 under 0; 4 under 1
    g = layered(np.array([[0, 0, 1, 0, 0]]), parents)
    edges = set(zip(g.init.tolist(), g.term.tolist()))
    assert edges == {(2, 3), (2, 0), (2, 1), (2, 4), (3, 0), (3, 1), (3, 4)}
    c = bipartite(np.array([[1, 0, 1]]), calibration=True)
    assert set(zip(c.init.tolist(), c.term.tolist())) == {(0, 3), (2, 3), (3, 1), (0, 1), (2, 1)}


def test_bad_graphs_and_parameters_are_refused():
    with pytest.raises(ValueError, match="self-loop"):
        from_edge_lists([[(1, 1)]], 3)
    with pytest.raises(ValueError, match="given twice"):
        from_edge_lists([[(0, 1), (0, 1)]], 3)
    with pytest.raises(ValueError, match="outside 0..2"):
        from_edge_lists([[(0, 3)]], 3)
    with pytest.warns(UserWarning, match="opposite edges"):
        from_edge_lists([[(0, 1), (1, 0)]], 3)
    X, Y = np.random.default_rng(0).random((10, 3)), np.eye(10, 4)[:, :4]
    with pytest.raises(ValueError, match="decomposition"):
        LabelRankingBooster(decomposition="DOM").fit(X, Y)
    with pytest.raises(ValueError, match="hierarchy"):
        LabelRankingBooster(graph="layered").fit(X, Y)
    with pytest.raises(ValueError, match="cycle"):
        LabelRankingBooster(graph="layered", hierarchy=[1, 0, -1, -1]).fit(X, Y)
    with pytest.raises(ValueError, match="graphs: 2 preference graphs for 10"):
        LabelRankingBooster().fit(X, Y, graphs=[[], []])


def _emotions(folder):
    from engine.datasets import load

    return load(folder / "emotions.arff")


def test_booster_on_emotions_keeps_theorem_1_and_learns(tmp_path, shared_data):
    """Theorem 1 at every step on real data (decrease ≥ bound), the loss never increases, and
    the ranking is far better than chance on held-out data; the model round-trips through a file."""
    d = _emotions(shared_data)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(d.Y))
    tr, te = idx[:400], idx[400:]
    est = LabelRankingBooster(decomposition="Dom", max_iterations=150)
    steps = list(est.fit_iter(d.X[tr], d.Y[tr], d.X[te], d.Y[te]))
    assert [s.index for s in steps] == list(range(len(steps))) and all(s.kind == "update" for s in steps)
    slack = np.array([s.metrics["slack"] for s in steps])
    loss = np.array([s.metrics["train_loss"] for s in steps])
    assert (slack >= -1e-9 * loss).all()
    assert (np.diff(loss) <= 1e-9).all()
    last = steps[-1].metrics
    assert last["test_rank_loss"] < 0.25 and last["test_average_precision"] > 0.7  # chance: ~0.5 and ~0.45
    S = est.decision_function(d.X[te])
    assert last["test_dis"] == pytest.approx(generalized_error(d.Y[te], S, "dis"))
    assert last["test_hamming"] == pytest.approx(np.mean(est.predict(d.X[te]) != d.Y[te]))
    np.testing.assert_array_equal(est.rank(d.X[te])[:, 0], np.argmax(S, axis=1))
    path = tmp_path / "ranker.json"
    est.save(path)
    again = load_estimator(path)
    np.testing.assert_allclose(again.decision_function(d.X[te]), S)
    # a tampered file is refused with a message naming the field
    doc = json.loads(path.read_text())
    doc["model"]["coefficients"][3][1] = "NaN"
    with pytest.raises(ValueError, match=r"coefficients\[3\]\[1\]"):
        estimator_from_document(doc)
    doc = json.loads(path.read_text())
    doc["model"]["base_features"]["scale"] = [1.0]
    with pytest.raises(ValueError, match="scale"):
        estimator_from_document(doc)


@pytest.mark.parametrize("features,update,threshold", [("thresholds", "sequential", "cardinality"),
                                                        ("per-label", "sequential", "calibration-label")])
def test_other_variants_learn(features, update, threshold, shared_data):
    d = _emotions(shared_data)
    est = LabelRankingBooster(features=features, update=update, threshold=threshold, max_iterations=200)
    steps = list(est.fit_iter(d.X[:400], d.Y[:400]))
    assert steps[-1].metrics["train_dis"] < 0.8 * steps[0].metrics["train_dis"]
    if update == "sequential":  # one base function per step
        assert all(s.component.n_changed <= 1 for s in steps)
    if threshold == "cardinality":
        assert (est.predict(d.X[400:]).sum(1) == est.cardinality_).all()


def test_cancel_stops_between_iterations():
    X, Y = np.random.default_rng(1).random((50, 4)), np.random.default_rng(2).random((50, 3)) < 0.5
    event = threading.Event()
    est = LabelRankingBooster(max_iterations=100)
    got = []
    for step in est.fit_iter(X, Y, cancel=event):
        got.append(step)
        if len(got) == 4:
            event.set()
    assert len(got) == 4
    assert est.predict(X).shape == (50, 3)
