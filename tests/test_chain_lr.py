"""Classifier chains of logistic regressions (ML-ME's baseline): a proper distribution, sklearn's
optimum, predictions fed down the chain, checked model files, registry streaming."""
import itertools
import json

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from engine import LogisticChainClassifier, registry
from engine.mlme.design import design, standardiser
from engine.persistence import estimator_from_document


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y0 = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(np.uint8)
    y1 = ((X[:, 1] > 0) ^ (rng.random(200) < 0.1)).astype(np.uint8)
    y2 = (y0 & (X[:, 2] > -0.5)).astype(np.uint8)
    return X, np.column_stack([y0, y1, y2])


def test_the_chain_is_a_distribution_over_label_vectors(problem):
    X, Y = problem
    cc = LogisticChainClassifier(l2=1.0).fit(X, Y)
    vectors = np.array(list(itertools.product([0, 1], repeat=3)), dtype=np.uint8)
    for x in X[:5]:
        ll = cc.log_likelihood(np.repeat(x[None], len(vectors), 0), vectors)
        assert np.exp(ll).sum() == pytest.approx(1.0, abs=1e-10)


def test_first_link_is_sklearns_l2_logistic_regression(problem):
    X, Y = problem
    l2 = 2.0
    cc = LogisticChainClassifier(l2=l2, order=[1, 0, 2]).fit(X, Y)
    mean, scale = standardiser(X)
    Z = design(X, mean, scale)[:, 1:]
    ref = LogisticRegression(C=1.0 / l2, tol=1e-10, max_iter=10000).fit(Z, Y[:, 1])
    assert cc.coef_[0][0] == pytest.approx(ref.intercept_[0], abs=1e-4)
    assert cc.coef_[0][1:] == pytest.approx(ref.coef_[0], abs=1e-4)
    assert len(cc.coef_[2]) == 1 + X.shape[1] + 2  # the last link reads both labels before it


def test_predictions_flow_down_the_chain():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 2))
    y = (X[:, 0] > 0).astype(np.uint8)
    cc = LogisticChainClassifier(l2=0.1).fit(X, np.column_stack([y, y]))  # the second label copies the first
    T = rng.normal(size=(100, 2))
    P = cc.predict(T)
    assert np.array_equal(P[:, 1], P[:, 0])
    assert np.mean(P[:, 0] == (T[:, 0] > 0)) > 0.9


def test_steps_stream_one_label_each_with_metrics(problem):
    X, Y = problem
    spec = registry.get("cc-lr")
    steps = list(spec.make().fit_iter(X[:150], Y[:150], X[150:], Y[150:]))
    assert [s.kind for s in steps] == ["label"] * 3 and [s.component.label for s in steps] == [0, 1, 2]
    assert steps[-1].metrics["test_subset"] <= steps[0].metrics["test_subset"] + 1e-12
    assert "test_cll" in steps[-1].metrics and "test_cll" not in steps[0].metrics
    assert spec.component.inspect(steps[1], None).startswith("<h3>Link 2")


def test_model_file_round_trip_and_tampering(problem):
    X, Y = problem
    cc = LogisticChainClassifier(l2=1.0).fit(X, Y)
    doc = json.loads(json.dumps(cc.to_model_dict()))
    back = estimator_from_document(doc)
    assert np.array_equal(back.predict(X), cc.predict(X))
    assert np.allclose(back.log_likelihood(X, Y), cc.log_likelihood(X, Y))
    for field, value, message in (("order", [0, 0, 1], "permutation"), ("coef", [[1.0, 2.0]], "entries"),
                                  ("prior", [0.5, 2.0, 0.1], "\\[0, 1\\]"), ("scale", [0, 1, 1, 1], "positive")):
        bad = json.loads(json.dumps(doc))
        bad["model"][field] = value
        with pytest.raises(ValueError, match=message):
            estimator_from_document(bad)
    with pytest.raises(ValueError, match="permutation"):
        LogisticChainClassifier(order=[0, 1]).fit(X, Y)
