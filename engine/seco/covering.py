"""mlrl-seco 0.15.6's covering loop (``search='mlrl-seco'``): rules learned one after the other, each by a
top-down greedy or beam search of its body and head on the pairs no rule covers yet, pruned by IREP; then
sequential post-optimization and the default rule.  :class:`MlrlFit` holds a fit's state."""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from ..binary_attributes import as_equalities
from ..core.binning import METHOD_CODES, bin_keys
from ..core.features import build_feature_index
from ..core.refinement import apply_condition
from ..core.seco_refine import (ATTR, BEST_Q, BEST_THR, COUNT, END, INVERSE, N_TOP_I, OP, PARALLEL_MIN_WORK, START,
                                TOP_K, Body, LabelCounts, Vectors, mlrl_apply)
from ..core.seco_search import MH_ACCURACY, _EPS32, Heuristic, Pairs, Walked, mlrl_best_conditions
from ..holdout import split_holdout
from ..learner import RuleRecord, RuleRevision, TrainingData
from ..model import rule_coverage
from ..options import parse_option
from ..rules import OPERATORS, Condition, Rule
from .mlrl_blocks import (_MAX_CONDITIONS_CAP, NO_VECTORS, MLRL_HEURISTICS, _BeamEntry, _base_vectors,
                          _best_chunk, _bounded, _conditions_attributes, _coverage, _DecisionListTracker,
                          _feature_sample, _instance_weights, _irep_masks, _label_counts, _mode, _OutputWise,
                          _revise, _run_chunks, _step_scratch, _threads, lift_tables)


