"""The one series type: engine.trajectory.Trajectory, used by Figure 1 and by the application's runs."""
import math

import numpy as np
import pytest

from boomer_gui.components.state import Run
from engine.learner import RuleRecord
from engine.rules import Rule
from engine.trajectory import Trajectory, load_trajectories, save_trajectories


def _records(with_test=True):
    rule = Rule((), np.array([0, 1]), np.array([0.5, -0.5]))  # the default rule
    losses = [(0.4, 0.9, 0.5, 1.0), (0.3, 0.8, 0.35, 0.85), (0.2, 0.6, 0.3, 0.7)]
    return [RuleRecord(i, rule, 10 - i, 0.1 * i, th, ts, vh if with_test else None, vs if with_test else None)
            for i, (th, ts, vh, vs) in enumerate(losses)]


def test_series_columns_and_final_losses():
    t = Trajectory("run")
    t.extend(_records())
    assert len(t) == 3
    np.testing.assert_allclose(t.column("test_subset"), [1.0, 0.85, 0.7])
    np.testing.assert_allclose(t.column("rules"), [0, 1, 2])
    assert t.series["coverage"] == [10, 9, 8]
    assert t.final_losses() == {"train_hamming": 0.2, "train_subset": 0.6, "test_hamming": 0.3, "test_subset": 0.7}
    first = t.column("train_hamming")
    t.append(_records()[0])  # the cached arrays follow appends
    assert len(t.column("train_hamming")) == 4 and len(first) == 3


def test_without_test_data_only_training_losses():
    t = Trajectory()
    t.extend(_records(with_test=False))
    assert not t.has_test() and math.isnan(t.series["test_hamming"][0])
    assert set(t.final_losses()) == {"train_hamming", "train_subset"}


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_files_round_trip(tmp_path, suffix):
    t = Trajectory("a run", {"loss": "logistic-decomposable"})
    t.extend(_records())
    path = tmp_path / f"t{suffix}"
    save_trajectories([t, t], path)
    back = load_trajectories(path)
    assert len(back) == 2 and back[0].name == "a run" and back[0].settings == {"loss": "logistic-decomposable"}
    for k in ("rules", "train_hamming", "train_subset", "test_hamming", "test_subset"):
        np.testing.assert_allclose(back[1].column(k), t.column(k))


def test_from_series_rejects_ragged_columns():
    with pytest.raises(ValueError, match="different lengths"):
        Trajectory.from_series({"train_hamming": [0.1, 0.2], "train_subset": [0.5]})


def test_a_run_keeps_its_series_in_its_trajectory():
    run = Run("1: run", "#000000")
    run.append(_records())
    assert run.series is run.trajectory.series
    assert run.array("test_hamming") is run.trajectory.column("test_hamming")
    assert run.final_losses() == run.trajectory.final_losses()
    again = Run.from_dict(run.to_dict())
    assert again.series == run.series
