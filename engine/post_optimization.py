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

from .core.boosting import add_head_scores, apply_head, covered_rows, head_on_rows
from .core.head_variants import HEAD_COMPLETE
from .core.refinement import apply_condition, rule_refinement
from .learner import RuleRevision
from .model import rule_coverage
from .options import parse_option
from .rules import Rule
from .sampling import output_sample_statistics


def revision_steps(params: Mapping) -> int:
    """How many revision steps a fit with BoomerClassifier's ``params`` streams at most (after its rules)."""
    name, options = parse_option("post_optimization", params.get("post_optimization", "none"))
    rules = int(params.get("max_rules", 1000) or 0) - (params.get("default_rule", "auto") != "false")
    return 0 if name == "none" else max(rules, 0) * options["num_iterations"]


class SequentialPostOptimization:
    """The revisions of one fit: :meth:`remember` each learned rule (its body in the kernels' terms),
    then iterate :meth:`revisions` with the fit's state."""

    def __init__(self, num_iterations: int = 2, refine_heads: bool = False, resample_features: bool = True):
        self.num_iterations = int(num_iterations)
        self.refine_heads = bool(refine_heads)
        self.resample_features = bool(resample_features)
        self.rules: list[Rule] = []  # the learned rules (not the default rule), as revised so far
        self.bodies: list[tuple] = []  # their (attributes, operators, thresholds) on the feature index

    @classmethod
    def of(cls, value: str) -> "SequentialPostOptimization | None":
        """The post-optimization ``value`` asks for (None: 'none')."""
        name, options = parse_option("post_optimization", value)
        return None if name == "none" else cls(**options)

    def remember(self, rule: Rule, attrs: np.ndarray, ops: np.ndarray, thrs: np.ndarray, n_cond: int) -> None:
        self.rules.append(rule)
        self.bodies.append((attrs[:n_cond].copy(), ops[:n_cond].copy(), thrs[:n_cond].copy()))

    def revisions(self, est, s, first: int, kept: int | None = None) -> Iterator[RuleRevision]:
        """Relearn the rules (the first ``kept`` of the model when global pruning removed the others;
        ``first`` is the model index of the first learned rule) in ``num_iterations`` passes.  ``s``
        holds the fit's state (see ``BoomerClassifier._learn``)."""
        n = len(self.rules) if kept is None else max(0, min(len(self.rules), kept - first))
        for iteration in range(1, self.num_iterations + 1):
            for i in range(n):
                if s.data.cancelled:
                    return
                old = self.rules[i]
                self._apply(s, old, self._coverage(s, self.bodies[i]), -1.0)  # the model without rule i
                learned = self._relearn(est, s, old, self.bodies[i][0])
                if learned is None:
                    if s.data.cancelled:
                        return
                    self._apply(s, old, self._coverage(s, self.bodies[i]), 1.0)  # no rule: the old one stays
                    continue
                rule, n_rows, quality, body = learned
                if s.val is not None:
                    vrows = np.flatnonzero(rule_coverage(rule, s.data.X_test)).astype(np.int64)
                    s.val.add_head(vrows, len(vrows), rule.head_labels, rule.head_scores)
                self.rules[i], self.bodies[i] = rule, body
                train, val = s.train, s.val
                yield RuleRevision(len(est.records_), first + i, old, rule, iteration, int(n_rows), -float(quality),
                                   train.hamming, train.subset, None if val is None else val.hamming,
                                   None if val is None else val.subset)

    # -- taking a rule back and putting one in --------------------------------------------------------
    @staticmethod
    def _coverage(s, body) -> tuple[np.ndarray, int]:
        """The training examples a body covers (as in training: the same walk over the feature index)."""
        index = s.index
        covered = np.ones(s.G.shape[0], dtype=np.uint8)
        for j, op, thr in zip(*body):
            apply_condition(int(j), int(op), float(thr), index.ptr, index.rows, index.values, index.missing_ptr,
                            index.missing_rows, covered)
        rows = np.empty(len(covered), dtype=np.int64)
        return rows, covered_rows(covered, rows)

    @staticmethod
    def _apply(s, rule: Rule, coverage, sign: float) -> None:
        """Add (``sign`` 1) or take back (-1) ``rule``'s head on the training ``coverage`` and, with
        test data, on the test examples it covers; statistics and tracked losses follow."""
        rows, n_rows = coverage
        labels = np.asarray(rule.head_labels, dtype=np.int64)
        scores = sign * np.asarray(rule.head_scores, dtype=np.float64)
        apply_head(s.loss, s.Y, s.F, s.G, s.H, rows, n_rows, labels, scores)
        _refresh_diagonal(s, rows[:n_rows])
        s.train.refresh(rows, n_rows)
        if s.val is not None:
            vrows = np.flatnonzero(rule_coverage(rule, s.data.X_test)).astype(np.int64)
            add_head_scores(s.val.F, vrows, len(vrows), labels, scores, 1.0)
            s.val.refresh(vrows, len(vrows))

    # -- learning a rule in its place --------------------------------------------------------------------
    def _relearn(self, est, s, old: Rule, old_attributes: np.ndarray):
        """A new rule on the current statistics, applied to them: (rule, covered count, quality, body),
        or None (no rule, or cancelled)."""
        if self.resample_features:
            perm, n_sample = s.perm, s.n_sample
        else:  # every step considers exactly the replaced rule's attributes
            perm, n_sample = np.unique(old_attributes).astype(np.int64), 0
        weights = s.draw_sample()
        labels = np.asarray(old.head_labels, dtype=np.int64)
        if not self.refine_heads and (s.outputs.active or len(labels) < s.K):
            found = self._fixed_outputs(s, labels, perm, n_sample, weights)
        elif s.outputs.active:
            found = self._sampled_outputs(est, s, perm, n_sample, weights)
        else:
            found = self._all_outputs(s, perm, n_sample, weights)
        if found is None or s.data.cancelled:
            return None
        n_cond, n_rows, quality, labels, head = found
        rule = Rule(s.data.learned_conditions(s.attrs, s.ops, s.thrs, n_cond, s.X), labels, head, s.data.schema)
        return rule, n_rows, quality, (s.attrs[:n_cond].copy(), s.ops[:n_cond].copy(), s.thrs[:n_cond].copy())

    @staticmethod
    def _all_outputs(s, perm, n_sample, weights):
        """The fit's own rule learner (the fused kernel or :mod:`engine.core.induction`), as in training."""
        index = s.index
        n_cond, quality, _, n_rows, d_labels, d_examples, n_head = s.boost_one_rule(
            index.ptr, index.rows, index.values, s.keys, s.cache, s.seg, s.ranks, index.missing_ptr,
            index.missing_rows, index.nominal, s.loss, s.Y, s.F, s.G, s.H, s.H_refine, s.diagonal_columns, s.single,
            s.full_refine, s.head_mode, s.head_params, weights, s.bagging, s.l2, s.l1, s.eta, n_sample,
            s.max_conditions, s.min_coverage, s.rng_state, perm, s.covered, s.rows, s.attrs, s.ops, s.thrs, s.head_labels,
            s.head, s.train.Y, s.train.errors, s.train.example_wise, *s.vector_index, s.data.cancel)
        if n_cond == 0:
            return None
        s.train.count(d_labels, d_examples)
        return n_cond, n_rows, quality, s.head_labels[:n_head].copy(), s.head[:n_head].copy()

    @staticmethod
    def _sampled_outputs(est, s, perm, n_sample, weights):
        """A new output sample (``refine_heads`` with output sampling), as in training."""
        record, _, n_cond = est._output_sampled_rule(
            s.outputs.next(s.rng_state[0]), s.index, s.keys, s.cache, s.seg, s.ranks, s.loss, s.Y, s.F, s.G, s.H,
            s.H_refine, s.diagonal, s.single, s.full_refine, s.family, s.head_mode, s.head_params, weights,
            s.bagging, s.l2, s.l1, s.eta, n_sample, s.max_conditions, s.min_coverage, s.rng_state, perm, s.covered,
            s.rows, s.attrs, s.ops, s.thrs, s.train, None, (None, None), s.data, s.X)
        if record is None or n_cond == 0:
            return None
        rule = record.rule
        return n_cond, record.coverage, -record.improvement, rule.head_labels, rule.head_scores

    @staticmethod
    def _fixed_outputs(s, labels, perm, n_sample, weights):
        """A rule predicting ``labels`` (a complete head on them), searched on their statistics by the
        fit's rule induction, then applied to all statistics."""
        index = s.index
        G_sub, H_sub = output_sample_statistics(s.G, s.H_refine, labels, s.full_refine)
        k = len(labels)
        head = np.empty(k)
        if s.inducer is None:  # the greedy kernel of the fit's family, on a complete head of these outputs
            s.covered[:] = 1
            refine = rule_refinement(*s.family[:3])
            n_cond, quality, _ = refine(index.ptr, index.rows, index.values, s.keys, s.cache, s.seg, s.ranks,
                                        index.missing_ptr, index.missing_rows, index.nominal, G_sub, H_sub,
                                        s.full_refine, False, HEAD_COMPLETE, s.head_params, weights, s.bagging, s.l2,
                                        s.l1, n_sample, s.max_conditions, s.min_coverage, s.rng_state, perm,
                                        s.covered, s.attrs, s.ops, s.thrs, s.data.cancel, np.empty(k, dtype=np.int64))
            if n_cond == 0 or s.data.cancelled:
                return None
            n_rows = covered_rows(s.covered, s.rows)
            head_on_rows(G_sub, H_sub, s.rows, n_rows, s.full_refine, -1, s.l2, s.l1, s.eta, head)
        else:  # engine.core.induction on copies of these outputs' statistics (it applies its rule to them)
            N = G_sub.shape[0]
            empty = np.empty(0, dtype=np.int64)
            vectors = (np.zeros((0, k), dtype=np.uint8), np.zeros(1, dtype=np.int64), empty,
                       np.zeros(k, dtype=np.uint64), np.zeros(0, dtype=np.uint64), np.full(16, -1, dtype=np.int64))
            n_cond, quality, _, n_rows, _, _, n_head = s.inducer(
                index.ptr, index.rows, index.values, s.keys, s.cache, s.seg, s.ranks, index.missing_ptr,
                index.missing_rows, index.nominal, s.loss, np.ascontiguousarray(s.Y[:, labels]),
                np.ascontiguousarray(s.F[:, labels]), G_sub, H_sub, H_sub, empty, False, s.full_refine, HEAD_COMPLETE,
                s.head_params, weights, s.bagging, s.l2, s.l1, s.eta, n_sample, s.max_conditions, s.min_coverage,
                s.rng_state, perm, s.covered, s.rows, s.attrs, s.ops, s.thrs, np.empty(k, dtype=np.int64), head,
                np.zeros((N, k), dtype=np.uint8), np.zeros(N, dtype=np.int64), False, *vectors, s.data.cancel)
            if n_cond == 0 or s.data.cancelled:
                return None
            head = head[:n_head]
        s.train.add_head(s.rows, n_rows, labels, head,
                         lambda: apply_head(s.loss, s.Y, s.F, s.G, s.H, s.rows, n_rows, labels, head))
        _refresh_diagonal(s, s.rows[:n_rows])
        return n_cond, n_rows, quality, labels.copy(), head.copy()


def _refresh_diagonal(s, rows: np.ndarray) -> None:
    """The refinement's copy of the Hessians' diagonal (single-label heads of example-wise losses)."""
    if s.diagonal is not None and len(rows):
        s.H_refine[rows] = s.H[rows][:, s.diagonal]
