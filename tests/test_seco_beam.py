"""SeCo's top-down beam search and sequential post-optimization (mlrl-seco 0.15.6's, engine/seco/) checked
without the reference: brute force on tiny data, the order the reference offers a rule's attributes in,
and the revisions' invariants.  (Parity with the reference: tests/test_mlrl_seco_parity_beam.py.)"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.core.seco_refine import LabelCounts, mlrl_apply
from engine.core.seco_search import HEAD_SINGLE_MODE, Heuristic
from engine.learner import learned_rules
from engine.registry import get as get_learner
from engine.rules import Condition
from engine.seco import NO_VECTORS, MLRL_HEURISTICS, SeCoClassifier, _conditions_attributes, _label_counts

from test_seco import random_problem


def _xor_problem(seed):
    """One label, mostly the XOR of two attributes' halves (4 values each, a third attribute of noise)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(16, 3)).astype(float)
    Y = (((X[:, 0] >= 2) ^ (X[:, 1] >= 2)) & (rng.random(16) < 0.9)).astype(np.uint8)[:, None]
    return X, Y


def _quality(Y, covered):
    """The default heuristic's (F-measure, beta 0.25) quality of the single-label head of a body covering
    ``covered``, no pair covered yet (the search's own head evaluation)."""
    n, K = Y.shape
    majority = (Y.sum(axis=0) > n / 2).astype(np.uint8)
    Wm, U, maj = _label_counts(Y, np.zeros((n, K), np.int32), np.ones(n, np.int64), np.arange(K), majority)
    ones = np.ones(K + 1, np.float32)
    heu = Heuristic(MLRL_HEURISTICS["f-measure"], np.float32(0.25), HEAD_SINGLE_MODE, ones, ones)
    q, _ = mlrl_apply(-1, False, NO_VECTORS, covered.astype(np.uint8), (0, 0, 0), LabelCounts(Wm, U, maj), heu,
                      np.empty(K, np.float32), np.empty(K, np.int64))
    return float(q)


def _best_of_two_conditions(X, Y):
    """Brute force: the best quality of any body of one or two conditions (thresholds between adjacent values)."""
    conditions = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for threshold in (values[:-1] + values[1:]) / 2:
            conditions += [X[:, j] <= threshold, X[:, j] > threshold]
    best = max(_quality(Y, c) for c in conditions)
    return max(best, max(_quality(Y, a & b) for a, b in itertools.combinations(conditions, 2) if (a & b).any()))


@pytest.mark.parametrize("seed", [3, 7, 13, 17, 23, 30, 31])
def test_the_beam_finds_the_best_two_condition_rule_the_greedy_search_misses(seed):
    """On XOR-like data the greedy search's best first condition leads to a worse rule of two conditions than
    brute force finds; a beam of 8 finds the best one (its first rule's quality is the brute-force optimum).
    The reference's beam does not promise the optimum in general (an attribute's list keeps only refinements
    better than its first accepted one, a beam that is not full is not sorted, so its front need not be its
    best, and refined rules leave the beam): of 101 such problems (seeds 0-199) it finds it in 88, and is never
    worse than the greedy search; these seeds are ones where it finds it and the greedy search does not."""
    X, Y = _xor_problem(seed)
    best = _best_of_two_conditions(X, Y)
    greedy = SeCoClassifier(instance_sampling="none", rule_induction="top-down-greedy{max_conditions=2}",
                            max_rules=2).fit(X, Y)
    beam = SeCoClassifier(instance_sampling="none", max_rules=2,
                          rule_induction="top-down-beam-search{max_conditions=2,beam_width=8}").fit(X, Y)
    assert greedy.records_[0].extra["heuristic"] < best
    assert beam.records_[0].extra["heuristic"] == best
    rule = beam.rules_[0]
    covered = np.ones(len(X), dtype=bool)
    for c in rule.conditions:
        covered &= X[:, c.attribute] <= c.threshold if c.operator == "<=" else X[:, c.attribute] > c.threshold
    assert _quality(Y, covered) == best  # the rule's thresholds cover what its search rated


