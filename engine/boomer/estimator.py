"""BOOMER: gradient boosting of multi-label classification rules (Rapp et al. 2020, Alg. 1)."""
from __future__ import annotations

import functools
import math
import os
import time
import warnings
from types import SimpleNamespace
from typing import Callable, Iterator, Mapping

import numpy as np
import scipy.sparse as sp

from ..core.binning import METHOD_CODES, bin_keys
from ..core.boosting import add_head_scores, apply_head, covered_rows, head_on_rows, refresh_example_losses
from ..core.boosting_step import boosting_kernel, head_variant_on_rows
from ..core.examplewise_stats import (choose_bins, compact_apply_head, compact_boosting_kernel, compact_default_head,
                                     compact_rule_refinement, compact_update_statistics, compact_variant_on_rows,
                                     compact_width, project_onto_bins, sample_diagonal_sums)
from ..core.covered_entries import rank_entries
from ..core.features import build_feature_index
from ..core.refinement import (bagging_weights, first_step_family, fixed_label_family, may_thread, order_as_reference,
                              reference_sparse_format, rule_refinement, search_segments)
from ..core.sweep import search_keys
from ..core.head_variants import (HEAD_BINNED, HEAD_COMPLETE, HEAD_PARTIAL_DYNAMIC, HEAD_PARTIAL_FIXED, HEAD_SINGLE,
                                 HEAD_SINGLE_LARGEST_SCORE, HEAD_BINNED_DYNAMIC, HEAD_BINNED_FIXED,
                                 label_cardinality32, partial_fixed_size, side_bins)
from ..core.losses import LOSS_CODES, LOSSES, is_decomposable, n_hessian_entries, packed_index, update_statistics
from ..holdout import split_holdout
from ..learner import RuleLearner, RuleRecord, TrainingData, learned_rules
from ..model import RuleModel, rule_coverage
from ..options import OPTIONS, option_help, parse_option, value_names
from ..parameters import FROM_INIT, Parameter
from ..post_optimization import SequentialPostOptimization
from ..predictors import Predictors, binary_mode, fit_calibration, unique_rows
from ..pruning import make_pruning
from ..sampling import OutputSampler, bounded_count, feature_sample_plan, output_sample_statistics, weighted_draws
from ..rules import Rule
from ..tracking import LossTracker

HEAD_TYPES = value_names("head_type")
INSTANCE_SAMPLING = value_names("instance_sampling")
FEATURE_SAMPLING = value_names("feature_sampling")
OUTPUT_SAMPLING = value_names("output_sampling")
RULE_INDUCTION = value_names("rule_induction")
RULE_PRUNING = value_names("rule_pruning")
POST_OPTIMIZATION = value_names("post_optimization")
FEATURE_BINNING = value_names("feature_binning")
FORMATS = (None, "auto", "dense", "sparse")
LABEL_BINNING = value_names("label_binning")
HOLDOUT = value_names("holdout")
GLOBAL_PRUNING = value_names("global_pruning")
BINARY_PREDICTORS = value_names("binary_predictor")
PROBABILITY_PREDICTORS = value_names("probability_predictor")
CALIBRATIONS = value_names("marginal_probability_calibration")
STATISTIC_TYPES = ("32-bit", "64-bit")
_MAX_CONDITIONS_CAP = 256


# The loss whose statistics mlrl-boomer may keep sparse (then its 'auto' heads are single-label heads)
SPARSE_LOSSES = ("squared-hinge-decomposable",)


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


AUTO_BINNING_MIN_EXAMPLES = 200_000  # feature_binning='auto': equal-width bins above this many dense examples


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


# The settings of Rapp et al. (2020), Sec. 5: the estimator's defaults were these until mlrl-boomer
# 0.15.6's became them.  Bagging draws N examples per rule, log2 attributes per step, 64-bit
# statistics, single-label heads by the objective; loss and head type are each experiment's.
PAPER_2020 = {"max_rules": 1000, "shrinkage": 0.3, "l2_regularization_weight": 1.0, "l1_regularization_weight": 0.0,
              "instance_sampling": "with-replacement{sample_size=1.0}", "feature_sampling": "without-replacement",
              "rule_induction": "top-down-greedy", "max_conditions": None, "min_coverage": 1,
              "feature_binning": "none", "label_binning": "none", "holdout": "none", "global_pruning": "none",
              "statistic_type": "64-bit", "single_label_choice": "objective"}

# Bytes of packed per-example Hessians above which complete, partial and binned heads keep compact
# statistics instead (BoomerClassifier._compact_statistics)
PACKED_STATISTICS_BUDGET = 2**30

STOP_REASONS = ("max_rules", "no_refinement", "pre_pruning", "cancelled", "constant_attributes", "time_limit")
DEFAULT_RULE = ("auto", "true", "false")


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

SINGLE_LABEL_CHOICES = ("largest-score", "objective")
# when label binning chooses the bins of an example-wise loss's complete head while a rule is refined: for
# every candidate condition from its statistics (mlrl-boomer's), or once per rule from the rule's sample (ours)
LABEL_BINNING_SCOPES = ("condition", "rule")


def _on_preferred_threads(learn):
    """Run the generator method ``learn`` with Numba's thread count (of this thread) at the estimator's
    ``parallel_rule_refinement`` num_preferred_threads, when one is given, and restore it after."""
    @functools.wraps(learn)
    def wrapper(self, data):
        wanted = self._refinement_threads()
        if wanted <= 1:  # 0: every core (Numba's default), 1: the kernels are serial anyway
            yield from learn(self, data)
            return
        import numba

        before = numba.get_num_threads()
        numba.set_num_threads(min(wanted, numba.config.NUMBA_NUM_THREADS))
        try:
            yield from learn(self, data)
        finally:
            numba.set_num_threads(before)
    return wrapper


