"""BOOMER's options parsed once: :class:`BoomerSettings` holds every parameter of a fit as typed values
('auto' resolved where the data do not matter), and says which kernels, heads and samples they ask for."""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ..core.head_variants import (HEAD_BINNED, HEAD_BINNED_DYNAMIC, HEAD_BINNED_FIXED, HEAD_COMPLETE,
                                  HEAD_PARTIAL_DYNAMIC, HEAD_PARTIAL_FIXED, HEAD_SINGLE, HEAD_SINGLE_LARGEST_SCORE,
                                  label_cardinality32, partial_fixed_size, side_bins)
from ..core.losses import LOSS_CODES, is_decomposable, n_hessian_entries
from ..core.regression_losses import REGRESSION_CODES
from ..core.refinement import first_step_family, fixed_label_family, may_thread
from ..options import OPTIONS, parse_option
from ..predictors import binary_mode
from ..sampling import bounded_count, feature_sample_plan

# The loss whose statistics mlrl-boomer may keep sparse (then its 'auto' heads are single-label heads)
SPARSE_LOSSES = ("squared-hinge-decomposable",)
AUTO_BINNING_MIN_EXAMPLES = 200_000  # feature_binning='auto': equal-width bins above this many dense examples
# Bytes of packed per-example Hessians above which complete, partial and binned heads keep compact
# statistics instead (BoomerSettings.compact_statistics)
PACKED_STATISTICS_BUDGET = 2**30
MAX_CONDITIONS_CAP = 256  # the conditions a rule may have when max_conditions sets no limit


def head_kind(loss: str, head_type: str) -> str:
    """The head a ``head_type`` value gives under ``loss``: 'auto' is what mlrl-boomer 0.15.6 chooses
    with dense statistics, complete heads (it takes single-label heads only for the sparse statistics
    of the decomposable squared hinge loss, :data:`SPARSE_LOSSES`, which it prefers for sparse label
    matrices; this learner has dense statistics only)."""
    name = parse_option("head_type", head_type)[0]
    return "complete" if name == "auto" else name


def label_binning_applies(loss: str, head_type: str) -> bool:
    """Whether ``label_binning`` can change anything: gradient-based label binning of complete and
    partial heads (an explicit ``equal-width`` bins them for every loss, as mlrl-boomer does)."""
    return head_kind(loss, head_type) != "single"


def label_binning_kind(loss: str, head_type: str, label_binning: str) -> str:
    """'none' or 'equal-width': the label binning a fit uses.  'auto' is equal-width binning of the
    complete and partial heads of non-decomposable losses (whose K x K solve it replaces), else none;
    'equal-width' bins complete and partial heads of every loss (mlrl-boomer 0.15.6's)."""
    name = parse_option("label_binning", label_binning)[0]
    if name == "auto":
        name = "equal-width" if not is_decomposable(loss) else "none"
    return name if label_binning_applies(loss, head_type) else "none"


def feature_binning_kind(feature_binning: str, n_examples: int, sparse: bool) -> str:
    """The feature binning a fit uses: 'auto' is equal-width binning for dense features and more than
    200,000 examples, else none (mlrl-boomer 0.15.6)."""
    name = parse_option("feature_binning", feature_binning)[0]
    if name == "auto":
        return "equal-width" if not sparse and n_examples > AUTO_BINNING_MIN_EXAMPLES else "none"
    return name


def holdout_kind(holdout: str, global_pruning: str, marginal_calibration: str = "none",
                 joint_calibration: str = "none") -> str:
    """The holdout a fit uses: 'auto' is a stratified output-wise holdout when global pruning or an
    isotonic probability calibration uses the holdout set (``use_holdout_set``, their default), else
    none (mlrl-boomer 0.15.6; it asks the calibration whatever the loss, so a loss without
    probabilities still gets the holdout set)."""
    name = parse_option("holdout", holdout)[0]
    if name == "auto":
        wanted = [parse_option("global_pruning", global_pruning),
                  parse_option("marginal_probability_calibration", marginal_calibration),
                  parse_option("joint_probability_calibration", joint_calibration)]
        needed = any(value != "none" and options["use_holdout_set"] for value, options in wanted)
        return "stratified-output-wise" if needed else "none"
    return name


def explicit_options(value: str) -> set[str]:
    """The option names written in braces in ``value`` (``'name{a=1,b=2}'`` -> {'a', 'b'})."""
    body = value.partition("{")[2].rpartition("}")[0]
    return {item.partition("=")[0].strip() for item in body.split(",") if item.strip()}


@dataclass(frozen=True)
class Choice:
    """An option parameter's value parsed (:func:`engine.options.parse_option`): its name and options."""

    name: str
    options: Mapping

    @classmethod
    def of(cls, parameter: str, value) -> "Choice":
        name, options = parse_option(parameter, value)
        return cls(name, MappingProxyType(dict(options)))

    def __getitem__(self, key):
        return self.options[key]


