"""Where Numba keeps the engine's compiled kernels: a folder addressed by what they were built from.

Numba checks only the timestamp of the file that defines a kernel, not of the modules it inlines or
calls (``boost_one_rule`` calls the refinement sweep), so a kernel cached from older sources could
keep running old code after ``git pull``.  Instead of deleting such kernels, every build lives in
its own folder, ``<base>/boomer-kernels/<key>/``, whose key is a digest of the kernel sources, the
Numba version and the CPU: changed sources simply use a new, empty folder, and nothing another
process (or another checkout) compiled is ever removed.  The folder is handed to Numba through
``NUMBA_CACHE_DIR`` when ``engine`` is imported; the import reads the sources but writes and deletes
nothing (Numba creates the folder when it first caches a kernel).

``<base>`` is the ``NUMBA_CACHE_DIR`` the user set, else the engine's ``__pycache__`` when it is
writable (an editable install), else the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``,
``boomer-gui``), else a temporary folder (with a warning).  Folders of other keys are pruned only on
request: :func:`prune` (``python -m engine cache --prune``, and ``python -m engine prepare`` for
folders unused for :data:`PRUNE_AFTER_DAYS` days)."""
from __future__ import annotations

import functools
import hashlib
import os
import time
import warnings
from pathlib import Path
from typing import NamedTuple

_JIT = b"nj" + b"it"  # spelt apart so that this module's own text does not count as a kernel source
KERNELS = "boomer-kernels"  # below the base: one folder per key
PACKAGE = Path(__file__).resolve().parent
PRUNE_AFTER_DAYS = 30  # what ``prepare`` prunes: folders of other keys left unused this long


def _may_write(folder: Path) -> bool:
    """Whether ``folder`` exists writable or could be created (its nearest existing ancestor is
    writable); creates nothing."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate.is_dir() and os.access(candidate, os.W_OK | os.X_OK)
    return False


def kernel_sources_digest(package: Path = PACKAGE) -> str:
    """One digest of the sources Numba compiles below ``package``: every module of ``core/`` and
    every other module that names Numba's no-Python jit decorator (the kernels and what they
    inline)."""
    return _sources_digest(Path(package).resolve())


@functools.lru_cache(maxsize=8)
def _sources_digest(package: Path) -> str:
    digest = hashlib.sha256()
    paths = []
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        paths += [Path(folder, f) for f in files if f.endswith(".py")]
    for path in sorted(paths):
        relative = path.relative_to(package)
        text = path.read_bytes()
        if "core" not in relative.parts[:-1] and _JIT not in text:
            continue
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(text)
    return digest.hexdigest()


def _numba_identity() -> bytes:
    """Numba's version (its ``_version.py``, read without importing Numba) and where it lives."""
    import importlib.util

    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b"no numba"
    version = Path(spec.origin).with_name("_version.py")
    try:
        return spec.origin.encode() + version.read_bytes()
    except OSError:
        return spec.origin.encode()


def _cpu_identity() -> bytes:
    """The CPU model and its feature flags (Linux), else the machine and processor names."""
    wanted = {}
    try:
        with open("/proc/cpuinfo", "rb") as handle:
            for line in handle:
                name = line.split(b":", 1)[0].strip()
                if name in (b"model name", b"flags", b"Features", b"CPU part") and name not in wanted:
                    wanted[name] = line
                if not line.strip() and wanted:
                    break  # the first processor's block is enough
    except OSError:
        pass
    if wanted:
        return b"".join(wanted.values())
    import platform

    return f"{platform.machine()} {platform.processor()}".encode()


@functools.lru_cache(maxsize=8)
def _key(package: Path) -> str:
    digest = hashlib.sha256()
    for part in (_sources_digest(package).encode(), _numba_identity(), _cpu_identity()):
        digest.update(part + b"\0")
    return digest.hexdigest()[:20]


def kernel_key(package: Path = PACKAGE) -> str:
    """The name of this build's kernel folder (computed once per process)."""
    return _key(Path(package).resolve())


