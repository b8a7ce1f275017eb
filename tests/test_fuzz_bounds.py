"""Fuzz targets of the bounded inputs (issue 60): experiment files (mutated TOML, deep nesting, huge
grids) and ``python -m engine prepare``'s inputs (``--params`` JSON, ``.npz`` data files).

Each example either parses or is refused with the documented error (ExperimentError, a ValueError,
for experiment files; ValueError for ``prepare``'s inputs, exit code 2 with one line from the
command), never another exception, within a time bound: an alarm ends an example that hangs.
Budgets come from the hypothesis profile (tests/conftest.py): ``ci`` or ``long``."""
from __future__ import annotations

import contextlib
import functools
import io
import json
import signal
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import prepare
from engine.cli import main
from engine.evaluation.experiment.file import MAX_TASKS, ExperimentError, parse_experiment
from test_experiment_file import write_svm
from test_fuzz import FUZZ, _timed, mutate_text

pytestmark = pytest.mark.fuzz
HANG_S = 20  # an example still running after this long is a hang


@contextlib.contextmanager
def no_hang(seconds: int = HANG_S):
    """Raise in the test thread when the block runs longer than ``seconds`` (SIGALRM; Unix)."""
    def ring(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ------------------------------------------------------------------------------------ experiments
EXPERIMENT = """name = "fuzz"
data = ["a.svm"]
measures = ["hamming", "example-f1"]
[protocol]
kind = "cross-validation"
folds = 3
seed = 7
inner_folds = 2
[[learner]]
key = "boomer"
name = "B"
params = { max_rules = 5, head_type = "single" }
grid = { shrinkage = [0.1, 0.3] }
[[learner]]
key = "xgboost-br"
params = { n_estimators = 3 }
"""


@pytest.fixture(scope="module")
def experiment_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("experiment")
    write_svm(folder / "a.svm", n=30, seed=1)
    return folder


@st.composite
def deep(draw):
    """A key, array, inline table or header nested up to 5,000 deep, somewhere in the file."""
    depth = draw(st.integers(1, 5000))
    kind = draw(st.sampled_from(["array", "table", "dotted", "header", "mixed"]))
    if kind == "array":
        return "x = " + "[" * depth + "1" + "]" * depth
    if kind == "table":
        return "x = " + "{a = " * depth + "1" + "}" * depth
    if kind == "dotted":
        return ".".join(["k"] * depth) + " = 1"
    if kind == "header":
        return "[" + ".".join(["t"] * depth) + "]"
    return "x = " + "[{a = " * depth + "1" + "}]" * depth


@st.composite
def grids(draw):
    """A learner's grid of several parameters with up to 1,000 values each (up to 10^15 configurations)."""
    names = draw(st.lists(st.sampled_from(["shrinkage", "max_rules", "l2_regularization_weight", "random_state",
                                            "min_coverage", "max_conditions"]), min_size=1, max_size=6, unique=True))
    cells = []
    for name in names:
        n = draw(st.integers(1, 1000))
        values = [f"{0.001 * (i + 1):.3f}" if name in ("shrinkage", "l2_regularization_weight") else str(i + 1)
                  for i in range(n)]
        cells.append(f"{name} = [{', '.join(values)}]")
    return "[learner.grid]\n" + "\n".join(cells)


@st.composite
def experiment_texts(draw):
    text = EXPERIMENT
    kind = draw(st.sampled_from(["mutated", "deep", "grid", "random", "long-line"]))
    if kind == "mutated":
        return mutate_text(text, draw(st.data()))
    if kind == "long-line":  # a run of blanks (in a string, a comment or anywhere) up to 300,000 long
        at = draw(st.integers(0, len(text)))
        run = draw(st.sampled_from([" ", "\t", " .", "[ ", "{ ", ", "])) * draw(st.integers(1, 150_000))
        prefix = draw(st.sampled_from(["", 'x = """\n[a', "# ", "[", "a", 'k = "']))
        return text[:at] + prefix + run + draw(st.sampled_from(["x", "]", "", "\n"])) + text[at:]
    if kind == "deep":
        lines = text.splitlines()
        at = draw(st.integers(0, len(lines)))
        return "\n".join(lines[:at] + [draw(deep())] + lines[at:]) + "\n"
    if kind == "grid":
        return text.replace('grid = { shrinkage = [0.1, 0.3] }\n', "") .replace(
            '[[learner]]\nkey = "xgboost-br"', draw(grids()) + '\n[[learner]]\nkey = "xgboost-br"')
    alphabet = st.sampled_from(list("[]{}=.,\"' \n#abk0123456789") + ["[[learner]]", "key", "grid", "data", "true"])
    return "".join(draw(st.lists(alphabet, max_size=400)))


@FUZZ
@given(experiment_texts())
def test_fuzz_experiment_file(experiment_folder, text):
    with no_hang():
        try:
            exp = _timed(lambda: parse_experiment(text, experiment_folder / "e.toml"), len(text.encode()))
        except ExperimentError as exc:
            assert str(exc) and "\n" not in str(exc).strip()
            return
        except ValueError as exc:  # an Experiment's own check (e.g. a data set's name twice), still one line
            assert str(exc)
            return
    n_tasks = len(exp.datasets) * (exp.protocol.folds if exp.protocol.kind == "cross-validation" else 1) * \
        sum(len(e.configurations()) for e in exp.learners)
    assert n_tasks <= MAX_TASKS


# ------------------------------------------------------------------------------------- prepare
PARAMS = {"max_rules": 5, "head_type": "single", "shrinkage": 0.3, "feature_sampling": "none"}


@st.composite
def params_texts(draw):
    kind = draw(st.sampled_from(["mutated", "deep", "random"]))
    if kind == "mutated":
        return mutate_text(json.dumps(PARAMS), draw(st.data()))
    if kind == "deep":
        depth = draw(st.integers(1, 50_000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}"), ('{"a":[', "]}")]))
        return '{"max_rules": ' + opener * depth + "1" + closer * depth + "}"
    return draw(st.text(alphabet=st.sampled_from(list('{}[]":,0123456789.eE-+ truefalsnl\\')), max_size=300))


