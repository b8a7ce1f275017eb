"""``python -m engine.bench.cold_start``: how long a new user waits for the first step.

For each learner's defaults and each GUI preset (:func:`engine.prepare.default_settings`), a fresh
process with an empty Numba cache folder (``NUMBA_CACHE_DIR``) imports the engine, starts the run on
the window's opening data (synthetic strong conditional dependence, 2,000 + 2,000 examples, 6
labels) and reports: the import time, the time from Start to the first learned step (BOOMER: the
first rule after the default rule), and the time until everything the setting uses is compiled
(:func:`engine.prepare.prepare_setting`: a few steps and a prediction).  Then the same in a fresh
process on the now filled cache (warm).  Every setting gets its own empty cache, so nothing one
setting compiled helps another: the cold figures are a first run's on a fresh install.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from engine.bench.record import add_record_option, recording


def _child(setting_json: str, start: float) -> dict:
    """In the measured process (started at ``start``, before the engine was imported): import, first
    step, everything compiled."""
    import numpy as np

    from engine import registry
    from engine.prepare import PREPARE_STEPS, CompileWatch, Setting, builtin_data, prepare_setting

    imported = time.perf_counter() - start
    doc = json.loads(setting_json)
    setting = Setting(doc["learner"], doc["params"], doc["label"])
    data = builtin_data()
    spec = registry.get(setting.learner)
    first_index = 1 if spec.key == "boomer" else 0  # BOOMER's step 0 is the default rule, learned in closed form
    with CompileWatch(lambda name, count: None) as watch:
        t = time.perf_counter()
        estimator = spec.make(**setting.params)
        steps = estimator.fit_iter(data["X"], data["Y"], X_test=data["X_test"], Y_test=data["Y_test"])
        first = None
        for step in steps:
            if getattr(step, "index", 0) >= first_index:
                first = time.perf_counter() - t
                break
        steps.close()
        t = time.perf_counter()
        prepare_setting(setting, data, PREPARE_STEPS)
        rest = time.perf_counter() - t
    return {"import_s": imported, "first_step_s": first if first is not None else float(np.nan),
            "all_s": (first or 0.0) + rest, "compiled": watch.count}


def measure(setting, cache: str, timeout: float) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    payload = json.dumps({"learner": setting.learner, "params": dict(setting.params), "label": setting.title})
    wall = time.perf_counter()
    code = ("import json, sys, time; start = time.perf_counter(); from engine.bench.cold_start import _child; "
            "print(json.dumps(_child(sys.argv[1], start)))")
    proc = subprocess.run([sys.executable, "-c", code, payload], env=env,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "child failed")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = time.perf_counter() - wall
    return out


def run(argv=None) -> int:
    from engine.prepare import default_settings

    parser = argparse.ArgumentParser(prog="python -m engine.bench.cold_start", description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", nargs="*", help="only these registry keys (default: all)")
    parser.add_argument("--only", nargs="*", help="only settings whose label contains one of these strings")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per process")
    add_record_option(parser)
    args = parser.parse_args(argv)
    with recording("cold_start", args.record):
        _table(default_settings(args.learners or None), args)
    return 0


def _table(settings, args) -> None:
    """One row per setting: cold (an empty cache of its own), then warm."""
    if args.only:
        settings = [s for s in settings if any(o in s.title for o in args.only)]
    print(f"{'setting':52s} | {'import':>6s} {'first':>7s} {'all':>7s} {'kernels':>7s} | "
          f"{'warm first':>10s} {'warm all':>8s}")
    print("-" * 104)
    for setting in settings:
        cache = tempfile.mkdtemp(prefix="cold-start-cache-")
        try:
            cold = measure(setting, cache, args.timeout)
            warm = measure(setting, cache, args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"{setting.title[:52]:52s} | failed: {exc}", flush=True)
            continue
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        print(f"{setting.title[:52]:52s} | {cold['import_s']:6.1f} {cold['first_step_s']:7.1f} {cold['all_s']:7.1f} "
              f"{cold['compiled']:7d} | {warm['first_step_s']:10.2f} {warm['all_s']:8.2f}", flush=True)
    print("(seconds on the window's opening data; first = Start to the first learned step, all = until every "
          "kernel of the setting is compiled; each setting cold in its own empty cache, then warm)")


if __name__ == "__main__":
    sys.exit(run())
