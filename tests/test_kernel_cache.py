"""The kernel cache is addressed, not cleaned: every build of the kernel sources compiles into its
own folder (engine.numba_cache), so a changed source is recompiled while nothing another process or
checkout compiled is removed, and importing the engine writes and deletes nothing."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import numba_cache
from engine.numba_cache import KERNELS, cache_base, kernel_folder, kernel_sources_digest, prune, prune_legacy

ENGINE = Path(numba_cache.__file__).resolve().parent

# A kernel that calls a function of another module: Numba alone checks only the caller's file, so a
# changed callee would keep running its old machine code from the cache.
CALLER = """from numba import njit
from .probe_callee import offset


@njit(cache=True)
def probe(x):
    return x + offset()
"""
CALLEE = """from numba import njit


@njit(cache=True)
def offset():
    return {value}
"""
# The child: its kernel folder, the probe's value, whether it came from the cache, and every kernel
# file there is (a stamp of a prepared setting too).
CHILD = """import json, os, sys
import engine
from engine.prepare import mark_prepared
from engine.core.probe import probe
value = probe(1)
mark_prepared("probe setting", 1.0)
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.environ["NUMBA_CACHE_DIR"]) for f in fs)
print(json.dumps({"folder": os.environ["NUMBA_CACHE_DIR"], "value": value, "hits": sum(probe.stats.cache_hits.values()),
                  "misses": sum(probe.stats.cache_misses.values()), "files": files}))
