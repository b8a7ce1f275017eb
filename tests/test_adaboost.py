"""AdaBoost.MH: hand-worked boosting rounds, the training-error bound, the r = ±1 guard,
real data, persistence and the estimator protocol."""
from __future__ import annotations

import json
import math

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from engine import AdaBoostMHClassifier
from engine.adaboost import ALPHA_MAX
from engine.learner import RuleLearner
from engine.registry import get

# A 4-example, 2-label problem on one attribute.
X4 = np.array([[1.0], [2.0], [3.0], [4.0]])
Y4 = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # ../shared/data


def hypotheses(est, X):
    """Per round: (alpha, h) with h the N x K matrix of votes in {-1, 0, +1}, rebuilt from the
    model's rules (two per round for stumps, one for rules)."""
    per_round = 2 if est.weak_learner == "stump" else 1
    rules = est.rules_
    assert len(rules) == per_round * len(est.records_)
    out = []
    for t in range(len(est.records_)):
        h = np.zeros((X.shape[0], est.n_labels_))
        alpha = None
        for rule in rules[per_round * t:per_round * (t + 1)]:
            a = np.abs(rule.head_scores)
            assert np.allclose(a, a[0])  # one confidence per round
            alpha = a[0]
            mask = rule.covers(np.asarray(X, dtype=np.float64))
            assert not (h[mask] != 0).any()  # the two sides of a stump are disjoint
            h[np.ix_(mask, rule.head_labels)] = np.sign(rule.head_scores)
        out.append((alpha, h))
    return out


def replay(est, X, Y):
    """Re-run the distribution updates from the rules and check every recorded quantity."""
    Ys = np.where(np.asarray(Y) > 0, 1.0, -1.0)
    n, K = Ys.shape
    D = np.full((n, K), 1.0 / (n * K))
    bound = 1.0
    F = np.zeros((n, K))
    for (alpha, h), record in zip(hypotheses(est, X), est.records_):
        e = record.extra
        assert alpha == pytest.approx(e["alpha"], rel=1e-12)
        assert np.isfinite(alpha) and 0 < alpha <= ALPHA_MAX
        r = float((D * Ys * h).sum())
        assert r == pytest.approx(e["r"], abs=1e-12)
        Z = float((D * np.exp(-alpha * Ys * h)).sum())  # the actual normaliser
        assert Z == pytest.approx(e["Z"], rel=1e-9)
        w0 = D[h == 0].sum()
        wp = D[Ys * h > 0].sum()
        wm = D[Ys * h < 0].sum()
        if wm > 0 and 0.5 * math.log(wp / wm) < ALPHA_MAX:
            # The optimal confidence and its normaliser Z = W0 + 2 sqrt(W+ W-).
            assert alpha == pytest.approx(0.5 * math.log(wp / wm), rel=1e-9)
            assert Z == pytest.approx(w0 + 2 * math.sqrt(wp * wm), rel=1e-9)
            if w0 == 0:
                assert Z == pytest.approx(math.sqrt(1 - r * r), rel=1e-9)
        D = D * np.exp(-alpha * Ys * h) / Z
        bound *= Z
        assert bound == pytest.approx(e["bound"], rel=1e-9)
        F += alpha * h
        hamming = float(((F > 0) != (np.asarray(Y) > 0)).mean())
        assert hamming == pytest.approx(record.train_hamming)
        assert record.train_hamming <= bound + 1e-12  # Schapire & Singer, Theorem 10
    return D


