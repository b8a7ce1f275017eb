"""``l1_regularization_weight`` means what it means in mlrl-boomer 0.15.6, against the reference in its
own interpreter (``tests/mlrl_reference_driver.py``; without ``MLRL_REFERENCE_PYTHON`` every test here
is skipped, saying why).

Its L1 term is not the objective's minimiser (``engine/core/heads.py``): a label-wise score moves away
from zero, (-g - alpha sign g) / (h + lambda) where |g| > alpha, and keeps -g / (h + lambda) below;
a full system is solved for g - alpha sign g where |g| > alpha, and for g below.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_mlrl_parity import _WHY, DETERMINISTIC, _negative_data
from test_mlrl_parity_label_binning import _conditions, _fit_both

pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")

_SETTINGS = {
    "label-wise complete": dict(loss="logistic-decomposable", head_type="complete"),
    "label-wise single": dict(loss="logistic-decomposable", head_type="single"),
    "label-wise binned default rule": dict(loss="logistic-decomposable", label_binning="equal-width{bin_ratio=0.3}"),
    "example-wise complete": dict(loss="logistic-non-decomposable", head_type="complete"),
    "example-wise single": dict(loss="logistic-non-decomposable", head_type="single"),
    "example-wise binned": dict(loss="logistic-non-decomposable", label_binning="equal-width"),
}


@pytest.mark.parametrize("alpha, name, n_rules", [(0.5, name, 12) for name in _SETTINGS] + [
    (3.0, "example-wise complete", 3), (3.0, "label-wise single", 12), (20.0, "label-wise complete", 1)],
    ids=lambda v: str(v))
def test_models_with_an_l1_weight_are_the_references(alpha, name, n_rules, tmp_path):
    """Every rule's conditions and head, and the test scores; with a large weight both learn fewer
    rules (every candidate's quality is worse than none: only the default rule at 20)."""
    settings = {**DETERMINISTIC, "max_rules": 12, "l1_regularization_weight": alpha, **_SETTINGS[name]}
    ref, ours, X = _fit_both(settings, tmp_path)
    assert ref["n_rules"] == len(ours.rules_) == n_rules
    for theirs, mine in zip(ref["rules"], ours.rules_):
        assert _conditions(theirs["conditions"]) == _conditions((c.attribute, c.operator, c.threshold)
                                                                for c in mine.conditions)
        np.testing.assert_allclose(mine.head_scores, theirs["scores"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.decision_function(X[200:]), np.asarray(ref["scores"]), atol=1e-6)


def test_the_default_rules_l1_scores_move_away_from_zero_as_the_references(tmp_path):
    """The default rule (score 0 for every example, logistic loss: g = -y/2 summed, h = 1/4 summed)
    with L1 weight 0.5 and no binning: both predict (-g - 0.5 sign g) / (h + 1) where |g| > 0.5,
    else -g / (h + 1), written out by hand here."""
    settings = {**DETERMINISTIC, "max_rules": 1, "l1_regularization_weight": 0.5}
    ref, ours, X = _fit_both(settings, tmp_path)
    _, Y = _negative_data(n=300, d=6, k=8)
    g = -np.where(Y[:200] > 0, 1.0, -1.0).sum(axis=0) / 2
    h = np.full(8, 200 / 4)
    expected = np.where(np.abs(g) > 0.5, -g - 0.5 * np.sign(g), -g) / (h + 1)
    np.testing.assert_allclose(ref["rules"][0]["scores"], expected, atol=1e-6)
    np.testing.assert_allclose(ours.rules_[0].head_scores, expected, atol=1e-12)