"""


def _copy_engine(root: Path, value: int) -> Path:
    """A copy of the engine (sources only) with the probe kernel in ``core/``."""
    shutil.copytree(ENGINE, root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "engine" / "core" / "probe.py").write_text(CALLER)
    (root / "engine" / "core" / "probe_callee.py").write_text(CALLEE.format(value=value))
    return root / "engine"


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "BOOMER_PREPARE_STAMPS")}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", **extra}


def _run(root: Path, code: str, **extra) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, env=_env(**extra), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def _probe(root: Path, **extra) -> dict:
    return json.loads(_run(root, CHILD, **extra).stdout.strip().splitlines()[-1])


def _listing(root: Path) -> dict:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in sorted(root.rglob("*"))}


def test_importing_the_engine_writes_and_deletes_nothing(tmp_path):
    pkg = _copy_engine(tmp_path / "checkout", 1)
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "kernel-sources.sha256").write_text("a stamp of other sources\n")
    before = _listing(tmp_path)
    code = "import engine, os; print(os.environ['NUMBA_CACHE_DIR'])"
    folder = _run(pkg.parent, code, XDG_CACHE_HOME=str(tmp_path / "xdg")).stdout.strip()
    assert _listing(tmp_path) == before  # nothing written, nothing removed, nothing touched
    assert Path(folder) == pkg / "__pycache__" / KERNELS / numba_cache.kernel_key(pkg)


def test_a_changed_kernel_source_compiles_into_a_new_folder_and_removes_nothing(tmp_path):
    root = tmp_path / "checkout"
    pkg = _copy_engine(root, 1)
    first = _probe(root)
    assert first["value"] == 2 and first["misses"] == 1 and first["hits"] == 0
    assert Path(first["folder"]).parent == pkg / "__pycache__" / KERNELS
    kernels = {f: Path(f).stat().st_mtime_ns for f in first["files"]}
    assert any(f.endswith(".nbc") for f in kernels)

    (pkg / "core" / "probe_callee.py").write_text(CALLEE.format(value=10))  # only the callee changes
    changed = _probe(root)
    assert changed["value"] == 11 and changed["misses"] == 1  # recompiled, not the old machine code
    assert changed["folder"] != first["folder"]
    assert {f: Path(f).stat().st_mtime_ns for f in first["files"]} == kernels  # the first build's kernels stay

    (pkg / "core" / "probe_callee.py").write_text(CALLEE.format(value=1))  # back to the first sources
    stamps = [Path(f) for f in first["files"] if f.endswith(".json")]
    assert stamps and all(s.parent.name == "prepared" for s in stamps)
    for stamp in stamps:
        stamp.unlink()  # a stamp removed by hand deletes nothing
    again = _probe(root)
    assert again["folder"] == first["folder"] and again["value"] == 2
    assert again["hits"] == 1 and again["misses"] == 0  # loaded from the cache: nothing was removed
    assert all(Path(f).stat().st_mtime_ns == m for f, m in kernels.items() if not f.endswith(".json"))


def test_two_processes_of_different_sources_keep_each_others_kernels(tmp_path):
    """Two checkouts (one with a changed kernel source) running at the same time, sharing one cache
    base: each compiles into its own folder and finds its kernels cached on the next run."""
    shared = {"NUMBA_CACHE_DIR": str(tmp_path / "shared-cache")}
    roots = [tmp_path / "a", tmp_path / "b"]
    for root, value in zip(roots, (1, 5)):
        _copy_engine(root, value)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD], cwd=root, env=_env(**shared), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for root in roots]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    first = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
    assert [f["value"] for f in first] == [2, 6] and first[0]["folder"] != first[1]["folder"]
    assert all(Path(f["folder"]).parent == tmp_path / "shared-cache" / KERNELS for f in first)
    second = [_probe(root, **shared) for root in roots]
    assert [s["value"] for s in second] == [2, 6] and all(s["hits"] == 1 and s["misses"] == 0 for s in second)


def test_the_cache_base(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    assert cache_base({"NUMBA_CACHE_DIR": str(tmp_path / "mine")}, pkg) == tmp_path / "mine"  # the user's
    ours = tmp_path / "mine" / KERNELS / "0123abcd"  # set by a parent engine process: the same base
    assert cache_base({"NUMBA_CACHE_DIR": str(ours)}, pkg) == tmp_path / "mine"
    assert cache_base({}, pkg) == pkg / "__pycache__"  # writable: beside the sources
    monkeypatch.setattr(numba_cache, "_may_write", lambda folder: "xdg" in str(folder))
    assert cache_base({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, pkg) == tmp_path / "xdg" / "boomer-gui"
    monkeypatch.setattr(numba_cache, "_may_write", lambda folder: False)
    with pytest.warns(RuntimeWarning, match="cached in"):
        base = cache_base({"TMPDIR": str(tmp_path / "t")}, pkg)
    assert base.parent == tmp_path / "t" and base.name.startswith("boomer-gui-cache")
    assert not (pkg / "__pycache__").exists()  # deciding wrote nothing


def test_the_key_follows_the_kernel_sources_only(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "core").mkdir(parents=True)
    (pkg / "core" / "sweep.py").write_text("def walk(): pass\n")
    (pkg / "cli.py").write_text("print('no kernels here')\n")
    digest = kernel_sources_digest(pkg)
    numba_cache._sources_digest.cache_clear()
    (pkg / "cli.py").write_text("print('changed')\n")
    assert kernel_sources_digest(pkg) == digest
    numba_cache._sources_digest.cache_clear()
    (pkg / "jitted.py").write_text("from numba import njit\n")  # outside core/, but compiled
    assert kernel_sources_digest(pkg) != digest
    numba_cache._sources_digest.cache_clear()
    numba_cache._key.cache_clear()


def test_prune_removes_other_sources_folders_only(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    current = kernel_folder(env)
    old, recent = current.parent / "old-sources", current.parent / "recent-sources"
    for folder in (current, old, recent):
        (folder / "core_1").mkdir(parents=True)
        (folder / "core_1" / "kernel.nbc").write_bytes(b"compiled")
    month_ago = time.time() - 40 * 86400
    for path in (old, old / "core_1", old / "core_1" / "kernel.nbc"):
        os.utime(path, (month_ago, month_ago))
    assert [f.path for f in prune(30, env)] == [old]  # what prepare prunes: unused for 30 days
    assert current.exists() and recent.exists()
    assert [f.path for f in prune(0, env)] == [recent]  # python -m engine cache --prune
    assert (current / "core_1" / "kernel.nbc").exists()


def test_prune_legacy_removes_kernels_cached_beside_the_sources(tmp_path):
    pkg = tmp_path / "pkg"
    legacy = pkg / "core" / "__pycache__"
    legacy.mkdir(parents=True)
    for name in ("step.boost-19.py311.nbi", "step.boost-19.py311.1.nbc", "step.cpython-311.pyc"):
        (legacy / name).write_bytes(b"x")
    addressed = pkg / "__pycache__" / KERNELS / "key" / "core_1"
    addressed.mkdir(parents=True)
    (addressed / "kernel.nbi").write_bytes(b"x")
    assert prune_legacy(0, pkg) == 2
    assert sorted(p.name for p in legacy.iterdir()) == ["step.cpython-311.pyc"]
    assert (addressed / "kernel.nbi").exists()


def test_the_cache_command_lists_and_prunes(tmp_path, monkeypatch, capsys):
    from engine.cli import main

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    other = tmp_path / KERNELS / "other-sources"
    other.mkdir(parents=True)
    (other / "kernel.nbc").write_bytes(b"compiled")
    assert main(["cache"]) == 0
    info = capsys.readouterr().out
    assert "other-sources" in info and str(kernel_folder()) in info and other.exists()
    assert main(["cache", "--prune"]) == 0
    assert "removed 1 folder" in capsys.readouterr().out and not other.exists()


def test_every_compiled_kernel_can_be_cached():
    """A kernel that embeds a ctypes pointer or a large global array is compiled again in every process
    (Numba only warns): after a few fits, no compiled kernel of the engine may hold such globals."""
    import sys

    import numpy as np
    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    Y = (X[:, :3] > 0).astype(np.uint8)
    for estimator in (BoomerClassifier(max_rules=3), BoomerClassifier(max_rules=3, head_type="complete"),
                      BoomerClassifier(max_rules=3, loss="logistic-non-decomposable"),
                      AdaBoostMHClassifier(max_rules=3), SeCoClassifier(max_rules=3)):
        estimator.fit(X, Y).predict(X)
    checked, uncachable = 0, []
    for name, module in list(sys.modules.items()):
        if not name.startswith("engine"):
            continue
        for attribute, kernel in vars(module).items():
            if not isinstance(kernel, CPUDispatcher) or isinstance(kernel._cache, NullCache):
                continue
            for compiled in kernel.overloads.values():
                checked += 1
                if compiled.library.has_dynamic_globals:
                    uncachable.append(f"{name}.{attribute}")
    assert checked > 10
    assert not uncachable, f"kernels Numba cannot cache: {sorted(set(uncachable))}"



def test_prepare_prunes_the_folders_of_other_sources_unused_for_a_month(tmp_path, monkeypatch, capsys):
    from engine.cli import main

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("BOOMER_PREPARE_STAMPS", str(tmp_path / "stamps"))
    old, recent = tmp_path / KERNELS / "old-sources", tmp_path / KERNELS / "recent-sources"
    for folder in (old, recent):
        folder.mkdir(parents=True)
        (folder / "kernel.nbc").write_bytes(b"compiled")
    month_ago = time.time() - 40 * 86400
    for path in (old, old / "kernel.nbc"):
        os.utime(path, (month_ago, month_ago))
    # a setting that fails before compiling anything: prepare still prunes first
    assert main(["prepare", "--learner", "boomer", "--params", '{"max_rules": -1}']) == 1
    out = capsys.readouterr().out
    assert "removed 1 kernel folder" in out and "failed" in out
    assert not old.exists() and recent.exists()
