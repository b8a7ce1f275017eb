"""Regression experiments: the file's task (inferred or stated), plain K-fold, regression measures by
name, one error for a file that mixes classification and regression (learners, measures, data), the
``boomer-regressor`` key (not available until the engine has BoomerRegressor, then found), a run of
two synthetic data sets x two tree settings and the mean predictor over 3 folds whose report's values
are scikit-learn's on the same folds and whose ranks and tests treat R² as higher-is-better, the
store's real values, and the CLI's ``experiment`` and ``evaluate`` commands."""
import csv
import json
import os
import zlib

import numpy as np
import pytest
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeRegressor

import engine.boomer
from engine import registry
from engine.cli import main
from engine.datasets import make_synthetic
from engine.evaluation.experiment.candidates import REGRESSOR_KEY, candidate, candidates
from engine.evaluation.experiment.file import ExperimentError, load_experiment, parse_experiment
from engine.evaluation.experiment.report import build_experiment_report, write_experiment_report
from engine.evaluation.experiment.run import plan, run_experiment
from engine.evaluation.experiment.scoring import REGRESSION_MEASURES, evaluate, measure
from engine.evaluation.store import ResultStore, pack_bits, pack_matrix, unpack_matrix
from test_experiment_file import write_svm

DATA = ["synthetic:linear-regression:examples=90,targets=3,seed=1",
        "synthetic:linear-regression:examples=75,targets=2,seed=2"]
TEXT = f"""name = "regression study"
data = {DATA!r}
measures = ["mse", "rmse", "mae", "median-ae", "r2", "r2-variance-weighted", "mape", "mae@t3", "model-size"]
[protocol]
folds = 3
seed = 5
[[learner]]
key = "decision-tree-regressor"
name = "deep tree"
params = {{ max_depth = 6 }}
[[learner]]
key = "decision-tree-regressor"
name = "stump"
params = {{ max_depth = 1 }}
[[learner]]
key = "mean-regressor"
"""


def quiet():
    return open(os.devnull, "w")


def fails(text, line, message):
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "e.toml")
    assert str(info.value).startswith(f"e.toml:{line}: ") and message in str(info.value), str(info.value)


def test_the_task_is_the_learners_and_its_defaults_are_regressions():
    exp = parse_experiment('data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "ridge-regressor"\n', "e.toml")
    assert exp.task == "regression" and exp.measures == REGRESSION_MEASURES
    assert exp.protocol.stratified is False and exp.protocol.tune_by == "mse" and exp.protocol.selection == "nested"
    stated = parse_experiment('task = "regression"\ndata = ["synthetic:linear-regression"]\n[[learner]]\n'
                              'key = "ridge-regressor"\n[protocol]\nstratified = false\n', "e.toml")
    assert stated.task == "regression" and stated.protocol.stratified is False
    classification = parse_experiment('data = ["synthetic:marginal-dependence"]\n[[learner]]\nkey = "cc-lr"\n', "e.toml")
    assert classification.task == "classification" and classification.protocol.stratified is True
    assert classification.protocol.tune_by == "hamming" and "hamming" in classification.measures


@pytest.mark.parametrize("key", sorted(k for k, c in candidates().items() if c.task == "regression"))
def test_every_regressor_is_accepted(key):
    exp = parse_experiment(f'data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "{key}"\n', "e.toml")
    assert exp.learners[0].key == key and exp.task == "regression"


