"""mlrl-boomer 0.15.6's sequential post-optimization (``post_optimization='sequential{...}'``).

After training, ``num_iterations`` passes go over the model's rules in learning order (the default
rule stays): a rule's head is taken back from the training examples its body covered when it was
learned, a rule is learned anew on the statistics without it (a new instance sample, the same rule
induction, shrinkage and pruning as in training) and takes its place.

- ``refine_heads=false`` (the default): the new rule predicts the replaced rule's outputs, with a
  complete head on them (mlrl-boomer evaluates a given output set as a complete head, whatever the
  head type); ``true``: its outputs are chosen as in training (a new output sample, if any).
- ``resample_features=true`` (the default): attributes are sampled per refinement step as in
  training; ``false``: every step considers the attributes of the replaced rule's conditions.

When no rule can be learned, the replaced rule stays; mlrl-boomer keeps it too but leaves its
prediction out of its statistics, ours puts it back (statistics and model agree).  Each replacement
is streamed as a :class:`~engine.learner.RuleRevision`.
"""
from __future__ import annotations

from typing import Iterator, Mapping

import numpy as np

from ..core.boosting import add_head_scores, apply_head, covered_rows, head_on_rows
from ..core.head_variants import HEAD_COMPLETE
from ..core.refinement import apply_condition, rule_refinement
from ..learner import RuleRevision
from ..model import rule_coverage
from ..options import parse_option
from ..rules import Rule
from ..sampling import output_sample_statistics
from .fit_state import FitState
from .induction import output_sampled_rule


def revision_steps(params: Mapping) -> int:
    """How many revision steps a fit with BoomerClassifier's ``params`` streams at most (after its rules)."""
    params = {k: v for k, v in params.items() if v is not None}  # None: the default
    name, options = parse_option("post_optimization", params.get("post_optimization", "none"))
    rules = int(params.get("max_rules", 1000)) - (params.get("default_rule", "auto") != "false")
    return 0 if name == "none" else max(rules, 0) * options["num_iterations"]


