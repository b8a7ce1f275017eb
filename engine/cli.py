"""Command line: ``python -m engine {fit,predict,demo,bench,figure1,evaluate,experiment,prepare,cache,export,diff,simplify}``."""
from __future__ import annotations

import argparse
import importlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from . import metrics
from .datasets import SVMLIGHT_SUFFIXES, SYNTHETIC_KINDS, load, make_synthetic
from .boomer import SINGLE_LABEL_CHOICES
from .bench.record import add_record_option, recording
from .fileio import atomic_open, check_output_path
from .validation import features_for_model, matched_to

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


# BOOMER's short options of earlier versions, kept as aliases of the declared parameters
ALIASES = {"max_rules": ("--rules",), "head_type": ("--head",), "l2_regularization_weight": ("--l2",),
           "random_state": ("--seed",)}


def _parameter_type(param):
    """An argparse type from a parameter's declaration (a usage error, exit 2, for a bad value)."""
    def parse(text: str):
        try:
            return param.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = param.kind
    return parse


def _add_learner_options(p: argparse.ArgumentParser, learner: str) -> None:
    """``--learner`` and one option per declared parameter of that learner (engine.parameters)."""
    from .registry import get, learners

    spec = get(learner)
    p.add_argument("--learner", default="boomer", choices=[s.key for s in learners()],
                   help="the learner; its parameters are the options below (python -m engine fit --learner KEY "
                        "--help lists them)")
    group = p.add_argument_group(f"{spec.title} (--learner {spec.key})")
    for param in spec.parameters:
        if param.kind == "object":
            continue
        values = f" ({', '.join(map(str, param.choices))})" if param.kind == "choice" else \
            f" in {param.range_text()}" if param.kind in ("int", "float") else ""
        optional = "; 'none' = no limit" if param.optional else ""
        group.add_argument(param.flag, *ALIASES.get(param.name, ()), dest="param_" + param.name,
                           type=_parameter_type(param), default=argparse.SUPPRESS, metavar=param.kind.upper(),
                           help=f"{param.help or param.label}{values}{optional} [default {param.default!r}]"
                           .replace("%", "%%"))
    names = {q.name for q in spec.parameters}
    if "instance_sampling" in names:
        group.add_argument("--no-bagging", action="store_true", help="instance_sampling='none'")
    if "feature_sampling" in names and spec.key == "boomer":
        group.add_argument("--no-feature-sampling", action="store_true", help="feature_sampling='none'")


def _params(args) -> dict:
    params = {k[len("param_"):]: v for k, v in vars(args).items() if k.startswith("param_")}
    if getattr(args, "no_bagging", False):
        params["instance_sampling"] = "none"
    if getattr(args, "no_feature_sampling", False):
        params["feature_sampling"] = "none"
    return params


def _learner(args, **defaults):
    """The learner the options describe, its parameters checked before any data is read."""
    from .registry import get

    spec = get(args.learner)
    params = {**{k: v for k, v in defaults.items() if any(p.name == k for p in spec.parameters)}, **_params(args)}
    est = spec.make(**params)
    est._check_params()
    return est


def _load(path: str, label_columns: str | None, xml: str | None = None, like=None):
    """Load a data file; ``like`` (the training data) fixes a svmlight test file's attributes and labels."""
    kw = {}
    if label_columns:
        kw["label_columns"] = [int(c) if c.lstrip("-").isdigit() else c for c in label_columns.split(",")]
    if xml:
        if label_columns:
            raise ValueError("--xml and --label-columns both say which columns are labels; give one of them")
        kw["xml"] = xml  # load refuses it for a file that is not ARFF
    if like is not None and path.lower().endswith(SVMLIGHT_SUFFIXES):
        kw.update(n_features=like.n_features, n_labels=like.n_labels)
    return load(path, **kw)


def _report(est, train, test, out) -> None:
    P = est.predict(test.X)
    rank = ""
    if hasattr(est, "decision_function"):
        rank = f"  rank loss {metrics.rank_loss(test.Y, est.decision_function(test.X)):.4f}"
    print(f"test: Hamming {metrics.hamming_loss(test.Y, P):.4f}  subset 0/1 {metrics.subset_zero_one_loss(test.Y, P):.4f}  "
          f"example F1 {metrics.example_f1(test.Y, P):.4f}  micro F1 {metrics.micro_f1(test.Y, P):.4f}{rank}", file=out)


