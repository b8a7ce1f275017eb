"""``sample_weight``, ``output_sampling`` and the attribute-type keywords of BoomerClassifier.fit,
against hand-computed values and brute force (mlrl-boomer 0.15.6's meaning, engine.sampling; the
comparison with the reference itself is tests/test_mlrl_parity_weights.py)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.core.reference_random import draws_with_replacement
from engine.model import rule_coverage
from engine.sampling import OutputSampler, feature_sample_plan, sub_packed_columns
from engine.core.losses import packed_index

FAST = dict(max_rules=6, feature_sampling="none", statistic_type="64-bit", head_type="complete",
            loss="logistic-decomposable")


def _data(n=120, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :k] + 0.5 * rng.normal(size=(n, k)) > 0).astype(np.uint8)
    return X, Y


# -- validation: one clear ValueError before any work -------------------------------------------------

@pytest.mark.parametrize("weights, message", [
    (np.ones(119), "119 weights for 120 examples"),
    (np.ones(121), "121 weights for 120 examples"),
    (np.ones((120, 2)), "1-D"),
    (np.r_[np.ones(119), -1.0], "negative"),
    (np.r_[np.ones(119), np.nan], "NaN"),
    (np.r_[np.ones(119), np.inf], "infinite"),
    (np.zeros(120), "every weight is zero"),
    (["a"] * 120, "numbers"),
])
def test_bad_weights_are_refused_before_any_work(weights, message):
    X, Y = _data()
    est = BoomerClassifier(**FAST)
    with pytest.raises(ValueError, match=message):
        est.fit_iter(X, Y, sample_weight=weights)  # raised by the call, before the first rule
    assert not hasattr(est, "records_")


def test_other_learners_refuse_weights_by_name():
    from engine.seco import SeCoClassifier

    X, Y = _data()
    with pytest.raises(ValueError, match="SeCoClassifier does not support sample_weight"):
        SeCoClassifier(max_rules=2).fit_iter(X, Y, sample_weight=np.ones(120))


def test_weights_list_and_integers_are_accepted():
    X, Y = _data()
    est = BoomerClassifier(**FAST, instance_sampling="with-replacement").fit(X, Y, sample_weight=[2] * 120)
    assert len(est.rules_) == 6


# -- what the weights change ---------------------------------------------------------------------------

@pytest.mark.parametrize("sampling", ["none", "without-replacement", "stratified-output-wise",
                                      "stratified-example-wise"])
def test_weights_change_nothing_without_sampling_with_replacement(sampling):
    X, Y = _data()
    w = np.random.default_rng(1).random(120) * 4
    w[:30] = 0.0
    plain = BoomerClassifier(**FAST, instance_sampling=sampling).fit(X, Y)
    weighted = BoomerClassifier(**FAST, instance_sampling=sampling).fit(X, Y, sample_weight=w)
    assert [r.conditions for r in plain.rules_] == [r.conditions for r in weighted.rules_]
    np.testing.assert_array_equal(plain.decision_function(X), weighted.decision_function(X))


def test_weighted_draws_add_the_weight_of_each_draw():
    """Brute force: the draws are the unweighted sampler's (same generator state), each adds the weight."""
    w = np.random.default_rng(2).random(50)
    order = np.arange(50, dtype=np.int64)
    state_a = np.array([12345], dtype=np.uint64)
    state_b = state_a.copy()
    counts = np.zeros(50)
    draws_with_replacement(counts, 80, order, np.empty(0), state_a, 0)
    out = np.zeros(50)
    draws_with_replacement(out, 80, order, w, state_b, 0)
    assert state_a[0] == state_b[0]
    np.testing.assert_array_equal(out, counts * w)
    assert counts.sum() == 80


def test_unit_weights_are_no_weights_with_replacement():
    X, Y = _data()
    settings = dict(FAST, instance_sampling="with-replacement")
    plain = BoomerClassifier(**settings).fit(X, Y)
    ones = BoomerClassifier(**settings).fit(X, Y, sample_weight=np.ones(120))
    np.testing.assert_array_equal(plain.decision_function(X), ones.decision_function(X))


def test_constant_weights_without_l2_give_the_same_rules():
    """Without L2 a condition's quality scales with the weights, and heads are computed from every
    covered example unweighted: a constant weight changes nothing."""
    X, Y = _data()
    settings = dict(FAST, instance_sampling="with-replacement", l2_regularization_weight=0.0)
    plain = BoomerClassifier(**settings).fit(X, Y)
    tripled = BoomerClassifier(**settings).fit(X, Y, sample_weight=np.full(120, 3.0))
    assert [r.conditions for r in plain.rules_] == [r.conditions for r in tripled.rules_]
    np.testing.assert_allclose(plain.decision_function(X), tripled.decision_function(X), rtol=1e-12)