@pytest.mark.parametrize("text, line, message", [
    ('data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "cc-lr"\n[[learner]]\nkey = "ridge-regressor"\n', 4,
     "learner 'ridge-regressor' (line 4) is a regressor and learner 'cc-lr' (line 2) a multi-label classifier: an "
     "experiment is either classification or regression; put them in two files"),
    ('data = ["a"]\n[[learner]]\nkey = "mean-regressor"\n[[learner]]\npreset = "Stumps"\n', 4,
     "learner 'mean-regressor' (line 2) is a regressor and learner 'Stumps' (line 4) a multi-label classifier"),
    ('task = "classification"\ndata = ["a"]\n[[learner]]\nkey = "ridge-regressor"\n', 3,
     "task = 'classification', but learner 'ridge-regressor' is a regressor"),
    ('task = "ordinal"\ndata = ["a"]\n[[learner]]\nkey = "ridge-regressor"\n', 1,
     "task must be one of classification, regression, got 'ordinal'"),
    ('data = ["a"]\nmeasures = ["mse",\n  "hamming"]\n[[learner]]\nkey = "ridge-regressor"\n', 3,
     "'hamming' is a classification measure, but this is a regression experiment; its measures: mse, rmse"),
    ('data = ["a"]\nmeasures = ["hamming", "r2"]\n[[learner]]\nkey = "cc-lr"\n', 2,
     "'r2' is a regression measure, but this is a classification experiment"),
    ('data = ["a"]\n[protocol]\ntune_by = "lrap"\n[[learner]]\nkey = "ridge-regressor"\n', 3,
     "'lrap' is a classification measure"),
    ('data = ["a"]\n[protocol]\nstratified = true\n[[learner]]\nkey = "ridge-regressor"\n', 3,
     "stratified = true: iterative stratification splits label sets; a regression experiment's folds are plain "
     "shuffled K-fold"),
    ('data = ["a"]\n[protocol]\nselection = "bbc-cv"\n[[learner]]\nkey = "ridge-regressor"\n', 3,
     "a regression experiment's grids are tuned by nested cross-validation"),
    ('data = ["synthetic:linear-regression",\n "synthetic:marginal-dependence"]\n[[learner]]\nkey = "ridge-regressor"\n',
     2, "data set 'synthetic:marginal-dependence' has 0/1 labels, but this is a regression experiment"),
    ('data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "cc-lr"\n', 1,
     "data set 'synthetic:linear-regression' has real targets, but this is a classification experiment"),
    ('data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "ridge-regressor"\nparams = { alpha = -1.0 }\n', 4,
     "alpha must be a number in [0, inf)"),
    ('data = ["synthetic:linear-regression"]\nmeasures = ["mse@t0"]\n[[learner]]\nkey = "ridge-regressor"\n', 2,
     "unknown measure 'mse@t0'"),
])
def test_each_mistake_is_one_error_naming_its_line(text, line, message):
    fails(text, line, message)


def test_boomer_regressor_is_not_available_until_the_engine_has_it(monkeypatch):
    monkeypatch.delattr(engine.boomer, "BoomerRegressor", raising=False)
    monkeypatch.delitem(registry._REGISTRY, REGRESSOR_KEY, raising=False)
    fails(f'data = ["synthetic:linear-regression"]\n[[learner]]\nname = "B"\nkey = "{REGRESSOR_KEY}"\n', 4,
          "learner 'boomer-regressor' is not available yet: this build of the engine has no BoomerRegressor")
    with pytest.raises(ValueError, match="not available yet"):
        candidate(REGRESSOR_KEY)
    # a classification learner beside it is still the mixed-file error, not an unknown key
    fails(f'data = ["a"]\n[[learner]]\nkey = "cc-lr"\n[[learner]]\nkey = "{REGRESSOR_KEY}"\n', 4,
          "is a regressor and learner 'cc-lr' (line 2) a multi-label classifier")


def test_boomer_regressor_is_found_in_engine_boomer_once_it_exists(monkeypatch):
    from sklearn.linear_model import Ridge  # any scikit-learn regressor class shows the lookup

    monkeypatch.setattr(engine.boomer, "BoomerRegressor", Ridge, raising=False)
    monkeypatch.delitem(registry._REGISTRY, REGRESSOR_KEY, raising=False)
    cand = candidate(REGRESSOR_KEY)
    assert cand.task == "regression" and not cand.scores and not cand.streams and "alpha" in cand.names()
    assert cand.make({"alpha": 2.5}).alpha == 2.5
    exp = parse_experiment(f'data = ["synthetic:linear-regression"]\n[[learner]]\nkey = "{REGRESSOR_KEY}"\n'
                           'grid = { alpha = [0.5, 2.0] }\n', "e.toml")
    assert exp.task == "regression" and exp.learners[0].configurations() == [{"alpha": 0.5}, {"alpha": 2.0}]


def test_per_target_measures_and_the_store_keeps_real_values():
    Y = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 2.0], [4.0, 6.0]])
    P = np.array([[2.0, 2.0], [2.0, 3.0], [1.0, 2.0], [4.0, 4.0]])
    assert evaluate("mae@t2", Y, P) == pytest.approx(0.75) and evaluate("r2@t1", Y, P) == pytest.approx(0.0)
    assert evaluate("mae@t3", Y, P) is None  # a data set with two targets: n/a
    assert measure("r2@t1").higher_is_better and not measure("mape@t2").higher_is_better
    assert measure("mse").task == "regression" and measure("hamming").task == "classification"
    assert measure("fit-time").task is None
    back = unpack_matrix(pack_matrix(P / 3.0))
    assert back.dtype == np.float64 and np.array_equal(back, P / 3.0)
    bits = (Y > 2).astype(np.uint8)
    assert pack_matrix(bits) == pack_bits(bits) and np.array_equal(unpack_matrix(pack_bits(bits)), bits)
    with pytest.raises(ValueError, match="not a packed value matrix"):  # 8 bytes for 9 values
        unpack_matrix(zlib.compress(json.dumps({"float64": [3, 3]}).encode() + b"\n" + b"\0" * 8))


