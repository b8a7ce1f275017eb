"""The state of one BOOMER fit, built once by :func:`build_fit_state` from the settings and the training
data: the feature index and its search arrays, the statistics, the kernels' scratch arrays, the rule
search's parameters, the samplers and the trackers.  The training loop (:mod:`.loop`), the rule learners
(:mod:`.induction`) and post-optimization (:mod:`.post_optimization`) all work on it."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp

from ..core.binning import METHOD_CODES, REFERENCE_METHODS, bin_keys, reference_binned_matrix
from ..core.boosting_step import boosting_kernel
from ..core.covered_entries import rank_entries
from ..core.examplewise_stats import compact_boosting_kernel, compact_update_statistics, compact_width
from ..core.features import build_feature_index
from ..core.losses import n_hessian_entries, packed_index, update_statistics
from ..core.refinement import order_as_reference, reference_sparse_format, search_segments
from ..core.sweep import search_keys
from ..holdout import reference_random_split, reference_stratified_split, split_holdout
from ..learner import TrainingData
from ..options import OPTIONS
from ..predictors import unique_rows
from ..pruning import make_pruning
from ..sampling import OutputSampler
from ..tracking import LossTracker
from . import settings as _settings
from .instance_sampling import InstanceSampler
from .memory import check_statistics_memory
from .recording import Recorder, WatchedLoss
from .regression import RegressionTracker
from .settings import BoomerSettings


# mlrl-boomer's holdout splits (Y, size, seed) -> (training examples in its order, holdout set)
REFERENCE_SPLITS = {"random": lambda Y, size, seed: reference_random_split(Y.shape[0], size, seed),
                    "stratified-output-wise": reference_stratified_split}


@dataclass
class FeatureSearch:
    """The feature index (:func:`engine.core.features.build_feature_index`) and what the refinement
    kernels search it with: each entry's search key, the covered entries' cache, the search segments and
    the dense attributes' ranks."""

    index: object
    keys: np.ndarray
    cache: np.ndarray
    seg: np.ndarray
    ranks: np.ndarray

    @property
    def arrays(self) -> tuple:
        """The kernels' first ten arguments."""
        index = self.index
        return (index.ptr, index.rows, index.values, self.keys, self.cache, self.seg, self.ranks, index.missing_ptr,
                index.missing_rows, index.nominal)


@dataclass
class Statistics:
    """Training labels ``Y``, scores ``F`` (in the statistics' type), gradients ``G`` and Hessians ``H``
    (``compact``: a diagonal plus rank one per example, :mod:`engine.core.examplewise_stats`).  Single-label
    heads of example-wise losses refine on ``H_refine``, a copy of the Hessians' ``diagonal`` columns."""

    loss: int
    Y: np.ndarray
    F: np.ndarray
    G: np.ndarray
    H: np.ndarray
    full_hessian: bool
    compact: bool
    H_refine: np.ndarray = None
    full_refine: bool = False
    diagonal: np.ndarray | None = None

    def __post_init__(self):
        if self.H_refine is None:
            self.H_refine, self.full_refine = self.H, self.full_hessian

    def refine_on_diagonal(self) -> None:
        """Single-label heads use only the Hessian's diagonal (eq. 17): refine on a compact copy."""
        K = self.Y.shape[1]
        self.diagonal = np.array([packed_index(k, k, K) for k in range(K)], dtype=np.int64)
        self.H_refine, self.full_refine = np.ascontiguousarray(self.H[:, self.diagonal]), False

    @property
    def diagonal_columns(self) -> np.ndarray:
        return np.empty(0, dtype=np.int64) if self.diagonal is None else self.diagonal

    def refresh_diagonal(self, rows: np.ndarray) -> None:
        """The refinement's copy of the Hessians' diagonal, after the statistics of ``rows`` changed."""
        if self.diagonal is not None and len(rows):
            self.H_refine[rows] = self.H[rows][:, self.diagonal]


