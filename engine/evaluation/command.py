"""``python -m engine evaluate``: Table 1 on Dask, resumable, reported from the store."""
from __future__ import annotations

import sys
from pathlib import Path

from .baselines import require_xgboost
from .data import resolve
from .methods import METHODS, method
from .profiles import profile


def parse_methods(text: str | None) -> list:
    if not text:
        return list(METHODS.values())
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(set(names)) != len(names):
        raise ValueError(f"--methods names a method twice: {text}")
    return [method(n) for n in names]


def run(args) -> int:
    from .report import build_report, write_report
    from .runner import run_evaluation
    from .store import ResultStore

    report_dir = Path(args.report)
    if report_dir.exists() and not report_dir.is_dir():
        raise ValueError(f"--report {report_dir} exists and is not a folder")
    failed = 0
    if args.report_only:
        with ResultStore(args.store, readonly=True) as store:
            written = write_report(build_report(store), report_dir)
    else:
        prof = profile(args.profile)
        methods = parse_methods(args.methods)
        baselines = [m.name for m in methods if m.family != "boomer"]
        if baselines:
            require_xgboost(f"the method(s) {', '.join(baselines)}")
        specs = [resolve(d) for d in (args.data or prof.datasets)]
        names = [s.name for s in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"two data sets share a name: {', '.join(names)}")
        with ResultStore(args.store) as store:
            summary = run_evaluation(specs, methods, prof, store, scheduler=args.scheduler, n_workers=args.workers,
                                     threads=args.threads, resume=not args.no_resume)
            print_summary(summary, store)
            failed = summary.n_failed
            written = write_report(build_report(store), report_dir)
    for path in written:
        print(path)
    return 1 if failed else 0  # as `experiment`: failed tasks are a non-zero exit status


def print_summary(summary, store) -> None:
    """What a run computed, on stderr, with the last failures."""
    elsewhere = f", {summary.n_elsewhere} computed by another process" if summary.n_elsewhere else ""
    print(f"{summary.n_done} tasks computed, {summary.n_skipped} already stored, {summary.n_failed} failed{elsewhere}, "
          f"{summary.seconds:.0f} s wall time; results in {store.path}", file=sys.stderr)
    from .experiment_report import last_line

    for key, error in store.failures()[-5:]:
        print(f"failed task {key}: {last_line(error)}", file=sys.stderr)


def add_parser(sub, bounded_int) -> None:
    p = sub.add_parser("evaluate", help="the paper's Table 1: BOOMER's variants and XGBoost BR/LP/CC, BBC-CV, "
                                        "statistics; on Dask, resumable")
    p.add_argument("--data", nargs="+", metavar="FILE", help="data files (a NAME-train file brings NAME-test) or "
                   "the names birds, emotions, enron, llog, medical, scene, slashdot, yeast (read from "
                   "../shared/data); default: the profile's")
    p.add_argument("--methods", help="comma-separated subset of " + ",".join(METHODS) + " (default: all seven)")
    p.add_argument("--profile", default="smoke", metavar="PROFILE",
                   help="smoke (minutes), reduced (the 2-core budget), paper (the paper text's grid), authors (the "
                        "authors' released scripts' grid): the experiment files engine/evaluation/experiments/"
                        "table1_<profile>.toml; or such a file of your own")
    add_run_options(p, bounded_int, "table1.sqlite", "table1-report", "table1.md, table1.csv and cd_<measure>.png")
    p.add_argument("--no-resume", action="store_true", help="recompute tasks already in the store")
    p.set_defaults(func=run)


def add_run_options(p, bounded_int, store: str, report: str, report_files: str) -> None:
    """The options every Dask command shares: store, report, scheduler, workers, threads."""
    p.add_argument("--store", default=store, help="SQLite result store (created if absent; a rerun computes only "
                   "what it lacks)")
    p.add_argument("--report", default=report, metavar="DIR", help=f"folder for {report_files}")
    p.add_argument("--report-only", action="store_true", help="rebuild the report from the store; compute nothing")
    p.add_argument("--scheduler", metavar="ADDR", help="an existing Dask scheduler, e.g. tcp://HOST:8786 "
                   "(default: a local cluster)")
    p.add_argument("--workers", type=bounded_int(1, 4096), help="local worker processes (default: one per core)")
    p.add_argument("--threads", type=bounded_int(1, 256), default=1, help="threads per task (default 1)")
