"""BOOMER for multi-output regression: mlrl-boomer 0.15.6's ``BoomerRegressor``, trained by the classifier's
machinery (:mod:`.loop`, the same kernels) on real-valued targets with the squared-error statistics of
:mod:`engine.core.regression_losses`."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from sklearn.base import RegressorMixin
from sklearn.utils.metaestimators import available_if

from ..core.regression_losses import REGRESSION_LOSSES
from ..learner import TrainingData
from ..model import RuleModel
from ..options import OPTIONS, option_help
from ..validation import check_training_data, feature_names_of
from .estimator import BoomerClassifier
from .regression import check_targets

# mlrl-boomer 0.15.6's parameters of BoomerRegressor: the classifier's less its prediction and label binning ones
REGRESSOR_PARAMETERS = ("random_state", "feature_format", "output_format", "prediction_format", "statistic_format",
                        "statistic_type", "default_rule", "rule_induction", "max_rules", "time_limit",
                        "global_pruning", "post_optimization", "head_type", "loss", "output_sampling",
                        "instance_sampling", "feature_sampling", "holdout", "feature_binning", "rule_pruning",
                        "shrinkage", "l1_regularization_weight", "l2_regularization_weight",
                        "parallel_rule_refinement", "parallel_statistic_update", "parallel_prediction")
# the values a regressor takes where they are fewer than a classifier's (no stratification by labels)
REGRESSOR_OPTIONS = {
    "holdout": {k: v for k, v in OPTIONS["holdout"].items() if k in ("auto", "none", "random")},
    "instance_sampling": {k: v for k, v in OPTIONS["instance_sampling"].items() if not k.startswith("stratified")},
}
for _name, _table in REGRESSOR_OPTIONS.items():
    OPTIONS["boomer-regressor:" + _name] = _table

# the classifier's settings a regressor does not have, at the values mlrl-boomer's regressor uses
_FIXED = dict(single_label_choice="largest-score", max_conditions=None, min_coverage=1, label_binning="none",
              label_binning_scope="condition", binary_predictor="auto", probability_predictor="auto",
              marginal_probability_calibration="none", joint_probability_calibration="none", regression=True)


_HELP = {"holdout": "training examples set aside to watch the loss (for global pruning; auto: 33 % drawn at "
                    "random when pruning uses one)",
         "instance_sampling": "examples each rule is learned on: ceil(sample_size x N) drawn with replacement "
                              "(bagging), or a subset without replacement"}


def _declared() -> tuple:
    """The classifier's declarations of the regressor's parameters, with the regressor's values."""
    by_name = {p.name: p for p in BoomerClassifier.PARAMETERS}
    out = []
    for name in REGRESSOR_PARAMETERS:
        p = by_name[name]
        if name == "loss":
            p = replace(p, choices=REGRESSION_LOSSES, help="squared error per output (decomposable) or the "
                        "Euclidean norm of the errors (non-decomposable)")
        elif name in REGRESSOR_OPTIONS:
            key = "boomer-regressor:" + name
            p = replace(p, choices=tuple(OPTIONS[key]), options_key=key, help=_HELP[name] + option_help(key))
        out.append(p)
    return tuple(out)


def _never(est) -> bool:
    return False