@dataclass(frozen=True)
class InductionSettings:
    """``rule_induction`` and ``rule_pruning`` with the top-level ``max_conditions``/``min_coverage``."""

    name: str  # 'top-down-greedy' or 'top-down-beam-search'
    options: Mapping
    max_conditions: int  # 0: no limit
    min_coverage: int
    min_support: float
    irep: bool

    @classmethod
    def of(cls, rule_induction: str, rule_pruning: str, max_conditions, min_coverage) -> "InductionSettings":
        parsed = Choice.of("rule_induction", rule_induction)
        given = explicit_options(rule_induction)
        limit = parsed["max_conditions"] if "max_conditions" in given else (max_conditions or 0)
        coverage = parsed["min_coverage"] if "min_coverage" in given else int(min_coverage)
        return cls(parsed.name, parsed.options, int(limit), int(coverage), float(parsed["min_support"]),
                   Choice.of("rule_pruning", rule_pruning).name == "irep")

    @property
    def beam(self) -> bool:
        return self.name == "top-down-beam-search"

    @property
    def uses_module(self) -> bool:
        """Whether rules are induced by :mod:`engine.core.induction` rather than the default greedy kernel."""
        options = self.options
        return (self.beam or self.irep or options["max_head_refinements"] != 1
                or not options["recalculate_predictions"])

    def inducer(self):
        """The rule induction of :mod:`engine.core.induction`, or None for the default greedy kernel
        (imported here: the default path does not load it)."""
        from ..core.induction import Induction, RuleInducer

        if self.beam and self.max_conditions == 1:
            raise ValueError("max_conditions of top-down-beam-search must be 0 (no limit) or at least 2, got 1")
        if not self.uses_module:
            return None
        options = self.options
        return RuleInducer(Induction(options["beam_width"] if self.beam else 1,
                                     self.beam and options["resample_features"], options["max_head_refinements"],
                                     options["recalculate_predictions"], self.irep))

    def limits(self, n_examples: int) -> tuple[int, int]:
        """(max_conditions, min_coverage) of a fit on ``n_examples``: no limit is :data:`MAX_CONDITIONS_CAP`,
        min_support raises the coverage to its share of the examples."""
        coverage = max(self.min_coverage, int(math.ceil(self.min_support * n_examples - 1e-9)))
        return self.max_conditions or MAX_CONDITIONS_CAP, coverage


