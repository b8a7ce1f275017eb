"""Runs an evaluation's tasks on Dask distributed and writes each result to the store as it arrives.

By default a ``LocalCluster`` of worker processes with one thread each (and Numba limited to one
thread per task, so workers do not oversubscribe the cores); ``scheduler='tcp://HOST:8786'`` uses an
existing cluster instead, with no other change (its workers must see the data files at the same
paths).  Tasks lost with a worker are retried by Dask; a task that raises is recorded in the store's
``failures`` table and the run goes on."""
from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Callable



@dataclass
class RunSummary:
    n_tasks: int
    n_skipped: int
    n_done: int
    n_failed: int
    seconds: float
    n_elsewhere: int = 0  # tasks another process sharing the store claimed first


class Progress:
    """A one-line progress bar on a stream (redrawn in place on a terminal, a line per 10 % otherwise)."""

    def __init__(self, total: int, skipped: int, stream=None, width: int = 30):
        stream = stream if stream is not None else sys.stderr  # the stream of now, not of the first import
        self.total, self.skipped, self.stream, self.width = total, skipped, stream, width
        self.done = self.failed = 0
        self.start = time.monotonic()
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self._last_decile = -1

    def update(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += failed
        todo = self.total - self.skipped
        fraction = self.done / todo if todo else 1.0
        elapsed = time.monotonic() - self.start
        left = elapsed / fraction - elapsed if fraction > 0 else 0.0
        bar = "#" * int(round(fraction * self.width))
        line = (f"[{bar:<{self.width}}] {self.done}/{todo} tasks ({self.skipped} stored before, {self.failed} failed)"
                f" {elapsed:6.0f} s elapsed, ~{left:.0f} s left")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if self.done == todo else ""))
        elif int(fraction * 10) != self._last_decile or self.done == todo:
            self._last_decile = int(fraction * 10)
            self.stream.write(line + "\n")
        self.stream.flush()


def worker_environment(threads: int) -> dict:
    """The BLAS and OpenMP thread counts of a worker process.  Not Numba's: a task sets that itself
    (:func:`engine.threads.numba_threads`), since Numba reads ``NUMBA_NUM_THREADS`` at import, which
    in a spawned worker comes before the nanny applies this environment (the parent's main module is
    imported again first), and refuses to compile once the variable differs from its launched pool."""
    return {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads)}


def failure_text(error: BaseException, tb=None) -> str:
    """A failed task's whole traceback (the worker's, as Dask sends it back), its last line the error."""
    return "".join(traceback.format_exception(type(error), error, tb if tb is not None else error.__traceback__))


class _Feeder:
    """Hands tasks to :func:`compute` in order: all at once, or with ``claims`` (an object with
    ``take(keys)`` → the keys this process may compute, ``renew(keys)`` and ``release(keys)``) a few
    at a time, each claimed in the store first, so processes sharing a store share its tasks."""

    def __init__(self, todo: list[dict], names: list[str], claims, window: int, progress: Progress | None):
        self.queue = list(zip(todo, names))
        self.claims, self.window, self.progress = claims, window, progress
        self.position = 0
        self.renewed = time.monotonic()

    def take(self, count: int) -> list[tuple[dict, str]]:
        if self.claims is None:
            out, self.position = self.queue[self.position:], len(self.queue)
            return out
        out = []
        while len(out) < count and self.position < len(self.queue):
            batch = self.queue[self.position:self.position + count - len(out)]
            self.position += len(batch)
            mine = set(self.claims.take([t["key"] for t, _ in batch]))
            out.extend(item for item in batch if item[0]["key"] in mine)
            if self.progress is not None:
                self.progress.skipped += len(batch) - len(mine)
        return out

    def renew(self, keys) -> None:
        if self.claims is not None and time.monotonic() - self.renewed > self.claims.renew_every_s:
            self.claims.renew(keys)
            self.renewed = time.monotonic()


def compute(todo: list[dict], function, names: list[str], put, put_failure, progress: Progress | None, *,
            scheduler: str | None = None, n_workers: int | None = None, threads: int = 1,
            on_result: Callable | None = None, cancel=None, claims=None, on_failure: Callable | None = None) -> int:
    """Run ``function`` on every task on Dask (submitted, and so run, in order) and ``put`` each
    result the moment it arrives (``put_failure(key, traceback)`` for a task that raised, then
    ``on_failure(key, traceback)``); the number of failed tasks.  ``cancel`` (a
    ``threading.Event``) stops within half a second: tasks not finished are dropped, those stored
    stay.  With ``claims`` (see :class:`_Feeder`) a task is claimed just before it is submitted, and
    tasks claimed by another process are left to it."""
    from dask.distributed import Client, LocalCluster

    cluster = None
    workers = n_workers or max(1, (os.cpu_count() or 1) // threads)
    if scheduler is None:
        import dask

        with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):  # a fork would copy the
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,  # parent's OpenMP pool
                                   dashboard_address=":0", env=worker_environment(threads),
                                   silence_logs=50)  # failures: stored and summarised, not logged
        client = Client(cluster)
    else:
        client = Client(scheduler, timeout="30s")
        workers = max(1, len(client.scheduler_info().get("workers", {})))
    feeder = _Feeder(todo, names, claims, 2 * workers, progress)
    try:
        return _gather(client, function, feeder, put, put_failure, progress, on_result, cancel, on_failure)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _gather(client, function, feeder: _Feeder, put, put_failure, progress, on_result, cancel,
            on_failure=None) -> int:
    """Submit the feeder's tasks, store each result or failure as it arrives; the number failed."""
    from dask.distributed import wait

    n_failed = 0
    key_of: dict = {}
    pending: set = set()

    def submit(count: int) -> None:
        batch = feeder.take(count)
        if batch:
            futures = client.map(function, [t for t, _ in batch], key=[n for _, n in batch], retries=2, pure=False)
            key_of.update({f.key: t["key"] for f, (t, _) in zip(futures, batch)})
            pending.update(futures)

    submit(feeder.window)
    polled = cancel is not None or feeder.claims is not None
    while pending:
        if cancel is not None and cancel.is_set():
            client.cancel(list(pending))
            break
        try:
            done, still = wait(pending, timeout=0.5 if polled else None, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done, still = set(), set(pending)
        pending.clear()
        pending.update(still)
        for future in done:
            if future.status == "finished":
                result = future.result()
                put(result)
                if progress is not None:
                    progress.update()
                if on_result is not None:
                    on_result(result, client)
            else:
                error = failure_text(future.exception(), future.traceback())
                put_failure(key_of[future.key], error)
                if on_failure is not None:
                    on_failure(key_of[future.key], error)
                n_failed += 1
                if progress is not None:
                    progress.update(failed=True)
            future.release()
        feeder.renew([key_of[f.key] for f in pending])
        submit(len(done))
    return n_failed
