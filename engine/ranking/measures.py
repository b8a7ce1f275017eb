"""Dekel et al.'s generalised error (NIPS 2003, eq. 1): a ranking measure on preference graphs,
so it lives with the graphs and the kernel it needs (``engine.metrics`` knows no graphs)."""
from __future__ import annotations

import numpy as np

from ..metrics import truth_and_scores
from .graphs import bipartite
from .kernels import disagreement


def generalized_error(Y_true, scores, decomposition: str = "dis") -> float:
    """The generalised error on the bipartite preference graphs of ``Y_true`` (relevant ≻
    irrelevant), as a mean over examples that have edges; ties count as errors.

    '0-1': some irrelevant label scores at least as high as some relevant one; 'dis': the fraction
    of such pairs; 'Dom': the fraction of relevant labels not above every irrelevant label; 'dom':
    the fraction of irrelevant labels not below every relevant label (SPEC A.2)."""
    Y, S = truth_and_scores(Y_true, scores)
    graphs = bipartite(Y)
    g = graphs.group(decomposition)
    per_example = np.zeros(Y.shape[0])
    disagreement(np.ascontiguousarray(S), g.g_ptr, g.g_example, g.init, g.term, g.weight, per_example)
    edges = per_example[graphs.has_edges()]
    return float(np.mean(edges)) if edges.size else float("nan")
