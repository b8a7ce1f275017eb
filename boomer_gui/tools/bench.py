"""Responsiveness benchmark: ``python -m boomer_gui.tools.bench`` (runs offscreen).

Trains yeast (``../shared/data/yeast.svm`` relative to the project root; a random data set of
the same shape, 2417 x 103 x 14, when it is absent) with complete heads through the real main
window while a 10 ms timer measures the gaps of the GUI thread, and runs the engine headless
for its own rate.  Prints the largest and the 99th-percentile gap, rules per second reaching
the table vs the engine alone, and the time of one plot update with 1,000 rules.  The last
line is machine-readable::

    max_gap_ms=... p99_gap_ms=... stream_ratio=... plot_update_ms=...
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

TARGETS = {"max_gap_ms": 100.0, "p99_gap_ms": 30.0, "stream_ratio": 0.95, "plot_update_ms": 30.0}
PROJECT_ROOT = Path(__file__).resolve().parents[2]
YEAST = PROJECT_ROOT.parent / "shared" / "data" / "yeast.svm"


def bench_data(path: Path | None, seed: int = 0):
    """(LoadedData, description): yeast split 70/30, or a random stand-in of the same shape."""
    from engine.api import Dataset, load

    from boomer_gui.components.state import DataSpec, LoadedData

    path = path or YEAST
    if path.exists():
        spec = DataSpec(kind="file", path=str(path), test_mode="split", test_fraction=0.3, split_seed=seed)
        full = load(path)
        desc = f"{path.name} ({full.n_examples} x {full.n_features} x {full.n_labels})"
    else:
        rng = np.random.default_rng(seed)
        n, d, k = 2417, 103, 14
        X = rng.normal(size=(n, d)).astype(np.float32)
        W = rng.normal(size=(d, k))
        Y = ((X @ W + rng.normal(scale=3.0, size=(n, k))) > 1.0).astype(np.uint8)
        full = Dataset(X=X, Y=Y, feature_names=[f"a{j}" for j in range(d)], label_names=[f"l{j}" for j in range(k)],
                       name="yeast-shaped random data", source="bench")
        spec = DataSpec(kind="file", path="(random stand-in for yeast)", test_mode="split", test_fraction=0.3,
                        split_seed=seed)
        desc = f"random stand-in {n} x {d} x {k} ({path} not found)"
    train, test = full.train_test_split(0.3, seed)
    return LoadedData(spec, full, train, test), desc


def engine_rate(data, params: dict) -> tuple[float, int]:
    """Rules per second of the engine alone (same data and parameters, no GUI)."""
    from engine.registry import get

    est = get("boomer").make(**params)
    t0 = time.perf_counter()
    n = 0
    for _ in est.fit_iter(data.train.X, data.train.Y, data.test.X, data.test.Y,
                          nominal_attributes=data.train.nominal_mask, schema=data.train.schema):
        n += 1
    return n / (time.perf_counter() - t0), n


def gui_run(app, data, params: dict) -> dict:
    """Train through the main window; measure GUI-thread gaps and the stream into the table."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    from boomer_gui.main_window import MainWindow

    window = MainWindow()
    window.confirm_close = lambda text: "discard"  # a scripted window closes without asking
    window.resize(1500, 940)
    window.show()
    window.show_error = lambda title, text: print(f"error: {title}: {text}", file=sys.stderr)
    window.set_data(data)
    window.learner_panel.set_learner("boomer")
    window.learner_panel.set_params(params)
    loop = QEventLoop()
    for _ in range(20):  # settle the first paint
        app.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    arrivals: list[tuple[float, int]] = []
    window.table_model.rowsInserted.connect(
        lambda *a: arrivals.append((time.perf_counter(), window.table_model.rowCount())))
    timer.start()
    t_start = time.perf_counter()
    cpu_start = time.thread_time()
    if not window.start_training():
        raise SystemExit("the benchmark run could not start")
    window.training.done.connect(lambda state: QTimer.singleShot(50, loop.quit))
    loop.exec()
    timer.stop()
    cpu = time.thread_time() - cpu_start
    wall = time.perf_counter() - t_start
    gaps = np.diff(np.array(ticks)) * 1000.0
    n = window.table_model.rowCount()
    t_last = arrivals[-1][0] if arrivals else time.perf_counter()
    window.close()
    return {"gaps": gaps, "rules": n, "seconds": t_last - t_start, "rate": n / (t_last - t_start),
            "batches": len(arrivals), "gui_cpu_share": cpu / wall, "ticks": np.array(ticks), "t_start": t_start,
            "t_end": t_last}


