"""``python -m engine bench_ranking``: label ranking by boosting (Dekel et al. 2003) on real data.

For each data set (emotions, yeast, enron, scene from ``../shared/data``; scene's train and test
files are pooled), 5-fold cross-validation (shuffled, seed 0).  In every fold
``LabelRankingBooster`` is trained once per decomposition (0-1, dis, Dom, dom) and BOOMER
(label-wise logistic loss, single-label heads) is trained for comparison, its label scores used as
a ranking.  The table shows test means over the folds of the four generalised errors (ties count
as errors), rank loss and average precision, and the fit time.  The paper's Fig. 4 finding —
training with Dom gives the lowest error under every measure — is checked per data set.

``--scale`` instead measures the per-iteration time on synthetic data of growing size, to show
the cost is linear in the number of edges and non-zeros (SPEC A.4)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from engine import metrics as M
from engine.boomer import BoomerClassifier
from engine.datasets import load
from engine.ranking import LabelRankingBooster
from engine.ranking.graphs import DECOMPOSITIONS
from engine.ranking.measures import generalized_error

DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DATASETS = {"emotions": ("emotions.arff",), "yeast": ("yeast.svm",), "enron": ("enron.arff",),
            "scene": ("table1/scene-train.arff", "table1/scene-test.arff")}
MEASURES = ("0-1", "dis", "Dom", "dom", "rank loss", "avg precision")


def _load(name: str):
    parts = [load(DATA_DIR / f) for f in DATASETS[name]]
    X = [p.X for p in parts]
    X = sp.vstack(X).tocsr() if sp.issparse(X[0]) else np.vstack(X)
    return X, np.vstack([p.Y for p in parts])


def _scores(Y, S) -> dict:
    out = {d: generalized_error(Y, S, d) for d in DECOMPOSITIONS}
    out["rank loss"] = M.rank_loss(Y, S)
    out["avg precision"] = M.average_precision(Y, S)
    return out


def evaluate(name: str, folds: int, iterations: int, rules: int, out=print) -> dict:
    X, Y = _load(name)
    order = np.random.default_rng(0).permutation(len(Y))
    parts = np.array_split(order, folds)
    methods = [f"trained with {d}" for d in DECOMPOSITIONS] + ["BOOMER"]
    results = {m: [] for m in methods}
    seconds = {m: [] for m in methods}
    learned = []
    for f in range(folds):
        test = parts[f]
        train = np.concatenate([parts[g] for g in range(folds) if g != f])
        for d, m in zip(DECOMPOSITIONS, methods):
            est = LabelRankingBooster(decomposition=d, max_iterations=iterations)
            t = time.perf_counter()
            est.fit(X[train], Y[train])
            seconds[m].append(time.perf_counter() - t)
            results[m].append(_scores(Y[test], est.decision_function(X[test])))
        boomer = BoomerClassifier(loss="logistic-decomposable", head_type="single", max_rules=rules, random_state=1)
        t = time.perf_counter()
        boomer.fit(X[train], Y[train])
        seconds[methods[-1]].append(time.perf_counter() - t)
        results[methods[-1]].append(_scores(Y[test], boomer.decision_function(X[test])))
        learned.append(len(boomer.rules_))
    means = {m: {k: float(np.nanmean([r[k] for r in results[m]])) for k in MEASURES} for m in methods}
    out(f"\n{name}: {len(Y)} examples, {Y.shape[1]} labels, {folds}-fold CV, {iterations} iterations "
        f"(test means; lower is better except average precision)")
    out(f"{'method':<24}" + "".join(f"{k:>14}" for k in MEASURES) + f"{'fit s':>9}")
    for m in methods:
        shown = f"BOOMER ({np.mean(learned):.0f} rules)" if m == "BOOMER" else m
        out(f"{shown:<24}" + "".join(f"{means[m][k]:>14.4f}" for k in MEASURES) + f"{np.mean(seconds[m]):>9.2f}")
    rankers = methods[:4]
    best = {k: min(rankers, key=lambda m: means[m][k] if k != "avg precision" else -means[m][k]) for k in MEASURES}
    dom_best = [k for k in DECOMPOSITIONS if best[k] == "trained with Dom"]
    out(f"Fig. 4 finding (Dom training lowest under every generalised error): "
        f"{'holds' if len(dom_best) == 4 else 'does not hold'} — best per measure: "
        + ", ".join(f"{k}: {best[k].split()[-1]}" for k in MEASURES))
    return means


def scale(out=print, iterations: int = 20) -> list:
    """Seconds per iteration against the number of edges and non-zeros of Φ (synthetic data)."""
    rows = []
    out(f"{'examples':>9} {'labels':>7} {'edges':>10} {'nnz(Φ)':>10} {'ms/iteration':>13} {'ns per (edge + nnz·k)':>22}")
    for n, k in ((1000, 10), (4000, 10), (4000, 40), (16000, 40), (32000, 60)):
        rng = np.random.default_rng(0)
        X = sp.random(n, 200, density=0.05, random_state=0, format="csr", dtype=np.float32)
        Y = (rng.random((n, k)) < 0.2).astype(np.uint8)
        est = LabelRankingBooster(max_iterations=iterations, tol=0.0)
        steps = est.fit_iter(X, Y)
        next(steps)  # graphs built, kernels compiled
        t = time.perf_counter()
        done = sum(1 for _ in steps)
        per = (time.perf_counter() - t) / max(done, 1)
        r = Y.sum(1)
        edges = int((r * (k - r) + k).sum())
        nnz = X.nnz + n
        rows.append((n, k, edges, nnz, per))
        out(f"{n:>9} {k:>7} {edges:>10,} {nnz:>10,} {per * 1e3:>13.2f} {per * 1e9 / (edges + nnz * (k + 1)):>22.1f}")
    return rows


def run(args) -> int:
    if args.scale:
        scale()
        return 0
    if not DATA_DIR.is_dir():
        raise ValueError(f"the benchmark data folder {DATA_DIR} is absent")
    for name in args.data or list(DATASETS):
        evaluate(name, args.folds, args.iterations, args.rules)
    return 0
