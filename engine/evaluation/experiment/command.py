"""``python -m engine experiment FILE``: an experiment file run on Dask, resumable, reported."""
from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path


def run(args) -> int:
    """Run (or report) an experiment; exit status 1 when tasks failed (their reasons summarised)."""
    from .file import TooManyTasks, load_experiment

    report_dir = Path(args.report)
    if report_dir.exists() and not report_dir.is_dir():
        raise ValueError(f"--report {report_dir} exists and is not a folder")
    try:
        exp = load_experiment(args.file, max_tasks=args.max_tasks)
    except TooManyTasks as exc:
        raise TooManyTasks(f"{exc}{plan_duration(exc.n_tasks, args.store)}", exc.n_tasks) from None
    return run_loaded(exp, args)


def run_loaded(exp, args) -> int:
    """Run (or, with ``args.report_only``, report) a loaded experiment with the run options of ``args``
    (``--save-*`` ones where ``args`` has them); print the files written; 1 when tasks failed."""
    from .report import build_experiment_report, write_experiment_report
    from .run import check_baselines, check_runnable, run_experiment
    from .saves import SAVES, write_saves
    from ..store import ResultStore

    report_dir = Path(args.report)
    check_runnable(exp)
    failed = 0
    if args.report_only:
        with ResultStore(args.store, readonly=True) as store:
            written = write_experiment_report(build_experiment_report(exp, store), report_dir)
    else:
        check_baselines(exp)
        with ResultStore(args.store) as store:
            start = time.time()
            summary = run_experiment(exp, store, scheduler=args.scheduler, n_workers=args.workers, threads=args.threads,
                                     save_rules=getattr(args, "save_rules", False))
            print_summary(summary, store)
            failed = summary.n_failed
            print_failure_reasons(store.failures(since=start))
            written = write_experiment_report(build_experiment_report(exp, store), report_dir)
    what = [kind for kind in SAVES if getattr(args, "save_" + kind.replace("-", "_"), False)]
    if what:
        with ResultStore(args.store, readonly=True) as store:
            written += write_saves(exp, store, report_dir, what)
    for path in written:
        print(path)
    return 1 if failed else 0


def failure_reasons(failures: list[tuple[str, str]]) -> list[tuple[str, int]]:
    """(the error's last line, how many tasks) of each distinct reason, the most frequent first; the
    store keeps whole tracebacks, whose last line is the error and its message."""
    from .report import last_line

    counts = Counter(last_line(error) or "unknown error" for _, error in failures)
    return counts.most_common()


def print_failure_reasons(failures: list[tuple[str, str]], stream=None) -> None:
    reasons = failure_reasons(failures)
    if not reasons:
        return
    stream = stream if stream is not None else sys.stderr
    print(f"{len(failures)} task(s) failed; the reasons:", file=stream)
    for reason, count in reasons:
        print(f"  {count:6d} x {reason}", file=stream)


def plan_duration(n_tasks: int, store_path) -> str:
    """How long ``n_tasks`` would take at the median task time of the results in the store (if any)."""
    from ..store import ResultStore

    path = Path(store_path)
    if not path.is_file():
        return " (no result store yet to time a task by)"
    try:
        with ResultStore(path, readonly=True) as store:
            seconds = store.median_task_seconds()
    except (OSError, ValueError):
        return ""
    if seconds is None:
        return ""
    total = n_tasks * seconds
    return (f" (at the median {seconds:.2g} s per task of {path}, about {total:,.0f} s = {total / 86400:,.1f} days "
            "on one worker)")


def print_summary(summary, store) -> None:
    """What a run computed, on stderr, with the last failures."""
    elsewhere = f", {summary.n_elsewhere} computed by another process" if summary.n_elsewhere else ""
    print(f"{summary.n_done} tasks computed, {summary.n_skipped} already stored, {summary.n_failed} failed{elsewhere}, "
          f"{summary.seconds:.0f} s wall time; results in {store.path}", file=sys.stderr)
    from .report import last_line

    for key, error in store.failures()[-5:]:
        print(f"failed task {key}: {last_line(error)}", file=sys.stderr)


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


def add_parser(sub, bounded_int) -> None:
    from .file import MAX_TASKS

    p = sub.add_parser("experiment", help="run an experiment file (data sets x learners x grids, cross-validated, "
                                          "every measure) on Dask, resumable; write its report")
    p.add_argument("file", metavar="FILE", help="the experiment (TOML); see engine/evaluation/experiment/file.py")
    add_run_options(p, bounded_int, "experiment.sqlite", "experiment-report",
                    "results.csv, results.md, cd_<measure>.png and curves_<data set>.png")
    p.add_argument("--max-tasks", type=bounded_int(1, 10 ** 9), default=MAX_TASKS, metavar="N",
                   help="refuse an experiment of more tasks (data sets x folds x configurations; default "
                        f"{MAX_TASKS:,})")
    saves = p.add_argument_group("saved outputs (in DIR/saved, read from the store; as mlrl-testbed's)")
    saves.add_argument("--save-predictions", action="store_true", help="each task's test predictions (CSV per data "
                       "set and learner: fold, configuration, row, labels)")
    saves.add_argument("--save-scores", action="store_true", help="each task's test scores (learners with scores)")
    saves.add_argument("--save-rules", action="store_true", help="each task's rules as text (tasks stored without "
                       "them are computed again)")
    saves.add_argument("--save-model-characteristics", action="store_true", help="rules, conditions, conditions "
                       "per rule, numeric/nominal conditions, labels per head of every task's model")
    saves.add_argument("--save-data-characteristics", action="store_true", help="examples, attributes, labels, "
                       "cardinality, density, distinct label sets of every data set")
    p.set_defaults(func=run)
