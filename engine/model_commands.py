"""Commands on saved rule models: ``export`` (plain Python, text), ``diff`` and ``simplify``."""
from __future__ import annotations


def cmd_export(args) -> int:
    from .fileio import check_output_path
    from .model_export import rule_model_of, write_python, write_text
    from .persistence import load_estimator

    if not (args.python or args.text):
        raise ValueError("export: give --python OUT.py and/or --text OUT.txt")
    for out, what in ((args.python, "Python file"), (args.text, "text file")):
        if out:
            check_output_path(out, not_same_as=(args.model,), what=what)
    if args.python and args.text and args.python == args.text:
        raise ValueError("export: --python and --text name the same file")
    est = load_estimator(args.model)
    model = rule_model_of(est)
    if args.python:
        write_python(model, args.python, source=str(args.model))
        print(f"{len(model.rules)} rules written to {args.python} as plain Python")
    if args.text:
        write_text(model, args.text)
        print(f"{len(model.rules)} rules written to {args.text} as text")
    return 0


def _data(args):
    """The data file, or with ``--test-size`` the test part of the random split ``fit`` makes with the
    same ``--test-size`` and ``--split-seed``."""
    from .datasets import load

    kw = {}
    if args.label_columns:
        kw["label_columns"] = [int(c) if c.lstrip("-").isdigit() else c for c in args.label_columns.split(",")]
    data = load(args.data, **kw)
    if args.test_size is None:
        return data
    if not 0.0 < args.test_size < 1.0:
        raise ValueError(f"--test-size {args.test_size} is outside (0, 1)")
    return data.train_test_split(args.test_size, seed=args.split_seed)[1]


def _add_data_options(p) -> None:
    p.add_argument("--test-size", type=float, default=None,
                   help="use the test part of fit's random split of DATA (same --test-size and --split-seed as fit)")
    p.add_argument("--split-seed", type=int, default=0)
    p.add_argument("--label-columns", help="CSV or ARFF: comma-separated label column names or indices")


def cmd_diff(args) -> int:
    from .fileio import check_output_path
    from .model_diff import diff_models, markdown_report, write_report
    from .model_export import rule_model_of
    from .persistence import load_estimator

    if args.report:
        check_output_path(args.report, not_same_as=(args.model_a, args.model_b, args.data), what="report file")
    a, b = (rule_model_of(load_estimator(m)) for m in (args.model_a, args.model_b))
    data = _data(args)
    diff = diff_models(a, b, data.X, data.Y, tolerance=args.tolerance)
    names = (args.model_a, args.model_b)
    if args.report:
        write_report(diff, args.report, *names)
        print(f"{len(diff.matches)} rules matched ({len(diff.changed_heads)} with different heads), "
              f"{len(diff.only_a)} only in {names[0]}, {len(diff.only_b)} only in {names[1]}, "
              f"{len(diff.differing_examples)} examples predicted differently; report written to {args.report}")
    else:
        print(markdown_report(diff, *names), end="")
    return 0


def cmd_simplify(args) -> int:
    from .fileio import atomic_write_text, check_output_path
    from .model_export import rule_model_of
    from .persistence import load_estimator
    from .simplify import curve_csv, simplify

    check_output_path(args.out, not_same_as=(args.model, args.data), what="model file")
    if args.curve:
        check_output_path(args.curve, not_same_as=(args.model, args.data, args.out), what="curve file")
    est = load_estimator(args.model)
    model = rule_model_of(est)
    data = _data(args)
    result = simplify(model, data.X, data.Y, args.measure, args.epsilon, conditions=not args.rules_only)
    est.model_ = result.model
    est.save(args.out)
    if args.curve:
        atomic_write_text(args.curve, curve_csv(result))
    n_conditions = sum(len(r.conditions) for r in model.rules)
    print(f"{args.measure} loss {result.full_loss:.4f} with {len(model.rules)} rules ({n_conditions} conditions); "
          f"{result.loss:.4f} with {len(result.model.rules)} rules "
          f"({sum(len(r.conditions) for r in result.model.rules)} conditions), epsilon {args.epsilon:g}")
    removed = ", ".join(map(str, result.removed_rules[:20])) + (", …" if len(result.removed_rules) > 20 else "")
    print(f"{len(result.removed_rules)} rules removed (original indices, in order: {removed or 'none'}"
          f"{'; all in --curve' if args.curve else ''}); {len(result.removed_conditions)} conditions removed from "
          f"the rules kept; model written to {args.out}")
    return 0


def _measure(text: str) -> str:
    from argparse import ArgumentTypeError

    from .simplify_measures import additive_measure
    try:
        additive_measure(text)
    except ValueError as exc:
        raise ArgumentTypeError(str(exc)) from None
    return text


def _epsilon(text: str) -> float:
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{value} is not >= 0")
    return value


def add_parsers(sub) -> None:
    p = sub.add_parser("export", help="a saved rule model as one plain-Python file (predict, decision_function, "
                                      "predict_proba; standard library only) or as readable text")
    p.add_argument("model", help="a model file written by fit --model or the window")
    p.add_argument("--python", metavar="OUT.py", help="write the model as a standalone Python module")
    p.add_argument("--text", metavar="OUT.txt", help="write the rules as IF … THEN … text")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("diff", help="compare two rule models on the same data: rules matched by their bodies, "
                                    "heads that differ, rules only in one, losses per label, examples predicted "
                                    "differently")
    p.add_argument("model_a")
    p.add_argument("model_b")
    p.add_argument("data", help="the data both models are compared on (e.g. the test set)")
    p.add_argument("--tolerance", type=float, default=0.01,
                   help="threshold gap allowed between matched conditions, as a fraction of the attribute's range "
                        "on the data (default 0.01)")
    _add_data_options(p)
    p.add_argument("--report", metavar="OUT.md", help="write the report (Markdown; CSV for a .csv name) instead "
                                                      "of printing it")
    p.set_defaults(func=cmd_diff)

    from .simplify import MEASURES

    p = sub.add_parser("simplify", help="remove rules, then conditions, while the loss on DATA stays within "
                                        "epsilon of the full model's (greedy backward elimination)")
    p.add_argument("model")
    p.add_argument("data", help="the data the loss is measured on (a holdout or test set)")
    p.add_argument("--epsilon", type=_epsilon, default=0.005, help="allowed loss increase (default 0.005)")
    p.add_argument("--measure", type=_measure, default="hamming",
                   help=f"the bounded measure, as a loss: {', '.join(MEASURES)} (ndcg@k for any k; default hamming)")
    p.add_argument("--out", required=True, metavar="M2.json", help="the simplified model file")
    p.add_argument("--rules-only", action="store_true", help="remove whole rules only, no conditions")
    p.add_argument("--curve", metavar="OUT.csv", help="write the curve: rules and conditions kept vs loss")
    _add_data_options(p)
    p.set_defaults(func=cmd_simplify)


__all__ = ["add_parsers", "cmd_export"]
