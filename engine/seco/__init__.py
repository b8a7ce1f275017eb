"""SeCo: separate-and-conquer multi-label rules (mlrl-seco 0.15.6's algorithm, or the PAKDD 2018 paper's search).

:mod:`.estimator` is the scikit-learn estimator and both searches."""
from .estimator import (_NO_INT, _NO_ROWS, HEURISTIC_CODES, HEURISTICS, MLRL_HEURISTICS, SeCoClassifier,  # noqa: F401
                        _base_vectors, _best_chunk, _conditions_attributes, _label_counts, _OutputWise, _run_chunks,
                        _step_scratch, find_head, lift_tables, revision_steps)

__all__ = ["SeCoClassifier", "HEURISTICS", "HEURISTIC_CODES", "MLRL_HEURISTICS", "find_head", "lift_tables",
           "revision_steps"]
