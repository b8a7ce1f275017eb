"""``python -m engine.bench.stop_latency``: how soon every learner stops after Stop.

For each learner of the registry (its defaults, as the window starts it), ``--cycles`` start/cancel
cycles: a thread calls ``fit_iter(..., cancel=EVENT)`` and consumes its steps, as the window's
training worker does; the event is set at a random moment (uniform between 0 and ``--max-delay``
seconds, or the learner's whole run when that is shorter), in its set-up or in any step; the
latency is the time from setting the event to the thread's end.  A warm-up run first compiles (or
loads) the kernels.  Data: yeast (2,417 x 103 x 14, 2/3 for training, the rest as test data, as the
window passes it), or a random stand-in of its shape when the file is absent.

Prints one row per learner (median and maximum latency, the median time ``fit_iter`` itself takes
before returning, cycles that ended before the event was set) and the table as Markdown; with
``--record`` the table is appended, dated, to ``docs/benchmarks/stop_latency.md``
(:mod:`engine.bench.record`)."""
from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time
from pathlib import Path

import numpy as np

from engine.bench.record import add_record_option, recording

TARGET_S = 0.2  # the Stop the window promises


def bench_data(path: Path | None, seed: int = 0):
    """(X, Y, X_test, Y_test, description): ``path`` (default yeast) split 2/3 : 1/3, or a stand-in."""
    from engine.bench.boomer import DATA_DIR, DATASETS
    from engine.datasets import load

    path = path or DATA_DIR / DATASETS["yeast"]
    if path.is_file():
        data = load(path)
        train, test = data.train_test_split(0.33, seed=seed)
        shape = f"{data.n_examples} x {data.n_features} x {data.n_labels}"
        return train.X, train.Y, test.X, test.Y, f"{path.name} ({shape})"
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2417, 103)).astype(np.float32)
    Y = (X @ rng.normal(size=(103, 14)) + rng.normal(scale=3.0, size=(2417, 14)) > 1.0).astype(np.uint8)
    return X[:1619], Y[:1619], X[1619:], Y[1619:], f"random stand-in 2417 x 103 x 14 ({path} not found)"


def one_cycle(make, data, delay: float) -> dict:
    """Start a run in a thread, set its cancel event after ``delay`` s; the latency and the times."""
    X, Y, Xt, Yt = data
    event = threading.Event()
    times: dict = {}

    def work():
        start = time.perf_counter()
        steps = make().fit_iter(X, Y, Xt, Yt, cancel=event)
        times["call"] = time.perf_counter() - start
        for _ in steps:
            pass
        times["end"] = time.perf_counter()

    thread = threading.Thread(target=work, name="stop-latency-run", daemon=True)
    thread.start()
    thread.join(delay)
    set_at = time.perf_counter()
    event.set()
    thread.join(60.0)
    if thread.is_alive():
        return {"latency": float("inf"), "call": times.get("call", float("nan")), "early": False}
    early = times["end"] <= set_at
    return {"latency": 0.0 if early else times["end"] - set_at, "call": times["call"], "early": early}


def measure(key: str, data, cycles: int, max_delay: float, rng) -> dict:
    """``cycles`` start/cancel cycles of a learner's defaults (a warm-up run first)."""
    from engine import registry

    spec = registry.get(key)
    X, Y, Xt, Yt = data
    start = time.perf_counter()
    steps = spec.make().fit_iter(X, Y, Xt, Yt)  # compiles or loads the kernels; times a whole run
    for _ in steps:
        if time.perf_counter() - start > 4 * max_delay + 30:
            break
    steps.close()
    whole = time.perf_counter() - start
    window = min(max_delay, 0.9 * whole)
    rows = [one_cycle(spec.make, data, float(rng.uniform(0.0, window))) for _ in range(cycles)]
    stopped = [r["latency"] for r in rows if not r["early"]]
    return {"learner": key, "cycles": cycles, "early": sum(r["early"] for r in rows),
            "median": float(np.median(stopped)) if stopped else float("nan"),
            "max": float(np.max(stopped)) if stopped else float("nan"),
            "call": float(np.median([r["call"] for r in rows])), "window": window}


def table(results: list[dict], description: str, cycles: int) -> str:
    lines = [f"Stop latency: {cycles} start/cancel cycles per learner (its defaults) on {description}; "
             f"target: maximum <= {TARGET_S} s.", "",
             "| learner | median (s) | max (s) | fit_iter call, median (s) | ended before Stop | Stop within (s) |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['learner']} | {r['median']:.3f} | {r['max']:.3f} | {r['call']:.3f} | "
                     f"{r['early']}/{r['cycles']} | {r['window']:.2f} |")
    return "\n".join(lines) + "\n"


def run(argv=None) -> int:
    from engine import registry

    keys = [spec.key for spec in registry.learners()]
    parser = argparse.ArgumentParser(prog="python -m engine.bench.stop_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", nargs="*", choices=keys, default=keys, help="registry keys (default: all)")
    parser.add_argument("--cycles", type=int, default=50, help="start/cancel cycles per learner (default 50)")
    parser.add_argument("--max-delay", type=float, default=0.5, help="latest Stop after Start, seconds (default 0.5)")
    parser.add_argument("--data", type=Path, help="a data file (default: ../shared/data/yeast.svm)")
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args(argv)
    if args.cycles < 1 or not args.max_delay > 0:
        parser.error("--cycles must be at least 1 and --max-delay positive")
    with recording("stop_latency", args.record):
        results = _measure_all(args)
    worst = max((r["max"] for r in results if r["max"] == r["max"]), default=0.0)
    return 0 if worst <= TARGET_S else 1


def _measure_all(args) -> list[dict]:
    """One row per learner, printed as measured, then the Markdown table and the machine it ran on."""
    X, Y, Xt, Yt, description = bench_data(args.data, args.seed)
    rng = np.random.default_rng(args.seed)
    results = []
    for key in args.learners:
        results.append(measure(key, (X, Y, Xt, Yt), args.cycles, args.max_delay, rng))
        r = results[-1]
        print(f"{key:14s} median {r['median']:.3f} s  max {r['max']:.3f} s  fit_iter call {r['call']:.3f} s  "
              f"ended before Stop {r['early']}/{r['cycles']}", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(table(results, description, args.cycles))
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average {load:.1f} at the end, Python "
          f"{platform.python_version()}; the median and maximum over the cycles that were stopped")
    return results


if __name__ == "__main__":
    sys.exit(run())
