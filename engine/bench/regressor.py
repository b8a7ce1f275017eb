"""``python -m engine.bench.regressor --reference-python /work/refvenv/bin/python``: BoomerRegressor against
mlrl-boomer 0.15.6's on atp7d (Mulan's 6-target regression data), both with the reference's defaults, by
10-fold cross-validation (the same folds, shuffled with ``--seed``): test MSE (over every target) and fit
time per fold side by side, written to ``docs/benchmarks/regressor.md`` (``--out``).

The reference runs in its own interpreter (``regressor_driver.py``, every fold in one process); ours runs here
after one warm-up fit (the kernels compiled or loaded).  Times are wall-clock seconds of ``fit`` alone.
``--cold`` also times, in a fresh process with an empty kernel cache (``NUMBA_CACHE_DIR``), a first fit of 20
rules with each loss: what compiling the regression kernels costs.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from engine.boomer import BoomerRegressor
from engine.datasets import load

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT.parent / "shared" / "data"
DRIVER = Path(__file__).with_name("regressor_driver.py")


def folds_of(n: int, k: int, seed: int) -> np.ndarray:
    """Each example's fold: a shuffled assignment of sizes as equal as possible."""
    order = np.random.default_rng(seed).permutation(n)
    folds = np.empty(n, dtype=np.int64)
    folds[order] = np.arange(n) % k
    return folds


def reference_folds(python: str, X, Y, folds, settings: dict) -> list[dict]:
    """The reference's test predictions and fit time per fold."""
    with tempfile.TemporaryDirectory() as tmp:
        data, request = Path(tmp) / "data.npz", Path(tmp) / "request.json"
        np.savez(data, X=X, Y=Y, folds=folds)
        request.write_text(json.dumps({"kind": "cv", "data": str(data), "settings": settings}))
        proc = subprocess.run([python, str(DRIVER), str(request)], capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"the reference failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["folds"]


def our_folds(X, Y, folds, settings: dict) -> list[dict]:
    BoomerRegressor(**{**settings, "max_rules": 5}).fit(X, Y)  # warm-up: kernels compiled or loaded
    out = []
    for fold in np.unique(folds):
        test = folds == fold
        start = time.perf_counter()
        est = BoomerRegressor(**settings).fit(X[~test], Y[~test])
        seconds = time.perf_counter() - start
        out.append({"predictions": est.predict(X[test]), "fit_seconds": seconds})
    return out


_COLD = """import sys, time
from engine.boomer import BoomerRegressor
from engine.datasets import load
data = load(sys.argv[1])
for loss in ("squared-error-decomposable", "squared-error-non-decomposable"):
    start = time.perf_counter()
    BoomerRegressor(max_rules=20, loss=loss).fit(data.X, data.Y)
    print(loss, time.perf_counter() - start)
"""


def cold_fits(data: str) -> dict[str, float]:
    """Seconds of a first fit per loss in a fresh process on an empty kernel cache (one after the other: the
    second compiles only what the first did not)."""
    import os

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-c", _COLD, data], capture_output=True, text=True, env=env,
                              cwd=str(ROOT), timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return {line.split()[0]: float(line.split()[1]) for line in proc.stdout.splitlines() if line.strip()}


def mse(P, Y) -> float:
    return float(np.mean((np.asarray(P, dtype=np.float64) - Y) ** 2))


def report(name: str, Y, folds, ours: list[dict], ref: list[dict], settings: dict, seed: int) -> str:
    rows = []
    for k, fold in enumerate(np.unique(folds)):
        Yk = Y[folds == fold]
        rows.append((k, mse(ours[k]["predictions"], Yk), mse(ref[k]["predictions"], Yk), ours[k]["fit_seconds"],
                     ref[k]["fit_seconds"]))
    a = np.array([r[1:] for r in rows])
    lines = [f"# BoomerRegressor against mlrl-boomer 0.15.6 ({name}, 10-fold CV)", "",
             f"`python -m engine.bench.regressor` (folds shuffled with seed {seed}); both learners with the "
             f"reference's defaults{' and ' + json.dumps(settings) if settings else ''}: decomposable squared error, "
             "complete heads, 1000 rules, shrinkage 0.3, L2 1.0, 32-bit statistics, attributes sampled without "
             "replacement (each learner's own draws from the seed 1).  Test MSE over every target and example of "
             "the fold; fit times in seconds (ours after a warm-up fit).", "",
             "| fold | test MSE (ours) | test MSE (reference) | fit s (ours) | fit s (reference) |",
             "|---:|---:|---:|---:|---:|"]
    lines += [f"| {k} | {o:.2f} | {r:.2f} | {to:.2f} | {tr:.2f} |" for k, o, r, to, tr in rows]
    lines += [f"| **mean** | **{a[:, 0].mean():.2f}** | **{a[:, 1].mean():.2f}** | **{a[:, 2].mean():.2f}** | "
              f"**{a[:, 3].mean():.2f}** |", "",
              f"Mean test MSE: ours {a[:, 0].mean():.2f}, the reference's {a[:, 1].mean():.2f} "
              f"({100 * (a[:, 0].mean() / a[:, 1].mean() - 1):+.2f} %); mean fit time: ours {a[:, 2].mean():.2f} s, "
              f"the reference's {a[:, 3].mean():.2f} s.", ""]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference-python", default="/work/refvenv/bin/python")
    parser.add_argument("--data", default=str(DATA_DIR / "atp7d.arff"))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "regressor.md"))
    parser.add_argument("--cold", action="store_true", help="also time first fits on an empty kernel cache")
    args = parser.parse_args(argv)
    data = load(args.data)
    if not data.is_regression:
        sys.exit(f"{args.data} is not a regression data set (its targets are 0/1 labels)")
    X, Y = np.asarray(data.X, dtype=np.float64), np.asarray(data.Y, dtype=np.float64)
    folds = folds_of(len(Y), args.folds, args.seed)
    settings: dict = {}
    ref = reference_folds(args.reference_python, X, Y, folds, settings)
    ours = our_folds(X, Y, folds, settings)
    text = report(data.name, Y, folds, ours, ref, settings, args.seed)
    if args.cold:
        cold = cold_fits(args.data)
        text += ("\nFirst fits (20 rules) in a fresh process on an empty kernel cache (`--cold`), the compile "
                 "included: " + "; ".join(f"{loss} {seconds:.1f} s" for loss, seconds in cold.items())
                 + " (the second compiles only what the first did not).\n")
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
