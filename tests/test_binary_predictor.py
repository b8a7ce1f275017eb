"""mlrl-boomer's binary and probability predictors (engine.predictors): GFM against a brute force over
all label vectors, the example-wise and marginalized predictors by hand, 'auto' resolution, the
refusals of losses without probabilities, calibration fitted on the holdout set, and model files."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from engine.boomer import BoomerClassifier, holdout_kind
from engine.model import RuleModel
from engine.predictors import (Predictors, closest_vector, gfm_predict, joint_outcomes, known_label_vectors,
                               normalised, resolve_binary, resolve_probability)


def _f1(y: np.ndarray, h: np.ndarray) -> float:
    tp = float(np.sum(y & h))
    denominator = float(np.sum(y) + np.sum(h))
    return 1.0 if denominator == 0 else 2 * tp / denominator


@pytest.mark.parametrize("K", [1, 2, 3, 4, 5, 6])
def test_gfm_maximizes_the_expected_f_measure_over_all_label_vectors(K):
    rng = np.random.default_rng(K)
    every = np.array(list(itertools.product([0, 1], repeat=K)), dtype=np.uint8)
    for _ in range(20):
        vectors = every[rng.choice(len(every), size=int(rng.integers(1, len(every) + 1)), replace=False)]
        J = normalised(rng.random((3, len(vectors))) ** 3)
        chosen = gfm_predict(J, vectors)
        for n in range(3):
            expected = [sum(J[n, m] * _f1(vectors[m].astype(bool), h.astype(bool)) for m in range(len(vectors)))
                        for h in every]
            got = sum(J[n, m] * _f1(vectors[m].astype(bool), chosen[n].astype(bool)) for m in range(len(vectors)))
            assert got == pytest.approx(max(expected), abs=1e-12)


def test_marginalized_probabilities_are_the_label_shares_of_the_joints():
    Y = np.array([[1, 0, 1], [0, 0, 0], [1, 0, 1], [0, 1, 0]])
    pred = Predictors.of("logistic-non-decomposable", "auto", "auto", Y)
    assert pred.probability == "marginalized" and pred.binary == "example-wise"
    F = np.array([[0.3, -1.0, 2.0], [-2.0, 0.5, 0.1]])
    p = 1 / (1 + np.exp(-F))
    joints = np.array([[np.prod(np.where(v, p[n], 1 - p[n])) for v in pred.vectors] for n in range(2)])
    joints /= joints.sum(axis=1, keepdims=True)
    expected = joints @ pred.vectors
    np.testing.assert_allclose(pred.probabilities(F), expected)
    # label 1 appears only in [0, 1, 0]; label 0 and 2 only together
    np.testing.assert_allclose(pred.probabilities(F)[:, 0], pred.probabilities(F)[:, 2])


def test_known_label_vectors_keep_first_seen_order_and_count():
    Y = np.array([[0, 1], [1, 1], [0, 1], [0, 0], [1, 1], [0, 1]])
    vectors, counts = known_label_vectors(Y)
    assert vectors.tolist() == [[0, 1], [1, 1], [0, 0]] and counts.tolist() == [3, 2, 1]


def test_closest_vector_prefers_the_more_frequent_on_ties_and_never_a_nan():
    d = np.array([[0.5, 0.2, 0.2, 0.9], [np.nan, 0.1, 0.0, 0.0], [0.3, np.nan, 0.3, 0.1]])
    assert closest_vector(d, np.array([1, 2, 5, 5])).tolist() == [2, 0, 3]


def test_example_wise_on_probabilities_takes_the_most_probable_known_vector():
    Y = np.array([[1, 0], [0, 1], [0, 1], [1, 1]])
    pred = Predictors.of("logistic-decomposable", "example-wise{based_on_probabilities=true}", "auto", Y)
    F = np.array([[3.0, 2.0], [2.0, -3.0], [-0.1, -0.2], [0.0, 0.0]])
    # [1, 1] most probable for row 0; [1, 0] for row 1; row 2: [0, 0] is unknown, [1, 0] (0.475 x 0.55)
    # beats [0, 1] (0.525 x 0.45); row 3: every vector 0.25, the most frequent [0, 1] wins
    assert pred.binary_predictions(F).tolist() == [[1, 1], [1, 0], [1, 0], [0, 1]]


def test_joint_outcomes_compare_a_prefix_like_the_reference():
    Y = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 1]])
    vectors = np.array([[1, 0, 0], [1, 0, 1], [0, 0, 0], [0, 0, 1]])
    # {0} matches {0, 2} (a prefix); the empty vector matches everything; {2} is no prefix of {1, 2}
    assert joint_outcomes(Y, vectors).tolist() == [[1, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 0], [0, 0, 1, 0]]


@pytest.mark.parametrize("loss, binary, probability", [
    ("logistic-decomposable", "output-wise", "output-wise"),
    ("squared-error-decomposable", "output-wise", "output-wise"),
    ("logistic-non-decomposable", "example-wise", "marginalized"),
    ("squared-hinge-non-decomposable", "example-wise", "marginalized"),
])
def test_auto_resolves_by_the_loss(loss, binary, probability):
    assert resolve_binary(loss, "auto")[0] == binary and resolve_probability(loss, "auto")[0] == probability
    assert BoomerClassifier(loss=loss).prediction == ("label-wise" if binary == "output-wise" else "example-wise")


def _data(n=120, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = ((X[:, :k] + 0.5 * rng.normal(size=(n, k))) > 0).astype(np.uint8)
    return X, Y


@pytest.mark.parametrize("loss", ["squared-error-decomposable", "squared-hinge-non-decomposable"])
def test_losses_without_probabilities_refuse_them(loss):
    X, Y = _data()
    est = BoomerClassifier(loss=loss, max_rules=4).fit(X, Y)
    with pytest.raises(AttributeError, match="not supported"):
        est.predict_proba(X)
    with pytest.raises(AttributeError, match="not supported"):
        BoomerClassifier(loss=loss, max_rules=4, binary_predictor="gfm").fit(X, Y).predict(X)
    assert est.predict(X).shape == Y.shape  # binary predictions from the scores still work


@pytest.mark.parametrize("settings", [
    {"binary_predictor": "gfm{based_on_probabilities=true}"},
    {"probability_predictor": "auto{use_probability_calibration=true}"},
    {"marginal_probability_calibration": "auto"},
    {"marginal_probability_calibration": "isotonic{use_holdout_set=maybe}"},
    {"binary_predictor": "Gfm"},
    {"joint_probability_calibration": "platt"},
])
def test_invalid_predictor_values_are_refused(settings):
    X, Y = _data()
    with pytest.raises(ValueError):
        BoomerClassifier(max_rules=3, **settings).fit(X, Y)


def test_example_wise_model_probabilities_do_not_contradict_its_predictions():
    """An example-wise model predicts the most probable known vector (based on probabilities) and its
    marginalized probabilities come from the same joints: a label of the predicted vector never has
    a smaller probability than the most probable vector's share of the mass."""
    X, Y = _data(seed=2)
    est = BoomerClassifier(loss="logistic-non-decomposable", max_rules=15, feature_sampling="none",
                           binary_predictor="example-wise{based_on_probabilities=true}").fit(X, Y)
    P, H = est.predict_proba(X), est.predict(X)
    pred = est.model_.predictors
    J = normalised(pred.joints(est.decision_function(X)))
    top = J.max(axis=1)
    assert np.all(P[H.astype(bool)] >= np.repeat(top, H.sum(axis=1).astype(np.int64)) - 1e-12)
    assert {tuple(r) for r in H} <= {tuple(v) for v in pred.vectors}
    np.testing.assert_allclose(P, J @ pred.vectors)


