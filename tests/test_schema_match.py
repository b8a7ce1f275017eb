"""Prediction checks the data against the model's schema: the attribute count, their names (the same
names in another order are matched by name, other names refused naming the first difference) and
their kinds (nominal or numeric), in ``python -m engine predict``, the Python API, the window's
application model and for DataFrames (``feature_names_in_``)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from engine import BoomerClassifier
from engine.cli import main
from engine.datasets import load
from engine.registry import learners

NAMES = ["a", "b", "c", "d"]  # b is nominal {x, y, z}
VALUES = ["x", "y", "z"]


def _table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n), rng.random(n), rng.normal(size=n)])
    Y = np.column_stack([X[:, 0] > 0.2, (X[:, 1] == 1) | (X[:, 2] > 0.7)]).astype(np.uint8)
    return X, Y


def arff(X, Y, order=(0, 1, 2, 3), names=NAMES, nominal=(1,)) -> str:
    """MEKA ARFF of the attributes ``order`` (names ``names[j]``; ``nominal`` ones as {x,y,z}) then the labels."""
    lines = [f"@relation 'r: -C -{Y.shape[1]}'"]
    for j in order:
        kind = "{x,y,z}" if j in nominal else "numeric"
        lines.append(f"@attribute {names[j]} {kind}")
    lines += [f"@attribute y{k} {{0,1}}" for k in range(Y.shape[1])] + ["@data"]
    for x, y in zip(X, Y):
        cells = [VALUES[int(x[j])] if j in nominal else repr(float(x[j])) for j in order]
        lines.append(",".join(cells + [str(int(v)) for v in y]))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schema")
    X, Y = _table()
    train = folder / "train.arff"
    train.write_text(arff(X, Y))
    est = BoomerClassifier(max_rules=12).fit_dataset(load(train))
    model = folder / "model.json"
    est.save(model)
    Xt, Yt = _table(seed=1)
    return folder, model, est, Xt, Yt


def _predict(capsys, model, data):
    code = main(["predict", str(model), str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def test_predict_matches_reordered_columns_by_name_and_says_so(fitted, capsys, tmp_path):
    _, model, _, Xt, Yt = fitted
    same = tmp_path / "same.arff"
    same.write_text(arff(Xt, Yt))
    moved = tmp_path / "moved.arff"
    moved.write_text(arff(Xt, Yt, order=(2, 0, 3, 1)))
    code, expected, err = _predict(capsys, model, same)
    assert code == 0 and "note:" not in err
    code, out, err = _predict(capsys, model, moved)
    assert code == 0
    assert out == expected  # the columns were matched by name: the same predictions
    assert "note:" in err and "in another order" in err and "matched by name" in err


@pytest.mark.parametrize("names, first", [
    (["a", "b", "c", "e"], "'d'"),  # one renamed attribute: named
    (["p", "q", "r", "s"], "'a'"),  # every attribute renamed
])
def test_predict_refuses_other_attribute_names_naming_the_first(fitted, capsys, tmp_path, names, first):
    _, model, _, Xt, Yt = fitted
    path = tmp_path / "renamed.arff"
    path.write_text(arff(Xt, Yt, names=names))
    code, out, err = _predict(capsys, model, path)
    assert code == 2 and out == ""
    assert err.startswith("error:") and first in err and "not in the data" in err


@pytest.mark.parametrize("nominal, expected", [((), "'b' is nominal in the model but numeric"),
                                               ((1, 3), "'d' is numeric in the model but nominal")])
def test_predict_refuses_an_attribute_of_another_kind(fitted, capsys, tmp_path, nominal, expected):
    _, model, _, Xt, Yt = fitted
    Xk = Xt.copy()
    if 3 in nominal:
        Xk[:, 3] = np.clip(np.round(np.abs(Xk[:, 3])), 0, 2)
    path = tmp_path / "kind.arff"
    path.write_text(arff(Xk, Yt, nominal=nominal))
    code, _, err = _predict(capsys, model, path)
    assert code == 2 and expected in err, err


def test_predict_refuses_another_attribute_count(fitted, capsys, tmp_path):
    _, model, _, Xt, Yt = fitted
    path = tmp_path / "three.arff"
    path.write_text(arff(Xt, Yt, order=(0, 1, 2)))
    code, _, err = _predict(capsys, model, path)
    assert code == 2 and "have 3 attributes, but the model has 4" in err


def test_predict_refuses_a_nominal_attribute_with_other_values(fitted, capsys, tmp_path):
    _, model, _, Xt, Yt = fitted
    path = tmp_path / "values.arff"
    path.write_text(arff(Xt, Yt).replace("@attribute b {x,y,z}", "@attribute b {z,y,x}"))
    code, _, err = _predict(capsys, model, path)
    assert code == 2 and "nominal attribute 'b' has the values" in err


def test_the_python_api_matches_a_data_set_to_the_model_by_name(fitted, tmp_path):
    from engine.api import features_for_model

    _, _, est, Xt, Yt = fitted
    path = tmp_path / "moved.arff"
    path.write_text(arff(Xt, Yt, order=(3, 1, 0, 2)))
    moved = load(path)
    X, note = features_for_model(est, moved)
    assert "matched by name" in note
    np.testing.assert_array_equal(est.predict(X), est.predict(Xt.astype(np.float32)))
    assert not (np.asarray(est.predict(moved.X)) == np.asarray(est.predict(X))).all()  # unmatched: other predictions


def test_the_window_refuses_a_model_on_data_of_other_names_kinds_or_order(fitted, tmp_path):
    from boomer_gui.components.controller import check_model_fits
    from boomer_gui.components.state import LoadedData

    _, _, est, Xt, Yt = fitted
    cases = {"renamed": (arff(Xt, Yt, names=["a", "b", "c", "e"]), "'d', is not in the loaded data"),
             "kind": (arff(Xt, Yt, nominal=()), "'b' is nominal in the model but numeric"),
             "order": (arff(Xt, Yt, order=(1, 0, 2, 3)), "another order")}
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.arff"
        path.write_text(text)
        ds = load(path)
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            check_model_fits(est, LoadedData(spec=None, full=ds, train=ds, test=ds))
    same = tmp_path / "same.arff"
    same.write_text(arff(Xt, Yt))
    ds = load(same)
    check_model_fits(est, LoadedData(spec=None, full=ds, train=ds, test=ds))


QUICK = {"boomer": {"max_rules": 4}, "adaboost-mh": {"max_rules": 4}, "seco": {"max_rules": 3},
         "label-ranking": {"max_iterations": 4}, "ml-me": {"n_experts": 2, "max_em_iter": 3}, "cc-lr": {}}


@pytest.mark.parametrize("key", sorted(QUICK))
def test_a_dataframe_is_matched_by_its_column_names(key):
    X, Y = _table(120)
    df = pd.DataFrame(X, columns=NAMES)
    est = next(s for s in learners() if s.key == key).make(**QUICK[key]).fit(df, Y)
    assert list(est.feature_names_in_) == NAMES and est.feature_names_in_.dtype == object
    expected = est.predict(df)
    with pytest.warns(UserWarning, match="matched by name"):
        moved = est.predict(df[["d", "c", "a", "b"]])
    np.testing.assert_array_equal(np.asarray(moved), np.asarray(expected))
    with pytest.raises(ValueError, match="Feature names unseen at fit time: 'e'"):
        est.predict(df.rename(columns={"d": "e"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(X)  # plain arrays: the count only, as scikit-learn
    est.fit(X, Y)
    assert not hasattr(est, "feature_names_in_")  # a refit on arrays forgets the names


def test_fit_matches_a_test_file_to_the_training_file_by_name(fitted, capsys, tmp_path):
    folder, _, _, Xt, Yt = fitted
    same, moved = tmp_path / "same.arff", tmp_path / "moved.arff"
    same.write_text(arff(Xt, Yt))
    moved.write_text(arff(Xt, Yt, order=(3, 2, 1, 0)))
    outputs = []
    for test in (same, moved):
        assert main(["fit", str(folder / "train.arff"), "--test", str(test), "--rules", "6"]) == 0
        out, err = capsys.readouterr()
        outputs.append((out.splitlines()[-1], err))
    assert outputs[0][0] == outputs[1][0] and outputs[0][0].startswith("test: Hamming")  # the same test losses
    assert "note:" not in outputs[0][1] and "matched by name" in outputs[1][1]
    renamed = tmp_path / "renamed.arff"
    renamed.write_text(arff(Xt, Yt, names=["a", "b", "q", "d"]))
    assert main(["fit", str(folder / "train.arff"), "--test", str(renamed), "--rules", "6"]) == 2
    assert "attribute 3 of the training data, 'c', is not in the test data (renamed.arff)" in capsys.readouterr()[1]


def test_the_window_refuses_a_test_file_of_other_names_kinds_or_order(fitted, tmp_path):
    from boomer_gui.components.state import check_compatible

    folder, _, _, Xt, Yt = fitted
    train = load(folder / "train.arff")
    for text, message in ((arff(Xt, Yt, order=(1, 0, 2, 3)), "another order"),
                          (arff(Xt, Yt, names=["a", "x", "c", "d"]), "'b', is not in the test data"),
                          (arff(Xt, Yt, nominal=()), "'b' is nominal in the training data but numeric")):
        path = tmp_path / "t.arff"
        path.write_text(text)
        with pytest.raises(ValueError, match=message):
            check_compatible(train, load(path))
    path.write_text(arff(Xt, Yt))
    check_compatible(train, load(path))
