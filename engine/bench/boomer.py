"""``python -m engine bench``: fit time and test quality against mlrl-boomer, same settings.

Each data set from ``../shared/data`` is split 2/3 : 1/3 (seed 0).  Both learners use bagging with
replacement (0.66 N draws per rule, mlrl-boomer's default sample size), log2 attribute sampling,
shrinkage 0.3, L2 weight 1.0, no label or feature binning, no holdout or pruning, and the same number
of rules, every setting passed explicitly, on the same input (CSR for sparse data, every attribute
numeric).  The ``defaults`` rows pass nothing but the number of rules
and the seed to either learner: mlrl-boomer 0.15.6's default model against ours (the same model).
Our single-label heads choose their label as mlrl-boomer 0.15 does (``single_label_choice='largest-score'``) unless ``--single-label-choice objective`` asks
for the paper's choice (our estimator's default).  mlrl-boomer is used as a black box:
``--reference-python PY`` runs it in another interpreter (the newest releases need Python >= 3.12),
else the one installed here (0.12.3 with ``pip install .[bench]``); without either only our figures
are printed.  Ours and the reference alternate seed by seed; fit times are medians over the seeds.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from engine import metrics
from engine.boomer import BoomerClassifier
from engine.datasets import load

DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DATASETS = {"emotions": "emotions.arff", "yeast": "yeast.svm", "enron": "enron.arff"}
VARIANTS = {
    "label-wise": ("logistic-decomposable", "single"),
    "example-wise": ("logistic-non-decomposable", "complete"),
    "defaults": (None, None),  # both learners' defaults: nothing passed but the seed (and --rules)
}


# mlrl-boomer's bagging draws 0.66 N examples per rule by default, the paper (and our default) N:
# both learners get the same sample size, explicitly
BAGGING = "with-replacement{sample_size=0.66}"


def _settings(loss, head, rules, seed) -> dict:
    """The reference's settings, every one passed explicitly (mlrl-boomer's names and values)."""
    return dict(loss=loss, head_type=head, max_rules=rules, shrinkage=0.3, l2_regularization_weight=1.0,
                instance_sampling=BAGGING, feature_sampling="without-replacement",
                label_binning="none", feature_binning="none", holdout="none", global_pruning="none",
                rule_pruning="none", default_rule="true", random_state=seed)


class InProcessReference:
    """mlrl-boomer installed in this interpreter (0.12.3 runs on Python 3.11: ``pip install .[bench]``)."""

    def __init__(self):
        from mlrl.boosting import Boomer  # noqa: F401 - ImportError: not installed
        from importlib.metadata import version

        self.version = version("mlrl-boomer")

    def fit_predict(self, settings, X_train, Y_train, X_test):
        from mlrl.boosting import Boomer

        est = Boomer(**settings)
        start = time.perf_counter()
        est.fit(X_train, Y_train)
        seconds = time.perf_counter() - start
        return seconds, est.predict(X_test)


class SubprocessReference:
    """mlrl-boomer in another interpreter (the newest releases need Python >= 3.12): the driver
    script (``fit_driver.py``) fits there and measures the fit time itself."""

    def __init__(self, python: str):
        self.python = python
        probe = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('mlrl-boomer'))"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise ValueError(f"{python} cannot import mlrl-boomer: {probe.stderr.strip().splitlines()[-1:]}")
        self.version = probe.stdout.strip()
        self._folder = tempfile.mkdtemp(prefix="boomer-bench-")

    def fit_predict(self, settings, X_train, Y_train, X_test):
        arrays = {"Y_train": np.asarray(Y_train)}
        for name, X in (("X_train", X_train), ("X_test", X_test)):
            if sp.issparse(X):
                X = sp.csr_matrix(X)
                arrays.update({f"{name}_data": X.data, f"{name}_indices": X.indices, f"{name}_indptr": X.indptr,
                               f"{name}_shape": np.array(X.shape)})
            else:
                arrays[name] = np.asarray(X)
        data = Path(self._folder) / "data.npz"
        np.savez(data, **arrays)
        out = run_driver(self.python, "reference", data, settings)
        return out["fit_seconds"], out["predictions"]


DRIVER = Path(__file__).with_name("fit_driver.py")
PROJECT = Path(__file__).resolve().parents[2]


def run_driver(python: str, which: str, data: Path, settings: dict) -> dict:
    """Fit in a fresh ``python`` process (``fit_driver.py``): ``which`` is 'ours' or 'reference'.
    Returns the driver's answer with the predictions unpacked (0/1, test examples x labels)."""
    options = data.with_name(f"{which}-settings.json")
    options.write_text(json.dumps(settings))
    proc = subprocess.run([python, str(DRIVER), which, str(data), str(options)], capture_output=True, text=True,
                          cwd=PROJECT if which == "ours" else None)
    if proc.returncode != 0:
        raise RuntimeError(f"{'we' if which == 'ours' else 'the reference'} failed: {proc.stderr.strip()[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    packed = np.asarray(out["predictions"], dtype=np.uint8).reshape(out["shape"][0], -1)
    out["predictions"] = np.unpackbits(packed, axis=1)[:, :out["shape"][1]]
    return out


def _reference(python: str | None):
    """The reference runner: another interpreter (``--reference-python``), else this one, else None."""
    if python:
        return SubprocessReference(python)
    try:
        return InProcessReference()
    except ImportError:
        return None


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
        settings = dict(loss=loss, head_type=head) if loss else {}
        BoomerClassifier(max_rules=5, **settings).fit(X, Y, X_test=X, Y_test=Y).predict(X)
    return time.perf_counter() - start


def run(args) -> int:
    if not DATA_DIR.is_dir():
        print(f"benchmark data not found at {DATA_DIR}; nothing to do")
        return 1
    reference = _reference(getattr(args, "reference_python", None))
    print(f"JIT compile / cache load: {_warm_up():.2f} s; reference: "
          f"{'mlrl-boomer ' + reference.version if reference else 'none (pip install mlrl-boomer)'}")
    header = (f"{'data':9s} {'variant':13s} {'ours s':>8s} {'ref s':>8s} {'ratio':>6s} | "
              f"{'ours Ham':>8s} {'ref Ham':>8s} {'ours 0/1':>8s} {'ref 0/1':>8s}")
    print(header)
    print("-" * len(header))
    choice = getattr(args, "single_label_choice", "largest-score")
    for name in args.data or DATASETS:
        ds = load(DATA_DIR / DATASETS[name])
        train, test = ds.train_test_split(0.33, seed=0)
        # both learners get the same matrices, CSR for sparse data (the input's format decides both models:
        # mlrl-boomer's feature_format 'auto' searches sparse input with its zeros implicit, and so do we),
        # and neither gets attribute types (the reference is given none; enron's binary nominal attributes
        # then are numeric for both)
        sparse = (train.X == 0).mean() > 0.5
        Xtr_ref = sp.csr_matrix(train.X) if sparse else train.X
        Xte_ref = sp.csr_matrix(test.X) if sparse else test.X
        for variant in args.variants or VARIANTS:
            loss, head = VARIANTS[variant]
            ours_t, ref_t, ours_l, ref_l = [], [], [], []
            for seed in range(1, args.seeds + 1):  # ours and the reference alternate, seed by seed
                if variant == "defaults":
                    est = BoomerClassifier(max_rules=args.rules, random_state=seed)
                else:
                    est = BoomerClassifier(loss=loss, head_type=head, max_rules=args.rules, random_state=seed,
                                           single_label_choice=choice, instance_sampling=BAGGING)
                t = time.perf_counter()
                est.fit(Xtr_ref, train.Y)
                ours_t.append(time.perf_counter() - t)
                ours_l.append(_losses(test.Y, est.predict(Xte_ref)))
                if reference is not None:
                    settings = _settings(loss, head, args.rules, seed) if loss else \
                        dict(max_rules=args.rules, random_state=seed)
                    if isinstance(reference, SubprocessReference) and loss:
                        settings["binary_predictor"] = "output-wise" if variant == "label-wise" else "example-wise"
                    seconds, P = reference.fit_predict(settings, Xtr_ref, train.Y, Xte_ref)
                    ref_t.append(seconds)
                    ref_l.append(_losses(test.Y, P))
            o = float(np.median(ours_t))
            r = float(np.median(ref_t)) if ref_t else float("nan")
            ours = np.mean(ours_l, axis=0)
            ref_losses = np.mean(ref_l, axis=0) if ref_l else (float("nan"), float("nan"))
            print(f"{name:9s} {variant:13s} {o:8.2f} {r:8.2f} {o / r:6.2f} | "
                  f"{100 * ours[0]:8.2f} {100 * ref_losses[0]:8.2f} {100 * ours[1]:8.2f} {100 * ref_losses[1]:8.2f}",
                  flush=True)
    print(f"({args.rules} rules; median fit times and mean losses over random_state 1..{args.seeds}; losses in "
          f"percent on a 1/3 test split; ratio = ours / reference fit time; our single-label heads: "
          f"single_label_choice={choice!r})")
    return 0
