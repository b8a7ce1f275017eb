"""Preference graphs and their decompositions (Dekel, Manning & Singer 2003, Sect. 2; SPEC A.1-A.2).

Every example i has a simple directed graph over the labels: an edge a -> b says "a should be
ranked above b".  All graphs are held as one edge list sorted by example (``ptr`` is the CSR
pointer).  A decomposition A splits each graph into subgraphs; :class:`Grouping` stores the
edges ordered so that every subgraph is a contiguous run, with the example of each subgraph and
the weight 1/s_i of eq. (1)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

DECOMPOSITIONS = ("0-1", "dis", "Dom", "dom")
MAX_EDGES = 50_000_000  # more is out of memory on a workstation; refused with a clear message


@dataclass(frozen=True)
class PreferenceGraphs:
    """Edges of all examples: ``init[e]`` should be ranked above ``term[e]``; the edges of example
    i are ``ptr[i]:ptr[i+1]``; ``n_labels`` vertices (a calibration label included, if any)."""

    ptr: np.ndarray  # int64, n_examples + 1
    init: np.ndarray  # int32
    term: np.ndarray  # int32
    n_labels: int

    @property
    def n_examples(self) -> int:
        return len(self.ptr) - 1

    @property
    def n_edges(self) -> int:
        return int(self.ptr[-1])

    def example_of_edges(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_examples, dtype=np.int64), np.diff(self.ptr))

    def has_edges(self) -> np.ndarray:
        return np.diff(self.ptr) > 0

    def group(self, decomposition: str) -> "Grouping":
        return Grouping.of(self, decomposition)


@dataclass(frozen=True)
class Grouping:
    """The subgraphs of a decomposition as contiguous edge runs ``g_ptr[g]:g_ptr[g+1]`` of
    ``init``/``term``; ``g_example[g]`` is the subgraph's example; ``weight[i]`` = 1/s_i (0 for an
    example without edges, which eq. (1) leaves undefined and we drop)."""

    g_ptr: np.ndarray
    g_example: np.ndarray
    init: np.ndarray
    term: np.ndarray
    weight: np.ndarray
    n_subgraphs: np.ndarray  # s_i

    @classmethod
    def of(cls, graphs: PreferenceGraphs, decomposition: str) -> "Grouping":
        """Table of SPEC A.2: 0-1 = the graph, dis = one edge each, Dom = edges leaving a vertex,
        dom = edges entering a vertex."""
        if decomposition not in DECOMPOSITIONS:
            raise ValueError(f"decomposition must be one of {', '.join(map(repr, DECOMPOSITIONS))}, "
                             f"got {decomposition!r}")
        ex = graphs.example_of_edges()
        n_edges = graphs.n_edges
        if decomposition == "0-1":
            order, key = np.arange(n_edges), ex
        elif decomposition == "dis":
            order, key = np.arange(n_edges), np.arange(n_edges)
        else:
            vertex = graphs.init if decomposition == "Dom" else graphs.term
            key = ex * graphs.n_labels + vertex
            order = np.argsort(key, kind="stable")
            key = key[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if n_edges else np.zeros(0, dtype=np.int64)
        g_ptr = np.r_[starts, n_edges].astype(np.int64)
        g_example = ex[order][starts].astype(np.int64)
        s = np.bincount(g_example, minlength=graphs.n_examples).astype(np.int64)
        weight = np.zeros(graphs.n_examples)
        weight[s > 0] = 1.0 / s[s > 0]
        return cls(g_ptr, g_example, np.ascontiguousarray(graphs.init[order]),
                   np.ascontiguousarray(graphs.term[order]), weight, s)


# ---------------------------------------------------------------------------------------- builders
def _assemble(per_example: list[tuple[np.ndarray, np.ndarray]], n_labels: int) -> PreferenceGraphs:
    counts = np.array([len(a) for a, _ in per_example], dtype=np.int64)
    total = int(counts.sum())
    if total > MAX_EDGES:
        raise ValueError(f"the preference graphs have {total:,} edges in total; at most {MAX_EDGES:,} fit in memory")
    ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    init = np.concatenate([a for a, _ in per_example]).astype(np.int32) if total else np.zeros(0, np.int32)
    term = np.concatenate([b for _, b in per_example]).astype(np.int32) if total else np.zeros(0, np.int32)
    return PreferenceGraphs(ptr, init, term, n_labels)


def _pairs(above: np.ndarray, below: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.repeat(above, len(below)), np.tile(below, len(above))


CANCEL_EVERY = 256  # examples between two looks at the cancel check while graphs are built


def check_edge_count(Y: np.ndarray, calibration: bool = False) -> int:
    """The bipartite graphs' number of edges (a lower bound of the layered graphs'), counted from the
    label counts alone; ValueError beyond :data:`MAX_EDGES`, before any graph is built."""
    Y = np.asarray(Y)
    relevant = Y.astype(bool).sum(axis=1, dtype=np.int64)
    irrelevant = Y.shape[1] - relevant
    total = int((relevant * irrelevant).sum()) + (int(Y.shape[1]) * Y.shape[0] if calibration else 0)
    if total > MAX_EDGES:
        raise ValueError(f"the preference graphs have {total:,} edges in total; at most {MAX_EDGES:,} fit in memory")
    return total


def bipartite(Y: np.ndarray, calibration: bool = False, cancel=None) -> PreferenceGraphs:
    """Multi-label reduction (SPEC A.2): an edge from every relevant to every irrelevant label.

    With ``calibration`` a virtual label (index K) is put between them (SPEC A.10 (a)): edges
    relevant -> calibration -> irrelevant are added, so every example has a graph."""
    return layered(Y, None, calibration, cancel)


def layered(Y: np.ndarray, parents: np.ndarray | None, calibration: bool = False, cancel=None) -> PreferenceGraphs:
    """The paper's 3-layer graphs from a label hierarchy (SPEC A.8, reading [A]): layer 1 the
    relevant labels, layer 2 the irrelevant labels sharing a parent with a relevant one, layer 3
    the rest; every vertex points to all vertices of lower layers.  ``parents[k]`` is label k's
    parent label index (-1 for a top-level label); without ``parents`` there are two layers.
    ``cancel`` (a callable that raises to stop) is called every :data:`CANCEL_EVERY` examples."""
    Y = np.asarray(Y, dtype=bool)
    n, k = Y.shape
    labels = np.arange(k)
    if parents is not None:
        parents = check_parents(parents, k)
    out = []
    cal = np.array([k]) if calibration else np.zeros(0, dtype=np.int64)
    for i in range(n):
        if cancel is not None and i % CANCEL_EVERY == 0:
            cancel()
        rel, irr = labels[Y[i]], labels[~Y[i]]
        if parents is None or len(rel) == 0:
            layers = [rel, irr]
        else:
            sibling = np.isin(parents[irr], parents[rel])  # top-level labels are siblings under the root
            layers = [rel, irr[sibling], irr[~sibling]]
        if calibration:
            layers = [layers[0], cal] + layers[1:]
        a_parts, b_parts = [], []
        for u in range(len(layers)):
            below = np.concatenate(layers[u + 1:]) if u + 1 < len(layers) else np.zeros(0, dtype=np.int64)
            a, b = _pairs(layers[u], below)
            a_parts.append(a)
            b_parts.append(b)
        out.append((np.concatenate(a_parts), np.concatenate(b_parts)))
    return _assemble(out, k + int(calibration))


def check_parents(parents, n_labels: int) -> np.ndarray:
    """A label hierarchy: one parent index per label, -1 for top-level labels, no cycles."""
    p = np.asarray(parents)
    if p.shape != (n_labels,) or not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"hierarchy: expected {n_labels} integer parent indices (-1 = top level), got "
                         f"{p.dtype} array of shape {p.shape}")
    bad = np.flatnonzero((p < -1) | (p >= n_labels) | (p == np.arange(n_labels)))
    if len(bad):
        raise ValueError(f"hierarchy: label {bad[0]} has parent {p[bad[0]]}, not -1 or another label's index")
    for start in range(n_labels):  # a path to the top must end within n_labels steps
        v, steps = start, 0
        while v >= 0:
            v, steps = p[v], steps + 1
            if steps > n_labels:
                raise ValueError(f"hierarchy: label {start} lies on a cycle of parents")
    return p.astype(np.int64)


def from_edge_lists(edge_lists, n_labels: int) -> PreferenceGraphs:
    """User-given graphs: per example a sequence of (above, below) label pairs.  Self-loops and
    repeated edges are refused (graphs must be simple, SPEC A.1); a pair of opposite edges only
    warns (the strict reading forbids it, the algorithm is defined either way)."""
    out = []
    antiparallel = 0
    for i, edges in enumerate(edge_lists):
        e = np.asarray(list(edges), dtype=np.int64) if len(edges) else np.zeros((0, 2), dtype=np.int64)
        if e.ndim != 2 or e.shape[1] != 2:
            raise ValueError(f"preference graph of example {i}: expected (above, below) pairs, got shape {e.shape}")
        bad = np.flatnonzero((e < 0).any(1) | (e >= n_labels).any(1))
        if len(bad):
            raise ValueError(f"preference graph of example {i}: edge {tuple(e[bad[0]])} names a label outside "
                             f"0..{n_labels - 1}")
        loops = np.flatnonzero(e[:, 0] == e[:, 1])
        if len(loops):
            raise ValueError(f"preference graph of example {i}: self-loop {tuple(e[loops[0]])}")
        codes = e[:, 0] * n_labels + e[:, 1]
        uniq, counts = np.unique(codes, return_counts=True)
        if (counts > 1).any():
            c = uniq[counts > 1][0]
            raise ValueError(f"preference graph of example {i}: edge ({c // n_labels}, {c % n_labels}) given twice")
        antiparallel += int(np.isin(e[:, 1] * n_labels + e[:, 0], codes).sum()) // 2
        out.append((e[:, 0], e[:, 1]))
    if antiparallel:
        warnings.warn(f"{antiparallel} pairs of opposite edges (a above b and b above a) in the preference graphs",
                      stacklevel=2)
    return _assemble(out, n_labels)
