"""A rule model exported as plain Python predicts as the engine does: on every shared data set, in a
fresh interpreter where neither NumPy, Numba, SciPy nor the engine can be imported."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from engine.adaboost import AdaBoostMHClassifier
from engine.api import load, model_text, python_source, test_sibling
from engine.boomer import BoomerClassifier
from engine.cli import main
from engine.model import RuleModel
from engine.rules import Condition, Rule, Schema
from engine.seco import SeCoClassifier

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # as conftest.py finds it

MAX_TEST_ROWS = 150  # rows per data set sent to the fresh interpreter

DATA_SETS = {  # name: file under /work/shared/data
    "emotions": "emotions.arff", "yeast": "yeast.svm", "enron": "enron.arff", "weather-meka": "weather-meka.arff",
    "birds": "table1/birds.arff", "llog": "table1/llog.arff", "medical": "table1/medical.arff",
    "scene": "table1/scene-train.arff", "slashdot": "table1/slashdot.arff",
}

RUNNER = textwrap.dedent('''
    import importlib.util, json, sys
    for name in ("numpy", "numba", "scipy", "engine"):
        try:
            __import__(name)
        except ImportError:
            continue
        raise SystemExit(name + " is importable in the fresh interpreter")
    results = []
    for job in json.load(open(sys.argv[1])):
        spec = importlib.util.spec_from_file_location("exported_" + str(len(results)), job["module"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rows = json.load(open(job["rows"]))
        result = {"predict": module.predict(rows), "decision_function": module.decision_function(rows),
                  "numpy": module._np is not None}
        try:
            result["predict_proba"] = module.predict_proba(rows)
        except AttributeError:
            result["predict_proba"] = None
        results.append(result)
    json.dump(results, open(sys.argv[2], "w"))
''')


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder (``BOOMER_SHARED_DATA`` overrides it, e.g. for a git worktree elsewhere)."""
    folder = Path(os.environ.get("BOOMER_SHARED_DATA", DATA_DIR))
    if not folder.is_dir():
        pytest.skip(f"benchmark data folder {folder} is absent")
    return folder


def _split(path):
    data = load(path)
    sibling = test_sibling(path)
    if sibling is not None:
        return data, load(sibling)
    return data.train_test_split(0.33, seed=0)


def _rows(X) -> list:
    """Rows for the exported module: lists of values, or {index: value} for sparse data."""
    X = X[:MAX_TEST_ROWS]
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return [{int(j): float(v) for j, v in zip(X.indices[X.indptr[i]:X.indptr[i + 1]],
                                                  X.data[X.indptr[i]:X.indptr[i + 1]])} for i in range(X.shape[0])]
    return np.asarray(X, dtype=np.float64).tolist()


def _fit(est, train):
    return est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask, schema=train.schema)


def _run_isolated(tmp_path, jobs) -> list:
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    done = subprocess.run([sys.executable, "-I", "-S", str(runner), str(tmp_path / "jobs.json"),
                           str(tmp_path / "out.json")], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / "out.json").read_text())


def _check(est, X, result) -> None:
    X = X[:MAX_TEST_ROWS]
    assert not result["numpy"]
    np.testing.assert_array_equal(np.array(result["predict"], dtype=np.uint8).reshape(est.predict(X).shape),
                                  est.predict(X))
    np.testing.assert_array_equal(np.array(result["decision_function"]), est.decision_function(X))
    if result["predict_proba"] is None:
        with pytest.raises(AttributeError):
            est.predict_proba(X)
    else:
        np.testing.assert_allclose(np.array(result["predict_proba"]), est.predict_proba(X), rtol=1e-12, atol=1e-15)


def _models(name):
    models = [("default", BoomerClassifier(max_rules=30, random_state=1)),
              ("example-wise", BoomerClassifier(max_rules=20, random_state=1, loss="logistic-non-decomposable"))]
    if name == "emotions":
        models += [("seco", SeCoClassifier(max_rules=15)), ("adaboost", AdaBoostMHClassifier(max_rules=30))]
    return models


