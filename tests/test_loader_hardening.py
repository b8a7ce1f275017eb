"""Loaders against hostile and field-shipped files: only DatasetFormatError (a ValueError) or
FileNotFoundError escape, infinities are refused naming file and line, Mulan split files find
their shared XML, stale MEKA headers warn, sparse svmlight stays sparse."""
from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.datasets import (DatasetFormatError, DatasetWarning, LabelsNotFoundError, find_mulan_xml, load,
                             test_sibling)
from engine.validation import check_nominal

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


ARFF_HEADER = "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute y1 {0,1}\n@attribute y2 {0,1}\n"
XML = ('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n'
       '<label name="y1"></label>\n<label name="y2"></label>\n</labels>\n')


# ----------------------------------------------------------------------------- infinities
@pytest.mark.parametrize("value", ["1e400", "inf", "-inf", "1e39", "-3.5e38"])
def test_arff_refuses_infinite_and_float32_overflowing_values(tmp_path, value):
    path = _write(tmp_path, "d.arff", ARFF_HEADER.replace("@relation r", "@relation 'r: -C -2'")
                  + f"@data\n1,2,0,1\n3,{value},1,0\n")
    with pytest.raises(DatasetFormatError, match=r"d.arff, line 8: value .* of attribute 'b' is infinite"):
        load(path)


def test_sparse_arff_refuses_infinity(tmp_path):
    path = _write(tmp_path, "d.arff", ARFF_HEADER.replace("@relation r", "@relation 'r: -C -2'")
                  + "@data\n{0 1, 2 1}\n{1 inf, 3 1}\n")
    with pytest.raises(DatasetFormatError, match="line 8"):
        load(path)


@pytest.mark.parametrize("value", ["inf", "1e400", "1e39"])
def test_csv_and_svmlight_refuse_infinity(tmp_path, value):
    with pytest.raises(DatasetFormatError, match="c.csv, line 3"):
        load(_write(tmp_path, "c.csv", f"a,b,y\n1,2,1\n2,{value},0\n"), label_columns=["y"])
    with pytest.raises(DatasetFormatError, match="s.svm, line 2"):
        load(_write(tmp_path, "s.svm", f"0 1:1\n1 2:{value}\n"))


# ----------------------------------------------------------------------------- svmlight
def test_svmlight_with_a_huge_index_loads_sparse_and_small(tmp_path):
    lines = [f"{k % 3} {1 + k}:1 3000000:0.5" for k in range(400)]
    ds = load(_write(tmp_path, "big.svm", "\n".join(lines) + "\n"))
    assert sp.issparse(ds.X) and ds.X.shape == (400, 3000000)
    assert ds.X.data.nbytes < 10_000 and ds.X[5, 2999999] == 0.5
    assert ds.schema.feature(2999999) == "f3000000"  # 1-based file: names follow the file's indices


@pytest.mark.parametrize("text, problem", [
    ("0 1000000000000:1\n", "beyond the 10000000 attributes"),
    ("0 99999999999999999999999:1\n", "bad token"),
    ("0 3:1 3:2\n", "feature index 3 occurs twice"),
    ("0 3:-inf\n", "not a finite number"),
    ("0,x 3:1\n", "bad label 'x'"),
])
def test_svmlight_refuses_bad_content(tmp_path, text, problem):
    with pytest.raises(DatasetFormatError, match=problem):
        load(_write(tmp_path, "s.svm", text))


def test_svmlight_warns_about_a_truncated_last_line(tmp_path):
    with pytest.warns(DatasetWarning, match="no line end"):
        load(_write(tmp_path, "s.svm", "0 1:1\n1 2:0.5"))


def test_svmlight_n_features_matches_a_test_file_to_its_training_file(tmp_path):
    train = load(_write(tmp_path, "train.svm", "0 0:1 5:1\n1 2:3\n"))
    test = load(_write(tmp_path, "test.svm", "0 0:1 2:1\n"), n_features=train.n_features)
    assert test.n_features == train.n_features == 6
    with pytest.raises(DatasetFormatError, match="beyond the 2 attributes"):
        load(tmp_path / "train.svm", n_features=2)


