"""mlrl-boomer's parameter values with options: ``'equal-width{bin_ratio=0.5,max_bins=64}'``.

A parameter such as ``feature_binning`` takes a value name and, in braces, optional settings of
that value (the syntax, names and defaults of mlrl-boomer 0.15, so its users' settings work
unchanged).  :func:`parse_option` checks a value against its declaration and returns the name and
every option with defaults filled in; errors name the parameter, the option and what is allowed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class OptionSpec:
    """One setting of a parameter value: ``kind`` is 'int', 'float', 'bool' or 'choice'."""

    kind: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    low_open: bool = False
    choices: tuple = ()
    high_open: bool = False

    def convert(self, where: str, text: str):
        if self.kind == "bool":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{where} must be 'true' or 'false', got {text!r}")
            return text.lower() == "true"
        if self.kind == "choice":
            if text not in self.choices:
                raise ValueError(f"{where} must be one of {', '.join(self.choices)}, got {text!r}")
            return text
        try:
            value = int(text) if self.kind == "int" else float(text)
        except ValueError:
            raise ValueError(f"{where} must be {'an integer' if self.kind == 'int' else 'a number'}, "
                             f"got {text!r}") from None
        return self.check(where, value)

    def check(self, where: str, value):
        low_ok = self.minimum is None or (value > self.minimum if self.low_open else value >= self.minimum)
        high_ok = self.maximum is None or (value < self.maximum if self.high_open else value <= self.maximum)
        if not (low_ok and high_ok) or value != value:
            low = "-inf" if self.minimum is None else f"{self.minimum:g}"
            high = "inf" if self.maximum is None else f"{self.maximum:g}"
            raise ValueError(f"{where} must be in {'(' if self.low_open else '['}{low}, {high}"
                             f"{')' if self.high_open else ']'}, got {value:g}")
        return value


def _bins(ratio: float, min_bins: int) -> dict[str, OptionSpec]:
    """``bin_ratio`` of the distinct values (labels) become bins, clamped to [min_bins, max_bins]
    (max_bins 0: no upper limit)."""
    return {"bin_ratio": OptionSpec("float", ratio, 0.0, 1.0, low_open=True),
            "min_bins": OptionSpec("int", min_bins, 1 if min_bins == 1 else 2),
            "max_bins": OptionSpec("int", 0, 0)}


_HOLDOUT = {"holdout_set_size": OptionSpec("float", 0.33, 0.0, 1.0, low_open=True, high_open=True)}


def _sample(default: float, low_open: bool = True, high_open: bool = False) -> dict[str, OptionSpec]:
    """``sample_size`` (a fraction of the examples or attributes, ceil-rounded), bounded below by
    ``min_samples`` and above by ``max_samples`` (0: no upper bound), as mlrl-boomer 0.15.6 has them."""
    return {"sample_size": OptionSpec("float", default, 0.0, 1.0, low_open=low_open, high_open=high_open),
            "min_samples": OptionSpec("int", 1, 1), "max_samples": OptionSpec("int", 0, 0)}


def _induction(extra: dict[str, OptionSpec]) -> dict[str, OptionSpec]:
    """The options of a rule induction value: mlrl-boomer 0.15.6's names and defaults."""
    return {**extra, "min_coverage": OptionSpec("int", 1, 1),
            "min_support": OptionSpec("float", 0.0, 0.0, 1.0, high_open=True),
            "max_conditions": OptionSpec("int", 0, 0), "max_head_refinements": OptionSpec("int", 1, 0),
            "recalculate_predictions": OptionSpec("bool", True)}


_PREDICTOR_OPTIONS = {"based_on_probabilities": OptionSpec("bool", False),
                      "use_probability_calibration": OptionSpec("bool", True)}

