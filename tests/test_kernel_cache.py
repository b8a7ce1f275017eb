"""Kernels cached from older sources are dropped (Numba checks only the defining file's timestamp)."""
from engine.numba_cache import STAMP, kernel_sources_digest, refresh_kernel_cache


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "core" / "__pycache__").mkdir(parents=True)
    (pkg / "core" / "sweep.py").write_text("def walk(): pass\n")
    (pkg / "core" / "step.py").write_text("from .sweep import walk\n")
    (pkg / "cli.py").write_text("print('no kernels here')\n")
    return pkg


def _cache(pkg):
    folder = pkg / "core" / "__pycache__"
    files = [folder / "step.boost-19.py311.nbi", folder / "step.boost-19.py311.1.nbc"]
    for f in files:
        f.write_bytes(b"compiled")
    return files


def test_a_changed_kernel_source_drops_every_cached_kernel(tmp_path):
    pkg = _package(tmp_path)
    refresh_kernel_cache(pkg)  # first run: the stamp is written
    assert (pkg / "__pycache__" / STAMP).read_text().strip() == kernel_sources_digest(pkg)
    cached = _cache(pkg)
    assert refresh_kernel_cache(pkg) is False and all(f.exists() for f in cached)  # nothing changed
    (pkg / "core" / "sweep.py").write_text("def walk(): return 1\n")  # a module the cached kernel inlines
    assert refresh_kernel_cache(pkg) is True
    assert not any(f.exists() for f in cached)
    assert refresh_kernel_cache(pkg) is False  # the new stamp holds


def test_modules_without_kernels_do_not_invalidate(tmp_path):
    pkg = _package(tmp_path)
    refresh_kernel_cache(pkg)
    cached = _cache(pkg)
    (pkg / "cli.py").write_text("print('changed')\n")
    assert refresh_kernel_cache(pkg) is False and all(f.exists() for f in cached)
    (pkg / "jitted.py").write_text("from numba import njit\n")  # outside core/, but compiled
    assert refresh_kernel_cache(pkg) is True and not any(f.exists() for f in cached)


def test_a_cache_from_before_the_stamp_is_dropped(tmp_path):
    pkg = _package(tmp_path)
    cached = _cache(pkg)
    assert refresh_kernel_cache(pkg) is True and not any(f.exists() for f in cached)


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