def test_a_data_file_of_labels_is_refused_before_any_work(tmp_path):
    write_svm(tmp_path / "a.svm", n=30)
    path = tmp_path / "e.toml"
    path.write_text(f'data = ["{DATA[0]}", "a.svm"]\n[[learner]]\nkey = "ridge-regressor"\n')
    exp = load_experiment(path)
    with ResultStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(ValueError, match="data set 'a' has 0/1 labels \\(multi-label classification\\), but the "
                                             "experiment is a regression experiment"):
            plan(exp, store)
        assert store.datasets() == [] and store.experiment_keys() == set()


def expected_folds(spec: str, depth: int, seed: int = 5) -> tuple[list, list]:
    """MSE and R² per fold of scikit-learn's tree fitted on the experiment's folds (shuffled 3-fold)."""
    n, t, s = (int(part.split("=")[1]) for part in spec.split(":")[2].split(","))
    data = make_synthetic("linear-regression", n, t, s)
    mse, r2 = [], []
    for train, test in KFold(3, shuffle=True, random_state=seed).split(np.arange(n)):
        tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=5, random_state=seed)
        P = tree.fit(data.X[train], data.Y[train]).predict(data.X[test])
        mse.append(mean_squared_error(data.Y[test], P))
        r2.append(r2_score(data.Y[test], P))
    return mse, r2


def test_a_regression_experiment_runs_to_a_report_with_ranks(tmp_path):
    path = tmp_path / "e.toml"
    path.write_text(TEXT)
    exp = load_experiment(path)
    with ResultStore(tmp_path / "s.sqlite") as store:
        summary = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (summary.n_tasks, summary.n_done, summary.n_failed) == (2 * 3 * 3, 18, 0)
        rep = build_experiment_report(exp, store)
        written = write_experiment_report(rep, tmp_path / "report")
    names = [d.name for d in exp.datasets]
    for spec, name in zip(DATA, names):  # the report's fold values are scikit-learn's on the same folds
        for learner, depth in (("deep tree", 6), ("stump", 1)):
            mse, r2 = expected_folds(spec, depth)
            np.testing.assert_allclose(rep.cells[(name, learner)].folds["mse"], mse, rtol=1e-5)
            np.testing.assert_allclose(rep.cells[(name, learner)].folds["r2"], r2, rtol=1e-5, atol=1e-6)
    rows = list(csv.DictReader(open(tmp_path / "report" / "results.csv", encoding="utf-8")))
    rank = {(r["dataset"], r["learner"], r["measure"]): r["rank"] for r in rows}
    for name in names:  # the deep tree fits a linear function best, the mean worst: rank 1 by MSE and by R²
        assert [rank[(name, lr, "mse")] for lr in ("deep tree", "stump", "mean-regressor")] == ["1.0", "2.0", "3.0"]
        assert [rank[(name, lr, "r2")] for lr in ("deep tree", "stump", "mean-regressor")] == ["1.0", "2.0", "3.0"]
        assert rep.cells[(name, "deep tree")].mean("r2") > rep.cells[(name, "mean-regressor")].mean("r2")
    text = (tmp_path / "report" / "results.md").read_text(encoding="utf-8")
    assert "### R² (uniform over targets) (`r2`, higher is better)" in text
    assert "### Mean squared error (`mse`, lower is better)" in text
    assert "Average ranks over 2 data sets: deep tree 1.00, stump 2.00, mean-regressor 3.00." in text
    assert "Friedman χ²_F = 4.00" in text and "Nemenyi CD = 2.343" in text
    assert "- mean-regressor: model-size, mae@t3" in text and "- deep tree: mae@t3" in text  # 2 targets: no t3
    assert "| linear-regression:examples=75,targets=2,seed=2 | n/a | n/a | n/a |" in text
    assert tmp_path / "report" / "cd_r2.png" in written and tmp_path / "report" / "cd_mse.png" in written