def _step_line(step) -> str:
    if getattr(step, "kind", "") == "revision":  # post-optimization replaced an earlier rule
        return (f"{step.index:5d}  revises rule {step.revises} (pass {step.iteration})  train H "
                f"{step.train_hamming:.4f} S {step.train_subset:.4f}  cov {step.coverage:5d}  {step.rule}")
    if hasattr(step, "rule"):
        return (f"{step.index:5d}  train H {step.train_hamming:.4f} S {step.train_subset:.4f}  "
                f"test H {step.test_hamming:.4f} S {step.test_subset:.4f}  cov {step.coverage:5d}  {step.rule}")
    shown = "  ".join(f"{k} {v:.4g}" for k, v in list(step.metrics.items())[:6])
    return f"{step.index:5d}  {step.kind}  {shown}"


def _train(est, train, test, out, every: int = 1) -> None:
    start = time.perf_counter()
    n, last = 0, None
    for step in est.fit_iter(train.X, train.Y, test.X, test.Y, nominal_attributes=train.nominal_mask,
                             schema=train.schema):
        n, last = n + 1, step
        if step.index % every == 0:
            print(_step_line(step), file=out)
    if last is not None and last.index % every:
        print(_step_line(last), file=out)  # the last step always
    if hasattr(est, "rules_"):
        kept = "" if getattr(est, "selected_steps_", None) is None else \
            f" (global pruning kept {len(est.rules_)} of {sum(len(r.rules) for r in est.records_)})"
        print(f"{len(est.rules_)} rules in {time.perf_counter() - start:.2f} s{kept}", file=out)
    else:
        print(f"{n} steps in {time.perf_counter() - start:.2f} s", file=out)


def cmd_fit(args) -> int:
    if args.model:
        check_output_path(args.model, not_same_as=(args.data, args.test), what="model file")
    est = _learner(args)  # bad parameters are reported before any data is read
    data = _load(args.data, args.label_columns, args.xml)
    if args.test:
        train, test = data, _load(args.test, args.label_columns, args.xml, like=data)
        test, note = matched_to(train, test, f"the test data ({Path(args.test).name})")  # by name, as predict
        if note:
            print(f"note: {note}", file=sys.stderr)
    else:
        train, test = data.train_test_split(args.test_size, seed=args.split_seed)
    print(train.summary())
    _train(est, train, test, sys.stdout, args.every)
    _report(est, train, test, sys.stdout)
    if args.model:
        est.save(args.model)
        print(f"model written to {args.model}")
    return 0


def cmd_demo(args) -> int:
    est = _learner(args, max_rules=200)
    seed = int(getattr(est, "random_state", 1) or 0)  # the data's seed too (the learner's, as before)
    train = make_synthetic(args.kind, n_examples=args.examples, seed=seed)
    test = make_synthetic(args.kind, n_examples=args.examples, seed=seed + 1)
    print(train.summary())
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
    X, note = features_for_model(est, data, f"the data ({Path(args.data).name})")  # names, kinds and count, by name
    if note:
        print(f"note: {note}", file=sys.stderr)
    P = _predicted(est, X, "scores" if args.scores else "probabilities" if args.probabilities else "binary")
    schema = getattr(est, "schema_", None)  # every learner's fitted schema (rule learners: their model's)
    names = list(schema.label_names) if schema is not None else []
    if len(names) != P.shape[1]:
        names = [f"y{k}" for k in range(P.shape[1])]
    as_text = (lambda v: str(int(v))) if P.dtype.kind in "biu" else (lambda v: repr(float(v)))
    lines = [",".join(names)] + [",".join(as_text(v) for v in row) for row in P]
    if args.out:
        with atomic_open(args.out, "w") as out:
            out.write("\n".join(lines) + "\n")
    else:
        print("\n".join(lines))
    if P.dtype.kind in "biu" and data.Y.shape == P.shape and data.Y.any():
        print(f"Hamming {metrics.hamming_loss(data.Y, P):.4f}  subset 0/1 {metrics.subset_zero_one_loss(data.Y, P):.4f}",
              file=sys.stderr)
    return 0


