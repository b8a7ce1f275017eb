"""Command line: ``python -m engine {fit,predict,demo,bench,figure1}``."""
from __future__ import annotations

import argparse
import sys
import time
import warnings


from . import metrics
from .boomer import HEAD_TYPES, STATISTIC_TYPES, BoomerClassifier
from .core.losses import LOSSES
from .datasets import SVMLIGHT_SUFFIXES, SYNTHETIC_KINDS, load, make_synthetic
from .fileio import atomic_open, check_output_path
from .options import parse_option, value_names

MAX_RULES = 10_000_000


def _bounded_int(low: int, high: int):
    """An argparse type: an integer in [low, high] (a usage error, exit 2, otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside [{low}, {high}]")
        return value
    return parse


def _bounded_float(low: float, high: float, low_open: bool = True, high_open: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        ok = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
        if not ok:
            interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise argparse.ArgumentTypeError(f"{value} is outside {interval}")
        return value
    return parse


def _add_learner_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--loss", default="logistic-decomposable", choices=LOSSES)
    p.add_argument("--head", default="auto", type=_option("head_type"),
                   help=f"head type: {', '.join(HEAD_TYPES)}, with mlrl-boomer's options in braces, e.g. "
                        "'partial-fixed{output_ratio=0.2}'")
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=1000, help="number of rules (default 1000)")
    p.add_argument("--shrinkage", type=_bounded_float(0.0, 1.0), default=0.3, help="in (0, 1]")
    p.add_argument("--l2", type=_bounded_float(0.0, 1e12, low_open=False), default=1.0,
                   help="L2 regularisation weight")
    p.add_argument("--no-bagging", action="store_true", help="instance_sampling='none'")
    p.add_argument("--no-feature-sampling", action="store_true", help="feature_sampling='none'")
    for name, example in (("feature_binning", "equal-width{bin_ratio=0.33}"), ("label_binning", "equal-width"),
                          ("holdout", "stratified-output-wise{holdout_set_size=0.33}"),
                          ("global_pruning", "pre-pruning{min_rules=100}")):
        p.add_argument("--" + name.replace("_", "-"), default="none", type=_option(name),
                       help=f"{', '.join(value_names(name))} (mlrl-boomer's values and options, e.g. {example!r})")
    p.add_argument("--statistic-type", default="64-bit", choices=STATISTIC_TYPES)
    p.add_argument("--seed", type=_bounded_int(0, 2 ** 32 - 1), default=1)


def _option(parameter: str):
    """An argparse type: a value of an mlrl-boomer parameter with options (usage error otherwise)."""
    def parse(text: str) -> str:
        try:
            parse_option(parameter, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    return parse


def _learner(args) -> BoomerClassifier:
    return BoomerClassifier(
        loss=args.loss, head_type=args.head, max_rules=args.rules, shrinkage=args.shrinkage,
        l2_regularization_weight=args.l2,
        instance_sampling="none" if args.no_bagging else "with-replacement",
        feature_sampling="none" if args.no_feature_sampling else "without-replacement",
        feature_binning=args.feature_binning, label_binning=args.label_binning, holdout=args.holdout,
        global_pruning=args.global_pruning, statistic_type=args.statistic_type, random_state=args.seed)


def _load(path: str, label_columns: str | None, xml: str | None = None, like=None):
    """Load a data file; ``like`` (the training data) fixes a svmlight test file's attributes and labels."""
    kw = {}
    if label_columns:
        kw["label_columns"] = [int(c) if c.lstrip("-").isdigit() else c for c in label_columns.split(",")]
    elif xml and path.lower().endswith(".arff"):
        kw["xml"] = xml
    if like is not None and path.lower().endswith(SVMLIGHT_SUFFIXES):
        kw.update(n_features=like.n_features, n_labels=like.n_labels)
    return load(path, **kw)


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
    kept = "" if getattr(est, "selected_steps_", None) is None else \
        f" (global pruning kept {len(est.rules_)} of {len(est.records_)})"
    print(f"{len(est.rules_)} rules in {time.perf_counter() - start:.2f} s{kept}", file=out)


