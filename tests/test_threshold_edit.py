"""Threshold editing (issue 59, item 2): coverage and losses after an edit equal a prediction of the
edited model from scratch; a re-optimised head equals the closed form computed by hand."""
from __future__ import annotations

import numpy as np
import pytest

from engine.api import ThresholdEditor, head_parameters, make_synthetic, rule_coverage
from engine.boomer import BoomerClassifier
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.model import RuleModel
from engine.rules import Condition, Rule
from engine.threshold_edit import HeadParameters


@pytest.fixture(scope="module", params=[{}, {"loss": "logistic-non-decomposable", "head_type": "complete", "label_binning": "none"}],
                ids=["defaults", "example-wise-complete"])
def fitted(request):
    """A BOOMER model: the defaults (label-wise), and the paper's example-wise variant (full Hessians,
    complete heads without label binning, predictions by the known label vectors)."""
    train, test = make_synthetic("marginal-independence", 400, 4, seed=3).train_test_split(0.3, seed=1)
    est = BoomerClassifier(max_rules=60, random_state=2, **request.param).fit(train.X, train.Y)
    return est, train, test


def _edited_by_hand(model: RuleModel, r: int, c: int, threshold: float, head=None) -> RuleModel:
    """The model with one threshold (and head) replaced, built without the editor."""
    rules = list(model.rules)
    old = rules[r]
    conditions = list(old.conditions)
    conditions[c] = Condition(conditions[c].attribute, conditions[c].operator, threshold)
    rules[r] = Rule(conditions, old.head_labels, old.head_scores if head is None else head)
    return RuleModel(rules, model.n_features, model.n_labels, model.prediction, model.loss, model.label_vectors,
                     model.schema, model.nominal, model.predictors)


def test_edits_equal_the_edited_model_predicted_from_scratch(fitted):
    est, train, test = fitted
    model = est.model_
    editor = ThresholdEditor(model, train.X, train.Y, test.X, test.Y, head_parameters(est))
    rng = np.random.default_rng(0)
    editable = [r for r, rule in enumerate(model.rules) if rule.conditions]
    changed = 0
    for i in range(40):
        r = int(rng.choice(editable))
        c = int(rng.integers(len(model.rules[r].conditions)))
        values = train.X[:, model.rules[r].conditions[c].attribute]
        threshold = float(rng.choice(values)) + (0.0 if i % 3 else 1e-3)
        reoptimise = bool(i % 2)
        edit = editor.edit(r, c, threshold, reoptimise)
        if not reoptimise:
            np.testing.assert_array_equal(edit.rule.head_scores, model.rules[r].head_scores)
        truth = _edited_by_hand(model, r, c, threshold, edit.rule.head_scores)
        np.testing.assert_array_equal(edit.covered, rule_coverage(truth.rules[r], train.X))
        assert edit.n_covered["test"] == rule_coverage(truth.rules[r], test.X).sum()
        for part, data in (("train", train), ("test", test)):
            P = truth.predict(data.X)
            assert edit.losses[part]["hamming"] == pytest.approx(hamming_loss(data.Y, P), abs=1e-12)
            assert edit.losses[part]["subset"] == pytest.approx(subset_zero_one_loss(data.Y, P), abs=1e-12)
        changed += edit.losses["train"] != editor.original_losses["train"]
    assert changed >= 5  # the edits moved the losses (the comparison is not of the original model)
    P = model.predict(train.X)
    assert editor.original_losses["train"]["hamming"] == pytest.approx(hamming_loss(train.Y, P))


def test_the_last_rule_reoptimised_at_its_own_threshold_keeps_its_head(fitted):
    """For the last rule 'all other rules' are the rules before it: the learner's own statistics."""
    est, train, test = fitted
    model = est.model_
    editor = ThresholdEditor(model, train.X, train.Y, head=head_parameters(est))
    r = len(model.rules) - 1
    edit = editor.edit(r, 0, model.rules[r].conditions[0].threshold, reoptimise=True)
    # the learner sums its statistics in single precision (statistic_type 32-bit, the default), the editor in double
    np.testing.assert_allclose(edit.rule.head_scores, model.rules[r].head_scores, rtol=1e-5)
    assert edit.losses["train"] == pytest.approx(editor.original_losses["train"])


# A hand-made model: 2 attributes, 2 labels, logistic (decomposable) loss
X = np.array([[0.1, 1.0], [0.4, 0.0], [0.6, 1.0], [0.8, 1.0], [0.9, 0.0], [0.3, 1.0]], dtype=np.float32)
Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 1], [0, 1]], dtype=np.uint8)
HAND = RuleModel([Rule((), [0, 1], [0.2, -0.1]),
                  Rule((Condition(0, "<=", 0.5),), [0], [0.7]),
                  Rule((Condition(0, ">", 0.5), Condition(1, ">", 0.5)), [0, 1], [-0.4, 0.3])],
                 2, 2, loss="logistic-decomposable")


