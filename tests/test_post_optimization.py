"""BOOMER's ``post_optimization`` (mlrl-boomer 0.15.6's sequential post-optimization): each rule in
turn is taken out of the model and relearned on the statistics of the others, streamed as revision
steps (``engine.learner.RuleRevision``).  Checked here by hand: the relearned rule is the best one
on the others' statistics (brute force over every single-condition rule), it never does worse than
the rule it replaces there, the model and the streamed losses follow the revisions, and the options
do what they say.  Parity with the reference: ``tests/test_mlrl_parity_post_optimization.py``."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.learner import RuleRecord, RuleRevision, learned_rules
from engine.metrics import hamming_loss, subset_zero_one_loss
from engine.model import RuleModel, rule_coverage
from engine.persistence import load_estimator

EXACT = dict(feature_sampling="none", statistic_type="64-bit", feature_binning="none", label_binning="none",
             holdout="none")


def _data(n=120, d=5, k=3, seed=0):
    """float32-exact attributes; labels that depend on them."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3).astype(np.float32).astype(np.float64)
    W = rng.normal(size=(d, k))
    Y = ((X @ W + 0.5 * rng.normal(size=(n, k))) > 0).astype(np.uint8)
    return X, Y


def _steps(est, X, Y, *test):
    return list(est.fit_iter(X, Y, *test))


@pytest.mark.parametrize("value", ["sequential{num_iterations=0}", "sequential{num_iterations=1.5}",
                                   "sequential{bogus=1}", "sequential{refine_heads=yes}", "bogus", "Sequential",
                                   "none{num_iterations=2}", "", 2])  # None is the default, as in mlrl-boomer
def test_invalid_values_are_refused_before_any_work(value):
    X, Y = _data()
    est = BoomerClassifier(post_optimization=value, max_rules=3)
    with pytest.raises(ValueError, match="post_optimization"):
        est.fit_iter(X, Y)  # the checks run when fit_iter is called, before its first step
    assert not hasattr(est, "records_")


def test_none_is_the_default_and_streams_no_revisions():
    X, Y = _data()
    assert BoomerClassifier().post_optimization == "none"
    steps = _steps(BoomerClassifier(max_rules=5, **EXACT), X, Y)
    assert all(isinstance(s, RuleRecord) for s in steps) and len(steps) == 5


def test_revisions_stream_after_the_rules_naming_the_rule_they_replace():
    """Every pass relearns rules 1 .. n - 1 (the default rule stays) in learning order; each revision
    carries the rule it replaces, its losses are the model's at that moment, and the final model
    is the learned rules with every revision applied."""
    X, Y = _data()
    Xt, Yt = _data(60, seed=1)
    est = BoomerClassifier(max_rules=6, post_optimization="sequential{num_iterations=2}", **EXACT)
    steps = _steps(est, X, Y, Xt, Yt)
    rules, revisions = steps[:6], steps[6:]
    assert all(s.kind == "rule" for s in rules) and all(isinstance(s, RuleRevision) for s in revisions)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert [(r.iteration, r.revises) for r in revisions] == [(i, p) for i in (1, 2) for p in range(1, 6)]
    current = [s.rule for s in rules]
    for r in revisions:
        assert r.old_rule is current[r.revises] and r.rules == () and r.component == (r.rule,)
        current[r.revises] = r.rule
        model = RuleModel(list(current), X.shape[1], Y.shape[1])
        P, Pt = model.predict(X), model.predict(Xt)
        assert r.train_hamming == pytest.approx(hamming_loss(Y, P))
        assert r.train_subset == pytest.approx(subset_zero_one_loss(Y, P))
        assert r.test_hamming == pytest.approx(hamming_loss(Yt, Pt))
        assert r.test_subset == pytest.approx(subset_zero_one_loss(Yt, Pt))
        assert r.coverage == int(rule_coverage(r.rule, X).sum())
        assert r.metrics["train_hamming"] == r.train_hamming
    assert [str(r) for r in est.rules_] == [str(r) for r in current] == [str(r) for r in learned_rules(steps)]
    assert sum(str(a) != str(b) for a, b in zip(current, (s.rule for s in rules))) > 0  # something changed
    np.testing.assert_allclose(est.decision_function(Xt), RuleModel(current, X.shape[1], Y.shape[1]).scores(Xt))


