"""Every measure of the experimenter against values computed by hand on a 4 x 4 example.

Y (truth), P (predicted label sets), S (scores):
    e1  Y 1010  P 1000  S .9 .1 .4 .5
    e2  Y 0100  P 0110  S .9 .8 .3 .1
    e3  Y 1101  P 1101  S .7 .6 .5 .5
    e4  Y 0000  P 0000  S .1 .2 .3 .4   (no relevant label: skipped by the ranking measures)
Counts per example (tp, fp, fn): e1 (1, 0, 1), e2 (1, 1, 0), e3 (3, 0, 0), e4 (0, 0, 0); pooled (5, 1, 1).
Per label: l0, l1, l3 perfect; l2 (0, 1, 1)."""
from math import log2

import numpy as np
import pytest

from engine.evaluation.experiment.scoring import ALL_MEASURES, evaluate, measure

Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 0, 0]])
P = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 1], [0, 0, 0, 0]])
S = np.array([[.9, .1, .4, .5], [.9, .8, .3, .1], [.7, .6, .5, .5], [.1, .2, .3, .4]])

# by hand (see the module docstring); 0/0 counts 1 (e4 in the example-based measures)
EXPECTED_LABELS = {
    "hamming": 2 / 16,
    "subset-zero-one": 2 / 4,
    "example-precision": (1 + 1 / 2 + 1 + 1) / 4,
    "example-recall": (1 / 2 + 1 + 1 + 1) / 4,
    "example-f1": (2 / 3 + 2 / 3 + 1 + 1) / 4,
    "example-jaccard": (1 / 2 + 1 / 2 + 1 + 1) / 4,
    "micro-precision": 5 / 6,
    "micro-recall": 5 / 6,
    "micro-f1": 10 / 12,
    "micro-jaccard": 5 / 7,
    "macro-precision": 3 / 4,
    "macro-recall": 3 / 4,
    "macro-f1": 3 / 4,
    "macro-jaccard": 3 / 4,
}
# e1: order l0 l3 l2 l1, pairs wrong (l2, l3); e2: order l0 l1 ..., (l1, l0) wrong; e3: l3 tied with l2 (half)
EXPECTED_SCORES = {
    "rank-loss": (1 / 4 + 1 / 3 + (1 / 2) / 3) / 3,
    "one-error": (0 + 1 + 0) / 3,
    "coverage": (2 + 1 + 3) / 3,  # rank of the lowest relevant label - 1; e3's tie ranks l3 4th
    "lrap": ((1 + 2 / 3) / 2 + 1 / 2 + (1 + 1 + 3 / 4) / 3) / 3,
    # tied labels rank irrelevant first: e3's order is l0 l1 l2 l3
    "ndcg": ((1 + 1 / log2(4)) / (1 + 1 / log2(3)) + (1 / log2(3)) / 1
             + (1 + 1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3) + 1 / log2(4))) / 3,
    "ndcg@1": (1 + 0 + 1) / 3,
    "ndcg@3": ((1 + 1 / log2(4)) / (1 + 1 / log2(3)) + (1 / log2(3)) / 1
               + (1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4))) / 3,
}


@pytest.mark.parametrize("name", sorted(EXPECTED_LABELS))
def test_bipartition_measures(name):
    assert evaluate(name, Y, P) == pytest.approx(EXPECTED_LABELS[name])
    assert evaluate(name, Y, None, S) is None  # a learner without label sets: does not apply


@pytest.mark.parametrize("name", sorted(EXPECTED_SCORES))
def test_ranking_measures(name):
    assert evaluate(name, Y, P, S) == pytest.approx(EXPECTED_SCORES[name])
    assert evaluate(name, Y, P, None) is None  # a learner without scores: does not apply


def test_perfect_predictions_and_zero_division():
    assert evaluate("hamming", Y, Y) == 0 and evaluate("subset-zero-one", Y, Y) == 0
    for name in EXPECTED_LABELS:
        if measure(name).higher_is_better:
            assert evaluate(name, Y, Y) == 1.0, name
    # a label never relevant and never predicted is perfect in the macro average
    Z = np.zeros((2, 2), dtype=np.uint8)
    Y2 = np.array([[1, 0], [0, 0]])
    assert evaluate("macro-precision", Y2, Y2) == 1.0 and evaluate("macro-recall", Z, Z) == 1.0
    # predicting nothing for an example with labels: recall 0, precision 1 (0/0)
    assert evaluate("example-recall", Y2, Z) == 0.5 and evaluate("example-precision", Y2, Z) == 1.0


def test_costs_come_from_the_task_and_may_be_missing():
    assert evaluate("fit-time", Y, P, costs={"fit-time": 2.5}) == 2.5
    assert evaluate("conditions", Y, P, costs={"fit-time": 2.5}) is None


def test_every_measure_is_covered_and_names_are_checked():
    assert set(EXPECTED_LABELS) | set(EXPECTED_SCORES) >= {m for m in ALL_MEASURES if measure(m).needs != "cost"}
    with pytest.raises(ValueError, match="unknown measure 'f2'"):
        measure("f2")
    with pytest.raises(ValueError):
        measure("ndcg@0")


def test_model_size_counts_rules_and_conditions_or_the_learners_own_unit():
    from types import SimpleNamespace

    from engine.evaluation.baselines import BinaryRelevance
    from engine.evaluation.experiment.tasks import model_size

    rules = [SimpleNamespace(conditions=()), SimpleNamespace(conditions=(1, 2)), SimpleNamespace(conditions=(3,))]
    assert model_size(SimpleNamespace(model_=SimpleNamespace(rules=rules))) == \
        {"model-size": 3, "size-unit": "rules", "conditions": 3}
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1]])  # the second label is constant: no trees
    br = BinaryRelevance(n_estimators=4).fit(X, Y)
    assert model_size(br) == {"model-size": 4, "size-unit": "trees"}