@pytest.mark.parametrize("name", sorted(DATA_SETS))
def test_exported_module_predicts_as_the_engine_without_numpy(name, shared_data, tmp_path):
    path = shared_data / DATA_SETS[name]
    if not path.exists():
        pytest.skip(f"{path} is absent")
    train, test = _split(path)
    rows = _rows(test.X)
    (tmp_path / "rows.json").write_text(json.dumps(rows))
    fitted, jobs = [], []
    for kind, est in _models(name):
        _fit(est, train)
        module = tmp_path / f"{kind}.py"
        module.write_text(python_source(est))
        fitted.append(est)
        jobs.append({"module": str(module), "rows": str(tmp_path / "rows.json")})
    if name == "emotions":  # the example-wise model really goes through eq. (19)
        assert fitted[1].model_.predictors.binary == "example-wise"
        assert fitted[2].model_.prediction == "decision-list"
    for est, result in zip(fitted, _run_isolated(tmp_path, jobs)):
        _check(est, test.X, result)


def _import(path):
    spec = importlib.util.spec_from_file_location("exported_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hand_model(prediction="label-wise", **kw) -> RuleModel:
    """A threshold that float32 rounding decides: float32(0.1) lies above 0.1 (float64)."""
    schema = Schema(("a", "b", "colour"), ("x", "y"), {2: ["red", "green", "blue"]})
    rules = [Rule((), [0, 1], [-0.5, 0.25]),
             Rule((Condition(0, "<=", 0.1),), [0], [1.0]),
             Rule((Condition(1, ">", 0.5), Condition(2, "!=", 1.0)), [1], [-2.0]),
             Rule((Condition(2, "==", 2.0),), [0, 1], [0.75, 0.5])]
    return RuleModel(rules, 3, 2, prediction, schema=schema, **kw)


def test_hand_model_float32_missing_values_and_sparse_rows(tmp_path):
    model = _hand_model()
    path = tmp_path / "m.py"
    path.write_text(python_source(model))
    module = _import(path)
    X = np.array([[0.1, 0.6, 0.0], [0.09999999, 0.6, 1.0], [np.nan, np.nan, np.nan], [0.0, 0.7, 2.0]])
    expected = model.scores(X.astype(np.float32))
    # the engine reads 0.1 as float32(0.1) > 0.1: rule 1 does not cover the first row (float64 would)
    assert expected[0, 0] == -0.5 and expected[1, 0] == 0.5
    for use_numpy in (True, False):
        module._np = np if use_numpy else None
        rows = X.tolist()
        rows[2] = [None, float("nan"), None]
        assert module.decision_function(rows) == expected.tolist()
        assert module.predict(rows) == (expected > 0).astype(int).tolist()
        assert module.decision_function([{0: 0.0, 1: 0.7, 2: 2.0}]) == [expected[3].tolist()]
    with pytest.raises(ValueError, match="2 attributes; the model was trained on 3"):
        module.predict([[1.0, 2.0]])


def test_decision_list_takes_the_first_covering_rule(tmp_path):
    model = _hand_model("decision-list")
    module = _import(_write(tmp_path, model))
    X = np.array([[0.0, 0.0, 2.0], [1.0, 0.9, 0.0]], dtype=np.float32)
    for use_numpy in (True, False):
        module._np = np if use_numpy else None
        assert module.decision_function(X.tolist()) == model.scores(X).tolist()


def _write(tmp_path, model):
    path = tmp_path / "m.py"
    path.write_text(python_source(model))
    return path


def test_text_form_reads_as_if_then():
    text = model_text(_hand_model())
    assert "1. ALWAYS x -0.5, y +0.25" in text
    assert "2. IF a <= 0.1 THEN x +1" in text
    assert "3. IF b > 0.5 AND colour ≠ green THEN y -2" in text
    assert "4. IF colour = blue THEN x +0.75, y +0.5" in text
    dl = model_text(_hand_model("decision-list"))
    assert "OTHERWISE NOT x, y" in dl and "first rule" in dl


def test_export_command_writes_python_and_text(shared_data, tmp_path, capsys):
    train, test = _split(shared_data / "emotions.arff")
    est = _fit(BoomerClassifier(max_rules=10, random_state=1), train)
    est.save(tmp_path / "model.json")
    out_py, out_txt = tmp_path / "model.py", tmp_path / "model.txt"
    assert main(["export", str(tmp_path / "model.json"), "--python", str(out_py), "--text", str(out_txt)]) == 0
    module = _import(out_py)
    np.testing.assert_array_equal(np.array(module.predict(_rows(test.X))), est.predict(test.X[:MAX_TEST_ROWS]))
    assert out_txt.read_text().count("\n") >= 10 + 3
    done = subprocess.run([sys.executable, "-I", "-S", str(out_py), "decision_function"], input=json.dumps(
        _rows(test.X)[:3]), capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == est.decision_function(test.X[:3]).tolist()


def test_export_command_errors_are_one_line(tmp_path, capsys):
    assert main(["export", str(tmp_path / "missing.json"), "--python", str(tmp_path / "m.py")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1 and "missing.json" in err
    assert main(["export", str(tmp_path / "missing.json")]) == 2
    assert "--python" in capsys.readouterr().err
    assert not (tmp_path / "m.py").exists()


PREDICTOR_SETTINGS = {
    "gfm": dict(binary_predictor="gfm", marginal_probability_calibration="isotonic",
                joint_probability_calibration="isotonic"),
    "joint": dict(binary_predictor="example-wise{based_on_probabilities=true}", probability_predictor="marginalized",
                  marginal_probability_calibration="isotonic", joint_probability_calibration="isotonic"),
    "marginal": dict(binary_predictor="output-wise{based_on_probabilities=true}",
                     marginal_probability_calibration="isotonic"),
    "squared-error": dict(loss="squared-error-non-decomposable"),
    "squared-hinge": dict(loss="squared-hinge-non-decomposable"),
    "squared-hinge-output-wise": dict(loss="squared-hinge-decomposable"),  # score > 0.5, as the engine
}


@pytest.mark.parametrize("setting", sorted(PREDICTOR_SETTINGS))
def test_predictors_and_calibration_in_plain_python(setting, shared_data, tmp_path):
    """mlrl-boomer's predictors based on probabilities, the calibrations and eq. (19) by the squared
    losses (whose distances NumPy sums pairwise), by the plain-Python path in this interpreter."""
    path = shared_data / "emotions.arff"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    train, test = _split(path)
    est = _fit(BoomerClassifier(max_rules=30, random_state=1, **PREDICTOR_SETTINGS[setting]), train)
    module = _import(_write(tmp_path, est))
    module._np = None
    rows = _rows(test.X)
    X = test.X[:MAX_TEST_ROWS]
    np.testing.assert_array_equal(np.array(module.predict(rows), dtype=np.uint8), est.predict(X))
    if setting.startswith("squared"):
        with pytest.raises(AttributeError):
            module.predict_proba(rows)
    else:
        np.testing.assert_allclose(np.array(module.predict_proba(rows)), est.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_label_vector_search_breaks_ties_as_the_engine(tmp_path):
    """Eq. (19) by the engine's search (a model without predictors): random, zero and tied scores."""
    rng = np.random.default_rng(5)
    K = 12
    Y = (rng.random((400, K)) < 0.3).astype(np.uint8)
    vectors = np.unique(Y, axis=0)[rng.permutation(len(np.unique(Y, axis=0)))]
    for loss in ("logistic-non-decomposable", "squared-error-non-decomposable", "squared-hinge-non-decomposable"):
        model = RuleModel([Rule((), list(range(K)), np.zeros(K))], 1, K, "example-wise", loss, vectors)
        module = _import(_write(tmp_path, model))
        F = np.concatenate([rng.normal(0, 2, (300, K)), np.zeros((3, K)), np.round(rng.normal(0, 1, (300, K)) * 2) / 2,
                            np.full((5, K), 0.5)])
        assert module.predict_from_scores(F.tolist()) == model.predict_from_scores(F).tolist()


def test_output_wise_predictions_use_the_losss_threshold(tmp_path):
    """Output-wise, a label is predicted above 0.5 under the squared hinge losses, above 0 otherwise (the
    reference's default prediction), in the engine and in the exported module; 0.5 itself is not above."""
    K = 3
    F = np.array([[0.5, 0.5000001, 0.25], [0.0, 1e-9, -0.3]])
    for loss, expected in (("squared-hinge-decomposable", [[0, 1, 0], [0, 0, 0]]),
                           ("squared-error-decomposable", [[1, 1, 1], [0, 1, 0]]),
                           ("logistic-decomposable", [[1, 1, 1], [0, 1, 0]])):
        model = RuleModel([Rule((), list(range(K)), np.zeros(K))], 1, K, "label-wise", loss, None)
        module = _import(_write(tmp_path, model))
        assert model.predict_from_scores(F).tolist() == expected, loss
        assert module.predict_from_scores(F.tolist()) == expected, loss


def test_only_rule_models_export():
    with pytest.raises(ValueError, match="object has no rule model to export"):
        python_source(object())
    with pytest.raises(ValueError, match="no rule model"):
        model_text(object())