def cache_base(environ=None, package: Path = PACKAGE) -> Path:
    """The folder that holds ``boomer-kernels/`` (see the module's docstring)."""
    environ = os.environ if environ is None else environ
    configured = environ.get("NUMBA_CACHE_DIR")
    if configured:
        path = Path(configured)
        return path.parent.parent if path.parent.name == KERNELS else path  # set by an engine process
    own = Path(package) / "__pycache__"
    if _may_write(own):
        return own
    home = Path(os.path.expanduser("~"))
    user = Path(environ.get("XDG_CACHE_HOME") or home / ".cache") / "boomer-gui"
    if home.is_dir() and _may_write(user):
        return user
    uid = os.getuid() if hasattr(os, "getuid") else 0
    temp = Path(environ.get("TMPDIR") or "/tmp") / f"boomer-gui-cache-{uid}"
    warnings.warn(f"neither the engine's folder nor a user cache folder is writable; compiled kernels are "
                  f"cached in {temp}", RuntimeWarning, stacklevel=3)
    return temp


def kernel_folder(environ=None, package: Path = PACKAGE) -> Path:
    """This build's kernel folder, ``<base>/boomer-kernels/<key>``."""
    return cache_base(environ, package) / KERNELS / kernel_key(package)


def use_kernel_folder() -> Path:
    """Point Numba at :func:`kernel_folder` (``NUMBA_CACHE_DIR``, inherited by child processes);
    writes nothing to disk.  Called when ``engine`` is imported, before any kernel is defined."""
    folder = kernel_folder()
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    import sys

    config = sys.modules.get("numba.core.config")
    if config is not None:  # Numba imported first: it reads the folder when a kernel is defined
        config.CACHE_DIR = str(folder)
    return folder


class CacheFolder(NamedTuple):
    path: Path
    current: bool
    size: int  # bytes
    files: int
    last_used: float  # the newest file's modification time (seconds since the epoch)


def _describe(path: Path, current: bool) -> CacheFolder:
    size = files = 0
    newest = path.stat().st_mtime
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                stat = os.stat(os.path.join(folder, name))
            except OSError:  # removed meanwhile
                continue
            size, files, newest = size + stat.st_size, files + 1, max(newest, stat.st_mtime)
    return CacheFolder(path, current, size, files, newest)


def cache_folders(environ=None, package: Path = PACKAGE) -> list[CacheFolder]:
    """Every kernel folder below the base, this build's first."""
    current = kernel_folder(environ, package)
    root = current.parent
    found = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    out = [_describe(p, p == current) for p in found]
    return sorted(out, key=lambda f: (not f.current, -f.last_used))


def prune(older_than_days: float = 0.0, environ=None, package: Path = PACKAGE) -> list[CacheFolder]:
    """Remove the kernel folders of other keys whose newest file is older than ``older_than_days``
    (0: all of them); this build's folder is kept.  Returns what was removed."""
    import shutil

    limit = time.time() - older_than_days * 86400.0
    removed = []
    for folder in cache_folders(environ, package):
        if folder.current or folder.last_used > limit:
            continue
        shutil.rmtree(folder.path, ignore_errors=True)
        removed.append(folder)
    return removed


def prune_legacy(older_than_days: float = 0.0, package: Path = PACKAGE) -> int:
    """Remove the kernels earlier versions cached beside the sources (``*.nbi``, ``*.nbc`` in the
    package's ``__pycache__`` folders, outside ``boomer-kernels``) older than ``older_than_days``,
    and their stamps; returns how many files were removed."""
    limit = time.time() - older_than_days * 86400.0
    removed = 0
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = [s for s in subfolders if s != KERNELS]
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in names:
            if name.endswith((".nbi", ".nbc")) or name == "kernel-sources.sha256":
                path = os.path.join(folder, name)
                try:
                    if os.stat(path).st_mtime <= limit:
                        os.unlink(path)
                        removed += 1
                except OSError:
                    continue
    return removed