def _logistic_statistics(Y, F):
    """Gradients and Hessians of the label-wise logistic loss log(1 + exp(-y f)), y = +-1."""
    y = np.where(Y > 0, 1.0, -1.0)
    p = 1.0 / (1.0 + np.exp(y * F))  # sigmoid(-y f)
    return -y * p, p * (1.0 - p)


def _quality(G, H, rows, l2):
    """The objective of the optimal complete head on ``rows`` (eq. 15 with L2, label-wise)."""
    g, h = G[rows].sum(axis=0), H[rows].sum(axis=0)
    return float(np.sum(-0.5 * g * g / (h + l2)))


def _best_single_condition(X, G, H, l2):
    """The best quality of any rule with one condition (<= or > a threshold between two values)."""
    best = 0.0
    for j in range(X.shape[1]):
        order = np.argsort(X[:, j], kind="stable")
        values = X[order, j]
        for i in range(1, len(values)):
            if values[i] == values[i - 1]:
                continue
            best = min(best, _quality(G, H, order[:i], l2), _quality(G, H, order[i:], l2))
    return best


@pytest.mark.parametrize("options", ["sequential{num_iterations=2}", "sequential{refine_heads=true}"])
def test_each_relearned_rule_is_the_best_rule_on_the_statistics_of_the_others(options):
    """Single-condition rules, no sampling: the search is exhaustive, so each relearned rule's objective
    on the others' statistics is the brute-force best, never worse than the replaced rule's there, and
    its head is the shrunk optimal head of what it covers."""
    X, Y = _data(90, d=4)
    l2, eta = 1.0, 0.3
    est = BoomerClassifier(max_rules=5, max_conditions=1, shrinkage=eta, l2_regularization_weight=l2,
                           post_optimization=options, **EXACT)
    steps = _steps(est, X, Y)
    current = [s.rule for s in steps if s.kind == "rule"]
    revisions = [s for s in steps if s.kind == "revision"]
    assert revisions
    for r in revisions:
        others = RuleModel([q for p, q in enumerate(current) if p != r.revises], X.shape[1], Y.shape[1])
        G, H = _logistic_statistics(Y, others.scores(X))
        best = _best_single_condition(X, G, H, l2)
        new_rows = np.flatnonzero(rule_coverage(r.rule, X))
        old_rows = np.flatnonzero(rule_coverage(r.old_rule, X))
        assert -r.improvement == pytest.approx(best, rel=1e-9)
        assert _quality(G, H, new_rows, l2) == pytest.approx(best, rel=1e-9)
        assert _quality(G, H, new_rows, l2) <= _quality(G, H, old_rows, l2) + 1e-12
        g, h = G[new_rows].sum(axis=0), H[new_rows].sum(axis=0)
        np.testing.assert_allclose(r.rule.head_scores, -eta * g / (h + l2), rtol=1e-9)
        current[r.revises] = r.rule


@pytest.mark.parametrize("head_type", ["single", "partial-fixed{output_ratio=0.5}"])
def test_fixed_heads_keep_their_outputs_and_refined_heads_may_change_them(head_type):
    """refine_heads=false (the default): a rule is relearned for its outputs (a complete head on them);
    true: its outputs are chosen again (here some partial heads change theirs)."""
    X, Y = _data(k=4)
    params = dict(max_rules=12, head_type=head_type, **EXACT)
    kept = _steps(BoomerClassifier(post_optimization="sequential", **params), X, Y)
    revisions = [s for s in kept if s.kind == "revision"]
    assert revisions and all(list(r.rule.head_labels) == list(r.old_rule.head_labels) for r in revisions)
    if head_type != "single":
        refined = _steps(BoomerClassifier(post_optimization="sequential{refine_heads=true}", **params), X, Y)
        assert any(list(r.rule.head_labels) != list(r.old_rule.head_labels) for r in refined if r.kind == "revision")


def test_round_robin_outputs_stay_each_rules_output():
    X, Y = _data()
    steps = _steps(BoomerClassifier(max_rules=7, output_sampling="round-robin", post_optimization="sequential",
                                    **EXACT), X, Y)
    assert all(list(r.rule.head_labels) == list(r.old_rule.head_labels) for r in steps if r.kind == "revision")


def test_without_resampling_a_rule_is_relearned_on_its_own_attributes():
    X, Y = _data(d=8)
    est = BoomerClassifier(max_rules=8, feature_sampling="without-replacement", statistic_type="64-bit",
                           post_optimization="sequential{resample_features=false}")
    for r in (s for s in _steps(est, X, Y) if s.kind == "revision"):
        assert {c.attribute for c in r.rule.conditions} <= {c.attribute for c in r.old_rule.conditions}


