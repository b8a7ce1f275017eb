"""Regression data as the field ships it (engine.datasets.targets): numeric Mulan/MEKA targets, CSV target
columns and svmlight fields of real numbers become real-valued targets (``task == 'regression'``, float32);
0/1 labels stay a classification data set; bad targets are one error naming the problem."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.datasets import DatasetFormatError, load

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _write(tmp_path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.skipif(not (DATA / "atp7d.arff").exists(), reason=f"atp7d.arff not found in {DATA}")
def test_atp7d_has_six_real_valued_targets():
    data = load(DATA / "atp7d.arff")
    assert data.task == "regression" and data.is_regression
    assert data.X.shape == (296, 411) and data.Y.shape == (296, 6) and data.Y.dtype == np.float32
    assert data.label_names[0] == "LBL+ALLminpA+bt7d_000"
    assert data.target_ranges.shape == (6, 2) and data.target_ranges[0].tolist() == [198.0, 574.0]
    assert "6 real-valued targets" in data.summary()


def test_meka_numeric_targets(tmp_path):
    path = _write(tmp_path, "m.arff", "@relation 'r: -C 2'\n@attribute a numeric\n@attribute b numeric\n"
                                     "@attribute x numeric\n@data\n1.5,0,3\n-2,1,4\n0.25,1,5\n")
    data = load(path)
    assert data.task == "regression"
    np.testing.assert_array_equal(data.Y, np.array([[1.5, 0], [-2, 1], [0.25, 1]], dtype=np.float32))
    np.testing.assert_array_equal(data.X[:, 0], [3, 4, 5])


def test_numeric_zero_one_labels_stay_a_classification_data_set(tmp_path):
    path = _write(tmp_path, "c.arff", "@relation 'r: -C 1'\n@attribute y numeric\n@attribute x numeric\n"
                                     "@data\n1,3\n0,4\n")
    data = load(path)
    assert data.task == "classification" and data.Y.dtype == np.uint8
    assert load(path, task="regression").Y.dtype == np.float32  # unless the caller says otherwise


def test_csv_target_columns(tmp_path):
    path = _write(tmp_path, "r.csv", "a,t1,b,t2\n1,0.5,2,10\n2,-1.5,3,20\n")
    data = load(path, label_columns=["t1", "t2"])
    assert data.task == "regression" and data.label_names == ["t1", "t2"]
    np.testing.assert_array_equal(data.Y, [[0.5, 10], [-1.5, 20]])
    np.testing.assert_array_equal(data.X, [[1, 2], [2, 3]])


def test_svmlight_with_several_real_targets(tmp_path):
    path = _write(tmp_path, "r.svm", "1.5,-2,0 1:0.5 3:1\n0.25,3,7 2:2\n")
    data = load(path)
    assert data.task == "regression" and data.label_names == ["y0", "y1", "y2"]
    np.testing.assert_array_equal(data.Y, [[1.5, -2, 0], [0.25, 3, 7]])
    np.testing.assert_array_equal(data.X, [[0.5, 0, 1], [0, 2, 0]])


@pytest.mark.parametrize("name, text, kwargs, message", [
    ("nan.arff", "@relation 'r: -C 1'\n@attribute y numeric\n@attribute x numeric\n@data\n1.5,3\n?,4\n", {},
     "line 6: missing value for target 'y'"),
    ("mixed.arff", "@relation 'r: -C 2'\n@attribute y numeric\n@attribute z {0,1}\n@attribute x numeric\n"
                   "@data\n1.5,0,3\n", {}, "target attribute 'z' is nominal"),
    ("word.csv", "x,t\n1,0.5\n2,abc\n", {"label_columns": ["t"]}, "line 3: target 't' has value 'abc'"),
    ("nan.csv", "x,t\n1,0.5\n2,nan\n", {"label_columns": ["t"]}, "line 3: missing value for target 't'"),
    ("inf.csv", "x,t\n1,0.5\n2,1e40\n", {"label_columns": ["t"]}, "target 't' has value 1e+40"),
    ("count.svm", "1.5,2 1:1\n0.5 1:2\n", {}, "line 2: 1 targets, but the first line has 2"),
    ("word.svm", "1.5,x 1:1\n", {"task": "regression"}, "target 1 has value 'x'"),
])
def test_bad_targets_are_one_clear_error(tmp_path, name, text, kwargs, message):
    with pytest.raises(DatasetFormatError, match=message.replace("+", r"\+")):
        load(_write(tmp_path, name, text), **kwargs)


def test_task_must_be_a_known_one(tmp_path):
    with pytest.raises(ValueError, match="task must be"):
        load(_write(tmp_path, "r.csv", "x,t\n1,0.5\n"), label_columns=["t"], task="ranking")
