"""Model diff: rules matched by their bodies, heads that differ, rules only in one model, losses per
label and the examples predicted differently."""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pytest

from engine.api import csv_report, diff_models, load, markdown_report
from engine.boomer import BoomerClassifier
from engine.cli import main
from engine.model import RuleModel
from engine.model_diff import body_gap
from engine.rules import Condition, Rule, Schema

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # as conftest.py finds it
SCHEMA = Schema(("a", "b", "colour"), ("x", "y"), {2: ["red", "green", "blue"]})


def _model(rules) -> RuleModel:
    return RuleModel(rules, 3, 2, schema=SCHEMA)


def _pair():
    default = Rule((), [0, 1], [-0.5, 0.25])
    a = _model([default,
                Rule((Condition(0, "<=", 0.1),), [0], [1.0]),
                Rule((Condition(1, ">", 0.5), Condition(2, "!=", 1.0)), [1], [-2.0]),
                Rule((Condition(2, "==", 2.0),), [0, 1], [0.75, 0.5])])
    b = _model([default,
                Rule((Condition(0, "<=", 0.5),), [0], [1.0]),  # too far from a's 0.1: no match
                Rule((Condition(0, "<=", 0.105),), [0], [1.0]),  # a's rule 1 within 1% of a's range
                Rule((Condition(2, "!=", 1.0), Condition(1, ">", 0.508)), [1], [-1.5]),  # a's rule 2, another head
                Rule((Condition(0, ">", 0.9),), [0, 1], [0.3, 0.1])])
    return a, b


def _data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.random(n), rng.random(n), rng.integers(0, 3, n)]).astype(np.float32)
    X[0, 0] = 0.0
    X[1, 0] = 1.0  # the range of a is exactly 1: the tolerance is 0.01
    return X, rng.integers(0, 2, (n, 2)).astype(np.uint8)


def test_hand_built_models_known_matches_and_differences():
    a, b = _pair()
    X, Y = _data()
    d = diff_models(a, b, X, Y, tolerance=0.01)
    assert [(m.index_a, m.index_b) for m in d.matches] == [(0, 0), (1, 2), (2, 3)]
    assert d.only_a == (3,) and d.only_b == (1, 4)
    assert d.matches[1].threshold_gap == pytest.approx(0.005) and not d.matches[1].head_differences
    assert d.matches[2].head_differences == ((1, -2.0, -1.5),)
    assert d.matches[2].threshold_gap == pytest.approx(0.008, abs=1e-6)
    Pa, Pb = a.predict(X), b.predict(X)
    np.testing.assert_array_equal(d.differing_examples, np.flatnonzero((Pa != Pb).any(axis=1)))
    for i, labels in zip(d.differing_examples, d.differing_labels):
        assert labels == tuple(np.flatnonzero(Pa[i] != Pb[i]))
    np.testing.assert_allclose(d.hamming_b - d.hamming_a, (Pb != Y).mean(axis=0) - (Pa != Y).mean(axis=0))


def test_tolerance_decides_a_match():
    a, b = _pair()
    X, Y = _data()
    tight = diff_models(a, b, X, Y, tolerance=0.001)  # 0.005 apart: no longer the same body
    assert (1, 2) not in [(m.index_a, m.index_b) for m in tight.matches] and 1 in tight.only_a
    tol = np.full(3, 0.01)
    r = Rule((Condition(2, "==", 2.0),), [0], [1.0])
    assert body_gap(r, Rule((Condition(2, "==", 1.0),), [0], [1.0]), np.full(3, 5.0)) is None  # nominal: exact
    assert body_gap(r, Rule((Condition(2, "!=", 2.0),), [0], [1.0]), tol) is None
    assert body_gap(Rule((), [0], [1.0]), Rule((), [1], [2.0]), tol) == 0.0


def test_a_model_against_itself_has_no_differences():
    a, _ = _pair()
    X, Y = _data(1)
    d = diff_models(a, a, X, Y)
    assert len(d.matches) == 4 and not d.changed_heads and not d.only_a and not d.only_b
    assert len(d.differing_examples) == 0


def test_reports_list_every_finding():
    a, b = _pair()
    X, Y = _data()
    d = diff_models(a, b, X, Y)
    md = markdown_report(d, "old", "new")
    assert "| 2 | 3 |" in md and "y: -2 → -1.5" in md
    assert "{colour == blue} -> (x: +0.75, y: +0.50)" in md  # only in old
    assert "{a > 0.9}" in md and "## Hamming loss per label" in md
    rows = list(csv.DictReader(io.StringIO(csv_report(d))))
    sections = [r["section"] for r in rows]
    assert sections.count("matched") == 3 and sections.count("only_a") == 1 and sections.count("only_b") == 2
    assert sections.count("hamming") == 2 and sections.count("example") == len(d.differing_examples)


def test_shape_mismatch_is_one_clear_error():
    a, _ = _pair()
    other = RuleModel([Rule((), [0], [1.0])], 4, 2)
    X, Y = _data()
    with pytest.raises(ValueError, match="differ in shape"):
        diff_models(a, other, X, Y)
    with pytest.raises(ValueError, match="the data has 2 attributes"):
        diff_models(a, a, X[:, :2], Y)


@pytest.fixture
def emotions():
    path = Path(os.environ.get("BOOMER_SHARED_DATA", DATA_DIR)) / "emotions.arff"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def test_two_seeds_on_emotions_and_the_command(emotions, tmp_path, capsys):
    train, test = load(emotions).train_test_split(0.33, seed=0)
    models = []
    for seed in (1, 2):
        est = BoomerClassifier(max_rules=20, random_state=seed)
        est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask, schema=train.schema)
        est.save(tmp_path / f"m{seed}.json")
        models.append(est.model_)
    d = diff_models(models[0], models[1], test.X, test.Y)
    assert d.matches[0].index_a == 0 and d.matches[0].index_b == 0  # the default rules
    assert len(d.matches) + len(d.only_a) == 20 and len(d.matches) + len(d.only_b) == 20
    assert len(d.only_a) > 0  # another seed samples other features: other rules
    np.testing.assert_array_equal(d.differing_examples, np.flatnonzero(
        (models[0].predict(test.X) != models[1].predict(test.X)).any(axis=1)))
    data = str(emotions)
    report = tmp_path / "diff.md"
    assert main(["diff", str(tmp_path / "m1.json"), str(tmp_path / "m2.json"), data, "--report", str(report)]) == 0
    assert "rules matched" in capsys.readouterr().out
    assert report.read_text().startswith("# Model diff:")
    assert main(["diff", str(tmp_path / "m1.json"), str(tmp_path / "m2.json"), data, "--report",
                 str(tmp_path / "diff.csv")]) == 0
    assert (tmp_path / "diff.csv").read_text().startswith("section,a,b")
    # on the test part of fit's split (--test-size, --split-seed): the diff computed above
    assert main(["diff", str(tmp_path / "m1.json"), str(tmp_path / "m2.json"), data, "--test-size", "0.33",
                 "--report", str(report)]) == 0
    assert f"({len(test.Y)} examples)" in report.read_text()
    assert f"examples predicted differently: {len(d.differing_examples)}" in report.read_text()
    assert main(["diff", str(tmp_path / "m1.json"), str(tmp_path / "nope.json"), data]) == 2
    assert capsys.readouterr().err.count("\n") == 1
