"""Loaders: small files written into tmp_path, malformed files, and the shared benchmark data."""
from __future__ import annotations

import pickle
import time
from pathlib import Path

import numpy as np
import pytest

from engine.datasets import Dataset, DatasetFormatError, load

NAN = np.nan
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_array(actual, expected, dtype):
    assert actual.dtype == dtype
    np.testing.assert_array_equal(actual, np.array(expected, dtype=dtype))


# ----------------------------------------------------------------------------------------- Mulan
MULAN_ARFF = """% a comment before the header
@RELATION 'tiny mulan'

@attribute 'it\\'s' NUMERIC
@Attribute lab1 {0,1}
@attribute "a b" {red, 'dark blue', "x,y"}
@attribute n3 integer
% a comment among the attributes
@attribute lab2 {0,1}

@DATA
1.5, 1, red, 3, 0
?,0,'dark blue',?,1
% a comment among the rows
-2e1,1,"x,y",7,1
"""

MULAN_XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
  <label name="lab2"></label>
  <label name="group"><label name="lab1"/></label>
</labels>
"""


def test_mulan_labels_among_attributes_with_nested_namespaced_xml(tmp_path):
    xml = MULAN_XML.replace('<label name="group">', "").replace('<label name="lab1"/></label>',
                                                                '<label name="lab1"/>')
    path = write(tmp_path, "tiny.arff", MULAN_ARFF)
    write(tmp_path, "tiny.xml", xml)
    data = load(path)
    assert isinstance(data, Dataset)
    assert data.feature_names == ["it's", "a b", "n3"]
    assert data.label_names == ["lab1", "lab2"]  # ARFF attribute order, not XML order
    assert data.nominal_values == {1: ["red", "dark blue", "x,y"]}
    assert_array(data.X, [[1.5, 0, 3], [NAN, 1, NAN], [-20, 2, 7]], np.float32)
    assert_array(data.Y, [[1, 0], [0, 1], [1, 1]], np.uint8)
    assert data.name == "tiny" and data.source == str(path)


def test_mulan_hierarchy_parent_labels_must_be_attributes(tmp_path):
    path = write(tmp_path, "tiny.arff", MULAN_ARFF)
    write(tmp_path, "tiny.xml", MULAN_XML)  # <label name="group"> is itself a label (Mulan hierarchy)
    with pytest.raises(DatasetFormatError, match=r"tiny\.xml, line 4: label 'group' is not an attribute"):
        load(path)


def test_explicit_xml_argument(tmp_path):
    path = write(tmp_path, "tiny.arff", MULAN_ARFF)
    xml = write(tmp_path, "other-name.xml", '<labels><label name="lab1"/><label name="lab2"/></labels>')
    data = load(path, xml=xml)
    assert data.label_names == ["lab1", "lab2"]
    with pytest.raises(FileNotFoundError, match="nowhere.xml"):
        load(path, xml=tmp_path / "nowhere.xml")


# ----------------------------------------------------------------------------------------- MEKA
WEATHER = """@relation '{relation}'
@attribute play {{0,1}}
@attribute dontplay {{0,1}}
@attribute outlook {{sunny, overcast, rainy}}
@attribute temperature real
@attribute windy {{TRUE, FALSE}}
@data
0,1,sunny,85,FALSE
1,0,overcast,83,TRUE
1,1,?,70,FALSE
"""


def test_meka_positive_c_takes_the_first_attributes(tmp_path):
    data = load(write(tmp_path, "w.arff", WEATHER.format(relation="weather -C 2")))
    assert data.label_names == ["play", "dontplay"]
    assert data.feature_names == ["outlook", "temperature", "windy"]
    assert data.nominal_values == {0: ["sunny", "overcast", "rainy"], 2: ["TRUE", "FALSE"]}
    assert_array(data.X, [[0, 85, 1], [1, 83, 0], [NAN, 70, 1]], np.float32)
    assert_array(data.Y, [[0, 1], [1, 0], [1, 1]], np.uint8)


def test_meka_negative_c_takes_the_last_attributes(tmp_path):
    text = """@relation 'scene: -C -2 -split-percentage 50'
