"""Parity of the numeric search with mlrl-boomer 0.15.6 (the reference, run in its own interpreter through
``tests/mlrl_reference_driver.py``; ``MLRL_REFERENCE_PYTHON`` names it, default ``/work/refvenv/bin/python``;
without it every test here is skipped, saying why).

``BoomerClassifier`` searches numeric attributes as the reference searches its feature vectors
(:mod:`engine.core.sweep`, ``SEARCH_DENSE``/``SEARCH_SPARSE``): its descending pass never evaluates the
split above the smallest non-negative covered value, its boundaries next to the zeros have its thresholds
and coverage, thresholds are float32 midpoints, and sparse input it keeps sparse is searched with the
zeros implicit (its boundary with the zeros rated without the smallest positive).  With identical
deterministic settings (no sampling, 64-bit statistics) the rules are the reference's: the same
conditions, thresholds and heads.  Where two conditions are exactly as good (they lead to the same
statistics: examples with equal statistics exchanged, or the same examples), the reference's choice
depends on the rounding of its sums; there the rule must cover the same training examples with the same
head (exchangeable examples in the same rule keep the rest of the model equal).
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.boomer import BoomerClassifier

from test_mlrl_parity import _WHY, DATA_DIR, _ask  # noqa: E402 - the shared driver

pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")

_OPS = {"<=": np.less_equal, ">": np.greater}
SEARCH = dict(feature_sampling="none", statistic_type="64-bit", instance_sampling="none", holdout="none",
              feature_binning="none", global_pruning="none")


def _coverage(conditions, X) -> np.ndarray:
    """The training examples a rule covers by its thresholds (float32, as both learners compare them)."""
    X32 = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float32)
    covered = np.ones(X32.shape[0], dtype=bool)
    for attribute, operator, threshold in conditions:
        covered &= _OPS[operator](X32[:, attribute], np.float32(threshold))
    return covered


def _compare(ref: dict, ours, X) -> tuple[int, list[int]]:
    """(rules with the reference's conditions, rules that differ only by an exactly-as-good condition);
    fails at the first rule with another head or coverage."""
    assert ref["n_rules"] == len(ours.rules_)
    exchanged = []
    identical = 0
    for n, (theirs, mine) in enumerate(zip(ref["rules"], ours.rules_)):
        if theirs["labels"] is not None:
            assert theirs["labels"] == [int(k) for k in mine.head_labels], n
        # the reference multiplies by the shrinkage in 32 bits (0.3f = 0.3 x (1 + 4e-8)), which small scores
        # (sums that nearly cancel) carry as a larger relative difference
        scale = max(abs(v) for v in theirs["scores"])
        assert theirs["scores"] == pytest.approx(list(mine.head_scores), rel=1e-6, abs=1e-6 * scale), n
        t_ref = sorted((c[0], c[1], c[2]) for c in theirs["conditions"])
        t_our = sorted((c.attribute, c.operator, c.threshold) for c in mine.conditions)
        same = [t[:2] for t in t_ref] == [t[:2] for t in t_our] and \
            np.allclose([t[2] for t in t_ref], [t[2] for t in t_our], rtol=1e-7, atol=1e-9)
        if same:
            identical += 1
        else:
            mine_conditions = [(c.attribute, c.operator, c.threshold) for c in mine.conditions]
            np.testing.assert_array_equal(_coverage(theirs["conditions"], X), _coverage(mine_conditions, X),
                                          err_msg=f"rule {n}: other conditions, other training examples")
            exchanged.append(n)
    return identical, exchanged


def _fit_both(settings: dict, X, Y, tmp_path):
    data = tmp_path / "data.npz"
    if sp.issparse(X):
        csr = sp.csr_matrix(X)
        np.savez(data, X_train_data=csr.data, X_train_indices=csr.indices, X_train_indptr=csr.indptr,
                 X_train_shape=np.array(csr.shape), Y_train=Y, X_test=csr[:5].toarray())
    else:
        np.savez(data, X_train=X, Y_train=Y, X_test=X[:5])
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "rules": True}, tmp_path)
    return ref, BoomerClassifier(**settings).fit(X, Y)


def _mixed_data(seed: int, n=240, d=8, k=4):
    """Dense attributes of both signs with no, one, a few or many zeros, one non-negative without zeros;
    values rounded to 3 digits (ties)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)) + np.array([0, 0.5, 1, 2, -1, 0, 3, 0.2]), 3)
    X[rng.random((n, d)) < np.array([0, 0.004, 0.01, 0.3, 0.2, 0.05, 0, 0.5])] = 0.0
    X[:, 6] = np.abs(X[:, 6])
    X = X.astype(np.float32).astype(np.float64)
    Y = ((X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k))) > 0.3).astype(np.uint8)
    return X, Y


