"""The sweep over one attribute's sorted values, written once and shared by BOOMER's refinement
(:mod:`engine.core.refinement`), AdaBoost.MH's weak learners (:mod:`engine.core.stumps`) and SeCo's
refinement (:mod:`engine.core.seco_search`).

Candidate conditions on attribute ``j`` (Alg. 2 of Rapp et al. 2020) come from one pass over the pre-sorted index
(:mod:`engine.core.features`): negative values ascending (the prefix ``x <= t``), positive values
descending (the suffix ``x > t``), the implicit zeros in between; nominal attributes group equal
codes (``x == v`` and ``x != v``), code 0 being implicit.  Missing values never satisfy a
condition.  Thresholds lie where the split ``keys`` change (the values themselves, or their bins),
at the midpoint of the adjacent raw values.

What a learner accumulates and how it scores a split are *hooks*, module globals of
:func:`walk_attribute` that :func:`specialise` rebinds; Numba compiles (and caches) one copy of
the walk per learner, with the hooks inlined as ordinary calls:

- ``_drop(ctx, S1, S2, A1, A2, i, w)``: example ``i`` (weight ``w``) has no value: take it out of the
  valid set;
- ``_reset(ctx, A1, A2, side)``: empty the accumulators of ``side`` (0: prefix or nominal group, 1:
  suffix or all nominal groups);
- ``_add(ctx, S1, S2, A1, A2, side, i, w)``: add example ``i`` to ``side``;
- ``_merge(ctx, A1, A2)``: add side 0 to side 1 (a nominal group joins the non-zero codes);
- ``_consider(ctx, A1, A2, side, count, n_valid, op_side, op_rest, threshold, best)``: score the split
  of the valid examples into ``side`` (reached by ``op_side``) and the rest (``op_rest``); returns
  ``best`` or, when one of the two conditions is better, the new best.

``S1``, ``S2`` are the learner's per-example statistics and ``A1``, ``A2`` its accumulators (a row
or entry per side, and whatever else the hooks update per entry or per threshold), passed as plain
arguments: an array taken from a tuple, or a row taken as a view, costs reference counting at every
access, which made BOOMER's fits 2.5 times slower when the hot loop did it at every threshold.  The walk
hands the hooks borrowed views of every array (:mod:`.borrowed`), so the reference counting Numba still
emits around an inlined hook costs a null check, not an atomic update of a counter the threads share.
``best`` is the best condition so far, a tuple of scalars of the learner's choosing that the walk
threads through ``_consider`` and returns.  ``ctx`` is whatever else the learner needs (a tuple;
its arrays are best taken out only where a rare branch needs them); the walk itself touches only
the index.
With ``compact`` (fixed per specialisation), the covered entries of each attribute are compacted into ``cache`` as the walk
passes (``seg[j]``: valid flag, end of the negatives, start of the positives), so later steps of the
same rule visit only them; the caller clears ``seg[:, 0]`` when a new rule starts.

With ``reference`` (fixed per specialisation; BOOMER's walks), ``seg[j, 3]`` (when ``seg`` has a fourth
column) chooses how a numeric attribute is searched: 0 as above, or as mlrl-boomer 0.15.6 searches its
feature vectors (:data:`SEARCH_DENSE`, :data:`SEARCH_SPARSE`): values within float32's relative
epsilon are not split, thresholds are float32 midpoints, its descending pass never evaluates the split
that separates the smallest non-negative entry of its vector from the rest, and its boundaries next to
the zeros have its thresholds and coverage (the operators ``OP_*_NEG``/``OP_*_ZERO`` below: a ``<=`` or
``>`` condition whose training coverage is by the sign of the value, not by its threshold; see
:func:`model_operator`).
"""
from __future__ import annotations

import types

import numpy as np
from numba import njit

from .borrowed import borrowed
from .prefetch import prefetch_row

