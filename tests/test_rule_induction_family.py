"""BOOMER's rule-induction family (engine.core.induction): top-down beam search, head refinements,
heads that are not recalculated, IREP rule pruning; checked against brute force on tiny data."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import engine.boomer.instance_sampling as boomer_sampling
from engine.boomer import BoomerClassifier
from engine.core.induction import Induction, RuleInducer
from engine.core.losses import LOSS_CODES, update_statistics
from engine.model import rule_coverage

DET = dict(feature_sampling="none", statistic_type="64-bit", feature_binning="none", label_binning="none",
           holdout="none")


def _data(n=120, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3)
    Y = ((X[:, :k] + 0.7 * rng.normal(size=(n, k))) > 0).astype(np.uint8)
    return X, Y


class _InducerGreedy(BoomerClassifier):
    """Every rule through engine.core.induction with beam width 1 (greedy ties: the earlier attribute)."""

    def _inducer(self):
        return RuleInducer(Induction(beam_width=1))


def _rules(model):
    return [([(c.attribute, c.operator, c.threshold) for c in r.conditions], list(r.head_labels),
             np.asarray(r.head_scores)) for r in model.rules_]


def _same(a, b):
    assert len(a.rules_) == len(b.rules_)
    for (ca, la, sa), (cb, lb, sb) in zip(_rules(a), _rules(b)):
        assert ca == cb and la == lb
        np.testing.assert_allclose(sa, sb, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("settings", [dict(head_type="single"), dict(head_type="complete"),
                                      dict(head_type="single", feature_sampling="without-replacement"),
                                      dict(head_type="complete", loss="logistic-non-decomposable")])
def test_beam_width_one_is_the_greedy_kernel(settings):
    X, Y = _data()
    params = {**DET, "max_rules": 8, **settings}
    _same(BoomerClassifier(**params).fit(X, Y), _InducerGreedy(**params).fit(X, Y))


def test_options_that_change_nothing_without_a_sample_keep_the_greedy_rules():
    X, Y = _data()
    base = BoomerClassifier(**DET, max_rules=8).fit(X, Y)
    for settings in (dict(rule_induction="top-down-greedy{recalculate_predictions=false}"),
                     dict(rule_pruning="irep")):
        _same(base, BoomerClassifier(**DET, max_rules=8, **settings).fit(X, Y))


def _statistics_after_default_rule(model, Y):
    """Gradients and Hessians of the label-wise logistic loss after the default rule."""
    n, K = Y.shape
    F = np.tile(np.asarray(model.rules_[0].head_scores, dtype=np.float64), (n, 1))
    G, H = np.empty((n, K)), np.empty((n, K))
    Y01 = (Y > 0).astype(np.uint8)
    update_statistics(LOSS_CODES["logistic-decomposable"], Y01, F, np.arange(n, dtype=np.int64), n, G, H)
    return G, H


def _conditions(X):
    """Every condition the search can offer on dense data: midpoints between adjacent distinct values."""
    out = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for a, b in zip(values[:-1], values[1:]):
            out += [(j, "<=", 0.5 * (a + b)), (j, ">", 0.5 * (a + b))]
    return out


def _covers(conditions, X):
    mask = np.ones(len(X), dtype=bool)
    for j, op, t in conditions:
        mask &= X[:, j] <= t if op == "<=" else X[:, j] > t
    return mask


def _single_quality(G, H, mask, label=None):
    """Best (quality, label) of a single-label head by the largest |score| (the default choice)."""
    g, h = G[mask].sum(axis=0), H[mask].sum(axis=0)
    labels = range(G.shape[1]) if label is None else [label]
    best = max(labels, key=lambda k: abs(g[k]) / (h[k] + 1.0))
    return -0.5 * g[best] ** 2 / (h[best] + 1.0), best


def test_beam_search_finds_a_better_rule_than_a_myopic_greedy_search():
    """Tiny data (seed chosen so that the greedy search's first condition leads nowhere better): the
    beam's rule is better by the search heuristic, and no rule of at most two conditions (brute force)
    is better than the best one can be."""
    rng = np.random.default_rng(6)
    X, Y = np.round(rng.normal(size=(24, 3)), 2), (rng.random((24, 1)) < 0.5).astype(np.uint8)
    params = dict(**DET, head_type="single", max_rules=2, rule_induction="top-down-greedy{max_conditions=2}")
    greedy = BoomerClassifier(**params).fit(X, Y)
    beam = BoomerClassifier(**{**params, "rule_induction": "top-down-beam-search{beam_width=4,max_conditions=2}"}
                            ).fit(X, Y)
    G, H = _statistics_after_default_rule(greedy, Y)
    q_greedy = _single_quality(G, H, rule_coverage(greedy.rules_[1], X))[0]
    q_beam = _single_quality(G, H, rule_coverage(beam.rules_[1], X))[0]
    # the learners report the same qualities as this brute force (improvement = -quality)
    assert greedy.records_[1].improvement == pytest.approx(-q_greedy, rel=1e-9)
    assert beam.records_[1].improvement == pytest.approx(-q_beam, rel=1e-9)
    assert q_beam < q_greedy - 0.5  # greedy is myopic here, the beam is not
    # brute force over every rule of at most two conditions: a bound the beam cannot beat
    conditions = _conditions(X)
    best = min(_single_quality(G, H, _covers(c, X))[0]
               for r in (1, 2) for c in itertools.combinations(conditions, r) if _covers(c, X).any())
    assert best <= q_beam + 1e-9
    # the greedy rule's first condition is the best single condition (brute force)
    first = [(c.attribute, c.operator, c.threshold) for c in greedy.rules_[1].conditions[:1]]
    assert _single_quality(G, H, _covers(first, X))[0] == pytest.approx(
        min(_single_quality(G, H, _covers([c], X))[0] for c in conditions if 0 < _covers([c], X).sum() < len(X)),
        rel=1e-9)


def test_head_refinements_choose_the_label_for_the_final_coverage():
    """max_head_refinements=0: the label is re-chosen with each condition, so the final label is the
    best one for the rule's coverage (brute force); with 1 it is the first condition's choice."""
    X, Y = _data(n=150, k=3, seed=4)
    params = dict(**DET, head_type="single", max_rules=2)
    free = BoomerClassifier(**params, rule_induction="top-down-greedy{max_head_refinements=0}").fit(X, Y)
    G, H = _statistics_after_default_rule(free, Y)
    rule = free.rules_[1]
    assert list(rule.head_labels) == [_single_quality(G, H, rule_coverage(rule, X))[1]]
    fixed = BoomerClassifier(**params).fit(X, Y)
    first = fixed.rules_[1].conditions[:1]
    label = _single_quality(G, H, _covers([(c.attribute, c.operator, c.threshold) for c in first], X))[1]
    assert list(fixed.rules_[1].head_labels) == [label]


def _fixed_sample(monkeypatch, sample):
    """instance_sampling='without-replacement' draws ``sample`` (a boolean mask) for every rule."""
    def weights_of(weights, count, order, state, slot):
        weights[:] = sample.astype(weights.dtype)
    monkeypatch.setattr(boomer_sampling, "weights_without_replacement", weights_of)


def test_irep_drops_trailing_conditions_that_hurt_on_the_prune_set(monkeypatch):
    X, Y = _data(n=160, k=2, seed=7)
    # positive values: a condition's coverage is then that of its threshold (mlrl-boomer's boundary with
    # the negatives covers by sign, which a threshold between sampled examples does not reproduce)
    X = X + 5.0
    sample = np.zeros(len(X), dtype=bool)
    sample[::3] = True  # a third in the sample: two thirds are the prune set
    _fixed_sample(monkeypatch, sample)
    params = dict(**DET, head_type="single", max_rules=2, instance_sampling="without-replacement{sample_size=0.34}")
    grown = BoomerClassifier(**params).fit(X, Y)
    pruned = BoomerClassifier(**params, rule_pruning="irep").fit(X, Y)
    body = [(c.attribute, c.operator, c.threshold) for c in grown.rules_[1].conditions]
    label = int(grown.rules_[1].head_labels[0])
    assert len(body) >= 2
    # by hand: the prune set's quality of the head's label for each prefix; the whole rule first, then
    # prefixes 1 .. n-1 in order (a tie with the whole rule goes to the shorter prefix)
    G, H = _statistics_after_default_rule(grown, Y)
    prune = ~sample
    best_q = _single_quality(G, H, _covers(body, X) & prune, label)[0]
    keep = len(body)
    for n in range(1, len(body)):
        q = _single_quality(G, H, _covers(body[:n], X) & prune, label)[0]
        if q < best_q or (keep == len(body) and not best_q < q):
            best_q, keep = q, n
    assert keep < len(body)  # the case prunes something
    assert [(c.attribute, c.operator, c.threshold) for c in pruned.rules_[1].conditions] == body[:keep]
    # recalculated on every covered training example (unit weights)
    g, h = G[_covers(body[:keep], X), label].sum(), H[_covers(body[:keep], X), label].sum()
    assert pruned.rules_[1].head_scores[0] == pytest.approx(-0.3 * g / (h + 1.0), rel=1e-9)


def test_predictions_not_recalculated_come_from_the_sample(monkeypatch):
    X, Y = _data(n=100, k=2, seed=2)
    sample = np.zeros(len(X), dtype=bool)
    sample[:60] = True
    _fixed_sample(monkeypatch, sample)
    params = dict(**DET, head_type="complete", max_rules=2, instance_sampling="without-replacement{sample_size=0.6}")
    kept = BoomerClassifier(**params, rule_induction="top-down-greedy{recalculate_predictions=false}").fit(X, Y)
    recalculated = BoomerClassifier(**params).fit(X, Y)
    rule = kept.rules_[1]
    assert _rules(kept)[1][0] == _rules(recalculated)[1][0]  # the same body
    G, H = _statistics_after_default_rule(kept, Y)
    covered = rule_coverage(rule, X)
    for mask, model in ((covered & sample, kept), (covered, recalculated)):
        g, h = G[mask].sum(axis=0), H[mask].sum(axis=0)
        np.testing.assert_allclose(model.rules_[1].head_scores, -0.3 * g / (h + 1.0), rtol=1e-9)


@pytest.mark.parametrize("settings", [
    dict(rule_induction="top-down-beam-search{beam_width=1}"),
    dict(rule_induction="top-down-beam-search{max_conditions=1}"),
    dict(rule_induction="top-down-beam-search", max_conditions=1),
    dict(rule_induction="top-down-greedy{max_head_refinements=-1}"),
    dict(rule_induction="top-down-greedy{beam_width=3}"),
    dict(rule_pruning="reduced-error"),
    dict(rule_pruning="irep{x=1}"),
])
def test_invalid_values_are_refused(settings):
    X, Y = _data(n=30)
    with pytest.raises(ValueError):
        BoomerClassifier(**settings).fit(X, Y)


def test_the_parameters_are_declared_for_the_panel():
    declared = {p.name: p for p in BoomerClassifier.PARAMETERS}
    assert declared["rule_induction"].shown and not declared["rule_pruning"].shown
    assert set(declared["rule_induction"].choices) == {"top-down-greedy", "top-down-beam-search"}
    assert set(declared["rule_pruning"].choices) == {"none", "irep"}
    assert BoomerClassifier().get_params()["rule_pruning"] == "none"


def test_beam_search_streams_and_can_be_cancelled():
    import threading

    X, Y = _data(n=200)
    cancel = threading.Event()
    est = BoomerClassifier(**DET, max_rules=50, rule_induction="top-down-beam-search")
    records = []
    for record in est.fit_iter(X, Y, cancel=cancel):
        records.append(record)
        if len(records) == 3:
            cancel.set()
    assert len(records) == 3 and est.records_ == records
