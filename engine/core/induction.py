"""Rule induction besides the default greedy kernel: mlrl-boomer 0.15.6's top-down beam search, head
refinements, heads that are not recalculated, and IREP rule pruning.

The default (``top-down-greedy`` with ``max_head_refinements=1``, ``recalculate_predictions=true`` and no
rule pruning) stays in the fused kernel of :mod:`.boosting_step`; every other setting runs here, one
rule at a time, with the search steps in compiled code and the beam kept in Python:

- a refinement step sweeps each sampled attribute with the walk of :mod:`.sweep` and BOOMER's hooks of
  :mod:`.refinement`, but its ``_consider`` keeps a list of up to ``k`` conditions per attribute
  (:func:`top_refinements`), as mlrl-boomer's fixed-size comparator does: a condition enters only if it
  is better than the worst one in the list (or, while the list is empty, than the bound), so the list
  is not the k best of the attribute but those better than the first accepted.  The lists of the
  attributes are merged into the k best (ties within a relative 1e-12: the earlier attribute).
- beam search (``beam_width`` k): the empty rule's k best refinements start the beam; at each further
  depth every entry is replaced by its refinements better than the worst entry of the previous beam,
  an entry without refinements stays (and is not refined again), and the new beam keeps mlrl-boomer's
  order: entries are appended until ``k`` are there, after that a new one replaces the last and the
  beam is sorted.  The best entry is the first.  Greedy search is the same with k = 1.
- ``max_head_refinements``: after that many conditions (0: never) a rule's labels are fixed: later
  conditions are chosen for the head's labels only (their statistics' columns, a complete head on
  them, binned for partial heads with label binning).
- the head: recomputed on every covered training example (``recalculate_predictions``) when the
  rule was learned on a sample with examples out of it (weight 0), else the head of the search's
  statistics (the sample's, weighted).  Without sampling both are the same.
- IREP (``rule_pruning='irep'``): with examples out of the sample (the prune set), the rule's
  prefixes of 1 .. n - 1 conditions are rated by the quality of the head's labels' optimal scores on
  the covered prune-set examples; the best prefix is kept (a tie with the whole rule goes to the
  shorter prefix, later prefixes must be strictly better).  Without examples out of the sample there
  is nothing to prune on and rules stay as learned (as in mlrl-boomer).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .boosting import apply_head, apply_head_tracked, covered_rows, example_wise_errors
from .head_variants import HEAD_BINNED, HEAD_COMPLETE, HEAD_PARTIAL_FIXED, HEAD_SINGLE_LARGEST_SCORE, HEAD_SINGLE
from .head_variants import variant_head, variant_quality
from .heads import complete_quality, complete_scores, diagonal_position, label_score
from .losses import packed_index
from .refinement import (ACCUMULATOR_ROWS, TIE_TOLERANCE, _VALID, _add, _drop, _merge, _reset,
                         _covering_condition, _side_quality, _split_quality_variants, apply_condition, bagging_weights,
                         sample_features, smallest_positive)
from .sweep import OP_GT_ZERO, OP_LEQ_NEG, OP_LEQ_ZERO, OP_NEQ, OUT_OF_SAMPLE, specialise


@njit(cache=True, nogil=True)
def _push(ctx, A_g, A_h, side, complement, q, op, threshold, label, cnt, bound, n):
    """Offer one condition to the attribute's list (ctx[7:12]); returns (the list's new bound, its length)."""
    if not q < bound:
        return bound, n
    tq, ti, tt, tg, th = ctx[7], ctx[8], ctx[9], ctx[10], ctx[11]
    k = tq.shape[0]
    p = n if n < k else k - 1
    if n < k:
        n += 1
    while p > 0 and q < tq[p - 1]:
        tq[p] = tq[p - 1]
        tt[p] = tt[p - 1]
        for a in range(3):
            ti[p, a] = ti[p - 1, a]
        for a in range(tg.shape[1]):
            tg[p, a] = tg[p - 1, a]
        for a in range(th.shape[1]):
            th[p, a] = th[p - 1, a]
        p -= 1
    tq[p] = q
    tt[p] = threshold
    ti[p, 0] = op
    ti[p, 1] = label
    ti[p, 2] = cnt
    for a in range(tg.shape[1]):
        tg[p, a] = A_g[_VALID, a] - A_g[side, a] if complement else A_g[side, a]
    for a in range(th.shape[1]):
        th[p, a] = A_h[_VALID, a] - A_h[side, a] if complement else A_h[side, a]
    return tq[n - 1], n


@njit(cache=True, nogil=True, inline="always")
def _consider_top(ctx, A_g, A_h, side, count, n_valid, op_side, op_rest, threshold, best):
    """The walk's hook: both conditions of a threshold go to the attribute's list (``best`` = (bound,
    length, ...))."""
    bound = best[0]
    n = best[1]
    qx, lx, qr, lr = _split_quality_variants(A_g, A_h, side, count, n_valid, ctx, bound)
    if op_side == OP_NEQ:
        bound, n = _push(ctx, A_g, A_h, side, True, qr, op_rest, threshold, lr, n_valid - count, bound, n)
        bound, n = _push(ctx, A_g, A_h, side, False, qx, op_side, threshold, lx, count, bound, n)
    else:
        bound, n = _push(ctx, A_g, A_h, side, False, qx, op_side, threshold, lx, count, bound, n)
        bound, n = _push(ctx, A_g, A_h, side, True, qr, op_rest, threshold, lr, n_valid - count, bound, n)
    return bound, n, best[2], best[3], best[4]


_walk_top = specialise("_walk_boomer_top", compact=False, reference=True, _drop=_drop, _reset=_reset, _add=_add,
                       _merge=_merge, _consider=_consider_top)


@njit(cache=True, nogil=True)
def top_refinements(perm, m, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, G, H, T_g, T_h,
                    T_cnt, full_hessian, head, l2, l1, min_coverage, min_quality, params, out_q, out_i, out_t, out_g,
                    out_h, cancel):
    """For each of the first ``m`` attributes of ``perm``, its list of conditions (at most
    ``out_q.shape[1]``, best first) better than ``min_quality``: qualities ``out_q[c]`` (inf: none),
    (operator, label, covered count) ``out_i[c]``, thresholds ``out_t[c]``, statistics ``out_g[c]``,
    ``out_h[c]``.  ``head`` is a head code of :mod:`.head_variants` (not a fixed label).  Returns
    False if cancelled."""
    K = G.shape[1]
    S = H.shape[1]
    n_chol = max(K, 2 * int(params[3])) if full_hessian else 1
    n_variant = max(K, 2 * int(params[3]))
    work_g = np.empty((ACCUMULATOR_ROWS, K))
    work_h = np.empty((ACCUMULATOR_ROWS, S))
    chol = np.zeros((n_chol, n_chol))
    z = np.zeros(max(K, n_chol))
    vi = np.empty((3, n_variant), dtype=np.int64)
    vg = np.empty(max(K, n_variant))
    vh = np.empty(max(S, n_variant * (n_variant + 1) // 2 if full_hessian else n_variant))
    cfg = (T_cnt, full_hessian, head, l2, l1, min_coverage)
    for c in range(m):
        j = perm[c]
        for a in range(out_q.shape[1]):
            out_q[c, a] = math.inf
            out_i[c, a, 0] = -1
        for k in range(K):
            work_g[_VALID, k] = T_g[k]
        for k in range(S):
            work_h[_VALID, k] = T_h[k]
        ctx = (cfg, chol, z, params, vi, vg, vh, out_q[c], out_i[c], out_t[c], out_g[c], out_h[c])
        ok, best = _walk_top(j, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, cw, T_cnt, G, H,
                             work_g, work_h, ctx, (min_quality, np.int64(0), 0.0, np.int64(-1), np.int64(0)), cancel)
        if not ok:
            return False
    return True


@njit(cache=True, nogil=True)
def _weighted_sums(G, H, cw, out_g, out_h):
    """Sums of the rows of ``G`` and ``H`` weighted by ``cw``; returns how many weights are positive."""
    n = 0
    for i in range(G.shape[0]):
        w = cw[i]
        if w > 0.0:
            n += 1
            for k in range(G.shape[1]):
                out_g[k] += w * G[i, k]
            for k in range(H.shape[1]):
                out_h[k] += w * H[i, k]
    return n


class Induction:
    """The settings of one rule induction: ``beam_width`` 1 is greedy search (unless ``ties_to_later``)."""

    def __init__(self, beam_width: int = 1, resample_features: bool = False, max_head_refinements: int = 1,
                 recalculate_predictions: bool = True, irep: bool = False, ties_to_later: bool | None = None):
        self.beam_width = int(beam_width)
        # equal refinements of two attributes: beam search takes the later one, greedy search the earlier
        self.ties_to_later = self.beam_width > 1 if ties_to_later is None else bool(ties_to_later)
        self.resample_features = bool(resample_features)
        self.max_head_refinements = int(max_head_refinements)
        self.recalculate = bool(recalculate_predictions)
        self.irep = bool(irep)


class _Entry:
    """A rule of the beam: conditions, coverage over all training examples, the sampled examples'
    statistics in the columns ``cols`` (None: every label), quality, label (single-label heads) and
    whether it may be refined further."""

    __slots__ = ("conditions", "covered", "T_g", "T_h", "T_cnt", "q", "cols", "label", "refinable", "toggled")

    def __init__(self, conditions, covered, T_g, T_h, T_cnt, q, cols, label, refinable=True):
        self.conditions, self.covered, self.T_g, self.T_h, self.T_cnt = conditions, covered, T_g, T_h, T_cnt
        self.q, self.cols, self.label, self.refinable = q, cols, label, refinable
        self.toggled = -1  # the example whose statistics the last condition's rating differs in (see refinement)


def _sub_hessian_columns(cols: np.ndarray, K: int, full: bool) -> np.ndarray:
    """The columns of ``H`` holding the (packed) Hessian of the labels ``cols``, in the packed order of
    a ``len(cols)``-label Hessian."""
    if not full:
        return np.asarray(cols, dtype=np.int64)
    n = len(cols)
    out = np.empty(n * (n + 1) // 2, dtype=np.int64)
    for a in range(n):
        for b in range(a, n):
            out[packed_index(a, b, n)] = packed_index(int(cols[a]), int(cols[b]), K)
    return out


class RuleInducer:
    """Learns and applies one rule per call, with the arguments and answer of the boosting kernel
    (:func:`engine.core.boosting_step.boosting_kernel`)."""

    def __init__(self, induction: Induction):
        self.ind = induction

    # -- the search ---------------------------------------------------------------------------------
    def _statistics(self, entry):
        """(G, H, full Hessian, head code) an entry's refinements are searched on."""
        if entry.cols is None:
            return self.G, self.H, self.full, self.head_code
        key = tuple(entry.cols.tolist())
        if key not in self._column_cache:
            hcols = _sub_hessian_columns(entry.cols, self.K, self.full)
            self._column_cache[key] = (np.ascontiguousarray(self.G[:, entry.cols]),
                                       np.ascontiguousarray(self.H[:, hcols]))
        G, H = self._column_cache[key]
        # fixed labels: a complete head on them (binned for partial heads with label binning, as mlrl-boomer's
        # binned partial evaluations rate a partial index vector)
        return G, H, self.full, HEAD_BINNED if self.head_code < HEAD_BINNED else HEAD_COMPLETE

    def _search(self, entry, min_quality, width):
        """The best ``width`` refinements of ``entry`` better than ``min_quality`` (list of tuples
        (quality, attribute, operator, threshold, label, count, g, h)), or None if cancelled."""
        G, H, full, code = self._statistics(entry)
        m = self.m
        K, S = G.shape[1], H.shape[1]
        out_q = np.empty((m, width))
        out_i = np.empty((m, width, 3), dtype=np.int64)
        out_t = np.empty((m, width))
        out_g = np.empty((m, width, K))
        out_h = np.empty((m, width, S))
        cw = self.weights_f * entry.covered
        cw[(entry.covered != 0) & (self.weights_f <= 0)] = OUT_OF_SAMPLE  # mlrl-boomer's searches still see them
        ok = top_refinements(self.perm, m, *self.index, cw, G, H, entry.T_g, entry.T_h, np.int64(entry.T_cnt), full,
                             np.int64(code), self.l2, self.l1, np.int64(self.min_coverage), float(min_quality),
                             self.head_params, out_q, out_i, out_t, out_g, out_h, self.cancel)
        if not ok:
            return None
        # the attributes' lists merged, best first: greedy search keeps the earlier attribute on a tie (a
        # later one must be better by the relative tolerance), beam search the later one, as mlrl-boomer's
        # two comparators merge them; an attribute's own list keeps its order
        later = self.ind.ties_to_later
        chosen = []  # (q, c, r)
        for c in range(m):
            for r in range(width):
                q = out_q[c, r]
                if not math.isfinite(q):
                    break
                p = 0
                while p < len(chosen):
                    other = chosen[p][0]
                    if chosen[p][1] != c and (not other < q if later
                                              else q < other - TIE_TOLERANCE * abs(other)):
                        break
                    p += 1
                if p < width:
                    chosen.insert(p, (q, c, r))
                    del chosen[width:]
        return [(q, int(self.perm[c]), int(out_i[c, r, 0]), float(out_t[c, r]), int(out_i[c, r, 1]),
                 int(out_i[c, r, 2]), out_g[c, r].copy(), out_h[c, r].copy()) for q, c, r in chosen]

    def _head_labels(self, entry):
        """The labels of the entry's head (its statistics' columns' labels)."""
        if entry.cols is not None:
            return entry.cols
        if self.single:
            return np.array([entry.label], dtype=np.int64)
        if self.head_code <= HEAD_PARTIAL_FIXED and self.head_code != HEAD_BINNED:
            labels, _ = self._variant_head(entry.T_g, entry.T_h, 1.0)
            return labels
        return np.arange(self.K, dtype=np.int64)

    def _variant_head(self, g, h, scale):
        K, S = self.K, self.H.shape[1]
        n_var = max(K, 2 * int(self.head_params[3]))
        n_chol = max(K, n_var) if self.full else 1
        labels = np.empty(K, dtype=np.int64)
        scores = np.empty(K)
        scratch = np.empty((3, n_var), dtype=np.int64)
        n = variant_head(g, h, self.full, self.head_code, self.head_params, self.l2, self.l1, scale,
                         np.zeros((n_chol, n_chol)), scratch[0], scratch[1], scratch[2], np.empty(max(K, n_var)),
                         np.empty(max(S, n_var * (n_var + 1) // 2)), labels, scores)
        return labels[:n].copy(), scores[:n].copy()

    def _child(self, entry, ref, keep_head):
        q, j, op, thr, label, cnt, g, h = ref
        covered = entry.covered.copy()
        toggled = -1
        if OP_LEQ_ZERO <= op <= OP_GT_ZERO:
            toggled = smallest_positive(j, self.ptr, self.idx_rows, self.values, self.weights_f * entry.covered)
        apply_condition(j, op, thr, self.ptr, self.idx_rows, self.values, self.miss_ptr, self.miss_rows, covered)
        if OP_LEQ_ZERO <= op <= OP_GT_ZERO:
            # mlrl-boomer's boundary of a sparse vector with its zeros was rated without the smallest
            # positive it covers (or leaves): the rule goes on from the sums of what it covers, but from
            # the count it rated, as there (engine.core.refinement)
            G, H = self._statistics(entry)[:2]
            g, h = np.zeros(G.shape[1]), np.zeros(H.shape[1])
            _weighted_sums(G, H, self.weights_f * covered, g, h)
        child = _Entry(entry.conditions + [(j, op, thr)], covered, g, h, cnt, q, entry.cols,
                       label if entry.cols is None else entry.label)
        child.toggled = toggled
        if keep_head and child.cols is None and (self.single or self.head_code <= HEAD_PARTIAL_FIXED
                                                 and self.head_code != HEAD_BINNED):
            # single-label and partial heads keep their labels: later conditions see only their columns
            # (complete heads, binned or not, keep all labels anyway)
            labels = self._head_labels(child)
            hcols = _sub_hessian_columns(labels, self.K, self.full)
            child.T_g, child.T_h = np.ascontiguousarray(g[labels]), np.ascontiguousarray(h[hcols])
            child.cols = labels
        return child

    def _sample(self):
        if self.m < self.D:
            sample_features(self.perm, self.m, self.rng_state)

    def _grow(self):
        """The search of one rule: the best entry, or None (no rule, or cancelled)."""
        ind = self.ind
        width = ind.beam_width
        N = self.G.shape[0]
        T_g = np.zeros(self.K)
        T_h = np.zeros(self.H.shape[1])
        T_cnt = _weighted_sums(self.G, self.H, self.weights_f, T_g, T_h)
        root = _Entry([], np.ones(N, dtype=np.uint8), T_g, T_h, T_cnt, 0.0, None, -1)
        if T_cnt < 2 or T_cnt <= self.min_coverage:
            return None
        self._sample()
        refs = self._search(root, 0.0, width)
        if refs is None:
            return None
        keep = ind.max_head_refinements == 1
        if not refs:
            ref = self._covering(root)
            if ref is None:
                return None
            refs = [ref]
        beam = [self._child(root, ref, keep) for ref in refs]
        depth = 1
        found = True
        while found and (self.max_conditions == 0 or depth < self.max_conditions):
            depth += 1
            keep = ind.max_head_refinements > 0 and depth >= ind.max_head_refinements
            if not ind.resample_features:
                self._sample()
            new = []
            min_q = beam[-1].q
            found = False
            for entry in beam:
                refined = False
                if entry.refinable and entry.T_cnt > self.min_coverage and entry.T_cnt >= 2:
                    if ind.resample_features:
                        self._sample()
                    refs = self._search(entry, min_q, width)
                    if refs is None:
                        return None
                    if refs:
                        refined = found = True
                        for ref in refs:
                            child = self._child(entry, ref, keep)
                            if len(new) < width:
                                new.append(child)
                            else:
                                new[-1] = child
                                new.sort(key=lambda e: e.q)
                                min_q = new[-1].q
                if not refined:
                    entry.refinable = False
                    if len(new) < width:
                        new.append(entry)
                    elif not min_q < entry.q:
                        new[-1] = entry
                        new.sort(key=lambda e: e.q)
                        min_q = new[-1].q
            beam = new
        return beam[0]

    def _covering(self, root):
        """No condition splits the sampled examples: as the greedy kernel does, a first condition may
        cover every sampled example if it excludes some training example (a refinement tuple, or None)."""
        if self.root_excluded == 0:
            return None
        j, op = _covering_condition(self.perm, self.m, self.ptr, self.idx_rows, self.values, self.nominal,
                                    self.weights_f, self.miss_ptr, self.miss_rows)
        if j < 0:
            return None
        q = self._quality(root.T_g, root.T_h, None)
        if not q < 0.0:
            return None
        return (q, int(j), int(op), 0.0, self._label, root.T_cnt, root.T_g.copy(), root.T_h.copy())

    def _quality(self, g, h, labels):
        """The quality of the optimal head on the sums ``g``, ``h`` (of all labels) for ``labels``
        (None: the head type's choice; sets ``self._label`` for single-label heads)."""
        K = self.K
        self._label = -1
        n_var = max(K, 2 * int(self.head_params[3]))
        n_chol = max(K, n_var) if self.full else 1
        chol, z = np.zeros((n_chol, n_chol)), np.zeros(max(K, n_chol))
        if labels is None:
            if self.single:
                q, self._label = _side_quality(g, h, self.full, self.head_code, self.l2, self.l1, chol, z)
                return q
            if self.head_code <= HEAD_PARTIAL_FIXED:
                scratch = np.empty((3, n_var), dtype=np.int64)
                return variant_quality(g, h, self.full, self.head_code, self.head_params, self.l2, self.l1, chol, z,
                                       scratch[0], scratch[1], scratch[2], np.empty(max(K, n_var)),
                                       np.empty(max(len(h), n_var * (n_var + 1) // 2)))
            labels = np.arange(K, dtype=np.int64)
        if self.head_code == HEAD_BINNED and len(labels) == K:
            return self._quality(g, h, None)
        if self.head_code < HEAD_BINNED:
            return self._binned_on(g, h, labels)
        hcols = _sub_hessian_columns(labels, K, self.full)
        return complete_quality(np.ascontiguousarray(g[labels]), np.ascontiguousarray(h[hcols]), self.full, self.l2,
                                self.l1, chol, z)

    # -- the head -----------------------------------------------------------------------------------
    def _scores(self, labels, g, h, scale):
        """Optimal scores of ``labels`` for the sums ``g``, ``h`` of all labels (binned complete heads
        with label binning), shrunk by ``scale``."""
        K = self.K
        if self.head_code == HEAD_BINNED and len(labels) == K:
            return self._variant_head(g, h, scale)[1]
        if self.head_code < HEAD_BINNED:
            return self._binned_on(g, h, labels, scale)
        if len(labels) == 1 and self.single:
            k = int(labels[0])
            return np.array([scale * label_score(g[k], h[diagonal_position(k, K, self.full)], self.l2, self.l1)])
        hcols = _sub_hessian_columns(labels, K, self.full)
        n = len(labels)
        out = np.empty(n)
        complete_scores(np.ascontiguousarray(g[labels]), np.ascontiguousarray(h[hcols]), self.full, self.l2, self.l1,
                        np.zeros((n, n)) if self.full else np.zeros((1, 1)), out)
        return out * scale

    def _binned_on(self, g, h, labels, scale=None):
        """Label binning's complete head on ``labels`` (a binned partial head's labels): its quality, or with
        ``scale`` its scores, shrunk."""
        hcols = _sub_hessian_columns(labels, self.K, self.full)
        sg, sh = np.ascontiguousarray(g[labels]), np.ascontiguousarray(h[hcols])
        n = len(labels)
        n_var = max(n, 2 * int(self.head_params[3]))
        scratch = np.empty((4, n_var), dtype=np.int64)
        chol = np.zeros((n_var, n_var)) if self.full else np.zeros((1, 1))
        sub_g, sub_h = np.empty(n_var), np.empty(max(len(sh), n_var * (n_var + 1) // 2))
        if scale is None:
            return variant_quality(sg, sh, self.full, HEAD_BINNED, self.head_params, self.l2, self.l1, chol,
                                   np.zeros(n_var), scratch[0], scratch[1], scratch[2], sub_g, sub_h)
        scores = np.empty(n)
        variant_head(sg, sh, self.full, HEAD_BINNED, self.head_params, self.l2, self.l1, float(scale), chol,
                     scratch[0], scratch[1], scratch[2], sub_g, sub_h, scratch[3], scores)
        return scores

    def _sums(self, rows, weights=None):
        g = np.zeros(self.K)
        h = np.zeros(self.H.shape[1])
        cw = np.zeros(self.G.shape[0])
        cw[rows] = 1.0 if weights is None else weights[rows]
        _weighted_sums(self.G, self.H, cw, g, h)
        return g, h

    def _prune(self, entry, labels):
        """IREP on the examples out of the sample: the conditions kept."""
        conditions = entry.conditions
        n = len(conditions)
        if n < 2:
            return conditions, entry.covered
        prune = self.weights_f == 0.0

        def quality(covered):
            rows = np.flatnonzero(covered.astype(bool) & prune)
            g, h = self._sums(rows)
            return self._quality(g, h, labels)

        best_q = quality(entry.covered)
        best_covered = entry.covered
        pruned = 0
        covered = np.ones(self.G.shape[0], dtype=np.uint8)
        for i in range(n - 1):
            j, op, thr = conditions[i]
            apply_condition(j, op, thr, self.ptr, self.idx_rows, self.values, self.miss_ptr, self.miss_rows, covered)
            q = quality(covered)
            if q < best_q or (pruned == 0 and not best_q < q):
                best_q, best_covered, pruned = q, covered.copy(), n - (i + 1)
        return conditions[:n - pruned], best_covered

    def __call__(self, ptr, idx_rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal, loss, Y, F, G,
                 H, H_refine, diagonal, single, full_refine, head_mode, head_params, weights, bagging, l2, l1, eta,
                 n_sampled_features, max_conditions, min_coverage, rng_state, perm, covered, rows, out_attr, out_op,
                 out_thr, out_labels, out_head, track_Y, errors, example_wise, vectors, vec_ptr, vec_idx, vec_keys,
                 vec_hashes, vec_table, cancel):
        N, K = G.shape
        D = perm.shape[0]
        self.K, self.D, self.G, self.H, self.full, self.single = K, D, G, H_refine, bool(full_refine), bool(single)
        self.m = D if n_sampled_features <= 0 or n_sampled_features > D else int(n_sampled_features)
        self.head_code = ((head_mode if head_mode == HEAD_SINGLE_LARGEST_SCORE else HEAD_SINGLE) if single
                          else head_mode)
        self.head_params, self.l2, self.l1 = head_params, float(l2), float(l1)
        self.max_conditions = int(max_conditions)
        self.min_coverage = int(min_coverage)
        self.perm, self.rng_state, self.cancel = perm, rng_state, cancel
        self.ptr, self.idx_rows, self.values, self.miss_ptr, self.miss_rows, self.nominal = (
            ptr, idx_rows, values, miss_ptr, miss_rows, nominal)
        self.index = (ptr, idx_rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal)
        self._column_cache = {}
        if bagging > 0:
            bagging_weights(weights, bagging, rng_state)
        self.weights_f = weights.astype(np.float64)
        zeros = int(np.count_nonzero(weights == 0))
        self.root_excluded = zeros
        entry = self._grow()
        if entry is None or cancel[0] != 0:
            return 0, 0.0, -1, 0, 0, 0, 0
        labels = self._head_labels(entry)
        conditions, final_covered = entry.conditions, entry.covered
        if self.ind.irep and zeros > 0:
            conditions, final_covered = self._prune(entry, labels)
        n_cond = len(conditions)
        if n_cond > out_attr.shape[0]:
            raise ValueError("a rule has more conditions than the output arrays hold")
        for c, (j, op, thr) in enumerate(conditions):
            out_attr[c], out_op[c], out_thr[c] = j, op & 1 if op >= OP_LEQ_NEG else op, thr  # sweep.model_operator
        covered[:] = final_covered
        n_rows = covered_rows(covered, rows)
        row_ids = rows[:n_rows]
        all_ones = zeros == 0 and bool(np.all(weights == 1))
        if all_ones or (self.ind.recalculate and zeros > 0):
            head_ids = row_ids
            if zeros == 0 and entry.toggled >= 0 and len(conditions) == len(entry.conditions):
                # mlrl-boomer keeps the head it rated: one example more or less (see refinement.head_rows)
                head_ids = np.setxor1d(row_ids, [entry.toggled])
            g, h = self._sums(head_ids)  # every covered training example, unit weights
        else:  # the sample's (weighted) statistics of the rule as searched
            g, h = self._sums(np.flatnonzero(entry.covered), self.weights_f)
        if (entry.cols is None and not self.single and self.head_code <= HEAD_PARTIAL_FIXED
                and self.head_code != HEAD_BINNED and not (self.ind.recalculate and zeros > 0)):
            # labels never fixed: mlrl-boomer keeps the head its partial evaluation rated (for fixed heads of a
            # non-decomposable loss the sub-system of head_variants.gather_as_reference)
            labels, scores = self._variant_head(g, h, float(eta))
        else:
            scores = self._scores(labels, g, h, float(eta))
        n_head = len(labels)
        out_labels[:n_head] = labels
        out_head[:n_head] = scores
        head_labels = out_labels[:n_head]
        head = out_head[:n_head]
        if example_wise:
            apply_head(loss, Y, F, G, H, rows, n_rows, head_labels, head)
        else:
            d_labels, d_examples = apply_head_tracked(loss, Y, F, G, H, rows, n_rows, head_labels, head, track_Y,
                                                      errors)
        if diagonal.shape[0] > 0:
            H_refine[row_ids] = H[np.ix_(row_ids, diagonal)]
        if example_wise:
            d_labels, d_examples = example_wise_errors(loss, F, track_Y, rows, n_rows, vectors, vec_ptr, vec_idx,
                                                       vec_keys, vec_hashes, vec_table, errors)
        return n_cond, entry.q, int(labels[0]) if single else -1, n_rows, d_labels, d_examples, n_head
