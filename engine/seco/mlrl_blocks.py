"""The building blocks of mlrl-seco's covering loop (:mod:`.covering`): lift tables, label counts, the
reference's attribute vectors, chunked refinement, samples, IREP, the beam's entries and the decision list's losses."""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from ..core.gnu_sort import gnu_order
from ..core.refinement import apply_condition
from ..core.seco_refine import (ATTR, BEST_Q, HAVE, N_BEST_I, SEQ, WINDOWS, LabelCounts, Out, Scratch, Vectors,
                                mlrl_apply, mlrl_refine)
from ..core.seco_search import (HEAD_PARTIAL_ALL, HEAD_PARTIAL_SEARCH, HEAD_SINGLE_MODE, MH_ACCURACY, MH_F_MEASURE,
                                MH_LAPLACE, MH_M_ESTIMATE, MH_PRECISION, MH_RECALL, MH_WRA, Columns, Heuristic,
                                mlrl_apply_range)
from ..holdout import split_holdout
from ..options import parse_option
from ..rules import OPERATORS
from ..tracking import ErrorTotals

_MAX_CONDITIONS_CAP = 256
# mlrl-seco 0.15.6's heuristics
MLRL_HEURISTICS = {"accuracy": MH_ACCURACY, "precision": MH_PRECISION, "recall": MH_RECALL, "laplace": MH_LAPLACE,
                   "weighted-relative-accuracy": MH_WRA, "f-measure": MH_F_MEASURE, "m-estimate": MH_M_ESTIMATE}