def _predicted(est, X, what: str) -> np.ndarray:
    """``est``'s dense N x K predictions of ``X``: 0/1 labels ('binary'), scores ('scores', its
    decision_function) or marginal probabilities ('probabilities'); ValueError when it has none."""
    try:
        if what == "scores":
            P = est.decision_function(X)
        elif what == "probabilities":
            if not hasattr(est, "predict_proba"):
                raise AttributeError(f"{type(est).__name__} has no probabilities")
            P = est.predict_proba(X)
        else:
            P = est.predict(X)
    except AttributeError as error:  # no such predictions, or a loss without probabilities
        raise ValueError(f"--{what}: the model cannot give them ({error})") from None
    P = np.asarray(P.toarray() if hasattr(P, "toarray") else P)
    if P.ndim == 1:
        P = P[:, None]
    n_labels = getattr(est, "n_labels_", P.shape[1])
    if what == "probabilities" and n_labels == 1 and P.shape[1] == 2:
        P = P[:, 1:]  # one label: P(absent), P(present) -> the label's probability
    return P


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line (and exit code 2), not the whole usage text."""

    def error(self, message):
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def _add_bench_parsers(sub) -> None:
    """``bench`` (against mlrl-boomer, or ``--scale``), ``bench_ranking`` and ``bench_mlme``; each with
    ``--record`` (:mod:`engine.bench.record`)."""
    p = sub.add_parser("bench", help="speed and quality against mlrl-boomer on the benchmark data")
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=1000)
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "yeast", "enron"),
                   help="subset of emotions, yeast, enron")
    p.add_argument("--variants", nargs="*", default=None, choices=("label-wise", "example-wise", "defaults"),
                   help="subset of label-wise, example-wise, defaults (both learners' defaults)")
    p.add_argument("--seeds", type=_bounded_int(1, 1000), default=3,
                   help="runs per row with random_state 1..n (default 3)")
    p.add_argument("--reference-python", metavar="PY",
                   help="a Python interpreter with mlrl-boomer installed (e.g. 3.12 for 0.15.6); default: this one")
    p.add_argument("--single-label-choice", choices=SINGLE_LABEL_CHOICES, default="largest-score",
                   help="our single-label heads' label: largest-score (default; mlrl-boomer 0.15's choice, so both "
                        "learners run the same search) or objective (the paper's, our estimator's default)")
    p.add_argument("--scale", action="store_true",
                   help="instead: synthetic data of growing size with feature (and label) binning, each fit in its "
                        "own process; time, losses, peak memory (300 rules unless --rules)")
    p.add_argument("--sizes", nargs="*", type=_bounded_int(100, 10_000_000), default=None,
                   help="--scale: training set sizes (default 10000 100000)")
    p.add_argument("--labels", nargs="*", type=_bounded_int(2, 10_000), default=None,
                   help="--scale: numbers of labels (default 20 200)")
    p.add_argument("--heads", nargs="*", default=None, choices=("single", "complete", "ex-complete"),
                   help="--scale: the rows (default all: single, complete, and ex-complete — example-wise loss, complete heads)")
    p.add_argument("--max-n-200", type=_bounded_int(100, 10_000_000), default=10_000,
                   help="--scale: the largest N run with 200 or more labels (default 10000)")
    add_record_option(p)
    p.set_defaults(func=_recorded(lambda a: "scale" if a.scale else "bench",
                                  lambda a: "engine.bench.scale" if a.scale else "engine.bench.boomer"))

    p = sub.add_parser("bench_ranking", help="label ranking (Dekel et al. 2003): the four decompositions and "
                                             "BOOMER's scores as rankings, 5-fold CV on the benchmark data")
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "yeast", "enron", "scene"),
                   help="subset of emotions, yeast, enron, scene")
    p.add_argument("--folds", type=_bounded_int(2, 20), default=5)
    p.add_argument("--iterations", type=_bounded_int(1, 1_000_000), default=300)
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=500, help="BOOMER's rules")
    p.add_argument("--scale", action="store_true", help="per-iteration time against edges and non-zeros instead")
    add_record_option(p)
    p.set_defaults(func=_recorded(lambda a: "ranking", lambda a: "engine.bench.ranking"))

    p = sub.add_parser("bench_mlme", help="ML-ME against binary relevance and a single CTBN (k-fold CV)")
    p.add_argument("--data", nargs="*", default=None, choices=("emotions", "scene", "yeast", "enron"),
                   help="subset of emotions, scene, yeast, enron (default: the first three)")
    p.add_argument("--folds", type=_bounded_int(2, 20), default=10)
    add_record_option(p)
    p.set_defaults(func=_recorded(lambda a: "mlme", lambda a: "engine.bench.mlme"))



def build_parser(learner: str = "boomer") -> argparse.ArgumentParser:
    """The command line; ``fit`` and ``demo`` get the options of ``learner``'s declared parameters."""
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
    _add_learner_options(p, learner)
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("demo", help="train on a built-in synthetic data set")
    p.add_argument("--kind", default="conditional-dependence", choices=SYNTHETIC_KINDS)
    p.add_argument("--examples", type=_bounded_int(10, 10_000_000), default=2000)
    p.add_argument("--every", type=_bounded_int(1, MAX_RULES), default=10)
    _add_learner_options(p, learner)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("predict", help="predict with a saved model")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("--label-columns", help="CSV or ARFF: comma-separated label column names or indices")
    p.add_argument("--xml", help="ARFF: the Mulan label file (default: found beside the data file)")
    p.add_argument("--out", help="CSV file for the predictions (default: standard output)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--scores", action="store_true", help="write each label's score (decision_function) "
                      "instead of 0/1")
    what.add_argument("--probabilities", action="store_true", help="write each label's marginal probability "
                      "(predict_proba) instead of 0/1")
    p.set_defaults(func=cmd_predict)

    _add_bench_parsers(sub)

    from .evaluation.table1.command import add_parser as add_evaluate

    add_evaluate(sub, _bounded_int)

    from .evaluation.experiment.command import add_parser as add_experiment

    add_experiment(sub, _bounded_int)

    from .prepare import add_cache_parser
    from .prepare_command import add_parser as add_prepare

    add_prepare(sub)
    add_cache_parser(sub)

    from .model_commands import add_parsers as add_model_commands

    add_model_commands(sub)

    p = sub.add_parser("figure1", help="reproduce the paper's Figure 1 on the synthetic data")
    p.add_argument("--out", default="figure1.png")
    p.add_argument("--rules", type=_bounded_int(1, MAX_RULES), default=1000)
    p.add_argument("--examples", type=_bounded_int(10, 10_000_000), default=10000)
    p.add_argument("--seed", type=_bounded_int(0, 2 ** 32 - 2), default=0)
    p.add_argument("--trajectories", help="also write all trajectories to this JSON or CSV file")
    p.set_defaults(func=lambda a: __import__("engine.evaluation.figure1", fromlist=["main"]).run(a))
    return parser


def _recorded(name_of, module_of):
    """A benchmark subcommand: its module's ``run(args)``, its table appended to its history with
    ``--record`` (:mod:`engine.bench.record`)."""
    def run(args):
        with recording(name_of(args), args.record, " ".join(["python -m engine", *sys.argv[1:]])):
            return importlib.import_module(module_of(args)).run(args)
    return run


def main(argv=None) -> int:
    """Run a command; a user error (bad file, bad value) is one line on stderr and exit code 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_learner_named(argv)).parse_args(argv)
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


def _learner_named(argv: list) -> str:
    """The value of ``--learner`` (the options of ``fit`` and ``demo`` depend on it); 'boomer' when
    there is none or it is unknown (argparse then reports it)."""
    from .registry import learners

    keys = {s.key for s in learners()}
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--learner=") else \
            argv[i + 1] if arg == "--learner" and i + 1 < len(argv) else None
        if value in keys:
            return value
    return "boomer"


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return " ".join(str(exc).split())
