"""BOOMER's scikit-learn estimator: its parameters (mlrl-boomer 0.15.6's), their checks, prediction and
calibration; training is :func:`.loop.learn` over the settings parsed once (:mod:`.settings`)."""
from __future__ import annotations

import functools
from typing import Callable, Iterator, Mapping

import numpy as np
import scipy.sparse as sp

from ..core.losses import LOSSES
from ..incremental import IncrementalPrediction
from ..learner import RuleLearner, RuleRecord, TrainingData, learned_rules
from ..model import RuleModel, rule_coverage
from ..options import option_help, value_names
from ..parameters import FROM_INIT, Parameter
from ..predictors import Predictors, fit_calibration
from .loop import learn
from .settings import (BoomerSettings, explicit_options, head_kind, holdout_kind, label_binning_applies,
                       label_binning_kind, refinement_threads, training_prediction)
from .stamps import kernel_stamps

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

# The settings of Rapp et al. (2020), Sec. 5: the estimator's defaults were these until mlrl-boomer
# 0.15.6's became them.  Bagging draws N examples per rule, log2 attributes per step, 64-bit
# statistics, single-label heads by the objective; loss and head type are each experiment's.
PAPER_2020 = {"max_rules": 1000, "shrinkage": 0.3, "l2_regularization_weight": 1.0, "l1_regularization_weight": 0.0,
              "instance_sampling": "with-replacement{sample_size=1.0}", "feature_sampling": "without-replacement",
              "rule_induction": "top-down-greedy", "max_conditions": None, "min_coverage": 1,
              "feature_binning": "none", "label_binning": "none", "holdout": "none", "global_pruning": "none",
              "statistic_type": "64-bit", "single_label_choice": "objective"}

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


def _on_preferred_threads(method):
    """Run the generator method ``method`` with Numba's thread count (of this thread) at the estimator's
    ``parallel_rule_refinement`` num_preferred_threads, when one is given, and restore it after."""
    @functools.wraps(method)
    def wrapper(self, data):
        wanted = self._refinement_threads()
        if wanted <= 1:  # 0: every core (Numba's default), 1: the kernels are serial anyway
            yield from method(self, data)
            return
        import numba

        from ..threads import numba_threads

        before = numba_threads(wanted)
        try:
            yield from method(self, data)
        finally:
            numba.set_num_threads(before)
    return wrapper


