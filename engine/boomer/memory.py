"""What a fit's statistics take in memory, refused with a clear error when the machine cannot hold them."""
from __future__ import annotations

import os

from ..core.losses import n_hessian_entries


def physical_memory() -> int:
    """Bytes of physical memory (0 where unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def statistics_bytes(n: int, K: int, full_hessian: bool, itemsize: int, compact: bool, n_sampled: int) -> int:
    """Bytes of a fit's statistics: gradients and Hessians per example, plus, for compact statistics
    (:mod:`engine.core.examplewise_stats`), the packed K x K sums of the refinement (the covered
    examples', and per sampled attribute its five accumulator rows and its best condition's)."""
    if compact:
        return n * (2 * K + 1) * itemsize + (2 + 6 * n_sampled) * n_hessian_entries(K, False) * 8
    return n * (K + n_hessian_entries(K, not full_hessian)) * itemsize


def check_statistics_memory(n: int, K: int, full_hessian: bool, itemsize: int, compact: bool = False,
                            n_sampled: int = 1) -> None:
    """A clear error instead of numpy's failed allocation.  Single-label heads of example-wise losses
    keep each example's packed K x K Hessian (K(K+1)/2 entries); complete, partial and binned heads keep
    it as a diagonal plus rank one (``compact``, 2K + 1 numbers) and sum it into a few K x K matrices."""
    need = statistics_bytes(n, K, full_hessian, itemsize, compact, n_sampled)
    have = physical_memory()
    if full_hessian and have and need > have:
        what = (f"the refinement sums {K} x {K} Hessians for each of {n_sampled} sampled attributes" if compact else
                f"single-label heads of the example-wise loss keep a {K} x {K} Hessian per training example")
        raise MemoryError(f"{what}: {need / 2**30:.1f} GiB for {n} examples, more than this machine's "
                          f"{have / 2**30:.1f} GiB; use a label-wise loss, label binning, fewer labels or "
                          "fewer examples")