def test_calibration_needs_and_uses_the_holdout_set():
    assert holdout_kind("auto", "none", "isotonic") == "stratified-output-wise"
    assert holdout_kind("auto", "none", "none", "isotonic{use_holdout_set=false}") == "none"
    X, Y = _data(n=150)
    est = BoomerClassifier(max_rules=8, marginal_probability_calibration="isotonic").fit(X, Y)
    rows = est.holdout_indices_
    assert rows is not None and 0 < len(rows) < len(Y)
    pred = est.model_.predictors
    # the bins come from the holdout examples' scores: refit them by hand
    from engine.calibration import IsotonicCalibration
    from engine.boomer import _float32_scores

    F = _float32_scores(est.model_, X[rows].astype(np.float32))
    by_hand = IsotonicCalibration.fit(1 / (1 + np.exp(-F.astype(np.float32))).astype(np.float64), Y[rows])
    for a, b in zip(pred.marginal.values + pred.marginal.thresholds, by_hand.values + by_hand.thresholds):
        np.testing.assert_allclose(a, b, atol=1e-7)
    P = est.predict_proba(X)
    assert np.all((P >= 0) & (P <= 1)) and not np.allclose(P, 1 / (1 + np.exp(-est.decision_function(X))))
    uncalibrated = BoomerClassifier(max_rules=8, marginal_probability_calibration="isotonic",
                                    probability_predictor="output-wise{use_probability_calibration=false}").fit(X, Y)
    np.testing.assert_allclose(uncalibrated.predict_proba(X), 1 / (1 + np.exp(-uncalibrated.decision_function(X))))


def test_model_files_keep_predictors_and_calibration_and_check_them():
    X, Y = _data(n=150)
    est = BoomerClassifier(loss="logistic-non-decomposable", max_rules=6, binary_predictor="gfm",
                           marginal_probability_calibration="isotonic",
                           joint_probability_calibration="isotonic").fit(X, Y)
    doc = json.loads(json.dumps(est.to_model_dict()))
    back = BoomerClassifier.from_model_dict(doc)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))
    model = doc["model"]
    for key, value, message in [("binary", "best", "binary"), ("based_on_probabilities", 1, "true or false"),
                                ("frequencies", [1], "frequencies"), ("loss", "squared-error-decomposable", "loss"),
                                ("joint_calibration", [[]], "lists"), ("label_vectors", [[0, 2, 1]], "0 or 1")]:
        bad = json.loads(json.dumps(model))
        bad["predictors"][key] = value
        with pytest.raises(ValueError, match=message):
            RuleModel.from_dict(bad)


