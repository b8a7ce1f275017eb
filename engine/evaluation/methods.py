"""The seven methods of Table 1 and their configuration grids.

A method splits its grid into **groups**, each one task: BOOMER one group per (η, λ), whose
configurations are the prefixes of T = step, 2·step, … rules of one long model (predicted
incrementally while it is learned, never refitted); BR and LP one per (learning rate, λ); CC one per
(learning rate, λ, chain order).  ``run_group`` returns the test predictions of every configuration
of a group (C x N_test x K, uint8)."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ..boomer import BoomerClassifier
from ..model import RuleModel
from .baselines import BinaryRelevance, ClassifierChain, LabelPowerset
from .profiles import Profile

SEED = 1


@dataclass(frozen=True)
class Method:
    name: str
    title: str  # the paper's column heading
    target: str  # the measure BBC-CV selects configurations by (SPEC C.2/C.3)
    family: str  # 'boomer', 'br', 'lp', 'cc'
    loss: str | None = None
    head_type: str | None = None

    def groups(self, p: Profile) -> list[dict]:
        if self.family == "boomer":
            return [{"shrinkage": e, "l2": l} for e, l in product(p.shrinkage, p.l2)]
        grid = [{"learning_rate": e, "reg_lambda": l} for e, l in product(p.learning_rate, p.reg_lambda)]
        if self.family == "cc":
            return [dict(g, order_seed=s) for g in grid for s in range(1, p.cc_orders + 1)]
        return grid

    def configurations(self, group: dict, p: Profile) -> list[str]:
        """Names of the group's configurations, in the order of ``run_group``'s output."""
        base = ",".join(f"{k}={v}" for k, v in group.items())
        if self.family == "boomer":
            return [f"{base},rules={t}" for t in prefixes(p)]
        return [base]

    def run_group(self, X_train, Y_train, X_test, group: dict, p: Profile, seed: int = SEED) -> np.ndarray:
        if self.family == "boomer":
            return boomer_prefix_predictions(self, X_train, Y_train, X_test, group, p, seed)
        common = dict(learning_rate=group["learning_rate"], reg_lambda=group["reg_lambda"], random_state=seed,
                      n_estimators=p.n_trees)
        if self.family == "br":
            model = BinaryRelevance(**common)
        elif self.family == "lp":
            model = LabelPowerset(**common)
        else:
            model = ClassifierChain(order_seed=group["order_seed"], **common)
        return model.fit(X_train, Y_train).predict(X_test)[None]


def prefixes(p: Profile) -> list[int]:
    return list(range(p.rule_step, p.max_rules + 1, p.rule_step))


def boomer_prefix_predictions(method: Method, X_train, Y_train, X_test, group, p: Profile, seed: int) -> np.ndarray:
    """Learn ``p.max_rules`` rules (the default rule included) once; after each prefix of T rules,
    predict the test rows from the running score sums (eq. 2; eq. 18 or eq. 19 for ex.w.)."""
    est = BoomerClassifier.paper_2020(method.loss, method.head_type, max_rules=p.max_rules,
                                      shrinkage=group["shrinkage"], l2_regularization_weight=group["l2"],
                                      random_state=seed)  # the paper's settings, not mlrl-boomer's defaults
    n_test, K = X_test.shape[0], Y_train.shape[1]
    D = X_train.shape[1]
    targets = prefixes(p)
    out = np.empty((len(targets), n_test, K), dtype=np.uint8)
    F = np.zeros((n_test, K))
    batch: list = []
    n_rules = 0
    done = 0

    def predict() -> np.ndarray:
        if est.prediction == "example-wise":
            return RuleModel([], D, K, "example-wise", method.loss, est.label_vectors_).predict_from_scores(F)
        return (F > 0).astype(np.uint8)

    def flush() -> None:
        nonlocal batch
        if batch:
            F[:] += RuleModel(batch, D, K).scores(X_test)
            batch = []

    for record in est.fit_iter(X_train, Y_train):
        batch.extend(record.rules)
        n_rules = record.index + 1
        while done < len(targets) and n_rules >= targets[done]:
            flush()
            out[done] = predict()
            done += 1
    flush()
    while done < len(targets):  # learning stopped early: longer prefixes are the whole model
        out[done] = predict()
        done += 1
    return out


METHODS = {m.name: m for m in (
    Method("boomer-lw-single", "l.w.-log. single", "hamming", "boomer", "logistic-decomposable", "single"),
    Method("boomer-lw-complete", "l.w.-log. multi", "hamming", "boomer", "logistic-decomposable", "complete"),
    Method("boomer-exw-single", "ex.w.-log. single", "subset_01", "boomer", "logistic-non-decomposable", "single"),
    Method("boomer-exw-complete", "ex.w.-log. multi", "subset_01", "boomer", "logistic-non-decomposable",
           "complete"),
    Method("br", "BR", "hamming", "br"),
    Method("lp", "LP", "subset_01", "lp"),
    Method("cc", "CC", "subset_01", "cc"),
)}


def method(name: str) -> Method:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; expected one of {', '.join(METHODS)}") from None