class BoomerClassifier(RuleLearner):
    """Gradient-boosted multi-label classification rules.

    Parameters, values and defaults are mlrl-boomer 0.15.6's (``BoomerClassifier()`` is its
    default model): label-wise logistic loss, 1000 rules (0: no limit), shrinkage 0.3, L2 weight
    1.0, no instance sampling, log2-sized attribute samples per refinement step, 32-bit statistics,
    ``head_type='auto'`` (complete heads), ``feature_binning``/``label_binning``/``holdout`` ``'auto'`` (see
    :func:`feature_binning_kind`, :func:`label_binning_kind`, :func:`holdout_kind`).  The paper's
    2020 settings are :data:`PAPER_2020` (:meth:`paper_2020`).  ``max_conditions`` (None: no limit)
    and ``min_coverage`` (the least number of sampled training examples a condition covers) are
    also options of ``rule_induction='top-down-greedy{...}'``, mlrl-boomer's spelling; set one or
    the other.  After a fit, ``stop_reason_`` says why training ended (:data:`STOP_REASONS`) and
    ``stop_message_`` explains it when that was before the budget.

    mlrl-boomer's scale settings take its values, options in braces included
    (``feature_binning='equal-frequency{bin_ratio=0.1}'``, see :mod:`engine.options`):
    ``feature_binning`` (:mod:`engine.core.binning`), ``label_binning`` (gradient-based label
    binning of complete and partial heads), ``head_type`` ``'partial-fixed'``/``'partial-dynamic'``,
    ``holdout`` (:mod:`engine.holdout`), ``global_pruning`` (:mod:`engine.pruning`; the model keeps
    ``selected_steps_`` rules) and ``statistic_type`` (gradients, Hessians and training scores in 32 or 64 bits).

    ``single_label_choice`` (an extension of ours) says which label a single-label head predicts.
    ``'largest-score'`` (the default) is what mlrl-boomer 0.15.6 does (found by reproducing its rules
    condition by condition): for each candidate condition the label with the largest absolute score,
    and conditions are ranked by that label's objective.  ``'objective'`` is the paper's: the label
    whose optimal score lowers the objective most (Alg. 2 line 5, eq. 17), so conditions and labels
    are chosen together by the objective.
    """

    LEARNER_NAME = "boomer"
    SAMPLE_WEIGHTS = True  # engine.sampling: they weigh the draws of instance_sampling='with-replacement'
    ORDINAL_ATTRIBUTES = True  # engine.ordinal: fit(..., ordinal_feature_indices=...)

    PARAMETERS = (
            Parameter("loss", "choice", FROM_INIT, "Loss", "label-wise (decomposable) or example-wise",
                      choices=LOSSES),
            Parameter("head_type", "option", FROM_INIT, "Head", "single label, all labels, some labels (partial), or "
                      "auto (complete, as mlrl-boomer with dense statistics)" + option_help("head_type"),
                      choices=HEAD_TYPES),
            Parameter("single_label_choice", "choice", FROM_INIT, "Single label", "the label a single-label head "
                      "predicts: the one with the largest absolute score (largest-score, as mlrl-boomer 0.15 "
                      "does) or the one that lowers the objective most (objective, the paper's)",
                      choices=SINGLE_LABEL_CHOICES, applies=_single_heads),
            Parameter("max_rules", "int", FROM_INIT, "Rules", "number of rules including the default rule; 0: no "
                      "limit", minimum=0, maximum=2**31 - 1),
            Parameter("shrinkage", "float", FROM_INIT, "Shrinkage η", "learning rate in (0, 1]", minimum=0.0, maximum=1.0,
                      low_open=True),
            Parameter("l2_regularization_weight", "float", FROM_INIT, "L2 weight λ", "eq. 15", minimum=0.0),
            Parameter("l1_regularization_weight", "float", FROM_INIT, "L1 weight α", "mlrl-boomer's L1 term: "
                      "a label's score -(g + α sign g) / (h + λ) where |g| > α, else -g / (h + λ); full "
                      "systems are solved for g - α sign g where |g| > α", minimum=0.0),
            Parameter("instance_sampling", "option", FROM_INIT, "Instance sampling", "examples each rule is "
                      "learned on: ceil(sample_size x N) drawn with replacement (bagging; the paper: N), a subset "
                      "without replacement, or one stratified by labels" + option_help("instance_sampling"),
                      choices=INSTANCE_SAMPLING),
            Parameter("feature_sampling", "option", FROM_INIT, "Feature sampling", "attributes per refinement "
                      "step: sample_size 0 is log2 of them (Alg. 3)" + option_help("feature_sampling"),
                      choices=FEATURE_SAMPLING),
            Parameter("output_sampling", "option", FROM_INIT, "Output sampling", "labels each rule's head may "
                      "predict: a sample per rule (without-replacement), or one label after the other (round-robin)"
                      + option_help("output_sampling"), choices=OUTPUT_SAMPLING, shown=False),
            Parameter("rule_induction", "option", FROM_INIT, "Rule induction", "top-down search of a rule: greedy, "
                      "or a beam of beam_width rules; max_head_refinements: conditions after which the head's labels "
                      "are fixed (0: never)" + option_help("rule_induction"), choices=RULE_INDUCTION),
            Parameter("rule_pruning", "option", FROM_INIT, "Rule pruning", "irep: drop a rule's trailing conditions "
                      "that do not help on the training examples out of its instance sample (needs instance "
                      "sampling; without it nothing is pruned)", choices=RULE_PRUNING, shown=False),
            Parameter("post_optimization", "option", FROM_INIT, "Post-optimization", "sequential: after training, "
                      "relearn each rule in the context of the others, num_iterations times; refine_heads: the "
                      "new head may choose other outputs; resample_features: sample attributes as in training "
                      "(else only the rule's own)" + option_help("post_optimization"), choices=POST_OPTIMIZATION),
            Parameter("max_conditions", "int", FROM_INIT, "Max conditions", "empty = no limit (also "
                      "rule_induction's max_conditions)", minimum=1, optional=True),
            Parameter("min_coverage", "int", FROM_INIT, "Min coverage", "examples a condition must cover (also "
                      "rule_induction's min_coverage)", minimum=1),
            Parameter("feature_binning", "option", FROM_INIT, "Feature binning", "split only between bins of each "
                      "attribute's values" + option_help("feature_binning"), choices=FEATURE_BINNING),
            Parameter("label_binning", "option", FROM_INIT, "Label binning", "complete and partial heads: labels "
                      "with similar gradient/Hessian ratios share one score (GBLB); 'auto' bins those of example-wise "
                      "(non-decomposable) losses, whose K x K solve it replaces" + option_help("label_binning"),
                      choices=LABEL_BINNING, applies=_label_binning_applies),
            Parameter("label_binning_scope", "choice", FROM_INIT, "Label bins chosen", "example-wise loss with "
                      "label binning: the bins of every candidate condition (condition, mlrl-boomer's: O(K^2) per "
                      "example and threshold), or the bins of each rule, chosen once from its sample (rule, ours: "
                      "O(B^2) with B bins; for many labels)", choices=LABEL_BINNING_SCOPES,
                      applies=_label_binning_applies),
            Parameter("holdout", "option", FROM_INIT, "Holdout set", "training examples set aside to watch the loss "
                      "(for global pruning; auto: 33 % stratified output-wise when pruning uses one)"
                      + option_help("holdout"), choices=HOLDOUT),
            Parameter("global_pruning", "option", FROM_INIT, "Global pruning", "early stopping (pre) or keep the best "
                      "prefix (post), by the holdout loss" + option_help("global_pruning"), choices=GLOBAL_PRUNING),
            Parameter("binary_predictor", "option", FROM_INIT, "Binary predictor", "how scores become predictions: "
                      "score > 0 per label (output-wise), the nearest known label vector (example-wise, eq. 19), "
                      "the F-measure maximizer (gfm); auto: output-wise for label-wise losses, else example-wise"
                      + option_help("binary_predictor"), choices=BINARY_PREDICTORS, shown=False),
            Parameter("probability_predictor", "option", FROM_INIT, "Probability predictor", "predict_proba: the "
                      "logistic function per label (output-wise) or the label's share of the known label vectors' "
                      "joint probabilities (marginalized); auto: output-wise for label-wise losses"
                      + option_help("probability_predictor"), choices=PROBABILITY_PREDICTORS, shown=False),
            Parameter("marginal_probability_calibration", "option", FROM_INIT, "Marginal calibration", "isotonic "
                      "calibration of each label's probability, fitted on the holdout set (else the training set)"
                      + option_help("marginal_probability_calibration"), choices=CALIBRATIONS, shown=False),
            Parameter("joint_probability_calibration", "option", FROM_INIT, "Joint calibration", "isotonic "
                      "calibration of each known label vector's joint probability, fitted like the marginal one"
                      + option_help("joint_probability_calibration"), choices=CALIBRATIONS, shown=False),
            Parameter("default_rule", "choice", FROM_INIT, "Default rule", "whether training starts with a rule "
                      "covering every example (auto: yes, with dense statistics); max_rules counts it",
                      choices=DEFAULT_RULE, shown=False),
            Parameter("time_limit", "int", FROM_INIT, "Time limit (s)", "seconds after which no further rule is "
                      "started (0: no limit; the clock starts after the default rule)", minimum=0,
                      maximum=2**31 - 1, shown=False),
            Parameter("statistic_type", "choice", FROM_INIT, "Statistics",
                      "gradients, Hessians and training scores in 32 or 64 bits", choices=STATISTIC_TYPES),
            Parameter("random_state", "seed", FROM_INIT, "Seed", "same seed, same rules", minimum=0, maximum=2**32 - 1),
            Parameter("feature_format", "choice", FROM_INIT, "Feature format", "mlrl-boomer's feature format: "
                      "sparse input is searched with its zeros implicit (sparse; auto or empty: when sparse is "
                      "smaller), or as stored values (dense), as there; ours keeps the data as given",
                      choices=FORMATS, shown=False),
            *(Parameter(name, "choice", FROM_INIT, label, f"mlrl-boomer's {what} format (ours stores the data as "
                        "given; no effect on the model)", choices=FORMATS, shown=False)
              for name, label, what in (("output_format", "Output format", "label"),
                                        ("statistic_format", "Statistic format", "statistics"))),
            Parameter("prediction_format", "choice", FROM_INIT, "Prediction format", "sparse: predict returns a "
                      "SciPy CSR array; auto (or empty): when the training labels were sparse and sparse is "
                      "smaller", choices=FORMATS, shown=False),
            *(Parameter(name, "option", FROM_INIT, label, help_text + option_help(name), choices=value_names(name),
                        optional=True, shown=False)
              for name, label, help_text in (
                  ("parallel_rule_refinement", "Parallel refinement", "false: every refinement step on one thread; "
                   "true (or empty): large steps threaded, on num_preferred_threads threads (0: every core); "
                   "no effect on the model"),
                  ("parallel_statistic_update", "Parallel update", "accepted; ours updates the statistics "
                   "vectorised on one thread"),
                  ("parallel_prediction", "Parallel prediction", "accepted; ours predicts vectorised on one "
                   "thread"))),
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
        n_sample = self._n_sampled_features(n_features) or n_features
        first = first_step_family(head_mode, full_refine, float(self.l2_regularization_weight),
                                  float(self.l1_regularization_weight))
        threaded = self._refinement_threads() != 1 and may_thread(
            n_examples, n_sample, n_labels, n_hessian_entries(n_labels, not full_refine), full_refine)
        if self._compact_statistics(n_examples, n_labels):
            first = "compact"  # the sweeps of engine.core.examplewise_stats
        return (first, fixed_label_family(single, n_examples), threaded, head_mode <= HEAD_PARTIAL_FIXED,
                self.prediction == "example-wise")

    def _compact_statistics(self, n_examples: int, n_labels: int) -> bool:
        """Whether a fit keeps each example's Hessian as a diagonal plus rank one (O(K) numbers,
        :mod:`engine.core.examplewise_stats`) instead of packed (K(K+1)/2): complete, partial and binned
        heads of non-decomposable losses when the packed Hessians would take more than
        :data:`PACKED_STATISTICS_BUDGET` bytes.  Both give the same rules (up to the order of sums); below
        the budget the packed rows are faster to sum (20 labels, 10,000 examples, label binning, 300 rules:
        133 and 200 s packed against 158 and 228 s compact, same model, a loaded machine)."""
        if is_decomposable(self.loss) or self.single_head:
            return False
        if self.label_binning_scope == "rule":  # the bins' projection reads the compact form
            return True
        itemsize = 4 if self.statistic_type == "32-bit" else 8
        return n_examples * n_hessian_entries(n_labels, False) * itemsize > PACKED_STATISTICS_BUDGET

    def kernel_setting(self, profile: Mapping) -> str:
        """The key of the kernels a fit on data of ``profile`` (:func:`engine.prepare.data_profile`)
        compiles: the refinement family, the loss, the statistics' type and the optional parts."""
        family = self._kernel_family(profile["n_examples"], profile["n_features"], profile["n_labels"])
        optional = [feature_binning_kind(self.feature_binning, profile["n_examples"], profile["sparse"]) != "none",
                    self._holdout_kind() != "none",
                    parse_option("global_pruning", self.global_pruning)[0] != "none",
                    self._inducer() is not None]  # engine.core.induction's kernels
        return "boomer|" + "|".join(str(v) for v in (*family, self.loss, self.statistic_type, self.prediction,
                                                     profile["sparse"], *optional))

    def __init__(self, loss="logistic-decomposable", head_type="auto", single_label_choice="largest-score",
                 max_rules=1000, shrinkage=0.3,
                 l2_regularization_weight=1.0, l1_regularization_weight=0.0,
                 instance_sampling="none", feature_sampling="without-replacement", output_sampling="none",
                 rule_induction="top-down-greedy", rule_pruning="none", post_optimization="none",
                 max_conditions=None, min_coverage=1, feature_binning="auto", label_binning="auto",
                 label_binning_scope="condition", holdout="auto", global_pruning="none", binary_predictor="auto",
                 probability_predictor="auto",
                 marginal_probability_calibration="none", joint_probability_calibration="none",
                 default_rule="auto", time_limit=0, statistic_type="32-bit", random_state=1,
                 feature_format=None, output_format=None, prediction_format=None, statistic_format=None,
                 parallel_rule_refinement=None, parallel_statistic_update=None, parallel_prediction=None):
        self.loss = loss
        self.head_type = head_type
        self.single_label_choice = single_label_choice
        self.max_rules = max_rules
        self.shrinkage = shrinkage
        self.l2_regularization_weight = l2_regularization_weight
        self.l1_regularization_weight = l1_regularization_weight
        self.instance_sampling = instance_sampling
        self.feature_sampling = feature_sampling
        self.output_sampling = output_sampling
        self.rule_induction = rule_induction
        self.rule_pruning = rule_pruning
        self.post_optimization = post_optimization
        self.max_conditions = max_conditions
        self.min_coverage = min_coverage
        self.feature_binning = feature_binning
        self.label_binning = label_binning
        self.label_binning_scope = label_binning_scope
        self.holdout = holdout
        self.global_pruning = global_pruning
        self.binary_predictor = binary_predictor
        self.probability_predictor = probability_predictor
        self.marginal_probability_calibration = marginal_probability_calibration
        self.joint_probability_calibration = joint_probability_calibration
        self.default_rule = default_rule
        self.time_limit = time_limit
        self.statistic_type = statistic_type
        self.random_state = random_state
        self.feature_format = feature_format
        self.output_format = output_format
        self.prediction_format = prediction_format
        self.statistic_format = statistic_format
        self.parallel_rule_refinement = parallel_rule_refinement
        self.parallel_statistic_update = parallel_statistic_update
        self.parallel_prediction = parallel_prediction

    # -- parameters ------------------------------------------------------------------------
    @classmethod
    def paper_2020(cls, loss="logistic-decomposable", head_type="single", **overrides) -> "BoomerClassifier":
        """The estimator with the settings of Rapp et al. (2020) (:data:`PAPER_2020`)."""
        return cls(**{**PAPER_2020, "loss": loss, "head_type": head_type, **overrides})

    def _check_combination(self) -> None:
        for name in ("instance_sampling", "feature_sampling", "output_sampling"):
            _, options = parse_option(name, getattr(self, name))
            if options.get("max_samples") and options["max_samples"] < options["min_samples"]:
                raise ValueError(f"{name} option max_samples must be 0 or at least min_samples "
                                 f"({options['min_samples']}), got {options['max_samples']}")
        _, head_options = parse_option("head_type", self.head_type)
        if head_options.get("max_outputs") and head_options["max_outputs"] < head_options["min_outputs"]:
            raise ValueError("head_type option max_outputs must be 0 or at least min_outputs "
                             f"({head_options['min_outputs']}), got {head_options['max_outputs']}")
        inducer = self._inducer()  # checks rule_induction and rule_pruning
        if inducer is not None and parse_option("output_sampling", self.output_sampling)[0] != "none":
            raise ValueError("output_sampling works with the default greedy rule induction only here (not with "
                             f"rule_induction={self.rule_induction!r}, rule_pruning={self.rule_pruning!r}); set "
                             "output_sampling='none' or the defaults of the other two")
        if self.label_binning_scope == "rule":
            self._check_rule_scope(inducer)
        given = _explicit_options(self.rule_induction)
        for name, default in (("max_conditions", None), ("min_coverage", 1)):
            if name in given and getattr(self, name) != default:
                raise ValueError(f"{name} is set twice (the parameter and rule_induction's option); set one")

    def _check_rule_scope(self, inducer) -> None:
        """``label_binning_scope='rule'`` bins the complete heads of an example-wise loss, searched by the
        default greedy induction: anything else is refused before the fit starts."""
        problem = None
        if is_decomposable(self.loss):
            problem = f"an example-wise (non-decomposable) loss, not {self.loss!r}"
        elif self.head_kind != "complete" or not self.label_binning_used:
            problem = (f"complete heads with label binning (head_type={self.head_type!r}, "
                       f"label_binning={self.label_binning!r} give none)")
        elif float(self.l1_regularization_weight) != 0.0:
            problem = "no L1 regularization (l1_regularization_weight=0)"
        elif inducer is not None:
            problem = "the default rule_induction and rule_pruning"
        elif parse_option("output_sampling", self.output_sampling)[0] != "none":
            problem = "output_sampling='none'"
        elif SequentialPostOptimization.of(self.post_optimization) is not None:
            problem = "post_optimization='none'"
        if problem is not None:
            raise ValueError(f"label_binning_scope='rule' needs {problem}")

    def _induction(self) -> tuple[int, int, float]:
        """(max_conditions (0: no limit), min_coverage, min_support) from ``rule_induction`` and the
        top-level parameters."""
        _, options = parse_option("rule_induction", self.rule_induction)
        given = _explicit_options(self.rule_induction)
        max_conditions = options["max_conditions"] if "max_conditions" in given else (self.max_conditions or 0)
        min_coverage = options["min_coverage"] if "min_coverage" in given else int(self.min_coverage)
        return int(max_conditions), int(min_coverage), float(options["min_support"])

    def _inducer(self) -> "RuleInducer | None":
        """The rule induction of :mod:`engine.core.induction`, or None for the default greedy kernel
        (imported here: the default path does not load it)."""
        from ..core.induction import Induction, RuleInducer

        name, options = parse_option("rule_induction", self.rule_induction)
        irep = parse_option("rule_pruning", self.rule_pruning)[0] == "irep"
        beam = name == "top-down-beam-search"
        if beam and (self._induction()[0] == 1):
            raise ValueError("max_conditions of top-down-beam-search must be 0 (no limit) or at least 2, got 1")
        if not (beam or irep or options["max_head_refinements"] != 1 or not options["recalculate_predictions"]):
            return None
        return RuleInducer(Induction(options["beam_width"] if beam else 1, beam and options["resample_features"],
                                     options["max_head_refinements"], options["recalculate_predictions"], irep))

    def _n_sampled_features(self, n_features: int) -> int:
        """Attributes sampled per refinement step, the retained ones included (0: all, no sampling)."""
        drawn, retained = self._feature_sample(n_features)
        return 0 if drawn + retained >= n_features else drawn + retained

    def _feature_sample(self, n_features: int) -> tuple[int, int]:
        """(attributes drawn per refinement step, the last attributes retained in every sample;
        :func:`engine.sampling.feature_sample_plan`); drawn is the count of all attributes without sampling."""
        name, options = parse_option("feature_sampling", self.feature_sampling)
        if name == "none":
            return n_features, 0
        return feature_sample_plan(n_features, options["sample_size"], options["min_samples"],
                                   options["max_samples"], options.get("num_retained", 0))

    @property
    def head_kind(self) -> str:
        """'single', 'complete', 'partial-fixed' or 'partial-dynamic' ('auto' resolved)."""
        return head_kind(self.loss, self.head_type)

    @property
    def label_binning_used(self) -> bool:
        """Whether complete heads are learned with gradient-based label binning ('auto' resolved)."""
        return label_binning_kind(self.loss, self.head_type, self.label_binning) != "none"

    @property
    def single_head(self) -> bool:
        return self.head_kind == "single"

    def _binned_head_params(self, K: int) -> np.ndarray:
        """The head parameters [n, threshold, exponent, B, bin_ratio, min_bins, max_bins] of label
        binning (B: the most bins of one sign)."""
        params = np.zeros(7)
        _, bins = parse_option("label_binning", self.label_binning)
        if not bins:
            bins = {k: spec.default for k, spec in OPTIONS["label_binning"]["equal-width"].items()}
        params[4:] = bins["bin_ratio"], bins["min_bins"], bins["max_bins"]
        params[3] = side_bins(K, *params[4:])
        return params

    def _head_mode(self, Y: np.ndarray) -> tuple[int, np.ndarray]:
        """The refinement kernels' head code and its parameters [n, threshold, exponent, B, bin_ratio,
        min_bins, max_bins].  Label binning bins the rules' heads of non-decomposable losses; with a
        decomposable loss only the default rule's head is binned (mlrl-boomer 0.15.6)."""
        K = Y.shape[1]
        params = np.zeros(7)
        _, options = parse_option("head_type", self.head_type)
        kind = self.head_kind
        if self.label_binning_used and kind in ("partial-fixed", "partial-dynamic"):
            # mlrl-boomer bins partial heads of every loss (rule_evaluation_*_partial_*_binned)
            mode, partial = self._partial_head(Y, options, kind)
            binned = self._binned_head_params(K)
            binned[:3] = partial[:3]
            return (HEAD_BINNED_FIXED if mode == HEAD_PARTIAL_FIXED else HEAD_BINNED_DYNAMIC), binned
        if self.label_binning_used and not is_decomposable(self.loss) and kind == "complete":
            return HEAD_BINNED, self._binned_head_params(K)
        if kind == "single":
            return (HEAD_SINGLE_LARGEST_SCORE if self.single_label_choice == "largest-score" else HEAD_SINGLE), params
        if kind in ("partial-fixed", "partial-dynamic"):
            return self._partial_head(Y, options, kind)
        return HEAD_COMPLETE, params

    def _partial_head(self, Y, options, kind: str) -> tuple[int, np.ndarray]:
        """The head code and parameters of a partial head (without label binning)."""
        params = np.zeros(7)
        if kind == "partial-fixed":
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
        ratio = parse_option("head_type", self.head_type)[1].get("output_ratio", 0.0)
        if ratio > 0:
            return np.float32(ratio)
        counts = np.asarray((Y != 0).sum(axis=1)).ravel()
        return np.float32(label_cardinality32(counts.astype(np.float32)) / np.float32(Y.shape[1]))

    @property
    def prediction(self) -> str:
        """'label-wise' or 'example-wise': how the kernels and the tracked losses predict during
        training (the binary predictor's, or the loss's where that needs probabilities)."""
        mode = binary_mode(self.loss, self.binary_predictor)
        if mode == "probabilistic":
            return "label-wise" if is_decomposable(self.loss) else "example-wise"
        return mode

    def _holdout_kind(self) -> str:
        return holdout_kind(self.holdout, self.global_pruning, self.marginal_probability_calibration,
                            self.joint_probability_calibration)

    def fit(self, X, y, sample_weight=None, **kwargs):
        """Train on ``X``, ``y`` (labels as :meth:`fit_iter` takes them).  ``sample_weight``: one
        weight >= 0 per example; as in mlrl-boomer 0.15.6 it weighs the draws of
        ``instance_sampling='with-replacement'`` and changes nothing else (:mod:`engine.sampling`)."""
        self._check_params()
        sparse_predictions = self._sparse_predictions(y)
        fitted = super().fit(X, y, sample_weight=sample_weight, **kwargs)
        self.sparse_predictions_ = sparse_predictions
        return fitted

    def _refinement_threads(self) -> int:
        """Threads a refinement step may use by ``parallel_rule_refinement``: 1 ('false'), the preferred
        number, or 0 (every core Numba has)."""
        if self.parallel_rule_refinement is None:
            return 0
        name, options = parse_option("parallel_rule_refinement", self.parallel_rule_refinement)
        return 1 if name == "false" else options.get("num_preferred_threads", 0)

    def _sparse_predictions(self, y) -> bool:
        """``prediction_format``: 'sparse' always, 'dense' never, else (None, 'auto') when the training
        labels came as a SciPy sparse matrix that takes less memory than a dense one, as mlrl-boomer
        decides (4-byte indices, values not stored, against one byte per entry)."""
        if self.prediction_format in ("sparse", "dense"):
            return self.prediction_format == "sparse"
        if not sp.issparse(y) or y.ndim != 2:
            return False
        return 4 * (int(y.nnz) + y.shape[0]) < y.shape[0] * y.shape[1]

    def predict(self, X):
        """Binary predictions (see ``binary_predictor``), a SciPy CSR array where ``prediction_format``
        asks for sparse predictions (:meth:`_sparse_predictions`)."""
        P = super().predict(X)
        if getattr(self, "sparse_predictions_", False) and isinstance(P, np.ndarray) and P.ndim == 2:
            return sp.csr_array(P)
        return P

    def predict_proba(self, X) -> np.ndarray:
        """Marginal probabilities by ``probability_predictor`` (AttributeError for a loss without
        probabilities); a single label gives the two columns P(absent), P(present), as mlrl-boomer
        and scikit-learn's binary classifiers do."""
        P = super().predict_proba(X)
        return np.hstack([1.0 - P, P]) if P.ndim == 2 and P.shape[1] == 1 else P

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        predictors = Predictors.of(self.loss, self.binary_predictor, self.probability_predictor, data.Y)
        vectors = predictors.vectors if self.prediction == "example-wise" else None
        model = RuleModel(list(rules), data.X.shape[1], data.Y.shape[1], self.prediction, self.loss,
                          vectors, data.schema, data.nominal, predictors=predictors)
        if rules:
            self._calibrate(model, data)
        return model

    def _calibrate(self, model: RuleModel, data: TrainingData) -> None:
        """Fit the isotonic calibrations after training, on the holdout set when one was made and
        the calibration uses it (``use_holdout_set``), else on the training examples.  mlrl-boomer
        0.15.6 fits both from its statistics' scores, in the statistics' precision, and these hold
        every rule learned: with global pruning the rules the model drops count too."""
        marginal, m_options = parse_option("marginal_probability_calibration", self.marginal_probability_calibration)
        joint, j_options = parse_option("joint_probability_calibration", self.joint_probability_calibration)
        if marginal == "none" and joint == "none":
            return
        holdout = getattr(self, "holdout_indices_", None)
        everything = np.arange(data.Y.shape[0])

        def rows(name, options):
            if name == "none":
                return None
            if holdout is None:
                return everything
            return holdout if options["use_holdout_set"] else np.setdiff1d(everything, holdout)

        learned = learned_rules(getattr(self, "records_", []))  # as post-optimization revised them
        if len(learned) > len(model.rules):  # global pruning kept a prefix
            model = RuleModel(learned, model.n_features, model.n_labels, predictors=model.predictors)
        F = model.scores(data.X) if self.statistic_type == "64-bit" else _float32_scores(model, data.X)
        fit_calibration(model.predictors, F, data.Y, rows(marginal, m_options), rows(joint, j_options))

    # -- Alg. 1 ----------------------------------------------------------------------------
    @_on_preferred_threads
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        rng = np.random.default_rng(self.random_state)
        X, Y = data.X, data.Y
        sample_weight = data.sample_weight
        watched = None
        self.holdout_indices_ = None  # training examples set aside as the holdout set
        holdout_name, holdout_options = parse_option("holdout", self.holdout)
        holdout_name = self._holdout_kind()
        if holdout_name != "none":
            holdout_options = holdout_options or {"holdout_set_size": 0.33}
            train_rows, holdout_rows = split_holdout(Y, holdout_name, holdout_options["holdout_set_size"],
                                                     int(rng.integers(2**63 - 1)))
            self.holdout_indices_ = holdout_rows
            if sample_weight is not None:
                sample_weight = sample_weight[train_rows]
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
        self.label_vectors_ = unique_rows(Y) if self.prediction == "example-wise" else None

        index = build_feature_index(X, data.nominal)
        self.stop_reason_, self.stop_message_ = "max_rules", ""
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: only the default rule is learned",
                          RuntimeWarning, stacklevel=3)
        keys = search_keys(index.ptr, index.values)  # mlrl-boomer splits only values that differ in float32
        binning_options = parse_option("feature_binning", self.feature_binning)[1]
        binning = feature_binning_kind(self.feature_binning, n, sp.issparse(X))
        if binning != "none":
            binning_options = binning_options or {k: spec.default for k, spec in OPTIONS["feature_binning"][binning].items()}
            keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                            METHOD_CODES[binning], binning_options["bin_ratio"], binning_options["min_bins"],
                            binning_options["max_bins"])
        F = np.zeros((n, K), dtype=dtype)  # scores in the statistics' type, as mlrl-boomer keeps them
        G = np.empty((n, K), dtype=dtype)
        compact = self._compact_statistics(n, K)
        post = SequentialPostOptimization.of(self.post_optimization)  # None: 'none'
        if post is not None and compact:
            raise ValueError(f"post_optimization={self.post_optimization!r} needs the packed statistics, more than "
                             "this fit's budget here; use post_optimization='none'")
        _check_statistics_memory(n, K, full_hessian, np.dtype(dtype).itemsize, compact,
                                 self._n_sampled_features(index.n_features) or index.n_features)
        all_rows = np.arange(n, dtype=np.int64)
        if compact:  # H holds each example's Hessian as a diagonal plus rank one (engine.core.examplewise_stats)
            H = np.empty((n, compact_width(K)), dtype=dtype)
            compact_update_statistics(loss, Y, F, all_rows, n, G, H)
        else:
            H = np.empty((n, n_hessian_entries(K, not full_hessian)), dtype=dtype)
            update_statistics(loss, Y, F, all_rows, n, G, H)
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
        stop = False
        if self.default_rule != "false":  # 'auto' is true with dense statistics (mlrl-boomer 0.15.6)
            head = np.empty(K)
            labels = np.arange(K, dtype=np.int64)
            if self.label_binning_used:  # mlrl-boomer's default rule has the label binning's complete head
                (compact_variant_on_rows if compact else head_variant_on_rows)(
                    G, H, all_rows, n, full_hessian, HEAD_BINNED, self._binned_head_params(K), l2, l1, 1.0, labels,
                    head)
            elif compact:
                compact_default_head(G, H, l2, l1, head)
            else:
                head_on_rows(G, H, all_rows, n, full_hessian, -1, l2, l1, 1.0, head)
            record, stop = self._add(Rule((), labels, head.copy(), data.schema), all_rows, n, loss, Y, F, G, H,
                                     labels, head, train, val, monitor, data, math.nan, compact)
            yield record

        # Single-label heads use only the Hessian's diagonal (eq. 17): refine on a compact copy.
        diagonal = None
        H_refine, full_refine = H, full_hessian
        if single and full_hessian:
            diagonal = np.array([packed_index(k, k, K) for k in range(K)], dtype=np.int64)
            H_refine, full_refine = np.ascontiguousarray(H[:, diagonal]), False

        n_sample = self._n_sampled_features(index.n_features)
        max_conditions, min_coverage, min_support = self._induction()
        min_coverage = max(min_coverage, int(math.ceil(min_support * n - 1e-9)))
        max_conditions = max_conditions or _MAX_CONDITIONS_CAP
        # the attributes in sampling order: mlrl-boomer's retained ones (the last num_retained) first, in every
        # sample; the random state's second entry says how many (engine.core.refinement.sample_features)
        retained = self._feature_sample(index.n_features)[1] if n_sample else 0
        perm = np.roll(np.arange(index.n_features, dtype=np.int64), retained)
        covered = np.empty(n, dtype=np.uint8)
        rows = np.empty(n, dtype=np.int64)
        attrs = np.empty(max_conditions, dtype=np.int64)
        ops = np.empty(max_conditions, dtype=np.int64)
        thrs = np.empty(max_conditions, dtype=np.float64)
        head = np.empty(K)
        # float64 like the weighted draws of sample weights: one compiled kernel serves both
        weights = np.ones(n, dtype=np.float64)
        sampling, sampling_options = parse_option("instance_sampling", self.instance_sampling)
        n_drawn = 0 if sampling == "none" else bounded_count(
            n, sampling_options["sample_size"], sampling_options["min_samples"], sampling_options["max_samples"])
        # draws per rule with replacement, in the kernel (0: none, or the weights set here per rule)
        bagging = n_drawn if sampling == "with-replacement" else 0
        drawn_weights = None  # weighted draws (engine.sampling): drawn here, the kernel takes them as given
        if bagging and sample_weight is not None:
            drawn_weights, bagging = np.zeros(n, dtype=np.float64), 0
        outputs = OutputSampler(*parse_option("output_sampling", self.output_sampling), K)
        if outputs.active and compact:
            raise ValueError("output_sampling is not supported with compact example-wise statistics (packed "
                             f"Hessians above {PACKED_STATISTICS_BUDGET / 2**30:g} GiB); use fewer labels or examples")
        subset = sampling in ("without-replacement", "stratified-output-wise", "stratified-example-wise")
        diagonal_columns = np.empty(0, dtype=np.int64) if diagonal is None else diagonal
        vector_index = train.kernel_vectors()
        head_labels = np.empty(K, dtype=np.int64)
        # the covered entries of each attribute, compacted as a rule's refinement walks it
        cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
        seg = search_segments(index, reference_sparse_format(X, self.feature_format), binning != "none",
                              data.ordinal)
        order_as_reference(index, seg)
        ranks = rank_entries(index, seg)  # each example's entry of the dense attributes (.core.covered_entries)
        head_mode, head_params = self._head_mode(data.Y)  # the label cardinality of every training example
        seeds = _RuleSeeds(rng)
        rng_state = np.array([0, retained], dtype=np.uint64)
        family = self._kernel_family(n, index.n_features, K)
        boost_one_rule = (compact_boosting_kernel if compact else boosting_kernel)(*family)
        inducer = self._inducer()
        if inducer is not None:  # beam search, head refinements, IREP: engine.core.induction
            if compact:
                raise ValueError(f"{self.rule_induction!r} with rule_pruning={self.rule_pruning!r} needs the packed "
                                 "statistics, more than this fit's budget here; use the default rule induction")
            boost_one_rule = inducer
        rule_bins = self.label_binning_scope == "rule"  # the bins of each rule chosen once (_rule_on_label_bins)
        t = 0
        budget = self.max_rules - (self.default_rule != "false")  # max_rules counts the default rule
        started = time.monotonic()  # time_limit: mlrl-boomer starts the clock after the default rule
        while self.max_rules == 0 or t < budget:
            t += 1
            if self.time_limit and time.monotonic() - started >= self.time_limit:
                self.stop_reason_ = "time_limit"
                self.stop_message_ = (f"the time limit of {self.time_limit} s stopped training after "
                                      f"{len(self.records_)} rules")
                break
            if stop:
                self.stop_reason_ = "pre_pruning"
                self.stop_message_ = (f"global pre-pruning stopped training after {len(self.records_)} rules: the "
                                      "watched loss no longer improved enough")
                break
            rng_state[0] = seeds.next()
            if subset:
                _subset_weights(weights, Y, sampling, n_drawn, rng_state[0])
            if drawn_weights is not None:
                weighted_draws(drawn_weights, n_drawn, rng_state, sample_weight)
            sampled = outputs.next(rng_state[0])
            if sampled is not None or rule_bins:  # a rule learned outside the fused kernel
                step_weights = weights if drawn_weights is None else drawn_weights
                if sampled is not None:
                    record, stop, n_cond = self._output_sampled_rule(
                        sampled, index, keys, cache, seg, ranks, loss, Y, F, G, H, H_refine, diagonal, single,
                        full_refine, family, head_mode, head_params, step_weights, bagging, l2, l1, eta, n_sample,
                        max_conditions, min_coverage, rng_state, perm, covered, rows, attrs, ops, thrs, train, val,
                        monitor, data, X)
                    objective = "the sampled outputs"
                else:
                    record, stop, n_cond = self._rule_on_label_bins(
                        index, keys, cache, seg, ranks, loss, Y, F, G, H, family, head_params, step_weights,
                        bagging, l2, l1, eta, n_sample, max_conditions, min_coverage, rng_state, perm, covered, rows,
                        attrs, ops, thrs, train, val, monitor, data, X)
                    objective = "the rule's label bins"
                if data.cancelled:
                    self.stop_reason_, self.stop_message_ = "cancelled", "training was cancelled"
                    break
                if n_cond == 0:
                    self.stop_reason_ = "no_refinement"
                    self.stop_message_ = (f"training ended after {len(self.records_)} of "
                                          f"{self.max_rules or 'unlimited'} rules: no condition on the sampled "
                                          f"attributes improves the objective of {objective}")
                    break
                if post is not None:
                    post.remember(record.rule, attrs, ops, thrs, n_cond)
                yield record
                continue
            n_cond, quality, label, n_rows, d_labels, d_examples, n_head = boost_one_rule(
                index.ptr, index.rows, index.values, keys, cache, seg, ranks, index.missing_ptr,
                index.missing_rows, index.nominal,
                loss, Y, F, G, H, H_refine, diagonal_columns,
                single, full_refine, head_mode, head_params, weights if drawn_weights is None else drawn_weights,
                bagging, l2, l1, eta, n_sample,
                max_conditions, min_coverage, rng_state, perm, covered, rows, attrs, ops, thrs, head_labels, head,
                train.Y, train.errors, train.example_wise, *vector_index, data.cancel)
            if data.cancelled:
                self.stop_reason_, self.stop_message_ = "cancelled", "training was cancelled"
                break
            if n_cond == 0:
                self.stop_reason_ = "constant_attributes" if index.constant_attributes().all() else "no_refinement"
                self.stop_message_ = (f"training ended after {len(self.records_)} of "
                                      f"{self.max_rules or 'unlimited'} rules: no condition on the sampled "
                                      "attributes improves the objective on the sampled examples")
                break
            train.count(d_labels, d_examples)
            labels = head_labels[:n_head].copy()
            rule = Rule(data.learned_conditions(attrs, ops, thrs, n_cond, X), labels, head[:n_head].copy(),
                        data.schema)
            record, stop = self._record(rule, rows, n_rows, train, val, monitor, data, -quality)
            if post is not None:
                post.remember(rule, attrs, ops, thrs, n_cond)
            yield record
        if post is not None and not data.cancelled:
            yield from self._post_optimize(post, locals(), pruning_options if pruning is not None else None)

    def _post_optimize(self, post, state, pruning_options):
        """Sequential post-optimization (:mod:`engine.post_optimization`) of the rules just learned;
        ``state`` is :meth:`_learn`'s locals.  With global pruning that removes unused rules only the
        kept ones are relearned (mlrl-boomer removes them first)."""
        s = SimpleNamespace(**{name: state[name] for name in _POST_OPTIMIZATION_STATE})

        def draw_sample():  # a rule's instance sample, as in training
            s.rng_state[0] = s.seeds.next()
            if s.subset:
                _subset_weights(s.weights, s.Y, s.sampling, s.n_drawn, s.rng_state[0])
            if s.drawn_weights is None:
                return s.weights
            weighted_draws(s.drawn_weights, s.n_drawn, s.rng_state, s.sample_weight)
            return s.drawn_weights

        s.draw_sample = draw_sample
        kept = self.selected_steps_ if pruning_options is not None and pruning_options["remove_unused_rules"] else None
        yield from post.revisions(self, s, 0 if self.default_rule == "false" else 1, kept)
        if s.data.cancelled:
            self.stop_reason_, self.stop_message_ = "cancelled", "training was cancelled"

    def _output_sampled_rule(self, sampled, index, keys, cache, seg, ranks, loss, Y, F, G, H, H_refine, diagonal,
                             single, full_refine, family, head_mode, head_params, weights, bagging, l2, l1, eta,
                             n_sample, max_conditions, min_coverage, rng_state, perm, covered, rows, attrs, ops, thrs,
                             train, val, monitor, data, X):
        """One rule whose head predicts only the ``sampled`` outputs (``output_sampling``): refined and
        headed on their statistics (:func:`engine.sampling.output_sample_statistics`), then applied to
        every output's.  Returns (record or None, stop, number of conditions)."""
        G_sub, H_sub = output_sample_statistics(G, H_refine, sampled, full_refine)
        params = head_params.copy()
        s = len(sampled)
        if HEAD_BINNED < head_mode <= HEAD_PARTIAL_FIXED:
            # mlrl-boomer 0.15.6 rates a rule for a sample of outputs (a partial index vector) with its
            # complete rule evaluation whatever the head type: partial heads predict every sampled output
            head_mode = HEAD_COMPLETE
        elif head_mode < HEAD_BINNED:  # binned partial heads: its complete binned evaluation
            head_mode = HEAD_BINNED
        if head_mode == HEAD_BINNED:
            params[3] = min(params[3], s)
        covered[:] = 1
        refine = rule_refinement(family[0], family[1], family[2])
        n_cond, quality, label = refine(index.ptr, index.rows, index.values, keys, cache, seg, ranks, index.missing_ptr,
                                        index.missing_rows, index.nominal, G_sub, H_sub, full_refine, single,
                                        head_mode, params, weights, bagging, l2, l1, n_sample, max_conditions,
                                        min_coverage, rng_state, perm, covered, attrs, ops, thrs, data.cancel,
                                        np.empty(s, dtype=np.int64))
        if n_cond == 0 or data.cancelled:
            return None, False, n_cond
        n_rows = covered_rows(covered, rows)
        head = np.empty(s)
        labels = np.arange(s, dtype=np.int64)
        if single:
            labels = labels[label:label + 1]
            head_on_rows(G_sub, H_sub, rows, n_rows, full_refine, label, l2, l1, eta, head)
        elif head_mode <= HEAD_PARTIAL_FIXED:
            n_head = head_variant_on_rows(G_sub, H_sub, rows, n_rows, full_refine, head_mode, params, l2, l1, eta,
                                          labels, head)
            labels = labels[:n_head]
        else:
            head_on_rows(G_sub, H_sub, rows, n_rows, full_refine, -1, l2, l1, eta, head)
        head = head[:len(labels)].copy()
        labels = sampled[labels]
        rule = Rule(data.learned_conditions(attrs, ops, thrs, n_cond, X), labels, head, data.schema)
        covered_now = rows[:n_rows].copy()
        record, stop = self._add(rule, covered_now, n_rows, loss, Y, F, G, H, labels, head, train, val, monitor,
                                 data, -quality)
        if diagonal is not None:  # the refinement's copy of the Hessians' diagonal
            H_refine[covered_now] = H[covered_now][:, diagonal]
        return record, stop, n_cond

    def _rule_on_label_bins(self, index, keys, cache, seg, ranks, loss, Y, F, G, C, family, head_params, weights,
                            bagging, l2, l1, eta, n_sample, max_conditions, min_coverage, rng_state, perm, covered,
                            rows, attrs, ops, thrs, train, val, monitor, data, X):
        """One rule of an example-wise loss whose label bins are chosen once (``label_binning_scope='rule'``):
        the bins from the summed statistics of the rule's sample (as mlrl-boomer chooses a candidate's from
        the candidate's), every example's compact statistics ``G``, ``C`` summed into them
        (:func:`project_onto_bins`), the complete-head refinement (Alg. 2) on those B pseudo-labels, O(B^2)
        per example and threshold instead of O(K^2); the head then as label binning's (its bins from the
        covered examples).  Returns (record or None, stop, number of conditions)."""
        n, K = G.shape
        if bagging:  # the draws the refinement would make (the same random state, then passed on to it)
            bagging_weights(weights, bagging, rng_state)
        g, d = sample_diagonal_sums(G, C, weights)
        bins, sizes, slot = (np.zeros(max(K, 2 * int(head_params[3])), dtype=np.int64) for _ in range(3))
        m = choose_bins(g, d, head_params, l2, l1, bins, sizes, slot)
        if m == 0:  # every label's score is 0 on the sample: no bin to learn
            return None, False, 0
        PG = np.empty((n, m), dtype=G.dtype)
        PC = np.empty((n, m + 1), dtype=C.dtype)
        project_onto_bins(G, C, bins, slot, sizes, PG, PC)
        covered[:] = 1
        refine = compact_rule_refinement(family[2])
        n_cond, quality, _ = refine(index.ptr, index.rows, index.values, keys, cache, seg, ranks, index.missing_ptr,
                                    index.missing_rows, index.nominal, PG, PC, True, False, HEAD_COMPLETE, head_params,
                                    weights, 0, l2, l1, n_sample, max_conditions, min_coverage, rng_state, perm,
                                    covered, attrs, ops, thrs, data.cancel, np.empty(m, dtype=np.int64))
        if n_cond == 0 or data.cancelled:
            return None, False, n_cond
        n_rows = covered_rows(covered, rows)
        labels = np.empty(K, dtype=np.int64)
        head = np.empty(K)
        n_head = compact_variant_on_rows(G, C, rows, n_rows, True, HEAD_BINNED, head_params, l2, l1, eta, labels, head)
        labels, head = labels[:n_head].copy(), head[:n_head].copy()
        rule = Rule(data.learned_conditions(attrs, ops, thrs, n_cond, X), labels, head, data.schema)
        record, stop = self._add(rule, rows, n_rows, loss, Y, F, G, C, labels, head, train, val, monitor, data,
                                 -quality, compact=True)
        return record, stop, n_cond

    def _add(self, rule, rows, n_rows, loss, Y, F, G, H, labels, head, train, val, monitor, data, improvement,
             compact=False):
        """Apply a rule to the training scores and statistics (``compact``: of
        :mod:`engine.core.examplewise_stats`); update the tracked losses."""
        apply = compact_apply_head if compact else apply_head
        train.add_head(rows, n_rows, labels, head, lambda: apply(loss, Y, F, G, H, rows, n_rows, labels, head))
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
            val.add_head(vrows, len(vrows), rule.head_labels, rule.head_scores)
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        return RuleRecord(**record), stop


