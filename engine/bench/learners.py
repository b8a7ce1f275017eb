"""``python -m engine.bench.learners``: our own learners' fit times, for A/B runs between checkouts.

No reference is involved: BOOMER (label-wise single-label heads, example-wise complete heads, the
settings of ``python -m engine bench``), AdaBoost.MH (its defaults) and SeCo (F-measure, at most 5
conditions) on the ``../shared/data`` sets, 2/3 : 1/3 split with seed 0, a warm-up fit first, then
the median fit time over ``--repeats`` fits and the test Hamming loss.  Run it in each checkout with
the same arguments, one after the other, on an otherwise idle machine; ``import engine`` drops
kernels cached from other sources, so each checkout runs its own code.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier, metrics
from engine.bench.boomer import DATA_DIR, DATASETS, _settings
from engine.datasets import load
from engine.bench.record import add_record_option, recording

_NOT_ESTIMATOR_PARAMS = ("rule_pruning", "default_rule")  # passed to the reference only


def _boomer(loss, head, rules):
    def make(seed):
        settings = _settings(loss, head, rules, seed)
        for key in _NOT_ESTIMATOR_PARAMS:
            settings.pop(key)
        return BoomerClassifier(**settings)
    return make


LEARNERS = {
    "boomer-label-wise": _boomer("logistic-decomposable", "single", 1000),
    "boomer-example-wise": _boomer("logistic-non-decomposable", "complete", 1000),
    "adaboost-mh": lambda seed: AdaBoostMHClassifier(),
    "seco": lambda seed: SeCoClassifier(random_state=seed),
}


def run(data: list[str], learners: list[str], repeats: int) -> list[tuple]:
    rows = []
    for name in data:
        dataset = load(DATA_DIR / DATASETS[name])
        train, test = dataset.train_test_split(0.33, seed=0)
        for key in learners:
            LEARNERS[key](1).fit(train.X, train.Y)  # warm-up: kernels compiled or loaded
            times, losses = [], []
            for r in range(repeats):
                est = LEARNERS[key](1 + r % 3)
                start = time.perf_counter()
                est.fit(train.X, train.Y)
                times.append(time.perf_counter() - start)
                losses.append(metrics.hamming_loss(test.Y, est.predict(test.X)))
            rows.append((name, key, float(np.median(times)), float(min(times)), 100 * float(np.mean(losses))))
            print(f"{name:9s} {key:20s} median {rows[-1][2]:8.3f} s  min {rows[-1][3]:8.3f} s  "
                  f"test Hamming {rows[-1][4]:6.2f}", flush=True)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.bench.learners", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", choices=sorted(DATASETS), default=["emotions", "yeast"])
    parser.add_argument("--learners", nargs="*", choices=sorted(LEARNERS), default=sorted(LEARNERS))
    parser.add_argument("--repeats", type=int, default=6, help="timed fits per row (seeds 1, 2, 3, 1, ...)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    missing = [n for n in args.data if not (DATA_DIR / DATASETS[n]).is_file()]
    if missing:
        parser.error(f"data not found in {DATA_DIR}: {', '.join(missing)}")
    with recording("learners", args.record):
        run(args.data, args.learners, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