@dataclass(frozen=True)
class BoomerSettings:
    """Every parameter of a BOOMER fit, parsed once (:meth:`of`)."""

    loss: str
    head: Choice  # head_type as given
    head_kind: str  # 'single', 'complete', 'partial-fixed' or 'partial-dynamic'
    single_label_choice: str
    label_binning: Choice
    label_binning_used: bool
    label_binning_scope: str
    l2: float
    l1: float
    eta: float
    statistic_type: str
    prediction: str  # 'label-wise' or 'example-wise'
    instance_sampling: Choice
    feature_sampling: Choice
    output_sampling: Choice
    induction: InductionSettings
    post_optimization: Choice
    feature_binning: Choice
    holdout: str  # the holdout kind, 'auto' resolved
    holdout_options: Mapping
    global_pruning: Choice
    marginal_calibration: Choice
    joint_calibration: Choice
    default_rule: bool
    max_rules: int
    time_limit: int
    threads: int  # 1: serial refinement, n: n preferred threads, 0: every core
    feature_format: str | None
    random_state: int
    regression: bool = False  # real-valued targets (BoomerRegressor): the loss codes of .core.regression_losses

    @classmethod
    def of(cls, est) -> "BoomerSettings":
        """The settings of estimator ``est`` (its parameters already checked one by one; None, where it
        means the default, resolved: :meth:`engine.parameters.DeclaredParameters.effective`)."""
        est = est.effective()
        loss, head_type = est.loss, est.head_type
        regression = getattr(est, "regression", False)
        holdout = holdout_kind(est.holdout, est.global_pruning, est.marginal_probability_calibration,
                               est.joint_probability_calibration)
        if regression and holdout == "stratified-output-wise":
            holdout = "random"  # mlrl-boomer's automatic holdout set of a regressor
        return cls(
            loss=loss, head=Choice.of("head_type", head_type), head_kind=head_kind(loss, head_type),
            single_label_choice=est.single_label_choice, label_binning=Choice.of("label_binning", est.label_binning),
            label_binning_used=label_binning_kind(loss, head_type, est.label_binning) != "none",
            label_binning_scope=est.label_binning_scope, l2=_weight(est.l2_regularization_weight, regression),
            l1=_weight(est.l1_regularization_weight, regression), statistic_type=est.statistic_type,
            eta=_weight(est.shrinkage, regression),
            prediction="label-wise" if regression else training_prediction(loss, est.binary_predictor),
            instance_sampling=Choice.of("instance_sampling", est.instance_sampling),
            feature_sampling=Choice.of("feature_sampling", est.feature_sampling),
            output_sampling=Choice.of("output_sampling", est.output_sampling),
            induction=InductionSettings.of(est.rule_induction, est.rule_pruning, est.max_conditions,
                                           est.min_coverage),
            post_optimization=Choice.of("post_optimization", est.post_optimization),
            feature_binning=Choice.of("feature_binning", est.feature_binning),
            holdout=holdout,
            holdout_options=MappingProxyType(parse_option("holdout", est.holdout)[1] or {"holdout_set_size": 0.33}),
            global_pruning=Choice.of("global_pruning", est.global_pruning),
            marginal_calibration=Choice.of("marginal_probability_calibration", est.marginal_probability_calibration),
            joint_calibration=Choice.of("joint_probability_calibration", est.joint_probability_calibration),
            default_rule=est.default_rule != "false", max_rules=int(est.max_rules), time_limit=int(est.time_limit),
            threads=refinement_threads(est.parallel_rule_refinement), feature_format=est.feature_format,
            random_state=est.random_state, regression=regression)

    # -- statistics ----------------------------------------------------------------------------------
    @property
    def single(self) -> bool:
        return self.head_kind == "single"

    @property
    def decomposable(self) -> bool:
        return is_decomposable(self.loss)

    @property
    def loss_code(self) -> int:
        return (REGRESSION_CODES if self.regression else LOSS_CODES)[self.loss]

    @property
    def dtype(self) -> type:
        return np.float32 if self.statistic_type == "32-bit" else np.float64

    def compact_statistics(self, n_examples: int, n_labels: int) -> bool:
        """Whether a fit keeps each example's Hessian as a diagonal plus rank one (O(K) numbers,
        :mod:`engine.core.examplewise_stats`) instead of packed (K(K+1)/2): complete, partial and binned
        heads of non-decomposable losses when the packed Hessians would take more than
        :data:`PACKED_STATISTICS_BUDGET` bytes.  Both give the same rules (up to the order of sums); below
        the budget the packed rows are faster to sum (20 labels, 10,000 examples, label binning, 300 rules:
        133 and 200 s packed against 158 and 228 s compact, same model, a loaded machine)."""
        if self.decomposable or self.single or self.regression:
            return False
        if self.label_binning_scope == "rule":  # the bins' projection reads the compact form
            return True
        itemsize = 4 if self.statistic_type == "32-bit" else 8
        return n_examples * n_hessian_entries(n_labels, False) * itemsize > PACKED_STATISTICS_BUDGET

    # -- heads ---------------------------------------------------------------------------------------
    def binned_head_params(self, K: int) -> np.ndarray:
        """The head parameters [n, threshold, exponent, B, bin_ratio, min_bins, max_bins] of label
        binning (B: the most bins of one sign)."""
        params = np.zeros(7)
        bins = self.label_binning.options
        if not bins:
            bins = {k: spec.default for k, spec in OPTIONS["label_binning"]["equal-width"].items()}
        params[4:] = bins["bin_ratio"], bins["min_bins"], bins["max_bins"]
        params[3] = side_bins(K, *params[4:])
        return params

    def head_mode(self, Y: np.ndarray) -> tuple[int, np.ndarray]:
        """The refinement kernels' head code and its parameters [n, threshold, exponent, B, bin_ratio,
        min_bins, max_bins].  Label binning bins the rules' heads of non-decomposable losses; with a
        decomposable loss only the default rule's head is binned (mlrl-boomer 0.15.6)."""
        K = Y.shape[1]
        kind = self.head_kind
        partial = kind in ("partial-fixed", "partial-dynamic")
        if self.label_binning_used and partial:
            # mlrl-boomer bins partial heads of every loss (rule_evaluation_*_partial_*_binned)
            mode, partial_params = self._partial_head(Y)
            binned = self.binned_head_params(K)
            binned[:3] = partial_params[:3]
            return (HEAD_BINNED_FIXED if mode == HEAD_PARTIAL_FIXED else HEAD_BINNED_DYNAMIC), binned
        if self.label_binning_used and not self.decomposable and kind == "complete":
            return HEAD_BINNED, self.binned_head_params(K)
        if kind == "single":
            largest = self.single_label_choice == "largest-score"
            return (HEAD_SINGLE_LARGEST_SCORE if largest else HEAD_SINGLE), np.zeros(7)
        if partial:
            return self._partial_head(Y)
        return HEAD_COMPLETE, np.zeros(7)

    def _partial_head(self, Y) -> tuple[int, np.ndarray]:
        """The head code and parameters of a partial head (without label binning)."""
        params = np.zeros(7)
        options = self.head.options
        if self.head_kind == "partial-fixed":
            params[0] = partial_fixed_size(Y.shape[1], self._partial_output_ratio(Y), options["min_outputs"],
                                           options["max_outputs"])
            return HEAD_PARTIAL_FIXED, params
        # both in single precision, as mlrl-boomer keeps them
        params[1], params[2] = float(np.float32(options["threshold"])), float(np.float32(options["exponent"]))
        return HEAD_PARTIAL_DYNAMIC, params

    def _partial_output_ratio(self, Y) -> np.float32:
        """``partial-fixed``'s output_ratio, or for 0 the average label cardinality over K, in single
        precision as mlrl-boomer 0.15.6's ``calculateOutputRatio`` (its ``calculateLabelCardinality``: an
        iterative mean over the rows)."""
        ratio = self.head.options.get("output_ratio", 0.0)
        if ratio > 0:
            return np.float32(ratio)
        if self.regression:  # mlrl-boomer's ratio for a regression matrix
            return np.float32(0.33)
        counts = np.asarray((Y != 0).sum(axis=1)).ravel()
        return np.float32(label_cardinality32(counts.astype(np.float32)) / np.float32(Y.shape[1]))

    # -- samples -------------------------------------------------------------------------------------
    def feature_sample(self, n_features: int) -> tuple[int, int]:
        """(attributes drawn per refinement step, the last attributes retained in every sample;
        :func:`engine.sampling.feature_sample_plan`); drawn is the count of all attributes without sampling."""
        sampling = self.feature_sampling
        if sampling.name == "none":
            return n_features, 0
        return feature_sample_plan(n_features, sampling["sample_size"], sampling["min_samples"],
                                   sampling["max_samples"], sampling.options.get("num_retained", 0))

    def n_sampled_features(self, n_features: int) -> int:
        """Attributes sampled per refinement step, the retained ones included (0: all, no sampling)."""
        drawn, retained = self.feature_sample(n_features)
        return 0 if drawn + retained >= n_features else drawn + retained

    def n_drawn(self, n_examples: int) -> int:
        """Examples in each rule's instance sample (0: no sampling)."""
        sampling = self.instance_sampling
        if sampling.name == "none":
            return 0
        return bounded_count(n_examples, sampling["sample_size"], sampling["min_samples"], sampling["max_samples"])

    # -- kernels -------------------------------------------------------------------------------------
    def feature_binning_kind(self, n_examples: int, sparse: bool) -> str:
        name = self.feature_binning.name
        if name == "auto":
            return "equal-width" if not sparse and n_examples > AUTO_BINNING_MIN_EXAMPLES else "none"
        return name

    def kernel_family(self, n_examples: int, n_features: int, n_labels: int) -> tuple:
        """The arguments of :func:`engine.core.boosting_step.boosting_kernel` (first step's sweep, fixed
        label's sweep, threaded, partial or binned heads, example-wise) for a fit on data of this size:
        only that family's kernels are compiled."""
        full = not self.decomposable
        single = self.single
        head_mode = self.head_mode(np.zeros((1, n_labels)))[0]
        full_refine = full and not single  # single-label heads refine on the Hessian's diagonal
        n_sample = self.n_sampled_features(n_features) or n_features
        first = first_step_family(head_mode, full_refine, self.l2, self.l1)
        threaded = self.threads != 1 and may_thread(
            n_examples, n_sample, n_labels, n_hessian_entries(n_labels, not full_refine), full_refine)
        if self.compact_statistics(n_examples, n_labels):
            first = "compact"  # the sweeps of engine.core.examplewise_stats
        return (first, fixed_label_family(single, n_examples), threaded, head_mode <= HEAD_PARTIAL_FIXED,
                self.prediction == "example-wise")


def _weight(value, regression: bool) -> float:
    """A regularization weight or the shrinkage as a fit uses it: mlrl-boomer's regressor keeps them in float32."""
    return float(np.float32(value)) if regression else float(value)


def training_prediction(loss: str, binary_predictor: str) -> str:
    """'label-wise' or 'example-wise': how the kernels and the tracked losses predict during training
    (the binary predictor's, or the loss's where that needs probabilities)."""
    mode = binary_mode(loss, binary_predictor)
    if mode == "probabilistic":
        return "label-wise" if is_decomposable(loss) else "example-wise"
    return mode


def refinement_threads(value) -> int:
    """Threads a refinement step may use by ``parallel_rule_refinement``: 1 ('false'), the preferred
    number, or 0 (every core Numba has)."""
    if value is None:
        return 0
    name, options = parse_option("parallel_rule_refinement", value)
    return 1 if name == "false" else options.get("num_preferred_threads", 0)