OP_LEQ, OP_GT, OP_EQ, OP_NEQ = 0, 1, 2, 3  # condition operators: <=, >, ==, != (engine.rules.OPERATORS)
# mlrl-boomer's conditions next to the zeros cover the training examples by the position of their values in
# its sorted vector, which its threshold does not always reproduce: a '<=' (even code) or '>' (odd code)
# condition with that threshold, covering the values < 0 / >= 0 (NEG) or <= 0 / > 0 (ZERO) while training
OP_LEQ_NEG, OP_GT_NEG, OP_LEQ_ZERO, OP_GT_ZERO = 4, 5, 6, 7
# mlrl-boomer's binned search on a filtered vector (SEARCH_BINNED_FILTERED): '<=' covering the values <= t but
# not 0, '>' the values > t and 0
OP_LEQ_NONZERO, OP_GT_OR_ZERO = 8, 9
# how a numeric attribute is searched (seg[j, 3] of BOOMER's walks): ours (every threshold between distinct
# values), or mlrl-boomer's on a dense vector (zeros stored as values) or a sparse one (zeros implicit)
SEARCH_OURS, SEARCH_DENSE, SEARCH_SPARSE = 0, 1, 2
# mlrl-boomer's feature binning (engine.core.binning.reference_binned_matrix): the values are bin numbers
# (its sparse bin 0, so the zeros), a split between two bins has the threshold ``lower + 0.5`` (the model's
# is the lower bin's, engine.core.binning.BinThresholds).  BINNED: its search of a whole bin vector (or of
# the bins a condition on the attribute kept); FILTERED: of a vector it filtered by the coverage of a
# later condition, where the examples of its sparse bin (not listed in any bin) join the highest covered
# bin: every split ascending, its '<=' side never covering them (OP_LEQ_NONZERO; '>' OP_GT_OR_ZERO);
# EXACT: a binning that lists every example (equal-frequency on its dense format), searched as BINNED.
SEARCH_BINNED, SEARCH_BINNED_FILTERED, SEARCH_BINNED_EXACT = 3, 4, 5
# Examples out of the sample (or of weight 0) that the rule covers: mlrl-boomer's feature vectors still hold them
# (its coverage is not its weights), so its binned searches see their bins.  The walk's ``weight`` marks them
# OUT_OF_SAMPLE (< 0; 0: not covered).  A binned pass whose first bin (in the pass's direction) holds only such
# examples is skipped there as a whole (no split in that direction, nor the boundary next to the zeros on that
# side); a ``t_low`` of SILENT asks _walk_side for that (its binned searches have no other use for ``t_low``).
OUT_OF_SAMPLE = -1.0
SILENT = -2
# :func:`first_bin_weighted`: no covered example in the pass, its first bin has one of the sample, or none
NO_BIN, WEIGHTED_BIN, UNWEIGHTED_BIN = 0, 1, 2
# From this many examples on (their statistics no longer fit the L2 cache) the walk asks for the weight and
# statistics rows of the example this many entries ahead (.prefetch); below, the hints only cost time
# (emotions, enron: 4-8 % slower fits).  At N = 10^5: 12-20 % faster fits, single-label and complete heads.
PREFETCH_MIN_EXAMPLES = 8192
PREFETCH_AHEAD = 16
CANCEL_POLL_MASK = 1023  # the cancel flag is read every 1024 entries and before every candidate
FLOAT32_EPSILON = float(np.finfo(np.float32).eps)


@njit(cache=True, nogil=True, inline="always")
def model_operator(op):
    """The operator a condition of the walk's ``op`` has in the model (<=, >, ==, !=)."""
    return op & 1 if op >= OP_LEQ_NEG else op


@njit(cache=True, nogil=True, inline="always")
def float32_midpoint(small, large):
    """mlrl-boomer's threshold between two float32 values: ``small + (large - small) * 0.5``, the
    difference in float32, the sum in double, rounded to float32."""
    return float(np.float32(small + float(np.float32(large - small)) * 0.5))