def test_the_reoptimised_head_is_the_closed_form_by_hand():
    l2, shrinkage = 1.0, 0.3
    editor = ThresholdEditor(HAND, X, Y, head=HeadParameters("logistic-decomposable", l2, 0.0, shrinkage))
    edit = editor.edit(2, 0, 0.35, reoptimise=True)  # rule 2 now covers x0 > 0.35 and x1 > 0.5: rows 2, 3
    np.testing.assert_array_equal(edit.covered, [False, False, True, True, False, False])
    # the other rules' scores of rows 2 and 3: the default rule only (rule 1 needs x0 <= 0.5)
    f = np.array([[0.2, -0.1], [0.2, -0.1]])
    y = np.where(Y[[2, 3]] > 0, 1.0, -1.0)
    g = (-y / (1.0 + np.exp(y * f))).sum(axis=0)  # d/df log(1 + exp(-y f))
    p = 1.0 / (1.0 + np.exp(-f))
    h = (p * (1 - p)).sum(axis=0)
    np.testing.assert_allclose(edit.rule.head_scores, -shrinkage * g / (h + l2), rtol=1e-12)
    assert edit.n_rescored == 2  # rows 2 and 3 were covered before and after; no other example changed


def test_reoptimising_leaves_holdout_examples_out():
    head = HeadParameters("logistic-decomposable", 1.0, 0.0, 1.0, excluded=np.array([3]))
    edit = ThresholdEditor(HAND, X, Y, head=head).edit(2, 0, 0.35, reoptimise=True)
    y, f = np.where(Y[2] > 0, 1.0, -1.0), np.array([0.2, -0.1])  # row 2 only
    p = 1.0 / (1.0 + np.exp(-f))
    np.testing.assert_allclose(edit.rule.head_scores, (y / (1.0 + np.exp(y * f))) / (p * (1 - p) + 1.0))


def test_a_decision_list_is_rescored_with_the_edited_model():
    votes = RuleModel([Rule((Condition(0, "<=", 0.5),), [0], [1.0]),
                       Rule((Condition(1, ">", 0.5),), [0, 1], [-1.0, 1.0])], 2, 2, prediction="decision-list")
    editor = ThresholdEditor(votes, X, Y)
    for threshold in (0.05, 0.35, 0.7, 1.0):
        edit = editor.edit(0, 0, threshold)
        P = _edited_by_hand(votes, 0, 0, threshold).predict(X)
        assert edit.losses["train"]["hamming"] == pytest.approx(hamming_loss(Y, P))
        assert edit.losses["train"]["subset"] == pytest.approx(subset_zero_one_loss(Y, P))
    assert "test" not in edit.losses


def test_the_histogram_splits_the_attribute_by_the_other_conditions():
    hist = ThresholdEditor(HAND, X, Y).histogram(2, 0, bins=4)
    assert (hist.attribute, hist.operator, hist.threshold) == (0, ">", 0.5)
    assert hist.edges[0] == pytest.approx(0.1) and hist.edges[-1] == pytest.approx(0.9) and len(hist.edges) == 5
    # x1 > 0.5 holds for rows 0, 2, 3, 5 (x0 = 0.1, 0.6, 0.8, 0.3): bins [0.1,0.3) [0.3,0.5) [0.5,0.7) [0.7,0.9]
    np.testing.assert_array_equal(hist.covered, [1, 1, 1, 1])
    np.testing.assert_array_equal(hist.other, [0, 1, 0, 1])  # rows 1 (0.4) and 4 (0.9)
    assert hist.n_missing == 0 and not hist.nominal


@pytest.mark.parametrize("args, message", [
    ((5, 0, 0.3), "rule 5 does not exist"),
    ((0, 0, 0.3), "no conditions"),
    ((1, 1, 0.3), "has no condition 1"),
    ((1, 0, float("nan")), "finite number"),
    ((1, 0, 0.3, True), r"\(BOOMER\) only"),
])
def test_bad_edits_name_the_problem(args, message):
    with pytest.raises(ValueError, match=message):
        ThresholdEditor(HAND, X, Y).edit(*args)


def test_data_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="the test data have 1 attributes"):
        ThresholdEditor(HAND, X, Y, X[:, :1], Y)


def test_the_benchmark_command_records_its_table(tmp_path):
    from pathlib import Path
    import os

    from engine.bench.threshold_edit import run

    data = Path(os.environ.get("BOOMER_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
    if not (data / "emotions.arff").is_file():
        pytest.skip(f"emotions.arff is absent from {data} (set BOOMER_SHARED_DATA)")
    out = tmp_path / "threshold_edit.md"
    assert run(["--data", "emotions", "--rules", "30", "--drags", "6", "--steps", "5", "--data-dir", str(data),
                "--record", str(out)]) == 0
    text = out.read_text()
    assert "| emotions (397+196 x 72 x 6) | 30 | kept | 15 |" in text
    assert "| emotions (397+196 x 72 x 6) | 30 | re-optimised | 15 |" in text
    assert "| 1 / 0 |" in text  # 30 edits, checked every 25th: none failed
