"""The closed-form optimum of a boosted rule's head from summed gradient statistics (Rapp et al.
2020, eq. 14 for single-label heads, eq. 16/17 for complete ones), for the head's own labels; shared
by why-this-head (:mod:`engine.head_explanation`) and threshold editing (:mod:`engine.threshold_edit`)."""
from __future__ import annotations

import numpy as np

from .core.heads import complete_scores, diagonal_position, label_score, system_gradient
from .core.losses import packed_index


def head_solution(g: np.ndarray, h: np.ndarray, labels: np.ndarray, full: bool, l2: float,
                  l1: float) -> tuple[np.ndarray, str]:
    """The unshrunk optimal scores of the head ``labels`` from the summed gradients ``g`` (K) and
    Hessians ``h`` (the packed lower triangle when ``full``, else the diagonal), and a note on how
    they were solved ("" for the plain closed form)."""
    K = len(g)
    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) == K:
        out = np.empty(K)
        complete_scores(g, h, full, l2, l1, np.zeros((K, K)), out)
        note = "eq. (16): the head solves (ΣH + λI) s = −Σg with the full Hessian (its diagonal is shown)" \
            if full else ""
        return out[labels], note
    if len(labels) == 1 or not full:
        diag = [diagonal_position(int(k), K, full) for k in labels]
        return np.array([label_score(g[k], h[d], l2, l1) for k, d in zip(labels, diag)]), ""
    # a partial head of a non-decomposable loss: the head labels' sub-system, exactly
    sub = np.array([[h[packed_index(min(a, b), max(a, b), K)] for b in labels] for a in labels])
    rhs = np.array([system_gradient(float(g[k]), l1) for k in labels])
    return np.linalg.solve(sub + l2 * np.eye(len(labels)), -rhs), \
        "the head labels' sub-system (ΣH + λI) s = −Σg is solved with the full Hessian"