def test_the_first_condition_is_the_brute_force_best_on_the_weighted_draws():
    """One label, one condition: the chosen condition minimises -g^2 / (2 (h + l2)) over every
    attribute and split of the drawn examples, with g, h the weighted sums of the drawn examples
    (zero-weight examples add nothing); its threshold lies between the two drawn values, at the midpoint of
    two neighbouring values of all the examples (as mlrl-boomer's vectors hold the examples out of the
    sample too, engine.core.sweep.OUT_OF_SAMPLE); the head then comes from every covered example, unweighted."""
    rng = np.random.default_rng(3)
    n = 60
    X = rng.normal(size=(n, 3))
    Y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0).astype(np.uint8)[:, None]
    w = rng.random(n) * 2
    w[rng.random(n) < 0.3] = 0.0
    est = BoomerClassifier(max_rules=2, feature_sampling="none", statistic_type="64-bit", head_type="single",
                           instance_sampling="with-replacement{sample_size=1.0}", max_conditions=1,
                           random_state=7).fit(X, Y, sample_weight=w)
    # the draws of the first rule: the instance sampler's generator seeded with random_state (no holdout)
    drawn = np.zeros(n)
    draws_with_replacement(drawn, n, np.arange(n, dtype=np.int64), w, np.array([7], dtype=np.uint64), 0)
    default = est.rules_[0].head_scores[0]
    p = 1.0 / (1.0 + np.exp(-default))
    ysign = np.where(Y[:, 0] > 0, 1.0, -1.0)
    g = -ysign / (1.0 + np.exp(ysign * default))  # logistic gradient at the default score
    h = p * (1.0 - p)
    best = (np.inf, None)
    for j in range(3):
        values = np.unique(X[drawn > 0, j])
        for a, b in zip(values[:-1], values[1:]):
            t = (a + b) / 2
            for op, mask in (("<=", X[:, j] <= t), (">", X[:, j] > t)):
                gs, hs = (drawn * mask) @ g, (drawn * mask).sum() * h
                q = -gs * gs / (2 * (hs + 1.0))
                if q < best[0] - 1e-12:
                    best = (q, (j, op, a, b))
    rule = est.rules_[1]
    (cond,) = rule.conditions
    j, op, a, b = best[1]
    assert (cond.attribute, cond.operator) == (j, op) and a < cond.threshold < b
    every = np.unique(X[:, j].astype(np.float32))
    midpoints = (every[:-1] + every[1:]) / 2
    assert np.min(np.abs(midpoints - cond.threshold)) < 1e-6
    covered = rule_coverage(rule, X.astype(np.float32))
    expected = -0.3 * g[covered].sum() / (covered.sum() * h + 1.0)
    assert rule.head_scores[0] == pytest.approx(expected, rel=1e-9)


def test_weights_leaving_one_class_of_a_1d_target_make_it_the_prediction():
    rnd = np.random.RandomState(0)
    X, X_test = rnd.uniform(size=(10, 10)), rnd.uniform(size=(10, 10))
    y = np.arange(10) % 2
    est = BoomerClassifier(max_rules=5).fit(X, y, sample_weight=y.copy())
    assert list(est.classes_) == [1]
    np.testing.assert_array_equal(est.predict(X_test), np.ones(10))


def test_weights_of_the_holdout_part_are_dropped_with_it():
    X, Y = _data()
    w = np.random.default_rng(4).random(120)
    est = BoomerClassifier(**FAST, instance_sampling="with-replacement", holdout="random",
                           global_pruning="post-pruning{min_rules=2}").fit(X, Y, sample_weight=w)
    assert len(est.holdout_indices_) == 39  # mlrl-boomer's floor(float32(0.33) x 120)


# -- output sampling -------------------------------------------------------------------------------------

def test_round_robin_heads_predict_one_label_after_the_other():
    X, Y = _data(k=3)
    est = BoomerClassifier(**dict(FAST, max_rules=8), output_sampling="round-robin").fit(X, Y)
    assert [list(r.head_labels) for r in est.rules_[1:]] == [[t % 3] for t in range(7)]


@pytest.mark.parametrize("value, size", [("without-replacement", 1),
                                         ("without-replacement{sample_size=0.5,max_samples=0}", 2),
                                         ("without-replacement{sample_size=0.2,min_samples=3,max_samples=0}", 3),
                                         ("without-replacement{sample_size=0.9,max_samples=2}", 2)])
def test_complete_heads_predict_exactly_the_sampled_labels(value, size):
    assert OutputSampler("without-replacement", _options(value), 4).size == size
    X, Y = _data(k=4, d=5)
    Y = np.column_stack([Y, Y[:, 0] ^ Y[:, 1]])[:, :4]
    est = BoomerClassifier(**dict(FAST, max_rules=10), output_sampling=value).fit(X, Y)
    seen = set()
    for rule in est.rules_[1:]:
        assert len(rule.head_labels) == size and list(rule.head_labels) == sorted(set(rule.head_labels))
        seen.add(tuple(rule.head_labels))
    assert len(seen) > 1  # a new sample per rule


