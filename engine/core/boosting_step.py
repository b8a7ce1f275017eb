"""One boosting iteration of Alg. 1 (lines 4-9) in a single kernel call.

Refine a rule on a bagged sample (Alg. 2), recompute its head on every covered training
example (line 7), add it to the scores and refresh the covered examples' statistics
(lines 8-9), and update the tracked training errors.  Fusing these steps saves the
interpreter round trips between them, which dominate on data where a rule takes ~100 µs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .boosting import apply_head, apply_head_tracked, covered_rows, covered_sums, example_wise_errors, head_on_rows
from .chunksize import swap_parallel_chunksize
from .head_variants import HEAD_BINNED, HEAD_BINNED_DYNAMIC, HEAD_BINNED_FIXED, HEAD_PARTIAL_FIXED, variant_head
from .heads import complete_scores
from .losses import packed_index
from .refinement import head_rows, rule_refinement
from .sweep import rebound


PARALLEL_CHUNKSIZE = 1  # attributes per task of a threaded refinement step (see boost_one_rule)


def _refine_rule(*args):  # pragma: no cover - rebound by boosting_kernel()
    raise NotImplementedError


def _boost_one_rule(ptr, idx_rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal,
                   loss, Y, F, G, H, H_refine, diagonal,
                   single, full_refine, head_mode, head_params, weights, bagging, l2, l1, eta, n_sampled_features,
                   max_conditions, min_coverage, rng_state, perm, covered, rows, out_attr, out_op, out_thr,
                   out_labels, out_head, track_Y, errors, example_wise, vectors, vec_ptr, vec_idx, vec_keys,
                   vec_hashes, vec_table, cancel):
    """Learn and apply one rule (compiled per kernel family: :func:`boosting_kernel`).

    ``H_refine`` is ``H`` itself, or (single-label heads of a non-decomposable loss) a compact
    copy of its diagonal whose columns ``diagonal`` gives; it is refreshed for the covered
    examples.  The body goes to ``out_attr``/``out_op``/``out_thr``, the head scores to
    ``out_labels``/``out_head`` (their first ``head size`` entries), the covered examples to
    ``rows``.  ``head_mode`` is a code of :mod:`.head_variants` (single-label heads
    by objective or by largest score, complete heads, partial heads, label binning) with its
    ``head_params``.  Returns (conditions, quality, head label,
    covered count, change of wrong labels, change of wrong examples, head size); no conditions
    means nothing more to learn, or that ``cancel[0]`` was set during the refinement (nothing
    is applied then)."""
    K = G.shape[1]
    covered[:] = 1
    # Attributes are handed to the threads one at a time: their sweeps differ in cost, and a thread
    # the OS preempts (e.g. for a GUI thread) then holds up no share.  Set here, not by the caller:
    # from Python the two calls cost about 20 us a rule.
    previous_chunksize = swap_parallel_chunksize(PARALLEL_CHUNKSIZE)
    n_cond, quality, label = _refine_rule(ptr, idx_rows, values, keys, cache, seg, ranks, miss_ptr, miss_rows, nominal,
                                         G, H_refine, full_refine, single, head_mode, head_params, weights, bagging,
                                         l2, l1, n_sampled_features, max_conditions, min_coverage, rng_state, perm,
                                         covered, out_attr, out_op, out_thr, cancel, out_labels)
    swap_parallel_chunksize(previous_chunksize)
    if n_cond == 0:
        return 0, quality, label, 0, 0, 0, 0
    n_rows = covered_rows(covered, rows)
    stat_rows, n_stat = head_rows(covered, rows, n_rows)  # the covered rows, or (rarely) one more or less
    if single:
        n_head = 1
        out_labels[0] = label
        head_on_rows(G, H_refine, stat_rows, n_stat, full_refine, label, l2, l1, eta, out_head)
    elif (_VARIANT_HEADS and head_mode <= HEAD_PARTIAL_FIXED and head_mode != HEAD_BINNED and label > 0
          and (n_cond > 1 or _has_zero(weights))):
        # a partial head whose first condition fixed its labels (out_labels[:label]): a complete head on
        # them, as mlrl-boomer evaluates a rule's later conditions and recalculates a head with examples
        # out of the sample; a rule of one condition without such examples keeps the head its partial
        # evaluation rated (below: the labels chosen again on the same statistics)
        n_head = label
        label = -1
        fixed_labels_head_on_rows(G, H_refine, stat_rows, n_stat, full_refine, out_labels, n_head, head_mode,
                                  head_params, l2, l1, eta, out_head)
    elif _VARIANT_HEADS and head_mode <= HEAD_PARTIAL_FIXED:  # a compile-time constant: pruned when False
        n_head = head_variant_on_rows(G, H_refine, stat_rows, n_stat, full_refine, head_mode, head_params, l2, l1,
                                      eta, out_labels, out_head)
    else:
        n_head = K
        for k in range(K):
            out_labels[k] = k
        # no label, typed as the single-label call's (a literal -1 compiled head_on_rows a second time)
        head_on_rows(G, H_refine, stat_rows, n_stat, full_refine, np.int64(-1), l2, l1, eta, out_head)
    labels = out_labels[:n_head]
    head = out_head[:n_head]
    if _EXAMPLE_WISE:  # a compile-time constant (``example_wise``): one kind of error tracking is compiled
        apply_head(loss, Y, F, G, H, rows, n_rows, labels, head)
    else:
        d_labels, d_examples = apply_head_tracked(loss, Y, F, G, H, rows, n_rows, labels, head, track_Y, errors)
    if diagonal.shape[0] > 0:
        for r in range(n_rows):
            i = rows[r]
            for k in range(diagonal.shape[0]):
                H_refine[i, k] = H[i, diagonal[k]]
    if _EXAMPLE_WISE:
        d_labels, d_examples = example_wise_errors(loss, F, track_Y, rows, n_rows, vectors, vec_ptr, vec_idx,
                                                   vec_keys, vec_hashes, vec_table, errors)
    return n_cond, quality, label, n_rows, d_labels, d_examples, n_head


@njit(cache=True, nogil=True)
def head_variant_on_rows(G, H, rows, n_rows, full_hessian, mode, params, l2, l1, scale, out_labels, out_scores):
    """Alg. 1 line 7 for partial heads and label binning: the head from all covered examples."""
    K = G.shape[1]
    S = H.shape[1]
    g, h = covered_sums(G, H, rows, n_rows)
    n_scratch = max(K, 2 * int(params[3]))
    scratch = np.empty((3, n_scratch), dtype=np.int64)
    return variant_head(g, h, full_hessian, mode, params, l2, l1, scale, np.zeros((K, K)), scratch[0], scratch[1],
                        scratch[2], np.empty(K), np.empty(S), out_labels, out_scores)


@njit(cache=True, nogil=True)
def _has_zero(weights):
    for i in range(weights.shape[0]):
        if weights[i] == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def fixed_labels_head_on_rows(G, H, rows, n_rows, full_hessian, labels, n, mode, params, l2, l1, scale, out_scores):
    """Alg. 1 line 7 for a partial head with fixed ``labels[:n]`` (ascending): the complete head on them
    from all covered examples, as mlrl-boomer 0.15.6 evaluates a rule whose head is fixed (binned, for
    the binned partial ``mode``)."""
    K = G.shape[1]
    g, h = covered_sums(G, H, rows, n_rows)
    sub_g = np.empty(n)
    sub_h = np.empty(n * (n + 1) // 2 if full_hessian else n)
    for a in range(n):
        sub_g[a] = g[labels[a]]
        if full_hessian:
            for b in range(a, n):
                sub_h[packed_index(a, b, n)] = h[packed_index(labels[a], labels[b], K)]
        else:
            sub_h[a] = h[labels[a]]
    if mode == HEAD_BINNED_FIXED or mode == HEAD_BINNED_DYNAMIC:
        n_var = max(n, 2 * int(params[3]))
        scratch = np.empty((4, n_var), dtype=np.int64)
        variant_head(sub_g, sub_h, full_hessian, HEAD_BINNED, params, l2, l1, scale, np.zeros((n, n)), scratch[0],
                     scratch[1], scratch[2], np.empty(n_var), np.empty(max(sub_h.shape[0], n_var)), scratch[3],
                     out_scores)
        return
    complete_scores(sub_g, sub_h, full_hessian, l2, l1, np.zeros((n, n)) if full_hessian else np.zeros((1, 1)),
                    out_scores[:n])
    for a in range(n):
        out_scores[a] *= scale


_KERNELS: dict = {}
_VARIANT_HEADS = _EXAMPLE_WISE = True  # rebound per kernel family


def boosting_kernel(first: str, fixed: str, threaded: bool, variant_heads: bool, example_wise: bool):
    """One boosting iteration compiled for one kernel family: the refinement of
    :func:`engine.core.refinement.rule_refinement`, partial or binned heads (``variant_heads``) or not,
    example-wise error tracking or label-wise.  A fit compiles only the family it uses."""
    key = (first, fixed, bool(threaded), bool(variant_heads), bool(example_wise))
    if key not in _KERNELS:
        name = (f"boost_one_rule_{first}_{fixed}" + ("_threaded" if threaded else "")
                + ("_partial" if variant_heads else "") + ("_example_wise" if example_wise else ""))
        _KERNELS[key] = njit(cache=True, nogil=True)(rebound(
            _boost_one_rule, name, _refine_rule=rule_refinement(first, fixed, threaded),
            _VARIANT_HEADS=bool(variant_heads), _EXAMPLE_WISE=bool(example_wise)))
    return _KERNELS[key]
