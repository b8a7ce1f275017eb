"""``python -m engine prepare``'s inputs are bounded (issue 60): an ``.npz`` expanding to more than the
limit is refused from its zip's declared sizes and its ``.npy`` headers before any array is loaded;
a deeply nested ``--params`` is one error; ``--steps`` is at least 1; unknown learners are refused."""
import io
import json
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine import prepare
from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


def lying_npz(path, shape=(1_000_000, 100_000)):
    """An .npz whose X header declares ``shape`` float64 (800 GB) with no data behind it."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("X.npy", header.getvalue())
        buffer = io.BytesIO()
        np.save(buffer, np.zeros((3, 2), dtype=np.uint8))
        archive.writestr("Y.npy", buffer.getvalue())
    return path


def test_an_npz_expanding_beyond_the_limit_is_refused_from_its_declared_sizes(tmp_path):
    path = tmp_path / "zeros.npz"
    np.savez_compressed(path, X=np.zeros((2500, 1000)), Y=np.zeros((2500, 3), dtype=np.uint8))  # 20 MB in ~20 KB
    assert path.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"zeros\.npz: its arrays expand to 20,00\d,\d{3} bytes, more than the "
                                             r"10,000,000"):
            prepare.read_data(path, max_bytes=10_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    assert prepare.read_data(path, max_bytes=30_000_000)["X"].shape == (2500, 1000)


def test_an_npy_header_declaring_a_huge_array_is_refused_before_loading(tmp_path, capsys):
    path = lying_npz(tmp_path / "lie.npz")
    with pytest.raises(ValueError, match=r"lie\.npz: its arrays' headers declare more than 2,147,483,648 bytes "
                                         r"\(X\.npy and those before it: 800,000,000,000\)"):
        prepare.read_data(path)
    assert main(["prepare", "--learner", "boomer", "--data", str(path)]) == 2
    assert "headers declare more than" in one_error(capsys)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert main(["prepare", "--learner", "boomer", "--data", str(tmp_path / "junk.npz")]) == 2
    assert "junk.npz: not an .npz file" in one_error(capsys)


@pytest.mark.parametrize("params", ["[" * 20_000 + "]" * 20_000, '{"a":' * 20_000 + "1" + "}" * 20_000])
def test_deeply_nested_params_are_one_error(params):
    proc = subprocess.run([sys.executable, "-m", "engine", "prepare", "--learner", "boomer", "--params", params],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "error: --params: nested too deeply; a learner's parameters are a flat JSON object\n"


def test_steps_must_be_at_least_one(capsys):
    with pytest.raises(SystemExit) as info:
        main(["prepare", "--learner", "boomer", "--steps", "0"])
    assert info.value.code == 2
    assert "argument --steps: 0 is outside [1, 10000]" in capsys.readouterr().err
    with pytest.raises(ValueError, match="steps must be a positive integer, got 0"):
        prepare.prepare_setting(prepare.Setting("boomer", {}), prepare.builtin_data(), steps=0)


@pytest.mark.parametrize("option", [["--learners", "boomer", "bogus"], ["--learner", "bogus"]])
def test_unknown_learners_are_refused_with_the_known_ones(option, capsys):
    start = time.perf_counter()
    assert main(["prepare", *option]) == 2
    assert time.perf_counter() - start < 5
    err = one_error(capsys)
    assert "unknown learner 'bogus'; known: boomer, boomer-regressor, adaboost-mh, seco" in err
