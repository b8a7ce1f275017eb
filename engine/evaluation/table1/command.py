"""``python -m engine evaluate``: Table 1 on Dask, resumable, reported from the store: a thin alias of
``python -m engine experiment`` on a profile's experiment file (:mod:`.table1`), with Table 1's report."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from .methods import METHODS


def parse_methods(text: str | None) -> list[str] | None:
    """Table 1's method names of ``--methods`` (None: all seven)."""
    if not text:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"unknown method {unknown[0]!r}; expected one of {', '.join(METHODS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"--methods names a method twice: {text}")
    return names


def is_regression_file(profile: str) -> bool:
    """Whether a ``--profile`` is a regression experiment file."""
    from ..experiment.file import load_experiment
    from ..experiment.scoring import REGRESSION

    return profile.endswith(".toml") and load_experiment(profile, resolve_data=False, max_tasks=None).task == REGRESSION


def run_regression(args) -> int:
    """A regression experiment file given to ``evaluate``: run by the experimenter (its ``--data``
    replacing the file's data sets, ``--no-resume`` honoured) and reported by the experimenter's report;
    Table 1 (multi-label classification) does not apply."""
    from dataclasses import replace

    from ..data import resolve
    from ..experiment.command import run_loaded
    from ..experiment.file import load_experiment
    from ..experiment.tasks import make_tasks
    from ..store import ResultStore

    if args.methods:
        raise ValueError(f"--methods chooses among Table 1's methods; {args.profile} is a regression experiment "
                         "(its learners are its own)")
    exp = load_experiment(args.profile, resolve_data=not args.data, max_tasks=None)
    if args.data:
        exp = replace(exp, data=list(args.data), datasets=[resolve(d) for d in args.data])
    if args.no_resume and not args.report_only:
        with ResultStore(args.store) as store:
            store.delete_results([t["key"] for t in make_tasks(exp)])
    print(f"{args.profile} is a regression experiment: the experimenter's report (Table 1 is multi-label "
          "classification)", file=sys.stderr)
    return run_loaded(exp, args)


def run(args) -> int:
    """Run the profile's experiment (BBC-CV) through the experimenter, then write both reports; a
    regression experiment file as :func:`run_regression`."""
    from ..experiment.command import print_failure_reasons, print_summary
    from ..experiment.run import check_baselines, run_experiment
    from ..store import ResultStore
    from .run import META, table1_experiment, write_table1_reports

    report_dir = Path(args.report)
    if report_dir.exists() and not report_dir.is_dir():
        raise ValueError(f"--report {report_dir} exists and is not a folder")
    if is_regression_file(args.profile):
        return run_regression(args)
    failed = 0
    if args.report_only:
        with ResultStore(args.store, readonly=True) as store:
            written = write_table1_reports(store, report_dir)
    else:
        methods = parse_methods(args.methods)
        exp = table1_experiment(args.profile, methods, args.data)
        check_baselines(exp)
        with ResultStore(args.store) as store:
            store.set_meta(META, {"profile": args.profile, "methods": methods, "data": args.data})
            if args.no_resume:
                from ..experiment.tasks import make_tasks
                store.delete_results([t["key"] for t in make_tasks(exp)])
            start = time.time()
            summary = run_experiment(exp, store, scheduler=args.scheduler, n_workers=args.workers,
                                     threads=args.threads)
            print_summary(summary, store)
            failed = summary.n_failed
            print_failure_reasons(store.failures(since=start))
            written = write_table1_reports(store, report_dir)
    for path in written:
        print(path)
    return 1 if failed else 0  # as `experiment`: failed tasks are a non-zero exit status


def add_parser(sub, bounded_int) -> None:
    from ..experiment.command import add_run_options

    p = sub.add_parser("evaluate", help="the paper's Table 1: BOOMER's variants and XGBoost BR/LP/CC, BBC-CV, "
                                        "statistics; on Dask, resumable (the experiment command on "
                                        "table1_<profile>.toml, plus the paper's values)")
    p.add_argument("--data", nargs="+", metavar="FILE", help="data files (a NAME-train file brings NAME-test) or "
                   "the names birds, emotions, enron, llog, medical, scene, slashdot, yeast (read from "
                   "../shared/data); default: the profile's")
    p.add_argument("--methods", help="comma-separated subset of " + ",".join(METHODS) + " (default: all seven)")
    p.add_argument("--profile", default="smoke", metavar="PROFILE",
                   help="smoke (minutes), reduced (the 2-core budget), paper (the paper text's grid), authors (the "
                        "authors' released scripts' grid): the experiment files engine/evaluation/experiments/"
                        "table1_<profile>.toml; or such a file of your own; or a regression experiment file (run "
                        "and reported by the experimenter)")
    add_run_options(p, bounded_int, "table1.sqlite", "table1-report", "table1.md, table1.csv, bootstraps.csv and "
                    "cd_<measure>.png (Table 1's report) beside the experimenter's results.csv, results.md, ...")
    p.add_argument("--no-resume", action="store_true", help="recompute tasks already in the store")
    p.set_defaults(func=run)