@dataclass
class Scratch:
    """The arrays a kernel writes a rule into: covered examples, their rows, the body, the head."""

    covered: np.ndarray
    rows: np.ndarray
    attrs: np.ndarray
    ops: np.ndarray
    thrs: np.ndarray
    head: np.ndarray
    head_labels: np.ndarray

    @classmethod
    def of(cls, n: int, K: int, max_conditions: int) -> "Scratch":
        return cls(np.empty(n, dtype=np.uint8), np.empty(n, dtype=np.int64), np.empty(max_conditions, dtype=np.int64),
                   np.empty(max_conditions, dtype=np.int64), np.empty(max_conditions, dtype=np.float64),
                   np.empty(K), np.empty(K, dtype=np.int64))

    def body(self, n_cond: int) -> tuple:
        """A copy of the body just written (attributes, operator codes, thresholds)."""
        return self.attrs[:n_cond].copy(), self.ops[:n_cond].copy(), self.thrs[:n_cond].copy()


@dataclass
class RuleSearch:
    """The parameters every rule's search takes: head type and its parameters, regularization and
    shrinkage, the attributes' sampling order ``perm`` with ``n_sample`` of them per step, the limits of a
    body, the random state (this rule's seed, retained attributes) and the kernels' family."""

    single: bool
    head_mode: int
    head_params: np.ndarray
    l2: float
    l1: float
    eta: float
    n_sample: int
    perm: np.ndarray
    max_conditions: int
    min_coverage: int
    rng_state: np.ndarray
    family: tuple


@dataclass
class FitState:
    """Everything one fit works on (see the module docstring); ``X`` is the training rows (the holdout
    set's taken out), ``boost_one_rule`` the fused kernel of the family or :mod:`engine.core.induction`'s
    inducer (``inducer``, else None)."""

    settings: BoomerSettings
    data: TrainingData
    X: object
    search: FeatureSearch
    stats: Statistics
    scratch: Scratch
    rule: RuleSearch
    sampler: InstanceSampler
    outputs: OutputSampler
    recorder: Recorder
    boost_one_rule: Callable
    inducer: object | None
    vector_index: tuple  # the known label vectors' index of eq. (19) kernels (empty when label-wise)

    @property
    def n_labels(self) -> int:
        return self.stats.Y.shape[1]

    def fused_arguments(self, weights: np.ndarray, n_sample: int, perm: np.ndarray) -> tuple:
        """The arguments of ``boost_one_rule`` for a rule learned with ``weights`` on ``n_sample`` attributes
        per step, sampled in the order ``perm``."""
        s, r, w, train = self.stats, self.rule, self.scratch, self.recorder.train
        return (*self.search.arrays, s.loss, s.Y, s.F, s.G, s.H, s.H_refine, s.diagonal_columns, r.single,
                s.full_refine, r.head_mode, r.head_params, weights, self.sampler.bagging, r.l2, r.l1, r.eta,
                n_sample, r.max_conditions, r.min_coverage, r.rng_state, perm, w.covered, w.rows, w.attrs, w.ops,
                w.thrs, w.head_labels, w.head, train.Y, train.errors, train.example_wise, *self.vector_index,
                self.data.cancel)


def build_fit_state(est, settings: BoomerSettings, data: TrainingData) -> FitState:
    """The state of a fit of ``est`` on ``data``; sets the estimator's ``holdout_indices_``,
    ``label_vectors_``.  Refuses what the statistics cannot hold before any work."""
    X, Y, sample_weight, watched, order = _split_holdout(est, settings, data)
    n, K = Y.shape
    est.label_vectors_ = unique_rows(Y) if settings.prediction == "example-wise" else None
    search = _feature_search(settings, data, X)
    stats = _statistics(settings, Y, search.index.n_features)
    tracker = RegressionTracker if settings.regression else LossTracker  # MSE, or Hamming and subset 0/1
    train = tracker(Y, settings.prediction, settings.loss, est.label_vectors_, stats.F)
    val = None
    if data.X_test is not None:
        val = tracker(data.Y_test, settings.prediction, settings.loss, est.label_vectors_)
    pruning = make_pruning(settings.global_pruning.name, dict(settings.global_pruning.options))
    if pruning is not None and (watched is None or not settings.global_pruning["use_holdout_set"]):
        watched = WatchedLoss(stats.loss, None, Y, stats.F)  # the training set's own loss
    rule = _rule_search(settings, data, search.index.n_features, n, K)
    inducer = settings.induction.inducer()
    boost_one_rule = inducer
    if inducer is None:  # the fused kernel of the family (else beam search, head refinements, IREP)
        boost_one_rule = (compact_boosting_kernel if stats.compact else boosting_kernel)(*rule.family)
    # every sampler has mlrl-boomer's generator of its own, each seeded with random_state (engine.core.reference_random)
    sampler = InstanceSampler(settings.instance_sampling.name, settings.n_drawn(n), Y, sample_weight,
                              settings.random_state, order, settings.instance_sampling.options.get("sample_size", 1.0))
    outputs = OutputSampler(settings.output_sampling.name, dict(settings.output_sampling.options), K,
                            settings.random_state)
    return FitState(settings, data, X, search, stats, Scratch.of(n, K, rule.max_conditions), rule, sampler, outputs,
                    Recorder(est, data, train, val, watched, pruning), boost_one_rule, inducer,
                    train.kernel_vectors())