# ----------------------------------------------------------------------------- files as shipped
def test_non_regular_files_never_block(tmp_path):
    fifo = tmp_path / "pipe.arff"
    os.mkfifo(fifo)
    with pytest.raises(DatasetFormatError, match="not a regular file"):
        load(fifo)
    (tmp_path / "folder.arff").mkdir()
    with pytest.raises(DatasetFormatError, match="not a regular file"):
        load(tmp_path / "folder.arff")


def test_mulan_split_files_share_one_xml(tmp_path):
    data = ARFF_HEADER + "@data\n1,2,0,1\n3,4,1,0\n"
    train = _write(tmp_path, "toy-train.arff", data)
    test = _write(tmp_path, "toy-test.arff", data)
    _write(tmp_path, "toy.xml", XML)
    assert find_mulan_xml(train) == tmp_path / "toy.xml" == find_mulan_xml(test)
    assert test_sibling(train) == test and test_sibling(test) is None
    ds = load(train)
    assert ds.label_names == ["y1", "y2"] and ds.n_features == 2


def test_a_single_xml_in_the_folder_whose_labels_all_occur_is_used(tmp_path):
    path = _write(tmp_path, "whatever.arff", ARFF_HEADER + "@data\n1,2,0,1\n")
    _write(tmp_path, "labels-of-another-name.xml", XML)
    _write(tmp_path, "unrelated.xml", XML.replace("y1", "zz"))
    assert load(path).label_names == ["y1", "y2"]


def test_xml_is_preferred_over_a_stale_meka_header_which_warns_without_it(tmp_path):
    header = ("@relation 'stale: -C 2'\n@attribute w1 numeric\n@attribute w2 numeric\n@attribute w3 numeric\n"
              "@attribute y1 {0,1}\n@attribute y2 {0,1}\n@data\n1,0,5,0,1\n0,1,2,1,0\n")
    path = _write(tmp_path, "med-train.arff", header)
    with pytest.warns(DatasetWarning, match="header may be stale"):
        ds = load(path)
    assert ds.label_names == ["w1", "w2"]  # what the header says, but the user was warned
    _write(tmp_path, "med.xml", XML)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = load(path)
    assert ds.label_names == ["y1", "y2"] and ds.feature_names == ["w1", "w2", "w3"]


def test_labels_not_found_names_the_candidates_and_label_columns_choose(tmp_path):
    path = _write(tmp_path, "plain.arff", ARFF_HEADER + "@data\n1,2,0,1\n3,4,1,1\n")
    with pytest.raises(LabelsNotFoundError) as info:
        load(path)
    assert info.value.candidates == ["y1", "y2"] and isinstance(info.value, DatasetFormatError)
    assert load(path, label_columns=["y2"]).label_names == ["y2"]
    assert load(path, label_columns=[-1, -2]).label_names == ["y1", "y2"]
    with pytest.raises(DatasetFormatError, match="'nope' is not an attribute"):
        load(path, label_columns=["nope"])


@pytest.mark.skipif(not (SHARED / "table1" / "scene-train.arff").is_file(),
                    reason="../shared/data/table1 (the authors' Table 1 data) is absent")
def test_real_scene_split_files_load_as_shipped():
    train = load(SHARED / "table1" / "scene-train.arff")
    test = load(test_sibling(SHARED / "table1" / "scene-train.arff"))
    assert (train.n_examples, test.n_examples, train.n_labels, train.n_features) == (1211, 1196, 6, 294)
    assert train.label_names == test.label_names


@pytest.mark.skipif(not (SHARED / "table1" / "medical.arff").is_file(),
                    reason="../shared/data/table1 (the authors' Table 1 data) is absent")
