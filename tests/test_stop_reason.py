"""Why a BOOMER fit ended (``stop_reason_``), and that sparse data under bagging no longer ends early."""
import warnings

import numpy as np

from engine.boomer import STOP_REASONS, BoomerClassifier


def _one_word_per_document(n=300, d=400, k=3, seed=0):
    """Each example has one non-zero attribute: a small sample of examples and attributes often has
    no example with a non-zero value on any sampled attribute."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d), dtype=np.float32)
    X[np.arange(n), rng.integers(0, d, n)] = 1.0
    Y = (rng.random((n, k)) < 0.3).astype(np.uint8)
    return X, Y


def test_bagging_on_sparse_data_learns_every_rule():
    X, Y = _one_word_per_document()
    est = BoomerClassifier(max_rules=80, instance_sampling="with-replacement{sample_size=0.1}", random_state=2)
    est.fit(X, Y)
    assert len(est.records_) == 80 and est.stop_reason_ == "max_rules" and est.stop_message_ == ""
    # rules whose only condition covers every sampled example: 'x <= 0' on an attribute whose
    # non-zero values all lie out of the sample; such a rule covers all but those examples
    whole_sample = [r for r in est.records_[1:] if len(r.rule.conditions) == 1
                    and r.rule.conditions[0].operator == "<=" and r.rule.conditions[0].threshold == 0.0]
    assert whole_sample, "the sample had a candidate every time: the test does not reach the case"
    for r in whole_sample:
        j = r.rule.conditions[0].attribute
        assert r.coverage == len(X) - int((X[:, j] > 0).sum()) < len(X)


def test_without_sampling_no_condition_covers_everything():
    X, Y = _one_word_per_document()
    est = BoomerClassifier(max_rules=30, feature_sampling="none").fit(X, Y)
    assert all(r.coverage < len(X) for r in est.records_[1:])


def test_a_fit_that_ends_early_says_why():
    rng = np.random.default_rng(0)
    X = np.ones((50, 3), dtype=np.float32)
    Y = (rng.random((50, 2)) < 0.5).astype(np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est = BoomerClassifier(max_rules=10).fit(X, Y)
    assert len(est.records_) == 1 and est.stop_reason_ == "constant_attributes"
    assert "1 of 10 rules" in est.stop_message_
    # global pre-pruning
    X = rng.normal(size=(200, 4)).astype(np.float32)
    Y = (rng.random((200, 2)) < 0.5).astype(np.uint8)
    est = BoomerClassifier(max_rules=500, global_pruning="pre-pruning{min_rules=4,num_past=2,num_recent=2}").fit(X, Y)
    assert est.stop_reason_ == "pre_pruning" and len(est.records_) < 500 and "pre-pruning" in est.stop_message_
    assert set(STOP_REASONS) >= {est.stop_reason_}


def test_statistics_that_cannot_fit_in_memory_are_refused_with_the_reason(monkeypatch):
    """Example-wise losses keep a K x K Hessian per example: refused up front, naming the size."""
    import pytest

    from engine.boomer import memory as boomer_memory

    monkeypatch.setattr(boomer_memory, "physical_memory", lambda: 2**20)  # a 1 MiB machine
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)).astype(np.float32)
    Y = (rng.random((60, 40)) < 0.3).astype(np.uint8)  # 820 Hessian entries x 60 x 8 bytes = 0.37 MiB... x 4
    Y = np.repeat(Y, 2, axis=1)  # 80 labels: 3240 entries x 60 x 4 bytes = 0.74 MiB; 120 examples: 1.5 MiB
    X, Y = np.vstack([X, X]), np.vstack([Y, Y])
    with pytest.raises(MemoryError, match=r"80 x 80 Hessian per training example: 0\.0 GiB for 120"):
        BoomerClassifier(loss="logistic-non-decomposable", max_rules=2).fit(X, Y)
    # label-wise losses keep K entries per example and fit
    assert len(BoomerClassifier(max_rules=2).fit(X, Y).rules_) == 2
