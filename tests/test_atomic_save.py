"""A failed save never destroys the previous file: writes go to a temporary file that replaces
the target only when complete.  Failures are simulated in the middle of the write."""
from __future__ import annotations

import errno
import io
import os
import stat

import pytest

from engine import BoomerClassifier
from engine.datasets import make_synthetic
from engine.fileio import atomic_open, atomic_write_text, check_output_path


class _DiskFull(io.TextIOWrapper):
    pass


@pytest.fixture
def fail_mid_write(monkeypatch):
    """Make every atomic write fail after half of its data, as a full disk does."""
    import engine.fileio as fileio

    real_fdopen = os.fdopen

    def fdopen(fd, mode, **kw):
        f = real_fdopen(fd, mode, **kw)
        real_write = f.write
        state = {"written": 0}

        def write(data):
            if state["written"] > 0 or len(data) > 1:
                real_write(data[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")
            state["written"] += len(data)
            return real_write(data)

        f.write = write
        return f

    monkeypatch.setattr(fileio.os, "fdopen", fdopen)


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture(scope="module")
def estimator():
    data = make_synthetic("conditional-dependence", n_examples=200, seed=0)
    return BoomerClassifier(max_rules=10).fit(data.X, data.Y), data


def test_model_save_failing_midway_keeps_the_old_model(tmp_path, estimator, fail_mid_write):
    est, _ = estimator
    path = tmp_path / "m.json"
    path.write_text("OLD MODEL")
    with pytest.raises(OSError, match="No space"):
        est.save(path)
    assert path.read_text() == "OLD MODEL"
    assert _leftovers(tmp_path) == []


def test_model_save_writes_a_loadable_file_and_keeps_permissions(tmp_path, estimator):
    from engine.persistence import load_estimator

    est, data = estimator
    path = tmp_path / "m.json"
    path.write_text("old")
    os.chmod(path, 0o640)
    est.save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert (load_estimator(path).predict(data.X) == est.predict(data.X)).all()
    fresh = tmp_path / "new.json"
    est.save(fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o666 & ~umask
    assert _leftovers(tmp_path) == []


def test_failing_replace_keeps_the_old_file(tmp_path, monkeypatch):
    import engine.fileio as fileio

    path = tmp_path / "a.txt"
    path.write_text("old")

    def replace(src, dst):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(fileio.os, "replace", replace)
    with pytest.raises(OSError):
        atomic_write_text(path, "new")
    assert path.read_text() == "old" and _leftovers(tmp_path) == []


def test_exception_inside_atomic_open_keeps_the_old_file(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as f:
            f.write("half of the new")
            raise RuntimeError("the writer failed")
    assert path.read_text() == "old" and _leftovers(tmp_path) == []


def test_session_save_failing_midway_keeps_the_old_session(tmp_path, fail_mid_write):
    from boomer_gui.components.session import Session, save_session
    from boomer_gui.components.state import DataSpec

    path = tmp_path / "s.json"
    path.write_text("OLD SESSION")
    with pytest.raises(OSError):
        save_session(path, Session(DataSpec(), "boomer", {}))
    assert path.read_text() == "OLD SESSION" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("suffix", ["txt", "csv", "json"])
def test_rule_export_failing_midway_keeps_the_old_file(tmp_path, estimator, fail_mid_write, suffix):
    from boomer_gui.components.exports import write_rules

    est, data = estimator
    path = tmp_path / f"rules.{suffix}"
    path.write_text("OLD")
    with pytest.raises(OSError):
        write_rules(path, est.records_, data.schema)
    assert path.read_text() == "OLD" and _leftovers(tmp_path) == []


def test_figure_export_failing_midway_keeps_the_old_file(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    import engine.fileio as fileio
    from engine.fileio import atomic_savefig

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    path = tmp_path / "plot.png"
    atomic_savefig(fig, path)
    good = path.read_bytes()
    assert good.startswith(b"\x89PNG")

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fileio.os, "fsync", fsync)
    with pytest.raises(OSError):
        atomic_savefig(fig, path.with_suffix(".png"))
    assert path.read_bytes() == good and _leftovers(tmp_path) == []


def test_output_path_checks(tmp_path):
    (tmp_path / "in.arff").write_text("x")
    with pytest.raises(ValueError, match="is a folder"):
        check_output_path(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        check_output_path(tmp_path / "no" / "such" / "file.csv")
    with pytest.raises(ValueError, match="is the input file"):
        check_output_path(tmp_path / "." / "in.arff", not_same_as=[tmp_path / "in.arff"])
    assert check_output_path(tmp_path / "out.csv", not_same_as=[tmp_path / "in.arff"]) == tmp_path / "out.csv"
