"""Log-linear label ranking (Dekel, Manning & Singer, NIPS 2003): preference graphs, the loss and
its boosting updates, and the ``LabelRankingBooster`` estimator."""
from .booster import LabelRankingBooster

__all__ = ["LabelRankingBooster"]