# parameter -> value name -> option name -> spec.  Values without options take no braces.  Names,
# options and defaults are mlrl-boomer 0.15.6's; 'auto' is resolved by the learner (engine.boomer).
OPTIONS: dict[str, dict[str, dict[str, OptionSpec]]] = {
    # per rule: ceil(sample_size x N) examples drawn with replacement (weights count the draws), a
    # subset of that size, or a subset stratified by labels (engine.holdout's two stratifications)
    "instance_sampling": {"none": {}, "with-replacement": _sample(0.66), "without-replacement": _sample(0.66),
                          "stratified-output-wise": _sample(0.66), "stratified-example-wise": _sample(0.66)},
    # per refinement step: sample_size 0 means floor(log2(D - 1) + 1) attributes (Alg. 3), else a
    # fraction of D in [0, 1); num_retained: the last attributes always in the sample
    "feature_sampling": {"none": {}, "without-replacement": {**_sample(0.0, low_open=False, high_open=True),
                                                             "num_retained": OptionSpec("int", 0, 0)}},
    # per rule: the outputs its head may predict (engine.sampling): a sample of ceil(sample_size x K)
    # (max_samples 1 by default: one output), or one output after the other (round-robin)
    "output_sampling": {"none": {}, "without-replacement": {**_sample(0.33, high_open=True),
                                                            "max_samples": OptionSpec("int", 1, 0)},
                        "round-robin": {}},
    # 'equal-width'/'equal-frequency': mlrl-boomer's bins and thresholds (engine.core.binning); the
    # '-midpoint' values ours: bins of the distinct values, thresholds between adjacent covered values
    "feature_binning": {"auto": {}, "none": {}, "equal-width": _bins(0.33, 2), "equal-frequency": _bins(0.33, 2),
                        "equal-width-midpoint": _bins(0.33, 2), "equal-frequency-midpoint": _bins(0.33, 2)},
    "label_binning": {"auto": {}, "none": {}, "equal-width": _bins(0.04, 1)},
    "head_type": {
        "auto": {}, "single": {}, "complete": {},
        "partial-fixed": {"output_ratio": OptionSpec("float", 0.0, 0.0, 1.0, high_open=True),
                          "min_outputs": OptionSpec("int", 2, 2), "max_outputs": OptionSpec("int", 0, 0)},
        "partial-dynamic": {"threshold": OptionSpec("float", 0.02, 0.0, 1.0, low_open=True, high_open=True),
                            "exponent": OptionSpec("float", 2.0, 1.0)},
    },
    "holdout": {"auto": {}, "none": {}, "random": _HOLDOUT, "stratified-output-wise": _HOLDOUT,
                "stratified-example-wise": _HOLDOUT},
    "global_pruning": {
        "none": {},
        "pre-pruning": {"min_rules": OptionSpec("int", 100, 1), "update_interval": OptionSpec("int", 1, 1),
                        "stop_interval": OptionSpec("int", 1, 1), "num_past": OptionSpec("int", 50, 1),
                        "num_recent": OptionSpec("int", 50, 1),
                        "aggregation": OptionSpec("choice", "avg", choices=("min", "max", "avg")),
                        "min_improvement": OptionSpec("float", 0.005, 0.0, 1.0),
                        "use_holdout_set": OptionSpec("bool", True),
                        "remove_unused_rules": OptionSpec("bool", True)},
        "post-pruning": {"interval": OptionSpec("int", 1, 1), "min_rules": OptionSpec("int", 100, 1),
                         "use_holdout_set": OptionSpec("bool", True),
                         "remove_unused_rules": OptionSpec("bool", True)},
    },
    # prediction (engine.predictors): how scores become binary predictions and probabilities, and
    # the isotonic calibration of marginal (per label) and joint (per label vector) probabilities
    # fitted after training on the holdout set (use_holdout_set) or else on the training set
    "binary_predictor": {"auto": {}, "output-wise": _PREDICTOR_OPTIONS, "example-wise": _PREDICTOR_OPTIONS,
                         "gfm": {"use_probability_calibration": OptionSpec("bool", True)}},
    "probability_predictor": {"auto": {}, "output-wise": {"use_probability_calibration": OptionSpec("bool", True)},
                              "marginalized": {"use_probability_calibration": OptionSpec("bool", True)}},
    "marginal_probability_calibration": {"none": {}, "isotonic": {"use_holdout_set": OptionSpec("bool", True)}},
    "joint_probability_calibration": {"none": {}, "isotonic": {"use_holdout_set": OptionSpec("bool", True)}},
    # the search of one rule (engine.core.induction): max_conditions 0 is no limit (beam search: 0 or at
    # least 2); min_support a fraction of the training examples a condition must cover (besides
    # min_coverage); after max_head_refinements conditions (0: never) the head's labels are fixed;
    # recalculate_predictions: with examples out of the sample, the head from every covered training
    # example (Alg. 1 line 7), else from the sample; beam search keeps beam_width rules per step and
    # draws one attribute sample per step or (resample_features) one per rule of the beam
    "rule_induction": {"top-down-greedy": _induction({}),
                       "top-down-beam-search": _induction({"beam_width": OptionSpec("int", 4, 2),
                                                           "resample_features": OptionSpec("bool", False)})},
    # pruning of each rule on the examples out of its instance sample (incremental reduced error pruning)
    "rule_pruning": {"none": {}, "irep": {}},
    # after training, each rule in turn relearned in the context of the others, num_iterations times
    # (engine.boomer.post_optimization): refine_heads lets the relearned head choose its outputs again (else it
    # keeps the rule's), resample_features samples attributes as in training (else the rule's own)
    "post_optimization": {"none": {}, "sequential": {"num_iterations": OptionSpec("int", 2, 1, 2**32 - 1),
                                                     "refine_heads": OptionSpec("bool", False),
                                                     "resample_features": OptionSpec("bool", True)}},
    # threads (no effect on the model; unset = mlrl-boomer's automatic choice, whose name 'auto' it
    # refuses as a value): refinement 'false' keeps every refinement step on one thread; 'true' lets
    # engine.core.refinement thread a step whose work is large enough, on at most num_preferred_threads
    # threads (0: every core).  Ours updates statistics and predicts vectorised on one thread whatever
    # the other two say.
    "parallel_rule_refinement": {"false": {}, "true": {"num_preferred_threads": OptionSpec("int", 0, 0)}},
    "parallel_statistic_update": {"false": {}, "true": {"num_preferred_threads": OptionSpec("int", 0, 0)}},
    "parallel_prediction": {"false": {}, "true": {"num_preferred_threads": OptionSpec("int", 0, 0)}},
}

