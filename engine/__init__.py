"""BOOMER: gradient-boosted multi-label classification rules (Rapp et al., ECML-PKDD 2020).

The engine is free of any GUI toolkit.  Public entry points:

- :class:`BoomerClassifier` - the scikit-learn estimator, with the streaming ``fit_iter``;
- :class:`Rule`, :class:`Condition`, :class:`Schema` - the rule representation of every learner;
- :class:`RuleRecord` - what a rule learner's ``fit_iter`` yields per rule (a step, :mod:`engine.steps`);
- :class:`LabelRankingBooster` - log-linear label ranking (Dekel et al. 2003), one step per iteration;
- :class:`MLMEClassifier` - ML-ME mixtures of CTBN experts (Hong et al. 2014), one step per expert;
- :class:`LogisticChainClassifier` - classifier chains of logistic regressions, ML-ME's baseline;
- :mod:`engine.metrics`, :mod:`engine.datasets` - evaluation measures, loaders and generators.
"""
from .numba_cache import ensure_cache_dir, refresh_kernel_cache
from .threads import limit_thread_spinning

limit_thread_spinning()  # before OpenMP loads (engine.threads)
ensure_cache_dir()  # before any kernel is compiled
refresh_kernel_cache()  # no kernel cached from older sources of the modules it inlines

from .adaboost import AdaBoostMHClassifier  # noqa: E402
from .mlme import LogisticChainClassifier, MLMEClassifier
from .ranking import LabelRankingBooster
from .boomer import BoomerClassifier
from .learner import RuleLearner, RuleRecord
from .model import RuleModel
from .rules import Condition, Rule, Schema
from .seco import SeCoClassifier

__all__ = ["AdaBoostMHClassifier", "BoomerClassifier", "LabelRankingBooster", "LogisticChainClassifier", "MLMEClassifier", "Condition", "Rule", "RuleLearner", "RuleModel", "RuleRecord", "Schema", "SeCoClassifier"]
