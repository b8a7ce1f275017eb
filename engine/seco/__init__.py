"""SeCo: separate-and-conquer multi-label rules (mlrl-seco 0.15.6's algorithm, or the PAKDD 2018 paper's search).

:mod:`.estimator` is the scikit-learn estimator and the PAKDD 2018 search, :mod:`.covering` mlrl-seco's
covering loop over a fit's state, :mod:`.mlrl_blocks` its building blocks."""
from .estimator import HEURISTIC_CODES, HEURISTICS, SeCoClassifier, find_head, revision_steps
from .mlrl_blocks import (NO_VECTORS, MLRL_HEURISTICS, _base_vectors, _best_chunk,  # noqa: F401
                          _conditions_attributes, _label_counts, _OutputWise, _run_chunks, _step_scratch, lift_tables)

__all__ = ["SeCoClassifier", "HEURISTICS", "HEURISTIC_CODES", "MLRL_HEURISTICS", "find_head", "lift_tables",
           "revision_steps"]
