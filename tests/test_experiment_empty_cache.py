"""An experiment with BOOMER, run by the Experiment tab's Qt-free runner the way a user's window
runs it, finishes without a failed task (issue 55): the process was started from a script that
imports the window (as the ``boomer-gui`` console script does, so every spawned Dask worker imports
it, and Numba, again), it has trained runs of every learner, and the workers compile BOOMER's
kernels on an empty kernel cache (``NUMBA_CACHE_DIR`` a new folder).  Before the fix every BOOMER
task failed with "Cannot set NUMBA_NUM_THREADS to a different value once the threads have been
launched".  Compiling BOOMER's kernels takes minutes: ``slow``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent('''
    import json, os, sys
    from boomer_gui.app import main  # noqa: F401 - what .venv/bin/boomer-gui imports

    if __name__ == "__main__":
        sys.path.insert(0, sys.argv[1])
        from pathlib import Path
        from engine import registry
        from engine.datasets import make_synthetic
        from boomer_gui.components import experiment as model
        from test_experiment_file import write_svm

        d = make_synthetic("conditional-dependence", 60, seed=0)
        small = {"boomer": {"max_rules": 3}, "adaboost-mh": {"max_rules": 2}, "seco": {"max_rules": 2},
                 "label-ranking": {"max_iterations": 3}, "ml-me": {"n_experts": 1, "max_em_iter": 2},
                 "cc-lr": {}}
        trained = []
        for spec in registry.learners():  # a run of every learner in this process, from the kernel cache
            est = spec.make(**small.get(spec.key, {}))
            for _ in est.fit_iter(d.X, d.Y, d.X, d.Y):
                pass
            trained.append(spec.key)
        os.environ["NUMBA_CACHE_DIR"] = sys.argv[2]  # the workers spawned from now on start with no kernel

        tmp = Path(sys.argv[3])
        draft = model.Draft(name="empty cache", data=[str(write_svm(tmp / "a.svm", n=40, seed=1))], folds=2)
        draft.add_learner("boomer").params["max_rules"] = 3
        exp = draft.save(tmp / "e.toml")
        events = []
        model.run(exp, tmp / "e.sqlite", lambda kind, payload: events.append((kind, payload)), workers=1)
        summary, tables = next(p for k, p in events if k == "done")
        print(json.dumps({"trained": trained, "failed": [p for k, p in events if k == "failed"],
                          "done": summary.n_done, "tasks": summary.n_tasks,
                          "hamming": tables.by_measure["hamming"].cells}))
''')


@pytest.mark.slow
@pytest.mark.timeout(2400)  # on an empty cache the workers compile BOOMER's kernels: minutes on a busy machine
def test_boomer_tasks_compile_in_workers_on_an_empty_cache_after_runs_of_every_learner(tmp_path):
    from engine import registry

    script = tmp_path / "boomer_gui_like.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "empty-kernel-cache"
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_NUM_THREADS", "NUMBA_CACHE_DIR")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, str(script), str(ROOT / "tests"), str(cache), str(tmp_path)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=1500)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["trained"] == [s.key for s in registry.learners()]
    assert result["failed"] == [] and result["done"] == result["tasks"] == 2
    assert result["hamming"][0][0] not in ("…", "n/a")
    assert any(cache.rglob("*.nbi"))  # the workers compiled into the empty cache
