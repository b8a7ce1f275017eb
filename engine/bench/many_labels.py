"""``python -m engine.bench.many_labels``: complete heads of the example-wise logistic loss with label
binning on many labels (983, as delicious has), ours against mlrl-boomer (issue 34 item 3).

Data: :func:`engine.bench.scale.make_data` (scikit-learn's ``make_multilabel_classification``, 50
numeric attributes, 3 labels per example on average, Gaussian noise) with K labels.  Settings: those of
``bench --scale``'s complete heads (bagging 0.66 N, log2 attribute samples, shrinkage 0.3, L2 weight 1,
``feature_binning='equal-width'``, ``label_binning='equal-width'``) with
``loss='logistic-non-decomposable'``.  Each fit runs in a fresh process (``fit_driver.py``) and reports
its time and peak resident memory, data included.

Our statistics are the gradient and the Hessian as a diagonal plus rank one per example (2K + 1
numbers, :mod:`engine.core.examplewise_stats`); mlrl-boomer 0.15.6 keeps every example's packed K x K
Hessian, K(K+1)/2 numbers (1.9 MB per example at K = 983 in 32 bits).  ``--reference-memory-gib``
caps the reference's address space (``ulimit -v``) so that a fit that cannot fit fails instead of
taking the machine's memory from everyone; its row then says so, with the bytes its Hessians need.

``--scopes`` says when our label bins are chosen (``label_binning_scope``): ``condition`` for every candidate
condition, as mlrl-boomer does (O(K^2) per example and threshold), ``rule`` once per rule (ours, O(B^2));
the reference runs once per row, with its own.
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np

from engine import metrics
from engine.bench.boomer import BAGGING, run_driver
from engine.bench.scale import make_data
from engine.bench.record import add_record_option, recording


def settings(rules: int, seed: int, scope: str = "condition") -> dict:
    ours = {} if scope == "condition" else {"label_binning_scope": scope}
    return dict(**ours, loss="logistic-non-decomposable", head_type="complete", max_rules=rules, shrinkage=0.3,
                l2_regularization_weight=1.0, instance_sampling=BAGGING, feature_sampling="without-replacement",
                feature_binning="equal-width", label_binning="equal-width", holdout="none", global_pruning="none",
                statistic_type="32-bit", binary_predictor="example-wise", random_state=seed)


def reference_settings(rules: int, seed: int) -> dict:
    return {**settings(rules, seed), "rule_pruning": "none", "default_rule": "true"}


def reference_hessian_bytes(n: int, K: int, itemsize: int = 4) -> int:
    """Bytes of mlrl-boomer's per-example statistics: K gradients and K(K+1)/2 Hessian entries each."""
    return n * (K + K * (K + 1) // 2) * itemsize


def _capped(python: str, gib: float, folder: Path) -> str:
    """A launcher for ``python`` with its address space capped at ``gib`` GiB."""
    launcher = folder / "capped-python"
    launcher.write_text(f"#!/bin/sh\nulimit -v {int(gib * 2**20)}\nexec {python} \"$@\"\n")
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return str(launcher)


def run(sizes, labels, rules, reference=None, reference_memory_gib=8.0, seed=1, scopes=("rule",)) -> int:
    header = (f"{'N':>7s} {'K':>4s} {'rules':>5s} {'scope':>9s} | {'ours s':>8s} {'ours MiB':>8s} {'ours 0/1':>8s} "
              f"{'ours Ham':>8s} | "
              f"{'ref s':>8s} {'ref MiB':>8s} {'ref 0/1':>8s} {'ref Ham':>8s}")
    print(header)
    print("-" * len(header), flush=True)
    with tempfile.TemporaryDirectory(prefix="boomer-many-labels-") as tmp:
        folder = Path(tmp)
        capped = _capped(reference, reference_memory_gib, folder) if reference else None
        for K in labels:
            for n in sizes:
                X, Y, Xt, Yt = make_data(n, K)
                np.savez(folder / "data.npz", X_train=X, Y_train=Y, X_test=Xt)
                for r in rules:
                    rows = []
                    for scope in scopes:
                        ours = run_driver(sys.executable, "ours", folder / "data.npz",
                                          {**settings(r, seed, scope), "__warm_up__": True})
                        rows.append(f"{n:7d} {K:4d} {r:5d} {scope:>9s} | {ours['fit_seconds']:8.1f} "
                                    f"{ours['peak_mib']:8.0f} "
                                    f"{100 * metrics.subset_zero_one_loss(Yt, ours['predictions']):8.2f} "
                                    f"{100 * metrics.hamming_loss(Yt, ours['predictions']):8.3f} | ")
                    for row in rows[:-1]:
                        print(row, flush=True)
                    row = rows[-1]
                    if capped:
                        try:
                            ref = run_driver(capped, "reference", folder / "data.npz",
                                             {**reference_settings(r, seed), "__warm_up__": True})
                            row += (f"{ref['fit_seconds']:8.1f} {ref['peak_mib']:8.0f} "
                                    f"{100 * metrics.subset_zero_one_loss(Yt, ref['predictions']):8.2f} "
                                    f"{100 * metrics.hamming_loss(Yt, ref['predictions']):8.3f}")
                        except RuntimeError as error:
                            need = reference_hessian_bytes(n, K) / 2**30
                            said = str(error).partition(":")[2].strip()  # the reference's stderr, if any
                            reason = ("out of memory" if "memory" in said.lower() or "bad_alloc" in said else
                                      said.splitlines()[-1][:60] if said else "crashed without a message")
                            row += f"failed under a {reference_memory_gib:g} GiB cap ({reason}; its Hessians: " \
                                   f"{need:.1f} GiB)"
                    print(row, flush=True)
    print(f"(losses in percent on {len(Yt):,} test examples; peak resident memory of the fitting process, data "
          f"included; load average {os.getloadavg()[0]:.1f} at the end)")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.bench.many_labels", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    p.add_argument("--labels", type=int, nargs="+", default=[983])
    p.add_argument("--rules", type=int, nargs="+", default=[50, 300])
    p.add_argument("--reference-python", metavar="PY", help="mlrl-boomer 0.15.6's interpreter")
    p.add_argument("--reference-memory-gib", type=float, default=8.0,
                   help="the reference's address-space cap (default 8 GiB)")
    p.add_argument("--scopes", nargs="+", choices=("condition", "rule"), default=["rule"],
                   help="our label_binning_scope values to run (default: rule)")
    add_record_option(p)
    args = p.parse_args(argv)
    with recording("many_labels", args.record):
        return run(args.sizes, args.labels, args.rules, args.reference_python, args.reference_memory_gib,
                   scopes=tuple(args.scopes))


if __name__ == "__main__":
    raise SystemExit(main())