class BoomerClassifier(IncrementalPrediction, RuleLearner):
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
    NONE_IS_DEFAULT = True  # every parameter takes None, meaning its default, as mlrl-boomer's do
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
                      "score > 0 per label (> 0.5 for the squared hinge losses; output-wise), the nearest known "
                      "label vector (example-wise, eq. 19), the F-measure maximizer (gfm); auto: output-wise for "
                      "label-wise losses, else example-wise"
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

    def settings(self) -> BoomerSettings:
        """The parameters parsed (:class:`.settings.BoomerSettings`), checked first."""
        self._check_params()
        return BoomerSettings.of(self)

    def _kernel_family(self, n_examples: int, n_features: int, n_labels: int) -> tuple:
        """The arguments of :func:`engine.core.boosting_step.boosting_kernel` for a fit on data of this size
        (:meth:`.settings.BoomerSettings.kernel_family`)."""
        return self.settings().kernel_family(n_examples, n_features, n_labels)

    def _compact_statistics(self, n_examples: int, n_labels: int) -> bool:
        """Whether a fit on data of this size keeps compact statistics
        (:meth:`.settings.BoomerSettings.compact_statistics`)."""
        return BoomerSettings.of(self).compact_statistics(n_examples, n_labels)

    def kernel_setting(self, profile: Mapping) -> tuple[str, ...]:
        """The stamps of the kernels a fit on data of ``profile`` (:func:`engine.prepare.data_profile`)
        compiles: its core family, then each optional part it uses (:mod:`.stamps`)."""
        return kernel_stamps(self.settings(), profile)

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
        settings, values = BoomerSettings.of(self), self.effective()
        for sampling in ("instance_sampling", "feature_sampling", "output_sampling"):
            options = getattr(settings, sampling).options
            if options.get("max_samples") and options["max_samples"] < options["min_samples"]:
                raise ValueError(f"{sampling} option max_samples must be 0 or at least min_samples "
                                 f"({options['min_samples']}), got {options['max_samples']}")
        head_options = settings.head.options
        if head_options.get("max_outputs") and head_options["max_outputs"] < head_options["min_outputs"]:
            raise ValueError("head_type option max_outputs must be 0 or at least min_outputs "
                             f"({head_options['min_outputs']}), got {head_options['max_outputs']}")
        inducer = settings.induction.inducer()  # checks rule_induction and rule_pruning
        if inducer is not None and settings.output_sampling.name != "none":
            raise ValueError("output_sampling works with the default greedy rule induction only here (not with "
                             f"rule_induction={values.rule_induction!r}, rule_pruning={values.rule_pruning!r}); set "
                             "output_sampling='none' or the defaults of the other two")
        if values.label_binning_scope == "rule":
            self._check_rule_scope(settings, inducer)
        given = explicit_options(values.rule_induction)
        for name, default in (("max_conditions", None), ("min_coverage", 1)):
            if name in given and getattr(values, name) != default:
                raise ValueError(f"{name} is set twice (the parameter and rule_induction's option); set one")

    def _check_rule_scope(self, settings: BoomerSettings, inducer) -> None:
        """``label_binning_scope='rule'`` bins the complete heads of an example-wise loss, searched by the
        default greedy induction: anything else is refused before the fit starts."""
        problem, values = None, self.effective()
        if settings.decomposable:
            problem = f"an example-wise (non-decomposable) loss, not {values.loss!r}"
        elif settings.head_kind != "complete" or not settings.label_binning_used:
            problem = (f"complete heads with label binning (head_type={values.head_type!r}, "
                       f"label_binning={values.label_binning!r} give none)")
        elif settings.l1 != 0.0:
            problem = "no L1 regularization (l1_regularization_weight=0)"
        elif inducer is not None:
            problem = "the default rule_induction and rule_pruning"
        elif settings.output_sampling.name != "none":
            problem = "output_sampling='none'"
        elif settings.post_optimization.name != "none":
            problem = "post_optimization='none'"
        if problem is not None:
            raise ValueError(f"label_binning_scope='rule' needs {problem}")

    @property
    def head_kind(self) -> str:
        """'single', 'complete', 'partial-fixed' or 'partial-dynamic' ('auto' resolved)."""
        values = self.effective()
        return head_kind(values.loss, values.head_type)

    @property
    def label_binning_used(self) -> bool:
        """Whether complete heads are learned with gradient-based label binning ('auto' resolved)."""
        values = self.effective()
        return label_binning_kind(values.loss, values.head_type, values.label_binning) != "none"

    @property
    def single_head(self) -> bool:
        return self.head_kind == "single"

    def _binned_head_params(self, K: int) -> np.ndarray:
        """Label binning's head parameters (:meth:`.settings.BoomerSettings.binned_head_params`)."""
        return BoomerSettings.of(self).binned_head_params(K)

    @property
    def prediction(self) -> str:
        """'label-wise' or 'example-wise': how the kernels and the tracked losses predict during
        training (the binary predictor's, or the loss's where that needs probabilities)."""
        values = self.effective()
        return training_prediction(values.loss, values.binary_predictor)

    def _holdout_kind(self) -> str:
        values = self.effective()
        return holdout_kind(values.holdout, values.global_pruning, values.marginal_probability_calibration,
                            values.joint_probability_calibration)

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
        return refinement_threads(self.effective().parallel_rule_refinement)

    def _sparse_predictions(self, y) -> bool:
        """``prediction_format``: 'sparse' always, 'dense' never, else (None, 'auto') when the training
        labels came as a SciPy sparse matrix that takes less memory than a dense one, as mlrl-boomer
        decides (4-byte indices, values not stored, against one byte per entry)."""
        wanted = self.effective().prediction_format
        if wanted in ("sparse", "dense"):
            return wanted == "sparse"
        if not sp.issparse(y) or y.ndim != 2:
            return False
        return 4 * (int(y.nnz) + y.shape[0]) < y.shape[0] * y.shape[1]

    def predict(self, X):
        """Binary predictions (see ``binary_predictor``), a SciPy CSR array where ``prediction_format``
        asks for sparse predictions (:meth:`_sparse_predictions`)."""
        return super().predict(X)

    def predict_proba(self, X) -> np.ndarray:
        """Marginal probabilities by ``probability_predictor`` (AttributeError for a loss without
        probabilities); a single label gives the two columns P(absent), P(present), as mlrl-boomer
        and scikit-learn's binary classifiers do."""
        return super().predict_proba(X)

    def _binary_output(self, P: np.ndarray):
        P = super()._binary_output(P)
        if getattr(self, "sparse_predictions_", False) and isinstance(P, np.ndarray) and P.ndim == 2:
            return sp.csr_array(P)
        return P

    def _probability_output(self, P: np.ndarray):
        P = super()._probability_output(P)
        return np.hstack([1.0 - P, P]) if P.ndim == 2 and P.shape[1] == 1 else P

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        values = self.effective()
        predictors = Predictors.of(values.loss, values.binary_predictor, values.probability_predictor, data.Y)
        vectors = predictors.vectors if self.prediction == "example-wise" else None
        model = RuleModel(list(rules), data.X.shape[1], data.Y.shape[1], self.prediction, values.loss,
                          vectors, data.schema, data.nominal, predictors=predictors)
        if rules:
            self._calibrate(model, data)
        return model

    def _calibrate(self, model: RuleModel, data: TrainingData) -> None:
        """Fit the isotonic calibrations after training, on the holdout set when one was made and
        the calibration uses it (``use_holdout_set``), else on the training examples.  mlrl-boomer
        0.15.6 fits both from its statistics' scores, in the statistics' precision, and these hold
        every rule learned: with global pruning the rules the model drops count too."""
        settings = BoomerSettings.of(self)
        marginal, joint = settings.marginal_calibration, settings.joint_calibration
        if marginal.name == "none" and joint.name == "none":
            return
        holdout = getattr(self, "holdout_indices_", None)
        everything = np.arange(data.Y.shape[0])

        def rows(calibration):
            if calibration.name == "none":
                return None
            if holdout is None:
                return everything
            return holdout if calibration["use_holdout_set"] else np.setdiff1d(everything, holdout)

        learned = learned_rules(getattr(self, "records_", []))  # as post-optimization revised them
        if len(learned) > len(model.rules):  # global pruning kept a prefix
            model = RuleModel(learned, model.n_features, model.n_labels, predictors=model.predictors)
        F = model.scores(data.X) if settings.statistic_type == "64-bit" else _float32_scores(model, data.X)
        fit_calibration(model.predictors, F, data.Y, rows(marginal), rows(joint))

    # -- Alg. 1 ----------------------------------------------------------------------------
    @_on_preferred_threads
    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        return learn(self, data)


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