def test_two_hand_worked_stump_rounds():
    est = AdaBoostMHClassifier(max_rules=2).fit(X4, Y4)
    # Round 1: D_1 = 1/8 everywhere; y = (+,-), (+,-), (-,+), (-,-).
    # Thresholds 1.5 / 2.5 / 3.5 give r = sum over sides and labels of |sum D y|:
    #   t=1.5: left {1}: 1/8 + 1/8; right {2,3,4}: |1-1-1|/8 + |-1+1-1|/8  -> r = 4/8
    #   t=2.5: left {1,2}: 2/8 + 2/8; right {3,4}: 2/8 + 0                 -> r = 6/8
    #   t=3.5: left {1,2,3}: 1/8 + 1/8; right {4}: 1/8 + 1/8              -> r = 4/8
    # Best t = 2.5, r = 3/4: votes left (+1, -1), right (-1, +1 on the tie).  Only (4, y1) is wrong:
    # W+ = 7/8, W- = 1/8, alpha = 1/2 ln 7, Z = 2 sqrt(7/64) = sqrt(1 - 9/16) = sqrt(7)/4.
    r1, r2 = est.records_
    assert r1.extra["r"] == pytest.approx(0.75)
    assert r1.extra["alpha"] == pytest.approx(0.5 * math.log(7))
    assert r1.extra["Z"] == pytest.approx(math.sqrt(7) / 4)
    assert r1.train_hamming == pytest.approx(1 / 8)
    a1 = 0.5 * math.log(7)
    left, right = est.rules_[:2]
    assert str(left.conditions[0]) and left.conditions[0].operator == "<=" and left.conditions[0].threshold == 2.5
    assert right.conditions[0].operator == ">" and right.conditions[0].threshold == 2.5
    np.testing.assert_allclose(left.head_scores, [a1, -a1])
    np.testing.assert_allclose(right.head_scores, [-a1, a1])
    assert r1.rule is left
    # D_2: right pairs 1/8 e^-a / Z = (1/8) / (sqrt 7 * sqrt 7 / 4) = 1/14; the wrong pair
    # (1/8) e^a / Z = (1/8) sqrt 7 * 4 / sqrt 7 = 1/2.
    # Round 2, A = D y: ex1, ex2 (+1/14, -1/14); ex3 (-1/14, +1/14); ex4 (-1/14, -1/2):
    #   t=1.5: 2/14 + |1-1-1|/14 + |-1+1-7|/14 = 10/14
    #   t=2.5: 4/14 + 2/14 + |1-7|/14           = 12/14
    #   t=3.5: 2/14 + 1/14 + 7/14               = 10/14
    # Best t = 2.5 again, r = 6/7, votes left (+1, -1), right (-1, -1); (3, y1) is wrong, W- = 1/14.
    # alpha = 1/2 ln 13, Z = 2 sqrt(13/196) = sqrt(13)/7 = sqrt(1 - 36/49).
    assert r2.extra["r"] == pytest.approx(6 / 7)
    assert r2.extra["alpha"] == pytest.approx(0.5 * math.log(13))
    assert r2.extra["Z"] == pytest.approx(math.sqrt(13) / 7)
    assert r2.extra["bound"] == pytest.approx(math.sqrt(7) / 4 * math.sqrt(13) / 7)
    a2 = 0.5 * math.log(13)
    np.testing.assert_allclose(est.rules_[3].head_scores, [-a2, -a2])
    # F(ex3, y1) = a1 - a2 < 0 although y = 1: one wrong pair of 8.
    assert r2.train_hamming == pytest.approx(1 / 8)
    np.testing.assert_array_equal(est.predict(X4), [[1, 0], [1, 0], [0, 0], [0, 0]])
    np.testing.assert_allclose(est.decision_function(X4)[2], [-a1 - a2, a1 - a2])
    D3 = replay(est, X4, Y4)
    assert D3.sum() == pytest.approx(1.0)


def test_hand_worked_rule_round_with_abstention_and_guard():
    est = AdaBoostMHClassifier(max_rules=1, weak_learner="rule").fit(X4, Y4)
    # Candidate bodies score Z = (1 - W) + sqrt(W^2 - r^2) (abstaining outside):
    #   {} : W = 1, r = 0 + 2/8            -> sqrt(1 - 1/16) = 0.968
    #   x <= 1.5: W = 2/8, r = 2/8 (pure)  -> 0.75      x > 1.5: W = 6/8, r = 2/8 -> 0.957
    #   x <= 2.5: W = 4/8, r = 4/8 (pure)  -> 0.5       x > 2.5: W = 4/8, r = 2/8 -> 0.933
    #   x <= 3.5: W = 6/8, r = 2/8         -> 0.957     x > 3.5: W = 2/8, r = 2/8 -> 0.75
    # x <= 2.5 wins and no further condition lowers Z.  It votes (+1, -1) on {1, 2} without an
    # error: W- = 0, the optimal confidence is infinite and capped at ALPHA_MAX; the normaliser
    # is W0 + W+ e^-alpha = 1/2 + 1/2 e^-ALPHA_MAX.
    (record,) = est.records_
    assert [str(c.to_text()) for c in record.rule.conditions] == ["f0 <= 2.5"]
    assert record.extra["alpha"] == ALPHA_MAX
    assert record.extra["r"] == pytest.approx(0.5)
    assert record.extra["abstained"] == pytest.approx(0.5)
    assert record.extra["Z"] == pytest.approx(0.5 + 0.5 * math.exp(-ALPHA_MAX), rel=1e-12)
    np.testing.assert_allclose(record.rule.head_scores, [ALPHA_MAX, -ALPHA_MAX])
    replay(est, X4, Y4)


def test_separable_data_give_finite_confidences():
    Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    est = AdaBoostMHClassifier(max_rules=5).fit(X4, Y)
    for record in est.records_:
        # r = 1: every pair right, alpha capped, Z = e^-ALPHA_MAX.
        assert record.extra["r"] == pytest.approx(1.0)
        assert record.extra["alpha"] == ALPHA_MAX
        assert record.extra["Z"] == pytest.approx(math.exp(-ALPHA_MAX))
        assert record.train_hamming == 0.0
    assert np.isfinite(est.decision_function(X4)).all()
    np.testing.assert_array_equal(est.predict(X4), Y)
    replay(est, X4, Y)


def random_problem(seed, n=80, K=4):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n), rng.random(n) * (rng.random(n) < 0.5),
                         rng.normal(size=n)]).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan  # stumps abstain on missing values
    Y = (rng.random((n, K)) < 0.35).astype(np.uint8)
    Y[:, 0] |= (X[:, 1] == 2)
    Y[:, 1] |= np.nan_to_num(X[:, 0]) > 0.5
    return X, Y


