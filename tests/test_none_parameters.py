"""None means "the default" for every parameter of BOOMER and SeCo, as in mlrl-boomer and mlrl-seco 0.15.6
(every parameter of theirs is ``Optional``, default None): accepted by the checks, kept by ``get_params()``
(scikit-learn's round trip), resolved to the declared default when fitting.  The reference's own
``get_params()`` is asked in its interpreter (skipped, saying why, without it)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from engine.boomer import BoomerClassifier
from engine.parameters import declared
from engine.seco import SeCoClassifier
from test_mlrl_parity import DRIVER as BOOMER_DRIVER
from test_mlrl_parity import ask_reference, reference_missing
from test_mlrl_seco_parity import DRIVER as SECO_DRIVER

# settings under which the seed, the samples and the limits matter (each parameter is set to None in turn)
BASES = {BoomerClassifier: {"max_rules": 6, "instance_sampling": "with-replacement", "random_state": 3},
         SeCoClassifier: {"max_rules": 4, "random_state": 3}}
CASES = [(cls, p.name) for cls in BASES for p in declared(cls)]


def _data(n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 2).astype(np.float32)
    Y = np.column_stack([X[:, 0] + 0.5 * rng.normal(size=n) > 0, X[:, 1] - X[:, 2] > 0.3,
                         rng.random(n) < 0.3]).astype(np.uint8)
    return X, Y


def _rules(est) -> list:
    return est.to_model_dict()["model"]["rules"]


@pytest.mark.parametrize("cls, name", CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_none_is_accepted_kept_and_means_the_default(cls, name):
    est = cls(**{name: None})
    est._check_params()  # no error
    assert est.get_params()[name] is None and clone(est).get_params()[name] is None
    default = next(p.default for p in declared(cls) if p.name == name)
    assert getattr(est.effective(), name) == default


@pytest.mark.parametrize("cls, name", CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_a_model_with_one_parameter_none_is_the_default_model(cls, name):
    """Same rules (conditions, heads, scores) and the same predictions as with the declared default."""
    X, Y = _data()
    default = next(p.default for p in declared(cls) if p.name == name)
    base = BASES[cls]
    none = cls(**{**base, name: None}).fit(X, Y)
    given = cls(**{**base, name: default}).fit(X, Y)
    assert _rules(none) == _rules(given)
    np.testing.assert_array_equal(none.decision_function(X), given.decision_function(X))
    assert none.get_params()[name] is None


def test_random_state_none_is_the_seed_1_not_a_fresh_draw():
    """mlrl-boomer's None seed is its default, 1: two fits with None and one with 1 agree."""
    X, Y = _data(80, seed=1)
    settings = {"max_rules": 8, "instance_sampling": "with-replacement", "feature_sampling": "without-replacement"}
    models = [_rules(BoomerClassifier(**settings, random_state=seed).fit(X, Y)) for seed in (None, None, 1)]
    assert models[0] == models[1] == models[2]
    assert _rules(BoomerClassifier(**settings, random_state=2).fit(X, Y)) != models[0]  # the seed matters here


def test_none_keeps_refusing_what_is_not_a_value():
    """None is the default; anything else still has to be a value of the parameter."""
    with pytest.raises(ValueError, match="loss"):
        BoomerClassifier(loss="no-such-loss")._check_params()
    with pytest.raises(ValueError, match="max_rules"):
        SeCoClassifier(max_rules=-1)._check_params()


@pytest.mark.parametrize("cls, driver, package, distribution", [
    (BoomerClassifier, BOOMER_DRIVER, "mlrl.boosting", "mlrl-boomer"),
    (SeCoClassifier, SECO_DRIVER, "mlrl.seco", "mlrl-seco")], ids=["boomer", "seco"])
def test_the_references_get_params_fit_the_default_model(cls, driver, package, distribution, tmp_path):
    """``cls(**reference.get_params())`` fits, and gives the model of ``cls()``."""
    why = reference_missing(package, distribution)
    if why is not None:
        pytest.skip(why)
    params = ask_reference(driver, {"kind": "params"}, tmp_path)
    assert params and set(params) <= set(cls().get_params())
    assert sum(v is None for v in params.values()) >= len(params) - 1  # all None but BOOMER's shrinkage
    X, Y = _data()
    ours = cls(**params).fit(X, Y)
    assert ours.get_params()[next(iter(params))] == params[next(iter(params))]
    assert _rules(ours) == _rules(cls().fit(X, Y))
