"""Simplification with a bounded loss against mlrl-boomer's post-pruning: how many rules each keeps
and the test loss it reaches (issue 59).

    python -m engine.bench.simplify_pruning --reference-python refvenv/bin/python [--data emotions yeast enron]
        [--rules 1000] [--epsilon 0.005] [--record]

Per data set (the benchmark's split: 67 % training, 33 % test, seed 0; the same matrices for both), the
default settings of both learners (mlrl-boomer 0.15.6's), ``--rules`` rules, seed 1:

- **ours, simplified on the test set**: the full model simplified (rules, then conditions) with the
  Hamming loss on the test set within ε of the full model's: the issue's measure, optimistic since
  the test set chooses;
- **ours, simplified on a holdout**: fitted on the training set without a 33 % holdout, simplified on
  that holdout, evaluated on the test set: the same data budget as post-pruning's;
- **mlrl-boomer / ours, post-pruning**: ``global_pruning='post-pruning'``, ``holdout='stratified-output-wise'`` (a 33 %
  holdout of the training set): the prefix of the rule list whose holdout loss is smallest.

Rules are counted without the default rule."""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from engine import BoomerClassifier, metrics
from engine.bench.boomer import DATA_DIR, DATASETS, run_driver
from engine.bench.record import add_record_option, recording
from engine.simplify import simplify

POST_PRUNING = {"global_pruning": "post-pruning", "holdout": "stratified-output-wise"}  # what the default resolves to


def _rules(model) -> int:
    return sum(1 for r in model.rules if r.conditions)


def _row(what: str, rules: int, hamming: float, seconds: float) -> str:
    return f"| {what} | {rules} | {100 * hamming:.2f} | {seconds:.1f} |"


def ours(train, test, n_rules: int, epsilon: float) -> list[str]:
    """Our rows: the full model, simplified on the test set, simplified on a holdout, post-pruned."""
    start = time.perf_counter()
    est = BoomerClassifier(max_rules=n_rules, random_state=1).fit(train.X, train.Y)
    full = metrics.hamming_loss(test.Y, est.predict(test.X))
    rows = [_row("ours, full model", _rules(est.model_), full, time.perf_counter() - start)]
    start = time.perf_counter()
    on_test = simplify(est.model_, test.X, test.Y, "hamming", epsilon)
    rows.append(_row(f"ours, simplified on the test set (ε {100 * epsilon:g} pp)", _rules(on_test.model),
                     on_test.loss, time.perf_counter() - start))
    fit, holdout = train.train_test_split(0.33, seed=1)
    start = time.perf_counter()
    small = BoomerClassifier(max_rules=n_rules, random_state=1).fit(fit.X, fit.Y)
    on_holdout = simplify(small.model_, holdout.X, holdout.Y, "hamming", epsilon)
    rows.append(_row(f"ours, simplified on a 33 % holdout (ε {100 * epsilon:g} pp)", _rules(on_holdout.model),
                     metrics.hamming_loss(test.Y, on_holdout.model.predict(test.X)), time.perf_counter() - start))
    start = time.perf_counter()
    pruned = BoomerClassifier(max_rules=n_rules, random_state=1, **POST_PRUNING).fit(train.X, train.Y)
    rows.append(_row("ours, post-pruning", _rules(pruned.model_), metrics.hamming_loss(test.Y, pruned.predict(test.X)),
                     time.perf_counter() - start))
    return rows


def reference(python: str, train, test, n_rules: int) -> str:
    """mlrl-boomer's post-pruned model: its used rules and test Hamming loss."""
    with tempfile.TemporaryDirectory(prefix="boomer-pruning-") as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, X_train=train.X, Y_train=train.Y, X_test=test.X)
        answer = run_driver(python, "reference", data, {"max_rules": n_rules, "random_state": 1, **POST_PRUNING,
                                                        "__rules__": True})
    used = answer.get("used_rules", len(answer["rules"]))
    n_default = sum(1 for r in answer["rules"][:used] if not r["conditions"])
    return _row(f"mlrl-boomer {answer['version']}, post-pruning", used - n_default,
                metrics.hamming_loss(test.Y, answer["predictions"]), answer["fit_seconds"])


def run(args) -> None:
    from engine.datasets import load

    for name in args.data:
        train, test = load(DATA_DIR / DATASETS[name]).train_test_split(0.33, seed=0)
        print(f"\n{name}: {train.X.shape[0]} training, {test.X.shape[0]} test examples, {train.Y.shape[1]} labels; "
              f"{args.rules} rules, defaults, seed 1\n")
        print("| model | rules | test Hamming (%) | seconds |\n|---|---:|---:|---:|", flush=True)
        for row in ours(train, test, args.rules, args.epsilon):
            print(row, flush=True)
        if args.reference_python:
            print(reference(args.reference_python, train, test, args.rules), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.bench.simplify_pruning", description=__doc__.splitlines()[0])
    parser.add_argument("--reference-python", metavar="PY", help="a Python with mlrl-boomer (e.g. refvenv/bin/python)")
    parser.add_argument("--data", nargs="*", choices=sorted(DATASETS), default=["emotions", "yeast", "enron"])
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--epsilon", type=float, default=0.005, help="the loss bound, a fraction (0.005 = 0.5 pp)")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.rules < 1 or not args.epsilon >= 0:
        parser.error("--rules must be at least 1 and --epsilon at least 0")
    with recording("simplify_pruning", args.record):
        run(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
