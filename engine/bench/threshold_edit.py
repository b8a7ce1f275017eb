"""``python -m engine.bench.threshold_edit``: how long one threshold edit takes (issue 59: <= 100 ms).

Per data set (emotions, yeast, enron; split 2/3 : 1/3 for training and test, seed 0) a BOOMER model
of ``--rules`` rules (its other defaults) is fitted, and an :class:`engine.threshold_edit.ThresholdEditor`
built on the training and test data (the set-up, timed once).  Then ``--drags`` simulated drags: a
random condition of a random rule, ``--steps`` edits to thresholds drawn from the attribute's
training values (the first edit of a drag includes selecting the condition), the head kept or
re-optimised alternately per drag.  Each edit's latency is the wall time of ``editor.edit`` (new
coverage, head, train and test losses).  Every 25th edit is checked against a prediction of the
edited model from scratch; a mismatch is counted in the table.

Prints one row per data set and head mode (median, p95 and maximum latency) and the table as
Markdown; ``--record`` appends it, dated, to ``docs/benchmarks/threshold_edit.md``
(:mod:`engine.bench.record`).  Exit status 1 when a p95 exceeds the target or a check failed."""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from engine.bench.record import add_record_option, recording

TARGET_MS = 100.0
NAMES = ("emotions", "yeast", "enron")
CHECK_EVERY = 25


def fitted(path: Path, rules: int, seed: int):
    """(estimator, train, test, fit seconds) for the data set at ``path``."""
    from engine.boomer import BoomerClassifier
    from engine.datasets import load

    train, test = load(path).train_test_split(0.33, seed=seed)
    start = time.perf_counter()
    est = BoomerClassifier(max_rules=rules, random_state=seed).fit(train.X, train.Y)
    return est, train, test, time.perf_counter() - start


def _matches(editor, edit, train, test) -> bool:
    """The edit's losses equal those of the edited model predicted from scratch."""
    from engine.metrics import hamming_loss, subset_zero_one_loss

    model = editor.edited_model(edit)
    for name, part in (("train", train), ("test", test)):
        P = model.predict(part.X)
        if not (np.isclose(edit.losses[name]["hamming"], hamming_loss(part.Y, P)) and
                np.isclose(edit.losses[name]["subset"], subset_zero_one_loss(part.Y, P))):
            return False
    return True


def measure(name: str, path: Path, args, rng) -> list[dict]:
    """Latencies of ``args.drags`` drags on one data set; one row per head mode."""
    from engine.threshold_edit import ThresholdEditor, head_parameters

    est, train, test, fit_s = fitted(path, args.rules, args.seed)
    model = est.model_
    start = time.perf_counter()
    editor = ThresholdEditor(model, train.X, train.Y, test.X, test.Y, head_parameters(est))
    setup = time.perf_counter() - start
    editable = [r for r, rule in enumerate(model.rules) if rule.conditions]
    times = {False: [], True: []}
    failed = checked = 0
    for drag in range(args.drags):
        r = int(rng.choice(editable))
        c = int(rng.integers(len(model.rules[r].conditions)))
        column = np.asarray(train.X[:, model.rules[r].conditions[c].attribute], dtype=np.float64)
        reoptimise = bool(drag % 2)
        for _ in range(args.steps):
            threshold = float(rng.choice(column[~np.isnan(column)]))
            start = time.perf_counter()
            edit = editor.edit(r, c, threshold, reoptimise)
            times[reoptimise].append(time.perf_counter() - start)
            if (len(times[False]) + len(times[True])) % CHECK_EVERY == 0:
                checked += 1
                failed += not _matches(editor, edit, train, test)
    shape = f"{train.n_examples}+{test.n_examples} x {train.n_features} x {train.n_labels}"
    return [{"data": name, "shape": shape, "rules": len(model.rules), "head": "re-optimised" if mode else "kept",
             "edits": len(ms), "median": 1000 * np.median(ms), "p95": 1000 * np.percentile(ms, 95),
             "max": 1000 * np.max(ms), "setup": setup, "fit": fit_s, "checked": checked, "failed": failed}
            for mode, ms in times.items() if ms]


def table(rows: list[dict], args) -> str:
    lines = [f"Threshold edit latency: {args.drags} drags of {args.steps} edits per data set (BOOMER, "
             f"{args.rules} rules, defaults otherwise); target: p95 <= {TARGET_MS:g} ms.", "",
             "| data (train+test x attributes x labels) | rules | head | edits | median (ms) | p95 (ms) | "
             "max (ms) | editor set-up (s) | checked / failed |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['data']} ({r['shape']}) | {r['rules']} | {r['head']} | {r['edits']} | {r['median']:.2f} | "
                     f"{r['p95']:.2f} | {r['max']:.2f} | {r['setup']:.2f} | {r['checked']} / {r['failed']} |")
    return "\n".join(lines) + "\n"


def run(argv=None) -> int:
    from engine.bench.boomer import DATA_DIR, DATASETS

    parser = argparse.ArgumentParser(prog="python -m engine.bench.threshold_edit",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", choices=NAMES, default=list(NAMES), help="data sets (default: all)")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help=f"where they are (default {DATA_DIR})")
    parser.add_argument("--rules", type=int, default=1000, help="rules of the fitted model (default 1000)")
    parser.add_argument("--drags", type=int, default=100, help="drags per data set (default 100)")
    parser.add_argument("--steps", type=int, default=10, help="edits per drag (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.rules < 2 or args.drags < 1 or args.steps < 1:
        parser.error("--rules must be at least 2, --drags and --steps at least 1")
    missing = [n for n in args.data if not (args.data_dir / DATASETS[n]).is_file()]
    if missing:
        parser.error(f"not found in {args.data_dir}: {', '.join(DATASETS[n] for n in missing)} (give --data-dir)")
    with recording("threshold_edit", args.record):
        rows = _measure_all(args, DATASETS)
    ok = all(r["p95"] <= TARGET_MS and not r["failed"] for r in rows)
    return 0 if ok else 1


def _measure_all(args, files: dict) -> list[dict]:
    rng = np.random.default_rng(args.seed)
    rows = []
    for name in args.data:
        for r in measure(name, args.data_dir / files[name], args, rng):
            rows.append(r)
            print(f"{name:9s} head {r['head']:12s} median {r['median']:.2f} ms  p95 {r['p95']:.2f} ms  "
                  f"max {r['max']:.2f} ms  (fit {r['fit']:.1f} s, set-up {r['setup']:.2f} s)", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(table(rows, args))
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} at the end, Python "
          f"{platform.python_version()}")
    return rows


if __name__ == "__main__":
    sys.exit(run())
