"""BOOMER: gradient boosting of multi-label classification rules (Rapp et al. 2020, Alg. 1).

:mod:`.estimator` is the scikit-learn estimator and its parameters, :mod:`.settings` those parameters
parsed once, :mod:`.fit_state` the state a fit builds once, :mod:`.loop` the training loop over it, with
its strategies: :mod:`.instance_sampling`, :mod:`.induction` (one rule), :mod:`.recording` (tracked
losses), :mod:`.stopping` and :mod:`.post_optimization`.  :mod:`.regressor` is the same machinery on real-valued
targets (mlrl-boomer's ``BoomerRegressor``; :mod:`.regression`: its targets and tracked MSE)."""
from .estimator import DEFAULT_RULE, PAPER_2020, SINGLE_LABEL_CHOICES, BoomerClassifier, _float32_scores  # noqa: F401
from .regressor import BoomerRegressor  # noqa: F401
from .memory import check_statistics_memory as _check_statistics_memory, physical_memory, statistics_bytes  # noqa: F401
from .settings import (PACKED_STATISTICS_BUDGET, SPARSE_LOSSES, feature_binning_kind, head_kind, holdout_kind,
                       label_binning_applies, label_binning_kind)
from .stopping import STOP_REASONS

__all__ = ["BoomerClassifier", "BoomerRegressor", "PAPER_2020", "SINGLE_LABEL_CHOICES", "STOP_REASONS", "DEFAULT_RULE", "SPARSE_LOSSES",
           "PACKED_STATISTICS_BUDGET", "head_kind", "holdout_kind", "label_binning_applies", "label_binning_kind",
           "feature_binning_kind", "physical_memory", "statistics_bytes"]