def _options(value):
    from engine.options import parse_option
    return parse_option("output_sampling", value)[1]


def test_a_sampled_head_is_the_covered_examples_scores_of_the_sampled_labels():
    """Hand computation of the first rule after the default rule: logistic gradients and Hessians at
    the default scores, summed over the covered examples, -eta g / (h + l2) per sampled label."""
    X, Y = _data(k=4, d=5)
    est = BoomerClassifier(**dict(FAST, max_rules=2), output_sampling="without-replacement{sample_size=0.5,"
                                                                      "max_samples=0}").fit(X, Y)
    default = np.asarray(est.rules_[0].head_scores)
    rule = est.rules_[1]
    covered = rule_coverage(rule, X.astype(np.float32))
    ysign = np.where(Y > 0, 1.0, -1.0)
    g = -ysign / (1.0 + np.exp(ysign * default))
    p = 1.0 / (1.0 + np.exp(-default))
    h = np.broadcast_to(p * (1 - p), Y.shape)
    labels = list(rule.head_labels)
    expected = -0.3 * g[covered][:, labels].sum(axis=0) / (h[covered][:, labels].sum(axis=0) + 1.0)
    np.testing.assert_allclose(rule.head_scores, expected, rtol=1e-9)


@pytest.mark.parametrize("loss", ["logistic-non-decomposable", "squared-error-non-decomposable"])
def test_example_wise_heads_solve_the_sampled_labels_system(loss):
    """A complete head of an example-wise loss on sampled labels solves the principal K' x K' system
    of the covered examples' Hessians: the packed sub-Hessian's columns are the submatrix's."""
    cols = sub_packed_columns(np.array([1, 3]), 4)
    assert list(cols) == [packed_index(1, 1, 4), packed_index(1, 3, 4), packed_index(3, 3, 4)]
    X, Y = _data(k=4, d=5)
    est = BoomerClassifier(**dict(FAST, max_rules=6, loss=loss),
                           output_sampling="without-replacement{sample_size=0.5,max_samples=0}").fit(X, Y)
    assert all(len(r.head_labels) == 2 for r in est.rules_[1:])
    assert np.isfinite(est.decision_function(X)).all()


def test_output_sampling_option_values_are_checked():
    X, Y = _data()
    for value in ("without-replacement{sample_size=1.0}", "without-replacement{sample_size=0}",
                  "without-replacement{min_samples=3,max_samples=2}", "round-robin{x=1}", "random"):
        with pytest.raises(ValueError, match="output_sampling"):
            BoomerClassifier(output_sampling=value).fit(X, Y)


def test_output_sampling_with_another_rule_induction_is_refused():
    X, Y = _data()
    for other in (dict(rule_induction="top-down-beam-search"), dict(rule_pruning="irep")):
        with pytest.raises(ValueError, match="output_sampling works with the default greedy rule induction"):
            BoomerClassifier(output_sampling="round-robin", **other).fit(X, Y)


# -- attribute types ------------------------------------------------------------------------------------

def test_nominal_feature_indices_is_nominal_attributes():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 4, size=100), rng.normal(size=100)])
    Y = ((X[:, 0] == 2) | (X[:, 1] > 1)).astype(np.uint8)[:, None]
    a = BoomerClassifier(**FAST).fit(X, Y, nominal_attributes=[0])
    b = BoomerClassifier(**FAST).fit(X, Y, nominal_feature_indices=[0])
    assert [r.conditions for r in a.rules_] == [r.conditions for r in b.rules_]
    assert any(c.operator in ("==", "!=") for r in b.rules_ for c in r.conditions)
    with pytest.raises(ValueError, match="give one"):
        BoomerClassifier(**FAST).fit(X, Y, nominal_attributes=[0], nominal_feature_indices=[0])


def test_feature_sample_plan_retains_the_last_attributes():
    assert feature_sample_plan(10, 0.0, 1, 0, 0) == (4, 0)  # floor(log2(9) + 1)
    assert feature_sample_plan(10, 0.0, 1, 0, 2) == (3, 2)  # floor(log2(7) + 1) of the first 8
    assert feature_sample_plan(10, 0.5, 1, 0, 4) == (3, 4)
    assert feature_sample_plan(3, 0.0, 1, 0, 5) == (0, 3)