def test_medical_with_mulans_stale_header_uses_the_xml(tmp_path):
    text = (SHARED / "table1" / "medical.arff").read_text()
    first, rest = text.split("\n", 1)
    (tmp_path / "medical-train.arff").write_text("@relation 'medical: -C 45'\n" + rest)
    with pytest.warns(DatasetWarning, match="stale"):
        stale = load(tmp_path / "medical-train.arff")
    assert stale.label_names[0] == "zone"  # the trap the warning points at
    shutil.copy(SHARED / "table1" / "medical.xml", tmp_path / "medical.xml")
    ds = load(tmp_path / "medical-train.arff")
    assert ds.n_labels == 45 and ds.n_features == 1909 and "zone" in ds.feature_names


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("nominal, problem", [([0.7], "integers"), ([1, 1], "twice"), ([5], "outside"),
                                              ([[0, 1]], "mask or a list")])
def test_nominal_attributes_must_be_integer_indices(nominal, problem):
    with pytest.raises(ValueError, match=problem):
        check_nominal(nominal, 3)
    assert check_nominal([2.0, 0], 3).tolist() == [True, False, True]


def test_engine_imports_without_a_writable_cache_folder(monkeypatch):
    import numba.core.config as config

    import engine.numba_cache as cache

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)  # restored after the test
    monkeypatch.setattr(cache, "_may_write", lambda folder: False)
    with pytest.warns(RuntimeWarning, match="cached in"):
        folder = cache.use_kernel_folder()
    assert "boomer-gui-cache" in os.environ["NUMBA_CACHE_DIR"] and os.environ["NUMBA_CACHE_DIR"] == str(folder)
    assert config.CACHE_DIR == str(folder)


# ----------------------------------------------------------------------------- properties
names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=6)


@st.composite
def datasets(draw):
    n = draw(st.integers(1, 8))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(1, 3))
    values = st.floats(-1e6, 1e6, allow_nan=False, width=32).map(lambda v: float(np.float32(v)))
    X = np.array([[draw(values) for _ in range(d)] for _ in range(n)], dtype=np.float32)
    Y = np.array([[draw(st.integers(0, 1)) for _ in range(k)] for _ in range(n)], dtype=np.uint8)
    return X, Y


def _arff(X, Y, sparse: bool) -> str:
    d, k = X.shape[1], Y.shape[1]
    lines = ["@relation 'data: -C -%d'" % k] + [f"@attribute x{j} numeric" for j in range(d)]
    lines += [f"@attribute y{j} {{0,1}}" for j in range(k)] + ["@data"]
    for x, y in zip(X, Y):
        row = [repr(float(v)) for v in x] + [str(int(v)) for v in y]
        if sparse:
            lines.append("{" + ", ".join(f"{j} {v}" for j, v in enumerate(row) if float(v) != 0) + "}")
        else:
            lines.append(",".join(row))
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(datasets(), st.booleans())
def test_arff_round_trips(tmp_path, data, sparse):
    X, Y = data
    path = tmp_path / "p.arff"
    path.write_text(_arff(X, Y, sparse))
    ds = load(path)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.Y, Y)
    assert ds.label_names == [f"y{j}" for j in range(Y.shape[1])]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(datasets())
def test_csv_and_svmlight_round_trip(tmp_path, data):
    X, Y = data
    header = [f"x{j}" for j in range(X.shape[1])] + [f"y{j}" for j in range(Y.shape[1])]
    rows = [",".join([repr(float(v)) for v in x] + [str(int(v)) for v in y]) for x, y in zip(X, Y)]
    (tmp_path / "p.csv").write_text(",".join(header) + "\n" + "\n".join(rows) + "\n")
    ds = load(tmp_path / "p.csv", label_columns=header[X.shape[1]:])
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.Y, Y)
    lines = [",".join(str(k) for k in np.flatnonzero(y)) + " " + " ".join(f"{j}:{float(v)!r}" for j, v in enumerate(x))
             for x, y in zip(X, Y)]
    lines[0] = lines[0].replace(" 0:", " 0:", 1)
    (tmp_path / "p.svm").write_text("\n".join(lines) + "\n")
    ds = load(tmp_path / "p.svm", n_labels=Y.shape[1])
    np.testing.assert_array_equal(np.asarray(ds.X), X)
    np.testing.assert_array_equal(ds.Y, Y)


