"""Simplification with a bounded loss: greedy backward elimination of rules and conditions."""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

from engine import metrics
from engine.api import curve_csv, load, simplify
from engine.boomer import BoomerClassifier
from engine.cli import main
from engine.model import RuleModel
from engine.persistence import load_estimator
from engine.rules import Condition, Rule
from engine import simplify_measures
from engine.evaluation.experiment import scoring
from engine.simplify import _State
from engine.simplify_measures import additive_measure

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # as conftest.py finds it


def _tiny(seed=0, n=300):
    """Six rules with random heads on three uniform attributes and a truth the rules roughly follow."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3)).astype(np.float32)
    rules = [Rule((), [0, 1, 2], [-0.3, 0.2, -0.1])]
    for _ in range(5):
        j = int(rng.integers(0, 3))
        op = "<=" if rng.random() < 0.5 else ">"
        body = (Condition(j, op, float(rng.random())), Condition(int(rng.integers(0, 3)), ">", 0.1 * rng.random()))
        rules.append(Rule(body, [0, 1, 2], rng.normal(0, 0.6, 3)))
    model = RuleModel(rules, 3, 3)
    Y = (model.scores(X) + rng.normal(0, 0.4, (n, 3)) > 0).astype(np.uint8)
    return model, X, Y


def _loss(measure, Y, model, X, mask=None):
    """The experimenter's value of the measure (engine.evaluation.experiment.scoring) as a loss, from scratch."""
    name = {"subset": "subset-zero-one"}.get(measure, measure)
    m = scoring.measure(name)
    value = scoring.evaluate(name, Y, model.predict(X, mask), model.scores(X, mask))
    if np.isnan(value):  # no example counts: the additive form's convention
        value = 1.0 if m.higher_is_better else 0.0
    return 1.0 - value if m.higher_is_better else value


ALL_MEASURES = ["hamming", "subset", *simplify_measures.NAMES[2:], "ndcg@2"]


@pytest.mark.parametrize("measure", ALL_MEASURES)
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_greedy_against_every_subset_of_a_tiny_model(measure, epsilon):
    model, X, Y = _tiny()
    result = simplify(model, X, Y, measure, epsilon, conditions=False)
    full = _loss(measure, Y, model, X)
    assert result.full_loss == pytest.approx(full, abs=1e-12)
    assert result.loss == pytest.approx(_loss(measure, Y, result.model, X), abs=1e-12)
    assert result.loss <= full + epsilon + 1e-12
    kept = set(result.kept_rules)
    assert kept == set(range(6)) - set(result.removed_rules)
    # brute force over every subset: the kept rules' loss, and no single further removal within the bound
    losses = {}
    for mask in itertools.product((0, 1), repeat=6):
        losses[mask] = _loss(measure, Y, model, X, np.array(mask, np.uint8))
    mask = tuple(int(r in kept) for r in range(6))
    assert losses[mask] == pytest.approx(result.loss, abs=1e-12)
    for r in kept:
        smaller = tuple(0 if i == r else m for i, m in enumerate(mask))
        assert losses[smaller] > full + epsilon
    best_size = min(sum(m) for m, v in losses.items() if v <= full + epsilon + 1e-12)
    assert len(kept) >= best_size  # greedy may keep more than the optimum, never fewer
    assert [c[2] for c in result.curve][-1] == pytest.approx(result.loss)


def test_incremental_scores_equal_a_full_prediction():
    model, X, Y = _tiny(1)
    state = _State(model, X, Y, additive_measure("hamming"))
    for r in range(len(model.rules)):  # each candidate's incremental loss against re-predicting everything
        active = np.ones(len(model.rules), np.uint8)
        active[r] = 0
        expected = metrics.hamming_loss(Y, model.predict(X, active))
        assert state.try_change(state.coverage[r], -state.heads[r]) == pytest.approx(expected, abs=1e-12)
    changes = [(state.coverage[r], -state.heads[r]) for r in range(len(model.rules))]
    assert state.try_changes(changes).tolist() == [state.try_change(rows, d) for rows, d in changes]
    result = simplify(model, X, Y, "hamming", 0.02)
    # after the commits the kept scores are exactly the simplified model's
    state2 = _State(result.model, X, Y, additive_measure("hamming"))
    assert additive_measure("hamming").loss(state2.totals, len(Y), 3) == pytest.approx(result.loss, abs=1e-15)


