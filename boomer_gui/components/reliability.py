"""The reliability diagram of the shown run (Qt-free): its marginal probabilities on the test set
against the labels (``engine.reliability``), with a description of where they come from."""
from __future__ import annotations

from dataclasses import dataclass

from engine.reliability import Reliability, estimator_reliability


@dataclass(frozen=True)
class RunReliability:
    curve: Reliability
    title: str  # the run and the examples the forecasts are of
    detail: str  # the probability predictor and its calibration, when the learner says


def shown_run_reliability(app, n_bins: int = 10) -> RunReliability:
    """The shown run's reliability on the test data (the training data without a test set).
    ValueError saying why when there is nothing to show."""
    estimator, data = app.estimator, app.data
    if estimator is None or app.run is None or getattr(estimator, "model_", None) is None:
        raise ValueError("no fitted run is shown: train or select a run first")
    if data is None:
        raise ValueError("no data are loaded")
    examples = data.test if data.test is not None and data.test.n_examples else data.train
    which = "test" if examples is data.test else "training"
    curve = estimator_reliability(estimator, examples.X, examples.Y, n_bins)
    params = estimator.get_params() if hasattr(estimator, "get_params") else {}
    parts = [f"{key}={params[key]}" for key in ("loss", "probability_predictor", "marginal_probability_calibration",
                                                 "joint_probability_calibration") if key in params]
    title = f"{app.run.name}: {curve.n_forecasts} {which} forecasts (example x label)"
    return RunReliability(curve, title, ", ".join(parts))
