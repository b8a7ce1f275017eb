"""Where Numba keeps compiled kernels: beside the sources when that folder is writable, else a
per-user folder; with neither (read-only install, no writable HOME) a temporary folder, with a
warning, so ``import engine`` never fails for want of a cache."""
from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path

STAMP = "kernel-sources.sha256"  # in the package's __pycache__: the sources the cached kernels were built from


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def ensure_cache_dir() -> None:
    """Set ``NUMBA_CACHE_DIR`` to a temporary folder when Numba would have nowhere to write."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    package = Path(__file__).resolve().parent
    if _writable(package / "__pycache__") and _writable(package / "core" / "__pycache__"):
        return
    home = Path(os.path.expanduser("~"))
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "numba"
    if home.is_dir() and _writable(user_cache):
        return
    fallback = Path(tempfile.gettempdir()) / f"boomer-numba-cache-{os.getuid() if hasattr(os, 'getuid') else 0}"
    if not _writable(fallback):
        fallback = Path(tempfile.mkdtemp(prefix="boomer-numba-cache-"))
    os.environ["NUMBA_CACHE_DIR"] = str(fallback)
    try:  # numba may already be imported: its config is read when a kernel is first compiled
        import numba.core.config as config
        config.CACHE_DIR = str(fallback)
    except ImportError:  # pragma: no cover
        pass
    warnings.warn(f"neither the engine's folder nor a user cache folder is writable; compiled kernels are "
                  f"cached in {fallback}", RuntimeWarning, stacklevel=3)


def kernel_sources_digest(package: Path) -> str:
    """One digest of the sources Numba compiles below ``package``: every module of ``core/`` and
    every other module that mentions ``njit`` (the kernels and what they inline)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        text = path.read_bytes()
        if "core" not in path.relative_to(package).parts[:-1] and b"njit" not in text:
            continue
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(text)
    return digest.hexdigest()


def refresh_kernel_cache(package: Path | None = None) -> bool:
    """Drop Numba's cached kernels beside the sources when any source changed since they were built.

    Numba checks only the timestamp of the file that defines a kernel: a kernel that inlines or
    calls a function of another module (``boost_one_rule`` calls the refinement sweep) would keep
    running the old code after that module changed, e.g. after ``git pull``.  Returns True when
    cached kernels were removed.  Caches outside the package's folders are left alone."""
    package = Path(__file__).resolve().parent if package is None else Path(package)
    stamp = package / "__pycache__" / STAMP
    try:
        current = kernel_sources_digest(package)
        if stamp.is_file() and stamp.read_text().strip() == current:
            return False
        removed = False
        for pattern in ("*.nbi", "*.nbc"):
            for cached in package.rglob(pattern):
                if cached.parent.name == "__pycache__":
                    cached.unlink(missing_ok=True)
                    removed = True
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(current + "\n")
        os.replace(tmp, stamp)
        return removed
    except OSError:  # a read-only install: Numba caches elsewhere (ensure_cache_dir)
        return False

