"""BOOMER: gradient-boosted multi-label classification rules (Rapp et al., ECML-PKDD 2020).

The engine is free of any GUI toolkit.  Public entry points:

- :class:`BoomerClassifier` - the scikit-learn estimator, with the streaming ``fit_iter``;
- :class:`BoomerRegressor` - its multi-output regression twin (mlrl-boomer's ``BoomerRegressor``);
- :class:`Rule`, :class:`Condition`, :class:`Schema` - the rule representation of every learner;
- :class:`RuleRecord` - what a rule learner's ``fit_iter`` yields per rule (a step, :mod:`engine.steps`);
- :class:`LabelRankingBooster` - log-linear label ranking (Dekel et al. 2003), one step per iteration;
- :class:`MLMEClassifier` - ML-ME mixtures of CTBN experts (Hong et al. 2014), one step per expert;
- :class:`LogisticChainClassifier` - classifier chains of logistic regressions, ML-ME's baseline;
- :mod:`engine.metrics`, :mod:`engine.datasets` - evaluation measures, loaders and generators.

The names are imported on first use (PEP 562), so a process that fits BOOMER does not load the other
learners' modules and what they import (NetworkX for ML-ME, for one).
"""
import importlib

from .numba_cache import use_kernel_folder
from .threads import limit_thread_spinning

limit_thread_spinning()  # before OpenMP loads (engine.threads)
use_kernel_folder()  # before any kernel is defined: the folder of these sources' kernels (writes nothing)

_MODULE_OF = {
    "AdaBoostMHClassifier": "adaboost",
    "BoomerClassifier": "boomer",
    "BoomerRegressor": "boomer",
    "LabelRankingBooster": "ranking",
    "LogisticChainClassifier": "mlme",
    "MLMEClassifier": "mlme",
    "RuleLearner": "learner",
    "RuleRecord": "learner",
    "RuleModel": "model",
    "Condition": "rules",
    "Rule": "rules",
    "Schema": "rules",
    "SeCoClassifier": "seco",
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    """A public class, imported from its module on first use; ``engine.<submodule>`` likewise."""
    module = _MODULE_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__():
    return sorted(set(globals()) | set(__all__))