@pytest.mark.parametrize("weak_learner", ["stump", "rule"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hamming_loss_never_exceeds_the_bound(weak_learner, seed):
    X, Y = random_problem(seed)
    est = AdaBoostMHClassifier(max_rules=40, weak_learner=weak_learner, max_conditions=3)
    est.fit(X, Y, nominal_attributes=[1])
    assert len(est.records_) == 40
    bounds = [r.extra["bound"] for r in est.records_]
    assert all(b2 <= b1 for b1, b2 in zip(bounds, bounds[1:]))  # every Z_t < 1
    replay(est, X, Y)  # Z is the actual normaliser and train_hamming <= prod Z, round by round
    np.testing.assert_array_equal(est.predict(X), (est.decision_function(X) > 0).astype(np.uint8))


def test_validation_losses_and_sparse_input():
    X, Y = random_problem(5)
    X0 = np.nan_to_num(X, nan=0.0)
    dense = AdaBoostMHClassifier(max_rules=15).fit(X0[:60], Y[:60], X_test=X0[60:], Y_test=Y[60:])
    sparse = AdaBoostMHClassifier(max_rules=15).fit(sp.csr_matrix(X0[:60]), Y[:60])
    assert dense.rules_ == sparse.rules_
    last = dense.records_[-1]
    assert last.test_hamming == pytest.approx(float((dense.predict(X0[60:]) != Y[60:]).mean()))
    assert last.test_subset == pytest.approx(float((dense.predict(X0[60:]) != Y[60:]).any(axis=1).mean()))


def test_stopping_fit_iter_keeps_both_sides_of_each_stump():
    X, Y = random_problem(3)
    est = AdaBoostMHClassifier(max_rules=50)
    it = est.fit_iter(X, Y)
    for _ in range(3):
        next(it)
    it.close()
    assert len(est.records_) == 3 and len(est.rules_) == 6
    full = AdaBoostMHClassifier(max_rules=3).fit(X, Y)
    np.testing.assert_allclose(est.decision_function(X), full.decision_function(X))


@pytest.mark.parametrize("weak_learner", ["stump", "rule"])
def test_save_and_reload_predict_identically(tmp_path, weak_learner):
    X, Y = random_problem(4)
    est = AdaBoostMHClassifier(max_rules=20, weak_learner=weak_learner).fit(X, Y, nominal_attributes=[1])
    path = tmp_path / "model.json"
    est.save(path)
    again = AdaBoostMHClassifier.from_model_dict(json.loads(path.read_text()))
    assert again.get_params() == est.get_params()
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    np.testing.assert_allclose(again.decision_function(X), est.decision_function(X))


def test_estimator_protocol_and_parameter_errors():
    est = AdaBoostMHClassifier(max_rules=7, weak_learner="rule", max_conditions=2, random_state=3)
    assert isinstance(est, RuleLearner)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    X, Y = random_problem(0)
    for bad in ({"max_rules": 0}, {"weak_learner": "tree"}, {"max_conditions": 0}, {"feature_sampling": "x"},
                {"random_state": -1}):
        with pytest.raises(ValueError):
            AdaBoostMHClassifier(**bad).fit(X, Y)
    with pytest.raises(ValueError, match="not fitted"):
        AdaBoostMHClassifier().predict(X)
    with pytest.raises(ValueError):
        AdaBoostMHClassifier().fit(X, Y[:10])
    sampled = AdaBoostMHClassifier(max_rules=10, feature_sampling="without-replacement", random_state=3)
    assert sampled.fit(X, Y).rules_ == clone(sampled).fit(X, Y).rules_


def test_registry_entry_and_presets():
    spec = get("adaboost-mh")
    assert spec.factory is AdaBoostMHClassifier
    assert set(spec.presets) >= {"Stumps", "Rules"}
    for preset in spec.presets.values():
        assert isinstance(spec.make(**preset), AdaBoostMHClassifier)
    assert set(spec.defaults()) == set(AdaBoostMHClassifier().get_params())


@pytest.fixture(scope="module")
def emotions():
    try:
        from engine.datasets import load
    except ImportError:
        pytest.skip("engine.datasets.load is not available")
    path = DATA_DIR / "emotions.arff"
    if not path.exists():
        pytest.skip(f"emotions.arff not found in {DATA_DIR}")
    data = load(path)
    return data.train_test_split(1 / 3, seed=0)


@pytest.mark.parametrize("weak_learner, max_conditions", [("stump", None), ("rule", 3)])
def test_emotions_beats_the_all_negative_predictor(emotions, weak_learner, max_conditions):
    train, test = emotions
    est = AdaBoostMHClassifier(max_rules=100, weak_learner=weak_learner, max_conditions=max_conditions)
    est.fit_dataset(train, test=test)
    trivial = float(test.Y.mean())  # Hamming loss of predicting every label absent
    hamming = float((est.predict(test.X) != test.Y).mean())
    assert hamming < trivial - 0.03
    assert est.records_[-1].test_hamming == pytest.approx(hamming)
    assert all(r.train_hamming <= r.extra["bound"] + 1e-12 for r in est.records_)
