"""Two runs of the Runs table compared rule by rule (Tools > Compare two runs), without Qt: which runs
can be compared (rule models trained on the loaded data) and their :class:`ModelDiff` on the test data
(the training data without a test set), as Markdown for the view and as a Markdown or CSV report."""
from __future__ import annotations

from dataclasses import dataclass

from engine.api import ModelDiff, csv_report, diff_models, markdown_report, write_report


@dataclass(frozen=True)
class RunComparison:
    diff: ModelDiff
    name_a: str
    name_b: str
    examples: str  # "test" or "training": the data the predictions are compared on

    def markdown(self) -> str:
        return markdown_report(self.diff, self.name_a, self.name_b)

    def csv(self) -> str:
        return csv_report(self.diff)

    def save(self, path) -> None:
        """Markdown, or CSV for a ``.csv`` path."""
        write_report(self.diff, path, self.name_a, self.name_b)


def _rule_model(run):
    model = getattr(run.estimator, "model_", None)
    return model if model is not None and hasattr(model, "rules") else None


def comparable_runs(app) -> list:
    """The runs with a rule model trained on the loaded data, in the table's order."""
    if app.data is None:
        return []
    return [r for r in app.history.runs if _rule_model(r) is not None and r.data_key == app.data.key]


def compare_runs(app, run_a, run_b, tolerance: float = 0.01) -> RunComparison:
    """The diff of two runs' models on the loaded data; ValueError naming what is wrong."""
    if app.data is None:
        raise ValueError("no data are loaded")
    if run_a is run_b:
        raise ValueError("pick two different runs")
    for run in (run_a, run_b):
        if _rule_model(run) is None:
            raise ValueError(f"run {run.name!r} has no rule model to compare")
        if run.data_key != app.data.key:
            raise ValueError(f"run {run.name!r} was trained on other data than the loaded data")
    test = app.data.test
    data, which = (test, "test") if test is not None and test.n_examples else (app.data.train, "training")
    diff = diff_models(_rule_model(run_a), _rule_model(run_b), data.X, data.Y, tolerance=tolerance)
    return RunComparison(diff, run_a.name, run_b.name, which)