def search_keys(ptr, values) -> np.ndarray:
    """The split keys of mlrl-boomer's numeric search (``SEARCH_DENSE``/``SEARCH_SPARSE``): the values,
    where neighbours of one attribute and sign equal within float32's epsilon times the larger magnitude
    (at least 1) share the key of their run's first value (it splits only where a value differs so from
    the one before it); ``values`` itself when none do.  NumPy, not a kernel: nothing to compile."""
    values = np.asarray(values)
    if values.shape[0] < 2:
        return values
    a = values[:-1]
    b = values[1:]
    with np.errstate(over="ignore", invalid="ignore"):
        close = np.abs(b - a) <= np.float32(FLOAT32_EPSILON) * np.maximum(np.float32(1), np.maximum(np.abs(a),
                                                                                                   np.abs(b)))
    same = close & ((a < 0) == (b < 0))
    starts = np.asarray(ptr[1:-1], dtype=np.int64)  # no attribute's first entry continues the one before
    same[starts[(starts > 0) & (starts < values.shape[0])] - 1] = False
    if not (same & (a != b)).any():
        return values
    run_start = np.arange(values.shape[0])
    run_start[1:][same] = 0
    np.maximum.accumulate(run_start, out=run_start)
    return np.ascontiguousarray(values[run_start])


def _hook(*args):  # pragma: no cover - replaced by specialise()
    raise NotImplementedError


_drop = _reset = _add = _merge = _consider = _hook
_COMPACT = False  # rebound by specialise(): compact the covered entries (see the module's docstring)
_REFERENCE = False  # rebound by specialise(): seg[j, 3] may choose mlrl-boomer's numeric search


