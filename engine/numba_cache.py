"""Where Numba keeps compiled kernels: beside the sources when that folder is writable, else a
per-user folder; with neither (read-only install, no writable HOME) a temporary folder, with a
warning, so ``import engine`` never fails for want of a cache."""
from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path


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
