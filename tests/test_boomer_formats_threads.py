"""mlrl-boomer 0.15.6's storage and threading parameters: the same values accepted and refused as
there, sparse predictions where ``prediction_format`` asks for them, and threads that change nothing
in the model."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.boomer import BoomerClassifier
from test_mlrl_parity import _WHY, _ask

needs_reference = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _data(n=120, d=5, k=20, density=0.04, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (rng.random((n, k)) < density).astype(np.uint8)
    Y[:, 0] = X[:, 0] > 0  # one label the rules can find
    return X, Y


VALID = [{"statistic_format": "sparse"}, {"statistic_format": "dense"}, {"statistic_format": "auto"},
         {"feature_format": "sparse"}, {"feature_format": "dense"}, {"output_format": "auto"},
         {"prediction_format": "sparse"},
         {"parallel_rule_refinement": "false"}, {"parallel_rule_refinement": "true{num_preferred_threads=1}"},
         {"parallel_statistic_update": "true{num_preferred_threads=2}"},
         {"parallel_prediction": "false"}, {"parallel_prediction": "true"}]
INVALID = [{"statistic_format": "csr"}, {"parallel_rule_refinement": "auto"}, {"parallel_statistic_update": "auto"}, {"feature_format": "csr"}, {"output_format": "sparse-ish"}, {"prediction_format": "csc"},
           {"parallel_rule_refinement": "yes"}, {"parallel_rule_refinement": "true{num_preferred_threads=-1}"},
           {"parallel_statistic_update": "false{num_preferred_threads=2}"}, {"parallel_prediction": "auto"}]


@needs_reference
@pytest.mark.parametrize("settings", VALID)
def test_valid_values_are_accepted_by_both(settings, tmp_path):
    settings = {"max_rules": 4, **settings}
    assert _ask({"kind": "check", "settings": settings}, tmp_path)["ok"]
    X, Y = _data()
    assert len(BoomerClassifier(**settings).fit(X, Y).rules_) >= 1


@needs_reference
@pytest.mark.parametrize("settings", INVALID)
def test_invalid_values_are_refused_by_both(settings, tmp_path):
    assert not _ask({"kind": "check", "settings": settings}, tmp_path)["ok"], f"the reference accepts {settings}"
    X, Y = _data()
    with pytest.raises(ValueError):
        BoomerClassifier(**settings).fit(X, Y)


@pytest.mark.parametrize("settings", INVALID)
def test_invalid_values_are_refused_before_any_work(settings):
    with pytest.raises(ValueError):
        BoomerClassifier(max_rules=3, **settings).fit(*_data())


def test_prediction_format_sparse_dense_and_auto():
    X, Y = _data()
    dense = BoomerClassifier(max_rules=6).fit(X, Y).predict(X)
    assert isinstance(dense, np.ndarray)
    forced = BoomerClassifier(max_rules=6, prediction_format="sparse").fit(X, Y).predict(X)
    assert sp.issparse(forced) and np.array_equal(forced.toarray(), dense)
    # auto: sparse labels that take less memory sparse (4-byte indices) give sparse predictions ...
    auto_sparse = BoomerClassifier(max_rules=6).fit(X, sp.csr_array(Y)).predict(X)
    assert sp.issparse(auto_sparse) and np.array_equal(auto_sparse.toarray(), dense)
    # ... dense labels, or sparse ones bigger than dense (here: most entries 1), do not
    full = np.ones_like(Y)
    full[:, 0] = Y[:, 0]
    assert isinstance(BoomerClassifier(max_rules=3).fit(X, sp.csr_array(full)).predict(X), np.ndarray)
    assert isinstance(BoomerClassifier(max_rules=3, prediction_format="dense").fit(X, sp.csr_array(Y)).predict(X),
                      np.ndarray)


@pytest.mark.parametrize("threads", ["false", "true{num_preferred_threads=1}", "true{num_preferred_threads=2}"])
def test_threads_and_formats_do_not_change_the_model(threads):
    X, Y = _data(n=300, d=12, k=6, density=0.3)
    settings = dict(max_rules=12, loss="logistic-non-decomposable", feature_sampling="none")
    base = BoomerClassifier(**settings).fit(X, Y)
    other = BoomerClassifier(**settings, parallel_rule_refinement=threads, parallel_statistic_update="false",
                             parallel_prediction="false", feature_format="dense", output_format="dense",
                             statistic_format="sparse").fit(X, Y)
    assert [r.to_text() for r in base.rules_] == [r.to_text() for r in other.rules_]
    np.testing.assert_allclose(base.decision_function(X), other.decision_function(X), rtol=1e-6)


def test_serial_refinement_compiles_no_threaded_kernels():
    est = BoomerClassifier(loss="logistic-non-decomposable", parallel_rule_refinement="false")
    assert est._kernel_family(100_000, 50, 20)[2] is False
    assert BoomerClassifier(loss="logistic-non-decomposable")._kernel_family(100_000, 50, 20)[2] is True


@needs_reference
def test_every_parameter_of_the_reference_is_one_of_ours(tmp_path):
    import inspect

    reference = _ask({"kind": "signature"}, tmp_path)
    ours = inspect.signature(BoomerClassifier.__init__).parameters
    assert sorted(set(reference) - set(ours)) == []
    for name in ("feature_format", "output_format", "prediction_format", "statistic_format",
                 "parallel_rule_refinement", "parallel_statistic_update", "parallel_prediction"):
        assert ours[name].default is None and reference[name] is None
