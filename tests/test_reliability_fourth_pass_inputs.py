"""Issue 60's smaller input cases: probabilities within [0, 1] after isotonic calibration and
marginalization, label counts whose dense table cannot fit refused before allocation, a Mulan label
with an escaped quote matched to its ARFF attribute, and ``nan`` cells read (and documented) as missing."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine.datasets as datasets
from engine import BoomerClassifier
from engine.datasets import DatasetFormatError, load, make_synthetic
from engine.persistence import estimator_from_document


def test_marginalized_calibrated_probabilities_stay_within_0_and_1():
    data = make_synthetic("marginal-independence", n_examples=300, seed=0)
    est = BoomerClassifier(max_rules=30, loss="logistic-non-decomposable", probability_predictor="marginalized",
                           marginal_probability_calibration="isotonic", random_state=0).fit(data.X, data.Y)
    loaded = estimator_from_document(est.to_model_dict())
    for model in (est, loaded):
        P = model.predict_proba(data.X)
        assert np.nanmax(P) <= 1.0 and np.nanmin(P) >= 0.0, repr(np.nanmax(P))  # 1.0000000000000004 before
        assert (P == 1.0).any()  # the overshooting entries are now exactly 1


def _many_labels_arff(path, n_rows: int, n_labels: int) -> None:
    lines = [f"@relation 'big: -C -{n_labels}'", "@attribute x numeric"]
    lines += [f"@attribute y{k} {{0,1}}" for k in range(n_labels)] + ["@data"]
    lines += ["{0 1.5,%d 1}" % (1 + (i * 7919) % n_labels) for i in range(n_rows)]
    path.write_text("\n".join(lines) + "\n")


def test_an_arff_declaring_a_huge_label_count_is_refused_before_allocation(tmp_path, monkeypatch):
    """A few bytes per sparse row, 8 bytes per label in the dense table: refused by the numbers (the
    limit is lowered so the test declares 200,000 labels, not 10^6: the header alone takes ~30 s)."""
    monkeypatch.setattr(datasets.dataset, "table_limit_bytes", lambda: 256 * 1024 ** 2)  # a 1 GiB machine
    path = tmp_path / "big.arff"
    _many_labels_arff(path, n_rows=200, n_labels=200_000)  # 200 x 200,001 float64: 0.30 GiB
    with pytest.raises(DatasetFormatError, match=r"200 examples x 200,001 attributes and labels need a table of "
                                                 r"0\.30 GiB, more than the 0\.25 GiB"):
        load(path)
    _many_labels_arff(path, n_rows=3, n_labels=20_000)  # a few examples of many labels still load
    ds = load(path)
    assert ds.Y.shape == (3, 20_000) and ds.X.shape == (3, 1)


def test_the_table_limit_is_a_quarter_of_the_machine_memory():
    import os

    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert datasets.dataset.table_limit_bytes() == memory // 4


def test_an_svmlight_file_whose_label_table_cannot_fit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets.dataset, "table_limit_bytes", lambda: 1024 ** 3)
    path = tmp_path / "big.svm"
    path.write_text("99999 1:1\n" * 12_000)  # 12,000 x 100,000 labels: 1.12 GiB of uint8
    with pytest.raises(DatasetFormatError, match=r"12,000 examples x 100,000 labels need a table of 1\.12 GiB, "
                                                 r"more than the 1\.00 GiB"):
        load(path)


@pytest.mark.parametrize("arff_name, xml_name, xml_file", [
    (r"rock\'n\'roll", "rock'n'roll", "f.xml"),  # unquoted ARFF name with escapes: both sides unescaped
    (r"rock\'n\'roll", "rock&apos;n&apos;roll", "f.xml"),
    (r"rock\'n\'roll", "rock'n'roll", "labels.xml"),  # the only XML in the folder, found by its label names
    (r"'rock\'n\'roll'", r"rock\'n\'roll", "f.xml"),  # quoted and escaped on both sides (worked before)
])
def test_a_mulan_label_with_an_escaped_quote_is_matched_to_its_arff_attribute(tmp_path, arff_name, xml_name,
                                                                             xml_file):
    (tmp_path / "f.arff").write_text(f"@relation r\n@attribute x numeric\n@attribute {arff_name} {{0,1}}\n"
                                     "@attribute other {0,1}\n@data\n1,0,1\n2,1,0\n")
    (tmp_path / xml_file).write_text('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.'
                                     f'sourceforge.net/labels">\n<label name="{xml_name}"></label>\n'
                                     '<label name="other"></label>\n</labels>\n')
    ds = load(tmp_path / "f.arff")
    assert ds.feature_names == ["x"] and len(ds.label_names) == 2
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 0]])


@pytest.mark.parametrize("cell", ["nan", "NaN", "NAN", "-nan", "+nan"])
def test_a_nan_cell_is_a_missing_value_in_every_format_as_documented(tmp_path, cell):
    (tmp_path / "n.arff").write_text(f"@relation 'r: -C -1'\n@attribute x numeric\n@attribute y {{0,1}}\n@data\n"
                                     f"{cell},1\n2,0\n")
    (tmp_path / "n.csv").write_text(f"x,y\n{cell},1\n2,0\n")
    (tmp_path / "n.svm").write_text(f"0 1:{cell}\n1 1:2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ds in (load(tmp_path / "n.arff"), load(tmp_path / "n.csv", label_columns=["y"]),
                   load(tmp_path / "n.svm")):
            X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X
            assert np.isnan(X[0, 0]) and X[1, 0] == 2
    doc = " ".join(datasets.load.__doc__.split())
    assert "a numeric cell ``nan`` (any case, signed or not) is a missing value (NaN) in every format" in doc
    assert "``nan``" in datasets.arff.__doc__
