"""The experiment file parser: every learner of the registry (and its presets) and the XGBoost
baselines are accepted; each mistake is one error naming the file's line."""
from pathlib import Path

import numpy as np
import pytest

from engine import registry
from engine.evaluation.experiment.candidates import candidates
from engine.evaluation.experiment.file import ExperimentError, load_experiment, parse_experiment


def write_svm(path, n=60, k=3, d=4, seed=0):
    """A small multi-label svmlight file whose labels depend on the attributes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :k] + 0.5 * rng.normal(size=(n, k)) > 0).astype(int)
    Y[0] = 1  # every label occurs
    lines = [",".join(str(j) for j in np.flatnonzero(y)) + " " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x))
             for x, y in zip(X, Y)]
    path.write_text("\n".join(lines) + "\n")
    return path


GOOD = """name = "study"
data = ["a.svm"]
measures = ["hamming", "example-f1",
            "rank-loss"]
[protocol]
kind = "cross-validation"
folds = 3
stratified = true
seed = 7
[[learner]]
key = "boomer"
name = "BOOMER l.w."
params = { max_rules = 5 }
grid = { shrinkage = [0.1, 0.3] }
[[learner]]
preset = "Stumps"
[[learner]]
key = "xgboost-br"
params = { n_estimators = 3 }
"""


@pytest.fixture
def folder(tmp_path):
    write_svm(tmp_path / "a.svm")
    return tmp_path


def parse(folder, text):
    path = folder / "e.toml"
    path.write_text(text)
    return load_experiment(path)


def test_a_good_file(folder):
    exp = parse(folder, GOOD)
    assert exp.name == "study" and [s.name for s in exp.datasets] == ["a"]
    assert exp.measures == ("hamming", "example-f1", "rank-loss")
    assert (exp.protocol.folds, exp.protocol.seed, exp.protocol.stratified) == (3, 7, True)
    boomer, stumps, br = exp.learners
    assert [c["shrinkage"] for c in boomer.configurations()] == [0.1, 0.3]
    assert boomer.params == {"max_rules": 5, "random_state": 7}  # the protocol's seed, unless set
    assert stumps.key == "adaboost-mh" and stumps.params["weak_learner"] == "stump" and stumps.name == "Stumps"
    assert br.configurations() == [{"n_estimators": 3, "random_state": 7}]


@pytest.mark.parametrize("key", sorted(k for k, c in candidates().items() if c.task == "classification"))
def test_every_learner_and_baseline_is_accepted(folder, key):  # regressors: tests/test_experiment_regression.py
    text = GOOD.split("[[learner]]")[0] + f'[[learner]]\nkey = "{key}"\n'
    assert parse(folder, text).learners[0].key == key


def test_every_preset_is_accepted(folder):
    for spec in registry.learners():
        for preset in spec.presets:
            head = GOOD.split("[[learner]]")[0] if spec.task == "classification" else \
                'data = ["synthetic:linear-regression"]\n'  # a regressor's preset: a regression experiment
            text = head + f'[[learner]]\nkey = "{spec.key}"\npreset = "{preset}"\n'
            entry = parse(folder, text).learners[0]
            assert entry.preset == preset and all(entry.params[k] == v for k, v in spec.presets[preset].items())


@pytest.mark.parametrize("change, line, message", [
    (("seed = 7", "seed = 7\ncolour = 1"), 10, "unknown key 'colour' in [protocol]"),
    (('name = "study"', 'name = "study"\nfolds = 3'), 2, "unknown key 'folds' in the experiment"),
    (('name = "BOOMER l.w."', 'name = "BOOMER l.w."\nheads = 1'), 13, "unknown key 'heads' in [[learner]]"),
    (('key = "boomer"', 'key = "boomr"'), 11, "unknown learner 'boomr'"),
    (('"rank-loss"', '"rank-los"'), 4, "unknown measure 'rank-los'"),
    (('preset = "Stumps"', 'preset = "Stump"'), 16, "preset 'Stump' is unknown"),
    (("max_rules = 5", "max_rule = 5"), 13, "unknown parameter 'max_rule' of boomer"),
    (("shrinkage = [0.1, 0.3]", "shrinkage = [0.1, 3.0]"), 14, "shrinkage must be a number in (0, 1]"),
    (("shrinkage = [0.1, 0.3]", "l2 = [1.0]"), 14, "unknown parameter 'l2' of boomer"),
    (("folds = 3", "folds = 1"), 7, "folds must be in [2, 100]"),
    (('data = ["a.svm"]', 'data = ["a.svm", "missing.arff"]'), 2, "data set 'missing.arff'"),
    (('key = "xgboost-br"', 'key = "xgboost-br"\nname = "Stumps"'), 19, "two learners are named 'Stumps'"),
    (('folds = 3', 'folds = "3"'), 7, "folds must be an integer"),
])
def test_each_mistake_is_one_error_naming_its_line(folder, change, line, message):
    text = GOOD.replace(*change)
    assert text != GOOD
    with pytest.raises(ExperimentError) as info:
        parse(folder, text)
    assert f"e.toml:{line}: " in str(info.value) and message in str(info.value), str(info.value)


def test_toml_syntax_errors_and_missing_parts(folder):
    with pytest.raises(ExperimentError, match="not a TOML file.*line 1"):
        parse(folder, "name = \n")
    with pytest.raises(ExperimentError, match="at least one"):
        parse(folder, 'data = ["a.svm"]\n')
    with pytest.raises(ExperimentError, match="NAME-test"):
        parse(folder, GOOD.replace('kind = "cross-validation"', 'kind = "train-test"'))
    assert parse(folder, GOOD.replace('kind = "cross-validation"', 'kind = "train-test"\ntest_size = 0.3')) \
        .protocol.test_size == 0.3


def test_subtables_and_dotted_keys_are_located(folder):
    text = GOOD.replace('params = { max_rules = 5 }', '[learner.params]\nmax_rulez = 5')
    text = text.replace("grid = { shrinkage = [0.1, 0.3] }\n", "")
    with pytest.raises(ExperimentError, match=r"e.toml:15: unknown parameter 'max_rulez'"):
        parse(folder, text.replace('name = "BOOMER l.w."\n', 'name = "BOOMER l.w."\ngrid.shrinkage = [0.1]\n'))


def test_parse_text_without_a_file_resolves_bundled_names_only():
    with pytest.raises(ExperimentError, match="<experiment>:1: data set 'nowhere.arff'"):
        parse_experiment('data = ["nowhere.arff"]\n[[learner]]\nkey = "boomer"\n')


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).resolve().parents[1] / "engine" / "evaluation"
                                                        / "experiments").glob("*.toml")))
def test_every_shipped_experiment_file_loads(name):
    """The files the README points to parse and name only learners and presets that exist (two_datasets.toml
    named SeCo's preset 'Hamming accuracy' after it was renamed 'Hamming accuracy (the paper)')."""
    from engine.evaluation.experiment.file import load_experiment

    folder = Path(__file__).resolve().parents[1] / "engine" / "evaluation" / "experiments"
    exp = load_experiment(folder / name, resolve_data=False, max_tasks=None)
    assert exp.learners