def test_global_pruning_that_removes_rules_relearns_only_the_kept_ones():
    """mlrl-boomer removes the unused rules first, then relearns the others; without removal every
    learned rule is relearned and the model keeps its prefix, as revised."""
    X, Y = _data(150)
    Y = Y ^ (np.random.default_rng(0).random(Y.shape) < 0.2)  # noisy labels: the holdout loss rises again
    removed = BoomerClassifier(max_rules=12, shrinkage=1.0, global_pruning="post-pruning{min_rules=2}",
                               post_optimization="sequential{num_iterations=1}", **{**EXACT, "holdout": "random"})
    steps = _steps(removed, X, Y)
    kept = removed.selected_steps_
    n_learned = sum(s.kind == "rule" for s in steps)
    assert kept < n_learned, "the test needs global pruning to drop rules"
    assert sorted(r.revises for r in steps if r.kind == "revision") == list(range(1, kept))
    assert [str(r) for r in removed.rules_] == [str(r) for r in learned_rules(steps)[:kept]]
    all_kept = BoomerClassifier(**{**removed.get_params(),
                                   "global_pruning": "post-pruning{min_rules=2,remove_unused_rules=false}"})
    steps = _steps(all_kept, X, Y)
    assert sorted(r.revises for r in steps if r.kind == "revision") == list(range(1, n_learned))


@pytest.mark.parametrize("settings", [
    dict(instance_sampling="with-replacement", rule_pruning="irep"),
    dict(instance_sampling="stratified-output-wise", head_type="single"),
    dict(output_sampling="without-replacement{sample_size=0.5}", post_optimization="sequential{refine_heads=true}"),
    dict(rule_induction="top-down-greedy{max_head_refinements=0}", head_type="partial-fixed{output_ratio=0.5}"),
    dict(loss="logistic-non-decomposable", head_type="single"),
    dict(default_rule="false"),
])
def test_samplings_and_inductions_relearn_reproducibly(settings):
    """Each relearned rule draws a new instance sample (and output sample with refine_heads) from the
    fit's seed: the same seed gives the same revisions; the model is the revised rules."""
    X, Y = _data()
    params = {"max_rules": 6, "post_optimization": "sequential", **settings}
    a = _steps(BoomerClassifier(**params), X, Y)
    b = _steps(BoomerClassifier(**params), X, Y)
    assert [str(s.rule) for s in a] == [str(s.rule) for s in b]
    n_learned = sum(s.kind == "rule" for s in a)
    first = 0 if settings.get("default_rule") == "false" else 1
    assert sorted({s.revises for s in a if s.kind == "revision"}) == list(range(first, n_learned))


def test_model_files_keep_the_revised_rules(tmp_path):
    X, Y = _data()
    est = BoomerClassifier(max_rules=5, post_optimization="sequential{num_iterations=1,refine_heads=true}",
                           marginal_probability_calibration="isotonic", **EXACT).fit(X, Y)
    path = tmp_path / "model.json"
    est.save(path)
    loaded = load_estimator(path)
    assert loaded.post_optimization == est.post_optimization
    assert [str(r) for r in loaded.rules_] == [str(r) for r in est.rules_]
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))


def test_cancelling_during_post_optimization_keeps_the_revisions_so_far():
    X, Y = _data()
    cancel = threading.Event()
    est = BoomerClassifier(max_rules=6, post_optimization="sequential", **EXACT)
    seen = []
    for step in est.fit_iter(X, Y, cancel=cancel):
        seen.append(step)
        if step.kind == "revision":
            cancel.set()
    assert seen[-1].kind == "revision" and sum(s.kind == "revision" for s in seen) == 1
    assert [str(r) for r in est.rules_] == [str(r) for r in learned_rules(seen)]


def test_compact_statistics_are_refused_before_the_first_rule(monkeypatch):
    """Post-optimization takes heads back from the packed statistics; compact ones (packed Hessians
    above the budget) are refused before anything is learned."""
    import engine.boomer.settings as boomer_settings

    monkeypatch.setattr(boomer_settings, "PACKED_STATISTICS_BUDGET", 0)
    X, Y = _data()
    steps = BoomerClassifier(loss="logistic-non-decomposable", max_rules=3, post_optimization="sequential").fit_iter(X, Y)
    with pytest.raises(ValueError, match="post_optimization"):
        next(steps)