class MlrlFit:
    """One fit of mlrl-seco 0.15.6's covering loop for the estimator ``est``: the options parsed once, the
    training rows (a holdout set taken out), the feature index with the reference's attribute vectors and the
    search's scratch, the pairs' coverage and the decision list's losses, built once; the greedy and beam
    searches, IREP, the covering loop and sequential post-optimization work on them (:meth:`learn`)."""

    def __init__(self, est, data: TrainingData):
        self.est, self.data = est, data
        self.params = est.effective()  # the parameter values, None resolved to the defaults
        self.started = time.monotonic()
        seed = int(self.params.random_state)
        self.rng = np.random.default_rng(seed)
        X, self.Y = self.data.X, self.data.Y
        holdout, holdout_options = parse_option("seco:holdout", self.params.holdout)
        if holdout != "none":
            train_rows, holdout_rows = split_holdout(self.Y, holdout, holdout_options["holdout_set_size"],
                                                     int(self.rng.integers(2**63 - 1)))
            self.est.holdout_indices_ = holdout_rows
            X = sp.csc_matrix(X.tocsr()[train_rows]) if sp.issparse(X) else np.ascontiguousarray(X[train_rows])
            self.Y = self.Y[train_rows]
        self.n, self.K = self.Y.shape
        self.Y = np.ascontiguousarray(self.Y, dtype=np.uint8)
        self._parse_options()
        self._index_attributes(X)
        self._decision_list()
        self._search_vectors(X)

    def _parse_options(self) -> None:
        """The heuristics, head, rule induction, instance and output sampling and pruning parsed once."""
        h_name, h_opts = parse_option("seco:heuristic", self.params.heuristic)
        p_name, p_opts = parse_option("seco:pruning_heuristic", self.params.pruning_heuristic)
        self.h, self.hp = MLRL_HEURISTICS[h_name], np.float32(h_opts.get("beta", h_opts.get("m", 0.0)))
        self.ph, self.pp = MLRL_HEURISTICS[p_name], np.float32(p_opts.get("beta", p_opts.get("m", 0.0)))
        self.partial = self.params.head_type == "partial"
        if self.partial:
            self.lift, self.max_lift = lift_tables(self.params.lift_function, self.K, self.Y)
        else:
            self.lift, self.max_lift = (np.ones(self.K + 1, np.float32),) * 2
        _, induction = parse_option("seco:rule_induction", self.params.rule_induction)
        self.max_conditions = induction["max_conditions"] or _MAX_CONDITIONS_CAP
        self.min_coverage = min(self.n, induction["min_coverage"])
        if induction["min_support"] > 0:
            self.min_coverage = _bounded(self.n, induction["min_support"], induction["min_coverage"], self.n)
        self.max_head_refinements = induction["max_head_refinements"]
        self.beam_width = induction.get("beam_width", 0)  # 0: top-down-greedy
        self.resample_features = induction.get("resample_features", False)
        self.sampling, s_opts = parse_option("seco:instance_sampling", self.params.instance_sampling)
        self.n_drawn = 0 if self.sampling == "none" else _bounded(self.n, s_opts["sample_size"],
                                                                  s_opts["min_samples"], s_opts["max_samples"])
        self.out_sampling, self.o_opts = parse_option("seco:output_sampling", self.params.output_sampling)
        self.prune = self.params.rule_pruning == "irep"
        stratified = self.sampling == "stratified-output-wise" and 0 < self.n_drawn < self.n
        self.strata = _OutputWise(self.Y, self.n_drawn) if stratified else None

    def _index_attributes(self, X) -> None:
        """The feature index, its keys (binned or not) and the attributes sampled per refinement step."""
        self.index = build_feature_index(X, self.data.nominal)
        if self.index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: only the default rule is learned",
                          RuntimeWarning, stacklevel=3)
        self.D = self.index.n_features
        self.keys = self.index.values
        self.binning, b_opts = parse_option("seco:feature_binning", self.params.feature_binning)
        if self.binning != "none":
            index = self.index
            self.keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                                 METHOD_CODES[self.binning], b_opts["bin_ratio"], b_opts["min_bins"], b_opts["max_bins"])
        f_sampling, f_opts = parse_option("seco:feature_sampling", self.params.feature_sampling)
        self.n_features = self.D
        if f_sampling != "none":
            from ..sampling import sampled_feature_count  # noqa: PLC0415 - the same count as BOOMER's
            self.n_features = sampled_feature_count(self.D, f_opts["sample_size"], f_opts["min_samples"],
                                                    f_opts["max_samples"])
        self.retained = min(self.D, f_opts.get("num_retained", 0)) if f_sampling != "none" else 0

    def _decision_list(self) -> None:
        """The majority values, the pairs' coverage, the default rule and the decision list's losses."""
        self.majority = (self.Y.sum(axis=0) > self.n / 2.0).astype(np.uint8)
        minority = (self.Y != self.majority[None, :])
        self.uncovered_weight = float(minority.sum())  # the reference's sum of uncovered weights
        self.coverage = np.zeros((self.n, self.K), dtype=np.int32)  # how many rules predict the pair (0: uncovered)
        self.default = self.est.default_rule(self.Y, self.data.schema)
        default_values = (self.default.head_scores > 0).astype(np.uint8)
        self.train = _DecisionListTracker(self.Y, default_values)
        self.val = _DecisionListTracker(self.data.Y_test, default_values) if self.data.X_test is not None else None
        self.budget = (self.params.max_rules - 1) if self.params.max_rules > 0 else None  # the default rule counts
        self.est.stop_reason_ = "max_rules"
        self.all_labels = np.arange(self.K, dtype=np.int64)

    def _search_vectors(self, X) -> None:
        """The reference's sorted vectors of the attributes and the search's scratch arrays."""
        # the reference's view of an attribute: dense input, or sparse input without implicit zeros, has its
        # zeros as values; a sparse attribute (sparse input with zeros) treats them apart
        n_stored = np.diff(self.index.ptr) + np.diff(self.index.missing_ptr)
        self.dense = (n_stored >= self.n).astype(np.uint8) if sp.issparse(X) else np.ones(self.D, np.uint8)
        # numeric attributes without binning: the reference's own search (engine.core.seco_refine); nominal
        # or binned attributes: the shared sweep (engine.core.sweep)
        self.exact = (self.index.nominal == 0) & (self.binning == "none")
        self.walks = not self.exact.all()
        if self.walks:  # the shared sweep compacts the covered entries of each attribute
            self.cache = np.empty(len(self.index.rows), dtype=np.int32 if len(self.index.rows) < 2**31 else np.int64)
            self.seg = np.zeros((self.D, 3), dtype=np.int64)
        # the reference's vector of every numeric attribute, all examples covered, and the vectors of a rule's
        # covered examples (filtered as its conditions are added)
        self.bptr, self.brows, self.bvals = _base_vectors(self.index, self.dense, self.exact, self.n)
        self.wrows, self.wvals = np.empty_like(self.brows), np.empty_like(self.bvals)
        self.wlen = np.zeros(self.D, dtype=np.int64)
        self.wstamp = np.full(self.D, -1, dtype=np.int64)
        self.vectors = Vectors(self.bptr, self.brows, self.bvals, self.wrows, self.wvals, self.wlen, self.wstamp,
                               self.index.missing_ptr, self.index.missing_rows, self.dense)
        self.threads = _threads(self.params.parallel_rule_refinement)
        self.step_scratch = {}
        self.qbuf = np.empty(self.K, dtype=np.float32)
        self.positions = np.empty(self.K, dtype=np.int64)
        self.score_first = np.zeros(self.D)  # per attribute the best quality evaluated at a rule's first / later steps
        self.score_rest = np.zeros(self.D)
        self.search_ids = [-2]  # the beam's and post-optimization's searches: rule ids no covering step uses

    def next_id(self):
        self.search_ids[0] -= 1
        return self.search_ids[0]

    def sample_features(self):
        return _feature_sample(self.D, self.n_features, self.retained, self.rng)

    def found_equal(self, j, full, where):
        """After a condition on numeric attribute ``j`` (its positions ``where`` in the vector just searched),
        whether the reference takes the attribute's remaining vector for one of equal values and searches it
        no more in this rule: it compares the remaining range's first value with the value at the range's
        length less one (not its last value, unless the range starts at 0); sparse vectors are kept."""
        if not self.dense[j]:
            return False
        a = self.bptr[j]
        m = (self.bptr[j + 1] - a) if full else self.wlen[j]
        vals = self.bvals if full else self.wvals
        start, end, inverse = where
        if inverse:
            lo, hi = (0, start) if start > 0 else (end, m)
        else:
            lo, hi = (start, m) if start > 0 else (0, end)
        if hi - lo <= 0:
            return True
        x, y = np.float32(vals[a + lo]), np.float32(vals[a + hi - lo - 1])
        return bool(np.abs(x - y) <= _EPS32 * max(np.float32(1.0), max(np.abs(x), np.abs(y))))

    def block_row(self, j, full, where, weights):
        """The example the reference's search of a sparse attribute's non-zero block against its zeros
        evaluates apart from the condition's coverage, or -1: the descending pass never adds the entry
        first among the values >= 0 (the block's position ``start``), yet the block covers it (``>``) or
        leaves it out (``<=``, the rest); the head is the evaluated examples' (the reference's
        refinement keeps the head of its evaluation).  -1 also if that entry has no weight or is the only
        weighted one of the block (then the pass added it first)."""
        if where is None or self.dense[j]:
            return -1
        start, end, _ = where
        a = self.bptr[j]
        m = (self.bptr[j + 1] - a) if full else self.wlen[j]
        if end != m or start >= m:
            return -1
        rows, vals = (self.brows, self.bvals) if full else (self.wrows, self.wvals)
        if start != int(np.searchsorted(vals[a:a + m], np.float32(0.0), side="left")):
            return -1  # not the block: a search's other ranges ending at m start above the values < 0
        r0 = int(rows[a + start])
        if not weights[r0] > 0 or not (weights[rows[a + start + 1:a + m]] > 0).any():
            return -1
        return r0

    def evaluated_head(self, j, full, where, weights, covered, counts, mode, size):
        """The head's size in ``positions`` of the examples the reference evaluated for the condition just
        applied (``covered``, its head's ``size``): those of the sparse block's quirk (block_row)."""
        r0 = self.block_row(j, full, where, weights)
        if r0 < 0:
            return size
        evaluated = covered.copy()
        evaluated[r0] = 1 if where[2] else 0
        return mlrl_apply(-1, False, NO_VECTORS, evaluated, (0, 0, 0), LabelCounts(*counts), self.heuristic(mode),
                          self.qbuf, self.positions)[1]

    def heuristic(self, mode: int) -> Heuristic:
        """How heads are evaluated and chosen, in head mode ``mode``."""
        return Heuristic(self.h, self.hp, mode, self.lift, self.max_lift)

    def walked_index(self) -> Walked:
        """The feature index as the shared sweep walks it (nominal or binned attributes)."""
        index = self.index
        return Walked(index.ptr, index.rows, index.values, self.keys, self.cache, self.seg, index.missing_ptr,
                      index.missing_rows, index.nominal)

    def grow_greedy(self, weights, cand, fixed, rule_id, features_of, ordered=False):
        """mlrl-seco's top-down greedy search of one rule: (conditions, masks, head, quality).  ``ordered``:
        the attributes ``features_of`` gives are in the reference's order (ties to the earlier one), not
        ascending."""
        g = _Growing(weights, cand, fixed, rule_id, _label_counts(self.Y, self.coverage, weights, cand, self.majority),
                     self.walked_statistics(weights) if ordered else None, None, np.ones(self.n, dtype=np.uint8),
                     int((weights > 0).sum()))
        if self.walks:  # the shared sweep's statistics (all labels), and the covered examples' sums T1, T0
            wf, C1, C0, U1, U0 = self.walked_statistics(weights)
            g.sweep = [wf, C1, C0, U1, U0, wf.copy(), U1.copy(), U0.copy()]
        conditions = []
        head = cand
        if self.walks:
            self.seg[:, 0] = 0
        masks = []  # the covered examples after each condition (the reference's training coverage)
        equal = []  # attributes the reference searches no more in this rule (found_equal)
        while len(conditions) < self.max_conditions:
            mode = _mode(self.partial, g.fixed)
            features = features_of()
            if equal:
                features = features[~np.isin(features, equal)]
            candidates = self._candidates(g, features, ordered, mode)
            if candidates is None:
                return None
            best = None
            for j in sorted(candidates):  # ties: the earlier attribute
                if best is None or candidates[j][0] > candidates[best][0]:
                    best = j
            if best is None or not candidates[best][0] > g.current:
                break
            conditions.append(self._add_condition(g, best, candidates[best], mode, equal))
            g.full = False
            masks.append(g.covered.copy())
            head = np.sort(g.cand[self.positions[:g.size]])
            if self.max_head_refinements > 0 and len(conditions) >= self.max_head_refinements:
                if not np.array_equal(head, g.cand):
                    g.counts = _label_counts(self.Y, self.coverage, weights, head, self.majority)
                g.cand, g.fixed = head, True
            if g.n_T <= self.min_coverage:
                break
        return conditions, masks, head, g.current

    def _candidates(self, g: "_Growing", features, ordered: bool, mode: int):
        """Per attribute of ``features`` its best condition for the growing rule ``g``: attribute -> (quality,
        op, threshold, count, range or None); None when cancelled."""
        numeric = features[self.exact[features]] if self.walks else features
        walked = features[~self.exact[features]] if self.walks else features[:0]
        candidates = {}
        if ordered:  # each attribute's best (a list of one), the first of the best in the given order
            found = self.attribute_lists(g.covered, g.full, g.n_T, g.cand, g.counts, g.fixed, g.current, 1, features,
                                         g.weights, g.walked_state, False)
            if self.data.cancelled:
                return None
            if found:
                q, _, _, op, thr, cnt, where, j = found[0]
                candidates[j] = (q, op, thr, cnt, where)
            numeric = walked = features[:0]
        if len(numeric):
            candidates.update(self._numeric_candidate(g, numeric, mode))
        if len(walked):
            candidates.update(self._walked_candidates(g, walked, mode))
        return None if self.data.cancelled else candidates

    def _numeric_candidate(self, g: "_Growing", numeric, mode: int) -> dict:
        """The best condition on the ``numeric`` attributes by the reference's own search, chunked over threads."""
        Wm, U, maj_c = g.counts
        score = self.score_first if g.full else self.score_rest
        # the attributes of the best earlier qualities first (0.15.6's accuracy: in order, the first
        # candidate is the best)
        order = numeric if self.h == MH_ACCURACY else numeric[np.argsort(-score[numeric], kind="stable")]
        work = (self.n if g.full else g.n_T) * len(numeric) * Wm.shape[1]  # entries times counts added
        chunks = self.threads if work >= PARALLEL_MIN_WORK else 1
        key = (chunks, Wm.shape[1])
        if key not in self.step_scratch:
            self.step_scratch[key] = _step_scratch(chunks, Wm.shape[1] // 2)
        out_f, out_i, best_all, scratch = self.step_scratch[key]
        best_all[0] = g.current
        args = (order, self.vectors, Body(g.rule_id, g.full, g.covered, g.weights), LabelCounts(Wm, U, maj_c),
                self.heuristic(mode), self.min_coverage, float(g.current), score, best_all)
        _run_chunks(args, chunks, out_f, out_i, scratch, self.data.cancel)
        won = _best_chunk(out_f, out_i)
        if won < 0:
            return {}
        where = (int(out_i[won, START]), int(out_i[won, END]), int(out_i[won, INVERSE]))
        return {int(out_i[won, ATTR]): (np.float32(out_f[won, BEST_Q]), int(out_i[won, OP]),
                                        float(out_f[won, BEST_THR]), int(out_i[won, COUNT]), where)}

    def _walked_candidates(self, g: "_Growing", walked, mode: int) -> dict:
        """The best condition on each of the ``walked`` (nominal or binned) attributes by the shared sweep."""
        _, C1, C0, U1, U0, cw, T1, T0 = g.sweep
        m = len(walked)
        w_q, w_op, w_thr, w_cnt = np.empty(m, np.float32), np.empty(m, np.int64), np.empty(m), np.empty(m, np.int64)
        heads = (self.heuristic(mode), self.majority, g.cand, len(g.cand))
        mlrl_best_conditions(walked, self.walked_index(), cw, g.n_T, Pairs(C1, C0, T1, T0, U1, U0), self.min_coverage,
                             heads, (w_q, w_op, w_thr, w_cnt), self.data.cancel)
        return {int(j): (w_q[c], int(w_op[c]), float(w_thr[c]), int(w_cnt[c]), None)
                for c, j in enumerate(walked) if w_op[c] >= 0}

    def _add_condition(self, g: "_Growing", best: int, candidate, mode: int, equal: list) -> Condition:
        """The growing rule ``g`` refined by ``candidate`` on attribute ``best``: its coverage, quality, count
        and head size (``g.size``) as the reference's search leaves them."""
        q, op, thr, g.n_T, where = candidate
        g.current = q
        index = self.index
        if where is None:  # a condition of the shared sweep covers by its threshold
            apply_condition(best, op, thr, index.ptr, index.rows, index.values, index.missing_ptr,
                            index.missing_rows, g.covered)
        elif self.found_equal(best, g.full, where):
            equal.append(best)
        # the reference's search covers its positions in the attribute's vector; then the head
        _, size = mlrl_apply(-1 if where is None else best, g.full, self.vectors, g.covered, where or (0, 0, 0),
                             LabelCounts(*g.counts), self.heuristic(mode), self.qbuf, self.positions)
        g.size = self.evaluated_head(best, g.full, where, g.weights, g.covered, g.counts, mode, size)
        if self.walks:
            sweep = g.sweep
            sweep[5] = np.where(g.covered > 0, sweep[0], 0.0)
            sweep[6] = sweep[5] @ sweep[1]
            sweep[7] = sweep[5] @ sweep[2]
        return Condition(best, OPERATORS[op], thr)

    def walked_statistics(self, weights):
        """The shared sweep's statistics of a rule's search (nominal or binned attributes), or None."""
        if not self.walks:
            return None
        free = self.coverage == 0
        wf = weights.astype(np.float64)
        C1 = np.ascontiguousarray(free & (self.Y == 1), dtype=np.uint8)
        C0 = np.ascontiguousarray(free & (self.Y == 0), dtype=np.uint8)
        return wf, C1, C0, wf @ C1, wf @ C0

    def attribute_lists(self, covered, full, count, labels, counts, is_fixed, floor, width, features, weights,
                        walked_state, later_first):
        """The best refinements of the body covering ``covered`` (``count`` examples of the sample) better than
        ``floor``: each attribute's list of up to ``width`` as mlrl-seco's fixed-size comparator keeps them
        (mlrl_refine's top-k mode; the shared sweep: its best condition), merged best first, equal ones of
        different attributes by their order in ``features``, the later first if ``later_first`` (the beam's
        comparator) else the earlier: the first ``width`` as tuples (quality, position of the attribute in
        ``features``, candidate number, op, threshold, count, range or None, attribute).  The ranges refer to
        this search's vectors: apply them before the next search."""
        Wm, U, maj_c = counts
        mode = _mode(self.partial, is_fixed)
        position = np.empty(self.D, dtype=np.int64)
        position[features] = np.arange(len(features))
        numeric = features[self.exact[features]] if self.walks else features
        walked = features[~self.exact[features]] if self.walks else features[:0]
        parts = []  # arrays: quality, attribute, candidate number, op, threshold, count, start, end, inverse, walked
        if len(numeric):
            m = len(numeric)
            work = (self.n if full else count) * m * Wm.shape[1]
            chunks = self.threads if work >= PARALLEL_MIN_WORK else 1
            out_f = np.empty((chunks, 2 + 2 * width * m))
            out_i = np.zeros((chunks, N_TOP_I + m * (1 + 6 * width)), dtype=np.int64)
            out_i[:, TOP_K] = width
            scratch = _step_scratch(chunks, Wm.shape[1] // 2)[3]
            args = (np.ascontiguousarray(numeric, dtype=np.int64), self.vectors,
                    Body(self.next_id(), full, covered, weights), LabelCounts(Wm, U, maj_c), self.heuristic(mode),
                    self.min_coverage, float(floor), self.score_rest, np.array([float(floor)]))
            _run_chunks(args, chunks, out_f, out_i, scratch, self.data.cancel)
            o = np.arange(m)
            chunk = o % chunks  # the thread that searched the attribute at position o
            ri = N_TOP_I + o * (1 + 6 * width)
            rf = 2 + 2 * width * o
            length = out_i[chunk, ri]
            for slot in range(width):
                has = length > slot
                if not has.any():
                    break
                c, at_i, at_f = chunk[has], ri[has] + 1 + 6 * slot, rf[has] + 2 * slot
                parts.append((out_f[c, at_f].astype(np.float32), numeric[has], out_i[c, at_i], out_i[c, at_i + 1],
                              out_f[c, at_f + 1], out_i[c, at_i + 2], out_i[c, at_i + 3], out_i[c, at_i + 4],
                              out_i[c, at_i + 5], np.zeros(int(has.sum()), dtype=bool)))
        if len(walked):
            wf, C1, C0, U1, U0 = walked_state
            cw = np.where(covered > 0, wf, 0.0)
            self.seg[:, 0] = 0  # the bodies searched here are not nested: the sweep compacts afresh
            w_q, w_op, w_thr, w_cnt = (np.empty(len(walked), np.float32), np.empty(len(walked), np.int64),
                                       np.empty(len(walked)), np.empty(len(walked), np.int64))
            heads = (self.heuristic(mode), self.majority, labels, len(labels))
            mlrl_best_conditions(walked, self.walked_index(), cw, count, Pairs(C1, C0, cw @ C1, cw @ C0, U1, U0),
                                 self.min_coverage, heads, (w_q, w_op, w_thr, w_cnt), self.data.cancel)
            ok = (w_op >= 0) & (w_q > floor)
            zeros = np.zeros(int(ok.sum()), dtype=np.int64)
            parts.append((w_q[ok], walked[ok], zeros, w_op[ok], w_thr[ok], w_cnt[ok], zeros, zeros, zeros,
                          np.ones(len(zeros), dtype=bool)))
        if not parts:
            return []
        q, attr, seq, op, thr, cnt, start, end, inverse, by_threshold = (np.concatenate(x) for x in zip(*parts))
        pos = position[attr]
        order = np.lexsort((seq, -pos if later_first else pos, -q.astype(np.float64)))[:width]
        return [(q[i], int(pos[i]), int(seq[i]), int(op[i]), float(thr[i]), int(cnt[i]),
                 None if by_threshold[i] else (int(start[i]), int(end[i]), int(inverse[i])), int(attr[i]))
                for i in order]

    def grow_beam(self, weights, cand, fixed, features_of):
        """mlrl-seco's top-down beam search of one rule (module doc): (conditions, masks, head, quality)."""
        search = _BeamSearch(self, weights)
        root = _BeamEntry([], [], np.ones(self.n, dtype=np.uint8), np.float32(0.0), int((weights > 0).sum()), cand,
                          fixed, cand, True, True, frozenset())
        refs = search.refinements(root, 0.0, features_of())
        if self.data.cancelled or not refs:
            return None if self.data.cancelled else ([], [], cand, np.float32(0.0))
        keep = self.max_head_refinements == 1
        beam = [search.child(root, ref, keep) for ref in refs]
        for entry in beam:
            entry.refinable = True  # the reference refines its first entries whatever they cover
        depth = 1
        found = True
        while found and depth < self.max_conditions:
            depth += 1
            keep = self.max_head_refinements > 0 and depth >= self.max_head_refinements
            if self.resample_features:  # a new sample of attributes for each entry refined
                level = search.level(beam, keep, features_of)
            else:  # one sample for the level
                features = features_of()
                level = search.level(beam, keep, lambda: features)
            if level is None:
                return None
            beam, found = level
        best = beam[0]
        return best.conditions, best.masks, best.head, best.q

    def grow(self, weights, cand, fixed, rule_id, features_of, ordered=False):
        if self.beam_width:
            return self.grow_beam(weights, cand, fixed, features_of)
        return self.grow_greedy(weights, cand, fixed, rule_id, features_of, ordered)

    def finish(self, conditions, masks, head, weights):
        """IREP on the examples out of the sample: (conditions kept, the number pruned)."""
        if self.prune and (weights == 0).any() and len(conditions) > 1:
            keep = _irep_masks(masks, head, weights, self.Y, self.coverage, self.majority, self.ph, self.pp,
                               self.partial, self.lift, self.max_lift, self.qbuf, self.positions)
            return conditions[:keep], len(conditions) - keep
        return conditions, 0

    def cover(self, rows, head, sign):
        """Count the rule's pairs as covered (``sign`` 1) or take them back (-1): the reference's coverage
        counts; returns the change of the uncovered weight."""
        block = self.coverage[np.ix_(rows, head)]
        if sign > 0:
            self.coverage[np.ix_(rows, head)] = block + 1
            return -float((block == 0).sum())
        self.coverage[np.ix_(rows, head)] = block - 1
        return float((block == 1).sum())

    def labels_for(self, t):
        """The labels rule ``t`` may predict: round-robin's, a new sample, or all of them."""
        if self.out_sampling == "round-robin":
            return np.array([t % self.K], dtype=np.int64)
        if self.out_sampling == "without-replacement":
            m = _bounded(self.K, self.o_opts["sample_size"], self.o_opts["min_samples"], self.o_opts["max_samples"])
            return np.sort(self.rng.choice(self.K, m, replace=False)).astype(np.int64)
        return self.all_labels

    def settle(self, conditions, masks, head, weights):
        """A grown body pruned (IREP) and made a rule predicting its labels' minority values: (rule, values,
        its training coverage - the reference's positions in the attributes' vectors, whose pairs are
        counted as covered - its model coverage by the thresholds, conditions pruned, change of the
        uncovered weight)."""
        conditions, pruned = self.finish(conditions, masks, head, weights)
        values = (1 - self.majority[head]).astype(np.uint8)
        rule = Rule(as_equalities(tuple(conditions), self.data.binary), head, np.where(values > 0, 1.0, -1.0),
                    self.data.schema)
        train_rows = np.flatnonzero(masks[len(conditions) - 1])
        change = self.cover(train_rows, head, 1)
        rows = np.flatnonzero(_coverage(conditions, self.index, self.n))
        return rule, values, train_rows, rows, pruned, change

    # -- the covering loop -----------------------------------------------------------------------------
    def learn(self) -> Iterator[RuleRecord]:
        """The rules, then post-optimization's revisions, then the default rule (none after cancelling)."""
        if (yield from self.covering()) or (yield from self.post_optimize()):
            return  # cancelled: the unfinished rule is dropped
        yield self.default_record()

    def covering(self):
        """Rules until every minority pair is covered or a stop criterion holds; returns True when cancelled."""
        self.learned = []  # per rule: (rule, its training coverage rows, its model coverage rows, test rows)
        # how many rules cover each pair by their thresholds: every rule predicts its labels' minority values, so
        # a pair is predicted so if any rule covers it (post-optimization's revisions update the losses by it)
        self.train_count = np.zeros((self.n, self.K), dtype=np.int32)
        self.test_count = None if self.val is None else np.zeros(self.data.Y_test.shape, dtype=np.int32)
        self.t = 0
        est = self.est
        while self.budget is None or self.t < self.budget:
            if not self.uncovered_weight > 0:
                est.stop_reason_ = "coverage"
                break
            if self.params.time_limit and time.monotonic() - self.started >= self.params.time_limit:
                est.stop_reason_ = "time_limit"
                break
            weights = _instance_weights(self.sampling, self.n_drawn, self.Y, self.rng, self.strata)
            cand = self.labels_for(self.t)
            fixed = self.out_sampling != "none"  # sampled labels: the reference evaluates them as a fixed head
            grown = self.grow(weights, cand, fixed, self.t, self.sample_features)
            if grown is None:
                return True
            if not grown[0]:
                est.stop_reason_ = "no_refinement"
                break
            yield self._rule_record(grown, weights)
            self.t += 1
        return False

    def _rule_record(self, grown, weights) -> RuleRecord:
        """A grown rule settled, counted in the losses and recorded."""
        conditions, masks, head, current = grown
        # the losses and the coverage shown are the model's (its thresholds), which in the reference's quirks
        # may differ from the training coverage
        rule, values, train_rows, rows, pruned, change = self.settle(conditions, masks, head, weights)
        self.uncovered_weight += change
        train, val = self.train, self.val
        before = train.hamming
        new_pairs = train.apply(rows, head, values)
        self.train_count[np.ix_(rows, head)] += 1
        record = dict(index=self.t, rule=rule, coverage=int(len(rows)), improvement=float(before - train.hamming),
                      train_hamming=train.hamming, train_subset=train.subset)
        test_rows = None
        if val is not None:
            test_rows = np.flatnonzero(rule_coverage(rule, self.data.X_test))
            val.apply(test_rows, head, values)
            self.test_count[np.ix_(test_rows, head)] += 1
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        record["extra"] = {"heuristic": float(current), "head_size": float(len(head)),
                           "new_pairs": float(new_pairs), "pruned_conditions": float(pruned),
                           "uncovered": float(self.uncovered_weight)}
        self.learned.append((rule, train_rows, rows, test_rows))
        return RuleRecord(**record)

    # -- mlrl-seco's sequential post-optimization: each rule relearned in the context of all others -------
    def post_optimize(self):
        """The revisions of ``post_optimization='sequential'``; returns True when cancelled."""
        post, options = parse_option("seco:post_optimization", self.params.post_optimization)
        if self.est.stop_reason_ == "no_refinement":
            self.t += 1  # the failed attempt drew its round-robin label too
        if post != "sequential" or not self.learned:
            return False
        for iteration in range(1, options["num_iterations"] + 1):
            for i in range(len(self.learned)):
                if self.data.cancelled:
                    return True
                old, old_train = self.learned[i][:2]
                weights = _instance_weights(self.sampling, self.n_drawn, self.Y, self.rng, self.strata)
                self.uncovered_weight += self.cover(old_train, old.head_labels, -1)  # the model without rule i
                grown = self._relearn(old, weights, options)
                if grown is None:
                    return True
                if grown[0]:  # else no rule: the old one stays, its pairs uncovered (as the reference leaves them)
                    yield self._revision(i, iteration, grown, weights)
        return False

    def _relearn(self, old: Rule, weights, options):
        """A rule grown in the place of ``old`` (None: cancelled)."""
        if options["refine_heads"]:
            cand = self.labels_for(self.t)
            if self.out_sampling == "round-robin":
                self.t += 1  # a relearned head takes the next label in turn
            fixed = self.out_sampling != "none"
        else:  # the rule's own labels, evaluated as a fixed head
            cand, fixed = np.asarray(old.head_labels, dtype=np.int64), True
        if options["resample_features"]:
            features_of = self.sample_features
        else:  # the attributes of the rule's conditions, in the reference's order
            own = _conditions_attributes(old.conditions)
            features_of = lambda own=own: own  # noqa: E731
        return self.grow(weights, cand, fixed, self.next_id(), features_of, not options["resample_features"])

    def _revision(self, i: int, iteration: int, grown, weights) -> RuleRevision:
        """Rule ``i`` replaced by the ``grown`` one: the losses revised, the revision recorded."""
        old, _, old_rows, old_test = self.learned[i]
        conditions, masks, head, current = grown
        rule, values, train_rows, rows, pruned, change = self.settle(conditions, masks, head, weights)
        self.uncovered_weight += change
        train, val = self.train, self.val
        test_rows = None if val is None else np.flatnonzero(rule_coverage(rule, self.data.X_test))
        self.learned[i] = (rule, train_rows, rows, test_rows)
        before = train.hamming
        _revise(train, self.train_count, old_rows, old.head_labels, rows, head, self.majority)
        record = dict(index=len(self.est.records_), revises=i, old_rule=old, rule=rule, iteration=iteration,
                      coverage=int(len(rows)), improvement=float(before - train.hamming),
                      train_hamming=train.hamming, train_subset=train.subset)
        if val is not None:
            _revise(val, self.test_count, old_test, old.head_labels, test_rows, head, self.majority)
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        record["extra"] = {"heuristic": float(current), "head_size": float(len(head)), "new_pairs": 0.0,
                           "pruned_conditions": float(pruned), "uncovered": float(self.uncovered_weight)}
        return RuleRevision(**record)

    def default_record(self) -> RuleRecord:
        """The default rule, last in the decision list."""
        train, val = self.train, self.val
        record = dict(index=len(self.est.records_), rule=self.default, coverage=self.n, improvement=0.0,
                      train_hamming=train.hamming, train_subset=train.subset,
                      extra={"heuristic": math.nan, "head_size": float(self.K),
                             "new_pairs": float(int((train.decided == 0).sum())), "pruned_conditions": 0.0,
                             "uncovered": float(self.uncovered_weight)})
        if val is not None:
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        return RuleRecord(**record)


class _BeamSearch:
    """One rule's top-down beam search on the fit ``fit`` (:class:`MlrlFit`) with the instance ``weights``."""

    def __init__(self, fit: MlrlFit, weights: np.ndarray):
        self.fit, self.weights = fit, weights
        self.counts = {}
        self.walked_state = fit.walked_statistics(weights)

    def counts_of(self, labels):
        key = labels.tobytes()
        if key not in self.counts:
            fit = self.fit
            self.counts[key] = _label_counts(fit.Y, fit.coverage, self.weights, labels, fit.majority)
        return self.counts[key]

    def refinements(self, entry, floor, features):
        """The ``beam_width`` best refinements of ``entry`` better than ``floor``: the attributes' lists
        merged best first, ties to the later attribute (the reference's merge)."""
        if entry.equal:
            features = features[~np.isin(features, list(entry.equal))]
        return self.fit.attribute_lists(entry.covered, entry.full, entry.count, entry.cand, self.counts_of(entry.cand),
                                        entry.fixed, floor, self.fit.beam_width, features, self.weights,
                                        self.walked_state, True)

    def child(self, entry, ref, keep):
        """``entry`` refined by ``ref``; its head's labels fixed if ``keep``."""
        fit, index = self.fit, self.fit.index
        q, _, _, op, thr, cnt, where, j = ref
        covered = entry.covered.copy()
        if where is None:
            apply_condition(j, op, thr, index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows,
                            covered)
        Wm, U, maj_c = self.counts_of(entry.cand)
        mode = _mode(fit.partial, entry.fixed)
        _, size = mlrl_apply(-1 if where is None else j, entry.full, fit.vectors, covered, where or (0, 0, 0),
                             LabelCounts(Wm, U, maj_c), fit.heuristic(mode), fit.qbuf, fit.positions)
        size = fit.evaluated_head(j, entry.full, where, self.weights, covered, (Wm, U, maj_c), mode, size)
        head = np.sort(entry.cand[fit.positions[:size]])
        labels, is_fixed = (head, True) if keep else (entry.cand, entry.fixed)
        equal = entry.equal | {j} if where is not None and fit.found_equal(j, entry.full, where) else entry.equal
        return _BeamEntry(entry.conditions + [Condition(j, OPERATORS[op], thr)], entry.masks + [covered],
                          covered, np.float32(q), cnt, labels, is_fixed, head, False, cnt > fit.min_coverage, equal)

    def level(self, beam: list, keep: bool, features_of):
        """The next beam from ``beam`` (the reference's full beam kept sorted) and whether any entry was refined;
        None when cancelled."""
        width = self.fit.beam_width
        new = []
        min_q = beam[-1].q
        found = False
        for entry in beam:
            refined = False
            if entry.refinable:
                refs = self.refinements(entry, min_q, features_of())
                if self.fit.data.cancelled:
                    return None
                if refs:
                    refined = found = True
                    for ref in refs:
                        c = self.child(entry, ref, keep)
                        if len(new) < width:
                            new.append(c)
                        else:
                            min_q = _replace_last(new, c)
            if not refined:
                entry.refinable = False
                if len(new) < width:
                    new.append(entry)
                elif not min_q > entry.q:
                    min_q = _replace_last(new, entry)
        return new, found


def _replace_last(new: list, entry) -> float:
    """The reference's full beam: the last entry replaced, then sorted (stable for its widths); the new last
    quality."""
    new[-1] = entry
    new.sort(key=lambda e: -e.q)
    return new[-1].q


@dataclass
class _Growing:
    """A rule the greedy search is growing: its instance weights, candidate labels (``fixed``: evaluated as a
    fixed head), label counts, the shared sweep's statistics, covered examples and their count ``n_T`` in the
    sample, whether all are covered, its quality and head size."""

    weights: np.ndarray
    cand: np.ndarray
    fixed: bool
    rule_id: int
    counts: tuple
    walked_state: tuple | None
    sweep: list | None
    covered: np.ndarray
    n_T: int
    full: bool = True
    current: np.float32 = np.float32(0.0)
    size: int = 0
