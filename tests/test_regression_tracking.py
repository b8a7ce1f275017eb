"""Incremental MSE and MAE of a growing model (engine/regression_tracking.py) and trajectories that hold a
regressor's measure pair (engine/trajectory.py): series named train_mse ..., files and sessions that say so."""
from __future__ import annotations

import json

import numpy as np
import pytest

from engine.regression_tracking import RegressionErrors
from engine.trajectory import MEASURE_PAIRS, Trajectory, load_trajectories, measures_of, save_trajectories


def test_running_errors_equal_the_errors_recomputed_from_scratch():
    rng = np.random.default_rng(3)
    Y = rng.normal(scale=10.0, size=(50, 3))
    errors = RegressionErrors(Y)
    assert errors.mse == pytest.approx(np.mean(Y ** 2)) and errors.mae == pytest.approx(np.mean(np.abs(Y)))
    F = np.zeros_like(Y)
    for _ in range(30):
        rows = np.flatnonzero(rng.random(50) < 0.4)
        labels = np.sort(rng.choice(3, size=rng.integers(1, 4), replace=False))
        scores = rng.normal(size=len(labels))
        errors.add_head(rows, len(rows), labels, scores)
        F[np.ix_(rows, labels)] += scores
        assert errors.mse == pytest.approx(np.mean((F - Y) ** 2), rel=1e-12)
        assert errors.mae == pytest.approx(np.mean(np.abs(F - Y)), rel=1e-12)
    np.testing.assert_array_equal(errors.F, F)
    errors.add_head(np.zeros(0, dtype=np.int64), 0, np.arange(3), np.ones(3))  # no row covered: nothing changes
    assert errors.mse == pytest.approx(np.mean((F - Y) ** 2), rel=1e-12)


def test_hand_computed_errors_of_one_rule():
    errors = RegressionErrors(np.array([[1.0, -2.0], [3.0, 0.0]]))
    errors.add_head(np.array([0, 1]), 1, np.array([0]), np.array([2.0]))  # only row 0, target 0: 1 -> error -1
    # errors: (1, 2, 3, 0) -> squared 1, 4, 9, 0; absolute 1, 2, 3, 0
    assert errors.mse == pytest.approx(14 / 4) and errors.mae == pytest.approx(6 / 4)


class _Step:
    def __init__(self, index, **extra):
        self.index, self.coverage, self.improvement = index, 10, 0.5
        self.train_hamming = self.train_subset = self.test_hamming = self.test_subset = float("nan")
        self.extra = extra


def test_a_regression_trajectory_names_its_measures_in_files(tmp_path):
    t = Trajectory("reg", {"k": 1}, measures=MEASURE_PAIRS["regression"])
    t.extend([_Step(0, train_mse=4.0, train_mae=2.0, test_mse=5.0, test_mae=2.5),
              _Step(1, train_mse=3.0, train_mae=1.5)])
    assert t.losses == ("train_mse", "train_mae", "test_mse", "test_mae") and len(t) == 2
    assert t.series["train_mse"] == [4.0, 3.0] and np.isnan(t.series["test_mse"][1])
    assert "train_hamming" not in t.series and t.has_test()
    for suffix in ("json", "csv"):
        path = tmp_path / f"t.{suffix}"
        c = Trajectory("cls", {})
        c.extend([_Step(0)])
        save_trajectories([t, c], path)
        back = load_trajectories(path)
        assert [b.measures for b in back] == [("mse", "mae"), ("hamming", "subset")]
        assert back[0].series["train_mae"] == [2.0, 1.5]
    assert list(json.loads((tmp_path / "t.json").read_text())[0]["columns"]) == \
        ["rules", "train_mse", "train_mae", "test_mse", "test_mae"]


def test_series_of_both_pairs_or_unknown_names_are_refused():
    assert measures_of({"coverage", "train_mse"}) == ("mse", "mae")
    assert measures_of({"coverage"}) == ("hamming", "subset")  # an old file: a classifier's
    with pytest.raises(ValueError, match="mixes the series"):
        measures_of({"train_mse", "test_hamming"}, "run 'x'")
    with pytest.raises(ValueError, match="unknown series 'train_rmse'"):
        measures_of({"train_rmse"}, "run 'x'")
    with pytest.raises(ValueError, match="unknown measures"):
        Trajectory(measures=("mse", "subset"))


@pytest.mark.parametrize("post_optimization", ["none", "sequential{num_iterations=2}"])
def test_a_regressors_steps_report_the_mse_and_mae_of_its_model(post_optimization):
    from engine.boomer import BoomerRegressor
    from engine.datasets import make_synthetic
    from engine.regression_metrics import averaged

    train, test = make_synthetic("linear-regression", 300, 3, 0), make_synthetic("linear-regression", 200, 3, 1)
    Y, Y_test = train.Y.astype(np.float32), test.Y.astype(np.float32)  # the targets the regressor learns from
    est = BoomerRegressor(max_rules=10, post_optimization=post_optimization)
    steps = list(est.fit_iter(train.X, Y, X_test=test.X, Y_test=Y_test))
    revisions = [s for s in steps if getattr(s, "kind", "") == "revision"]
    assert len(revisions) == (0 if post_optimization == "none" else 18)  # 9 learned rules, revised twice
    for split, X, T in (("train", train.X, Y), ("test", test.X, Y_test)):
        P = est.predict(X)  # the final model: after the last step, revisions included
        assert steps[-1].extra[f"{split}_mse"] == pytest.approx(averaged("mse", T, P), rel=1e-12)
        assert steps[-1].extra[f"{split}_mae"] == pytest.approx(averaged("mae", T, P), rel=1e-12)
        if post_optimization == "none":  # each rule's: the model of that many rules
            for step, P_k in zip(steps, est.predict_incrementally(X)):
                assert step.extra[f"{split}_mse"] == pytest.approx(averaged("mse", T, P_k), rel=1e-12)
