"""Critical-difference diagrams (Demšar 2006): methods on an axis of average ranks (1 = best, left),
groups whose ranks differ by less than the Nemenyi critical distance joined by a bar."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure


def cliques(avg_ranks, cd: float) -> list[tuple[int, int]]:
    """Maximal runs (i, j) of the rank-sorted methods whose extreme ranks differ by less than ``cd``."""
    r = np.sort(np.asarray(avg_ranks, dtype=np.float64))
    out: list[tuple[int, int]] = []
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in out):
            out.append((i, j))
    return out


def cd_figure(names, avg_ranks, cd: float, title: str = "", alpha: float = 0.05, fig: Figure | None = None) -> Figure:
    """A matplotlib Figure (no pyplot) of the diagram; drawn into ``fig`` (cleared) when given."""
    names = list(names)
    ranks = np.asarray(avg_ranks, dtype=np.float64)
    order = np.argsort(ranks, kind="stable")
    k = len(names)
    if fig is None:
        fig = Figure(figsize=(7.0, 1.6 + 0.28 * k), dpi=110)
    else:
        fig.clear()
    ax = fig.add_axes((0.04, 0.02, 0.92, 0.9))
    ax.set_xlim(-1.6, k + 2.6)
    ax.set_ylim(-(k // 2 + 2.2), 2.2)
    ax.axis("off")
    ax.plot([1, k], [0, 0], color="black", lw=1)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, 0.18], color="black", lw=1)
        ax.text(t, 0.35, str(t), ha="center", va="bottom", fontsize=9)
    ax.plot([1, 1 + cd], [1.35, 1.35], color="firebrick", lw=2)
    ax.text(1 + cd / 2, 1.5, f"CD = {cd:.2f} (α = {alpha:g})", ha="center", va="bottom", fontsize=8,
            color="firebrick")
    half = (k + 1) // 2
    for pos, m in enumerate(order):
        left = pos < half
        level = -(pos + 1) if left else -(k - pos)
        x_text = 0.8 if left else k + 0.2
        ax.plot([ranks[m], ranks[m], x_text], [0, level, level], color="black", lw=0.8)
        ax.text(x_text + (-0.05 if left else 0.05), level, f"{names[m]} ({ranks[m]:.2f})",
                ha="right" if left else "left", va="center", fontsize=8.5)
    for n, (i, j) in enumerate(cliques(ranks, cd)):
        y = -0.35 - 0.22 * n
        ax.plot([ranks[order[i]] - 0.03, ranks[order[j]] + 0.03], [y, y], color="royalblue", lw=3,
                solid_capstyle="round")
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def save_cd_diagram(path, names, avg_ranks, cd: float, title: str = "", alpha: float = 0.05) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = cd_figure(names, avg_ranks, cd, title, alpha)
    FigureCanvasAgg(fig)
    fig.savefig(path)
