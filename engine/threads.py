"""How the refinement's second thread waits between steps.

A threaded refinement step (:mod:`engine.core.refinement`) wakes Numba's OpenMP worker and waits for
it at the step's end.  By default GNU OpenMP lets an idle worker spin for 300,000 iterations before
it sleeps, which on a 2-core machine takes a core from whatever else runs (the GUI, another fit)
and, when the OS then preempts the worker in the middle of a step, keeps the learner waiting at the
barrier.  A short spin (``SPIN_COUNT``) trades a little speed on an idle machine for much less loss
on a busy one.  Fastest and median of 9 fits (1000 rules, seeds 1-3), this 2-core machine:

- idle: yeast 1.13 / 1.22 s against 1.02 / 1.09 s with the default spin, enron 0.18 / 0.18 s against
  0.26 / 0.27 s, emotions the same (its steps run serially);
- one other process busy: yeast 1.46 / 1.55 s against 3.00 / 3.14 s, enron 0.25 / 0.29 s against
  0.34 / 0.43 s, emotions 0.31 / 0.36 s against 0.41 / 0.44 s.

Read once, when OpenMP loads (at the first threaded kernel), so this is set when ``engine`` is
imported; a value the user set in the environment is kept.  Where another library loaded OpenMP
first, its setting stays in force.
"""
from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import MutableMapping

SPIN_COUNT = "3000"  # GNU OpenMP's spin iterations before an idle thread sleeps (a few microseconds)


def limit_thread_spinning(environ: MutableMapping[str, str] = os.environ) -> None:
    """Default ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` unless it is set already."""
    environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)


_BLAS = None  # threadpoolctl's view of the loaded BLAS libraries, made at first use


@contextlib.contextmanager
def single_threaded_blas():
    """BLAS on one thread while the block runs (process-wide; the previous setting comes back after).

    ML-ME's and the classifier chain's L-BFGS problems are small matrix products (a few hundred rows
    times tens of columns): OpenBLAS's threads only wait for each other on them, and on a busy machine
    (the window, another fit) a waiting thread holds the whole product back.  ML-ME on emotions,
    2 cores with other work running: 16.6 s single-threaded against 328 s with OpenBLAS's default."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    with _BLAS.limit(limits=1, user_api="blas"):
        yield


def with_single_threaded_blas(generator_function):
    """Decorate a generator function: its body runs under :func:`single_threaded_blas`."""
    @functools.wraps(generator_function)
    def wrapper(*args, **kwargs):
        with single_threaded_blas():
            yield from generator_function(*args, **kwargs)
    return wrapper


def numba_threads(wanted: int) -> int:
    """Set this thread's Numba thread count to ``wanted`` (0: every launched thread), bounded by the
    threads the pool launched (or will launch); the count this thread had before.

    Numba reads ``NUMBA_NUM_THREADS`` when it is imported, launches its pool with that many threads
    at the first parallel call, and re-reads the environment at every compilation, refusing to go on
    when the value changed after the launch.  A process whose environment changed between the
    import and the launch (a Dask worker: the spawned child imports the parent's main module, and
    Numba with it, before the nanny applies the worker's environment) would launch a pool of the
    stale size and fail at its first compilation.  So the environment is read again here, before
    the pool launches; thread counts are never passed through ``NUMBA_NUM_THREADS`` after import;
    and if the pool was launched before someone changed the variable, the variable is set back to
    the pool's size, so that a compilation never fails for it."""
    import numba
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:  # what a compilation does first, under the same lock
        try:
            config.reload_config()
        except RuntimeError:  # launched before the variable changed: the environment follows the pool
            os.environ["NUMBA_NUM_THREADS"] = str(config.NUMBA_NUM_THREADS)
            config.reload_config()
    before = numba.get_num_threads()  # launches the pool, at the size the environment says now
    launched = config.NUMBA_NUM_THREADS
    numba.set_num_threads(launched if wanted <= 0 else max(1, min(int(wanted), launched)))
    return before
