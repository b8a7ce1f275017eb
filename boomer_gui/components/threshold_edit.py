"""Editing a condition's threshold in the rule inspector, without Qt: the shown run's editor
(``engine.api.ThresholdEditor`` on its training and test data), the selected condition, the text of an
edit's coverage, head and losses, and the what-if run an edit becomes (a copy of the estimator whose
model has the edited rule; the original run is untouched)."""
from __future__ import annotations

import copy

import numpy as np

from engine.api import Histogram, ThresholdEdit, ThresholdEditor, head_parameters
from engine.rules import Schema

MEASURE_NAMES = {"hamming": "Hamming", "subset": "subset 0/1"}


class ThresholdSession:
    """The shown run's threshold editing: one condition selected at a time, edits against the
    original model."""

    def __init__(self):
        self.estimator = None
        self.train = self.test = None
        self.run_name = ""
        self.schema = Schema()
        self._editor: ThresholdEditor | None = None
        self.rule: int | None = None
        self.condition: int | None = None
        self.histogram: Histogram | None = None
        self.last: ThresholdEdit | None = None

    def set_context(self, estimator, train, test, run_name: str = "", schema: Schema | None = None) -> None:
        """A finished run (None: nothing can be edited); the editor is built on first use."""
        self.estimator, self.train, self.test, self.run_name = estimator, train, test, run_name
        self.schema = schema or Schema()
        self._editor = None
        self.deselect()

    def deselect(self) -> None:
        self.rule = self.condition = self.histogram = self.last = None

    @property
    def model(self):
        return getattr(self.estimator, "model_", None)

    def why_not(self, rule: int) -> str | None:
        """Why rule ``rule`` cannot be edited (None: it can)."""
        model = self.model
        if model is None or not hasattr(model, "rules") or self.train is None:
            return "thresholds can be edited in a finished rule model: train a run or let it finish"
        if not 0 <= rule < len(model.rules):
            return f"rule {rule} is not in the finished model"
        if not model.rules[rule].conditions:
            return "the default rule has no conditions"
        return None

    @property
    def can_reoptimise(self) -> bool:
        return head_parameters(self.estimator) is not None

    def editor(self) -> ThresholdEditor:
        if self._editor is None:
            test = self.test if self.test is not None and self.test.n_examples else None
            self._editor = ThresholdEditor(self.model, self.train.X, self.train.Y, None if test is None else test.X,
                                           None if test is None else test.Y, head_parameters(self.estimator))
        return self._editor

    def select(self, rule: int, condition: int, bins: int = 40) -> Histogram:
        """Condition ``condition`` of rule ``rule``: its histogram; ValueError naming why not."""
        reason = self.why_not(rule)
        if reason is not None:
            raise ValueError(reason)
        self.histogram = self.editor().histogram(rule, condition, bins)
        self.rule, self.condition, self.last = rule, condition, None
        return self.histogram

    def edit(self, threshold: float, reoptimise: bool = False) -> ThresholdEdit:
        if self.rule is None:
            raise ValueError("select a condition first")
        self.last = self.editor().edit(self.rule, self.condition, threshold, reoptimise and self.can_reoptimise)
        return self.last

    @property
    def original_threshold(self) -> float:
        return self.histogram.threshold

    def whatif(self, edit: ThresholdEdit) -> tuple[object, str]:
        """(estimator, run name) of the what-if run of ``edit``."""
        est = copy.deepcopy(self.estimator)
        est.model_ = self.editor().edited_model(edit)
        return est, whatif_name(self.run_name, edit, self.schema)


def whatif_name(run_name: str, edit: ThresholdEdit, schema: Schema | None = None) -> str:
    condition = edit.rule.conditions[edit.condition_index].to_text(schema)
    head = ", head re-optimised" if edit.reoptimised else ""
    return f"{run_name} · rule {edit.rule_index}: {condition}{head}"


def coverage_text(edit: ThresholdEdit, original: ThresholdEdit | None, n_train: int) -> str:
    was = "" if original is None else f" (was {original.n_covered['train']})"
    text = f"covers {edit.n_covered['train']} of {n_train} training examples{was}"
    if "test" in edit.n_covered:
        text += f", {edit.n_covered['test']} test examples"
        if original is not None:
            text += f" (was {original.n_covered['test']})"
    return text


def losses_text(edit: ThresholdEdit, original_losses: dict) -> str:
    """One line per data part: each measure, original → edited."""
    lines = []
    for part in ("train", "test"):
        if part not in edit.losses:
            continue
        values = ", ".join(f"{MEASURE_NAMES[m]} {original_losses[part][m]:.4f} → {edit.losses[part][m]:.4f}"
                           for m in MEASURE_NAMES)
        lines.append(f"{'training' if part == 'train' else 'test'}: {values}")
    return "\n".join(lines)


def head_text(edit: ThresholdEdit, schema: Schema | None = None, max_labels: int = 6) -> str:
    schema = schema or Schema()
    pairs = [f"{schema.label(int(k))} {s:+.3f}" for k, s in zip(edit.rule.head_labels, edit.rule.head_scores)]
    more = f" … ({len(pairs) - max_labels} more)" if len(pairs) > max_labels else ""
    changed = not np.array_equal(edit.rule.head_scores, edit.original_rule.head_scores)
    return ("head (re-optimised): " if changed else "head: ") + ", ".join(pairs[:max_labels]) + more
