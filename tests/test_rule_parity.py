"""``python -m engine.bench.rule_parity``: rules as comparable values, the reference's rules read
through its model API (a stand-in model here: mlrl-boomer itself needs Python >= 3.12)."""
from types import SimpleNamespace

import numpy as np

from engine import BoomerClassifier
from engine.bench.fit_driver import reference_rules
from engine.bench.rule_parity import compare, ours_keys, reference_keys, rule_key


def test_a_rule_is_its_label_and_its_conditions_in_any_order():
    a = rule_key([(3, "<=", 1.23456), (0, ">", -0.5)], 2)
    assert a == rule_key([(0, ">", -0.5), (3, "<=", 1.234561)], 2)  # order, and float32 rounding
    assert a != rule_key([(0, ">", -0.5), (3, "<=", 1.2371)], 2)
    assert a != rule_key([(0, ">", -0.5), (3, "<=", 1.23456)], 1)
    assert a != rule_key([(0, "<=", -0.5), (3, "<=", 1.23456)], 2)


def test_compare_counts_the_leading_equal_rules():
    x, y, z = rule_key([(0, "<=", 1.0)], 0), rule_key([(1, ">", 2.0)], 1), rule_key([(2, "<=", 0.5)], 0)
    assert compare([x, y], [x, y]) == (2, None)
    assert compare([x, z, y], [x, y, y]) == (1, 1)
    assert compare([x], [x, y]) == (1, 1)


def test_reference_rules_are_read_through_the_model_api():
    body = SimpleNamespace(numerical_leq_indices=np.array([4], np.uint32),
                           numerical_leq_thresholds=np.array([1.5], np.float32),
                           numerical_gr_indices=np.array([0, 2], np.uint32),
                           numerical_gr_thresholds=np.array([-0.25, 3.0], np.float32))
    default = SimpleNamespace(body=SimpleNamespace(), head=SimpleNamespace(scores=np.array([-1.0, 0.5])))
    rule = SimpleNamespace(body=body, head=SimpleNamespace(indices=np.array([1]), scores=np.array([0.3])))
    rules = reference_rules([default, rule])
    assert rules[0] == {"conditions": [], "labels": None, "scores": [-1.0, 0.5]}
    assert rules[1]["conditions"] == [[4, "<=", 1.5], [0, ">", -0.25], [2, ">", 3.0]]
    assert rules[1]["labels"] == [1] and rules[1]["scores"] == [0.3]
    assert reference_keys(rules) == [rule_key([(0, ">", -0.25), (2, ">", 3.0), (4, "<=", 1.5)], 1)]


def test_ours_keys_skip_the_default_rule_and_read_the_head_label():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    Y = (X[:, :2] > 0.3).astype(np.uint8)
    est = BoomerClassifier(head_type="single", max_rules=4, instance_sampling="none", feature_sampling="none").fit(X, Y)
    keys = ours_keys(est.rules_)
    assert len(keys) == 3
    for key, rule in zip(keys, est.rules_[1:]):
        assert key[0] == rule.head_labels[0] and len(key[1]) == len(rule.conditions)