def test_the_commands_run_a_regression_file(tmp_path, capsys):
    path = tmp_path / "e.toml"
    path.write_text(TEXT.replace('params = { max_depth = 6 }', 'params = { max_depth = 6 }\ngrid = '
                                                               '{ min_samples_leaf = [2, 8] }'))
    store, report = tmp_path / "s.sqlite", tmp_path / "report"
    assert main(["experiment", str(path), "--store", str(store), "--report", str(report), "--workers", "1",
                 "--save-predictions"]) == 0
    assert "Mean absolute percentage error" in (report / "results.md").read_text(encoding="utf-8")
    header = (report / "saved" / "predictions_linear-regression_examples_75_targets_2_seed_2_stump.csv").read_text(
        encoding="utf-8").splitlines()[:2]
    assert header[0] == "fold,configuration,rules,row,target_0,target_1" and "." in header[1].split(",")[-1]
    capsys.readouterr()
    again = tmp_path / "again"  # `evaluate` takes the regression file too: the experimenter's report
    assert main(["evaluate", "--profile", str(path), "--store", str(store), "--report", str(again),
                 "--report-only"]) == 0
    assert (again / "results.md").read_text(encoding="utf-8") == (report / "results.md").read_text(encoding="utf-8")
    assert "is a regression experiment" in capsys.readouterr().err
    assert main(["evaluate", "--profile", str(path), "--methods", "br", "--store", str(store)]) == 2
    assert "--methods chooses among Table 1's methods" in capsys.readouterr().err


def test_a_streaming_regressors_curve_is_its_test_mse_and_mae():
    from types import SimpleNamespace

    from engine.evaluation.experiment.tasks import _stream

    class Steps:  # what a streaming learner's fit_iter yields: steps with rules and metrics
        def fit_iter(self, X, Y, X_test, Y_test):
            for i, (mse, mae) in enumerate(((9.0, 2.5), (4.0, 1.5))):
                yield SimpleNamespace(index=i, rules=[object()] * (i + 1), metrics={
                    "test_mse": mse, "test_mae": mae, "test_hamming": 0.5, "test_subset": 0.9})

    curve: list = []
    _stream(Steps(), None, None, None, None, curve, regression=True)
    assert curve == [[1, 9.0, 2.5], [3, 4.0, 1.5]]
    curve = []
    _stream(Steps(), None, None, None, None, curve, regression=False)
    assert curve == [[1, 0.5, 0.9], [3, 0.5, 0.9]]


BOOMER_TEXT = f"""name = "BOOMER regression study"
data = {DATA!r}
measures = ["mse", "mae", "r2", "model-size"]
[protocol]
folds = 3
seed = 5
[[learner]]
key = "boomer-regressor"
name = "BOOMER eta 0.3"
params = {{ max_rules = 15 }}
[[learner]]
key = "boomer-regressor"
name = "BOOMER eta 0.1"
params = {{ max_rules = 15, shrinkage = 0.1 }}
"""


def test_boomer_regressor_with_two_settings_runs_to_a_report_with_its_own_folds_values(tmp_path):
    """Done-when of issue 58: two data sets, BOOMER's regressor with two settings, 3 folds, a report with the
    regression measures; each fold's MSE is that of BoomerRegressor fitted directly on the same fold (the
    protocol's seed is the learner's random_state)."""
    from engine.boomer import BoomerRegressor

    path = tmp_path / "e.toml"
    path.write_text(BOOMER_TEXT)
    exp = load_experiment(path)
    with ResultStore(tmp_path / "s.sqlite") as store:
        summary = run_experiment(exp, store, n_workers=1, stream=quiet())
        assert (summary.n_tasks, summary.n_done, summary.n_failed) == (2 * 3 * 2, 12, 0)
        rep = build_experiment_report(exp, store)
        write_experiment_report(rep, tmp_path / "report")
    for spec, dataset in zip(DATA, exp.datasets):
        n, t, s = (int(part.split("=")[1]) for part in spec.split(":")[2].split(","))
        data = make_synthetic("linear-regression", n, t, s)
        X, Y = data.X, data.Y.astype(np.float32)
        for name, eta in (("BOOMER eta 0.3", 0.3), ("BOOMER eta 0.1", 0.1)):
            mse = []
            for train, test in KFold(3, shuffle=True, random_state=5).split(np.arange(n)):
                est = BoomerRegressor(max_rules=15, shrinkage=eta, random_state=5).fit(X[train], Y[train])
                mse.append(mean_squared_error(Y[test], est.predict(X[test])))
            np.testing.assert_allclose(rep.cells[(dataset.name, name)].folds["mse"], mse, rtol=1e-5)
    text = (tmp_path / "report" / "results.md").read_text(encoding="utf-8")
    assert "### Mean squared error (`mse`, lower is better)" in text and "BOOMER eta 0.1" in text
