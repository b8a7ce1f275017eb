"""Pruned versus exhaustive head search of the SeCo learner as the number of labels grows
(cf. Fig. 2 of Rapp, Loza Mencía & Fürnkranz, PAKDD 2018).

    python -m engine.bench_seco [--examples 200] [--features 5] [--rules 15] [--max-labels 12]

For K = 2 .. max-labels, synthetic data are drawn (uniform attributes; each label a noisy
threshold of one attribute, labels sharing an attribute are correlated) and a subset-accuracy
SeCo learner is trained with ``head_search='pruned'`` and ``'exhaustive'``.  The table shows the
head evaluations and training time of both and checks that they learn identical rules.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from .seco import SeCoClassifier


def synthetic(n_examples: int, n_features: int, n_labels: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.random((n_examples, n_features)).astype(np.float32)
    source = np.arange(n_labels) % n_features
    thresholds = rng.uniform(0.3, 0.7, n_labels)
    noise = rng.random((n_examples, n_labels)) < 0.1
    Y = ((X[:, source] > thresholds) ^ noise).astype(np.uint8)
    return X, Y


def run(n_examples=200, n_features=5, n_rules=15, max_labels=12, seed=0, out=print):
    # Compile the kernels outside the timings.
    X, Y = synthetic(20, 2, 2, seed)
    for search in ("pruned", "exhaustive"):
        SeCoClassifier(head_search=search, max_rules=1).fit(X, Y)
    out(f"SeCo, subset accuracy: {n_examples} examples, {n_features} attributes, {n_rules} rules")
    out(f"{'K':>3} {'pruned evals':>14} {'exhaustive evals':>17} {'ratio':>8} {'pruned s':>9} {'exhaustive s':>13}"
        f"  same rules")
    rows = []
    for K in range(2, max_labels + 1):
        X, Y = synthetic(n_examples, n_features, K, seed + K)
        result = {}
        for search in ("pruned", "exhaustive"):
            est = SeCoClassifier(heuristic="subset-accuracy", head_search=search, max_rules=n_rules)
            t0 = time.perf_counter()
            est.fit(X, Y)
            result[search] = (est.n_head_evaluations_, time.perf_counter() - t0, est.rules_)
        (ep, tp, rp), (ee, te, re) = result["pruned"], result["exhaustive"]
        same = len(rp) == len(re) and all(a == b for a, b in zip(rp, re))
        rows.append((K, ep, ee, tp, te, same))
        out(f"{K:>3} {ep:>14,} {ee:>17,} {ee / max(ep, 1):>8.1f} {tp:>9.3f} {te:>13.3f}  {'yes' if same else 'NO'}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--rules", type=int, default=15)
    parser.add_argument("--max-labels", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = run(args.examples, args.features, args.rules, args.max_labels, args.seed)
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