def lift_tables(lift_function: str, K: int, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lift[n], max_lift[n]) for n = 0 .. K as float32, as mlrl-seco's lift functions give them:
    ``none`` 1 and 1; ``peak`` lift(n) = max_lift at n = peak, else 1 + norm(n)^(1/curvature) x
    (max_lift - 1) with norm (n - 1)/(peak - 1) below the peak and (n - K)/(K - peak) above it, and the
    bound max_lift below the peak, else that formula with the exponent ``curvature`` (the reference's
    table passes the curvature where the lift uses its inverse); ``kln`` 1 + k ln n and 1 + k ln K."""
    name, opts = parse_option("seco:lift_function", lift_function)
    lift = np.ones(K + 1, dtype=np.float32)
    bound = np.ones(K + 1, dtype=np.float32)
    if name == "kln":
        k = np.float32(opts["k"])
        for n in range(1, K + 1):
            lift[n] = np.float32(1.0) + k * np.log(np.float32(n))
        bound[:] = np.float32(1.0) + k * np.log(np.float32(K))
        return lift, bound
    if name == "none":
        return lift, bound
    peak = int(opts["peak_label"])
    if peak > 0:
        peak = min(K, peak)
    else:
        peak = max(int(np.round(float(np.asarray(Y, dtype=np.float64).sum()) / max(1, Y.shape[0]))), 1)
    max_lift = np.float32(opts["max_lift"])
    curvature = np.float32(opts["curvature"])

    def peak_lift(n, exponent):
        if n == peak:
            return max_lift
        if n < peak:
            norm = (np.float32(n) - np.float32(1)) / (np.float32(peak) - np.float32(1))
        else:
            norm = (np.float32(n) - np.float32(K)) / (np.float32(K) - np.float32(peak))
        with np.errstate(invalid="ignore"):
            powered = np.float32(math.pow(norm, exponent)) if norm >= 0 or float(exponent).is_integer() \
                else np.float32(np.nan)
        return np.float32(np.float32(1.0) + powered * (max_lift - np.float32(1.0)))

    exponent = np.float32(1.0) / curvature
    for n in range(1, K + 1):
        lift[n] = peak_lift(n, exponent)
        bound[n] = max_lift if n < peak else peak_lift(n, curvature)
    return lift, bound


def _irep(conditions, ranges, head, weights, C1, C0, majority, h, p, partial, lift, max_lift, index, dense,
          n) -> int:
    """IREP (the reference's) for a body given by its conditions (``ranges``: their positions in the
    attributes' vectors, or None for the thresholds) and the uncovered pairs with the label present
    (``C1``) and absent (``C0``): :meth:`_irep_masks`."""
    masks, covered = [], np.ones(n, dtype=np.uint8)
    for c, where in zip(conditions, ranges):
        if where is None:
            apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, index.ptr, index.rows,
                            index.values, index.missing_ptr, index.missing_rows, covered)
        else:
            mlrl_apply_range(c.attribute, Columns(index.ptr, index.rows, index.values, index.missing_ptr,
                                                  index.missing_rows), covered, bool(dense[c.attribute]), *where)
        masks.append(covered.copy())
    K = C1.shape[1]
    return _irep_masks(masks, np.asarray(head), weights, C1, 1 - (C1 | C0), majority, h, p, partial, lift, max_lift,
                       np.empty(K, np.float32), np.empty(K, np.int64))


def _irep_masks(masks, head, weights, Y, coverage, majority, h, p, partial, lift, max_lift, qbuf,
                positions) -> int:
    """IREP (the reference's): the number of leading conditions to keep.  Each prefix of the body
    (the full body first, then 1, 2, ... conditions; ``masks``: the examples each covers) is scored with
    the pruning heuristic on the examples out of the sample (weight 0), the head fixed; a strictly
    better prefix wins, and the first prefix also when it is no worse than the full body."""
    Wm, U, maj = _label_counts(Y, coverage, (weights == 0).astype(np.int64), head, majority)
    labels = LabelCounts(Wm, U, maj)
    heu = Heuristic(h, p, HEAD_PARTIAL_ALL if partial else HEAD_SINGLE_MODE, lift, max_lift)

    def quality(covered):
        q, _ = mlrl_apply(-1, False, NO_VECTORS, covered, (0, 0, 0), labels, heu, qbuf, positions)
        return q

    best_q = quality(masks[-1])
    keep = len(masks)
    for m in range(1, len(masks)):
        q = quality(masks[m - 1])
        if q > best_q or (keep == len(masks) and not best_q > q):
            best_q, keep = q, m
    return keep


class _BeamEntry:
    """A rule of mlrl-seco's beam: its conditions, the covered examples after each (``masks``; ``covered``
    the last), quality, covered examples in the sample (``count``), the labels its refinements may
    predict (``cand``, evaluated as a fixed head if ``fixed``), its head, whether it covers every example
    (``full``), whether it may be refined further and the attributes the reference no longer searches in it
    (``equal``)."""

    __slots__ = ("conditions", "masks", "covered", "q", "count", "cand", "fixed", "head", "full", "refinable",
                 "equal")

    def __init__(self, conditions, masks, covered, q, count, cand, fixed, head, full, refinable, equal):
        self.conditions, self.masks, self.covered, self.q, self.count = conditions, masks, covered, q, count
        self.cand, self.fixed, self.head, self.full, self.refinable = cand, fixed, head, full, refinable
        self.equal = equal


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109,
           113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439,
           467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879,
           2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517,
           8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267)


def _conditions_attributes(conditions) -> np.ndarray:
    """The attributes of a rule's conditions, each once, in the order mlrl-seco's post-optimization
    (without ``resample_features``) offers them: the iteration order of the C++ ``std::unordered_set``
    (libstdc++: identity hash, prime bucket counts, a node inserted into an empty bucket goes to the
    front of the list, else after its bucket's first node; rehashing relinks the nodes likewise) the
    reference fills with them in the rule's order.  Ties between attributes go by this order."""
    order: list[int] = []
    before: dict[int, int | None] = {}  # bucket -> the node before its first one (None: the list's head)
    buckets, next_resize = 1, 0

    def insert(key, nb):
        bkt = key % nb
        if bkt in before:
            b = before[bkt]
            order.insert(0 if b is None else order.index(b) + 1, key)
        else:
            if order:
                before[order[0] % nb] = key
            order.insert(0, key)
            before[bkt] = None

    for attribute in (int(c.attribute) for c in conditions):
        if attribute in order:
            continue
        count = len(order)
        if count + 1 > next_resize:  # libstdc++'s prime rehash policy (max load factor 1)
            wanted = max(count + 1, 0 if next_resize else 11)
            if wanted >= buckets:
                target = max(wanted + 1, 2 * buckets)
                fast = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
                new = fast[target] if target < len(fast) else next(p for p in _PRIMES if p >= target)
                next_resize = new
                old = list(order)
                order.clear()
                before.clear()
                for key in old:
                    insert(key, new)
                buckets = new
            else:
                next_resize = buckets
        insert(attribute, buckets)
    return np.array(order, dtype=np.int64)


def _revise(tracker, count, old_rows, old_labels, rows, labels, majority) -> None:
    """A revision of mlrl-seco's decision list: ``count`` (how many rules cover each pair) loses the old
    rule's pairs and gains the new one's; every rule predicts its labels' minority values, so a pair is
    predicted so iff a rule covers it, and ``tracker``'s predictions and losses follow."""
    count[np.ix_(old_rows, np.asarray(old_labels, dtype=np.int64))] -= 1
    count[np.ix_(rows, np.asarray(labels, dtype=np.int64))] += 1
    covered = count > 0
    tracker.decided = covered.astype(np.uint8)
    tracker.pred = np.where(covered, 1 - majority, majority).astype(np.uint8)
    tracker.errors = (tracker.pred != tracker.Y).sum(axis=1).astype(np.int64)
    tracker.wrong_labels = int(tracker.errors.sum())
    tracker.wrong_examples = int((tracker.errors > 0).sum())


def _bounded(n: int, fraction: float, minimum: int, maximum: int) -> int:
    """ceil(fraction x n), at least ``minimum`` (or n if smaller), at most ``maximum`` (0: no bound)."""
    count = int(math.ceil(fraction * n - 1e-9))
    count = max(count, min(minimum, n))
    if maximum > 0:
        count = min(count, max(maximum, min(minimum, n)))
    return min(count, n)


def _coverage(conditions, index, n) -> np.ndarray:
    """The examples a body's thresholds cover (the model's coverage)."""
    covered = np.ones(n, dtype=np.uint8)
    for c in conditions:
        apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, index.ptr, index.rows, index.values,
                        index.missing_ptr, index.missing_rows, covered)
    return covered


_NO_INT = np.zeros(1, dtype=np.int64)  # mlrl_apply's vectors when it applies no condition
_NO_ROWS = np.zeros(1, dtype=np.int32)
NO_VECTORS = Vectors(_NO_INT, _NO_ROWS, np.zeros(1, np.float32), _NO_ROWS, np.zeros(1, np.float32), _NO_INT, _NO_INT,
                     _NO_INT, _NO_ROWS, np.zeros(1, np.uint8))


def _label_counts(Y, coverage, weights, cand, majority):
    """The counts of a rule's candidate labels (engine.core.seco_refine): ``Wm`` (examples x 2 Kc, int32),
    an example's weight where the pair is uncovered and the label has its minority value (columns
    0 .. Kc-1) or its majority value (Kc .. 2 Kc-1), else 0; ``U`` its column sums; the labels' majority
    values."""
    free = coverage[:, cand] == 0
    minority = Y[:, cand] != majority[cand]
    w = weights.astype(np.int32)[:, None]
    Wm = np.empty((Y.shape[0], 2 * len(cand)), dtype=np.int32)  # C order (an F-ordered one compiles again)
    np.multiply(free & minority, w, out=Wm[:, :len(cand)])
    np.multiply(free & ~minority, w, out=Wm[:, len(cand):])
    return Wm, Wm.sum(axis=0, dtype=np.int64), np.ascontiguousarray(majority[cand])


def _base_vectors(index, dense, exact, n):
    """Every attribute's vector with all examples covered, in the reference's order
    (engine.core.seco_search.covered_order): the index's own arrays unless a numeric attribute of dense
    input has zeros the index leaves implicit, which then stand between its negative and other values, or
    a numeric attribute is sparse (``dense[j]`` 0: sparse input with implicit zeros), whose equal values
    then stand as GCC's ``std::sort`` of its entries in row order leaves them (the reference's vector:
    its search of the non-zero block against the zeros leaves out the entry first among the smallest
    values >= 0, :func:`engine.core.gnu_sort.gnu_order`)."""
    stored = np.diff(index.ptr)
    implicit = exact & (dense > 0) & (stored + np.diff(index.missing_ptr) < n)
    reorder = exact & (dense == 0)
    ordered = index.rows
    if reorder.any():
        ordered = index.rows.copy()
        gnu_order(index.ptr, ordered, index.values, np.flatnonzero(reorder).astype(np.int64))
    if not implicit.any():
        return index.ptr, ordered, index.values
    rows, vals = [], []
    for j in range(index.n_features):
        r = ordered[index.ptr[j]:index.ptr[j + 1]]
        v = index.values[index.ptr[j]:index.ptr[j + 1]]
        if implicit[j]:
            listed = np.zeros(n, dtype=bool)
            listed[r] = True
            listed[index.missing_rows[index.missing_ptr[j]:index.missing_ptr[j + 1]]] = True
            zeros = np.flatnonzero(~listed).astype(np.int32)
            neg = int(np.searchsorted(v, 0.0, side="left"))
            r = np.concatenate([r[:neg], zeros, r[neg:]])
            v = np.concatenate([v[:neg], np.zeros(len(zeros), dtype=np.float32), v[neg:]])
        rows.append(r)
        vals.append(v)
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return ptr, np.concatenate(rows).astype(np.int32), np.concatenate(vals).astype(np.float32)


def _threads(parallel_rule_refinement: str) -> int:
    """Threads of a refinement step: Numba's, fewer with mlrl-seco's num_preferred_threads, 1 with 'false'."""
    name, options = parse_option("seco:parallel_rule_refinement", parallel_rule_refinement)
    if name == "false":
        return 1
    preferred = options.get("num_preferred_threads", 0)
    return max(1, min(numba.get_num_threads(), preferred) if preferred > 0 else numba.get_num_threads())


def _step_scratch(chunks: int, Kc: int):
    """Per thread of a step: its best (out_f, out_i), and its scratch; the best of all threads (best)."""
    scratch = [(np.empty((5, 2 * Kc), dtype=np.int32), np.empty(Kc, dtype=np.float32), np.empty(Kc, dtype=np.int64),
                np.empty((3, Kc)), np.empty(3)) for _ in range(chunks)]
    return np.empty((chunks, 2)), np.empty((chunks, N_BEST_I), dtype=np.int64), np.empty(1), scratch


_POOL: list = [None, 0]  # the threads that join this one in a refinement step, and how many


def _run_chunks(args, chunks, out_f, out_i, scratch, cancel) -> None:
    """mlrl_refine in ``chunks`` threads (this one and a pool's; the kernel releases the GIL); ``args``: its
    arguments but the thread's (order, vectors, body, label counts, heuristic, min_cov, floor, score, best)."""
    calls = [(args[0], c, chunks) + args[1:] + (Out(out_f[c], out_i[c]), Scratch(*scratch[c]), cancel, WINDOWS)
             for c in range(chunks)]
    if chunks == 1:
        mlrl_refine(*calls[0])
        return
    if _POOL[1] < chunks - 1:
        _POOL[:] = [ThreadPoolExecutor(max_workers=chunks - 1, thread_name_prefix="seco-refinement"), chunks - 1]
    futures = [_POOL[0].submit(mlrl_refine, *call) for call in calls[1:]]
    mlrl_refine(*calls[0])
    for future in futures:
        future.result()


def _best_chunk(out_f, out_i) -> int:
    """The thread whose candidate is best: highest quality, then smallest attribute, then candidate number."""
    best = -1
    for c in range(len(out_f)):
        if out_i[c, HAVE] and (best < 0 or (out_f[c, BEST_Q], -out_i[c, ATTR], -out_i[c, SEQ])
                               > (out_f[best, BEST_Q], -out_i[best, ATTR], -out_i[best, SEQ])):
            best = c
    return best


def _mode(partial: bool, fixed: bool) -> int:
    if not partial:
        return HEAD_SINGLE_MODE
    return HEAD_PARTIAL_ALL if fixed else HEAD_PARTIAL_SEARCH


def _feature_sample(D: int, m: int, retained: int, rng) -> np.ndarray:
    """All attributes, or ``m`` of them without replacement (the last ``retained`` always), ascending."""
    if m >= D:
        return np.arange(D, dtype=np.int64)
    free = D - retained
    picked = rng.choice(free, max(0, m - retained), replace=False) if free > 0 else np.empty(0, np.int64)
    return np.sort(np.concatenate([picked, np.arange(free, D)])).astype(np.int64)


def _instance_weights(method: str, size: int, Y: np.ndarray, rng, strata=None) -> np.ndarray:
    """Per rule: weight 1 for every example (none), the number of draws (with-replacement), or 1 for
    ``size`` examples chosen uniformly or stratified by labels (engine.holdout's stratifications;
    ``strata``: an :class:`_OutputWise` of ``Y`` and ``size`` for 'stratified-output-wise')."""
    n = Y.shape[0]
    if method == "none":
        return np.ones(n, dtype=np.int64)
    if method == "with-replacement":
        return np.bincount(rng.integers(0, n, size), minlength=n).astype(np.int64)
    weights = np.zeros(n, dtype=np.int64)
    if size >= n:
        weights[:] = 1
    elif method == "without-replacement":
        weights[rng.choice(n, size, replace=False)] = 1
    elif method == "stratified-output-wise" and strata is not None:
        weights[strata.sample(int(rng.integers(2**63 - 1)))] = 1
    else:
        _, sample = split_holdout(Y, method, size / n, int(rng.integers(2**63 - 1)))
        weights[sample] = 1
    return weights


class _OutputWise:
    """The sample of ``split_holdout(Y, 'stratified-output-wise', size / N, seed)`` (engine.holdout's
    iterative stratification; the sample is its holdout set) with the labels' positives found once per
    fit: the same random draws in the same order, so the same examples (tests/test_seco_refine.py)."""

    def __init__(self, Y: np.ndarray, size: int):
        n = Y.shape[0]
        fraction = size / n
        self.n = n
        self.target = min(max(int(round(fraction * n)), 1), n - 1)
        positives = Y.sum(axis=0)
        self.labels = [(np.flatnonzero(Y[:, k] > 0), int(round(fraction * positives[k])))
                       for k in np.argsort(positives, kind="stable") if positives[k] != 0]

    def sample(self, seed) -> np.ndarray:
        rng = np.random.default_rng(seed)
        assigned = np.zeros(self.n, dtype=np.int8)  # 0 unassigned, 1 train, 2 holdout (the sample)
        n_sample = 0
        for members, quota in self.labels:
            state = assigned[members]
            free = rng.permutation(members[state == 0])
            want = max(0, min(quota - int(np.count_nonzero(state == 2)), len(free), self.target - n_sample))
            assigned[free[:want]] = 2
            assigned[free[want:]] = 1
            n_sample += want
        missing = self.target - n_sample
        if missing <= 0:
            return np.flatnonzero(assigned == 2)
        # filled up with examples no label placed first, then at random (the draws a split would make)
        rest = rng.permutation(np.flatnonzero(assigned == 0))
        if len(rest) < missing:
            rest = np.concatenate([rest, rng.permutation(np.flatnonzero(assigned == 1))])
        return np.concatenate([np.flatnonzero(assigned == 2), rest[:missing]])


class _DecisionListTracker(ErrorTotals):
    """Predictions of a growing decision list that ends with a fixed default rule: only newly set
    (example, label) pairs change, so the losses are updated incrementally."""

    def __init__(self, Y, default_values):
        self.Y = np.ascontiguousarray(Y, dtype=np.uint8)
        n, K = self.Y.shape
        self.decided = np.zeros((n, K), dtype=np.uint8)
        self.pred = np.repeat(default_values[None, :], n, axis=0).astype(np.uint8)
        self.errors = (self.pred != self.Y).sum(axis=1).astype(np.int64)
        self.wrong_labels = int(self.errors.sum())
        self.wrong_examples = int((self.errors > 0).sum())

    def apply(self, rows, labels, values) -> int:
        """Set the still undecided ``labels`` of ``rows`` to ``values``; returns how many were set."""
        if len(rows) == 0:
            return 0
        sub = np.ix_(rows, labels)
        free = self.decided[sub] == 0
        new = np.where(free, values[None, :], self.pred[sub]).astype(np.uint8)
        self.pred[sub] = new
        self.decided[sub] = 1
        errors = (self.pred[rows] != self.Y[rows]).sum(axis=1)
        self.wrong_labels += int(errors.sum() - self.errors[rows].sum())
        self.wrong_examples += int((errors > 0).sum() - (self.errors[rows] > 0).sum())
        self.errors[rows] = errors
        return int(free.sum())
