"""BOOMER: gradient boosting of multi-label classification rules (Rapp et al. 2020, Alg. 1).

:mod:`.estimator` is the scikit-learn estimator and its parameters."""
from .estimator import (DEFAULT_RULE, PACKED_STATISTICS_BUDGET, PAPER_2020, SINGLE_LABEL_CHOICES, SPARSE_LOSSES,
                        STOP_REASONS, BoomerClassifier, _check_statistics_memory, _float32_scores, _RuleSeeds,
                        feature_binning_kind, head_kind, holdout_kind, label_binning_applies, label_binning_kind,
                        physical_memory, statistics_bytes)

__all__ = ["BoomerClassifier", "PAPER_2020", "SINGLE_LABEL_CHOICES", "STOP_REASONS", "DEFAULT_RULE", "SPARSE_LOSSES",
           "PACKED_STATISTICS_BUDGET", "head_kind", "holdout_kind", "label_binning_applies", "label_binning_kind",
           "feature_binning_kind", "physical_memory", "statistics_bytes"]
