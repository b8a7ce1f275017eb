"""Command line: ``python -m engine {fit,predict,demo,bench,figure1}``."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from . import metrics
from .boomer import HEAD_TYPES, BoomerClassifier
from .core.losses import LOSSES
from .datasets import SYNTHETIC_KINDS, load, make_synthetic


def _add_learner_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--loss", default="logistic-decomposable", choices=LOSSES)
    p.add_argument("--head", default="auto", choices=HEAD_TYPES, help="head type")
    p.add_argument("--rules", type=int, default=1000, help="number of rules (default 1000)")
    p.add_argument("--shrinkage", type=float, default=0.3)
    p.add_argument("--l2", type=float, default=1.0, help="L2 regularisation weight")
    p.add_argument("--no-bagging", action="store_true", help="instance_sampling='none'")
    p.add_argument("--no-feature-sampling", action="store_true", help="feature_sampling='none'")
    p.add_argument("--seed", type=int, default=1)


def _learner(args) -> BoomerClassifier:
    return BoomerClassifier(
        loss=args.loss, head_type=args.head, max_rules=args.rules, shrinkage=args.shrinkage,
        l2_regularization_weight=args.l2,
        instance_sampling="none" if args.no_bagging else "with-replacement",
        feature_sampling="none" if args.no_feature_sampling else "without-replacement",
        random_state=args.seed)


def _load(path: str, label_columns: str | None):
    cols = None
    if label_columns:
        cols = [int(c) if c.lstrip("-").isdigit() else c for c in label_columns.split(",")]
    return load(path, label_columns=cols)


def _report(est, train, test, out) -> None:
    P = est.predict(test.X)
    S = est.decision_function(test.X)
    print(f"test: Hamming {metrics.hamming_loss(test.Y, P):.4f}  subset 0/1 {metrics.subset_zero_one_loss(test.Y, P):.4f}  "
          f"example F1 {metrics.example_f1(test.Y, P):.4f}  micro F1 {metrics.micro_f1(test.Y, P):.4f}  "
          f"rank loss {metrics.rank_loss(test.Y, S):.4f}", file=out)


def _train(est, train, test, out, every: int = 1) -> None:
    start = time.perf_counter()
    for rec in est.fit_iter(train.X, train.Y, test.X, test.Y, nominal_attributes=train.nominal_mask,
                            schema=train.schema):
        if rec.index % every == 0 or rec.index == est.max_rules - 1:
            print(f"{rec.index:5d}  train H {rec.train_hamming:.4f} S {rec.train_subset:.4f}  "
                  f"test H {rec.val_hamming:.4f} S {rec.val_subset:.4f}  cov {rec.coverage:5d}  {rec.rule}", file=out)
    print(f"{len(est.rules_)} rules in {time.perf_counter() - start:.2f} s", file=out)


def cmd_fit(args) -> int:
    data = _load(args.data, args.label_columns)
    if args.test:
        train, test = data, _load(args.test, args.label_columns)
    else:
        train, test = data.train_test_split(args.test_size, seed=args.split_seed)
    print(train.summary())
    est = _learner(args)
    _train(est, train, test, sys.stdout, args.every)
    _report(est, train, test, sys.stdout)
    if args.model:
        est.save(args.model)
        print(f"model written to {args.model}")
    return 0


def cmd_demo(args) -> int:
    train = make_synthetic(args.kind, n_examples=args.examples, seed=args.seed)
    test = make_synthetic(args.kind, n_examples=args.examples, seed=args.seed + 1)
    print(train.summary())
    est = _learner(args)
    _train(est, train, test, sys.stdout, args.every)
    _report(est, train, test, sys.stdout)
    bayes = test.bayes_Y
    print(f"Bayes-optimal: Hamming {metrics.hamming_loss(test.Y, bayes):.4f}  "
          f"subset 0/1 {metrics.subset_zero_one_loss(test.Y, bayes):.4f}")
    return 0


def cmd_predict(args) -> int:
    from .persistence import load_estimator
    est = load_estimator(args.model)
    data = _load(args.data, args.label_columns)
    P = est.predict(data.X)
    out = open(args.out, "w") if args.out else sys.stdout
    try:
        names = list(est.model_.schema.label_names) if est.model_.schema else []
        if not names:
            names = [f"y{k}" for k in range(P.shape[1])]
        print(",".join(names), file=out)
        for row in P:
            print(",".join(str(int(v)) for v in row), file=out)
    finally:
        if out is not sys.stdout:
            out.close()
    if data.Y.shape == P.shape and data.Y.any():
        print(f"Hamming {metrics.hamming_loss(data.Y, P):.4f}  subset 0/1 {metrics.subset_zero_one_loss(data.Y, P):.4f}",
              file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description="BOOMER multi-label rule learning")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="train on a data file, print each rule as it is learned")
    p.add_argument("data")
    p.add_argument("--test", help="separate test file (default: a random split)")
    p.add_argument("--test-size", type=float, default=0.33)
    p.add_argument("--split-seed", type=int, default=0)
    p.add_argument("--label-columns", help="CSV only: comma-separated label column names or indices")
    p.add_argument("--model", help="write the model as JSON")
    p.add_argument("--every", type=int, default=1, help="print every n-th rule")
    _add_learner_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("demo", help="train on a built-in synthetic data set")
    p.add_argument("--kind", default="conditional-dependence", choices=SYNTHETIC_KINDS)
    p.add_argument("--examples", type=int, default=2000)
    p.add_argument("--every", type=int, default=10)
    _add_learner_options(p)
    p.set_defaults(func=cmd_demo, rules=200)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("--label-columns")
    p.add_argument("--out", help="CSV file for the predictions (default: standard output)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("bench", help="speed and quality against mlrl-boomer on the benchmark data")
    p.add_argument("--rules", type=int, default=1000)
    p.add_argument("--data", nargs="*", default=None, help="subset of emotions, yeast, enron")
    p.add_argument("--variants", nargs="*", default=None, help="subset of label-wise, example-wise")
    p.add_argument("--seeds", type=int, default=3, help="runs per row with random_state 1..n (default 3)")
    p.set_defaults(func=lambda a: __import__("engine.bench", fromlist=["main"]).run(a))

    p = sub.add_parser("figure1", help="reproduce the paper's Figure 1 on the synthetic data")
    p.add_argument("--out", default="figure1.png")
    p.add_argument("--rules", type=int, default=1000)
    p.add_argument("--examples", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--trajectories", help="also write all trajectories to this JSON or CSV file")
    p.set_defaults(func=lambda a: __import__("engine.figure1", fromlist=["main"]).run(a))
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