def _walk_side(ctx, S1, S2, A1, A2, side, t, t_stop, step, use_cache, cache, rows, values, keys, weight, n_valid,
               op_side, op_rest, best, cancel, mode, t_low, n_below, count, prev):
    """One direction of the numeric walk: ascending over the negatives (``step`` 1, stopping at the
    first value >= 0 unless cached) or descending over the positives down to ``t_stop`` (``step`` -1).
    ``mode`` is the search (``SEARCH_*``); mlrl-boomer's searches need, descending, the position
    ``t_low`` of the last entry the walk adds and the number ``n_below`` of examples below the positives.
    :data:`SEARCH_BINNED_FILTERED` walks ascending over every entry, continuing a prefix of ``count``
    examples whose last value was ``prev`` (0 and 0.0 otherwise), and leaves the cache as it is.
    Returns (not cancelled, examples added, last value, the value added before it, next compaction
    slot, where the walk stopped, best)."""
    filtered = mode == SEARCH_BINNED_FILTERED
    binned = mode == SEARCH_BINNED or mode == SEARCH_BINNED_EXACT
    silent = t_low == SILENT
    before = 0.0
    low = 0.0  # binned, descending: the highest bin below the last one added that holds a covered example
    have_low = False
    prev_key = keys[t] if 0 <= t < keys.shape[0] else np.float32(0.0)
    w = t
    far = weight.shape[0] >= PREFETCH_MIN_EXAMPLES
    while (t < t_stop) if step > 0 else (t >= t_stop):
        idx = cache[t] if use_cache else t
        if step > 0 and not use_cache and values[idx] >= 0.0 and not filtered:
            break
        if far:
            # two stages on compacted entries: their index entries (gathered from the attribute's) twice as
            # far ahead, then the example's rows
            ahead = t + 2 * step * PREFETCH_AHEAD
            if use_cache and ((ahead < t_stop) if step > 0 else (ahead >= t_stop)):
                idx_ahead = cache[ahead]
                prefetch_row(rows, idx_ahead)
                prefetch_row(values, idx_ahead)
                prefetch_row(keys, idx_ahead)
            ahead = t + step * PREFETCH_AHEAD
            if (ahead < t_stop) if step > 0 else (ahead >= t_stop):
                i_ahead = rows[cache[ahead] if use_cache else ahead]
                prefetch_row(weight, i_ahead)
                prefetch_row(S1, i_ahead)
                prefetch_row(S2, i_ahead)
        if (t & CANCEL_POLL_MASK) == 0 and cancel[0] != 0:
            return False, count, prev, before, w, t, best
        at = t
        t += step
        i = rows[idx]
        if weight[i] <= 0:
            if weight[i] < 0:  # covered, out of the sample (OUT_OF_SAMPLE): kept, its bin a threshold's
                if _COMPACT and not filtered:
                    cache[w] = idx
                    w += step
                if binned and step < 0 and count > 0 and not have_low and values[idx] < prev:
                    low = values[idx]
                    have_low = True
                elif (mode == SEARCH_DENSE or mode == SEARCH_SPARSE) and count > 0 and at != t_low:
                    # mlrl-boomer's numeric search: a threshold is the midpoint with the value next to it in
                    # its vector, whatever that example's weight (its descending pass ends above t_low)
                    prev = values[idx]
                    prev_key = keys[idx]
            continue
        if _COMPACT and not filtered:
            cache[w] = idx
            w += step
        v = values[idx]
        key = keys[idx]
        if count > 0:
            o_side = op_side
            o_rest = op_rest
            offer = key != prev_key  # mlrl-boomer's searches: keys equal within float32's epsilon (search_keys)
            if mode == SEARCH_OURS:
                threshold = 0.5 * (prev + v)
            elif filtered:  # the zeros (mlrl-boomer's sparse bin) always on the other side
                offer = v != prev
                threshold = prev + 0.5
                if prev >= 0.0:
                    o_side = OP_LEQ_NONZERO
                    o_rest = OP_GT_OR_ZERO
            elif binned:  # descending: the bin below the covered ones that the reference's vector holds
                threshold = (prev if step > 0 else (low if have_low else v)) + 0.5
            else:
                low = prev
                high = v
                if step < 0:
                    low = v
                    high = prev
                    if at == t_low:
                        # the smallest positive: mlrl-boomer's descending pass stops before its vector's
                        # smallest non-negative entry (the split above it is never evaluated); on a
                        # sparse vector its boundary with the zeros takes the statistics without it
                        # (but covers it) and the threshold between 0 and the value above it
                        if mode == SEARCH_SPARSE:
                            offer = True
                            o_side = OP_GT_ZERO
                            o_rest = OP_LEQ_ZERO
                            low = 0.0
                        elif n_valid - n_below - count - 1 == 0:  # a dense vector without zeros
                            offer = False
                threshold = float32_midpoint(low, high)
            if offer and not silent:
                if cancel[0] != 0:
                    return False, count, prev, before, w, t, best
                best = _consider(ctx, A1, A2, side, count, n_valid, o_side, o_rest, threshold, best)
        _add(ctx, S1, S2, A1, A2, side, i, weight[i])
        count += 1
        before = prev
        prev = v
        prev_key = key
        have_low = False
    if binned and step < 0:  # the boundary with the zeros: the highest covered bin below the positives added
        before = low if have_low else 0.0
    return True, count, prev, before, w, t, best


@njit(cache=True, nogil=True)
def first_bin_weighted(t, t_stop, step, use_cache, cache, rows, values, weight, negatives_only):
    """Whether the first bin of a binned pass (from entry ``t`` towards ``t_stop`` in direction ``step``,
    ``negatives_only``: up to the first value >= 0) that holds a covered example also holds one of the
    sample (weight > 0): :data:`WEIGHTED_BIN`, :data:`UNWEIGHTED_BIN`, or :data:`NO_BIN` (no covered
    example).  mlrl-boomer's binned search skips a pass whose first bin adds no example."""
    first = 0.0
    found = False
    while (t < t_stop) if step > 0 else (t >= t_stop):
        idx = cache[t] if use_cache else t
        t += step
        v = values[idx]
        if negatives_only and v >= 0.0:
            break
        wi = weight[rows[idx]]
        if wi == 0:
            continue
        if found and v != first:
            return UNWEIGHTED_BIN
        if wi > 0:
            return WEIGHTED_BIN
        first = v
        found = True
    return UNWEIGHTED_BIN if found else NO_BIN


