"""Cost of eq. (19) with mostly distinct training label vectors: ``python -m engine.bench.examplewise``.

Random data with K = 20 labels, each present with probability 0.5 (so nearly every training label
vector is distinct): time of ``predict`` (N test examples against the N training vectors) and of
training 20 rules with complete heads of the example-wise loss (whose training-loss tracker runs
eq. (19) for every covered example after each rule), for growing N; the fitted exponent of time
against N shows how the cost grows."""
from __future__ import annotations

import argparse
import time

import numpy as np

from engine.boomer import BoomerClassifier
from engine.bench.record import add_record_option, recording


def _data(n: int, K: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10)).astype(np.float32)
    Y = (rng.random((n, K)) < 0.5).astype(np.uint8)
    return X, Y


def run(sizes=(5000, 10000, 20000, 50000), K: int = 20, rules: int = 20) -> None:
    X, Y = _data(500, K, 0)
    BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", max_rules=3).fit(X, Y).predict(X)
    fit_t, pred_t = [], []
    print(f"{'N':>7} {'distinct':>9} {'fit s':>8} {'predict s':>10}   ({rules} rules, complete heads, K={K})")
    for n in sizes:
        X, Y = _data(n, K, 1)
        est = BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", max_rules=rules,
                               random_state=1)
        t = time.perf_counter()
        est.fit(X, Y)
        fit_t.append(time.perf_counter() - t)
        Xt, _ = _data(n, K, 2)
        t = time.perf_counter()
        est.predict(Xt)
        pred_t.append(time.perf_counter() - t)
        print(f"{n:>7} {len(est.label_vectors_):>9} {fit_t[-1]:>8.2f} {pred_t[-1]:>10.3f}")
    logn = np.log(np.asarray(sizes, dtype=float))
    print(f"exponent of time against N: fit {np.polyfit(logn, np.log(fit_t), 1)[0]:.2f}, "
          f"predict {np.polyfit(logn, np.log(pred_t), 1)[0]:.2f} (1 = linear, 2 = quadratic)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.bench.examplewise", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[5000, 10000, 20000, 50000])
    p.add_argument("--labels", type=int, default=20)
    p.add_argument("--rules", type=int, default=20)
    add_record_option(p)
    args = p.parse_args(argv)
    with recording("examplewise", args.record):
        run(args.sizes, args.labels, args.rules)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