class BoomerRegressor(RegressorMixin, BoomerClassifier):
    """Gradient-boosted multi-output regression rules (mlrl-boomer 0.15.6's ``BoomerRegressor``).

    Parameters, values and defaults are mlrl-boomer's: decomposable squared error, complete heads
    (``head_type='auto'``), 1000 rules, shrinkage 0.3, L2 weight 1.0, 32-bit statistics, attributes sampled
    without replacement, no label binning; ``holdout='auto'`` is a random holdout set when global pruning
    uses one.  ``predict`` returns the summed heads (N x T; a 1-D ``y`` gives 1-D predictions).  Targets are
    kept in float32, as the reference keeps them."""

    LEARNER_NAME = "boomer-regressor"
    PROBABILITIES = False
    PARAMETERS = _declared()

    def __init__(self, random_state=1, feature_format=None, output_format=None, prediction_format=None,
                 statistic_format=None, statistic_type="32-bit", default_rule="auto", rule_induction="top-down-greedy",
                 max_rules=1000, time_limit=0, global_pruning="none", post_optimization="none", head_type="auto",
                 loss="squared-error-decomposable", output_sampling="none", instance_sampling="none",
                 feature_sampling="without-replacement", holdout="auto", feature_binning="auto", rule_pruning="none",
                 shrinkage=0.3, l1_regularization_weight=0.0, l2_regularization_weight=1.0,
                 parallel_rule_refinement=None, parallel_statistic_update=None, parallel_prediction=None):
        self.random_state = random_state
        self.feature_format = feature_format
        self.output_format = output_format
        self.prediction_format = prediction_format
        self.statistic_format = statistic_format
        self.statistic_type = statistic_type
        self.default_rule = default_rule
        self.rule_induction = rule_induction
        self.max_rules = max_rules
        self.time_limit = time_limit
        self.global_pruning = global_pruning
        self.post_optimization = post_optimization
        self.head_type = head_type
        self.loss = loss
        self.output_sampling = output_sampling
        self.instance_sampling = instance_sampling
        self.feature_sampling = feature_sampling
        self.holdout = holdout
        self.feature_binning = feature_binning
        self.rule_pruning = rule_pruning
        self.shrinkage = shrinkage
        self.l1_regularization_weight = l1_regularization_weight
        self.l2_regularization_weight = l2_regularization_weight
        self.parallel_rule_refinement = parallel_rule_refinement
        self.parallel_statistic_update = parallel_statistic_update
        self.parallel_prediction = parallel_prediction

    def effective(self) -> SimpleNamespace:
        """The parameter values a fit uses, with the classifier's settings a regressor has not fixed
        (:data:`_FIXED`) for the shared machinery."""
        values = super().effective()
        for name, value in _FIXED.items():
            if not hasattr(values, name):
                setattr(values, name, value)
        return values

    @classmethod
    def paper_2020(cls, *args, **kwargs):
        raise AttributeError("the paper's settings are a classifier's (BoomerClassifier.paper_2020)")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        tags.target_tags.required = True
        return tags

    # -- targets -------------------------------------------------------------------------------------------
    def _training_data(self, X, Y, X_test=None, Y_test=None, sample_weight=None):
        """Features checked as a classifier's, targets as real values (:func:`.regression.check_targets`)."""
        if Y is None:
            raise ValueError("this estimator requires y to be passed, but the target y is None (y is missing)")
        Y = Y if sp.issparse(Y) else np.asarray(Y)
        self._one_output_y = Y.ndim == 1
        if np.iscomplexobj(Y):  # scikit-learn's wording
            raise ValueError("Complex data not supported: the targets y must be real numbers")
        Xc, Yc, Xv, Yv = check_training_data(X, Y, X_test, Y_test, check_targets, "targets")
        names = feature_names_of(X)
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        return Xc, Yc, Xv, Yv

    def _sparse_predictions(self, y) -> bool:
        return False  # real values: dense predictions (prediction_format is accepted, as the reference's)

    # -- model and prediction ------------------------------------------------------------------------------
    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        return RuleModel(list(rules), data.X.shape[1], data.Y.shape[1], "label-wise", self.effective().loss, None,
                         data.schema, data.nominal)

    def _calibrate(self, model, data) -> None:
        """A regressor has no probabilities to calibrate."""

    def predict(self, X) -> np.ndarray:
        """The predicted targets: each example's summed heads (N x T, or N for a 1-D training ``y``)."""
        model, Xc = self._checked(X)
        return self._score_output(model.scores(Xc))

    # a regressor has neither a decision function nor probabilities: predict returns its real values
    decision_function = available_if(_never)(BoomerClassifier.decision_function)
    decision_function_incrementally = available_if(_never)(BoomerClassifier.decision_function_incrementally)
    predict_proba = available_if(_never)(BoomerClassifier.predict_proba)
    predict_proba_incrementally = available_if(_never)(BoomerClassifier.predict_proba_incrementally)

    def _score_output(self, F: np.ndarray) -> np.ndarray:
        F = np.asarray(F, dtype=np.float64)
        return F[:, 0] if getattr(self, "_one_output_y", False) else F

    _binary_output = _score_output

    def predict_incrementally(self, X, **kwargs):
        """The predictions of the models of 1, 2, ... rules (:class:`engine.incremental.IncrementalPredictor`),
        as mlrl-boomer's regressor gives them."""
        return self._incremental(X, self._score_output, kwargs)
