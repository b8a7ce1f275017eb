"""Why a head has its values: the statistics recomputed from the model reproduce every head, and
the loss change is the brute-force difference of the training losses."""
from __future__ import annotations

import numpy as np
import pytest

from engine import BoomerClassifier
from engine.core.losses import LOSS_CODES, example_loss
from engine.datasets import make_synthetic
from engine.head_explanation import head_statistics


@pytest.fixture(scope="module")
def data():
    return make_synthetic("conditional-dependence", 400, 5, seed=3)


@pytest.mark.parametrize("params", [
    dict(loss="logistic-decomposable", head_type="single"),
    dict(loss="logistic-decomposable", head_type="complete"),
    dict(loss="logistic-non-decomposable", head_type="complete", label_binning="none"),
    dict(loss="logistic-non-decomposable", head_type="single"),
    dict(loss="logistic-non-decomposable", head_type="partial-fixed", label_binning="none"),  # auto bins them
    dict(loss="squared-error-decomposable", head_type="complete", holdout="random"),
])
def test_recomputed_heads_equal_the_learned_ones(data, params):
    est = BoomerClassifier(max_rules=12, shrinkage=0.3, l2_regularization_weight=0.7, random_state=2, **params)
    est.fit(data.X, data.Y)
    for i in range(len(est.model_.rules)):
        st = head_statistics(est, data.X, data.Y, i)
        assert st.shrinkage == (1.0 if i == 0 else 0.3)
        np.testing.assert_allclose(st.recomputed_head, st.head, rtol=1e-7, atol=1e-9)


def test_statistics_and_loss_change_by_brute_force(data):
    est = BoomerClassifier(loss="logistic-decomposable", head_type="complete", max_rules=6,
                           l2_regularization_weight=1.0).fit(data.X, data.Y)
    i = 4
    st = head_statistics(est, data.X, data.Y, i)
    rules = est.model_.rules
    F = sum(np.outer(r.covers(data.X), r.dense_head(data.Y.shape[1])) for r in rules[:i])
    covered = rules[i].covers(data.X)
    y = np.where(data.Y > 0, 1.0, -1.0)
    p = 1.0 / (1.0 + np.exp(y * F))  # the logistic loss's gradient is -y / (1 + exp(y f))
    g = (-y * p)[covered].sum(axis=0)
    h = (p * (1 - p))[covered].sum(axis=0)
    np.testing.assert_allclose(st.gradient_sums, g[st.labels], rtol=1e-9)
    np.testing.assert_allclose(st.hessian_sums, h[st.labels], rtol=1e-9)
    np.testing.assert_allclose(st.solution, -g[st.labels] / (h[st.labels] + 1.0), rtol=1e-9)  # eq. (14)
    assert st.n_covered == covered.sum()
    np.testing.assert_allclose(st.relevant_share, (data.Y[covered][:, st.labels] > 0).mean(axis=0))
    code = LOSS_CODES["logistic-decomposable"]
    ys = (data.Y > 0).astype(np.uint8)
    after = F + np.outer(covered, rules[i].dense_head(data.Y.shape[1]))
    mean = lambda S: np.mean([example_loss(code, ys[j], S[j]) for j in range(len(S))])  # noqa: E731
    assert st.loss_before == pytest.approx(mean(F), rel=1e-10)
    assert st.loss_after == pytest.approx(mean(after), rel=1e-10)
    assert st.loss_after < st.loss_before


def test_other_learners_are_refused(data):
    from engine import SeCoClassifier

    est = SeCoClassifier(max_rules=3).fit(data.X, data.Y)
    with pytest.raises(ValueError, match="BOOMER"):
        head_statistics(est, data.X, data.Y, 1)
