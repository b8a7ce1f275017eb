"""The label dependencies of the shown run (Qt-free): which labels its rules' heads hold together
against how often the labels occur together in the training data (``engine.api.label_dependencies``),
and the text of a cell and of the rules behind it."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from engine.api import LabelDependencies, label_dependencies
from engine.rules import Rule, Schema


@dataclass(frozen=True)
class RunDependencies:
    dependencies: LabelDependencies
    rules: tuple[Rule, ...]
    schema: Schema | None
    title: str


def shown_run_dependencies(app, strength: float = 0.5) -> RunDependencies:
    """The shown run's label dependencies on its training data; ValueError saying why when there is
    nothing to show."""
    estimator, data = app.estimator, app.data
    model = getattr(estimator, "model_", None)
    if model is None or app.run is None or not hasattr(model, "rules"):
        raise ValueError("no fitted rule model is shown: train or select a run of a rule learner first")
    if data is None or data.train is None:
        raise ValueError("no data are loaded")
    names = list(getattr(data.train, "label_names", None) or []) or None
    if names is not None and len(names) != model.n_labels:
        names = None
    deps = label_dependencies(model, data.train.Y, strength=strength, label_names=names)
    title = (f"{app.run.name}: {deps.n_rules} rules (default rules left out), "
             f"{deps.n_examples} training examples")
    schema = replace(model.schema or Schema(), label_names=deps.label_names)  # the heads in the data's names
    return RunDependencies(deps, tuple(model.rules), schema, title)


def cell_text(run: RunDependencies, i: int, j: int) -> str:
    """One line on cell (i, j): both matrices' counts and shares and the phi coefficient."""
    d = run.dependencies
    a, b = d.label_names[i], d.label_names[j]
    pair = a if i == j else f"{a} & {b}"
    phi = d.phi[i, j]
    phi_text = "n/a (a constant label)" if math.isnan(phi) else f"{phi:+.3f}"
    return (f"{pair}: {d.rule_counts[i, j]} of {d.n_rules} rules ({d.rule_share[i, j]:.1%}); "
            f"{d.data_counts[i, j]} of {d.n_examples} examples ({d.data_share[i, j]:.1%}); phi {phi_text}")


def cell_rules(run: RunDependencies, i: int, j: int) -> list[tuple[int, str]]:
    """(rule index, "#index  IF … THEN …") of the rules behind cell (i, j)."""
    return [(k, f"#{k}  {run.rules[k].to_text(run.schema)}") for k in run.dependencies.rules_behind(i, j)]
