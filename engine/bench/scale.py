"""``python -m engine bench --scale``: time, test losses and peak memory as N and K grow.

Data: scikit-learn's ``make_multilabel_classification`` (50 numeric attributes, average 3
labels per example) plus Gaussian noise (sd 0.5), so attributes are continuous; 10,000 test
examples.  Both learners fit the same data with the same explicit settings: 300 rules,
bagging (0.66 N draws per rule), log2 attribute samples, shrinkage 0.3, L2 weight 1, 32-bit statistics,
``feature_binning='equal-width'``, and per row (:data:`VARIANTS`, each printed with the table):
``single`` label-wise logistic loss, single-label heads; ``complete`` label-wise logistic loss, complete
heads, ``label_binning='equal-width'``; ``ex-complete`` example-wise logistic loss, complete heads,
``label_binning='equal-width'`` (the paper's best variant with GBLB, what the window's "Example-wise,
multi-label heads" preset and the default label binning lead to).  Our single-label heads choose their label
as mlrl-boomer does (``single_label_choice='largest-score'``) unless ``--single-label-choice objective``.  Each fit
runs in a fresh process (``fit_driver.py``), ours in this interpreter and mlrl-boomer in
``--reference-python``, so fit time and peak resident memory are each learner's own.  The exponent
is the slope of log(time) against log(N).  "reach" is the time until our test loss (Hamming, subset
0/1) first equals or beats the reference's final one, from the time each of our rules arrived and
the test losses after it (:func:`time_to_reach`), as a fraction of the reference's time.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from engine import metrics
from engine.bench.boomer import BAGGING, run_driver

VARIANTS = {  # row name: the settings that differ between rows
    "single": dict(loss="logistic-decomposable", head_type="single", label_binning="none"),
    "complete": dict(loss="logistic-decomposable", head_type="complete", label_binning="equal-width"),
    "ex-complete": dict(loss="logistic-non-decomposable", head_type="complete", label_binning="equal-width"),
}
N_TEST = 10_000


def settings(variant: str, rules: int, seed: int) -> dict:
    base = dict(statistic_type="32-bit", max_rules=rules, shrinkage=0.3, l2_regularization_weight=1.0,
                instance_sampling=BAGGING, feature_sampling="without-replacement",
                feature_binning="equal-width", label_binning="none", holdout="none", global_pruning="none",
                random_state=seed)
    base.update(VARIANTS[variant])
    return base


def describe(variant: str | None, rules: int = 300) -> str:
    """A row's own settings (``variant``), or those every row shares (None), as ``name=value`` text."""
    shared = settings("single", rules, 1)
    if variant is None:
        per_row = {k for row in VARIANTS.values() for k in row} | {"random_state"}
        return ", ".join(f"{k}={v}" for k, v in shared.items() if k not in per_row)
    return ", ".join(f"{k}={v}" for k, v in VARIANTS[variant].items())


def reference_settings(variant: str, rules: int, seed: int) -> dict:
    return {**settings(variant, rules, seed), "rule_pruning": "none", "default_rule": "true",
            "binary_predictor": "output-wise"}


def make_data(n: int, n_labels: int, seed: int = 0):
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=n + N_TEST, n_features=50, n_classes=n_labels, n_labels=3,
                                          random_state=seed)
    X = (X + np.random.default_rng(seed).normal(scale=0.5, size=X.shape)).astype(np.float32)
    return X[:n], Y[:n].astype(np.uint8), X[n:], Y[n:].astype(np.uint8)


def time_to_reach(rule_seconds, losses, target: float) -> float:
    """Seconds into our fit when the loss after a rule first reaches ``target`` (NaN: never)."""
    reached = np.flatnonzero(np.asarray(losses) <= target + 1e-12)
    return float(rule_seconds[reached[0]]) if len(reached) else float("nan")


def _fraction(seconds: float, of: float) -> str:
    """``seconds`` as a fraction of ``of``; 'never' when our loss never reached the target, '-'
    without a reference."""
    if np.isnan(of):
        return f"{'-':>6s}"
    return f"{seconds / of:6.2f}" if np.isfinite(seconds) else f"{'never':>6s}"