def _walk_nominal(ctx, S1, S2, A1, A2, start, end, rows, values, weight, n_valid, best, cancel):
    """The conditions on a nominal attribute (entries ``start:end``): each group of equal codes ('== v' /
    '!= v'), then the implicit code 0 ('!= 0' covers the groups, '== 0' the rest), offered from one call
    site.  Returns (not cancelled, best)."""
    _reset(ctx, A1, A2, 1)
    n_nonzero = 0
    idx = start
    while True:
        if cancel[0] != 0:
            return False, best
        last = idx >= end
        if not last:
            v = values[idx]
            _reset(ctx, A1, A2, 0)
            count = 0
            while idx < end and values[idx] == v:
                i = rows[idx]
                if weight[i] > 0:
                    _add(ctx, S1, S2, A1, A2, 0, i, weight[i])
                    count += 1
                idx += 1
            if count == 0:
                continue
            _merge(ctx, A1, A2)
            n_nonzero += count
            side, count, op_side, op_rest, threshold = 0, count, OP_EQ, OP_NEQ, float(v)
        elif n_nonzero < n_valid:
            side, count, op_side, op_rest, threshold = 1, n_nonzero, OP_NEQ, OP_EQ, 0.0
        else:
            break
        best = _consider(ctx, A1, A2, side, count, n_valid, op_side, op_rest, threshold, best)
        if last:
            break
    return True, best