def test_retained_attributes_are_first_in_every_sample():
    """sample_features with num_retained r (the state's second entry): perm[:r] stays, the next m - r
    are a uniform sample of the others (each of them drawn about equally often)."""
    from engine.core.refinement import sample_features

    D, r, m = 10, 3, 6
    perm = np.roll(np.arange(D, dtype=np.int64), r)
    state = np.array([12345, r], dtype=np.uint64)
    counts = np.zeros(D)
    for _ in range(3000):
        sample_features(perm, m, state)
        assert list(perm[:r]) == [7, 8, 9]
        assert len(set(perm[:m].tolist())) == m and set(perm.tolist()) == set(range(D))
        counts[perm[r:m]] += 1
    assert counts[7:].sum() == 0
    np.testing.assert_allclose(counts[:7] / 3000, (m - r) / 7, atol=0.05)


def test_num_retained_is_mlrl_boomers():
    """num_retained: accepted; retaining every attribute samples none (the model without sampling),
    and the sampled model keeps the retained attributes in every step (a rule on the last attribute
    alone is found with one drawn attribute per step)."""
    X, Y = _data(n=150, d=6, k=2)
    Y[:, 1] = X[:, 5] > 0.3  # a label the last attribute decides
    every = BoomerClassifier(**{**FAST, "feature_sampling": "without-replacement{num_retained=6}"}).fit(X, Y)
    none = BoomerClassifier(**FAST).fit(X, Y)
    assert [r.conditions for r in every.rules_] == [r.conditions for r in none.rules_]
    retained = BoomerClassifier(**{**FAST, "max_rules": 12, "head_type": "single",
                                    "feature_sampling": "without-replacement{max_samples=1,sample_size=0.1,"
                                                        "num_retained=1}"}).fit(X, Y)
    assert all(any(c.attribute == 5 for c in rule.conditions) for rule in retained.rules_[1:]
               if list(rule.head_labels) == [1])


# -- ordinal attributes ---------------------------------------------------------------------------------

def _ordinal_data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.choice([0, 1, 3, 5, 9], n), rng.integers(0, 2, n), rng.normal(size=n)]).astype(float)
    Y = np.column_stack([X[:, 0] >= 3, (X[:, 1] == 1) ^ (X[:, 2] > 1)]).astype(np.uint8)
    return X, Y


def test_ordinal_thresholds_are_values_and_cover_what_the_midpoints_cover():
    X, Y = _ordinal_data()
    numeric = BoomerClassifier(**FAST).fit(X, Y)
    ordinal = BoomerClassifier(**FAST).fit(X, Y, ordinal_feature_indices=[0, 1])
    values = set(np.unique(X[:, 0]))
    conds = [c for r in ordinal.rules_ for c in r.conditions if c.attribute == 0]
    assert conds and all(c.threshold in values and c.operator in ("<=", ">") for c in conds)
    # the midpoint 2.0 between 1 and 3 becomes 1 ('<= 1' / '> 1'), covering the same training examples
    assert any(c.threshold == 1.0 for c in conds)
    np.testing.assert_allclose(ordinal.decision_function(X), numeric.decision_function(X), rtol=1e-12)
    for r_num, r_ord in zip(numeric.rules_, ordinal.rules_):
        assert np.array_equal(rule_coverage(r_num, X.astype(np.float32)), rule_coverage(r_ord, X.astype(np.float32)))


def test_a_binary_ordinal_attribute_has_equality_conditions():
    X, Y = _ordinal_data()
    est = BoomerClassifier(**FAST).fit(X, Y, ordinal_feature_indices=[1])
    conds = [c for r in est.rules_ for c in r.conditions if c.attribute == 1]
    assert conds and all(c.operator == "==" and c.threshold in (0.0, 1.0) for c in conds)


def test_ordinal_values_lose_their_fraction():
    X, Y = _ordinal_data()
    Xf = X.copy()
    Xf[:, 0] += 0.6  # cut off: the same integers
    a = BoomerClassifier(**FAST).fit(X, Y, ordinal_feature_indices=[0])
    b = BoomerClassifier(**FAST).fit(Xf, Y, ordinal_feature_indices=[0])
    assert [r.conditions for r in a.rules_] == [r.conditions for r in b.rules_]


@pytest.mark.parametrize("kwargs, message", [
    (dict(ordinal_feature_indices=[3]), "ordinal_feature_indices contains an index outside"),
    (dict(ordinal_feature_indices=[0, 0]), "ordinal_feature_indices names an attribute twice"),
    (dict(ordinal_feature_indices=[0], nominal_attributes=[0]), "nominal and as ordinal"),
])
def test_bad_ordinal_indices_are_refused(kwargs, message):
    X, Y = _ordinal_data()
    with pytest.raises(ValueError, match=message):
        BoomerClassifier(**FAST).fit_iter(X, Y, **kwargs)


def test_learners_without_ordinal_attributes_refuse_them():
    from engine.seco import SeCoClassifier

    X, Y = _ordinal_data()
    with pytest.raises(ValueError, match="does not support ordinal_feature_indices"):
        SeCoClassifier(max_rules=2).fit_iter(X, Y, ordinal_feature_indices=[0])