def _split_holdout(est, settings: BoomerSettings, data: TrainingData):
    """(X, Y, sample weights) of the training rows, the holdout set's :class:`WatchedLoss` (None without one)
    and the training rows in the order instance sampling draws into (None: ascending); the estimator's
    ``holdout_indices_`` are the rows set aside.  A random split is mlrl-boomer's (seeded with random_state)."""
    X, Y, sample_weight = data.X, data.Y, data.sample_weight
    est.holdout_indices_ = None  # training examples set aside as the holdout set
    if settings.holdout == "none":
        return X, Y, sample_weight, None, None
    size = settings.holdout_options["holdout_set_size"]
    order = None
    if settings.holdout in REFERENCE_SPLITS:
        reference_train, holdout_rows = REFERENCE_SPLITS[settings.holdout](Y, size, settings.random_state)
        train_rows, holdout_rows = np.sort(reference_train), np.sort(holdout_rows)
        order = np.searchsorted(train_rows, reference_train)  # rows of the compacted training set
    else:
        train_rows, holdout_rows = split_holdout(Y, settings.holdout, size, settings.random_state)
    est.holdout_indices_ = holdout_rows
    if sample_weight is not None:
        sample_weight = sample_weight[train_rows]
    watched = WatchedLoss(settings.loss_code, _take_rows(X, holdout_rows), Y[holdout_rows])
    return _take_rows(X, train_rows), Y[train_rows], sample_weight, watched, order


def _feature_search(settings: BoomerSettings, data: TrainingData, X) -> FeatureSearch:
    """The feature index of ``X`` with its search keys (mlrl-boomer splits only values that differ in float32,
    or only between bins with feature binning), search segments and ranks."""
    sparse_format = reference_sparse_format(X, settings.feature_format)
    # 'auto' asks mlrl-boomer's question: its feature matrix (all of fit's rows) in its dense format
    binning = settings.feature_binning_kind(data.X.shape[0], sparse_format)
    options = {}
    if binning != "none":
        options = settings.feature_binning.options or {
            k: spec.default for k, spec in OPTIONS["feature_binning"][binning].items()}
    reference = None
    if binning in REFERENCE_METHODS:  # the index of mlrl-boomer's bin numbers (engine.core.binning)
        skip = data.nominal if data.ordinal is None else (data.nominal | data.ordinal)
        X, data.binned = reference_binned_matrix(X, sparse_format, np.asarray(skip, dtype=bool), binning,
                                                 options["bin_ratio"], options["min_bins"], options["max_bins"])
        # equal-frequency on its dense format lists every example in its bins: no filtered search
        reference = "reference-exact" if binning == "equal-frequency" and not sparse_format else "reference"
    index = build_feature_index(X, data.nominal)
    if index.constant_attributes().all():
        warnings.warn("every attribute is constant on the training data: only the default rule is learned",
                      RuntimeWarning, stacklevel=5)
    if reference is not None:  # bin numbers: the values are the keys
        keys = index.values
    elif binning != "none":
        keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                        METHOD_CODES[binning], options["bin_ratio"], options["min_bins"], options["max_bins"])
    else:
        keys = search_keys(index.ptr, index.values)
    # the covered entries of each attribute, compacted as a rule's refinement walks it
    cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
    seg = search_segments(index, sparse_format, reference or binning != "none", data.ordinal)
    order_as_reference(index, seg)
    ranks = rank_entries(index, seg)  # each example's entry of the dense attributes (.core.covered_entries)
    return FeatureSearch(index, keys, cache, seg, ranks)