@FUZZ
@given(params_texts())
def test_fuzz_prepare_params(text):
    with no_hang():
        try:
            params = _timed(lambda: prepare.parse_params(text), len(text))
        except ValueError as exc:
            assert str(exc).startswith("--params")
            return
    assert isinstance(params, dict)


@functools.lru_cache(maxsize=None)
def _npz_bytes(seed: int) -> bytes:
    """A valid data file of ``prepare`` (dense X for even seeds, sparse for odd), as bytes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 3))
    if seed % 2:  # a sparse X (CSC arrays)
        X[np.abs(X) < 0.8] = 0.0
        import scipy.sparse as sp
        X = sp.csc_matrix(X)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.npz"
        prepare.save_data(path, X, (rng.random((12, 2)) < 0.5).astype(np.uint8), None, None,
                          np.array([False, True, False]))
        return path.read_bytes()


@st.composite
def npz_files(draw):
    raw = bytearray(_npz_bytes(draw(st.integers(0, 3))))
    kind = draw(st.sampled_from(["bytes", "truncate", "header", "member"]))
    if kind == "bytes":
        for _ in range(draw(st.integers(1, 8))):
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        return bytes(raw)
    if kind == "truncate":
        return bytes(raw[:draw(st.integers(0, len(raw) - 1))])
    archive = io.BytesIO()
    shape = tuple(draw(st.lists(st.integers(0, 10 ** 7), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from(["<f8", "|u1", "<i4", "|O", "<c16", "|V8"]))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": dtype, "fortran_order": False, "shape": shape})
    body = header.getvalue() + bytes(draw(st.integers(0, 64)))
    if kind == "header":  # a lying header: the shape it declares is not what follows
        with zipfile.ZipFile(archive, "w") as z:
            z.writestr("X.npy", body)
            z.writestr("Y.npy", _one_npy(np.zeros((12, 2), dtype=np.uint8)))
        return archive.getvalue()
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as source, zipfile.ZipFile(archive, "w") as z:  # a member replaced
        names = source.namelist()
        victim = draw(st.sampled_from(names))
        for name in names:
            z.writestr(name, body if name == victim else source.read(name))
    return archive.getvalue()


def _one_npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@FUZZ
@given(npz_files())
def test_fuzz_prepare_npz(tmp_path, raw):
    path = tmp_path / "d.npz"
    path.write_bytes(raw)
    with no_hang():
        try:
            data = _timed(lambda: prepare.read_data(path), len(raw))
        except (ValueError, OSError) as exc:
            assert str(exc)
            return
    assert {"X", "Y"} <= set(data)


@FUZZ
@given(npz_files())
def test_fuzz_prepare_command_refuses_with_one_line(tmp_path, capsys, raw):
    """The command on a damaged data file: exit 2 and one line, or (a file that still loads) it runs."""
    path = tmp_path / "d.npz"
    path.write_bytes(raw)
    try:
        prepare.read_data(path)
    except (ValueError, OSError):
        capsys.readouterr()
        start = time.perf_counter()
        with no_hang():
            assert main(["prepare", "--learner", "boomer", "--data", str(path)]) == 2
        assert time.perf_counter() - start < 10
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
