"""``python -m engine bench``: fit time and test quality against mlrl-boomer, same settings.

Each data set from ``../shared/data`` is split 2/3 : 1/3 (seed 0).  Both learners use
bagging with replacement, log2 attribute sampling, shrinkage 0.3, L2 weight 1.0, no label or
feature binning, no holdout or pruning, and the same number of rules.  mlrl-boomer is used as
a black box (``pip install mlrl-boomer``); without it only our figures are printed.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from . import metrics
from .boomer import BoomerClassifier
from .datasets import load

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DATASETS = {"emotions": "emotions.arff", "yeast": "yeast.svm", "enron": "enron.arff"}
VARIANTS = {
    "label-wise": ("logistic-decomposable", "single"),
    "example-wise": ("logistic-non-decomposable", "complete"),
}


def _reference(loss, head, rules, seed):
    try:
        from mlrl.boosting import Boomer
    except ImportError:
        return None
    return Boomer(loss=loss, head_type=head, max_rules=rules, shrinkage=0.3, l2_regularization_weight=1.0,
                  instance_sampling="with-replacement", feature_sampling="without-replacement",
                  label_binning="none", feature_binning="none", holdout="none", global_pruning="none",
                  rule_pruning="none", default_rule="true", random_state=seed)


def _losses(Y, P):
    P = P.toarray() if sp.issparse(P) else np.asarray(P)
    return metrics.hamming_loss(Y, P), metrics.subset_zero_one_loss(Y, P)


def _warm_up() -> float:
    """JIT compile (or load from Numba's cache) every kernel once; returns the seconds taken."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)).astype(np.float32)
    Y = (rng.random((60, 3)) < 0.5).astype(np.uint8)
    for loss, head in VARIANTS.values():
        BoomerClassifier(loss=loss, head_type=head, max_rules=5).fit(X, Y, X_val=X, Y_val=Y).predict(X)
    return time.perf_counter() - start


def run(args) -> int:
    if not DATA_DIR.is_dir():
        print(f"benchmark data not found at {DATA_DIR}; nothing to do")
        return 1
    print(f"JIT compile / cache load: {_warm_up():.2f} s")
    header = (f"{'data':9s} {'variant':13s} {'ours s':>8s} {'ref s':>8s} {'ratio':>6s} | "
              f"{'ours Ham':>8s} {'ref Ham':>8s} {'ours 0/1':>8s} {'ref 0/1':>8s}")
    print(header)
    print("-" * len(header))
    rows = []
    for name in args.data or DATASETS:
        ds = load(DATA_DIR / DATASETS[name])
        train, test = ds.train_test_split(0.33, seed=0)
        sparse = (train.X == 0).mean() > 0.5  # mlrl-boomer gets sparse input for sparse data
        Xtr_ref = sp.csr_matrix(train.X) if sparse else train.X
        Xte_ref = sp.csr_matrix(test.X) if sparse else test.X
        for variant in args.variants or VARIANTS:
            loss, head = VARIANTS[variant]
            ours_t, ref_t, ours_l, ref_l = [], [], [], []
            # All our runs first, then the reference's: its OpenMP threads keep spinning for a
            # while after a fit and would slow down whatever runs next.
            for seed in range(1, args.seeds + 1):
                est = BoomerClassifier(loss=loss, head_type=head, max_rules=args.rules, random_state=seed)
                t = time.perf_counter()
                est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask)
                ours_t.append(time.perf_counter() - t)
                ours_l.append(_losses(test.Y, est.predict(test.X)))
            for seed in range(1, args.seeds + 1):
                ref = _reference(loss, head, args.rules, seed)
                if ref is None:
                    break
                t = time.perf_counter()
                ref.fit(Xtr_ref, train.Y)
                ref_t.append(time.perf_counter() - t)
                ref_l.append(_losses(test.Y, ref.predict(Xte_ref)))
            o = float(np.mean(ours_t))
            r = float(np.mean(ref_t)) if ref_t else float("nan")
            ours = np.mean(ours_l, axis=0)
            ref_losses = np.mean(ref_l, axis=0) if ref_l else (float("nan"), float("nan"))
            row = (f"{name:9s} {variant:13s} {o:8.2f} {r:8.2f} {o / r:6.2f} | "
                   f"{100 * ours[0]:8.2f} {100 * ref_losses[0]:8.2f} {100 * ours[1]:8.2f} {100 * ref_losses[1]:8.2f}")
            print(row, flush=True)
            rows.append(row)
    print(f"({args.rules} rules; means over random_state 1..{args.seeds}; losses in percent on a 1/3 test split; "
          f"ratio = ours / reference fit time)")
    return 0