def _statistics(settings: BoomerSettings, Y: np.ndarray, n_features: int) -> Statistics:
    """Zero scores and the gradients and Hessians of the loss at them; refuses what needs packed
    statistics above the budget, or more memory than the machine has."""
    n, K = Y.shape
    dtype = settings.dtype
    F = np.zeros((n, K), dtype=dtype)  # scores in the statistics' type, as mlrl-boomer keeps them
    G = np.empty((n, K), dtype=dtype)
    compact = settings.compact_statistics(n, K)
    _refuse_compact(settings, compact)
    full_hessian = not settings.decomposable
    check_statistics_memory(n, K, full_hessian, np.dtype(dtype).itemsize, compact,
                            settings.n_sampled_features(n_features) or n_features)
    all_rows = np.arange(n, dtype=np.int64)
    if compact:  # H holds each example's Hessian as a diagonal plus rank one (engine.core.examplewise_stats)
        H = np.empty((n, compact_width(K)), dtype=dtype)
        compact_update_statistics(settings.loss_code, Y, F, all_rows, n, G, H)
    else:
        H = np.empty((n, n_hessian_entries(K, not full_hessian)), dtype=dtype)
        update_statistics(settings.loss_code, Y, F, all_rows, n, G, H)
    return Statistics(settings.loss_code, Y, F, G, H, full_hessian, compact)


def _refuse_compact(settings: BoomerSettings, compact: bool) -> None:
    """Compact statistics serve the default greedy induction without output sampling or post-optimization."""
    if not compact:
        return
    if settings.post_optimization.name != "none":
        raise ValueError(f"post_optimization={settings.post_optimization.name!r} needs the packed statistics, more "
                         "than this fit's budget here; use post_optimization='none'")
    if settings.output_sampling.name != "none":
        raise ValueError("output_sampling is not supported with compact example-wise statistics (packed Hessians "
                         f"above {_settings.PACKED_STATISTICS_BUDGET / 2**30:g} GiB); use fewer labels or examples")
    if settings.induction.uses_module:
        raise ValueError(f"rule_induction={settings.induction.name!r} with rule pruning needs the packed "
                         "statistics, more than this fit's budget here; use the default rule induction")


def _rule_search(settings: BoomerSettings, data: TrainingData, n_features: int, n: int, K: int) -> RuleSearch:
    """The rule search's parameters of a fit on ``n`` examples of ``n_features`` attributes and ``K`` labels."""
    n_sample = settings.n_sampled_features(n_features)
    max_conditions, min_coverage = settings.induction.limits(n)
    # the attributes in sampling order: mlrl-boomer's retained ones (the last num_retained) first, in every
    # sample; the random state's second entry says how many (engine.core.refinement.sample_features)
    retained = settings.feature_sample(n_features)[1] if n_sample else 0
    perm = np.roll(np.arange(n_features, dtype=np.int64), retained)
    head_mode, head_params = settings.head_mode(data.Y)  # the label cardinality of every training example
    return RuleSearch(settings.single, head_mode, head_params, settings.l2, settings.l1, settings.eta, n_sample, perm,
                      max_conditions, min_coverage, _random_state(settings.random_state, retained),
                      settings.kernel_family(n, n_features, K))


def _random_state(random_state: int, retained: int) -> np.ndarray:
    """The kernels' random state: (unused, retained attributes, mlrl-boomer's attribute-sampling generator seeded
    with ``random_state`` and continued over the fit's rules, :func:`engine.core.reference_random.feature_sample`)."""
    return np.array([0, retained, int(random_state) & 0xFFFFFFFF], dtype=np.uint64)


def _take_rows(X, rows: np.ndarray):
    """Rows of dense (C-contiguous) or CSC input, in the same layout."""
    if sp.issparse(X):
        return sp.csc_matrix(X.tocsr()[rows])
    return np.ascontiguousarray(X[rows])