# what engine.post_optimization reads of BoomerClassifier._learn's state
_POST_OPTIMIZATION_STATE = (
    "index", "keys", "cache", "seg", "ranks", "loss", "F", "G", "H", "H_refine", "diagonal",
    "diagonal_columns", "single", "full_refine", "family", "head_mode", "head_params", "bagging", "l2", "l1", "eta",
    "n_sample", "max_conditions", "min_coverage", "rng_state", "perm", "covered", "rows", "attrs", "ops", "thrs",
    "head_labels", "head", "train", "val", "data", "X", "Y", "K", "boost_one_rule", "inducer", "vector_index",
    "outputs", "seeds", "weights", "drawn_weights", "subset", "sampling", "n_drawn", "sample_weight")


class _WatchedLoss:
    """The mean loss (the learner's own loss function) on the holdout set, or on the training set
    (``X`` None: ``F`` is the training scores, already updated when a rule is recorded)."""

    def __init__(self, loss_code: int, X, Y: np.ndarray, F: np.ndarray | None = None):
        self.loss, self.X, self.holdout = loss_code, X, X is not None
        self.Y = np.require(Y, np.uint8, "C")  # the 0/1 labels the loss kernels read (a copy only if needed)
        self.F = np.zeros(Y.shape) if F is None else F
        n = Y.shape[0]
        self.losses = np.zeros(n)
        self.total = refresh_example_losses(loss_code, self.Y, self.F, np.arange(n, dtype=np.int64), n,
                                            self.losses)

    def after(self, rule: Rule, rows: np.ndarray, n_rows: int) -> float:
        """The mean loss once ``rule`` (covering training ``rows[:n_rows]``) is part of the model."""
        if self.holdout:
            rows = np.flatnonzero(rule_coverage(rule, self.X)).astype(np.int64)
            n_rows = len(rows)
            add_head_scores(self.F, rows, n_rows, rule.head_labels, rule.head_scores, 1.0)
        self.total += refresh_example_losses(self.loss, self.Y, self.F, rows, n_rows, self.losses)
        return self.total / len(self.losses)