def exponent(sizes, seconds) -> float:
    """Slope of log(time) on log(N) (NaN with fewer than two sizes)."""
    if len(sizes) < 2:
        return float("nan")
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def run(args) -> int:
    reference = getattr(args, "reference_python", None)
    sizes = args.sizes or [10_000, 100_000]
    labels = args.labels or [20, 200]
    rules = args.rules if args.rules != 1000 else 300
    choice = getattr(args, "single_label_choice", "largest-score")
    header = (f"{'N':>9s} {'K':>4s} {'row':11s} {'ours s':>8s} {'ref s':>8s} {'ratio':>6s} {'reach':>6s} "
              f"{'(0/1)':>6s} | {'ours Ham':>8s} "
              f"{'ref Ham':>8s} {'ours 0/1':>8s} {'ref 0/1':>8s} | {'ours MiB':>8s} {'ref MiB':>8s}")
    for name in args.heads or VARIANTS:
        print(f"{name}: {describe(name)}")
    print(f"every row: {describe(None, rules)}")
    print(header)
    print("-" * len(header))
    times: dict = {}
    with tempfile.TemporaryDirectory(prefix="boomer-scale-") as tmp:
        folder = Path(tmp)
        for K in labels:
            for n in sizes:
                if K >= 200 and n > args.max_n_200:
                    continue
                X, Y, Xt, Yt = make_data(n, K)
                np.savez(folder / "data.npz", X_train=X, Y_train=Y, X_test=Xt, Y_test=Yt)
                del X
                for variant in args.heads or VARIANTS:
                    ours_settings = settings(variant, rules, 1)
                    if variant == "single":
                        ours_settings["single_label_choice"] = choice
                    ours = run_driver(sys.executable, "ours", folder / "data.npz",
                                      {**ours_settings, "__warm_up__": True, "__staged__": True})
                    ref = None
                    if reference:
                        ref = run_driver(reference, "reference", folder / "data.npz",
                                         {**reference_settings(variant, rules, 1), "__warm_up__": True})
                    row = [ours["fit_seconds"], ref["fit_seconds"] if ref else float("nan")]
                    times.setdefault((K, variant), []).append((n, *row))
                    oh, osub = metrics.hamming_loss(Yt, ours["predictions"]), \
                        metrics.subset_zero_one_loss(Yt, ours["predictions"])
                    rh, rsub = (metrics.hamming_loss(Yt, ref["predictions"]),
                                metrics.subset_zero_one_loss(Yt, ref["predictions"])) if ref else (np.nan, np.nan)
                    reach = [time_to_reach(ours["rule_seconds"], ours[f"test_{loss}"], target)
                             for loss, target in (("hamming", rh), ("subset", rsub))]
                    print(f"{n:9d} {K:4d} {variant:11s} {row[0]:8.1f} {row[1]:8.1f} {row[0] / row[1]:6.2f} "
                          f"{_fraction(reach[0], row[1])} {_fraction(reach[1], row[1])} | "
                          f"{100 * oh:8.2f} {100 * rh:8.2f} {100 * osub:8.2f} {100 * rsub:8.2f} | "
                          f"{ours['peak_mib']:8.0f} {ref['peak_mib'] if ref else float('nan'):8.0f}", flush=True)
    print(f"({rules} rules, one seed; losses in percent on {N_TEST:,} test examples; reach: our time until our "
          f"test Hamming (0/1) loss first reached the reference's final one, as a fraction of the reference's time; "
          f"peak resident memory of the fitting process, data included; our single-label heads: "
          f"single_label_choice={choice!r})")
    for (K, variant), rows in times.items():
        rows = np.array(rows)
        if len(rows) < 2:
            continue  # one size: no exponent to fit
        print(f"time ~ N^b, K={K} {variant}: ours b = {exponent(rows[:, 0], rows[:, 1]):.2f}, "
              f"reference b = {exponent(rows[:, 0], rows[:, 2]):.2f}")
    return 0
