"""mlrl-boomer's incremental prediction (``predict_incrementally``, ``decision_function_incrementally``,
``predict_proba_incrementally``): after n rules, exactly what ``predict`` etc. give on the model's first n
rules; ``python -m engine predict --scores/--probabilities``; SeCo without probabilities."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier
from engine.cli import main
from engine.model import RuleModel


def _data(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 2).astype(np.float32)
    Y = np.column_stack([X[:, 0] + 0.5 * rng.normal(size=n) > 0, X[:, 1] - X[:, 2] > 0.3,
                         rng.random(n) < 0.3]).astype(np.uint8)
    return X, Y


def _truncated(est, n: int):
    """``est`` with the first ``n`` rules of its model (the model's predictors kept)."""
    m = est.model_
    est.model_ = RuleModel(m.rules[:n], m.n_features, m.n_labels, m.prediction, m.loss, m.label_vectors, m.schema,
                           m.nominal, m.predictors)
    return m


@pytest.mark.parametrize("settings", [
    {"max_rules": 12},
    {"max_rules": 12, "loss": "logistic-non-decomposable"},  # example-wise prediction by the known label vectors
    {"max_rules": 12, "head_type": "single", "marginal_probability_calibration": "isotonic"}])
def test_every_model_size_predicts_as_the_truncated_model(settings):
    X, Y = _data()
    X_test, _ = _data(40, seed=1)
    est = BoomerClassifier(**settings).fit(X, Y)
    n = len(est.model_.rules)
    binary = list(est.predict_incrementally(X_test))
    scores = list(est.decision_function_incrementally(X_test))
    probabilities = list(est.predict_proba_incrementally(X_test))
    assert len(binary) == len(scores) == len(probabilities) == n > 5
    full = est.model_
    try:
        for size in range(1, n + 1):
            _truncated(est, size)
            np.testing.assert_array_equal(scores[size - 1], est.decision_function(X_test))  # exactly, not close
            np.testing.assert_array_equal(binary[size - 1], est.predict(X_test))
            np.testing.assert_array_equal(probabilities[size - 1], est.predict_proba(X_test))
            est.model_ = full
    finally:
        est.model_ = full


def test_the_references_protocol_steps_and_max_rules():
    """has_next / get_num_next / apply_next(step_size) with max_rules and dtype, as the reference's."""
    X, Y = _data()
    est = BoomerClassifier(max_rules=10).fit(X, Y)
    n = len(est.model_.rules)
    predictor = est.decision_function_incrementally(X, max_rules=7, dtype=np.float32)
    assert predictor.has_next() and predictor.get_num_next() == 7
    first = predictor.apply_next(3)
    assert predictor.get_num_next() == 4 and first.dtype == np.float32
    last = predictor.apply_next(100)  # fewer remain: only those
    assert not predictor.has_next() and predictor.get_num_next() == 0
    full = _truncated(est, 7)
    np.testing.assert_array_equal(last, est.decision_function(X).astype(np.float32))
    est.model_ = full
    assert est.predict_incrementally(X, max_rules=0).get_num_next() == n  # 0: every rule
    with pytest.raises(ValueError, match="step_size"):
        est.predict_incrementally(X).apply_next(0)
    with pytest.raises(ValueError, match="max_rules"):
        est.predict_incrementally(X, max_rules=-1)
    with pytest.raises(TypeError, match="sparse_values"):
        est.predict_incrementally(X, sparse_values=1)


def test_each_step_adds_only_the_new_rules_heads():
    """Incremental: the scores after rule n are those after rule n-1 plus rule n's head where it covers."""
    X, Y = _data()
    est = BoomerClassifier(max_rules=8).fit(X, Y)
    steps = list(est.decision_function_incrementally(X))
    for n in range(1, len(steps)):
        rule = est.model_.rules[n]
        covered = np.ones(len(X), bool)
        for c in rule.conditions:
            covered &= c.covers(X[:, c.attribute].astype(np.float64))
        expected = steps[n - 1].copy()
        expected[np.ix_(np.flatnonzero(covered), rule.head_labels)] += rule.head_scores
        np.testing.assert_array_equal(steps[n], expected)


def test_sparse_features_and_adaboost():
    X, Y = _data()
    X[np.abs(X) < 0.5] = 0
    est = BoomerClassifier(max_rules=8).fit(X, Y)
    for dense, sparse in zip(est.decision_function_incrementally(X),
                             est.decision_function_incrementally(sp.csr_matrix(X))):
        np.testing.assert_array_equal(dense, sparse)
    ada = AdaBoostMHClassifier(max_rules=6).fit(X, Y)
    steps = list(ada.predict_incrementally(X))
    assert len(steps) == len(ada.model_.rules)
    np.testing.assert_array_equal(steps[-1], ada.predict(X))


def test_a_loss_without_probabilities_refuses_them_incrementally_too():
    X, Y = _data()
    est = BoomerClassifier(max_rules=4, loss="squared-error-decomposable").fit(X, Y)
    with pytest.raises(AttributeError):
        est.predict_proba(X)
    with pytest.raises(AttributeError):
        est.predict_proba_incrementally(X)


def test_seco_has_no_predict_proba():
    """A decision list's rules give labels: no predict_proba (mlrl-seco has none), nor its incremental form;
    predict_incrementally as mlrl-seco's."""
    X, Y = _data()
    est = SeCoClassifier(max_rules=4).fit(X, Y)
    assert not hasattr(est, "predict_proba") and not hasattr(SeCoClassifier(), "predict_proba")
    assert hasattr(est, "predict_incrementally") and not hasattr(est, "predict_proba_incrementally")
    with pytest.raises(AttributeError, match="decision list"):
        est.model_.predict_proba(X)
    assert hasattr(BoomerClassifier(), "predict_proba")


@pytest.mark.parametrize("flag", ["--scores", "--probabilities"])
def test_predict_command_writes_scores_or_probabilities(flag, tmp_path, capsys):
    X, Y = _data()
    csv = tmp_path / "d.csv"
    header = [f"x{j}" for j in range(X.shape[1])] + ["a", "b", "c"]
    csv.write_text("\n".join([",".join(header)] + [",".join(map(str, list(x) + list(y))) for x, y in zip(X, Y)]))
    model = tmp_path / "m.json"
    est = BoomerClassifier(max_rules=6).fit(X, Y)
    est.save(model)
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(csv), "--label-columns", "a,b,c", flag, "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "y0,y1,y2"  # the model was fitted on arrays: no label names
    written = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    expected = est.decision_function(X) if flag == "--scores" else est.predict_proba(X)
    np.testing.assert_array_equal(written, expected)  # repr of floats: read back exactly


def test_predict_command_says_when_a_model_has_no_probabilities(tmp_path, capsys):
    X, Y = _data()
    csv = tmp_path / "d.csv"
    header = [f"x{j}" for j in range(X.shape[1])] + ["a", "b", "c"]
    csv.write_text("\n".join([",".join(header)] + [",".join(map(str, list(x) + list(y))) for x, y in zip(X, Y)]))
    model = tmp_path / "m.json"
    SeCoClassifier(max_rules=3).fit(X, Y).save(model)
    code = main(["predict", str(model), str(csv), "--label-columns", "a,b,c", "--probabilities"])
    err = capsys.readouterr().err
    assert code == 2 and "--probabilities" in err and "no probabilities" in err


def test_the_references_incremental_predictions_on_the_same_model(tmp_path):
    """On a deterministic setting where both learn the same rules: the same number of rules to apply and,
    after each apply_next(2), the reference's scores and predictions."""
    from test_mlrl_parity import DETERMINISTIC, DRIVER, ask_reference, reference_missing

    why = reference_missing("mlrl.boosting", "mlrl-boomer")
    if why is not None:
        pytest.skip(why)
    X, Y = _data(160, seed=3)
    X = -(np.abs(X) + 0.05)  # negative values only: the rules are the reference's (tests/test_mlrl_parity.py)
    data = tmp_path / "data.npz"
    np.savez(data, X_train=X[:120], Y_train=Y[:120], X_test=X[120:])
    ref = ask_reference(DRIVER, {"kind": "fit", "data": str(data), "settings": DETERMINISTIC, "incremental": 2},
                        tmp_path)["incremental"]
    ours = BoomerClassifier(**DETERMINISTIC).fit(X[:120], Y[:120])
    scores = ours.decision_function_incrementally(X[120:])
    assert scores.get_num_next() == ref["num_next"] == 12
    predictions = ours.predict_incrementally(X[120:])
    assert len(ref["scores"]) == len(ref["predictions"]) == 6
    for theirs_scores, theirs_predictions in zip(ref["scores"], ref["predictions"]):
        np.testing.assert_allclose(scores.apply_next(2), np.asarray(theirs_scores), rtol=1e-6, atol=1e-9)
        np.testing.assert_array_equal(predictions.apply_next(2), np.asarray(theirs_predictions))
    assert not scores.has_next() and not predictions.has_next()


def _first_rules_and_default(est, n: int):
    """``est`` with its decision list's first ``n - 1`` learned rules and its default rule."""
    m = est.model_
    est.model_ = RuleModel(m.rules[:n - 1] + m.rules[-1:], m.n_features, m.n_labels, m.prediction, m.loss,
                           m.label_vectors, m.schema, m.nominal, m.predictors)
    return m


@pytest.mark.parametrize("settings", [{"max_rules": 8}, {"max_rules": 8, "head_type": "partial"}])
def test_a_decision_list_predicts_as_its_first_rules_and_its_default_rule(settings):
    """SeCo: step 1 is the default rule alone, step n the first n - 1 rules before it (mlrl-seco's order)."""
    X, Y = _data()
    X_test, _ = _data(40, seed=1)
    est = SeCoClassifier(**settings).fit(X, Y)
    n = len(est.model_.rules)
    steps = list(est.predict_incrementally(X_test))
    assert len(steps) == n > 3
    full = est.model_
    try:
        for size in range(1, n + 1):
            _first_rules_and_default(est, size)
            np.testing.assert_array_equal(steps[size - 1], est.predict(X_test))
            est.model_ = full
    finally:
        est.model_ = full
    np.testing.assert_array_equal(steps[-1], est.predict(X_test))
    assert not hasattr(est, "predict_proba_incrementally")  # as predict_proba: a decision list has none
