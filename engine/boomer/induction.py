"""How one rule is learned on a :class:`~.fit_state.FitState`: the default rule, the fused kernel (or
:mod:`engine.core.induction`), a rule on a sample of outputs, a rule on the label bins chosen for it.
:func:`rule_learner` chooses one once from the settings; each returns (record or None, whether global
pruning stops, number of conditions)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core.boosting import covered_rows, head_on_rows
from ..core.boosting_step import head_variant_on_rows
from ..core.examplewise_stats import (choose_bins, compact_default_head, compact_rule_refinement,
                                      compact_update_statistics, compact_variant_on_rows, project_onto_bins,
                                      sample_diagonal_sums)
from ..core.head_variants import HEAD_BINNED, HEAD_COMPLETE, HEAD_PARTIAL_FIXED
from ..core.losses import update_statistics
from ..core.refinement import bagging_weights, rule_refinement
from ..rules import Rule
from ..sampling import output_sample_statistics
from .fit_state import FitState
from .recording import Recorder


@dataclass(frozen=True)
class OneRule:
    """``learn(state, weights)`` learns one rule with the instance ``weights``; when it finds no condition,
    training ends naming ``objective`` (and whether every attribute is constant, if ``constant_check``)."""

    learn: Callable
    objective: str
    constant_check: bool = False


def rule_learner(state: FitState) -> OneRule:
    """The rule learner the settings ask for."""
    if state.outputs.active:
        def learn(s: FitState, weights: np.ndarray):
            return output_sampled_rule(s, s.outputs.next(), weights, s.recorder)
        return OneRule(learn, "of the sampled outputs")
    if state.settings.label_binning_scope == "rule":
        return OneRule(rule_on_label_bins, "of the rule's label bins")
    return OneRule(fused_rule, "on the sampled examples", constant_check=True)


def default_rule(state: FitState):
    """The default rule: covers every example, a complete head (label binning's where it applies), not shrunk."""
    stats, settings, r = state.stats, state.settings, state.rule
    n, K = stats.Y.shape
    all_rows = np.arange(n, dtype=np.int64)
    head = np.empty(K)
    labels = np.arange(K, dtype=np.int64)
    G, H, n_all = _default_statistics(state)
    every_row = np.arange(n_all, dtype=np.int64)
    if settings.label_binning_used:  # mlrl-boomer's default rule has the label binning's complete head
        (compact_variant_on_rows if stats.compact else head_variant_on_rows)(
            G, H, every_row, n_all, stats.full_hessian, HEAD_BINNED, settings.binned_head_params(K), r.l2,
            r.l1, 1.0, labels, head)
    elif stats.compact:
        compact_default_head(G, H, r.l2, r.l1, head)
    else:
        head_on_rows(G, H, every_row, n_all, stats.full_hessian, -1, r.l2, r.l1, 1.0, head)
    rule = Rule((), labels, head.copy(), state.data.schema)
    return state.recorder.add(rule, stats, all_rows, n, labels, head, math.nan)


def _default_statistics(state: FitState):
    """(gradients, Hessians, examples) the default rule is computed from: the training examples', and as in
    mlrl-boomer those of the holdout set too (its statistics cover every example; at zero scores)."""
    stats, watched = state.stats, state.recorder.watched
    if watched is None or not watched.holdout:
        return stats.G, stats.H, stats.Y.shape[0]
    Y = np.ascontiguousarray(watched.Y)
    m = Y.shape[0]
    G, H = np.empty((m, stats.G.shape[1]), dtype=stats.G.dtype), np.empty((m, stats.H.shape[1]), dtype=stats.H.dtype)
    (compact_update_statistics if stats.compact else update_statistics)(
        stats.loss, Y, np.zeros(Y.shape, dtype=stats.F.dtype), np.arange(m, dtype=np.int64), m, G, H)
    return np.concatenate([stats.G, G]), np.concatenate([stats.H, H]), stats.Y.shape[0] + m


def fused_rule(state: FitState, weights: np.ndarray):
    """A rule refined, headed and applied to the statistics by the fit's one kernel."""
    r, w, data = state.rule, state.scratch, state.data
    n_cond, quality, _, n_rows, d_labels, d_examples, n_head = state.boost_one_rule(
        *state.fused_arguments(weights, r.n_sample, r.perm))
    if data.cancelled or n_cond == 0:
        return None, False, n_cond
    state.recorder.train.count(d_labels, d_examples)
    labels = w.head_labels[:n_head].copy()
    rule = Rule(data.learned_conditions(w.attrs, w.ops, w.thrs, n_cond, state.X), labels, w.head[:n_head].copy(),
                data.schema)
    record, stop = state.recorder.record(rule, w.rows, n_rows, -quality)
    return record, stop, n_cond


def output_sampled_rule(state: FitState, sampled: np.ndarray, weights: np.ndarray, recorder: Recorder,
                        perm: np.ndarray | None = None, n_sample: int | None = None):
    """One rule whose head predicts only the ``sampled`` outputs (``output_sampling``): refined and
    headed on their statistics (:func:`engine.sampling.output_sample_statistics`), then applied to
    every output's.  ``perm``, ``n_sample``: the attributes' order and sample size (the fit's by default)."""
    stats, r, w, data = state.stats, state.rule, state.scratch, state.data
    perm = r.perm if perm is None else perm
    n_sample = r.n_sample if n_sample is None else n_sample
    G_sub, H_sub = output_sample_statistics(stats.G, stats.H_refine, sampled, stats.full_refine)
    head_mode, params = _sampled_head_mode(r.head_mode, r.head_params, len(sampled))
    w.covered[:] = 1
    refine = rule_refinement(*r.family[:3])
    n_cond, quality, label = refine(*state.search.arrays, G_sub, H_sub, stats.full_refine, r.single, head_mode, params,
                                    weights, state.sampler.bagging, r.l2, r.l1, n_sample, r.max_conditions,
                                    r.min_coverage, r.rng_state, perm, w.covered, w.attrs, w.ops, w.thrs, data.cancel,
                                    np.empty(len(sampled), dtype=np.int64))
    if n_cond == 0 or data.cancelled:
        return None, False, n_cond
    n_rows = covered_rows(w.covered, w.rows)
    labels, head = _sampled_head(state, G_sub, H_sub, n_rows, head_mode, params, label, len(sampled))
    labels = sampled[labels]
    rule = Rule(data.learned_conditions(w.attrs, w.ops, w.thrs, n_cond, state.X), labels, head, data.schema)
    covered_now = w.rows[:n_rows].copy()
    record, stop = recorder.add(rule, stats, covered_now, n_rows, labels, head, -quality)
    stats.refresh_diagonal(covered_now)
    return record, stop, n_cond


def _sampled_head_mode(head_mode: int, head_params: np.ndarray, n_sampled: int) -> tuple[int, np.ndarray]:
    """The head a rule for a sample of outputs is rated with: mlrl-boomer 0.15.6 rates it with its complete
    rule evaluation whatever the head type (partial heads predict every sampled output), binned partial
    heads with its complete binned evaluation."""
    params = head_params.copy()
    if HEAD_BINNED < head_mode <= HEAD_PARTIAL_FIXED:
        head_mode = HEAD_COMPLETE
    elif head_mode < HEAD_BINNED:
        head_mode = HEAD_BINNED
    if head_mode == HEAD_BINNED:
        params[3] = min(params[3], n_sampled)
    return head_mode, params


def _sampled_head(state: FitState, G_sub, H_sub, n_rows: int, head_mode: int, params: np.ndarray, label: int,
                  s: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions among the ``s`` sampled outputs, scores) of the head on the covered rows."""
    r, rows, full_refine = state.rule, state.scratch.rows, state.stats.full_refine
    head = np.empty(s)
    labels = np.arange(s, dtype=np.int64)
    if r.single:
        labels = labels[label:label + 1]
        head_on_rows(G_sub, H_sub, rows, n_rows, full_refine, label, r.l2, r.l1, r.eta, head)
    elif head_mode <= HEAD_PARTIAL_FIXED:
        n_head = head_variant_on_rows(G_sub, H_sub, rows, n_rows, full_refine, head_mode, params, r.l2, r.l1, r.eta,
                                      labels, head)
        labels = labels[:n_head]
    else:
        head_on_rows(G_sub, H_sub, rows, n_rows, full_refine, -1, r.l2, r.l1, r.eta, head)
    return labels, head[:len(labels)].copy()


def rule_on_label_bins(state: FitState, weights: np.ndarray):
    """One rule of an example-wise loss whose label bins are chosen once (``label_binning_scope='rule'``):
    the bins from the summed statistics of the rule's sample (as mlrl-boomer chooses a candidate's from
    the candidate's), every example's compact statistics ``G``, ``C`` summed into them
    (:func:`project_onto_bins`), the complete-head refinement (Alg. 2) on those B pseudo-labels, O(B^2)
    per example and threshold instead of O(K^2); the head then as label binning's (its bins from the
    covered examples)."""
    stats, r, w, data = state.stats, state.rule, state.scratch, state.data
    G, C, head_params, bagging = stats.G, stats.H, r.head_params, state.sampler.bagging
    n, K = G.shape
    if bagging:  # the draws the refinement would make (the same random state, then passed on to it)
        bagging_weights(weights, bagging, r.rng_state)
    g, d = sample_diagonal_sums(G, C, weights)
    bins, sizes, slot = (np.zeros(max(K, 2 * int(head_params[3])), dtype=np.int64) for _ in range(3))
    m = choose_bins(g, d, head_params, r.l2, r.l1, bins, sizes, slot)
    if m == 0:  # every label's score is 0 on the sample: no bin to learn
        return None, False, 0
    PG = np.empty((n, m), dtype=G.dtype)
    PC = np.empty((n, m + 1), dtype=C.dtype)
    project_onto_bins(G, C, bins, slot, sizes, PG, PC)
    w.covered[:] = 1
    refine = compact_rule_refinement(r.family[2])
    n_cond, quality, _ = refine(*state.search.arrays, PG, PC, True, False, HEAD_COMPLETE, head_params, weights, 0,
                                r.l2, r.l1, r.n_sample, r.max_conditions, r.min_coverage, r.rng_state, r.perm,
                                w.covered, w.attrs, w.ops, w.thrs, data.cancel, np.empty(m, dtype=np.int64))
    if n_cond == 0 or data.cancelled:
        return None, False, n_cond
    n_rows = covered_rows(w.covered, w.rows)
    labels = np.empty(K, dtype=np.int64)
    head = np.empty(K)
    n_head = compact_variant_on_rows(G, C, w.rows, n_rows, True, HEAD_BINNED, head_params, r.l2, r.l1, r.eta, labels,
                                     head)
    labels, head = labels[:n_head].copy(), head[:n_head].copy()
    rule = Rule(data.learned_conditions(w.attrs, w.ops, w.thrs, n_cond, state.X), labels, head, data.schema)
    record, stop = state.recorder.add(rule, stats, w.rows, n_rows, labels, head, -quality)
    return record, stop, n_cond