@attribute f1 numeric
@attribute f2 {a,b}
@attribute y1 numeric
@attribute y2 {0,1}
@data
0.5,b,1,0
1.5,a,0,1
"""
    data = load(write(tmp_path, "neg.arff", text))
    assert data.label_names == ["y1", "y2"]  # y1: a numeric label holding only 0/1
    assert data.feature_names == ["f1", "f2"]
    assert_array(data.X, [[0.5, 1], [1.5, 0]], np.float32)
    assert_array(data.Y, [[1, 0], [0, 1]], np.uint8)


def test_meka_unquoted_relation(tmp_path):
    data = load(write(tmp_path, "u.arff", WEATHER.format(relation="x").replace("'x'", "weather -C 1")))
    assert data.label_names == ["play"]


# ----------------------------------------------------------------------------------------- sparse
SPARSE = """@relation 'sparse: -C 2'
@attribute y1 {0,1}
@attribute y2 {1,0}
@attribute f1 numeric
@attribute colour {b, a, 'c d'}
@attribute f3 numeric
@data
{0 1, 2 2.5, 4 -1}
{ }
{1 0,3 'c d'}
{3 a, 2 ?}
1,0,7,b,8
"""


def test_sparse_rows_omitted_values_are_zero_or_first_nominal_value(tmp_path):
    data = load(write(tmp_path, "sparse.arff", SPARSE))
    assert data.feature_names == ["f1", "colour", "f3"]
    assert data.nominal_values == {1: ["b", "a", "c d"]}
    # omitted numeric = 0; omitted nominal = first declared value, code 0 ('b')
    assert_array(data.X, [[2.5, 0, -1], [0, 0, 0], [0, 2, 0], [NAN, 1, 0], [7, 0, 8]], np.float32)
    # y2 is declared {1,0}: an omitted y2 is its first value, '1'
    assert_array(data.Y, [[1, 1], [0, 1], [0, 0], [0, 1], [1, 0]], np.uint8)


# ----------------------------------------------------------------------------------------- svmlight
def test_svmlight_one_based_with_empty_label_field_and_comments(tmp_path):
    text = "# header comment\n1,3 1:0.5 3:-2\n 2:1.5\n0 3:4  # trailing comment\n\n2 qid:7 1:1\n"
    data = load(write(tmp_path, "tiny.svm", text))
    assert data.feature_names == ["f1", "f2", "f3"]
    assert data.label_names == ["y0", "y1", "y2", "y3"]
    assert_array(data.X, [[0.5, 0, -2], [0, 1.5, 0], [0, 0, 4], [1, 0, 0]], np.float32)
    assert_array(data.Y, [[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]], np.uint8)


def test_svmlight_zero_based_and_given_n_labels(tmp_path):
    path = write(tmp_path, "z.libsvm", "0 0:1 2:3\n1 1:2\n")
    data = load(path, n_labels=4)
    assert data.feature_names == ["f0", "f1", "f2"]
    assert_array(data.X, [[1, 0, 3], [0, 2, 0]], np.float32)
    assert_array(data.Y, [[1, 0, 0, 0], [0, 1, 0, 0]], np.uint8)
    with pytest.raises(DatasetFormatError, match=r"z\.libsvm, line 2: label 1 out of range 0\.\.0"):
        load(path, n_labels=1)


# ----------------------------------------------------------------------------------------- CSV
CSV = """a,colour,y1,b,y2
1.5,red,1,?,0
,blue,0,2,1
3,red,1,NaN,1
-1,,0,4,0
"""


def test_csv_by_names_and_indices(tmp_path):
    path = write(tmp_path, "t.csv", CSV)
    for columns in (["y1", "y2"], [2, -1], ["y2", 2]):
        data = load(path, label_columns=columns)
        assert data.label_names == ["y1", "y2"]
        assert data.feature_names == ["a", "colour", "b"]
        assert data.nominal_values == {1: ["red", "blue"]}  # order of first appearance
        assert_array(data.X, [[1.5, 0, NAN], [NAN, 1, 2], [3, 0, NAN], [-1, NAN, 4]], np.float32)
        assert_array(data.Y, [[1, 0], [0, 1], [1, 1], [0, 0]], np.uint8)


def test_csv_semicolons_and_quoted_cells(tmp_path):
    data = load(write(tmp_path, "s.csv", 'x;"na;me";y\n1;"a;b";1\n2;c;0\n'), label_columns=["y"])
    assert data.feature_names == ["x", "na;me"]
    assert data.nominal_values == {1: ["a;b", "c"]}
    assert_array(data.Y, [[1], [0]], np.uint8)


def test_csv_requires_label_columns(tmp_path):
    path = write(tmp_path, "t.csv", CSV)
    with pytest.raises(DatasetFormatError, match=r"t\.csv: label_columns must name .*columns are: a, colour, y1"):
        load(path)
    with pytest.raises(DatasetFormatError, match=r"label column 'zz' not found"):
        load(path, label_columns=["zz"])


# ----------------------------------------------------------------------------------------- dispatch
def test_missing_file_and_unknown_suffix_and_misplaced_options(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.arff"):
        load(tmp_path / "nothing.arff")
    with pytest.raises(DatasetFormatError, match=r"data\.xls: unknown file type '\.xls'"):
        load(write(tmp_path, "data.xls", "x"))
    with pytest.raises(ValueError, match="label_columns= does not apply to .svm"):
        load(write(tmp_path, "w.svm", "0 1:1\n"), label_columns=["play"])
    with pytest.raises(ValueError, match="n_features= does not apply to .arff"):
        load(write(tmp_path, "w.arff", WEATHER.format(relation="w -C 1")), n_features=3)
    # label_columns choose the labels of an ARFF file too, overriding its header
    assert load(tmp_path / "w.arff", label_columns=["play"]).label_names == ["play"]


def test_error_is_a_picklable_value_error():
    error = DatasetFormatError("/x/data.arff", "something odd", 12)
    assert isinstance(error, ValueError)
    assert str(error) == "data.arff, line 12: something odd"
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error) and copy.line == 12


# ----------------------------------------------------------------------------------------- malformed
HEAD = "@relation 'bad -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@attribute c {u,v}\n@data\n"
MALFORMED = [
    # (file name, text, xml text or None, error line or None, problem)
    ("empty.arff", "  \n\n", None, None, "the file is empty"),
    ("type.arff", "@relation r -C 1\n@attribute y {0,1}\n@attribute x blob\n@data\n", None, 3,
     "unknown type 'blob' of attribute 'x'"),
    ("string.arff", "@relation r -C 1\n@attribute y {0,1}\n@attribute s string\n@data\n", None, 3,
     "attribute 's' has type 'string', which is not supported"),
    ("count.arff", HEAD + "1,2,u\n0,3\n", None, 7, "expected 3 values, found 2"),
    ("nominal.arff", HEAD + "1,2,u\n0,3,w\n", None, 7, "value 'w' is not a declared value of nominal attribute 'c'"),
    ("number.arff", HEAD + "1,abc,u\n", None, 6, "non-numeric value 'abc' for numeric attribute 'x'"),
    # a numeric target with a value other than 0/1 makes a regression data set (engine.datasets.targets), whose
    # targets must all be numbers
    ("targetmissing.arff", "@relation r -C 1\n@attribute y numeric\n@attribute x numeric\n@data\n1,1\n2,1\n?,1\n",
     None, 7, "missing value for target 'y'"),
    ("labeltype.arff", "@relation r -C 1\n@attribute y {yes,no}\n@attribute x numeric\n@data\nyes,1\n",
     None, 2, "label attribute 'y' must be binary {0,1}"),
    ("labelmissing.arff", HEAD + "1,2,u\n?,3,v\n", None, 7, "missing value '?' for label 'y'"),
    ("nodata.arff", "@relation r -C 1\n@attribute y {0,1}\n@attribute x numeric\n", None, 3,
     "the file ends without a @data section"),
    ("nolabels.arff", "@relation plain\n@attribute y {0,1}\n@attribute x numeric\n@data\n0,1\n", None, 1,
     "no labels: the relation name 'plain' has no '-C <n>'"),
    ("quote.arff", HEAD + "1,2,'u\n", None, 6, "unterminated quote"),
    ("sparseindex.arff", HEAD + "{0 1, 7 2}\n", None, 6, "attribute index 7 out of range 0..2"),
    ("sparseentry.arff", HEAD + "{0 1, 2}\n", None, 6, "bad sparse entry '2'"),
    ("header.arff", "@relation r -C 1\n@attribute y {0,1}\nfoo bar\n@data\n", None, 3,
     "expected @relation, @attribute or @data, found 'foo bar'"),
    ("twice.arff", "@relation r -C 1\n@attribute y {0,1}\n@attribute y numeric\n@data\n", None, 3,
     "attribute 'y' is declared twice"),
    ("svm.svm", "0 1:0.5\n1 2:x\n", None, 2, "bad token '2:x'"),
    ("svmcolon.svm", "0 1:0.5\n1 2\n", None, 2, "bad token '2' (expected <index>:<value>)"),
    ("svmlabel.svm", "0 1:0.5\na,1 2:1\n", None, 2, "bad label 'a'"),
    ("count.csv", "x,y\n1,0\n1,2,3\n", None, 3, "expected 2 values, found 3"),
    ("label.csv", "x,y\n1,0\n1,yes\n", None, 3, "label 'y' has value 'yes'; labels must be 0 or 1"),
    ("target.csv", "x,y\n1,0.5\n1,yes\n", None, 3, "target 'y' has value 'yes'; regression targets must be numbers"),
    ("labelnan.csv", "x,y\n1,NaN\n", None, 2, "missing value for label 'y'"),
]


@pytest.mark.parametrize("name, text, xml, line, problem", MALFORMED, ids=[case[0] for case in MALFORMED])
def test_malformed_file_names_file_line_and_problem(tmp_path, name, text, xml, line, problem):
    path = write(tmp_path, name, text)
    if xml is not None:
        write(tmp_path, Path(name).stem + ".xml", xml)
    with pytest.raises(DatasetFormatError) as info:
        load(path, label_columns=["y"] if name.endswith(".csv") else None)
    where = f"{name}, line {line}: " if line else f"{name}: "
    assert str(info.value).startswith(where + problem), str(info.value)
    assert info.value.line == line


XML_CASES = [
    ("<labels>\n<label name='y'/>\n<label name='zz'/>\n</labels>\n", 3, "label 'zz' is not an attribute of m.arff"),
    ("<labels>\n<label name='y'>\n</labels>\n", 3, "malformed XML: mismatched tag"),
    ("<labels>\n</labels>\n", None, "no labels: the file has no <label name=...> element"),
    ("<labels>\n<label/>\n</labels>\n", 2, "<label> element without a name attribute"),
]


@pytest.mark.parametrize("xml, line, problem", XML_CASES)
def test_malformed_mulan_xml_names_the_xml_file(tmp_path, xml, line, problem):
    path = write(tmp_path, "m.arff", HEAD + "1,2,u\n")
    write(tmp_path, "m.xml", xml)
    with pytest.raises(DatasetFormatError) as info:
        load(path)
    where = f"m.xml, line {line}: " if line else "m.xml: "
    assert str(info.value).startswith(where + problem), str(info.value)


# ----------------------------------------------------------------------------------------- real data
def shared(name: str) -> Path:
    if not DATA.is_dir():
        pytest.skip(f"benchmark data folder {DATA} is absent (it is not part of the repository)")
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"benchmark file {path} is absent")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name, shape, n_labels, cardinality, n_nominal", [
    ("emotions.arff", (593, 72), 6, 1.87, 0),
    ("enron.arff", (1702, 1001), 53, 3.38, 1001),
    ("yeast.svm", (2417, 103), 14, 4.24, 0),
])
def test_real_data_shapes_and_label_cardinality(name, shape, n_labels, cardinality, n_nominal):
    data = load(shared(name))
    assert data.X.shape == shape and data.X.dtype == np.float32
    assert data.Y.shape == (shape[0], n_labels) and data.Y.dtype == np.uint8
    assert data.label_cardinality == pytest.approx(cardinality, abs=0.01)
    assert len(data.nominal_values) == n_nominal
    assert not np.isnan(data.X).any()


@pytest.mark.slow
def test_emotions_label_names_come_from_the_xml():
    data = load(shared("emotions.arff"))
    assert data.label_names[0] == "amazed-suprised" and data.label_names[-1] == "angry-aggresive"
    assert data.feature_names[0] == "Mean_Acc1298_Mean_Mem40_Centroid"


@pytest.mark.slow
def test_enron_loads_fast():
    path = shared("enron.arff")
    start = time.perf_counter()
    data = load(path)
    elapsed = time.perf_counter() - start
    assert set(np.unique(data.X)) == {0.0, 1.0}
    assert elapsed < 3.0, f"enron took {elapsed:.2f} s"  # about 0.15 s on an idle machine


@pytest.mark.slow
def test_weather_meka():
    data = load(shared("weather-meka.arff"))
    assert data.label_names == ["play", "dontplay", "playmaybe"]
    assert data.feature_names == ["outlook", "temperature", "humidity", "windy"]
    assert data.nominal_values == {0: ["sunny", "overcast", "rainy"], 3: ["TRUE", "FALSE"]}
    assert data.X.shape == (14, 4)
    assert_array(data.X[0], [0, 85, 85, 1], np.float32)
    assert_array(data.Y[:3], [[0, 1, 0], [0, 1, 0], [1, 0, 1]], np.uint8)
