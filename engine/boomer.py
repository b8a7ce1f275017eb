"""BOOMER: gradient boosting of multi-label classification rules (Rapp et al. 2020, Alg. 1)."""
from __future__ import annotations

import math
import warnings
from typing import Callable, Iterator, Mapping

import numpy as np
import scipy.sparse as sp

from .core.binning import METHOD_CODES, bin_keys, number_of_bins
from .core.boosting import add_head_scores, apply_head, head_on_rows, refresh_example_losses
from .core.boosting_step import boosting_kernel
from .core.features import build_feature_index
from .core.refinement import first_step_family, fixed_label_family, may_thread
from .core.head_variants import (HEAD_BINNED, HEAD_COMPLETE, HEAD_PARTIAL_DYNAMIC, HEAD_PARTIAL_FIXED, HEAD_SINGLE,
                                 HEAD_SINGLE_LARGEST_SCORE)
from .core.losses import LOSS_CODES, LOSSES, is_decomposable, n_hessian_entries, packed_index, update_statistics
from .holdout import split_holdout
from .learner import RuleLearner, RuleRecord, TrainingData
from .model import RuleModel, rule_coverage
from .options import option_help, parse_option, value_names
from .parameters import FROM_INIT, Parameter
from .pruning import make_pruning
from .rules import OPERATORS, Condition, Rule
from .tracking import LossTracker

HEAD_TYPES = value_names("head_type")
INSTANCE_SAMPLING = value_names("instance_sampling")
FEATURE_SAMPLING = ("without-replacement", "none")
FEATURE_BINNING = value_names("feature_binning")
LABEL_BINNING = value_names("label_binning")
HOLDOUT = value_names("holdout")
GLOBAL_PRUNING = value_names("global_pruning")
STATISTIC_TYPES = ("64-bit", "32-bit")
_MAX_CONDITIONS_CAP = 256


def sampled_feature_count(n_features: int) -> int:
    """Alg. 3 line 2: floor(log2(L - 1) + 1) attributes per refinement step (at least 1)."""
    if n_features <= 2:
        return 1
    return min(n_features, int(math.floor(math.log2(n_features - 1) + 1)))


def head_kind(loss: str, head_type: str) -> str:
    """The head a ``head_type`` value gives under ``loss``: 'auto' is single-label heads for
    decomposable losses and complete heads otherwise."""
    name = parse_option("head_type", head_type)[0]
    if name == "auto":
        return "single" if is_decomposable(loss) else "complete"
    return name


def label_binning_applies(loss: str, head_type: str) -> bool:
    """Whether ``label_binning`` changes anything: GBLB replaces the K x K solve of eq. (16), i.e.
    complete heads of non-decomposable losses; a decomposable loss's complete head costs O(K) already
    and is computed exactly."""
    return not is_decomposable(loss) and head_kind(loss, head_type) == "complete"


def _applies_while_typing(predicate) -> Callable[[Mapping], bool]:
    """A panel's ``applies`` test from its loss and head type: ``predicate(loss, head_type)``, and
    True while a head type is still being typed (the learner reports it when a run starts)."""
    def applies(params: Mapping) -> bool:
        try:
            return predicate(str(params.get("loss", "")), str(params.get("head_type", "auto")))
        except ValueError:
            return True
    return applies


_label_binning_applies = _applies_while_typing(label_binning_applies)
_single_heads = _applies_while_typing(lambda loss, head_type: head_kind(loss, head_type) == "single")

SINGLE_LABEL_CHOICES = ("objective", "largest-score")