def cmd_fit(args) -> int:
    if args.model:
        check_output_path(args.model, not_same_as=(args.data, args.test), what="model file")
    data = _load(args.data, args.label_columns, args.xml)
    if args.test:
        train, test = data, _load(args.test, args.label_columns, args.xml, like=data)
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
    if args.out:
        check_output_path(args.out, not_same_as=(args.model, args.data), what="predictions file")
    est = load_estimator(args.model)
    data = _load(args.data, args.label_columns, args.xml)
    P = est.predict(data.X)
    names = list(est.model_.schema.label_names) if est.model_.schema else []
    if not names:
        names = [f"y{k}" for k in range(P.shape[1])]
    lines = [",".join(names)] + [",".join(str(int(v)) for v in row) for row in P]
    if args.out:
        with atomic_open(args.out, "w") as out:
            out.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    if data.Y.shape == P.shape and data.Y.any():
        print(f"Hamming {metrics.hamming_loss(data.Y, P):.4f}  subset 0/1 {metrics.subset_zero_one_loss(data.Y, P):.4f}",
              file=sys.stderr)
    return 0


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line (and exit code 2), not the whole usage text."""

    def error(self, message):
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="BOOMER multi-label rule learning")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fit", help="train on a data file, print each rule as it is learned")
    p.add_argument("data")
    p.add_argument("--test", help="separate test file (default: a random split)")
    p.add_argument("--test-size", type=_bounded_float(0.0, 1.0, high_open=True), default=0.33, help="in (0, 1)")
    p.add_argument("--split-seed", type=int, default=0)
    p.add_argument("--label-columns", help="CSV or ARFF: comma-separated label column names or indices")
    p.add_argument("--xml", help="ARFF: the Mulan label file (default: found beside the data file, also for "
                                 "NAME-train.arff / NAME-test.arff sharing NAME.xml)")
    p.add_argument("--model", help="write the model as JSON")
    p.add_argument("--every", type=_bounded_int(1, MAX_RULES), default=1, help="print every n-th rule")
    _add_learner_options(p)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("demo", help="train on a built-in synthetic data set")
    p.add_argument("--kind", default="conditional-dependence", choices=SYNTHETIC_KINDS)
    p.add_argument("--examples", type=_bounded_int(10, 10_000_000), default=2000)
    p.add_argument("--every", type=_bounded_int(1, MAX_RULES), default=10)
    _add_learner_options(p)
    p.set_defaults(func=cmd_demo, rules=200)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("--label-columns", help="CSV or ARFF: comma-separated label column names or indices")
    p.add_argument("--xml", help="ARFF: the Mulan label file (default: found beside the data file)")
    p.add_argument("--out", help="CSV file for the predictions (default: standard output)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("bench", help="speed and quality against mlrl-boomer on the benchmark data")
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=1000)
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "yeast", "enron"),
                   help="subset of emotions, yeast, enron")
    p.add_argument("--variants", nargs="*", default=None, choices=("label-wise", "example-wise"),
                   help="subset of label-wise, example-wise")
    p.add_argument("--seeds", type=_bounded_int(1, 1000), default=3,
                   help="runs per row with random_state 1..n (default 3)")
    p.add_argument("--reference-python", metavar="PY",
                   help="a Python interpreter with mlrl-boomer installed (e.g. 3.12 for 0.15.6); default: this one")
    p.add_argument("--scale", action="store_true",
                   help="instead: synthetic data of growing size with feature (and label) binning, each fit in its "
                        "own process; time, losses, peak memory (300 rules unless --rules)")
    p.add_argument("--sizes", nargs="*", type=_bounded_int(100, 10_000_000), default=None,
                   help="--scale: training set sizes (default 10000 100000)")
    p.add_argument("--labels", nargs="*", type=_bounded_int(2, 10_000), default=None,
                   help="--scale: numbers of labels (default 20 200)")
    p.add_argument("--heads", nargs="*", default=None, choices=("single", "complete"),
                   help="--scale: head types (default both)")
    p.add_argument("--max-n-200", type=_bounded_int(100, 10_000_000), default=10_000,
                   help="--scale: the largest N run with 200 or more labels (default 10000)")
    p.set_defaults(func=lambda a: __import__("engine.bench_scale" if a.scale else "engine.bench",
                                             fromlist=["run"]).run(a))

    p = sub.add_parser("bench_ranking", help="label ranking (Dekel et al. 2003): the four decompositions and "
                                             "BOOMER's scores as rankings, 5-fold CV on the benchmark data")
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "yeast", "enron", "scene"),
                   help="subset of emotions, yeast, enron, scene")
    p.add_argument("--folds", type=_bounded_int(2, 20), default=5)
    p.add_argument("--iterations", type=_bounded_int(1, 1_000_000), default=300)
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=500, help="BOOMER's rules")
    p.add_argument("--scale", action="store_true", help="per-iteration time against edges and non-zeros instead")
    p.set_defaults(func=lambda a: __import__("engine.bench_ranking", fromlist=["run"]).run(a))

    p = sub.add_parser("bench_mlme", help="ML-ME against binary relevance and a single CTBN (k-fold CV)")
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "scene", "yeast", "enron"),
                   help="subset of emotions, scene, yeast, enron (default: the first three)")
    p.add_argument("--folds", type=_bounded_int(2, 20), default=10)
    p.set_defaults(func=lambda a: __import__("engine.bench_mlme", fromlist=["run"]).run(a))

    from .evaluation.command import add_parser as add_evaluate

    add_evaluate(sub, _bounded_int)

    p = sub.add_parser("figure1", help="reproduce the paper's Figure 1 on the synthetic data")
    p.add_argument("--out", default="figure1.png")
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=1000)
    p.add_argument("--examples", type=_bounded_int(10, 10_000_000), default=10000)
    p.add_argument("--seed", type=_bounded_int(0, 2 ** 32 - 2), default=0)
    p.add_argument("--trajectories", help="also write all trajectories to this JSON or CSV file")
    p.set_defaults(func=lambda a: __import__("engine.figure1", fromlist=["main"]).run(a))
    return parser


def main(argv=None) -> int:
    """Run a command; a user error (bad file, bad value) is one line on stderr and exit code 2."""
    args = build_parser().parse_args(argv)
    previous = warnings.showwarning
    warnings.showwarning = lambda message, *rest, **kw: print(f"warning: {message}", file=sys.stderr)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = previous


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return " ".join(str(exc).split())
