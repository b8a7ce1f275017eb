"""Two LAPACK routines called from kernels directly: ``dsyevd`` (eigenvalues of a symmetric matrix) and
``dgesv`` (a general linear system), the ones Numba's ``np.linalg.eigvalsh`` and ``np.linalg.solve`` call,
with the same arguments (so the same numbers, bit for bit), without their wrappers' checks, copies and
error messages, which took Numba about 4 s to compile in every process with an empty cache.

The routines are SciPy's (:mod:`scipy.linalg.cython_lapack`, Numba's source too), registered with LLVM
under names of our own when this module is imported (in the process only; nothing is written), and
called by those names: kernels that call them stay cacheable."""
from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types
from numba.extending import get_cython_function_address

LAPACK_INT = np.int32  # the Fortran integer of SciPy's LAPACK (Numba checks the same width)
_NO_VECTORS, _LOWER = ord("N"), ord("L")  # dsyevd's character arguments (constants: no string code in kernels)


def _routine(name: str, n_args: int) -> types.ExternalFunction:
    """SciPy's LAPACK routine ``name`` as a kernel-callable function of ``n_args`` pointers (Fortran
    passes every argument by reference)."""
    symbol = f"engine_lapack_{name}"
    llvm.add_symbol(symbol, get_cython_function_address("scipy.linalg.cython_lapack", name))
    return types.ExternalFunction(symbol, types.void(*([types.voidptr] * n_args)))


_dsyevd = _routine("dsyevd", 11)
_dgesv = _routine("dgesv", 8)


@njit(cache=True, nogil=True, inline="always")
def _ints(a, b, c, d, e):
    """Five Fortran integers, each passed by its address."""
    out = np.empty(5, dtype=LAPACK_INT)
    out[0] = a
    out[1] = b
    out[2] = c
    out[3] = d
    out[4] = e
    return out


@njit(cache=True, nogil=True)
def symmetric_eigenvalues(a, w):
    """The eigenvalues of the symmetric n x n matrix ``a`` (float64, C order; read from its upper triangle
    and overwritten) in ascending order into ``w``, as ``np.linalg.eigvalsh`` computes them (``dsyevd``,
    no vectors, after the optimal workspace query).  Returns LAPACK's ``info`` (0: converged)."""
    n = a.shape[0]
    if n == 0:
        return 0
    chars = np.empty(2, dtype=np.uint8)
    chars[0] = _NO_VECTORS  # eigenvalues only
    chars[1] = _LOWER  # the lower triangle in Fortran's order: the upper one of ``a``
    ints = _ints(n, n, -1, -1, 0)  # n, lda, lwork, liwork, info
    query = np.empty(1)
    iquery = np.empty(1, dtype=LAPACK_INT)
    _dsyevd(chars[0:].ctypes, chars[1:].ctypes, ints[0:].ctypes, a.ctypes, ints[1:].ctypes, w.ctypes,
            query.ctypes, ints[2:].ctypes, iquery.ctypes, ints[3:].ctypes, ints[4:].ctypes)
    if ints[4] != 0:
        return ints[4]
    ints[2] = LAPACK_INT(query[0])  # truncated, as Numba's helper does
    ints[3] = iquery[0]
    work = np.empty(max(ints[2], 1))
    iwork = np.empty(max(ints[3], 1), dtype=LAPACK_INT)
    _dsyevd(chars[0:].ctypes, chars[1:].ctypes, ints[0:].ctypes, a.ctypes, ints[1:].ctypes, w.ctypes,
            work.ctypes, ints[2:].ctypes, iwork.ctypes, ints[3:].ctypes, ints[4:].ctypes)
    return ints[4]


@njit(cache=True, nogil=True)
def solve_symmetric(a, b):
    """Overwrite ``b`` with the solution x of a x = b for the symmetric n x n matrix ``a`` (float64, C order,
    overwritten by its LU factors), as ``np.linalg.solve`` computes it (``dgesv``: LU with partial
    pivoting; ``a`` read in Fortran's order, its transpose, which is ``a``).  Returns LAPACK's ``info``
    (> 0: exactly singular, ``b`` unusable)."""
    n = a.shape[0]
    if n == 0:
        return 0
    ints = _ints(n, 1, n, n, 0)  # n, nrhs, lda, ldb, info
    pivots = np.empty(n, dtype=LAPACK_INT)
    _dgesv(ints[0:].ctypes, ints[1:].ctypes, a.ctypes, ints[2:].ctypes, pivots.ctypes, b.ctypes,
           ints[3:].ctypes, ints[4:].ctypes)
    return ints[4]
