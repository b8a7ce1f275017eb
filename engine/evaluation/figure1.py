"""The paper's synthetic study (Sec. 5.1) and Figure 1, headless.

Four variants (label-wise / example-wise logistic loss, single-label / complete heads) are
trained on each of the three synthetic data sets (training and test samples drawn with
different seeds) and drawn as Hamming-versus-subset-0/1 trajectories, one panel per data set,
with markers at 1, 2, 4, ..., 512 and the last rule, isometrics and the Bayes-optimal point.
Plotting uses matplotlib's Agg canvas (no pyplot, no GUI toolkit)."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from engine import metrics
from engine.boomer import BoomerClassifier
from engine.datasets import SYNTHETIC_KINDS, make_synthetic
from engine.fileio import atomic_savefig, check_output_path, figure_format
from engine.trajectory import Trajectory, marker_indices, save_trajectories

VARIANTS = {
    "label-wise, single": ("logistic-decomposable", "single"),
    "label-wise, complete": ("logistic-decomposable", "complete"),
    "example-wise, single": ("logistic-non-decomposable", "single"),
    "example-wise, complete": ("logistic-non-decomposable", "complete"),
}
COLORS = {"label-wise, single": "#1f77b4", "label-wise, complete": "#2ca02c",
          "example-wise, single": "#ff7f0e", "example-wise, complete": "#d62728"}
TITLES = {"marginal-independence": "Marginal independence", "marginal-dependence": "Strong marginal dependence",
          "conditional-dependence": "Strong conditional dependence"}


@dataclass
class PanelResult:
    kind: str
    trajectories: dict  # variant -> Trajectory
    bayes: tuple  # (Hamming, subset 0/1) of the Bayes-optimal prediction on the test sample


def run_variant(kind: str, variant: str, train, test, n_rules: int, seed: int, progress=None,
                settings=None) -> Trajectory:
    """Train one variant; ``n_rules`` counts rules after the default rule.  ``settings`` are further
    estimator parameters that leave the model alone (e.g. ``parallel_rule_refinement``)."""
    loss, head = VARIANTS[variant]
    est = BoomerClassifier.paper_2020(loss, head, max_rules=n_rules + 1, random_state=seed + 1,
                                      **(settings or {}))  # Sec. 5's settings
    traj = Trajectory(f"{variant} ({kind})", {"kind": kind, "variant": variant, **est.get_params(),
                                              "n_train": train.n_examples, "n_test": test.n_examples})
    for record in est.fit_iter(train.X, train.Y, test.X, test.Y):
        traj.append(record)
        if progress is not None:
            progress(record.index, n_rules)
    return traj


def run_study(n_rules: int = 1000, n_examples: int = 10000, seed: int = 0, kinds=SYNTHETIC_KINDS,
              variants=tuple(VARIANTS), progress=None, settings=None) -> list[PanelResult]:
    results = []
    for kind in kinds:
        train = make_synthetic(kind, n_examples=n_examples, seed=2 * seed)
        test = make_synthetic(kind, n_examples=n_examples, seed=2 * seed + 1)
        bayes = (metrics.hamming_loss(test.Y, test.bayes_Y), metrics.subset_zero_one_loss(test.Y, test.bayes_Y))
        trajs = {}
        for v in variants:
            cb = (lambda i, n, v=v, kind=kind: progress(kind, v, i, n)) if progress else None
            trajs[v] = run_variant(kind, v, train, test, n_rules, seed, cb, settings)
        results.append(PanelResult(kind, trajs, bayes))
    return results


def draw(results: list[PanelResult], path) -> None:
    """Three panels like the paper's Figure 1; the format follows the file suffix."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2 * len(results), 5.0), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(results), squeeze=False)[0]
    for ax, res in zip(axes, results):
        xs, ys = [res.bayes[0]], [res.bayes[1]]
        for variant, traj in res.trajectories.items():
            h, s = traj.column("test_hamming"), traj.column("test_subset")
            xs += list(h)
            ys += list(s)
            ax.plot(h, s, "-", color=COLORS.get(variant), lw=1.2, label=variant)
            marks = [i for i in marker_indices(len(traj) - 1) if i < len(traj)]
            ax.plot(h[marks], s[marks], "o", color=COLORS.get(variant), ms=3.5)
            ax.annotate(str(marks[-1]), (h[marks[-1]], s[marks[-1]]), fontsize=6, color=COLORS.get(variant),
                        xytext=(3, -8), textcoords="offset points")
        x0, x1 = min(xs), max(xs)
        y0, y1 = min(ys), max(ys)
        pad_x, pad_y = 0.05 * (x1 - x0 or 1), 0.05 * (y1 - y0 or 1)
        ax.set_xlim(x0 - pad_x, x1 + pad_x)
        ax.set_ylim(y0 - pad_y, y1 + pad_y)
        # isometrics: an improvement in Hamming loss equals one in subset 0/1 loss (slope 1)
        span = max(x1 - x0, y1 - y0) + 1
        for c in np.linspace(y0 - x1, y1 - x0, 7):
            ax.plot([x0 - span, x1 + span], [x0 - span + c, x1 + span + c], ":", color="0.75", lw=0.8, zorder=0)
        ax.plot(*res.bayes, "*", color="black", ms=12, label="Bayes optimal")
        ax.set_title(TITLES.get(res.kind, res.kind))
        ax.set_xlabel("Hamming loss (test)")
        ax.set_ylabel("subset 0/1 loss (test)")
        ax.grid(alpha=0.2)
    axes[0].legend(fontsize=8, loc="upper left")
    atomic_savefig(fig, path, dpi=130)


class _Progress:
    """One terminal line: data set, variant, rules done, rules per second."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.key = None

    def __call__(self, kind, variant, i, n):
        if (kind, variant) != self.key:
            self.key, self.start = (kind, variant), time.perf_counter()
        if i % 25 and i != n:
            return
        rate = i / max(time.perf_counter() - self.start, 1e-9)
        width = 30
        done = int(width * i / max(n, 1))
        self.stream.write(f"\r{kind:23s} {variant:23s} [{'#' * done}{'.' * (width - done)}] {i:5d}/{n} "
                          f"{rate:7.0f} rules/s")
        if i == n:
            self.stream.write("\n")
        self.stream.flush()


def run(args) -> int:
    check_output_path(args.out, what="figure file")
    figure_format(args.out)  # an unknown suffix is refused before the hours of training
    if args.trajectories:
        check_output_path(args.trajectories, not_same_as=(args.out,), what="trajectories file")
    start = time.perf_counter()
    results = run_study(args.rules, args.examples, args.seed, progress=_Progress())
    draw(results, args.out)
    if args.trajectories:
        save_trajectories([t for r in results for t in r.trajectories.values()], args.trajectories)
    for r in results:
        print(f"{r.kind}: Bayes-optimal Hamming {100 * r.bayes[0]:.2f} subset {100 * r.bayes[1]:.2f}")
        for v, t in r.trajectories.items():
            print(f"  {v:23s} after {len(t) - 1} rules: test Hamming {100 * t.column('test_hamming')[-1]:.2f} "
                  f"subset 0/1 {100 * t.column('test_subset')[-1]:.2f}")
    print(f"figure written to {args.out} in {time.perf_counter() - start:.0f} s")
    return 0
