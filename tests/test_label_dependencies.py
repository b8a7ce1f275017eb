"""Label dependencies (engine.label_dependencies): hand-computed matrices on a hand-built model."""
import numpy as np
import pytest
import scipy.sparse as sp

from engine.api import label_dependencies
from engine.model import RuleModel
from engine.rules import Condition, Rule, Schema


def _model() -> RuleModel:
    def rule(conditions, labels, scores):
        return Rule(tuple(conditions), np.array(labels), np.array(scores, dtype=float))

    rules = [
        rule([], [0, 1, 2], [1.0, 1.0, 1.0]),  # default rule: left out
        rule([Condition(0, "<=", 0.5)], [0, 1], [0.8, -0.3]),  # partial: both non-zero -> {0, 1}
        rule([Condition(1, ">", 0.2)], [0, 1, 2], [2.0, -0.9, 1.0]),  # complete: |s| >= 1.0 -> {0, 2}
        rule([Condition(0, ">", 0.5)], [2], [0.5]),  # {2}
        rule([Condition(1, "<=", 0.2)], [1, 2], [0.0, 0.4]),  # a zero score does not count -> {2}
    ]
    return RuleModel(rules, n_features=2, n_labels=3, schema=Schema(label_names=("a", "b", "c")))


Y = np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 0]])


def test_rule_and_data_matrices_by_hand():
    d = label_dependencies(_model(), Y)
    assert d.label_names == ("a", "b", "c")
    assert d.n_rules == 4 and d.n_examples == 4
    np.testing.assert_array_equal(d.rule_counts, [[2, 1, 1], [1, 1, 0], [1, 0, 3]])
    np.testing.assert_allclose(d.rule_share, np.array([[2, 1, 1], [1, 1, 0], [1, 0, 3]]) / 4)
    np.testing.assert_array_equal(d.data_counts, [[3, 2, 2], [2, 2, 1], [2, 1, 2]])
    np.testing.assert_allclose(d.data_share, np.array([[3, 2, 2], [2, 2, 1], [2, 1, 2]]) / 4)
    # phi(a, b) = (4*2 - 3*2) / sqrt(3*1*2*2); phi(b, c) = (4*1 - 2*2) / ... = 0
    expected_ab = 2 / np.sqrt(12)
    np.testing.assert_allclose(d.phi, [[1, expected_ab, expected_ab], [expected_ab, 1, 0], [expected_ab, 0, 1]])
    assert d.rules_behind(0, 1) == d.rules_behind(1, 0) == (1,)
    assert d.rules_behind(0, 2) == (2,)
    assert d.rules_behind(2, 2) == (2, 3, 4)
    assert d.rules_behind(1, 2) == ()
    assert d.rules_behind(0, 0) == (1, 2)


def test_strength_decides_the_strong_labels_of_a_complete_head():
    d = label_dependencies(_model(), Y, strength=0.4)  # 0.9 >= 0.8: rule 2 now holds every label
    assert d.rules_behind(1, 2) == (2,)
    np.testing.assert_array_equal(d.rule_counts, [[2, 2, 1], [2, 2, 1], [1, 1, 3]])


def test_sparse_labels_and_a_constant_label():
    Yc = Y.copy()
    Yc[:, 2] = 0
    dense = label_dependencies(_model(), Yc)
    sparse = label_dependencies(_model(), sp.csr_matrix(Yc))
    np.testing.assert_array_equal(dense.data_counts, sparse.data_counts)
    assert np.isnan(dense.phi[2]).all() and np.isnan(dense.phi[:, 2]).all()
    np.testing.assert_allclose(dense.phi[:2, :2], sparse.phi[:2, :2])


def test_bad_input_is_named_before_any_work():
    with pytest.raises(ValueError, match="the model predicts 3 labels"):
        label_dependencies(_model(), Y[:, :2])
    with pytest.raises(ValueError, match="strength"):
        label_dependencies(_model(), Y, strength=0.0)
    with pytest.raises(ValueError, match="2 label names for 3 labels"):
        label_dependencies(_model(), Y, label_names=["x", "y"])
    with pytest.raises(ValueError, match="need a rule model"):
        label_dependencies(object(), Y)
