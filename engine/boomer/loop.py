"""BOOMER's training loop (Rapp et al. 2020, Alg. 1): the default rule, then per rule an instance sample,
a rule induced on it and applied to the statistics, its losses tracked and the rule streamed, until a stop
criterion holds; then sequential post-optimization, if asked for."""
from __future__ import annotations

from typing import Iterator

from ..learner import RuleRecord, TrainingData
from .fit_state import build_fit_state
from .induction import default_rule, rule_learner
from .post_optimization import SequentialPostOptimization
from .settings import BoomerSettings
from .stopping import StopCriteria


def learn(est, data: TrainingData) -> Iterator[RuleRecord]:
    """Train the estimator ``est`` on ``data``, streaming each rule's record and post-optimization's revisions;
    ``est`` receives ``stop_reason_``, ``stop_message_``, ``selected_steps_`` (global pruning),
    ``holdout_indices_`` and ``label_vectors_``."""
    settings = BoomerSettings.of(est)
    state = build_fit_state(est, settings, data)
    stopping = StopCriteria(est, settings.max_rules, settings.time_limit, settings.default_rule)
    post = SequentialPostOptimization.of(settings.post_optimization)  # None: 'none'
    pre_pruned = False
    if settings.default_rule:  # 'auto' is true with dense statistics (mlrl-boomer 0.15.6)
        record, pre_pruned = default_rule(state)
        yield record
    if settings.single and state.stats.full_hessian:
        state.stats.refine_on_diagonal()
    one_rule = rule_learner(state)
    stopping.start_clock()
    while stopping.another_rule(pre_pruned):
        weights = state.sampler.draw()
        record, pre_pruned, n_cond = one_rule.learn(state, weights)
        if data.cancelled:
            stopping.cancelled()
            break
        if n_cond == 0:
            constant = one_rule.constant_check and state.search.index.constant_attributes().all()
            stopping.no_refinement(one_rule.objective, constant)
            break
        if post is not None:
            post.remember(record.rule, state.scratch.body(n_cond))
        yield record
    if post is not None and not data.cancelled:
        pruning = state.recorder.pruning
        kept = est.selected_steps_ if pruning is not None and settings.global_pruning["remove_unused_rules"] else None
        # with global pruning that removes unused rules only the kept ones are relearned (mlrl-boomer removes
        # them first)
        yield from post.revisions(state, 0 if not settings.default_rule else 1, kept)
        if data.cancelled:
            stopping.cancelled()