class BoomerClassifier(RuleLearner):
    """Gradient-boosted multi-label classification rules.

    Parameters follow mlrl-boomer's names.  Defaults are the paper's experimental setting:
    label-wise logistic loss, 1000 rules, shrinkage 0.3, L2 weight 1.0, bagging and
    log2-sized attribute samples.  ``head_type='auto'`` means single-label heads for
    decomposable and complete heads for non-decomposable losses.  ``max_conditions=None``
    means no limit; ``min_coverage`` is the least number of (in-bag) training examples a
    condition must cover.

    mlrl-boomer's scale settings take its values, options in braces included
    (``feature_binning='equal-frequency{bin_ratio=0.1}'``, see :mod:`engine.options`):
    ``feature_binning`` (:mod:`engine.core.binning`), ``label_binning`` (gradient-based label
    binning of complete heads of non-decomposable losses), ``head_type`` ``'partial-fixed'``/``'partial-dynamic'``,
    ``holdout`` (:mod:`engine.holdout`), ``global_pruning`` (:mod:`engine.pruning`; the model keeps
    ``selected_steps_`` rules) and ``statistic_type`` (gradients and Hessians in 32 or 64 bits).

    ``single_label_choice`` says which label a single-label head predicts.  ``'objective'`` (the
    default) is the paper's: the label whose optimal score lowers the objective most (Alg. 2 line 5,
    eq. 17), so conditions and labels are chosen together by the objective.  ``'largest-score'`` is
    what mlrl-boomer 0.15.6 does (found by reproducing its rules condition by condition): for each
    candidate condition the label with the largest absolute score, and conditions are ranked by that
    label's objective.  Its rules are shorter, so it fits faster; its conditions are not always the
    ones that lower the objective most.
    """

    LEARNER_NAME = "boomer"

    PARAMETERS = (
            Parameter("loss", "choice", FROM_INIT, "Loss", "label-wise (decomposable) or example-wise",
                      choices=LOSSES),
            Parameter("head_type", "option", FROM_INIT, "Head", "single label, all labels, some labels (partial), or "
                      "auto (single for decomposable losses, complete otherwise)" + option_help("head_type"),
                      choices=HEAD_TYPES),
            Parameter("single_label_choice", "choice", FROM_INIT, "Single label", "the label a single-label head "
                      "predicts: the one that lowers the objective most (objective, the paper's) or the one with "
                      "the largest absolute score (largest-score, as mlrl-boomer 0.15 does: shorter rules)",
                      choices=SINGLE_LABEL_CHOICES, applies=_single_heads),
            Parameter("max_rules", "int", FROM_INIT, "Rules", "number of rules including the default rule", minimum=1,
                      maximum=2**31 - 1),
            Parameter("shrinkage", "float", FROM_INIT, "Shrinkage η", "learning rate in (0, 1]", minimum=0.0, maximum=1.0,
                      low_open=True),
            Parameter("l2_regularization_weight", "float", FROM_INIT, "L2 weight λ", "eq. 15", minimum=0.0),
            Parameter("l1_regularization_weight", "float", FROM_INIT, "L1 weight", "", minimum=0.0),
            Parameter("instance_sampling", "option", FROM_INIT, "Instance sampling", "bagging per rule: "
                      "sample_size x N examples drawn with replacement (the paper: N; mlrl-boomer's default: "
                      "0.66 N)" + option_help("instance_sampling"), choices=INSTANCE_SAMPLING),
            Parameter("feature_sampling", "choice", FROM_INIT, "Feature sampling",
                      "log2 attributes per refinement step", choices=FEATURE_SAMPLING),
            Parameter("max_conditions", "int", FROM_INIT, "Max conditions", "empty = no limit", minimum=1, optional=True),
            Parameter("min_coverage", "int", FROM_INIT, "Min coverage", "examples a condition must cover", minimum=1),
            Parameter("feature_binning", "option", FROM_INIT, "Feature binning", "split only between bins of each "
                      "attribute's values" + option_help("feature_binning"), choices=FEATURE_BINNING),
            Parameter("label_binning", "option", FROM_INIT, "Label binning", "complete heads of example-wise "
                      "(non-decomposable) losses: labels with similar gradient/Hessian ratios share one score (GBLB); "
                      "label-wise complete heads are exact already in O(K)" + option_help("label_binning"),
                      choices=LABEL_BINNING, applies=_label_binning_applies),
            Parameter("holdout", "option", FROM_INIT, "Holdout set", "training examples set aside to watch the loss "
                      "(for global pruning)" + option_help("holdout"), choices=HOLDOUT),
            Parameter("global_pruning", "option", FROM_INIT, "Global pruning", "early stopping (pre) or keep the best "
                      "prefix (post), by the holdout loss" + option_help("global_pruning"), choices=GLOBAL_PRUNING),
            Parameter("statistic_type", "choice", FROM_INIT, "Statistics", "gradients and Hessians in 64 or 32 bits",
                      choices=STATISTIC_TYPES),
            Parameter("random_state", "seed", FROM_INIT, "Seed", "same seed, same rules", minimum=0, maximum=2**32 - 1),
    )

    def _kernel_family(self, n_examples: int, n_features: int, n_labels: int) -> tuple:
        """The arguments of :func:`boosting_kernel` (first step's sweep, fixed label's sweep, threaded,
        partial or binned heads, example-wise) for a fit on data of this size: only that family's
        kernels are compiled."""
        self._check_params()
        full = not is_decomposable(self.loss)
        single = self.single_head
        head_mode = self._head_mode(np.zeros((1, n_labels)))[0]
        full_refine = full and not single  # single-label heads refine on the Hessian's diagonal
        n_sample = sampled_feature_count(n_features) if self.feature_sampling != "none" else n_features
        first = first_step_family(head_mode, full_refine, float(self.l2_regularization_weight),
                                  float(self.l1_regularization_weight))
        threaded = may_thread(n_examples, n_sample, n_labels, n_hessian_entries(n_labels, not full_refine),
                              full_refine)
        return (first, fixed_label_family(single, n_examples), threaded, head_mode <= HEAD_PARTIAL_FIXED,
                self.prediction == "example-wise")

    def kernel_setting(self, profile: Mapping) -> str:
        """The key of the kernels a fit on data of ``profile`` (:func:`engine.prepare.data_profile`)
        compiles: the refinement family, the loss, the statistics' type and the optional parts."""
        family = self._kernel_family(profile["n_examples"], profile["n_features"], profile["n_labels"])
        optional = [parse_option(name, getattr(self, name))[0] != "none"
                    for name in ("feature_binning", "holdout", "global_pruning")]
        return "boomer|" + "|".join(str(v) for v in (*family, self.loss, self.statistic_type, self.prediction,
                                                     profile["sparse"], *optional))

    def __init__(self, loss="logistic-decomposable", head_type="auto", single_label_choice="objective",
                 max_rules=1000, shrinkage=0.3,
                 l2_regularization_weight=1.0, l1_regularization_weight=0.0,
                 instance_sampling="with-replacement", feature_sampling="without-replacement",
                 max_conditions=None, min_coverage=1, feature_binning="none", label_binning="none",
                 holdout="none", global_pruning="none", statistic_type="64-bit", random_state=1):
        self.loss = loss
        self.head_type = head_type
        self.single_label_choice = single_label_choice
        self.max_rules = max_rules
        self.shrinkage = shrinkage
        self.l2_regularization_weight = l2_regularization_weight
        self.l1_regularization_weight = l1_regularization_weight
        self.instance_sampling = instance_sampling
        self.feature_sampling = feature_sampling
        self.max_conditions = max_conditions
        self.min_coverage = min_coverage
        self.feature_binning = feature_binning
        self.label_binning = label_binning
        self.holdout = holdout
        self.global_pruning = global_pruning
        self.statistic_type = statistic_type
        self.random_state = random_state

    # -- parameters ------------------------------------------------------------------------
    def _check_combination(self) -> None:
        if parse_option("label_binning", self.label_binning)[0] != "none" and self.l1_regularization_weight:
            raise ValueError("label_binning does not support l1_regularization_weight > 0; set one of them to "
                             "'none' / 0")

    @property
    def head_kind(self) -> str:
        """'single', 'complete', 'partial-fixed' or 'partial-dynamic' ('auto' resolved)."""
        return head_kind(self.loss, self.head_type)

    @property
    def single_head(self) -> bool:
        return self.head_kind == "single"

    def _head_mode(self, Y: np.ndarray) -> tuple[int, np.ndarray]:
        """The refinement kernels' head code and its parameters [n, threshold, exponent, label bins]."""
        K = Y.shape[1]
        params = np.zeros(4)
        _, options = parse_option("head_type", self.head_type)
        kind = self.head_kind
        binning, bins = parse_option("label_binning", self.label_binning)
        if binning != "none" and label_binning_applies(self.loss, self.head_type):
            params[3] = number_of_bins(K, bins["bin_ratio"], bins["min_bins"], bins["max_bins"])
            return HEAD_BINNED, params
        if kind == "single":
            return (HEAD_SINGLE_LARGEST_SCORE if self.single_label_choice == "largest-score" else HEAD_SINGLE), params
        if kind == "partial-fixed":
            ratio = options["output_ratio"]
            n = ratio * K if ratio > 0 else float(Y.sum(axis=1).mean())  # 0: the average label cardinality
            high = options["max_outputs"] or K
            params[0] = min(max(int(round(n)), options["min_outputs"]), high, K)
            return HEAD_PARTIAL_FIXED, params
        if kind == "partial-dynamic":
            params[1], params[2] = options["threshold"], options["exponent"]
            return HEAD_PARTIAL_DYNAMIC, params
        return HEAD_COMPLETE, params

    @property
    def prediction(self) -> str:
        return "label-wise" if is_decomposable(self.loss) else "example-wise"

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        vectors = None
        if self.prediction == "example-wise":
            vectors = getattr(self, "label_vectors_", None)
            if vectors is None:
                vectors = np.unique(data.Y, axis=0)
        return RuleModel(list(rules), data.X.shape[1], data.Y.shape[1], self.prediction, self.loss,
                         vectors, data.schema, data.nominal)

    # -- Alg. 1 ----------------------------------------------------------------------------
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        rng = np.random.default_rng(self.random_state)
        X, Y = data.X, data.Y
        watched = None
        self.holdout_indices_ = None  # training examples set aside as the holdout set
        holdout_name, holdout_options = parse_option("holdout", self.holdout)
        if holdout_name != "none":
            train_rows, holdout_rows = split_holdout(Y, holdout_name, holdout_options["holdout_set_size"],
                                                     int(rng.integers(2**63 - 1)))
            self.holdout_indices_ = holdout_rows
            watched = _WatchedLoss(LOSS_CODES[self.loss], _take_rows(X, holdout_rows), Y[holdout_rows])
            X, Y = _take_rows(X, train_rows), Y[train_rows]
        n, K = Y.shape
        loss = LOSS_CODES[self.loss]
        full_hessian = not is_decomposable(self.loss)
        single = self.single_head
        l2 = float(self.l2_regularization_weight)
        l1 = float(self.l1_regularization_weight)
        eta = float(self.shrinkage)
        dtype = np.float32 if self.statistic_type == "32-bit" else np.float64
        self.label_vectors_ = np.unique(Y, axis=0) if self.prediction == "example-wise" else None

        index = build_feature_index(X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: only the default rule is learned",
                          RuntimeWarning, stacklevel=3)
        keys = index.values
        binning, binning_options = parse_option("feature_binning", self.feature_binning)
        if binning != "none":
            keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                            METHOD_CODES[binning], binning_options["bin_ratio"], binning_options["min_bins"],
                            binning_options["max_bins"])
        Ysign = np.where(Y > 0, 1, -1).astype(np.int8)
        F = np.zeros((n, K))
        G = np.empty((n, K), dtype=dtype)
        H = np.empty((n, n_hessian_entries(K, not full_hessian)), dtype=dtype)
        all_rows = np.arange(n, dtype=np.int64)
        update_statistics(loss, Ysign, F, all_rows, n, G, H)
        train = LossTracker(Y, self.prediction, self.loss, self.label_vectors_, F)
        val = None
        if data.X_test is not None:
            val = LossTracker(data.Y_test, self.prediction, self.loss, self.label_vectors_)
        pruning_name, pruning_options = parse_option("global_pruning", self.global_pruning)
        pruning = make_pruning(pruning_name, pruning_options)
        if pruning is not None and (watched is None or not pruning_options["use_holdout_set"]):
            watched = _WatchedLoss(loss, None, Y, F)  # the training set's own loss
        monitor = (watched, pruning)  # the loss global pruning (or a holdout set) watches

        # Default rule: covers everything, complete head, not shrunk.
        head = np.empty(K)
        head_on_rows(G, H, all_rows, n, full_hessian, -1, l2, l1, 1.0, head)
        labels = np.arange(K, dtype=np.int64)
        record, stop = self._add(Rule((), labels, head.copy(), data.schema), all_rows, n, loss, Ysign, F, G, H,
                                 labels, head, train, val, monitor, data, math.nan)
        yield record

        # Single-label heads use only the Hessian's diagonal (eq. 17): refine on a compact copy.
        diagonal = None
        H_refine, full_refine = H, full_hessian
        if single and full_hessian:
            diagonal = np.array([packed_index(k, k, K) for k in range(K)], dtype=np.int64)
            H_refine, full_refine = np.ascontiguousarray(H[:, diagonal]), False

        n_sample = sampled_feature_count(index.n_features) if self.feature_sampling != "none" else 0
        max_conditions = self.max_conditions or _MAX_CONDITIONS_CAP
        perm = np.arange(index.n_features, dtype=np.int64)
        covered = np.empty(n, dtype=np.uint8)
        rows = np.empty(n, dtype=np.int64)
        attrs = np.empty(max_conditions, dtype=np.int64)
        ops = np.empty(max_conditions, dtype=np.int64)
        thrs = np.empty(max_conditions, dtype=np.float64)
        head = np.empty(K)
        weights = np.ones(n, dtype=np.int64)
        sampling, sampling_options = parse_option("instance_sampling", self.instance_sampling)
        # draws per rule (0: no bagging)
        bagging = max(1, int(round(sampling_options["sample_size"] * n))) if sampling == "with-replacement" else 0
        diagonal_columns = np.empty(0, dtype=np.int64) if diagonal is None else diagonal
        vector_index = train.kernel_vectors()
        head_labels = np.empty(K, dtype=np.int64)
        # the covered entries of each attribute, compacted as a rule's refinement walks it
        cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
        seg = np.zeros((index.n_features, 3), dtype=np.int64)
        head_mode, head_params = self._head_mode(Y)
        seeds = _RuleSeeds(rng)
        rng_state = np.empty(1, dtype=np.uint64)
        min_coverage = int(self.min_coverage)
        boost_one_rule = boosting_kernel(*self._kernel_family(n, index.n_features, K))
        for t in range(1, self.max_rules):
            if stop:
                break  # global pre-pruning
            rng_state[0] = seeds.next()
            n_cond, quality, label, n_rows, d_labels, d_examples, n_head = boost_one_rule(
                index.ptr, index.rows, index.values, keys, cache, seg, index.missing_ptr, index.missing_rows,
                index.nominal,
                loss, Ysign, F, G, H, H_refine, diagonal_columns,
                single, full_refine, head_mode, head_params, weights, bagging, l2, l1, eta, n_sample,
                max_conditions, min_coverage, rng_state, perm, covered, rows, attrs, ops, thrs, head_labels, head,
                train.Y, train.errors, train.example_wise, *vector_index, data.cancel)
            if n_cond == 0 or data.cancelled:
                break  # no condition improves the objective (or training was cancelled)
            train.count(d_labels, d_examples)
            labels = head_labels[:n_head].copy()
            conditions = tuple(Condition(a, OPERATORS[o], v) for a, o, v in
                               zip(attrs[:n_cond].tolist(), ops[:n_cond].tolist(), thrs[:n_cond].tolist()))
            rule = Rule(conditions, labels, head[:n_head].copy(), data.schema)
            record, stop = self._record(rule, rows, n_rows, train, val, monitor, data, -quality)
            yield record

    def _add(self, rule, rows, n_rows, loss, Ysign, F, G, H, labels, head, train, val, monitor, data, improvement):
        """Apply a rule to the training scores and statistics; update the tracked losses."""
        apply_head(loss, Ysign, F, G, H, rows, n_rows, labels, head)
        train.add_head(rows, n_rows, labels, head)
        return self._record(rule, rows, n_rows, train, val, monitor, data, improvement)

    def _record(self, rule, rows, n_rows, train, val, monitor, data, improvement):
        """The record of a rule already applied to the training scores (and now the test set's and
        the watched loss's), and whether global pruning stops training after it.  ``monitor`` is the
        (watched loss, pruning) pair, either None."""
        extra, stop = {}, False
        watched, pruning = monitor
        if watched is not None:
            value = watched.after(rule, rows, n_rows)
            extra["holdout_loss" if watched.holdout else "train_loss"] = value
            if pruning is not None:
                stop = pruning.update(len(self.records_) + 1, value)
                self.selected_steps_ = pruning.selected
        record = dict(index=len(self.records_), rule=rule, coverage=int(n_rows), improvement=float(improvement),
                      train_hamming=train.hamming, train_subset=train.subset, extra=extra)
        if val is not None:
            vrows = np.flatnonzero(rule_coverage(rule, data.X_test)).astype(np.int64)
            add_head_scores(val.F, vrows, len(vrows), rule.head_labels, rule.head_scores, 1.0)
            val.add_head(vrows, len(vrows), rule.head_labels, rule.head_scores)
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        return RuleRecord(**record), stop


