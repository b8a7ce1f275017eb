"""ML-ME (Hong, Batal & Hauskrecht 2014): mixtures of conditional tree-structured Bayesian network
experts, with the ``MLMEClassifier`` estimator."""
from .chain import LogisticChainClassifier
from .classifier import MLMEClassifier

__all__ = ["LogisticChainClassifier", "MLMEClassifier"]
