"""``python -m engine experiment FILE``: an experiment file run on Dask, resumable, reported."""
from __future__ import annotations

from pathlib import Path


def run(args) -> int:
    from .command import print_summary
    from .experiment_file import load_experiment
    from .experiment_report import build_experiment_report, write_experiment_report
    from .experiment_run import check_baselines, check_runnable, run_experiment
    from .store import ResultStore

    report_dir = Path(args.report)
    if report_dir.exists() and not report_dir.is_dir():
        raise ValueError(f"--report {report_dir} exists and is not a folder")
    exp = load_experiment(args.file)
    check_runnable(exp)
    if args.report_only:
        with ResultStore(args.store, readonly=True) as store:
            written = write_experiment_report(build_experiment_report(exp, store), report_dir)
    else:
        check_baselines(exp)
        with ResultStore(args.store) as store:
            summary = run_experiment(exp, store, scheduler=args.scheduler, n_workers=args.workers, threads=args.threads)
            print_summary(summary, store)
            written = write_experiment_report(build_experiment_report(exp, store), report_dir)
    for path in written:
        print(path)
    return 0


def add_parser(sub, bounded_int) -> None:
    from .command import add_run_options

    p = sub.add_parser("experiment", help="run an experiment file (data sets x learners x grids, cross-validated, "
                                          "every measure) on Dask, resumable; write its report")
    p.add_argument("file", metavar="FILE", help="the experiment (TOML); see engine/evaluation/experiment_file.py")
    add_run_options(p, bounded_int, "experiment.sqlite", "experiment-report",
                    "results.csv, results.md, cd_<measure>.png and curves_<data set>.png")
    p.set_defaults(func=run)
