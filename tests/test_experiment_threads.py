"""Experiments never fail for Numba's thread count (issue 55).

Numba reads ``NUMBA_NUM_THREADS`` when it is imported, launches its pool at that size on the first
parallel call and re-reads the environment at every compilation, raising "Cannot set
NUMBA_NUM_THREADS to a different value once the threads have been launched" when the variable
changed after the launch.  A Dask worker is a spawned child: it imports the parent's main module
(the ``boomer-gui`` console script imports the window, and Numba with it) before the nanny applies
the worker's environment, so a thread count passed through that environment made the pool launch
at the stale size and the first kernel compiled on an empty cache fail.  These tests run each way
a kernel can first compile in a fresh process whose main module imports Numba, as the console
script does: a Dask worker process (the runner's own cluster, and with a user's nanny environment
that sets the variable), a thread of an in-process worker, a spawned child, and a thread that
changed the variable after the pool was launched."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]

PRELUDE = textwrap.dedent('''
    import json, os, sys
    import numba  # the main module imports Numba, as boomer-gui's script does through the window

    def compile_one(task):
        """What a task does: set its thread count, then compile a kernel no cache holds."""
        import numba
        from engine.threads import numba_threads
        numba_threads(task["threads"])
        exec(f"@numba.njit\\ndef fresh_{task['n']}(x):\\n    return x + {task['n']}", g := {"numba": numba})
        return {"value": g[f"fresh_{task['n']}"](1), "threads": numba.get_num_threads(),
                "environment": os.environ.get("NUMBA_NUM_THREADS")}
''')


def run_script(tmp_path, body: str, env: dict | None = None) -> dict:
    script = tmp_path / "main_script.py"
    script.write_text(PRELUDE + textwrap.dedent(body))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache"),
                   **(env or {})}
    environment.pop("NUMBA_NUM_THREADS", None)
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=environment, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_runners_workers_compile_whatever_their_thread_count(tmp_path):
    result = run_script(tmp_path, '''
        if __name__ == "__main__":
            from engine.evaluation.runner import compute
            results, failures = [], []
            todo = [{"key": "a", "n": 1, "threads": 1}, {"key": "b", "n": 2, "threads": 2}]
            compute(todo, compile_one, ["a", "b"], results.append, lambda k, e: failures.append(e), None, n_workers=1,
                    threads=1)
            print(json.dumps({"results": results, "failures": failures}))
    ''')
    assert result["failures"] == []
    assert [r["value"] for r in result["results"]] == [2, 3]
    assert [r["threads"] for r in result["results"]] == [1, min(2, os.cpu_count())]
    assert all(r["environment"] is None for r in result["results"])  # counts do not travel in the variable


def test_a_nanny_environment_that_sets_numbas_thread_count_does_not_fail_a_worker(tmp_path):
    """A user's Dask setting puts NUMBA_NUM_THREADS=1 in the workers' environment (applied after the
    main module imported Numba): the task reads it before the pool launches."""
    result = run_script(tmp_path, '''
        if __name__ == "__main__":
            import dask
            from dask.distributed import Client, LocalCluster
            with dask.config.set({"distributed.nanny.environ": {"NUMBA_NUM_THREADS": "1"}}):
                with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=40) as cluster, Client(cluster) as client:
                    out = client.submit(compile_one, {"n": 3, "threads": 2}, pure=False).result()
            print(json.dumps(out))
    ''')
    assert result == {"value": 4, "threads": 1, "environment": "1"}


def test_a_variable_changed_after_the_launch_is_set_back_before_a_compilation(tmp_path):
    """The pool launched at the machine's size, then something set NUMBA_NUM_THREADS to another
    value: without the engine's step the next compilation raises; with it, it compiles."""
    result = run_script(tmp_path, '''
        if __name__ == "__main__":
            import threading
            launched = numba.get_num_threads()
            os.environ["NUMBA_NUM_THREADS"] = str(launched + 1)
            try:
                numba.njit(lambda x: x - 1)(1)
                bare = "compiled"
            except RuntimeError as error:
                bare = str(error)
            out = {}
            worker = threading.Thread(target=lambda: out.update(compile_one({"n": 4, "threads": 1})))
            worker.start()
            worker.join()
            print(json.dumps({"bare": bare, "launched": launched, **out}))
    ''')
    assert "Cannot set NUMBA_NUM_THREADS" in result["bare"]  # the failure this guards against
    assert result["value"] == 5 and result["threads"] == 1
    assert result["environment"] == str(result["launched"])


def test_a_spawned_child_and_an_in_process_worker_thread_compile(tmp_path):
    result = run_script(tmp_path, '''
        if __name__ == "__main__":
            import multiprocessing
            from dask.distributed import Client, LocalCluster
            numba.get_num_threads()  # this process's pool is launched
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                child = pool.apply(compile_one, ({"n": 5, "threads": 1},))
            with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                              silence_logs=40) as cluster, Client(cluster) as client:
                thread = client.submit(compile_one, {"n": 6, "threads": 1}, pure=False).result()
            print(json.dumps({"child": child, "thread": thread}))
    ''')
    assert result["child"]["value"] == 6 and result["thread"]["value"] == 7