@pytest.mark.parametrize("loss", ["logistic-non-decomposable", "logistic-decomposable", "squared-error-non-decomposable",
                                  "squared-hinge-decomposable"])
def test_loss_based_example_wise_is_eq19_and_breaks_ties_by_frequency(loss):
    """Without ties the predictors' eq. (19) is the brute-force arg-min of the loss (engine.core.losses)
    over the known vectors; with every score 0 (an example no rule covers when there is no default
    rule) every known vector is as close, and the most frequent one is predicted, as mlrl-boomer does."""
    from engine.core.losses import LOSS_CODES, example_loss

    rng = np.random.default_rng(4)
    Y = (rng.random((60, 4)) < 0.35).astype(np.uint8)
    pred = Predictors.of(loss, "example-wise", "auto", Y)
    F = rng.normal(scale=2.0, size=(40, 4))
    signs = (pred.vectors > 0).astype(np.uint8)
    brute = [pred.vectors[np.argmin([example_loss(LOSS_CODES[loss], s, f) for s in signs])] for f in F]
    np.testing.assert_array_equal(pred.binary_predictions(F), np.array(brute))
    if loss.startswith("logistic"):
        assert pred.binary_predictions(np.zeros((1, 4)))[0].tolist() == pred.vectors[np.argmax(pred.frequencies)].tolist()


def test_without_a_default_rule_max_rules_counts_only_learned_rules():
    X, Y = _data()
    est = BoomerClassifier(default_rule="false", max_rules=5, feature_sampling="none").fit(X, Y)
    assert len(est.rules_) == 5 and all(len(r.conditions) > 0 for r in est.rules_)
    with_default = BoomerClassifier(default_rule="true", max_rules=5, feature_sampling="none").fit(X, Y)
    assert len(with_default.rules_) == 5 and len(with_default.rules_[0].conditions) == 0
    with pytest.raises(ValueError):
        BoomerClassifier(default_rule="maybe").fit(X, Y)


def test_time_limit_stops_training_between_rules():
    import time

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    Y = (rng.random((400, 4)) < 0.5).astype(np.uint8)  # noise: there is always a rule to learn
    start = time.monotonic()
    est = BoomerClassifier(max_rules=0, time_limit=1, feature_sampling="none").fit(X, Y)
    assert est.stop_reason_ == "time_limit" and "time limit of 1 s" in est.stop_message_
    assert len(est.rules_) >= 2 and time.monotonic() - start >= 1.0
    with pytest.raises(ValueError):
        BoomerClassifier(time_limit=-1).fit(X, Y)


def test_beyond_the_budget_eq19_is_the_label_vector_search(monkeypatch):
    import engine.predictors as predictors

    rng = np.random.default_rng(6)
    Y = (rng.random((60, 4)) < 0.35).astype(np.uint8)
    F = rng.normal(scale=2.0, size=(30, 4))
    pred = Predictors.of("logistic-non-decomposable", "auto", "auto", Y)
    model = RuleModel([], 1, 4, "example-wise", "logistic-non-decomposable", pred.vectors, predictors=pred)
    assert pred.predicts(len(F))
    exact = model.predict_from_scores(F)
    monkeypatch.setattr(predictors, "EXACT_TIES_BUDGET", 10)
    assert not pred.predicts(len(F))
    np.testing.assert_array_equal(model.predict_from_scores(F), exact)  # no ties among random scores


def test_calibration_after_global_pruning_sees_every_learned_rule():
    """mlrl-boomer calibrates from its statistics, which every learned rule has updated: the rules
    post-pruning drops count for the calibration (not for the predictions)."""
    from engine.calibration import IsotonicCalibration

    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 4))
    Y = (rng.random((300, 3)) < 0.4).astype(np.uint8)  # noise: the holdout loss soon rises
    est = BoomerClassifier(max_rules=40, feature_sampling="none", statistic_type="64-bit",
                           global_pruning="post-pruning{min_rules=2}", marginal_probability_calibration="isotonic"
                           ).fit(X, Y)
    kept = len(est.rules_)
    learned = [r for record in est.records_ for r in record.rules]
    assert kept < len(learned)
    rows = est.holdout_indices_
    every = RuleModel(learned, 4, 3).scores(X[rows].astype(np.float32))
    by_hand = IsotonicCalibration.fit(1 / (1 + np.exp(-every)), Y[rows])
    for a, b in zip(est.model_.predictors.marginal.thresholds, by_hand.thresholds):
        np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(est.decision_function(X), RuleModel(learned[:kept], 4, 3).scores(X.astype(np.float32)))