def plot_update_time(app, n_rules: int = 1000, repeats: int = 15) -> tuple[float, float]:
    """(full update, live blit update) in ms of a trajectory plot holding ``n_rules`` rules."""
    from engine.api import RuleRecord
    from engine.rules import Rule

    from boomer_gui.components.state import RunHistory
    from boomer_gui.plots.trajectory_plot import TrajectoryPlot

    history = RunHistory()
    plot = TrajectoryPlot(history)
    plot.resize(900, 480)
    plot.show()
    plot.set_bayes_point((0.19, 0.74))
    rng = np.random.default_rng(0)
    steps = np.arange(1, n_rules + 1)
    h = 0.2 + 0.1 / np.sqrt(steps) + rng.normal(scale=0.002, size=n_rules)
    s = 0.75 + 0.2 / np.sqrt(steps) + rng.normal(scale=0.005, size=n_rules)
    rule = Rule((), np.array([0]), np.array([0.0]))
    records = [RuleRecord(i, rule, 1, 0.0, h[i] - 0.02, s[i] - 0.05, h[i], s[i]) for i in range(n_rules)]
    run = history.new_run("bench", "boomer", {})
    plot.set_budget(n_rules)
    plot.add_run(run, live=True)
    run.append(records[:-1])
    plot.run_updated(run)
    plot.draw_now()
    app.processEvents()
    full, live = [], []
    for i in range(repeats):
        t0 = time.perf_counter()
        plot.run_updated(run)  # set_data on the existing lines
        plot.draw_now()  # a complete redraw, limits recomputed
        full.append((time.perf_counter() - t0) * 1000.0)
        app.processEvents()
    for i in range(repeats):
        t0 = time.perf_counter()
        plot.run_updated(run)
        plot.traj_canvas.fast_update()  # the live path: set_data + blit
        live.append((time.perf_counter() - t0) * 1000.0)
        app.processEvents()
    plot.shutdown()
    plot.close()
    return float(np.median(full)), float(np.median(live))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m boomer_gui.tools.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", type=int, default=300, help="rules to learn [300]")
    p.add_argument("--rounds", type=int, default=5,
                   help="GUI runs, each between two headless engine runs (the machine's speed drifts by "
                        "10-15 %% between runs here, so single rounds are noisy) [5]")
    p.add_argument("--data", type=Path, default=None, help=f"svmlight/arff file [{YEAST}]")
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("BOOMER_NO_BACKGROUND_PREPARE", "1")  # no compile in the background meanwhile
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    data, desc = bench_data(args.data)
    params = {"loss": "logistic-non-decomposable", "head_type": "complete", "max_rules": args.rules}
    print(f"data: {desc}; {data.train.n_examples} training, {data.test.n_examples} test examples")
    print(f"learner: boomer {params}")
    engine_rate(data, {**params, "max_rules": 3})  # load the compiled kernels
    # One short GUI run first, as the engine gets its warm-up: the first paints of the window,
    # the table and the plot (fonts, glyph caches, matplotlib's text layout) are one-time costs
    # that would otherwise be charged to the first measured run's stream.
    gui_run(app, data, {**params, "max_rules": max(10, args.rules // 10)})
    engine = [engine_rate(data, params)[0]]
    print(f"engine alone: {engine[0]:.1f} rules/s")
    gaps, ratios = [], []
    for r in range(max(1, args.rounds)):
        gui = gui_run(app, data, params)
        engine.append(engine_rate(data, params)[0])
        reference = (engine[-2] + engine[-1]) / 2  # the engine alone just before and just after
        ratios.append(gui["rate"] / reference if reference > 0 else 0.0)
        gaps.append(gui["gaps"])
        g = gui["gaps"]
        print(f"run {r + 1}: {gui['rules']} rules reached the table at {gui['rate']:.1f} rules/s in {gui['batches']} "
              f"batches (engine alone around it: {reference:.1f} rules/s, ratio {ratios[-1]:.3f}); GUI thread busy "
              f"{gui['gui_cpu_share']:.0%}; gaps: median {np.median(g):.1f} ms, p99 {np.percentile(g, 99):.1f} ms, "
              f"max {g.max():.1f} ms")
        worst = np.argsort(g)[-3:][::-1]
        at = ", ".join(f"{g[i]:.0f} ms at {gui['ticks'][i] - gui['t_start']:+.2f} s" for i in worst)
        print(f"  largest gaps (time since Start): {at}; the last rule arrived at "
              f"{gui['t_end'] - gui['t_start']:+.2f} s")
        print(f"engine alone: {engine[-1]:.1f} rules/s")
    all_gaps = np.concatenate(gaps)
    max_gap = float(all_gaps.max()) if all_gaps.size else 0.0
    p99 = float(np.percentile(all_gaps, 99)) if all_gaps.size else 0.0
    ratio = float(np.median(ratios))
    print(f"GUI thread over all runs: {all_gaps.size} intervals of a 10 ms timer, p99 {p99:.1f} ms, max {max_gap:.1f} ms; "
          f"stream ratio (median of runs) {ratio:.3f}")
    full, live = plot_update_time(app)
    print(f"plot update with 1,000 rules: {full:.1f} ms complete redraw (set_data + autoscale + draw), "
          f"{live:.1f} ms live (set_data + blit)")
    figures = {"max_gap_ms": max_gap, "p99_gap_ms": p99, "stream_ratio": ratio, "plot_update_ms": full}
    verdict = []
    for k, target in TARGETS.items():
        ok = figures[k] >= target if k == "stream_ratio" else figures[k] <= target
        verdict.append(f"{k} {'ok' if ok else 'MISSED'} (target {'>=' if k == 'stream_ratio' else '<='} {target})")
    print("; ".join(verdict))
    print(f"max_gap_ms={max_gap:.1f} p99_gap_ms={p99:.1f} stream_ratio={ratio:.3f} plot_update_ms={full:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