_SYNTAX = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*(?:\{(.*)\})?\s*$", re.DOTALL)


def value_names(parameter: str) -> tuple[str, ...]:
    return tuple(OPTIONS[parameter])


def parse_option(parameter: str, value) -> tuple[str, dict[str, Any]]:
    """``'name{key=value,...}'`` -> (name, options with defaults).  ValueError on anything else.
    ``parameter`` may name a learner's own table, ``'learner:parameter'`` (errors name the parameter)."""
    values = OPTIONS[parameter]
    parameter = parameter.rpartition(":")[2]
    if not isinstance(value, str):
        raise ValueError(f"{parameter} must be a string such as {next(iter(values))!r}, got {value!r}")
    match = _SYNTAX.match(value)
    if match is None:
        raise ValueError(f"{parameter}={value!r} is not of the form 'name' or 'name{{key=value,...}}'")
    name, body = match.group(1), match.group(2)
    if name not in values:
        raise ValueError(f"{parameter} must be one of {', '.join(values)}, got {name!r}")
    specs = values[name]
    options = {key: spec.default for key, spec in specs.items()}
    if body is not None and body.strip():
        for item in body.split(","):
            key, sep, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if not sep or not key or not text:
                raise ValueError(f"{parameter}={value!r}: option {item.strip()!r} is not of the form key=value")
            if key not in specs:
                known = ", ".join(sorted(specs)) if specs else f"none ({name!r} takes no options)"
                raise ValueError(f"{parameter}={value!r}: unknown option {key!r}; known: {known}")
            options[key] = specs[key].convert(f"{parameter} option {key}", text)
    return name, options


def format_option(name: str, options: Mapping[str, Any] | None = None) -> str:
    """The inverse of :func:`parse_option` (options given explicitly only)."""
    if not options:
        return name
    text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    return f"{name}{{{text}}}"


def option_help(parameter: str) -> str:
    """The values of ``parameter`` that take options, written with their defaults (for help texts)."""
    with_options = [format_option(name, {k: spec.default for k, spec in specs.items()})
                    for name, specs in OPTIONS[parameter].items() if specs]
    return ("; options, e.g. " + ", ".join(with_options)) if with_options else ""