def walk_attribute(j, ptr, rows, values, keys, cache, seg, miss_ptr, miss_rows, nominal, weight, n_covered, S1, S2,
                   A1, A2, ctx, best, cancel):
    """Offer every candidate condition on attribute ``j`` to ``_consider``, starting from ``best``;
    the covered examples are those with ``weight[i] > 0``, ``n_covered`` of them.  Returns (False,
    best so far) when ``cancel[0]`` was set, else (True, best)."""
    # the hooks, inlined into the loops below, see borrowed views (no reference counting; see .borrowed)
    ptr, rows, values, keys, cache, seg = borrowed((ptr, rows, values, keys, cache, seg))
    miss_ptr, miss_rows, nominal, weight, cancel = borrowed((miss_ptr, miss_rows, nominal, weight, cancel))
    S1, S2, A1, A2, ctx = borrowed((S1, S2, A1, A2, ctx))
    n_missing = 0
    for r in range(miss_ptr[j], miss_ptr[j + 1]):
        i = miss_rows[r]
        if weight[i] > 0:
            _drop(ctx, S1, S2, A1, A2, i, weight[i])
            n_missing += 1
    n_valid = n_covered - n_missing
    start = ptr[j]
    end = ptr[j + 1]

    if nominal[j]:
        return _walk_nominal(ctx, S1, S2, A1, A2, start, end, rows, values, weight, n_valid, best, cancel)

    _reset(ctx, A1, A2, 0)
    _reset(ctx, A1, A2, 1)
    use_cache = _COMPACT and seg[j, 0] != 0
    if _COMPACT:
        seg[j, 0] = 0  # invalid while being rewritten (e.g. if cancelled)
    mode = seg[j, 3] if _REFERENCE and seg.shape[1] > 3 else SEARCH_OURS
    binned = mode == SEARCH_BINNED or mode == SEARCH_BINNED_EXACT
    filtered = mode == SEARCH_BINNED_FILTERED
    # negatives ascending: the prefix "x <= t"; then positives descending: the suffix "x > t" (filtered: the
    # non-zero bins ascending, on compacted entries the negatives, then the positives, each split's prefix
    # the covered examples of the bins up to it).  One call site for every direction (and one below for
    # both boundaries): each inlined copy of the hooks costs seconds of compile time on a fresh install
    n_prefix = n_suffix = 0
    last_negative = first_positive = second_positive = 0.0
    negatives_end = positives_start = 0
    negatives_stop = end
    t_low = -1
    count, last = 0, 0.0
    lead = NO_BIN  # binned: whether the pass's first covered bin holds an example of the sample
    low_out = False  # the smallest covered positive (t_low) out of the sample: the reference's pass visits the rest
    silent_low = silent_high = False  # binned: a pass mlrl-boomer skips (see OUT_OF_SAMPLE)
    for direction in range(2):
        if filtered and direction == 1 and not use_cache:
            break
        if direction == 0 or filtered:
            side, t, t_stop, step, op_side, op_rest = 0, start, seg[j, 1] if use_cache else end, 1, OP_LEQ, OP_GT
            if direction == 1:  # filtered: the cached positives, ascending
                t, t_stop = seg[j, 2], end
        else:
            side, t, t_stop, step, op_side, op_rest = (1, end - 1, seg[j, 2] if use_cache else negatives_stop, -1,
                                                       OP_GT, OP_LEQ)
            if mode == SEARCH_DENSE or mode == SEARCH_SPARSE:  # the position of the smallest covered positive
                for q in range(t_stop, end):  # (in the sample or not: the reference's vector holds both)
                    if weight[rows[cache[q] if use_cache else q]] != 0:
                        t_low = q
                        low_out = weight[rows[cache[q] if use_cache else q]] < 0
                        break
        if (binned or filtered) and lead == NO_BIN:  # filtered: the first bin of both calls
            lead = first_bin_weighted(t, t_stop, step, use_cache, cache, rows, values, weight,
                                      binned and direction == 0 and not use_cache)
            if direction == 0:
                silent_low = lead == UNWEIGHTED_BIN
            else:
                silent_high = lead == UNWEIGHTED_BIN or (filtered and silent_low)
            if binned:
                lead = NO_BIN
        elif filtered and direction == 1:
            silent_high = silent_low
        if binned or filtered:
            t_low = SILENT if (silent_high if direction == 1 else silent_low) else -1
        ok, count, last, before, w, stop, best = _walk_side(ctx, S1, S2, A1, A2, side, t, t_stop, step, use_cache,
                                                            cache, rows, values, keys, weight, n_valid, op_side,
                                                            op_rest, best, cancel, mode, t_low, n_prefix,
                                                            count if filtered else 0, last if filtered else 0.0)
        if not ok:
            return False, best
        if filtered:
            continue
        if direction == 0:
            n_prefix, last_negative, negatives_end, negatives_stop = count, last, w, stop
        else:
            n_suffix, first_positive, second_positive, positives_start = count, last, before, w
    if filtered:
        if _COMPACT and use_cache:
            seg[j, 0] = 1  # the cache is left as it was: still every covered entry
        return True, best
    if _COMPACT:
        seg[j, 1] = negatives_end
        seg[j, 2] = positives_start + 1
        seg[j, 0] = 1

    # the boundaries next to the zeros (or between negatives and positives without zeros); mlrl-boomer
    # evaluates the one above the zeros first
    n_zero = n_valid - n_prefix - n_suffix
    for b in range(2):
        boundary = b if mode == SEARCH_OURS else 1 - b
        if boundary == 0:
            side, count, op_side, op_rest = 0, n_prefix, OP_LEQ, OP_GT
            if mode == SEARCH_OURS or binned:
                offer = n_prefix > 0 and (n_zero > 0 or n_suffix > 0) and not silent_low
                threshold = 0.5 * last_negative if n_zero > 0 else 0.5 * (last_negative + first_positive)
                if binned:
                    threshold = last_negative + 0.5
            else:
                # mlrl-boomer: also when the valid examples are all negative (some have no value), and
                # on a dense vector its threshold reaches the second smallest non-negative entry (the
                # last one its descending pass visited) while the condition covers the negatives only
                offer = n_prefix > 0 and n_prefix < n_covered
                above = 0.0
                if mode == SEARCH_DENSE:
                    op_side, op_rest = OP_LEQ_NEG, OP_GT_NEG
                    n_above = n_zero + n_suffix
                    if n_above == 0:
                        above = last_negative
                    elif n_zero == 0:
                        above = second_positive if n_above >= 2 and not low_out else first_positive
                    elif n_zero == 1 and n_above >= 2:
                        above = first_positive
                threshold = float32_midpoint(last_negative, above)
        else:
            side, count, op_side, op_rest = 1, n_suffix, OP_GT, OP_LEQ
            threshold = 0.5 * first_positive
            if mode == SEARCH_OURS or binned:
                offer = n_suffix > 0 and n_zero > 0
                if binned:  # the sparse bin's listed positives (LISTED_IN_SPARSE_BIN) belong to the zeros' bin
                    offer = n_suffix > 0 and n_suffix < n_valid and first_positive >= 1.0 and not silent_high
                    threshold = second_positive + 0.5  # the covered bin below the positives (_walk_side)
            elif mode == SEARCH_DENSE:  # the split above one zero is the one its descending pass skips
                offer = n_suffix > 0 and n_zero >= 2
                threshold = float32_midpoint(0.0, first_positive)
            else:
                # a sparse vector's boundary with the zeros (for two or more positives offered at the
                # smallest one); with no positive it covers every valid example, its threshold between
                # 0 and the largest negative
                after_low = low_out and n_suffix > 0  # every sampled positive lies above t_low
                offer = (n_suffix <= 1 or after_low) and n_prefix + n_suffix > 0
                threshold = float32_midpoint(0.0, first_positive if n_suffix == 1 or after_low else last_negative)
                if n_suffix == 0 or after_low:
                    op_side, op_rest = OP_GT_ZERO, OP_LEQ_ZERO
        if offer:
            if cancel[0] != 0:
                return False, best
            best = _consider(ctx, A1, A2, side, count, n_valid, op_side, op_rest, threshold, best)
    return True, best


