"""Writing files so that a failed save never destroys the previous file.

Everything is written to a temporary file in the target's folder, flushed to disk, and then
moved over the target with ``os.replace`` (atomic on POSIX and Windows).  If anything fails
before that, the temporary file is removed and the target is untouched.

A process killed outright (SIGKILL, power loss) cannot remove anything, so on Linux the temporary
file has no name while it is written (``O_TMPFILE``; it is given one only for the instant before
``os.replace``) and a kill leaves nothing behind.  Elsewhere the temporary name carries the writer's
process id, and the next save of the same file removes the temporaries of writers that are gone."""
from __future__ import annotations

import contextlib
import glob
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None) -> Iterator[IO]:
    """A file object for writing ``path`` atomically (``mode`` ``'w'`` or ``'wb'``)."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    prefix = f".{path.name}.{os.getpid()}."
    _remove_abandoned(folder, path.name)
    fd = _unnamed_file(folder)
    tmp = None
    if fd is None:
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding,
                       newline=None if "b" in mode else newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            os.chmod(f.fileno() if tmp is None else tmp, _mode_for(path))
            if tmp is None:  # name the unnamed file just before it replaces the target
                tmp = _name_unnamed(f.fileno(), folder, f"{prefix}{os.urandom(6).hex()}.tmp")
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def _unnamed_file(folder) -> int | None:
    """A file descriptor of a new unnamed file in ``folder`` (Linux ``O_TMPFILE``), or None where the
    system or the file system has none."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    except OSError:
        return None


def _name_unnamed(fd: int, folder, name: str) -> str:
    """Give the unnamed file ``fd`` the name ``folder/name`` (linkat with AT_SYMLINK_FOLLOW, which
    os.link uses only when given a directory descriptor)."""
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dir_fd, follow_symlinks=True)
    finally:
        os.close(dir_fd)
    return os.path.join(folder, name)


def _remove_abandoned(folder, name: str) -> None:
    """Remove the temporaries of earlier saves of ``name`` whose writing process no longer exists
    (a save killed without a chance to clean up); POSIX only (no process probe on Windows)."""
    if os.name != "posix":
        return
    for tmp in glob.glob(os.path.join(glob.escape(str(folder)), f".{glob.escape(name)}.*.tmp")):
        pid = os.path.basename(tmp)[len(name) + 2:].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    with atomic_open(path, "w", encoding=encoding) as f:
        f.write(text)


def atomic_write_bytes(path, data: bytes) -> None:
    with atomic_open(path, "wb") as f:
        f.write(data)


def _mode_for(path: Path) -> int:
    """The permission bits the file will have: the old file's, or the umask default for a new one."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def input_file_problem(path, what: str, max_bytes: int) -> str | None:
    """Why ``path`` cannot be read as an input file (not a regular file, too large, unreadable),
    or None.  A missing file raises FileNotFoundError naming ``what``; nothing is opened, so a
    pipe or device never blocks."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FileNotFoundError(2, f"{what} not found", str(path)) from None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a folder, pipe or device)"
    if info.st_size > max_bytes:
        return f"{info.st_size / 1024 ** 3:.1f} GiB is more than this tool reads as a {what} " \
               f"({max_bytes / 1024 ** 3:g} GiB at most)"
    return None


def check_output_path(path, *, not_same_as=(), what: str = "output file") -> Path:
    """Refuse, before any work, an output path that cannot be written or would overwrite an input.

    Raises ValueError for a directory, a missing or unwritable folder, or a path naming the same
    file as one of ``not_same_as``."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{what} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {path}: folder {folder} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{what} {path} is not writable")
    for other in not_same_as:
        if other is not None and _same_file(path, Path(other)):
            raise ValueError(f"{what} {path} is the input file {other}; choose another name")
    return path


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def figure_format(path) -> str:
    """The image format matplotlib writes for ``path``'s suffix (png without one); ValueError naming
    the supported suffixes otherwise, so a command can refuse the name before any work."""
    from matplotlib.backend_bases import FigureCanvasBase

    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise ValueError(f"figure file {path}: unknown image format '.{fmt}'; use one of "
                         f"{', '.join('.' + f for f in sorted(supported))}")
    return fmt


def atomic_savefig(fig, path, **kwargs) -> None:
    """``fig.savefig`` (matplotlib) written atomically; the format comes from the suffix."""
    fmt = figure_format(path)
    with atomic_open(path, "wb") as f:
        fig.savefig(f, format=fmt, **kwargs)
