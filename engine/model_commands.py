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


def add_parsers(sub) -> None:
    p = sub.add_parser("export", help="a saved rule model as one plain-Python file (predict, decision_function, "
                                      "predict_proba; standard library only) or as readable text")
    p.add_argument("model", help="a model file written by fit --model or the window")
    p.add_argument("--python", metavar="OUT.py", help="write the model as a standalone Python module")
    p.add_argument("--text", metavar="OUT.txt", help="write the rules as IF … THEN … text")
    p.set_defaults(func=cmd_export)


__all__ = ["add_parsers", "cmd_export"]
