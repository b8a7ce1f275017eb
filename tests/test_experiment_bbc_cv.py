"""BBC-CV as the experimenter's selection (``selection = "bbc-cv"``, ``prefix_step``): prefix
predictions against refitted models, the report's values against BBC-CV computed by hand on the
pooled out-of-fold predictions, and the checks that refuse what BBC-CV cannot do."""
from dataclasses import replace

import numpy as np
import pytest

from engine import BoomerClassifier
from engine.evaluation.stats.bbc_cv import bbc_cv
from engine.evaluation.experiment.file import load_experiment
from engine.evaluation.experiment.report import build_experiment_report, write_experiment_report
from engine.evaluation.experiment.run import check_runnable, plan
from engine.evaluation.experiment.tasks import fit_predict, run_experiment_task
from engine.evaluation.store import ResultStore
from engine.registry import get

from test_evaluation import write_svmlight

PRESET = "Label-wise, single-label heads"


def experiment_file(tmp_path, protocol="", learner="", learners=None):
    data = write_svmlight(tmp_path / "d.svm")
    boomer = (f'[[learner]]\nkey = "boomer"\npreset = "{PRESET}"\nname = "lw"\nparams = {{ max_rules = 20 }}\n'
              f'grid = {{ l2_regularization_weight = [0.5, 8.0] }}\nprefix_step = 5\ntune_by = "hamming"\n{learner}')
    text = (f'name = "bbc"\ndata = ["{data}"]\nmeasures = ["hamming", "subset-zero-one", "example-f1", "fit-time", '
            f'"model-size", "rank-loss"]\n[protocol]\nkind = "cross-validation"\nfolds = 2\nstratified = false\n'
            f'seed = 1\nselection = "bbc-cv"\nbootstraps = 30\n{protocol}\n' + (learners or boomer))
    path = tmp_path / "e.toml"
    path.write_text(text)
    return path


def test_prefix_predictions_equal_refitted_models(tmp_path):
    from engine.evaluation.data import folds, load_spec, resolve

    spec = resolve(str(write_svmlight(tmp_path / "d.svm")))
    X, Y = load_spec(spec.name, spec.files)
    train, test = folds(len(Y), 3)[0]
    config = {**get("boomer").presets[PRESET], "max_rules": 22, "random_state": 1}
    P, _, costs = fit_predict("boomer", config, X[train], Y[train], X[test], prefix_step=5)
    assert costs["prefixes"] == [5, 10, 15, 20] and P.shape == (4, len(test), Y.shape[1])
    for i, T in enumerate(costs["prefixes"]):
        refit = BoomerClassifier(**{**config, "max_rules": T}).fit(X[train], Y[train])
        assert np.array_equal(refit.predict(X[test]), P[i])


def test_the_report_is_bbc_cv_of_the_pooled_out_of_fold_predictions(tmp_path):
    exp = load_experiment(experiment_file(tmp_path))
    with ResultStore(tmp_path / "s.sqlite") as store:
        tasks, todo = plan(exp, store)
        assert len(tasks) == 4 and all(t["inner_folds"] == 0 and t["prefix_step"] == 5 for t in tasks)
        for t in todo:
            store.put_result(run_experiment_task(t))
        rep = build_experiment_report(exp, store)
        Y = store.dataset_labels(exp.datasets[0].name)
        results = store.results(t["key"] for t in tasks)
    # by hand: configuration (λ, T) in grid order then prefix order, each fold's rows filled in
    P = np.zeros((2 * 4, *Y.shape), dtype=np.uint8)
    for t in tasks:
        r = results[t["key"]]
        P[t["configuration"] * 4:(t["configuration"] + 1) * 4, r.test_rows] = r.predictions
    expected = bbc_cv(Y, P, "hamming", n_bootstraps=30, seed=1)
    cell = rep.cells[(exp.datasets[0].name, "lw")]
    assert cell.mean("hamming") * 100 == pytest.approx(expected.mean["hamming"], abs=1e-9)
    assert cell.mean("subset-zero-one") * 100 == pytest.approx(expected.mean["subset_01"], abs=1e-9)
    assert [(c["l2_regularization_weight"], c["rules"]) for c in cell.selected] == [
        ((0.5, 8.0)[c // 4], (5, 10, 15, 20)[c % 4]) for c in expected.selected]
    assert not cell.applies("rank-loss") and cell.applies("fit-time")
    top = np.bincount(expected.selected).argmax()  # the most selected: its costs per fold
    assert all(v <= (5, 10, 15, 20)[top % 4] for v in cell.folds["model-size"])  # a prefix's size is at most its T
    written = write_experiment_report(rep, tmp_path / "report")
    assert "30 bootstraps" in (tmp_path / "report" / "results.md").read_text() and written


def test_what_bbc_cv_cannot_do_is_refused_before_any_work(tmp_path):
    exp = load_experiment(experiment_file(tmp_path))
    check_runnable(exp)
    lw = exp.learners[0]
    cases = [
        (replace(exp, protocol=replace(exp.protocol, kind="train-test", test_size=0.3)), 'needs kind = "cross-valid'),
        (replace(exp, learners=[replace(lw, tune_by="micro-f1")]), "decomposes over examples .* not 'micro-f1'"),
        (replace(exp, protocol=replace(exp.protocol, selection="nested")), 'prefix_step needs selection = "bbc-cv"'),
        (replace(exp, learners=[replace(lw, params={k: v for k, v in lw.params.items() if k != "max_rules"})]),
         "prefix_step needs max_rules in params"),
        (replace(exp, learners=[replace(lw, key="label-ranking", params={}, grid={})]),
         "prefix_step needs max_rules in params"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            check_runnable(bad)