def test_a_redundant_condition_is_removed_at_no_cost():
    X = np.random.default_rng(3).random((200, 2)).astype(np.float32)
    rules = [Rule((), [0], [0.5]), Rule((Condition(0, "<=", 0.5), Condition(1, "<=", 2.0)), [0], [-1.0])]
    model = RuleModel(rules, 2, 1)
    Y = model.predict(X)
    result = simplify(model, X, Y, "hamming", 0.0)
    assert result.removed_rules == ()
    assert result.removed_conditions == ((1, Condition(1, "<=", 2.0)),)
    assert result.model.rules[1].conditions == (Condition(0, "<=", 0.5),)
    assert result.loss == 0.0
    assert curve_csv(result).splitlines()[-1].startswith("1,condition of rule 1: f1 <= 2,2,1,0.0")


def test_bad_input_is_refused_before_any_work():
    model, X, Y = _tiny()
    with pytest.raises(ValueError, match="unknown measure"):
        simplify(model, X, Y, "accuracy")
    with pytest.raises(ValueError, match="epsilon"):
        simplify(model, X, Y, "hamming", -0.1)
    with pytest.raises(ValueError, match="the data has 2 attributes"):
        simplify(model, X[:, :2], Y)
    dl = RuleModel(model.rules, 3, 3, "decision-list")
    with pytest.raises(ValueError, match="decision lists"):
        simplify(dl, X, Y)


@pytest.fixture
def emotions():
    path = Path(os.environ.get("BOOMER_SHARED_DATA", DATA_DIR)) / "emotions.arff"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable"])
def test_emotions_simplified_model_saves_and_reloads(emotions, tmp_path, loss, capsys):
    train, test = load(emotions).train_test_split(0.33, seed=0)
    est = BoomerClassifier(max_rules=40, random_state=1, loss=loss)
    est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask, schema=train.schema)
    est.save(tmp_path / "full.json")
    measure = "hamming" if loss == "logistic-decomposable" else "subset"
    result = simplify(est.model_, test.X, test.Y, measure, 0.005)
    assert len(result.model.rules) < 40 and result.loss <= result.full_loss + 0.005
    assert result.loss == pytest.approx(_loss(measure, test.Y, result.model, test.X), abs=1e-12)
    # the command (measuring on a data file: the whole of emotions here) writes the same model; it
    # reloads and predicts identically
    test_file = emotions
    out = tmp_path / "small.json"
    assert main(["simplify", str(tmp_path / "full.json"), str(test_file), "--epsilon", "0.005", "--measure",
                 measure, "--out", str(out), "--curve", str(tmp_path / "curve.csv")]) == 0
    assert "model written to" in capsys.readouterr().out
    data = load(emotions)
    expected = simplify(est.model_, data.X, data.Y, measure, 0.005)
    reloaded = load_estimator(out)
    assert len(reloaded.model_.rules) == len(expected.model.rules)
    np.testing.assert_array_equal(reloaded.predict(data.X), expected.model.predict(data.X))
    np.testing.assert_array_equal(reloaded.decision_function(data.X), expected.model.scores(data.X))
    assert (tmp_path / "curve.csv").read_text().count("\n") == len(expected.curve) + 1
    with pytest.raises(SystemExit) as usage:
        main(["simplify", str(tmp_path / "full.json"), str(test_file), "--epsilon", "-1", "--out", str(out)])
    assert usage.value.code == 2 and "-1.0 is not >= 0" in capsys.readouterr().err


def test_diff_of_a_model_against_its_simplified_version():
    from engine.api import diff_models

    model, X, Y = _tiny(2)
    result = simplify(model, X, Y, "hamming", 0.03, conditions=False)
    assert result.removed_rules
    d = diff_models(model, result.model, X, Y)
    assert [(m.index_a, m.index_b) for m in d.matches] == [(r, i) for i, r in enumerate(result.kept_rules)]
    assert d.only_a == tuple(sorted(result.removed_rules)) and d.only_b == () and not d.changed_heads
    assert d.hamming_b.mean() == pytest.approx(result.loss) and d.hamming_a.mean() == pytest.approx(result.full_loss)


def test_sparse_data_gives_the_dense_result():
    import scipy.sparse as sp

    model, X, Y = _tiny(4)
    X[X < 0.3] = 0.0
    dense = simplify(model, X, Y, "subset", 0.02)
    sparse = simplify(model, sp.csr_matrix(X), Y, "subset", 0.02)
    assert sparse.removed_rules == dense.removed_rules and sparse.removed_conditions == dense.removed_conditions
    assert sparse.curve == dense.curve