class SequentialPostOptimization:
    """The revisions of one fit: :meth:`remember` each learned rule (its body in the kernels' terms),
    then iterate :meth:`revisions` over the fit's state."""

    def __init__(self, num_iterations: int = 2, refine_heads: bool = False, resample_features: bool = True):
        self.num_iterations = int(num_iterations)
        self.refine_heads = bool(refine_heads)
        self.resample_features = bool(resample_features)
        self.rules: list[Rule] = []  # the learned rules (not the default rule), as revised so far
        self.bodies: list[tuple] = []  # their (attributes, operators, thresholds) on the feature index

    @classmethod
    def of(cls, choice) -> "SequentialPostOptimization | None":
        """The post-optimization a parsed ``post_optimization`` choice (:class:`.settings.Choice`) asks for
        (None: 'none')."""
        return None if choice.name == "none" else cls(**choice.options)

    def remember(self, rule: Rule, body: tuple) -> None:
        """A rule just learned, with its ``body`` (attributes, operator codes, thresholds)."""
        self.rules.append(rule)
        self.bodies.append(body)

    def revisions(self, state: FitState, first: int, kept: int | None = None) -> Iterator[RuleRevision]:
        """Relearn the rules (the first ``kept`` of the model when global pruning removed the others;
        ``first`` is the model index of the first learned rule) in ``num_iterations`` passes."""
        n = len(self.rules) if kept is None else max(0, min(len(self.rules), kept - first))
        data, recorder = state.data, state.recorder
        for iteration in range(1, self.num_iterations + 1):
            for i in range(n):
                if data.cancelled:
                    return
                old = self.rules[i]
                old_coverage = self._coverage(state, self.bodies[i])
                self._apply(state, old, old_coverage, -1.0)  # the model without rule i
                learned = self._relearn(state, old, self.bodies[i][0])
                if learned is None:
                    if data.cancelled:
                        return
                    self._apply(state, old, self._coverage(state, self.bodies[i]), 1.0)  # no rule: the old one stays
                    continue
                rule, n_rows, quality, body = learned
                val = recorder.val
                if val is not None:
                    vrows = np.flatnonzero(rule_coverage(rule, data.X_test)).astype(np.int64)
                    val.add_head(vrows, len(vrows), rule.head_labels, rule.head_scores)
                self.rules[i], self.bodies[i] = rule, body
                train = recorder.train
                extra = recorder.replaced(old, old_coverage, rule, self._coverage(state, body))  # a regressor's
                yield RuleRevision(len(recorder.est.records_), first + i, old, rule, iteration, int(n_rows),
                                   -float(quality), train.hamming, train.subset, None if val is None else val.hamming,
                                   None if val is None else val.subset, extra=extra)

    # -- taking a rule back and putting one in --------------------------------------------------------
    @staticmethod
    def _coverage(state: FitState, body) -> tuple[np.ndarray, int]:
        """The training examples a body covers (as in training: the same walk over the feature index)."""
        index = state.search.index
        covered = np.ones(state.stats.G.shape[0], dtype=np.uint8)
        for j, op, thr in zip(*body):
            apply_condition(int(j), int(op), float(thr), index.ptr, index.rows, index.values, index.missing_ptr,
                            index.missing_rows, covered)
        rows = np.empty(len(covered), dtype=np.int64)
        return rows, covered_rows(covered, rows)

    @staticmethod
    def _apply(state: FitState, rule: Rule, coverage, sign: float) -> None:
        """Add (``sign`` 1) or take back (-1) ``rule``'s head on the training ``coverage`` and, with
        test data, on the test examples it covers; statistics and tracked losses follow."""
        rows, n_rows = coverage
        stats, recorder = state.stats, state.recorder
        labels = np.asarray(rule.head_labels, dtype=np.int64)
        scores = sign * np.asarray(rule.head_scores, dtype=np.float64)
        apply_head(stats.loss, stats.Y, stats.F, stats.G, stats.H, rows, n_rows, labels, scores)
        stats.refresh_diagonal(rows[:n_rows])
        recorder.train.refresh(rows, n_rows)
        if recorder.val is not None:
            vrows = np.flatnonzero(rule_coverage(rule, state.data.X_test)).astype(np.int64)
            add_head_scores(recorder.val.F, vrows, len(vrows), labels, scores, 1.0)
            recorder.val.refresh(vrows, len(vrows))

    # -- learning a rule in its place --------------------------------------------------------------------
    def _relearn(self, state: FitState, old: Rule, old_attributes: np.ndarray):
        """A new rule on the current statistics, applied to them: (rule, covered count, quality, body),
        or None (no rule, or cancelled)."""
        if self.resample_features:
            perm, n_sample = state.rule.perm, state.rule.n_sample
        else:  # every step considers exactly the replaced rule's attributes
            perm, n_sample = np.unique(old_attributes).astype(np.int64), 0
        weights = state.sampler.draw()  # a rule's instance sample, as in training
        labels = np.asarray(old.head_labels, dtype=np.int64)
        if not self.refine_heads and (state.outputs.active or len(labels) < state.n_labels):
            found = self._fixed_outputs(state, labels, perm, n_sample, weights)
        elif state.outputs.active:
            found = self._sampled_outputs(state, perm, n_sample, weights)
        else:
            found = self._all_outputs(state, perm, n_sample, weights)
        if found is None or state.data.cancelled:
            return None
        n_cond, n_rows, quality, labels, head = found
        w, data = state.scratch, state.data
        rule = Rule(data.learned_conditions(w.attrs, w.ops, w.thrs, n_cond, state.X), labels, head, data.schema)
        return rule, n_rows, quality, w.body(n_cond)

    @staticmethod
    def _all_outputs(state: FitState, perm, n_sample, weights):
        """The fit's own rule learner (the fused kernel or :mod:`engine.core.induction`), as in training."""
        n_cond, quality, _, n_rows, d_labels, d_examples, n_head = state.boost_one_rule(
            *state.fused_arguments(weights, n_sample, perm))
        if n_cond == 0:
            return None
        state.recorder.train.count(d_labels, d_examples)
        w = state.scratch
        return n_cond, n_rows, quality, w.head_labels[:n_head].copy(), w.head[:n_head].copy()

    @staticmethod
    def _sampled_outputs(state: FitState, perm, n_sample, weights):
        """A new output sample (``refine_heads`` with output sampling), as in training."""
        record, _, n_cond = output_sampled_rule(state, state.outputs.next(), weights,
                                                state.recorder.untracked(), perm, n_sample)
        if record is None or n_cond == 0:
            return None
        rule = record.rule
        return n_cond, record.coverage, -record.improvement, rule.head_labels, rule.head_scores

    @staticmethod
    def _fixed_outputs(state: FitState, labels, perm, n_sample, weights):
        """A rule predicting ``labels`` (a complete head on them), searched on their statistics by the
        fit's rule induction, then applied to all statistics."""
        stats, r, w, data = state.stats, state.rule, state.scratch, state.data
        G_sub, H_sub = output_sample_statistics(stats.G, stats.H_refine, labels, stats.full_refine)
        k = len(labels)
        head = np.empty(k)
        if state.inducer is None:  # the greedy kernel of the fit's family, on a complete head of these outputs
            w.covered[:] = 1
            refine = rule_refinement(*r.family[:3])
            n_cond, quality, _ = refine(*state.search.arrays, G_sub, H_sub, stats.full_refine, False, HEAD_COMPLETE,
                                        r.head_params, weights, state.sampler.bagging, r.l2, r.l1, n_sample,
                                        r.max_conditions, r.min_coverage, r.rng_state, perm, w.covered, w.attrs, w.ops,
                                        w.thrs, data.cancel, np.empty(k, dtype=np.int64))
            if n_cond == 0 or data.cancelled:
                return None
            n_rows = covered_rows(w.covered, w.rows)
            head_on_rows(G_sub, H_sub, w.rows, n_rows, stats.full_refine, -1, r.l2, r.l1, r.eta, head)
        else:  # engine.core.induction on copies of these outputs' statistics (it applies its rule to them)
            found = _induced_on_outputs(state, labels, G_sub, H_sub, perm, n_sample, weights, head)
            if found is None:
                return None
            n_cond, quality, n_rows, head = found
        state.recorder.train.add_head(w.rows, n_rows, labels, head, lambda: apply_head(
            stats.loss, stats.Y, stats.F, stats.G, stats.H, w.rows, n_rows, labels, head))
        stats.refresh_diagonal(w.rows[:n_rows])
        return n_cond, n_rows, quality, labels.copy(), head.copy()


