"""BBC-CV as a selection method of the experimenter (``[protocol] selection = "bbc-cv"``): the
out-of-fold predictions of every configuration of a learner (and of every prefix of its models,
``prefix_step``) are pooled over the outer folds, and bootstrap bias-corrected cross-validation
(Tsamardinos et al. 2018; :mod:`.bbc_cv`) selects by the learner's ``tune_by`` measure on each
bootstrap's in-bag rows and scores the selected configuration on the out-of-bag rows.  A learner's
value of a measure is the mean over bootstraps, its spread their standard deviation."""
from __future__ import annotations

import numpy as np

from ..stats.bbc_cv import bootstrap_selection
from ..stats.measures import MEASURES
from .scoring import COST, LABELS, evaluate, measure

# the measures BBC-CV can select by: they decompose over examples (the in-bag sum is one product)
PER_EXAMPLE = {"hamming": MEASURES["hamming"].per_example, "subset-zero-one": MEASURES["subset_01"].per_example,
               "example-f1": MEASURES["example_f1"].per_example}


def check_tune_measure(name: str, where: str) -> None:
    if name not in PER_EXAMPLE:
        raise ValueError(f"{where}: BBC-CV selects by a measure that decomposes over examples ({', '.join(PER_EXAMPLE)}), "
                         f"not {name!r}")


def pooled(Y: np.ndarray, per_config: list[list]) -> tuple[list[dict], np.ndarray, list[list]]:
    """(configurations, C x N x K out-of-fold predictions, per configuration its fold results) from
    ``per_config``: for each grid point the results of every outer fold.  A result with prefixes
    contributes one configuration per prefix (its parameters and ``rules``: T)."""
    n, K = Y.shape
    names, blocks, owners = [], [], []
    for results in per_config:
        prefixes = results[0].costs.get("prefixes")
        sizes = prefixes if prefixes is not None else [None]
        P = np.zeros((len(sizes), n, K), dtype=np.uint8)
        covered = np.zeros(n, dtype=bool)
        for r in results:
            if (r.costs.get("prefixes") != prefixes or r.predictions.shape[-1] != K
                    or (len(r.test_rows) and not 0 <= r.test_rows.min() <= r.test_rows.max() < n)):
                raise ValueError(f"result {r.key!r}: its predictions do not fit the data set's {n} examples, {K} "
                                 "labels and the other folds' prefixes")
            P[:, r.test_rows] = r.predictions if prefixes is not None else r.predictions[None]
            covered[r.test_rows] = True
        if not covered.all():
            raise ValueError(f"the outer folds of {results[0].learner} cover {int(covered.sum())} of {n} examples; "
                             "BBC-CV needs out-of-fold predictions of every example (cross-validation)")
        for j, size in enumerate(sizes):
            names.append(dict(results[0].config) if size is None else {**results[0].config, "rules": size})
            blocks.append(P[j])
            owners.append(results)
    return names, np.stack(blocks), owners


def _cost(results: list, m: str, config: dict) -> list:
    """Per fold the cost ``m`` of the selected configuration (a prefix's size is its T, when shorter)."""
    out = []
    for r in results:
        value = r.costs.get(m)
        if m == "model-size" and value is not None and "rules" in config:
            value = min(int(value), int(config["rules"]))
        elif m == "conditions" and "rules" in config:
            value = None  # counted for the whole model only
        out.append(None if value is None else float(value))
    return out


def bbc_values(Y: np.ndarray, per_config: list[list], tune_by: str, measures, n_bootstraps: int, seed: int):
    """(values: measure -> list, selected: the configuration of every bootstrap, the most selected
    configuration's fold results).  Label-set measures get B out-of-bag values; costs the most
    selected configuration's per fold; score-based measures do not apply (None), since BBC-CV pools
    predicted label sets."""
    names, P, owners = pooled(Y, per_config)
    labels = [m for m in measures if measure(m).needs == LABELS]
    scorers = {m: (lambda Yb, Pb, m=m: evaluate(m, Yb, Pb)) for m in labels}
    selected, scores = bootstrap_selection(Y, P, PER_EXAMPLE[tune_by], measure(tune_by).higher_is_better, scorers,
                                           n_bootstraps, seed)
    top = int(np.bincount(selected).argmax())  # the most selected (of equals, the first configuration)
    values = {}
    for m in measures:
        kind = measure(m).needs
        values[m] = (list(scores[m]) if kind == LABELS else _cost(owners[top], m, names[top]) if kind == COST
                     else [None])
    return values, [names[c] for c in selected], owners[top]