def _sparse_data(seed: int, n=300, d=20, k=4):
    """A quarter of the values stored (both signs), the rest zeros: the reference keeps it sparse."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n, d)) < 0.25
    values = np.round(rng.normal(size=(n, d)) + (np.arange(d) % 3 == 0) * 1.5, 3)
    X = np.where(mask, values, 0.0).astype(np.float32)
    Y = ((X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k))) > 0.2).astype(np.uint8)
    return sp.csr_matrix(X), Y


@pytest.mark.parametrize("seed", [0, 2])
@pytest.mark.parametrize("settings", [
    {"loss": "logistic-decomposable", "head_type": "complete"},
    {"loss": "logistic-decomposable", "head_type": "single"},
    {"loss": "logistic-non-decomposable", "head_type": "complete", "label_binning": "none"},
], ids=["label-wise complete", "single-label", "example-wise complete"])
def test_dense_attributes_of_both_signs_and_zeros(settings, seed, tmp_path):
    """Every split the reference's dense vectors offer (zeros stored as values) and only those: 30 rules
    with its conditions, thresholds and heads."""
    X, Y = _mixed_data(seed)
    ref, ours = _fit_both({**SEARCH, **settings, "max_rules": 30}, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical == 30 and not exchanged


@pytest.mark.parametrize("seed", [1, 3])
def test_sparse_input_is_searched_as_the_references_sparse_vectors(seed, tmp_path):
    """Sparse input the reference keeps in its CSC format: its boundary with the implicit zeros rates the
    positives without the smallest one (whose statistics the head then leaves out, or counts while
    leaving it uncovered); 40 rules with its conditions, thresholds and heads."""
    X, Y = _sparse_data(seed)
    ref, ours = _fit_both({**SEARCH, "loss": "logistic-decomposable", "head_type": "complete", "max_rules": 40},
                          X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical + len(exchanged) == 40 and identical >= 38


def _binary_sparse_data(seed: int, n=400, d=40, k=5):
    """Binary attributes (a sixth of the values 1, the rest zeros), as in enron or medical: every stored
    value of an attribute is equal."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.17).astype(np.float32)
    Y = ((X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k))) > 0.2).astype(np.uint8)
    return sp.csr_matrix(X), Y


@pytest.mark.parametrize("settings", [
    {"loss": "logistic-decomposable", "head_type": "complete"},
    {"loss": "logistic-non-decomposable", "head_type": "complete", "label_binning": "none"},
], ids=["label-wise complete", "example-wise complete"])
def test_equal_values_of_sparse_input_stand_in_the_references_order(settings, tmp_path):
    """Sparse binary input: which example the boundary with the zeros leaves out is the first of the
    attribute's equal values in the reference's vector, as GCC's std::sort leaves them
    (engine.core.gnu_sort); in row order instead, the first rule after the default rule already differs."""
    X, Y = _binary_sparse_data(4)
    ref, ours = _fit_both({**SEARCH, **settings, "max_rules": 40}, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical + len(exchanged) == 40 and identical >= 38


def test_after_a_sparse_boundary_the_rule_counts_the_examples_it_rated(tmp_path):
    """The reference goes on from the count its boundary with the zeros rated (one less than a `>`
    covers, one more than a `<=` keeps): its next search and its minimum coverage count that many.
    With min_coverage=20, counting the covered examples instead parts the rules at rule 56 (0: the default rule)."""
    X, Y = _binary_sparse_data(4)
    ref, ours = _fit_both({**SEARCH, "loss": "logistic-decomposable", "head_type": "complete", "max_rules": 60,
                           "rule_induction": "top-down-greedy{min_coverage=20}"}, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical + len(exchanged) == 60 and identical >= 58


def test_emotions_rules_are_the_references(tmp_path):
    """emotions (2/3 split, the dense format there): 30 rules with the reference's heads and training
    coverage; their conditions are the reference's except where an exactly-as-good condition on another
    attribute covers the same examples (7 of 30 when this was written)."""
    path = DATA_DIR / "emotions.arff"
    if not path.exists():
        pytest.skip(f"emotions.arff not found in {DATA_DIR}")
    from engine.datasets import load

    train, _ = load(path).train_test_split(1 / 3, seed=0)
    X, Y = np.asarray(train.X, dtype=np.float64), np.asarray(train.Y, dtype=np.uint8)
    ref, ours = _fit_both({**SEARCH, "head_type": "complete", "max_rules": 30}, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical >= 20, exchanged


def test_beam_search_on_dense_attributes_of_both_signs(tmp_path):
    """Top-down beam search with the reference's search: its first 20 rules on this data (a beam often
    holds one rule reached along two condition orders, whose qualities differ by rounding only, and then
    the reference's comparisons follow its rounding: on other data the rules drift apart sooner)."""
    X, Y = _mixed_data(0)
    ref, ours = _fit_both({**SEARCH, "head_type": "complete", "rule_induction": "top-down-beam-search",
                           "max_rules": 20}, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical + len(exchanged) == 20


def test_retained_attributes_come_first_in_every_sample(tmp_path):
    """feature_sampling's num_retained: the last R attributes are in every sample, before the drawn ones
    (so they win exact ties).  With R = D - 1 the one drawn attribute is the only other one: every step
    sees every attribute in the reference's order, so the rules are the reference's."""
    X, Y = _mixed_data(1)
    D = X.shape[1]
    settings = {**SEARCH, "feature_sampling": f"without-replacement{{sample_size=0.5,num_retained={D - 1}}}",
                "head_type": "complete", "max_rules": 20}
    ref, ours = _fit_both(settings, X, Y, tmp_path)
    identical, exchanged = _compare(ref, ours, X)
    assert identical == 20 and not exchanged