def _induced_on_outputs(state: FitState, labels, G_sub, H_sub, perm, n_sample, weights, head):
    """:mod:`engine.core.induction`'s rule on a complete head of ``labels``, searched and applied on copies
    of their statistics: (conditions, quality, covered count, head) or None."""
    stats, r, w, data = state.stats, state.rule, state.scratch, state.data
    k, N = len(labels), G_sub.shape[0]
    empty = np.empty(0, dtype=np.int64)
    vectors = (np.zeros((0, k), dtype=np.uint8), np.zeros(1, dtype=np.int64), empty,
               np.zeros(k, dtype=np.uint64), np.zeros(0, dtype=np.uint64), np.full(16, -1, dtype=np.int64))
    n_cond, quality, _, n_rows, _, _, n_head = state.inducer(
        *state.search.arrays, stats.loss, np.ascontiguousarray(stats.Y[:, labels]),
        np.ascontiguousarray(stats.F[:, labels]), G_sub, H_sub, H_sub, empty, False, stats.full_refine, HEAD_COMPLETE,
        r.head_params, weights, state.sampler.bagging, r.l2, r.l1, r.eta, n_sample, r.max_conditions, r.min_coverage,
        r.rng_state, perm, w.covered, w.rows, w.attrs, w.ops, w.thrs, np.empty(k, dtype=np.int64), head,
        np.zeros((N, k), dtype=np.uint8), np.zeros(N, dtype=np.int64), False, *vectors, data.cancel)
    if n_cond == 0 or data.cancelled:
        return None
    return n_cond, quality, n_rows, head[:n_head]