def _mutate(text: str, data) -> str:
    kind = data.draw(st.sampled_from(["delete", "insert", "replace", "truncate", "duplicate-line"]))
    if not text:
        return text
    i = data.draw(st.integers(0, len(text) - 1))
    if kind == "delete":
        j = data.draw(st.integers(i, min(len(text), i + 12)))
        return text[:i] + text[j:]
    if kind == "insert":
        return text[:i] + data.draw(st.sampled_from(["{", "}", ",", "'", '"', "%", "@data", "?", "1e400", "-C 9",
                                                     "\x00", ":", " ", "\n", "nan", "é", "9" * 30])) + text[i:]
    if kind == "replace":
        return text[:i] + data.draw(st.characters(max_codepoint=300)) + text[i + 1:]
    if kind == "truncate":
        return text[:i]
    lines = text.splitlines()
    k = data.draw(st.integers(0, len(lines) - 1))
    return "\n".join(lines[:k + 1] + lines[k:])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(datasets(), st.sampled_from(["arff", "sparse-arff", "mulan", "csv", "svm"]), st.data())
def test_mutated_files_raise_only_the_documented_errors(tmp_path, data, fmt, mutation):
    X, Y = data
    kw = {}
    if fmt in ("arff", "sparse-arff"):
        name, text = "m.arff", _arff(X, Y, fmt == "sparse-arff")
    elif fmt == "mulan":
        name, text = "m.arff", _arff(X, Y, False).replace("@relation 'data: -C -%d'" % Y.shape[1], "@relation m")
        (tmp_path / "m.xml").write_text(_mutate(XML.replace("y2", f"y{Y.shape[1] - 1}"), mutation))
    elif fmt == "csv":
        header = [f"x{j}" for j in range(X.shape[1])] + ["y0"]
        text = ",".join(header) + "\n" + "\n".join(",".join([repr(float(v)) for v in x] + [str(int(y[0]))])
                                                   for x, y in zip(X, Y)) + "\n"
        name, kw = "m.csv", {"label_columns": ["y0"]}
    else:
        name = "m.svm"
        text = "\n".join(",".join(str(k) for k in np.flatnonzero(y)) + " "
                         + " ".join(f"{j}:{float(v)!r}" for j, v in enumerate(x)) for x, y in zip(X, Y)) + "\n"
    (tmp_path / name).write_text(_mutate(text, mutation), encoding="utf-8", errors="surrogatepass")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DatasetWarning)
            ds = load(tmp_path / name, **kw)
    except DatasetFormatError:
        return
    X_loaded = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    assert np.isfinite(X_loaded[~np.isnan(X_loaded)]).all()
    assert set(np.unique(ds.Y)) <= {0, 1} and ds.Y.shape[0] == X_loaded.shape[0]


def test_sparse_arff_with_an_index_beyond_64_bits(tmp_path):
    """Found by the mutation test: an OverflowError escaped."""
    path = _write(tmp_path, "d.arff", ARFF_HEADER.replace("@relation r", "@relation 'r: -C -2'")
                  + "@data\n{0 1, 999999999999999999999999999999 1}\n")
    with pytest.raises(DatasetFormatError, match="bad attribute index '999999999999999999999999999999'"):
        load(path)


def test_svmlight_warns_about_a_label_field_written_with_a_colon(tmp_path):
    with pytest.warns(DatasetWarning, match=r"line 2: .*separate them with ','"):
        load(_write(tmp_path, "s.svm", "0,1 1:0.5 3:1\n2:3 1:0.5 4:1\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(_write(tmp_path, "ok.svm", "0,1 1:0.5 3:1\n2:3 5:0.5\n"))  # no labels, increasing indices


@pytest.mark.parametrize("declaration", ['encoding="ut0-8"', 'encoding="bogus"', 'version="9"'])
def test_xml_with_a_bad_declaration_is_a_format_error(tmp_path, declaration):
    """Found by the mutation test: a LookupError escaped for an unknown encoding."""
    path = _write(tmp_path, "d.arff", ARFF_HEADER + "@data\n1,2,0,1\n")
    _write(tmp_path, "d.xml", XML.replace('encoding="utf-8"', declaration))
    with pytest.raises(DatasetFormatError, match="d.xml"):
        load(path)