@pytest.mark.parametrize("attributes, order", [
    ([1, 41, 71], [71, 41, 1]),
    ([1, 14, 3, 27], [3, 27, 14, 1]),
    ([5, 5, 18, 31, 2], [2, 31, 18, 5]),
    ([0, 13, 26, 39, 52, 65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14],
     [14, 12, 11, 9, 8, 0, 13, 26, 10, 39, 52, 1, 2, 3, 4, 5, 6, 65, 7]),
    ([70, 1, 69, 3, 68, 5, 67, 7, 66, 9, 65, 11, 64, 13, 63, 15],
     [15, 13, 70, 63, 5, 1, 66, 3, 68, 67, 9, 7, 65, 69, 11, 64]),
])
def test_post_optimization_offers_a_rules_attributes_in_the_references_order(attributes, order):
    """Without resample_features the reference relearns a rule on its attributes in the iteration order of a
    std::unordered_set<uint32> filled with them; the expected orders are those of g++ 12's libstdc++ (bucket
    collisions, and rehashing at the 14th attribute, included)."""
    conditions = [Condition(a, "<=", 0.0) for a in attributes]
    assert list(_conditions_attributes(conditions)) == order


@pytest.mark.parametrize("post", ["sequential", "sequential{num_iterations=3,resample_features=false}",
                                  "sequential{refine_heads=true}"])
@pytest.mark.parametrize("induction", ["top-down-greedy", "top-down-beam-search{beam_width=3}"])
def test_revisions_replace_rules_in_place(post, induction):
    """Each pass revises every learned rule in order (a RuleRevision step naming the model index it replaces);
    replaying the steps gives the model; without refine_heads a revised rule predicts a subset of the old
    head's labels, without resample_features it uses only the old body's attributes."""
    X, Y = random_problem(3)
    est = SeCoClassifier(rule_induction=induction, post_optimization=post, max_rules=12, random_state=2).fit(X, Y)
    rules = [r for r in est.records_ if r.kind == "rule"]
    revisions = [r for r in est.records_ if r.kind == "revision"]
    iterations = 3 if "num_iterations=3" in post else 2
    learned = len(rules) - 1  # the default rule is the last step
    assert est.records_[-1].kind == "rule" and est.records_[-1].rule.conditions == ()
    assert 0 < len(revisions) <= learned * iterations
    assert [r.index for r in est.records_] == list(range(len(est.records_)))
    assert all(r.revises < learned and 1 <= r.iteration <= iterations for r in revisions)
    assert learned_rules(est.records_) == est.rules_
    for r in revisions:
        if "refine_heads=true" not in post:
            assert set(r.rule.head_labels) <= set(r.old_rule.head_labels)
        if "resample_features=false" in post:
            assert {c.attribute for c in r.rule.conditions} <= {c.attribute for c in r.old_rule.conditions}
    last = revisions[-1]
    assert last.train_hamming == pytest.approx(np.mean(est.predict(X) != Y))


def test_post_optimization_relearns_against_the_pairs_no_other_rule_covers():
    """With one rule the revision relearns it against all pairs again (the rule taken back), so with
    deterministic settings it learns the same rule; the registry counts the revision steps a run streams."""
    X, Y = random_problem(5)
    plain = SeCoClassifier(instance_sampling="none", max_rules=2).fit(X, Y)
    revised = SeCoClassifier(instance_sampling="none", max_rules=2, post_optimization="sequential").fit(X, Y)
    assert revised.rules_ == plain.rules_
    assert [r.rule for r in revised.records_ if r.kind == "revision"] == [plain.rules_[0]] * 2
    spec = get_learner("seco")
    assert spec.steps_of({"max_rules": 10, "post_optimization": "sequential{num_iterations=3}"}) == 10 + 27
    assert spec.steps_of({"max_rules": 10}) == 10
    assert spec.steps_of({"max_rules": 10, "post_optimization": "sequential",
                          "search": "pakdd-2018{heuristic=subset-accuracy}"}) == 10
