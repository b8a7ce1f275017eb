"""Feature binning against mlrl-boomer 0.15.6: test Hamming and subset 0/1 loss (%) of ours under the reference's
names ('equal-width', 'equal-frequency'), of ours '-midpoint', and of the reference itself, on the parity
suite's split (a third of each data set for testing, seed 0), deterministic BOOMER defaults
(``feature_sampling='none'``), 300 rules.  Each fit runs in a fresh process (``fit_driver.py``).

    python -m engine.bench.binning --reference-python /work/refvenv/bin/python [--data emotions,yeast,enron]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn import metrics

from ..datasets import load
from .boomer import run_driver

DATA = Path("/work/shared/data")
METHODS = ("none", "equal-width", "equal-width-midpoint", "equal-frequency", "equal-frequency-midpoint")


def _dense(X) -> np.ndarray:
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)


def _losses(Y, P) -> str:
    return f"{100 * metrics.hamming_loss(Y, P):6.2f} {100 * (1 - metrics.accuracy_score(Y, P)):6.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-python", required=True)
    parser.add_argument("--data", default="emotions,yeast,enron")
    parser.add_argument("--rules", type=int, default=300)
    args = parser.parse_args(argv)
    print("data      feature_binning            ours: Hamming 0/1   reference: Hamming 0/1   same predictions %")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.data.split(","):
            path = next(p for p in DATA.glob(name + ".*") if p.suffix != ".xml")
            train, test = load(path).train_test_split(1 / 3, seed=0)
            data = Path(tmp) / f"{name}.npz"
            np.savez(data, X_train=_dense(train.X), Y_train=np.asarray(train.Y, np.uint8), X_test=_dense(test.X))
            Y_test = np.asarray(test.Y, np.uint8)
            for method in METHODS:
                settings = {"feature_sampling": "none", "max_rules": args.rules, "feature_binning": method}
                ours = run_driver(sys.executable, "ours", data, settings)["predictions"]
                line = f"{name:9} {method:26} {_losses(Y_test, ours)}"
                if not method.endswith("-midpoint"):
                    ref = run_driver(args.reference_python, "reference", data, settings)["predictions"]
                    line += f"       {_losses(Y_test, ref)}          {100 * (ours == ref).mean():6.2f}"
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
