"""Pruned versus exhaustive head search of the SeCo learner as the number of labels grows
(cf. Fig. 2 of Rapp, Loza Mencía & Fürnkranz, PAKDD 2018).

    python -m engine.bench.seco [--examples 200] [--features 5] [--rules 15] [--max-labels 12]
    python -m engine.bench.seco --reference-python PY     # against mlrl-seco, on emotions and yeast

For K = 2 .. max-labels, synthetic data are drawn (uniform attributes; each label a noisy
threshold of one attribute, labels sharing an attribute are correlated) and a subset-accuracy
SeCo learner (the PAKDD 2018 search, ``search='pakdd-2018{...}'``) is trained with ``head_search='pruned'``
and ``'exhaustive'``.  The table shows the
head evaluations and training time of both and checks that they learn identical rules.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from engine.seco import SeCoClassifier
from engine.bench.record import add_record_option, recording


def synthetic(n_examples: int, n_features: int, n_labels: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.random((n_examples, n_features)).astype(np.float32)
    source = np.arange(n_labels) % n_features
    thresholds = rng.uniform(0.3, 0.7, n_labels)
    noise = rng.random((n_examples, n_labels)) < 0.1
    Y = ((X[:, source] > thresholds) ^ noise).astype(np.uint8)
    return X, Y


def paper_search(search: str, n_rules: int) -> SeCoClassifier:
    """Subset accuracy with the PAKDD 2018 search, ``search`` 'pruned' or 'exhaustive', ``n_rules`` rules."""
    return SeCoClassifier(search=f"pakdd-2018{{heuristic=subset-accuracy,head_search={search}}}", max_rules=n_rules)


def run(n_examples=200, n_features=5, n_rules=15, max_labels=12, seed=0, out=print):
    # Compile the kernels outside the timings.
    X, Y = synthetic(20, 2, 2, seed)
    for search in ("pruned", "exhaustive"):
        paper_search(search, 2).fit(X, Y)
    out(f"SeCo, subset accuracy: {n_examples} examples, {n_features} attributes, {n_rules} rules")
    out(f"{'K':>3} {'pruned evals':>14} {'exhaustive evals':>17} {'ratio':>8} {'pruned s':>9} {'exhaustive s':>13}"
        f"  same rules")
    rows = []
    for K in range(2, max_labels + 1):
        X, Y = synthetic(n_examples, n_features, K, seed + K)
        result = {}
        for search in ("pruned", "exhaustive"):
            est = paper_search(search, n_rules)
            t0 = time.perf_counter()
            est.fit(X, Y)
            result[search] = (est.n_head_evaluations_, time.perf_counter() - t0, est.rules_)
        (ep, tp, rp), (ee, te, re) = result["pruned"], result["exhaustive"]
        same = len(rp) == len(re) and all(a == b for a, b in zip(rp, re))
        rows.append((K, ep, ee, tp, te, same))
        out(f"{K:>3} {ep:>14,} {ee:>17,} {ee / max(ep, 1):>8.1f} {tp:>9.3f} {te:>13.3f}  {'yes' if same else 'NO'}")
    return rows


# mlrl-seco's settings beside ours: both defaults (the same algorithm; instance samples differ by the
# random generators), the same deterministic settings (the same rules: tests/test_mlrl_seco_parity.py),
# and the PAKDD 2018 search of ours against mlrl-seco's F-measure
_PLAIN = dict(instance_sampling="none", max_rules=100)
REFERENCE_ROWS = (
    ("defaults", {}, {}),
    ("no sampling, 100 rules", _PLAIN, _PLAIN),
    ("partial heads, peak", dict(head_type="partial", **_PLAIN), dict(head_type="partial", **_PLAIN)),
    ("pakdd-2018 f-measure", dict(heuristic="f-measure", **_PLAIN),
     dict(search="pakdd-2018{heuristic=f-measure}", rule_induction="top-down-greedy{max_conditions=5}",
          max_rules=100)),
)


def against_reference(python: str, data=("emotions", "yeast"), repeats=3, out=print) -> list:
    """Our SeCo and mlrl-seco (in ``python``) on a 2/3 : 1/3 split (seed 0): median fit time and test losses."""
    from engine import metrics
    from engine.bench.boomer import DATA_DIR, DATASETS, SubprocessReference
    from engine.datasets import load

    reference = SubprocessReference(python)
    SeCoClassifier(max_rules=2).fit(np.random.rand(20, 2), np.random.rand(20, 2) > 0.5)  # compile
    out(f"SeCo against mlrl-seco {reference.version}: 2/3 : 1/3 split (seed 0), median of {repeats} fits")
    out(f"{'data':9s} {'settings':22s} {'ours s':>7s} {'ref s':>7s} {'ratio':>6s} | {'ours Ham':>8s} {'ref Ham':>8s} "
        f"{'ours 0/1':>8s} {'ref 0/1':>8s}")
    rows = []
    for name in data:
        ds = load(DATA_DIR / DATASETS[name])
        train, test = ds.train_test_split(0.33, seed=0)
        for title, ref_settings, our_settings in REFERENCE_ROWS:
            ours_t, ref_t = [], []
            for _ in range(repeats):
                est = SeCoClassifier(**our_settings)
                t0 = time.perf_counter()
                est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask)
                ours_t.append(time.perf_counter() - t0)
                seconds, P_ref = reference.fit_predict({"__learner__": "seco", **ref_settings}, train.X, train.Y,
                                                       test.X)
                ref_t.append(seconds)
            P = est.predict(test.X)
            o, r = float(np.median(ours_t)), float(np.median(ref_t))
            losses = [metrics.hamming_loss(test.Y, P), metrics.hamming_loss(test.Y, P_ref),
                      metrics.subset_zero_one_loss(test.Y, P), metrics.subset_zero_one_loss(test.Y, P_ref)]
            rows.append((name, title, o, r, *losses))
            out(f"{name:9s} {title:22s} {o:7.2f} {r:7.2f} {o / r:6.2f} | "
                + " ".join(f"{100 * v:8.2f}" for v in losses))
    out("(max_rules counts the default rule in both; losses in percent)")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.bench.seco", description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference-python", metavar="PY",
                        help="instead: against mlrl-seco installed in interpreter PY, on emotions and yeast")
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--rules", type=int, default=15)
    parser.add_argument("--max-labels", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args(argv)
    with recording("seco", args.record):
        if args.reference_python:
            against_reference(args.reference_python)
            return 0
        rows = run(args.examples, args.features, args.rules, args.max_labels, args.seed)
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
