"""Nominal attributes with two values against mlrl-boomer and mlrl-seco 0.15.6 (each in its own
interpreter: ``tests/mlrl_reference_driver.py``, ``tests/mlrl_seco_reference_driver.py``;
``MLRL_REFERENCE_PYTHON`` names it, default ``/work/refvenv/bin/python``; without it every test here
is skipped, saying why).  The references write both conditions of a binary attribute as ``== v``
(:mod:`engine.binary_attributes`): the rules are theirs, and so are the predictions for a value the
training data never had, which ``!= a`` would cover and ``== b`` does not."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from engine.binary_attributes import as_equalities, binary_values
from engine.boomer import BoomerClassifier
from engine.rules import Condition
from engine.seco import SeCoClassifier
from test_mlrl_parity import DRIVER, ask_reference, reference_missing

SECO_DRIVER = Path(__file__).with_name("mlrl_seco_reference_driver.py")
_WHY = reference_missing("mlrl.boosting", "mlrl-boomer") or reference_missing("mlrl.seco", "mlrl-seco")


def _data(n=200, seed=0):
    """Attribute 0 nominal with the values 1 and 3, attribute 1 nominal with three values, attribute
    2 numeric; the test examples have 5 (never seen) in attribute 0 half of the time."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.choice([1.0, 3.0], n, p=[0.3, 0.7]), rng.integers(0, 3, n), rng.normal(size=n)])
    Y = np.column_stack([(X[:, 0] == 1) ^ (rng.random(n) < 0.1), (X[:, 0] == 3) & (X[:, 2] > 0),
                         X[:, 1] == 2]).astype(np.uint8)
    X_test = X.copy()
    X_test[::2, 0] = 5.0
    return X, Y, X_test


def _conditions(rule) -> list:
    return sorted((c.attribute, c.operator, c.threshold) for c in rule.conditions)


@pytest.mark.skipif(_WHY is not None, reason=_WHY or "")
@pytest.mark.parametrize("learner", ["boomer", "seco"])
def test_binary_attributes_give_the_references_rules_and_predictions(learner, tmp_path):
    X, Y, X_test = _data()
    data = tmp_path / "data.npz"
    np.savez(data, X_train=X, Y_train=Y, X_test=X_test)
    if learner == "boomer":
        settings = dict(max_rules=6, head_type="single", feature_sampling="none", instance_sampling="none",
                        statistic_type="64-bit")
        driver, ours = DRIVER, BoomerClassifier(**settings)
    else:
        settings = dict(max_rules=6, feature_sampling="none", instance_sampling="none")
        driver, ours = SECO_DRIVER, SeCoClassifier(**settings)
    ref = ask_reference(driver, {"kind": "fit", "data": str(data), "settings": settings, "rules": True,
                                 "fit_kwargs": {"nominal_feature_indices": [0, 1]}}, tmp_path)
    ours.fit(X, Y, nominal_feature_indices=[0, 1])
    assert ref["n_rules"] == len(ours.rules_)
    learned = ours.rules_[1:] if learner == "boomer" else ours.rules_[:-1]  # without the default rule
    theirs = ref["rules"][1:] if learner == "boomer" else ref["rules"][:-1]
    assert any(c.attribute == 0 for rule in learned for c in rule.conditions)
    for their, mine in zip(theirs, learned):
        assert sorted(map(tuple, their["conditions"])) == _conditions(mine)
    assert not any(c.attribute == 0 and c.operator == "!=" for rule in learned for c in rule.conditions)
    np.testing.assert_array_equal(np.asarray(ours.predict(X_test)), np.asarray(ref["predictions"]))


def test_binary_values_of_dense_and_sparse_columns():
    X = np.array([[1, 0, 2, np.nan], [3, 0, 2, 4], [1, 5, 7, 6], [3, 0, 9, np.nan]], dtype=np.float32)
    nominal = np.array([True, True, True, False])
    assert binary_values(X, nominal) == {0: (1.0, 3.0), 1: (0.0, 5.0)}  # 3 values in 2; 3 not nominal
    assert binary_values(sp.csc_matrix(X), nominal) == {0: (1.0, 3.0), 1: (0.0, 5.0)}  # 0 implicit in 1
    missing = np.array([[np.nan], [2.0], [np.nan], [4.0]], dtype=np.float32)
    assert binary_values(missing, np.array([True])) == {0: (2.0, 4.0)}  # missing is no value


def test_not_equal_on_a_binary_attribute_is_written_as_equal_to_the_other_value():
    values = {0: (1.0, 3.0)}
    conditions = (Condition(0, "!=", 3.0), Condition(1, "!=", 3.0), Condition(0, "==", 3.0), Condition(0, "!=", 1.0))
    assert as_equalities(conditions, values) == (Condition(0, "==", 1.0), Condition(1, "!=", 3.0),
                                                 Condition(0, "==", 3.0), Condition(0, "==", 3.0))
    X = np.array([[1.0], [3.0], [np.nan], [5.0]])
    same = np.array([True, True, True, False])  # the training values and missing: the same cover; 5 differs
    np.testing.assert_array_equal(Condition(0, "!=", 3.0).covers(X[:, 0])[same],
                                  Condition(0, "==", 1.0).covers(X[:, 0])[same])
    assert Condition(0, "!=", 3.0).covers(X[3:, 0])[0] and not Condition(0, "==", 1.0).covers(X[3:, 0])[0]