def specialise(name: str, compact: bool = False, reference: bool = False, **hooks):
    """The walk compiled with a learner's hooks (``_drop``, ``_reset``, ``_add``, ``_merge``,
    ``_consider``: jitted functions) and, with ``compact``, the compaction of covered entries
    (a compile-time constant: the walk without it has no cache branches) and, with ``reference``,
    mlrl-boomer's numeric search where ``seg[j, 3]`` asks for it (see the module's docstring); Numba
    caches it under ``name``."""
    unknown = set(hooks) - {"_drop", "_reset", "_add", "_merge", "_consider"}
    if unknown:
        raise TypeError(f"unknown hook(s) {sorted(unknown)}")
    names = {**hooks, "_COMPACT": bool(compact), "_REFERENCE": bool(reference)}
    names["_walk_side"] = njit(cache=True, nogil=True, inline="always")(rebound(_walk_side, name + "_side", **names))
    names["_walk_nominal"] = njit(cache=True, nogil=True, inline="always")(rebound(_walk_nominal, name + "_nominal",
                                                                                   **names))
    return njit(cache=True, nogil=True)(rebound(walk_attribute, name, **names))


def rebound(func, name: str, **names):
    """A copy of the Python function ``func`` whose global ``names`` refer to other objects: Numba
    then compiles (and caches, under ``name``) a specialisation of the same source."""
    copy = types.FunctionType(func.__code__, {**func.__globals__, **names}, name, func.__defaults__,
                              func.__closure__)
    copy.__qualname__ = name
    return copy