def physical_memory() -> int:
    """Bytes of physical memory (0 where unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def statistics_bytes(n: int, K: int, full_hessian: bool, itemsize: int, compact: bool, n_sampled: int) -> int:
    """Bytes of a fit's statistics: gradients and Hessians per example, plus, for compact statistics
    (:mod:`engine.core.examplewise_stats`), the packed K x K sums of the refinement (the covered
    examples', and per sampled attribute its five accumulator rows and its best condition's)."""
    if compact:
        return n * (2 * K + 1) * itemsize + (2 + 6 * n_sampled) * n_hessian_entries(K, False) * 8
    return n * (K + n_hessian_entries(K, not full_hessian)) * itemsize


def _check_statistics_memory(n: int, K: int, full_hessian: bool, itemsize: int, compact: bool = False,
                             n_sampled: int = 1) -> None:
    """A clear error instead of numpy's failed allocation.  Single-label heads of example-wise losses
    keep each example's packed K x K Hessian (K(K+1)/2 entries); complete, partial and binned heads keep
    it as a diagonal plus rank one (``compact``, 2K + 1 numbers) and sum it into a few K x K matrices."""
    need = statistics_bytes(n, K, full_hessian, itemsize, compact, n_sampled)
    have = physical_memory()
    if full_hessian and have and need > have:
        what = (f"the refinement sums {K} x {K} Hessians for each of {n_sampled} sampled attributes" if compact else
                f"single-label heads of the example-wise loss keep a {K} x {K} Hessian per training example")
        raise MemoryError(f"{what}: {need / 2**30:.1f} GiB for {n} examples, more than this machine's "
                          f"{have / 2**30:.1f} GiB; use a label-wise loss, label binning, fewer labels or "
                          "fewer examples")


def _explicit_options(value: str) -> set[str]:
    """The option names written in braces in ``value`` (``'name{a=1,b=2}'`` -> {'a', 'b'})."""
    body = value.partition("{")[2].rpartition("}")[0]
    return {item.partition("=")[0].strip() for item in body.split(",") if item.strip()}


def _subset_weights(weights: np.ndarray, Y: np.ndarray, method: str, size: int, seed) -> None:
    """Per rule, weight 1 for ``size`` examples chosen without replacement (uniformly, or stratified
    by labels with engine.holdout's output-wise or example-wise stratification), 0 for the others."""
    n = Y.shape[0]
    weights[:] = 0
    if size >= n:
        weights[:] = 1
        return
    rng = np.random.default_rng(int(seed))
    if method == "without-replacement":
        weights[rng.choice(n, size, replace=False)] = 1
        return
    # the stratified split's "holdout" part is the sample (of n - size examples set aside)
    kind = "stratified-output-wise" if method == "stratified-output-wise" else "stratified-example-wise"
    _, sample = split_holdout(Y, kind, size / n, int(rng.integers(2**63 - 1)))
    weights[sample] = 1


def _float32_scores(model: RuleModel, X) -> np.ndarray:
    """The training scores as 32-bit statistics hold them: each rule's head added in float32, rule
    by rule (mlrl-boomer calibrates from these; sums in float64 differ in the last bits and may
    split ties)."""
    F = np.zeros((X.shape[0], model.n_labels), dtype=np.float32)
    for rule in model.rules:
        rows = np.flatnonzero(rule_coverage(rule, X))
        if len(rows):
            F[np.ix_(rows, rule.head_labels)] += np.asarray(rule.head_scores, dtype=np.float32)
    return F


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