class _WatchedLoss:
    """The mean loss (the learner's own loss function) on the holdout set, or on the training set
    (``X`` None: ``F`` is the training scores, already updated when a rule is recorded)."""

    def __init__(self, loss_code: int, X, Y: np.ndarray, F: np.ndarray | None = None):
        self.loss, self.X, self.holdout = loss_code, X, X is not None
        self.Ysign = np.where(Y > 0, 1, -1).astype(np.int8)
        self.F = np.zeros(Y.shape) if F is None else F
        n = Y.shape[0]
        self.losses = np.zeros(n)
        self.total = refresh_example_losses(loss_code, self.Ysign, self.F, np.arange(n, dtype=np.int64), n,
                                            self.losses)

    def after(self, rule: Rule, rows: np.ndarray, n_rows: int) -> float:
        """The mean loss once ``rule`` (covering training ``rows[:n_rows]``) is part of the model."""
        if self.holdout:
            rows = np.flatnonzero(rule_coverage(rule, self.X)).astype(np.int64)
            n_rows = len(rows)
            add_head_scores(self.F, rows, n_rows, rule.head_labels, rule.head_scores, 1.0)
        self.total += refresh_example_losses(self.loss, self.Ysign, self.F, rows, n_rows, self.losses)
        return self.total / len(self.losses)


def _take_rows(X, rows: np.ndarray):
    """Rows of dense (C-contiguous) or CSC input, in the same layout."""
    if sp.issparse(X):
        return sp.csc_matrix(X.tocsr()[rows])
    return np.ascontiguousarray(X[rows])


class _RuleSeeds:
    """Per-rule seeds drawn from ``rng`` in chunks: the same sequence as drawing ``max_rules`` of them
    at once, without allocating for a budget of millions of rules up front."""

    CHUNK = 4096

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._chunk = np.empty(0, dtype=np.int64)
        self._pos = 0

    def next(self) -> int:
        if self._pos == len(self._chunk):
            self._chunk = self._rng.integers(1, 2**63 - 1, size=self.CHUNK)
            self._pos = 0
        self._pos += 1
        return self._chunk[self._pos - 1]

