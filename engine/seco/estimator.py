"""Separate-and-conquer multi-label rules: mlrl-seco 0.15.6's ``SeCoClassifier`` (its parameters, values,
options and defaults), and the search of Rapp, Loza Mencía & Fürnkranz, PAKDD 2018, as the value
``search='pakdd-2018{...}'`` of a parameter of our own.

**mlrl-seco's algorithm** (``search='mlrl-seco'``, the default; kernels in :mod:`engine.core.seco_search`).
Every label has a majority value over the training examples (relevant if present in more than half of
them); the default rule predicts it, and every other rule predicts, for each label of its head, the
minority value.  A pair (example, label) stays *uncovered* until a rule predicts its label for the
example; only uncovered pairs are counted.  Rules are learned one after another while the number of
uncovered minority pairs, decreased by one for every pair a rule covers (the reference's coverage
stopping criterion, threshold 0), stays positive, fewer than ``max_rules`` rules (the default rule
included; 0: no limit) exist and ``time_limit`` seconds (0: none) have not passed.  Per rule:

- the examples are sampled (``instance_sampling``; weights, 0 = out of the sample), and the labels
  (``output_sampling``: none, one label per rule in turn, or a subset);
- the body grows top down (``rule_induction='top-down-greedy{...}'``): each step adds the condition
  (attributes sampled by ``feature_sampling``; thresholds between adjacent values or bins of
  ``feature_binning``) whose head has the best ``heuristic`` value, kept only if strictly better than the
  rule so far (the first must be above 0); a condition covers at least ``min_coverage`` (or
  ``min_support`` x N) and fewer than all covered examples; ties go to the earlier candidate; the body
  stops at ``max_conditions`` (0: none) or once it covers at most ``min_coverage`` examples; after
  ``max_head_refinements`` conditions (0: never) the head's labels are fixed;
- heads (``head_type``): ``single``, the label of the best heuristic value; ``partial``, the labels
  sorted by value, the prefix of n labels maximising the mean value times the ``lift_function``'s
  lift(n) (``none``: 1; ``peak``: ``max_lift`` at ``peak_label`` labels, 0 = the rounded label
  cardinality; ``kln``: 1 + k ln n), the scan bounded as the reference bounds it; a fixed head's value
  is its labels' mean value times lift(size);
- or a beam search (``rule_induction='top-down-beam-search{beam_width=4,...}'``), mlrl-seco's: each
  attribute keeps up to ``beam_width`` refinements as the reference's fixed-size comparator does (one
  enters only if better than the list's worst: while the list is not full, than the first accepted one),
  merged best first with ties to the later attribute; the empty body's best refinements start the beam;
  at each depth an entry's refinements must beat the previous beam's last entry, fill the new beam, then
  replace its last entry (the beam sorted, stably, after each replacement); an entry without refinements
  stays and is not refined again; the rule is the beam's first entry; after a condition on an attribute
  the reference may take the attribute's rest for equal values (:func:`found_equal` in the loop) and
  search it no more in that rule (greedy search too);
- with ``rule_pruning='irep'`` and examples out of the sample, the body is pruned to the prefix of its
  conditions with the best ``pruning_heuristic`` value on those examples (the same value with fewer
  conditions is better);
- the rule's head labels become covered for every training example its body covers (a count per pair).

``post_optimization='sequential{num_iterations=2,refine_heads=false,resample_features=true}'`` then
relearns each rule in order, ``num_iterations`` times: its pairs are taken back (pairs another rule
covers stay covered), a new instance sample is drawn and the rule relearned on its head's labels
(``refine_heads``: the output sample's), on all sampled attributes (else the rule's own, in the order of
the reference's ``std::unordered_set``), replacing it in place (kept, its pairs uncovered, if none is
found); each revision streams as a :class:`~engine.learner.RuleRevision` step.

Heuristics (float32 as in the reference; ``accuracy`` is (covered correct + uncovered pairs of the
predicted value) / all, as mlrl-seco 0.15.6 computes it, which for a head predicting the minority
value is that value's share of the uncovered pairs whatever the body): accuracy, precision, recall, laplace, weighted-relative-accuracy,
``f-measure{beta=0.25}`` (inf: recall, 0: precision), ``m-estimate{m=22.466}`` (inf: WRA, 0: precision).
The model is a decision list (``'decision-list'`` strategy: a label is set by the first rule covering
the example whose head has it, else by the default rule, last).

**PAKDD 2018** (``search='pakdd-2018{heuristic=...,head_search=...,beta=...,label_coverage_threshold=...,
max_uncovered=...}'``): heuristics ``subset-accuracy`` (example-based, anti-monotone), ``f-measure``,
``hamming-accuracy``, ``precision``, ``recall`` on micro-averaged confusion matrices of the countable
pairs (pairs of examples still in the training set whose label no earlier rule has set); a head
predicts, per label, the better value; heads are searched by pruning with anti-monotonicity
(``head_search='pruned'``) or exhaustively.  Examples leave the training set once the fraction
``label_coverage_threshold`` of their labels is set; learning stops when at most ``max_uncovered`` (a
fraction) remain.  ``max_rules``, ``time_limit`` and ``rule_induction``'s ``max_conditions`` and
``min_coverage`` apply; the other mlrl-seco parameters do not.  Counting, for the heuristics: TP
covered with y = v, FP covered with y != v, FN uncovered with y = v, TN uncovered with y != v (v the
head's value of the label).  ``RuleRecord.extra`` has ``heuristic``, ``head_evaluations``,
``head_size``, ``new_pairs`` and ``remaining`` (examples left in the training set).
"""
from __future__ import annotations

import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterator, Mapping

import numba
import numpy as np
import scipy.sparse as sp

from ..binary_attributes import as_equalities
from ..core.binning import METHOD_CODES, bin_keys
from ..core.features import build_feature_index
from ..core.gnu_sort import gnu_order
from ..core.refinement import apply_condition
from ..core.seco_refine import (ATTR, BEST_Q, BEST_THR, COUNT, END, HAVE, INVERSE, N_BEST_I, N_TOP_I, OP,
                               PARALLEL_MIN_WORK, SEQ, START, TOP_K, WINDOWS, mlrl_apply, mlrl_refine)
from ..core.seco_search import (H_FMEASURE, H_HAMMING, H_PRECISION, H_RECALL, H_SUBSET, HEAD_PARTIAL_ALL,
                               HEAD_PARTIAL_SEARCH, HEAD_SINGLE_MODE, MH_ACCURACY, MH_F_MEASURE, MH_LAPLACE,
                               MH_M_ESTIMATE, MH_PRECISION, MH_RECALL, MH_WRA, TOL, _EPS32, best_conditions,
                               best_conditions_decomposable, covered_counts, head_search,
                               label_bitsets, mask_bitset, mlrl_apply_range, mlrl_best_conditions)
from ..holdout import split_holdout
from ..learner import RuleLearner, RuleRecord, RuleRevision, TrainingData
from ..model import RuleModel, rule_coverage
from ..options import OPTIONS, OptionSpec, option_help, parse_option
from ..parameters import FROM_INIT, Parameter
from ..rules import OPERATORS, Condition, Rule
from ..tracking import ErrorTotals
from ..validation import check_choice

# -- the paper's search (PAKDD 2018) --------------------------------------------------------------
HEURISTICS = ("subset-accuracy", "f-measure", "hamming-accuracy", "precision", "recall")
HEURISTIC_CODES = {"precision": H_PRECISION, "hamming-accuracy": H_HAMMING, "recall": H_RECALL,
                   "f-measure": H_FMEASURE, "subset-accuracy": H_SUBSET}
HEAD_SEARCH = ("pruned", "exhaustive")
MAX_EXHAUSTIVE_LABELS = 24
_MAX_CONDITIONS_CAP = 256

# -- mlrl-seco 0.15.6's parameter values and options (engine.options syntax, tables 'seco:<name>') --
MLRL_HEURISTICS = {"accuracy": MH_ACCURACY, "precision": MH_PRECISION, "recall": MH_RECALL, "laplace": MH_LAPLACE,
                   "weighted-relative-accuracy": MH_WRA, "f-measure": MH_F_MEASURE, "m-estimate": MH_M_ESTIMATE}


def _heuristic_table() -> dict:
    table = {name: {} for name in MLRL_HEURISTICS}
    table["f-measure"] = {"beta": OptionSpec("float", 0.25, 0.0)}
    table["m-estimate"] = {"m": OptionSpec("float", 22.466, 0.0)}
    return table


def _sample(default: float, low_open=True, high_open=False, max_samples=0) -> dict:
    return {"sample_size": OptionSpec("float", default, 0.0, 1.0, low_open=low_open, high_open=high_open),
            "min_samples": OptionSpec("int", 1, 1), "max_samples": OptionSpec("int", max_samples, 0)}


_INDUCTION = {"min_coverage": OptionSpec("int", 1, 1),
              "min_support": OptionSpec("float", 0.0, 0.0, 1.0, high_open=True),
              "max_conditions": OptionSpec("int", 0, 0),
              "max_head_refinements": OptionSpec("int", 1, 0),
              "recalculate_predictions": OptionSpec("bool", False)}
_THREADS = {"false": {}, "true": {"num_preferred_threads": OptionSpec("int", 0, 0)}}
_PAKDD = {"heuristic": OptionSpec("choice", "subset-accuracy", choices=HEURISTICS),
          "head_search": OptionSpec("choice", "pruned", choices=HEAD_SEARCH),
          "beta": OptionSpec("float", 1.0, 0.0, low_open=True),
          "label_coverage_threshold": OptionSpec("float", 1.0, 0.0, 1.0, low_open=True),
          "max_uncovered": OptionSpec("float", 0.0, 0.0, 1.0, high_open=True)}
SECO_OPTIONS = {
    "heuristic": _heuristic_table(),
    "pruning_heuristic": _heuristic_table(),
    "lift_function": {"none": {},
                      "peak": {"peak_label": OptionSpec("int", 2, 0), "max_lift": OptionSpec("float", 1.08, 1.0),
                               "curvature": OptionSpec("float", 1.0, 0.0, low_open=True)},
                      "kln": {"k": OptionSpec("float", 0.2, 0.0, low_open=True)}},
    "head_type": {"single": {}, "partial": {}},
    "rule_induction": {"top-down-greedy": dict(_INDUCTION),
                       "top-down-beam-search": {**_INDUCTION, "beam_width": OptionSpec("int", 4, 2),
                                                "resample_features": OptionSpec("bool", False)}},
    "output_sampling": {"none": {}, "round-robin": {},
                        "without-replacement": _sample(0.33, high_open=True, max_samples=1)},
    "instance_sampling": OPTIONS["instance_sampling"],
    "feature_sampling": OPTIONS["feature_sampling"],
    "holdout": {k: v for k, v in OPTIONS["holdout"].items() if k != "auto"},
    "feature_binning": {k: v for k, v in OPTIONS["feature_binning"].items() if k != "auto"},
    "rule_pruning": {"none": {}, "irep": {}},
    "post_optimization": {"none": {}, "sequential": {"num_iterations": OptionSpec("int", 2, 1),
                                                     "refine_heads": OptionSpec("bool", False),
                                                     "resample_features": OptionSpec("bool", True)}},
    "parallel_rule_refinement": _THREADS,
    "parallel_statistic_update": _THREADS,
    "parallel_prediction": _THREADS,
    # our own: the search of the PAKDD 2018 paper, or mlrl-seco's
    "search": {"mlrl-seco": {}, "pakdd-2018": _PAKDD},
}
for _name, _table in SECO_OPTIONS.items():
    OPTIONS["seco:" + _name] = _table
FORMATS = (None, "auto", "dense", "sparse")
SEARCHES = tuple(SECO_OPTIONS["search"])
# the parameters of the PAKDD 2018 search before they became options of search='pakdd-2018{...}'
_OLD_PARAMETERS = ("heuristic", "beta", "head_search", "max_rules", "max_conditions", "min_coverage",
                   "label_coverage_threshold", "max_uncovered")


def _option(name: str, label: str, help_text: str, shown: bool = True, applies=None) -> Parameter:
    key = "seco:" + name
    return Parameter(name, "option", FROM_INIT, label, help_text + option_help(key), choices=tuple(OPTIONS[key]),
                     shown=shown, options_key=key, applies=applies)


def _mlrl(params: Mapping) -> bool:
    return not str(params.get("search", "mlrl-seco")).startswith("pakdd-2018")


def _partial(params: Mapping) -> bool:
    return _mlrl(params) and params.get("head_type") == "partial"


@dataclass(frozen=True)
class Head:
    """Result of a head search: labels (ascending), their values (1 present, 0 absent), the
    heuristic value, the covered countable pairs of the head's labels and the evaluations made."""

    labels: np.ndarray
    values: np.ndarray
    value: float
    pairs: int
    evaluations: int


def find_head(Y, covered, *, heuristic="subset-accuracy", beta=1.0, exhaustive=False, predicted=None,
              active=None) -> Head:
    """The PAKDD 2018 head search: the best head for a body covering the rows ``covered`` (boolean
    mask) of the 0/1 label matrix ``Y``; ``predicted`` marks pairs an earlier rule set, ``active`` the
    examples still in the training set (default: none set, all active)."""
    check_choice("heuristic", heuristic, HEURISTICS)
    Y = np.asarray(Y, dtype=np.uint8)
    n, K = Y.shape
    covered = np.asarray(covered, dtype=bool)
    if covered.shape != (n,):
        raise ValueError(f"covered must be a mask of length {n}")
    predicted = np.zeros((n, K), bool) if predicted is None else np.asarray(predicted, bool)
    active = np.ones(n, bool) if active is None else np.asarray(active, bool)
    C1, C0, G1, G0, U1, U0 = _countable(Y, predicted, active)
    cov = (covered & active).astype(np.uint8)
    T1 = np.empty(K, np.int64)
    T0 = np.empty(K, np.int64)
    n_S = covered_counts(cov, C1, C0, T1, T0)
    bits = mask_bitset(cov, G1.shape[1])
    labels = np.empty(K, np.int64)
    values = np.empty(K, np.int64)
    value, size, pairs, evals = head_search(HEURISTIC_CODES[heuristic], float(beta) ** 2, bool(exhaustive), T1, T0,
                                            U1, U0, max(n_S, 1), G1, G0, bits, bits, 0, labels, values)
    return Head(labels[:size].copy(), values[:size].copy(), float(value), int(pairs), int(evals))


def _countable(Y, predicted, active):
    n, K = Y.shape
    free = (~predicted) & active[:, None]
    C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
    C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
    W = max(1, (n + 63) // 64)
    return (C1, C0, label_bitsets(C1, W), label_bitsets(C0, W), C1.sum(axis=0).astype(np.int64),
            C0.sum(axis=0).astype(np.int64))


def lift_tables(lift_function: str, K: int, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lift[n], max_lift[n]) for n = 0 .. K as float32, as mlrl-seco's lift functions give them:
    ``none`` 1 and 1; ``peak`` lift(n) = max_lift at n = peak, else 1 + norm(n)^(1/curvature) x
    (max_lift - 1) with norm (n - 1)/(peak - 1) below the peak and (n - K)/(K - peak) above it, and the
    bound max_lift below the peak, else that formula with the exponent ``curvature`` (the reference's
    table passes the curvature where the lift uses its inverse); ``kln`` 1 + k ln n and 1 + k ln K."""
    name, opts = parse_option("seco:lift_function", lift_function)
    lift = np.ones(K + 1, dtype=np.float32)
    bound = np.ones(K + 1, dtype=np.float32)
    if name == "kln":
        k = np.float32(opts["k"])
        for n in range(1, K + 1):
            lift[n] = np.float32(1.0) + k * np.log(np.float32(n))
        bound[:] = np.float32(1.0) + k * np.log(np.float32(K))
        return lift, bound
    if name == "none":
        return lift, bound
    peak = int(opts["peak_label"])
    if peak > 0:
        peak = min(K, peak)
    else:
        peak = max(int(np.round(float(np.asarray(Y, dtype=np.float64).sum()) / max(1, Y.shape[0]))), 1)
    max_lift = np.float32(opts["max_lift"])
    curvature = np.float32(opts["curvature"])

    def peak_lift(n, exponent):
        if n == peak:
            return max_lift
        if n < peak:
            norm = (np.float32(n) - np.float32(1)) / (np.float32(peak) - np.float32(1))
        else:
            norm = (np.float32(n) - np.float32(K)) / (np.float32(K) - np.float32(peak))
        with np.errstate(invalid="ignore"):
            powered = np.float32(math.pow(norm, exponent)) if norm >= 0 or float(exponent).is_integer() \
                else np.float32(np.nan)
        return np.float32(np.float32(1.0) + powered * (max_lift - np.float32(1.0)))

    exponent = np.float32(1.0) / curvature
    for n in range(1, K + 1):
        lift[n] = peak_lift(n, exponent)
        bound[n] = max_lift if n < peak else peak_lift(n, curvature)
    return lift, bound


class SeCoClassifier(RuleLearner):
    """Separate-and-conquer multi-label rules, a decision list: mlrl-seco 0.15.6's ``SeCoClassifier``
    (every parameter, value, option and default; see the module doc), or the PAKDD 2018 paper's search
    (``search='pakdd-2018{...}'``, a parameter of ours).  ``random_state`` None is mlrl-seco's 1."""

    LEARNER_NAME = "seco"

    PARAMETERS = (
        _option("heuristic", "Heuristic", "rule quality of a head's confusion matrices", applies=_mlrl),
        _option("pruning_heuristic", "Pruning heuristic", "quality on the examples out of the sample when "
                "rule_pruning='irep' prunes a rule", applies=_mlrl),
        _option("head_type", "Head", "one label (single) or the labels a lift function favours (partial)",
                applies=_mlrl),
        _option("lift_function", "Lift function", "partial heads: bonus for heads of n labels", applies=_partial),
        _option("rule_induction", "Rule induction", "top-down search of a rule: greedy (the best condition at "
                "each step) or a beam of the beam_width best rules"),
        Parameter("max_rules", "int", FROM_INIT, "Rules", "rules including the default rule; 0: no limit",
                  minimum=0, maximum=2**31 - 1),
        Parameter("time_limit", "int", FROM_INIT, "Time limit (s)", "seconds after which no further rule is "
                  "started (0: no limit)", minimum=0, maximum=2**31 - 1, shown=False),
        _option("instance_sampling", "Instance sampling", "examples each rule is learned on", applies=_mlrl),
        _option("feature_sampling", "Feature sampling", "attributes per refinement step", applies=_mlrl),
        _option("output_sampling", "Output sampling", "labels a rule may predict: all, one in turn, a subset",
                applies=_mlrl),
        _option("holdout", "Holdout set", "training examples set aside (not learned from)", applies=_mlrl),
        _option("feature_binning", "Feature binning", "split only between bins of each attribute's values",
                applies=_mlrl),
        _option("rule_pruning", "Rule pruning", "IREP: prune each rule's body on the examples out of the "
                "sample", applies=_mlrl),
        _option("post_optimization", "Post-optimization", "sequential: relearn each rule num_iterations times "
                "against the pairs no other rule covers, in its place in the list", applies=_mlrl),
        _option("parallel_rule_refinement", "Parallel refinement", "threads (no effect on the model)", shown=False),
        _option("parallel_statistic_update", "Parallel update", "threads (no effect on the model)", shown=False),
        _option("parallel_prediction", "Parallel prediction", "threads (no effect on the model)", shown=False),
        Parameter("feature_format", "choice", FROM_INIT, "Feature format", "mlrl-seco's input format (no effect "
                  "on the model)", choices=FORMATS, shown=False),
        Parameter("output_format", "choice", FROM_INIT, "Output format", "mlrl-seco's label format (no effect "
                  "on the model)", choices=FORMATS, shown=False),
        Parameter("prediction_format", "choice", FROM_INIT, "Prediction format", "mlrl-seco's prediction "
                  "format (no effect on the model)", choices=FORMATS, shown=False),
        Parameter("random_state", "seed", FROM_INIT, "Seed", "same seed, same rules (None: 1)", minimum=0,
                  maximum=2**32 - 1),
        _option("search", "Search", "ours: mlrl-seco's algorithm, or the PAKDD 2018 paper's (subset accuracy "
                "and other measures on micro-averaged counts, heads by anti-monotonicity)"),
    )

    def __init__(self, random_state=1, feature_format=None, output_format=None, prediction_format=None,
                 rule_induction="top-down-greedy", max_rules=500, time_limit=0, post_optimization="none",
                 head_type="single", lift_function="peak", heuristic="f-measure", pruning_heuristic="accuracy",
                 output_sampling="none", instance_sampling="stratified-output-wise", feature_sampling="none",
                 holdout="none", feature_binning="none", rule_pruning="irep", parallel_rule_refinement="true",
                 parallel_statistic_update="false", parallel_prediction="true", search="mlrl-seco"):
        self.random_state = random_state
        self.feature_format = feature_format
        self.output_format = output_format
        self.prediction_format = prediction_format
        self.rule_induction = rule_induction
        self.max_rules = max_rules
        self.time_limit = time_limit
        self.post_optimization = post_optimization
        self.head_type = head_type
        self.lift_function = lift_function
        self.heuristic = heuristic
        self.pruning_heuristic = pruning_heuristic
        self.output_sampling = output_sampling
        self.instance_sampling = instance_sampling
        self.feature_sampling = feature_sampling
        self.holdout = holdout
        self.feature_binning = feature_binning
        self.rule_pruning = rule_pruning
        self.parallel_rule_refinement = parallel_rule_refinement
        self.parallel_statistic_update = parallel_statistic_update
        self.parallel_prediction = parallel_prediction
        self.search = search

    @classmethod
    def paper_2018(cls, heuristic: str = "subset-accuracy", min_coverage: int = 10, **overrides) -> "SeCoClassifier":
        """The PAKDD 2018 search with ``heuristic`` and rules covering at least ``min_coverage`` examples."""
        return cls(search=f"pakdd-2018{{heuristic={heuristic}}}",
                   rule_induction=f"top-down-greedy{{min_coverage={min_coverage}}}", **overrides)

    @classmethod
    def from_params(cls, params: Mapping) -> "SeCoClassifier":
        """As :meth:`RuleLearner.from_params`; the parameters of model files written before mlrl-seco's
        parameters (heuristic 'subset-accuracy' ..., beta, head_search, max_conditions, min_coverage,
        label_coverage_threshold, max_uncovered) become ``search='pakdd-2018{...}'`` and
        ``rule_induction`` options."""
        params = dict(params)
        if any(k in params for k in ("beta", "head_search", "label_coverage_threshold", "max_uncovered",
                                     "max_conditions", "min_coverage")):
            old = {k: params.pop(k) for k in _OLD_PARAMETERS if k in params}
            pakdd = {k: old[k] for k in ("heuristic", "head_search", "beta", "label_coverage_threshold",
                                         "max_uncovered") if k in old}
            params["search"] = "pakdd-2018{" + ",".join(f"{k}={v}" for k, v in pakdd.items()) + "}"
            params["rule_induction"] = (f"top-down-greedy{{max_conditions={old.get('max_conditions') or 0},"
                                        f"min_coverage={old.get('min_coverage', 1)}}}")
            params["max_rules"] = old.get("max_rules", 500)
        return super().from_params(params)

    def _check_combination(self) -> None:
        name, options = parse_option("seco:rule_induction", self.rule_induction)
        if name == "top-down-beam-search" and options["max_conditions"] == 1:  # mlrl-seco's refusal
            raise ValueError("rule_induction='top-down-beam-search{max_conditions=...}' must be at least 2, or 0 "
                             "(no limit)")

    # -- model -----------------------------------------------------------------------------
    @staticmethod
    def default_rule(Y: np.ndarray, schema=None) -> Rule:
        """Empty body; per label +1 if the label is present in more than half of ``Y``, else -1."""
        Y = np.asarray(Y, dtype=np.float64)
        K = Y.shape[1]
        scores = np.where(Y.sum(axis=0) > Y.shape[0] / 2.0, 1.0, -1.0)
        return Rule((), np.arange(K, dtype=np.int64), scores, schema)

    def _make_model(self, rules, data: TrainingData) -> RuleModel:
        rules = list(rules)
        Y = data.Y if getattr(self, "holdout_indices_", None) is None else np.delete(data.Y, self.holdout_indices_, 0)
        default = self.default_rule(Y, data.schema)
        if not rules or rules[-1] != default:
            rules.append(default)
        return RuleModel(rules, data.X.shape[1], data.Y.shape[1], "decision-list", None, None, data.schema,
                         data.nominal)

    def _learn(self, data: TrainingData) -> Iterator[RuleRecord]:
        self.holdout_indices_ = None
        name, options = parse_option("seco:search", self.search)
        if name == "pakdd-2018":
            _, induction = parse_option("seco:rule_induction", self.rule_induction)
            cfg = dict(options, max_conditions=induction["max_conditions"] or None,
                       min_coverage=induction["min_coverage"],
                       max_rules=self.max_rules if self.max_rules > 0 else 2**31 - 1)
            yield from self._learn_pakdd(data, cfg)
        else:
            yield from self._learn_mlrl(data)

    # -- mlrl-seco's covering loop ---------------------------------------------------------
    def _learn_mlrl(self, data: TrainingData) -> Iterator[RuleRecord]:
        started = time.monotonic()
        seed = 1 if self.random_state is None else int(self.random_state)
        rng = np.random.default_rng(seed)
        X, Y = data.X, data.Y
        holdout, holdout_options = parse_option("seco:holdout", self.holdout)
        if holdout != "none":
            train_rows, holdout_rows = split_holdout(Y, holdout, holdout_options["holdout_set_size"],
                                                     int(rng.integers(2**63 - 1)))
            self.holdout_indices_ = holdout_rows
            X = sp.csc_matrix(X.tocsr()[train_rows]) if sp.issparse(X) else np.ascontiguousarray(X[train_rows])
            Y = Y[train_rows]
        n, K = Y.shape
        Y = np.ascontiguousarray(Y, dtype=np.uint8)
        h_name, h_opts = parse_option("seco:heuristic", self.heuristic)
        p_name, p_opts = parse_option("seco:pruning_heuristic", self.pruning_heuristic)
        h, hp = MLRL_HEURISTICS[h_name], np.float32(h_opts.get("beta", h_opts.get("m", 0.0)))
        ph, pp = MLRL_HEURISTICS[p_name], np.float32(p_opts.get("beta", p_opts.get("m", 0.0)))
        partial = self.head_type == "partial"
        lift, max_lift = lift_tables(self.lift_function, K, Y) if partial else (np.ones(K + 1, np.float32),) * 2
        _, induction = parse_option("seco:rule_induction", self.rule_induction)
        max_conditions = induction["max_conditions"] or _MAX_CONDITIONS_CAP
        min_coverage = min(n, induction["min_coverage"])
        if induction["min_support"] > 0:
            min_coverage = _bounded(n, induction["min_support"], induction["min_coverage"], n)
        max_head_refinements = induction["max_head_refinements"]
        beam_width = induction.get("beam_width", 0)  # 0: top-down-greedy
        resample_features = induction.get("resample_features", False)
        sampling, s_opts = parse_option("seco:instance_sampling", self.instance_sampling)
        n_drawn = 0 if sampling == "none" else _bounded(n, s_opts["sample_size"], s_opts["min_samples"],
                                                           s_opts["max_samples"])
        out_sampling, o_opts = parse_option("seco:output_sampling", self.output_sampling)
        prune = self.rule_pruning == "irep"
        strata = _OutputWise(Y, n_drawn) if sampling == "stratified-output-wise" and 0 < n_drawn < n else None

        index = build_feature_index(X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: only the default rule is learned",
                          RuntimeWarning, stacklevel=3)
        D = index.n_features
        keys = index.values
        binning, b_opts = parse_option("seco:feature_binning", self.feature_binning)
        if binning != "none":
            keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                            METHOD_CODES[binning], b_opts["bin_ratio"], b_opts["min_bins"], b_opts["max_bins"])
        f_sampling, f_opts = parse_option("seco:feature_sampling", self.feature_sampling)
        n_features = D
        if f_sampling != "none":
            from ..sampling import sampled_feature_count  # noqa: PLC0415 - the same count as BOOMER's
            n_features = sampled_feature_count(D, f_opts["sample_size"], f_opts["min_samples"], f_opts["max_samples"])
        retained = min(D, f_opts.get("num_retained", 0)) if f_sampling != "none" else 0

        majority = (Y.sum(axis=0) > n / 2.0).astype(np.uint8)
        minority = (Y != majority[None, :])
        uncovered_weight = float(minority.sum())  # the reference's sum of uncovered weights
        coverage = np.zeros((n, K), dtype=np.int32)  # how many rules predict the pair (0: uncovered)
        default = self.default_rule(Y, data.schema)
        default_values = (default.head_scores > 0).astype(np.uint8)
        train = _DecisionListTracker(Y, default_values)
        val = _DecisionListTracker(data.Y_test, default_values) if data.X_test is not None else None
        budget = (self.max_rules - 1) if self.max_rules > 0 else None  # the default rule counts
        self.stop_reason_ = "max_rules"
        all_labels = np.arange(K, dtype=np.int64)
        # the reference's view of an attribute: dense input, or sparse input without implicit zeros, has its
        # zeros as values; a sparse attribute (sparse input with zeros) treats them apart
        n_stored = np.diff(index.ptr) + np.diff(index.missing_ptr)
        dense = (n_stored >= n).astype(np.uint8) if sp.issparse(X) else np.ones(D, np.uint8)
        # numeric attributes without binning: the reference's own search (engine.core.seco_refine); nominal
        # or binned attributes: the shared sweep (engine.core.sweep)
        exact = (index.nominal == 0) & (binning == "none")
        walks = not exact.all()
        if walks:  # the shared sweep compacts the covered entries of each attribute
            cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
            seg = np.zeros((D, 3), dtype=np.int64)
        # the reference's vector of every numeric attribute, all examples covered, and the vectors of a rule's
        # covered examples (filtered as its conditions are added)
        bptr, brows, bvals = _base_vectors(index, dense, exact, n)
        wrows, wvals = np.empty_like(brows), np.empty_like(bvals)
        wlen = np.zeros(D, dtype=np.int64)
        wstamp = np.full(D, -1, dtype=np.int64)
        threads = _threads(self.parallel_rule_refinement)
        step_scratch = {}
        qbuf = np.empty(K, dtype=np.float32)
        positions = np.empty(K, dtype=np.int64)
        score_first = np.zeros(D)  # per attribute the best quality evaluated at a rule's first / later steps
        score_rest = np.zeros(D)
        search_ids = [-2]  # the beam's and post-optimization's searches: rule ids no covering step uses

        def next_id():
            search_ids[0] -= 1
            return search_ids[0]

        def sample_features():
            return _feature_sample(D, n_features, retained, rng)

        def found_equal(j, full, where):
            """After a condition on numeric attribute ``j`` (its positions ``where`` in the vector just searched),
            whether the reference takes the attribute's remaining vector for one of equal values and searches it
            no more in this rule: it compares the remaining range's first value with the value at the range's
            length less one (not its last value, unless the range starts at 0); sparse vectors are kept."""
            if not dense[j]:
                return False
            a = bptr[j]
            m = (bptr[j + 1] - a) if full else wlen[j]
            vals = bvals if full else wvals
            start, end, inverse = where
            if inverse:
                lo, hi = (0, start) if start > 0 else (end, m)
            else:
                lo, hi = (start, m) if start > 0 else (0, end)
            if hi - lo <= 0:
                return True
            x, y = np.float32(vals[a + lo]), np.float32(vals[a + hi - lo - 1])
            return bool(np.abs(x - y) <= _EPS32 * max(np.float32(1.0), max(np.abs(x), np.abs(y))))

        def block_row(j, full, where, weights):
            """The example the reference's search of a sparse attribute's non-zero block against its zeros
            evaluates apart from the condition's coverage, or -1: the descending pass never adds the entry
            first among the values >= 0 (the block's position ``start``), yet the block covers it (``>``) or
            leaves it out (``<=``, the rest); the head is the evaluated examples' (the reference's
            refinement keeps the head of its evaluation).  -1 also if that entry has no weight or is the only
            weighted one of the block (then the pass added it first)."""
            if where is None or dense[j]:
                return -1
            start, end, _ = where
            a = bptr[j]
            m = (bptr[j + 1] - a) if full else wlen[j]
            if end != m or start >= m:
                return -1
            rows, vals = (brows, bvals) if full else (wrows, wvals)
            if start != int(np.searchsorted(vals[a:a + m], np.float32(0.0), side="left")):
                return -1  # not the block: a search's other ranges ending at m start above the values < 0
            r0 = int(rows[a + start])
            if not weights[r0] > 0 or not (weights[rows[a + start + 1:a + m]] > 0).any():
                return -1
            return r0

        def evaluated_head(j, full, where, weights, covered, counts, mode, size):
            """The head's size in ``positions`` of the examples the reference evaluated for the condition just
            applied (``covered``, its head's ``size``): those of the sparse block's quirk (block_row)."""
            r0 = block_row(j, full, where, weights)
            if r0 < 0:
                return size
            evaluated = covered.copy()
            evaluated[r0] = 1 if where[2] else 0
            Wm, U, maj_c = counts
            return mlrl_apply(-1, False, _NO_INT, _NO_ROWS, _NO_ROWS, _NO_INT, _NO_ROWS, evaluated, 0, 0, 0, Wm, U,
                              maj_c, h, hp, mode, lift, max_lift, qbuf, positions)[1]

        def grow_greedy(weights, cand, fixed, rule_id, features_of, ordered=False):
            """mlrl-seco's top-down greedy search of one rule: (conditions, masks, head, quality).  ``ordered``:
            the attributes ``features_of`` gives are in the reference's order (ties to the earlier one), not
            ascending."""
            Wm, U, maj_c = _label_counts(Y, coverage, weights, cand, majority)
            walked_state = walked_statistics(weights) if ordered else None
            if walks:  # the shared sweep's statistics (all labels)
                free = coverage == 0
                C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
                C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
                wf = weights.astype(np.float64)
                U1 = wf @ C1
                U0 = wf @ C0
                cw = wf.copy()
                T1, T0 = U1.copy(), U0.copy()
            n_T = int((weights > 0).sum())
            current = np.float32(0.0)  # the reference's least quality: a condition must do better
            conditions = []
            head = cand
            if walks:
                seg[:, 0] = 0
            covered = np.ones(n, dtype=np.uint8)
            full = True  # every example covered
            masks = []  # the covered examples after each condition (the reference's training coverage)
            equal = []  # attributes the reference searches no more in this rule (found_equal)
            while len(conditions) < max_conditions:
                mode = _mode(partial, fixed)
                features = features_of()
                if equal:
                    features = features[~np.isin(features, equal)]
                numeric = features[exact[features]] if walks else features
                walked = features[~exact[features]] if walks else features[:0]
                candidates = {}  # attribute -> (quality, op, threshold, count, range or None)
                if ordered:  # each attribute's best (a list of one), the first of the best in the given order
                    found = attribute_lists(covered, full, n_T, cand, (Wm, U, maj_c), fixed, current, 1, features,
                                            weights, walked_state, False)
                    if data.cancelled:
                        return None
                    if found:
                        q, _, _, op, thr, cnt, where, j = found[0]
                        candidates[j] = (q, op, thr, cnt, where)
                    numeric = walked = features[:0]
                if len(numeric):
                    score = score_first if full else score_rest
                    # the attributes of the best earlier qualities first (0.15.6's accuracy: in order, the first
                    # candidate is the best)
                    order = numeric if h == MH_ACCURACY else numeric[np.argsort(-score[numeric], kind="stable")]
                    work = (n if full else n_T) * len(numeric) * Wm.shape[1]  # entries times counts added
                    chunks = threads if work >= PARALLEL_MIN_WORK else 1
                    key = (chunks, Wm.shape[1])
                    if key not in step_scratch:
                        step_scratch[key] = _step_scratch(chunks, Wm.shape[1] // 2)
                    out_f, out_i, best_all, scratch = step_scratch[key]
                    best_all[0] = current
                    args = (order, bptr, brows, bvals, wrows, wvals, wlen, wstamp, rule_id, full, index.missing_ptr,
                            index.missing_rows, dense, covered, weights, Wm, U, maj_c, min_coverage, h, hp, mode, lift,
                            max_lift, float(current), score, best_all)
                    _run_chunks(args, chunks, out_f, out_i, scratch, data.cancel)
                    won = _best_chunk(out_f, out_i)
                    if won >= 0:
                        candidates[int(out_i[won, ATTR])] = (np.float32(out_f[won, BEST_Q]), int(out_i[won, OP]),
                                                             float(out_f[won, BEST_THR]), int(out_i[won, COUNT]),
                                                             (int(out_i[won, START]), int(out_i[won, END]),
                                                              int(out_i[won, INVERSE])))
                if len(walked):
                    w_q, w_op, w_thr, w_cnt = (np.empty(len(walked), np.float32), np.empty(len(walked), np.int64),
                                               np.empty(len(walked)), np.empty(len(walked), np.int64))
                    mlrl_best_conditions(walked, index.ptr, index.rows, index.values, keys, cache, seg,
                                         index.missing_ptr, index.missing_rows, index.nominal, cw, n_T, C1, C0, T1, T0,
                                         U1, U0, min_coverage, h, hp, mode, majority, cand, len(cand), lift, max_lift,
                                         w_q, w_op, w_thr, w_cnt, data.cancel)
                    for c, j in enumerate(walked):
                        if w_op[c] >= 0:
                            candidates[int(j)] = (w_q[c], int(w_op[c]), float(w_thr[c]), int(w_cnt[c]), None)
                if data.cancelled:
                    return None
                best = None
                for j in sorted(candidates):  # ties: the earlier attribute
                    if best is None or candidates[j][0] > candidates[best][0]:
                        best = j
                if best is None or not candidates[best][0] > current:
                    break
                q, op, thr, n_T, where = candidates[best]
                current = q
                conditions.append(Condition(best, OPERATORS[op], thr))
                if where is None:  # a condition of the shared sweep covers by its threshold
                    apply_condition(best, op, thr, index.ptr, index.rows, index.values, index.missing_ptr,
                                    index.missing_rows, covered)
                elif found_equal(best, full, where):
                    equal.append(best)
                # the reference's search covers its positions in the attribute's vector; then the head
                _, size = mlrl_apply(-1 if where is None else best, full, bptr, brows, wrows, index.missing_ptr,
                                     index.missing_rows, covered, *(where or (0, 0, 0)), Wm, U, maj_c, h, hp, mode,
                                     lift, max_lift, qbuf, positions)
                size = evaluated_head(best, full, where, weights, covered, (Wm, U, maj_c), mode, size)
                full = False
                masks.append(covered.copy())
                if walks:
                    cw = np.where(covered > 0, wf, 0.0)
                    T1 = cw @ C1
                    T0 = cw @ C0
                head = np.sort(cand[positions[:size]])
                if max_head_refinements > 0 and len(conditions) >= max_head_refinements:
                    if not np.array_equal(head, cand):
                        Wm, U, maj_c = _label_counts(Y, coverage, weights, head, majority)
                    cand, fixed = head, True
                if n_T <= min_coverage:
                    break
            return conditions, masks, head, current

        def walked_statistics(weights):
            """The shared sweep's statistics of a rule's search (nominal or binned attributes), or None."""
            if not walks:
                return None
            free = coverage == 0
            wf = weights.astype(np.float64)
            C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
            C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
            return wf, C1, C0, wf @ C1, wf @ C0

        def attribute_lists(covered, full, count, labels, counts, is_fixed, floor, width, features, weights, walked_state,
                            later_first):
            """The best refinements of the body covering ``covered`` (``count`` examples of the sample) better than
            ``floor``: each attribute's list of up to ``width`` as mlrl-seco's fixed-size comparator keeps them
            (mlrl_refine's top-k mode; the shared sweep: its best condition), merged best first, equal ones of
            different attributes by their order in ``features``, the later first if ``later_first`` (the beam's
            comparator) else the earlier: the first ``width`` as tuples (quality, position of the attribute in
            ``features``, candidate number, op, threshold, count, range or None, attribute).  The ranges refer to
            this search's vectors: apply them before the next search."""
            Wm, U, maj_c = counts
            mode = _mode(partial, is_fixed)
            position = np.empty(D, dtype=np.int64)
            position[features] = np.arange(len(features))
            numeric = features[exact[features]] if walks else features
            walked = features[~exact[features]] if walks else features[:0]
            parts = []  # arrays: quality, attribute, candidate number, op, threshold, count, start, end, inverse, walked
            if len(numeric):
                m = len(numeric)
                work = (n if full else count) * m * Wm.shape[1]
                chunks = threads if work >= PARALLEL_MIN_WORK else 1
                out_f = np.empty((chunks, 2 + 2 * width * m))
                out_i = np.zeros((chunks, N_TOP_I + m * (1 + 6 * width)), dtype=np.int64)
                out_i[:, TOP_K] = width
                scratch = _step_scratch(chunks, Wm.shape[1] // 2)[3]
                args = (np.ascontiguousarray(numeric, dtype=np.int64), bptr, brows, bvals, wrows, wvals, wlen, wstamp,
                        next_id(), full, index.missing_ptr, index.missing_rows, dense, covered, weights, Wm, U, maj_c,
                        min_coverage, h, hp, mode, lift, max_lift, float(floor), score_rest, np.array([float(floor)]))
                _run_chunks(args, chunks, out_f, out_i, scratch, data.cancel)
                o = np.arange(m)
                chunk = o % chunks  # the thread that searched the attribute at position o
                ri = N_TOP_I + o * (1 + 6 * width)
                rf = 2 + 2 * width * o
                length = out_i[chunk, ri]
                for slot in range(width):
                    has = length > slot
                    if not has.any():
                        break
                    c, at_i, at_f = chunk[has], ri[has] + 1 + 6 * slot, rf[has] + 2 * slot
                    parts.append((out_f[c, at_f].astype(np.float32), numeric[has], out_i[c, at_i], out_i[c, at_i + 1],
                                  out_f[c, at_f + 1], out_i[c, at_i + 2], out_i[c, at_i + 3], out_i[c, at_i + 4],
                                  out_i[c, at_i + 5], np.zeros(int(has.sum()), dtype=bool)))
            if len(walked):
                wf, C1, C0, U1, U0 = walked_state
                cw = np.where(covered > 0, wf, 0.0)
                seg[:, 0] = 0  # the bodies searched here are not nested: the sweep compacts afresh
                w_q, w_op, w_thr, w_cnt = (np.empty(len(walked), np.float32), np.empty(len(walked), np.int64),
                                           np.empty(len(walked)), np.empty(len(walked), np.int64))
                mlrl_best_conditions(walked, index.ptr, index.rows, index.values, keys, cache, seg, index.missing_ptr,
                                     index.missing_rows, index.nominal, cw, count, C1, C0, cw @ C1, cw @ C0, U1, U0,
                                     min_coverage, h, hp, mode, majority, labels, len(labels), lift, max_lift, w_q, w_op,
                                     w_thr, w_cnt, data.cancel)
                ok = (w_op >= 0) & (w_q > floor)
                zeros = np.zeros(int(ok.sum()), dtype=np.int64)
                parts.append((w_q[ok], walked[ok], zeros, w_op[ok], w_thr[ok], w_cnt[ok], zeros, zeros, zeros,
                              np.ones(len(zeros), dtype=bool)))
            if not parts:
                return []
            q, attr, seq, op, thr, cnt, start, end, inverse, by_threshold = (np.concatenate(x) for x in zip(*parts))
            pos = position[attr]
            order = np.lexsort((seq, -pos if later_first else pos, -q.astype(np.float64)))[:width]
            return [(q[i], int(pos[i]), int(seq[i]), int(op[i]), float(thr[i]), int(cnt[i]),
                     None if by_threshold[i] else (int(start[i]), int(end[i]), int(inverse[i])), int(attr[i]))
                    for i in order]

        def grow_beam(weights, cand, fixed, features_of):
            """mlrl-seco's top-down beam search of one rule (module doc): (conditions, masks, head, quality)."""
            counts = {}

            def counts_of(labels):
                key = labels.tobytes()
                if key not in counts:
                    counts[key] = _label_counts(Y, coverage, weights, labels, majority)
                return counts[key]

            walked_state = walked_statistics(weights)

            def refinements(entry, floor, features):
                """The ``beam_width`` best refinements of ``entry`` better than ``floor``: the attributes' lists
                merged best first, ties to the later attribute (the reference's merge)."""
                if entry.equal:
                    features = features[~np.isin(features, list(entry.equal))]
                return attribute_lists(entry.covered, entry.full, entry.count, entry.cand, counts_of(entry.cand),
                                       entry.fixed, floor, beam_width, features, weights, walked_state, True)

            def child(entry, ref, keep):
                q, _, _, op, thr, cnt, where, j = ref
                covered = entry.covered.copy()
                if where is None:
                    apply_condition(j, op, thr, index.ptr, index.rows, index.values, index.missing_ptr,
                                    index.missing_rows, covered)
                Wm, U, maj_c = counts_of(entry.cand)
                mode = _mode(partial, entry.fixed)
                _, size = mlrl_apply(-1 if where is None else j, entry.full, bptr, brows, wrows, index.missing_ptr,
                                     index.missing_rows, covered, *(where or (0, 0, 0)), Wm, U, maj_c, h, hp, mode,
                                     lift, max_lift, qbuf, positions)
                size = evaluated_head(j, entry.full, where, weights, covered, (Wm, U, maj_c), mode, size)
                head = np.sort(entry.cand[positions[:size]])
                labels, is_fixed = (head, True) if keep else (entry.cand, entry.fixed)
                equal = entry.equal | {j} if where is not None and found_equal(j, entry.full, where) else entry.equal
                return _BeamEntry(entry.conditions + [Condition(j, OPERATORS[op], thr)], entry.masks + [covered],
                                  covered, np.float32(q), cnt, labels, is_fixed, head, False, cnt > min_coverage, equal)

            def replace_last(new, entry):
                """The reference's full beam: the last entry replaced, then sorted (stable for its widths); the
                new last quality."""
                new[-1] = entry
                new.sort(key=lambda e: -e.q)
                return new[-1].q

            root = _BeamEntry([], [], np.ones(n, dtype=np.uint8), np.float32(0.0), int((weights > 0).sum()), cand,
                              fixed, cand, True, True, frozenset())
            refs = refinements(root, 0.0, features_of())
            if data.cancelled or not refs:
                return None if data.cancelled else ([], [], cand, np.float32(0.0))
            keep = max_head_refinements == 1
            beam = [child(root, ref, keep) for ref in refs]
            for entry in beam:
                entry.refinable = True  # the reference refines its first entries whatever they cover
            depth = 1
            found = True
            while found and depth < max_conditions:
                depth += 1
                keep = max_head_refinements > 0 and depth >= max_head_refinements
                features = None if resample_features else features_of()
                new = []
                min_q = beam[-1].q
                found = False
                for entry in beam:
                    refined = False
                    if entry.refinable:
                        refs = refinements(entry, min_q, features_of() if resample_features else features)
                        if data.cancelled:
                            return None
                        if refs:
                            refined = found = True
                            for ref in refs:
                                c = child(entry, ref, keep)
                                if len(new) < beam_width:
                                    new.append(c)
                                else:
                                    min_q = replace_last(new, c)
                    if not refined:
                        entry.refinable = False
                        if len(new) < beam_width:
                            new.append(entry)
                        elif not min_q > entry.q:
                            min_q = replace_last(new, entry)
                beam = new
            best = beam[0]
            return best.conditions, best.masks, best.head, best.q

        def grow(weights, cand, fixed, rule_id, features_of, ordered=False):
            if beam_width:
                return grow_beam(weights, cand, fixed, features_of)
            return grow_greedy(weights, cand, fixed, rule_id, features_of, ordered)

        def finish(conditions, masks, head, weights):
            """IREP on the examples out of the sample: (conditions kept, the number pruned)."""
            if prune and (weights == 0).any() and len(conditions) > 1:
                keep = self._irep_masks(masks, head, weights, Y, coverage, majority, ph, pp, partial, lift, max_lift,
                                        qbuf, positions)
                return conditions[:keep], len(conditions) - keep
            return conditions, 0

        def cover(rows, head, sign):
            """Count the rule's pairs as covered (``sign`` 1) or take them back (-1): the reference's coverage
            counts; returns the change of the uncovered weight."""
            block = coverage[np.ix_(rows, head)]
            if sign > 0:
                coverage[np.ix_(rows, head)] = block + 1
                return -float((block == 0).sum())
            coverage[np.ix_(rows, head)] = block - 1
            return float((block == 1).sum())

        def labels_for(t):
            """The labels rule ``t`` may predict: round-robin's, a new sample, or all of them."""
            if out_sampling == "round-robin":
                return np.array([t % K], dtype=np.int64)
            if out_sampling == "without-replacement":
                m = _bounded(K, o_opts["sample_size"], o_opts["min_samples"], o_opts["max_samples"])
                return np.sort(rng.choice(K, m, replace=False)).astype(np.int64)
            return all_labels

        def settle(conditions, masks, head, weights):
            """A grown body pruned (IREP) and made a rule predicting its labels' minority values: (rule, values,
            its training coverage - the reference's positions in the attributes' vectors, whose pairs are
            counted as covered - its model coverage by the thresholds, conditions pruned, change of the
            uncovered weight)."""
            conditions, pruned = finish(conditions, masks, head, weights)
            values = (1 - majority[head]).astype(np.uint8)
            rule = Rule(as_equalities(tuple(conditions), data.binary), head, np.where(values > 0, 1.0, -1.0),
                        data.schema)
            train_rows = np.flatnonzero(masks[len(conditions) - 1])
            change = cover(train_rows, head, 1)
            rows = np.flatnonzero(_coverage(conditions, index, n))
            return rule, values, train_rows, rows, pruned, change

        learned = []  # per rule: (rule, its training coverage rows, its model coverage rows, test rows)
        # how many rules cover each pair by their thresholds: every rule predicts its labels' minority values, so
        # a pair is predicted so if any rule covers it (post-optimization's revisions update the losses by it)
        train_count = np.zeros((n, K), dtype=np.int32)
        test_count = None if val is None else np.zeros(data.Y_test.shape, dtype=np.int32)
        t = 0
        while budget is None or t < budget:
            if not uncovered_weight > 0:
                self.stop_reason_ = "coverage"
                break
            if self.time_limit and time.monotonic() - started >= self.time_limit:
                self.stop_reason_ = "time_limit"
                break
            weights = _instance_weights(sampling, n_drawn, Y, rng, strata)
            cand = labels_for(t)
            fixed = out_sampling != "none"  # sampled labels: the reference evaluates them as a fixed head
            grown = grow(weights, cand, fixed, t, sample_features)
            if grown is None:
                return  # cancelled: the unfinished rule is dropped
            conditions, masks, head, current = grown
            if not conditions:
                self.stop_reason_ = "no_refinement"
                break
            # the losses and the coverage shown are the model's (its thresholds), which in the reference's quirks
            # may differ from the training coverage
            rule, values, train_rows, rows, pruned, change = settle(conditions, masks, head, weights)
            uncovered_weight += change
            before = train.hamming
            new_pairs = train.apply(rows, head, values)
            train_count[np.ix_(rows, head)] += 1
            record = dict(index=t, rule=rule, coverage=int(len(rows)), improvement=float(before - train.hamming),
                          train_hamming=train.hamming, train_subset=train.subset)
            test_rows = None
            if val is not None:
                test_rows = np.flatnonzero(rule_coverage(rule, data.X_test))
                val.apply(test_rows, head, values)
                test_count[np.ix_(test_rows, head)] += 1
                record.update(test_hamming=val.hamming, test_subset=val.subset)
            record["extra"] = {"heuristic": float(current), "head_size": float(len(head)),
                               "new_pairs": float(new_pairs), "pruned_conditions": float(pruned),
                               "uncovered": float(uncovered_weight)}
            learned.append((rule, train_rows, rows, test_rows))
            yield RuleRecord(**record)
            t += 1

        # mlrl-seco's sequential post-optimization: each rule relearned in the context of all others
        post, post_options = parse_option("seco:post_optimization", self.post_optimization)
        if self.stop_reason_ == "no_refinement":
            t += 1  # the failed attempt drew its round-robin label too
        if post == "sequential" and learned:
            for iteration in range(1, post_options["num_iterations"] + 1):
                for i in range(len(learned)):
                    if data.cancelled:
                        return
                    old, old_train, old_rows, old_test = learned[i]
                    weights = _instance_weights(sampling, n_drawn, Y, rng, strata)
                    uncovered_weight += cover(old_train, old.head_labels, -1)  # the model without rule i
                    if post_options["refine_heads"]:
                        cand = labels_for(t)
                        if out_sampling == "round-robin":
                            t += 1  # a relearned head takes the next label in turn
                        fixed = out_sampling != "none"
                    else:  # the rule's own labels, evaluated as a fixed head
                        cand, fixed = np.asarray(old.head_labels, dtype=np.int64), True
                    if post_options["resample_features"]:
                        features_of = sample_features
                    else:  # the attributes of the rule's conditions, in the reference's order
                        own = _conditions_attributes(old.conditions)
                        features_of = lambda own=own: own  # noqa: E731
                    grown = grow(weights, cand, fixed, next_id(), features_of, not post_options["resample_features"])
                    if grown is None:
                        return
                    conditions, masks, head, current = grown
                    if not conditions:
                        continue  # no rule: the old one stays, its pairs uncovered (as the reference leaves them)
                    rule, values, train_rows, rows, pruned, change = settle(conditions, masks, head, weights)
                    uncovered_weight += change
                    test_rows = None if val is None else np.flatnonzero(rule_coverage(rule, data.X_test))
                    learned[i] = (rule, train_rows, rows, test_rows)
                    before = train.hamming
                    _revise(train, train_count, old_rows, old.head_labels, rows, head, majority)
                    record = dict(index=len(self.records_), revises=i, old_rule=old, rule=rule, iteration=iteration,
                                  coverage=int(len(rows)), improvement=float(before - train.hamming),
                                  train_hamming=train.hamming, train_subset=train.subset)
                    if val is not None:
                        _revise(val, test_count, old_test, old.head_labels, test_rows, head, majority)
                        record.update(test_hamming=val.hamming, test_subset=val.subset)
                    record["extra"] = {"heuristic": float(current), "head_size": float(len(head)),
                                       "new_pairs": 0.0, "pruned_conditions": float(pruned),
                                       "uncovered": float(uncovered_weight)}
                    yield RuleRevision(**record)

        record = dict(index=len(self.records_), rule=default, coverage=n, improvement=0.0,
                      train_hamming=train.hamming, train_subset=train.subset,
                      extra={"heuristic": math.nan, "head_size": float(K), "new_pairs": float(int((train.decided == 0).sum())),
                             "pruned_conditions": 0.0, "uncovered": float(uncovered_weight)})
        if val is not None:
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        yield RuleRecord(**record)

    @staticmethod
    def _irep(conditions, ranges, head, weights, C1, C0, majority, h, p, partial, lift, max_lift, index, dense,
              n) -> int:
        """IREP (the reference's) for a body given by its conditions (``ranges``: their positions in the
        attributes' vectors, or None for the thresholds) and the uncovered pairs with the label present
        (``C1``) and absent (``C0``): :meth:`_irep_masks`."""
        masks, covered = [], np.ones(n, dtype=np.uint8)
        for c, where in zip(conditions, ranges):
            if where is None:
                apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, index.ptr, index.rows,
                                index.values, index.missing_ptr, index.missing_rows, covered)
            else:
                mlrl_apply_range(c.attribute, index.ptr, index.rows, index.values, index.missing_ptr,
                                 index.missing_rows, covered, bool(dense[c.attribute]), *where)
            masks.append(covered.copy())
        K = C1.shape[1]
        return SeCoClassifier._irep_masks(masks, np.asarray(head), weights, C1, 1 - (C1 | C0), majority, h, p, partial,
                                          lift, max_lift, np.empty(K, np.float32), np.empty(K, np.int64))

    @staticmethod
    def _irep_masks(masks, head, weights, Y, coverage, majority, h, p, partial, lift, max_lift, qbuf,
                    positions) -> int:
        """IREP (the reference's): the number of leading conditions to keep.  Each prefix of the body
        (the full body first, then 1, 2, ... conditions; ``masks``: the examples each covers) is scored with
        the pruning heuristic on the examples out of the sample (weight 0), the head fixed; a strictly
        better prefix wins, and the first prefix also when it is no worse than the full body."""
        Wm, U, maj = _label_counts(Y, coverage, (weights == 0).astype(np.int64), head, majority)
        mode = HEAD_PARTIAL_ALL if partial else HEAD_SINGLE_MODE

        def quality(covered):
            q, _ = mlrl_apply(-1, False, _NO_INT, _NO_ROWS, _NO_ROWS, _NO_INT, _NO_ROWS, covered, 0, 0, 0, Wm, U, maj,
                              h, p, mode, lift, max_lift, qbuf, positions)
            return q

        best_q = quality(masks[-1])
        keep = len(masks)
        for m in range(1, len(masks)):
            q = quality(masks[m - 1])
            if q > best_q or (keep == len(masks) and not best_q > q):
                best_q, keep = q, m
        return keep

    # -- the PAKDD 2018 covering loop (search='pakdd-2018{...}') ------------------------------
    def _learn_pakdd(self, data: TrainingData, cfg: dict) -> Iterator[RuleRecord]:
        X, Y = data.X, data.Y
        n, K = Y.shape
        if cfg['head_search'] == "exhaustive" and K > MAX_EXHAUSTIVE_LABELS:
            raise ValueError(f"head_search='exhaustive' evaluates 2^K heads; K={K} labels is too many "
                             f"(at most {MAX_EXHAUSTIVE_LABELS})")
        heuristic = HEURISTIC_CODES[cfg['heuristic']]
        beta2 = float(cfg['beta']) ** 2
        exhaustive = cfg['head_search'] == "exhaustive"
        index = build_feature_index(X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: rules can only have empty bodies",
                          RuntimeWarning, stacklevel=3)
        D = index.n_features
        W = max(1, (n + 63) // 64)
        max_conditions = cfg['max_conditions'] or _MAX_CONDITIONS_CAP
        min_coverage = int(cfg['min_coverage'])
        self.n_head_evaluations_ = 0

        default = self.default_rule(Y, data.schema)
        default_values = (default.head_scores > 0).astype(np.uint8)
        train = _DecisionListTracker(Y, default_values)
        val = _DecisionListTracker(data.Y_test, default_values) if data.X_test is not None else None
        active = np.ones(n, dtype=bool)
        min_remaining = cfg['max_uncovered'] * n

        out_v = np.empty(D)
        out_p = np.empty(D, dtype=np.int64)
        out_op = np.empty(D, dtype=np.int64)
        out_thr = np.empty(D)
        out_evals = np.empty(D, dtype=np.int64)
        outputs = (out_v, out_p, out_op, out_thr, out_evals)
        T1 = np.empty(K, np.int64)
        T0 = np.empty(K, np.int64)
        labels = np.empty(K, np.int64)
        values = np.empty(K, np.int64)
        cond_args = (index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows)
        # the sweeps compact each attribute's covered entries as they pass (engine.core.sweep)
        cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
        seg = np.zeros((D, 3), dtype=np.int64)
        index_args = (index.ptr, index.rows, index.values, cache, seg, index.missing_ptr, index.missing_rows,
                      index.nominal)

        for t in range(cfg['max_rules'] - 1):  # the default rule is the last of max_rules
            n_active = int(active.sum())
            if n_active == 0 or n_active <= min_remaining:
                break
            C1, C0, G1, G0, U1, U0 = _countable(Y, train.decided.astype(bool), active)
            cov = active.astype(np.uint8)
            n_T = covered_counts(cov, C1, C0, T1, T0)
            bits = mask_bitset(cov, W)
            value, size, pairs, evals = head_search(heuristic, beta2, exhaustive, T1, T0, U1, U0, n_T, G1, G0,
                                                    bits, bits, 0, labels, values)
            rule_evals = int(evals)
            if size == 0:
                break
            conditions = []
            seg[:, 0] = 0  # a new rule: no compacted entries yet
            # every heuristic is at most 1: a rule that reaches 1 cannot be improved, its sweep is skipped
            while len(conditions) < max_conditions and n_T > min_coverage and value < 1.0 - TOL:
                if heuristic == H_SUBSET:
                    best_conditions(D, *index_args, cov, bits, C1, C0, T1, T0, n_T, U1, U0, G1, G0, heuristic,
                                    beta2, exhaustive, min_coverage, *outputs, data.cancel)
                else:  # the head depends on the counts alone: a sweep without bitsets
                    best_conditions_decomposable(D, *index_args, cov, C1, C0, T1, T0, n_T, U1, U0, heuristic, beta2,
                                                 min_coverage, *outputs, data.cancel)
                if data.cancelled:
                    return  # the unfinished rule is dropped
                rule_evals += int(out_evals.sum())
                best = -1
                for j in range(D):
                    if out_op[j] >= 0 and (best < 0 or out_v[j] > out_v[best] + TOL
                                           or (out_v[j] >= out_v[best] - TOL and out_p[j] > out_p[best])):
                        best = j
                if best < 0 or not out_v[best] > value + TOL:
                    break
                op, thr = int(out_op[best]), float(out_thr[best])
                conditions.append(Condition(best, OPERATORS[op], thr))
                apply_condition(best, op, thr, *cond_args, cov)
                n_T = covered_counts(cov, C1, C0, T1, T0)
                bits = mask_bitset(cov, W)
                value = out_v[best]
            # The chosen body's head (already evaluated during the sweep: not counted again).
            value, size, pairs, _ = head_search(heuristic, beta2, exhaustive, T1, T0, U1, U0, n_T, G1, G0, bits,
                                                bits, 0, labels, values)
            if size == 0:
                break
            self.n_head_evaluations_ += rule_evals
            head_labels = labels[:size].copy()
            head_values = values[:size].copy()
            rule = Rule(as_equalities(tuple(conditions), data.binary), head_labels,
                        np.where(head_values > 0, 1.0, -1.0), data.schema)

            covered_all = np.ones(n, dtype=np.uint8)
            for c in conditions:
                apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, *cond_args, covered_all)
            covered_rows = np.flatnonzero(covered_all)
            before = train.hamming
            new_pairs = train.apply(covered_rows, head_labels, head_values)
            if cfg['label_coverage_threshold'] >= 1.0:
                active &= ~train.decided.all(axis=1)
            else:
                active &= train.decided.mean(axis=1) < cfg['label_coverage_threshold'] - 1e-12
            record = dict(index=t, rule=rule, coverage=int(len(covered_rows)),
                          improvement=float(before - train.hamming), train_hamming=train.hamming,
                          train_subset=train.subset)
            if val is not None:
                val.apply(np.flatnonzero(rule_coverage(rule, data.X_test)), head_labels, head_values)
                record.update(test_hamming=val.hamming, test_subset=val.subset)
            record["extra"] = {"heuristic": float(value), "head_evaluations": float(rule_evals),
                               "head_size": float(size), "new_pairs": float(new_pairs),
                               "remaining": float(active.sum())}
            yield RuleRecord(**record)

        record = dict(index=len(self.records_), rule=default, coverage=n, improvement=0.0,
                      train_hamming=train.hamming, train_subset=train.subset,
                      extra={"heuristic": math.nan, "head_evaluations": 0.0, "head_size": float(K),
                             "new_pairs": float(int((train.decided == 0).sum())), "remaining": float(active.sum())})
        if val is not None:
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        yield RuleRecord(**record)


class _BeamEntry:
    """A rule of mlrl-seco's beam: its conditions, the covered examples after each (``masks``; ``covered``
    the last), quality, covered examples in the sample (``count``), the labels its refinements may
    predict (``cand``, evaluated as a fixed head if ``fixed``), its head, whether it covers every example
    (``full``), whether it may be refined further and the attributes the reference no longer searches in it
    (``equal``)."""

    __slots__ = ("conditions", "masks", "covered", "q", "count", "cand", "fixed", "head", "full", "refinable",
                 "equal")

    def __init__(self, conditions, masks, covered, q, count, cand, fixed, head, full, refinable, equal):
        self.conditions, self.masks, self.covered, self.q, self.count = conditions, masks, covered, q, count
        self.cand, self.fixed, self.head, self.full, self.refinable = cand, fixed, head, full, refinable
        self.equal = equal


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109,
           113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409, 439,
           467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879,
           2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517,
           8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267)


def _conditions_attributes(conditions) -> np.ndarray:
    """The attributes of a rule's conditions, each once, in the order mlrl-seco's post-optimization
    (without ``resample_features``) offers them: the iteration order of the C++ ``std::unordered_set``
    (libstdc++: identity hash, prime bucket counts, a node inserted into an empty bucket goes to the
    front of the list, else after its bucket's first node; rehashing relinks the nodes likewise) the
    reference fills with them in the rule's order.  Ties between attributes go by this order."""
    order: list[int] = []
    before: dict[int, int | None] = {}  # bucket -> the node before its first one (None: the list's head)
    buckets, next_resize = 1, 0

    def insert(key, nb):
        bkt = key % nb
        if bkt in before:
            b = before[bkt]
            order.insert(0 if b is None else order.index(b) + 1, key)
        else:
            if order:
                before[order[0] % nb] = key
            order.insert(0, key)
            before[bkt] = None

    for attribute in (int(c.attribute) for c in conditions):
        if attribute in order:
            continue
        count = len(order)
        if count + 1 > next_resize:  # libstdc++'s prime rehash policy (max load factor 1)
            wanted = max(count + 1, 0 if next_resize else 11)
            if wanted >= buckets:
                target = max(wanted + 1, 2 * buckets)
                fast = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
                new = fast[target] if target < len(fast) else next(p for p in _PRIMES if p >= target)
                next_resize = new
                old = list(order)
                order.clear()
                before.clear()
                for key in old:
                    insert(key, new)
                buckets = new
            else:
                next_resize = buckets
        insert(attribute, buckets)
    return np.array(order, dtype=np.int64)


def _revise(tracker, count, old_rows, old_labels, rows, labels, majority) -> None:
    """A revision of mlrl-seco's decision list: ``count`` (how many rules cover each pair) loses the old
    rule's pairs and gains the new one's; every rule predicts its labels' minority values, so a pair is
    predicted so iff a rule covers it, and ``tracker``'s predictions and losses follow."""
    count[np.ix_(old_rows, np.asarray(old_labels, dtype=np.int64))] -= 1
    count[np.ix_(rows, np.asarray(labels, dtype=np.int64))] += 1
    covered = count > 0
    tracker.decided = covered.astype(np.uint8)
    tracker.pred = np.where(covered, 1 - majority, majority).astype(np.uint8)
    tracker.errors = (tracker.pred != tracker.Y).sum(axis=1).astype(np.int64)
    tracker.wrong_labels = int(tracker.errors.sum())
    tracker.wrong_examples = int((tracker.errors > 0).sum())


def revision_steps(params: Mapping) -> int:
    """How many revision steps a fit with SeCoClassifier's ``params`` streams at most (after its rules):
    ``post_optimization='sequential{num_iterations=n}'`` revises each learned rule n times."""
    if not _mlrl(params):
        return 0
    name, options = parse_option("seco:post_optimization", params.get("post_optimization", "none"))
    rules = int(params.get("max_rules", 500) or 0) - 1  # the default rule counts
    return 0 if name == "none" else max(rules, 0) * options["num_iterations"]


def _bounded(n: int, fraction: float, minimum: int, maximum: int) -> int:
    """ceil(fraction x n), at least ``minimum`` (or n if smaller), at most ``maximum`` (0: no bound)."""
    count = int(math.ceil(fraction * n - 1e-9))
    count = max(count, min(minimum, n))
    if maximum > 0:
        count = min(count, max(maximum, min(minimum, n)))
    return min(count, n)


def _coverage(conditions, index, n) -> np.ndarray:
    """The examples a body's thresholds cover (the model's coverage)."""
    covered = np.ones(n, dtype=np.uint8)
    for c in conditions:
        apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, index.ptr, index.rows, index.values,
                        index.missing_ptr, index.missing_rows, covered)
    return covered


_NO_INT = np.zeros(1, dtype=np.int64)  # mlrl_apply's vectors when it applies no condition
_NO_ROWS = np.zeros(1, dtype=np.int32)


def _label_counts(Y, coverage, weights, cand, majority):
    """The counts of a rule's candidate labels (engine.core.seco_refine): ``Wm`` (examples x 2 Kc, int32),
    an example's weight where the pair is uncovered and the label has its minority value (columns
    0 .. Kc-1) or its majority value (Kc .. 2 Kc-1), else 0; ``U`` its column sums; the labels' majority
    values."""
    free = coverage[:, cand] == 0
    minority = Y[:, cand] != majority[cand]
    w = weights.astype(np.int32)[:, None]
    Wm = np.empty((Y.shape[0], 2 * len(cand)), dtype=np.int32)  # C order (an F-ordered one compiles again)
    np.multiply(free & minority, w, out=Wm[:, :len(cand)])
    np.multiply(free & ~minority, w, out=Wm[:, len(cand):])
    return Wm, Wm.sum(axis=0, dtype=np.int64), np.ascontiguousarray(majority[cand])


def _base_vectors(index, dense, exact, n):
    """Every attribute's vector with all examples covered, in the reference's order
    (engine.core.seco_search.covered_order): the index's own arrays unless a numeric attribute of dense
    input has zeros the index leaves implicit, which then stand between its negative and other values, or
    a numeric attribute is sparse (``dense[j]`` 0: sparse input with implicit zeros), whose equal values
    then stand as GCC's ``std::sort`` of its entries in row order leaves them (the reference's vector:
    its search of the non-zero block against the zeros leaves out the entry first among the smallest
    values >= 0, :func:`engine.core.gnu_sort.gnu_order`)."""
    stored = np.diff(index.ptr)
    implicit = exact & (dense > 0) & (stored + np.diff(index.missing_ptr) < n)
    reorder = exact & (dense == 0)
    ordered = index.rows
    if reorder.any():
        ordered = index.rows.copy()
        gnu_order(index.ptr, ordered, index.values, np.flatnonzero(reorder).astype(np.int64))
    if not implicit.any():
        return index.ptr, ordered, index.values
    rows, vals = [], []
    for j in range(index.n_features):
        r = ordered[index.ptr[j]:index.ptr[j + 1]]
        v = index.values[index.ptr[j]:index.ptr[j + 1]]
        if implicit[j]:
            listed = np.zeros(n, dtype=bool)
            listed[r] = True
            listed[index.missing_rows[index.missing_ptr[j]:index.missing_ptr[j + 1]]] = True
            zeros = np.flatnonzero(~listed).astype(np.int32)
            neg = int(np.searchsorted(v, 0.0, side="left"))
            r = np.concatenate([r[:neg], zeros, r[neg:]])
            v = np.concatenate([v[:neg], np.zeros(len(zeros), dtype=np.float32), v[neg:]])
        rows.append(r)
        vals.append(v)
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return ptr, np.concatenate(rows).astype(np.int32), np.concatenate(vals).astype(np.float32)


def _threads(parallel_rule_refinement: str) -> int:
    """Threads of a refinement step: Numba's, fewer with mlrl-seco's num_preferred_threads, 1 with 'false'."""
    name, options = parse_option("seco:parallel_rule_refinement", parallel_rule_refinement)
    if name == "false":
        return 1
    preferred = options.get("num_preferred_threads", 0)
    return max(1, min(numba.get_num_threads(), preferred) if preferred > 0 else numba.get_num_threads())


def _step_scratch(chunks: int, Kc: int):
    """Per thread of a step: its best (out_f, out_i), and its scratch; the best of all threads (best)."""
    scratch = [(np.empty((5, 2 * Kc), dtype=np.int32), np.empty(Kc, dtype=np.float32), np.empty(Kc, dtype=np.int64),
                np.empty((3, Kc)), np.empty(3)) for _ in range(chunks)]
    return np.empty((chunks, 2)), np.empty((chunks, N_BEST_I), dtype=np.int64), np.empty(1), scratch


_POOL: list = [None, 0]  # the threads that join this one in a refinement step, and how many


def _run_chunks(args, chunks, out_f, out_i, scratch, cancel) -> None:
    """mlrl_refine in ``chunks`` threads (this one and a pool's; the kernel releases the GIL)."""
    calls = [args + (c, chunks, out_f[c], out_i[c], *scratch[c], cancel, WINDOWS) for c in range(chunks)]
    if chunks == 1:
        _refine(*calls[0])
        return
    if _POOL[1] < chunks - 1:
        _POOL[:] = [ThreadPoolExecutor(max_workers=chunks - 1, thread_name_prefix="seco-refinement"), chunks - 1]
    futures = [_POOL[0].submit(_refine, *call) for call in calls[1:]]
    _refine(*calls[0])
    for future in futures:
        future.result()


def _refine(order, bptr, brows, bvals, wrows, wvals, wlen, wstamp, rule_id, full, miss_ptr, miss_rows, dense, covered,
            w, Wm, U, maj, min_cov, h, p, mode, lift, max_lift, floor, score, best, chunk, n_chunks, out_f, out_i,
            counts, qbuf, head, C, shared, cancel, shape):
    mlrl_refine(order, chunk, n_chunks, bptr, brows, bvals, wrows, wvals, wlen, wstamp, rule_id, full, miss_ptr,
                miss_rows, dense, covered, w, Wm, U, maj, min_cov, h, p, mode, lift, max_lift, floor, score, best, out_f,
                out_i, counts, qbuf, head, C, shared, cancel, shape)


def _best_chunk(out_f, out_i) -> int:
    """The thread whose candidate is best: highest quality, then smallest attribute, then candidate number."""
    best = -1
    for c in range(len(out_f)):
        if out_i[c, HAVE] and (best < 0 or (out_f[c, BEST_Q], -out_i[c, ATTR], -out_i[c, SEQ])
                               > (out_f[best, BEST_Q], -out_i[best, ATTR], -out_i[best, SEQ])):
            best = c
    return best


def _mode(partial: bool, fixed: bool) -> int:
    if not partial:
        return HEAD_SINGLE_MODE
    return HEAD_PARTIAL_ALL if fixed else HEAD_PARTIAL_SEARCH


def _feature_sample(D: int, m: int, retained: int, rng) -> np.ndarray:
    """All attributes, or ``m`` of them without replacement (the last ``retained`` always), ascending."""
    if m >= D:
        return np.arange(D, dtype=np.int64)
    free = D - retained
    picked = rng.choice(free, max(0, m - retained), replace=False) if free > 0 else np.empty(0, np.int64)
    return np.sort(np.concatenate([picked, np.arange(free, D)])).astype(np.int64)


def _instance_weights(method: str, size: int, Y: np.ndarray, rng, strata=None) -> np.ndarray:
    """Per rule: weight 1 for every example (none), the number of draws (with-replacement), or 1 for
    ``size`` examples chosen uniformly or stratified by labels (engine.holdout's stratifications;
    ``strata``: an :class:`_OutputWise` of ``Y`` and ``size`` for 'stratified-output-wise')."""
    n = Y.shape[0]
    if method == "none":
        return np.ones(n, dtype=np.int64)
    if method == "with-replacement":
        return np.bincount(rng.integers(0, n, size), minlength=n).astype(np.int64)
    weights = np.zeros(n, dtype=np.int64)
    if size >= n:
        weights[:] = 1
    elif method == "without-replacement":
        weights[rng.choice(n, size, replace=False)] = 1
    elif method == "stratified-output-wise" and strata is not None:
        weights[strata.sample(int(rng.integers(2**63 - 1)))] = 1
    else:
        _, sample = split_holdout(Y, method, size / n, int(rng.integers(2**63 - 1)))
        weights[sample] = 1
    return weights


class _OutputWise:
    """The sample of ``split_holdout(Y, 'stratified-output-wise', size / N, seed)`` (engine.holdout's
    iterative stratification; the sample is its holdout set) with the labels' positives found once per
    fit: the same random draws in the same order, so the same examples (tests/test_seco_refine.py)."""

    def __init__(self, Y: np.ndarray, size: int):
        n = Y.shape[0]
        fraction = size / n
        self.n = n
        self.target = min(max(int(round(fraction * n)), 1), n - 1)
        positives = Y.sum(axis=0)
        self.labels = [(np.flatnonzero(Y[:, k] > 0), int(round(fraction * positives[k])))
                       for k in np.argsort(positives, kind="stable") if positives[k] != 0]

    def sample(self, seed) -> np.ndarray:
        rng = np.random.default_rng(seed)
        assigned = np.zeros(self.n, dtype=np.int8)  # 0 unassigned, 1 train, 2 holdout (the sample)
        n_sample = 0
        for members, quota in self.labels:
            state = assigned[members]
            free = rng.permutation(members[state == 0])
            want = max(0, min(quota - int(np.count_nonzero(state == 2)), len(free), self.target - n_sample))
            assigned[free[:want]] = 2
            assigned[free[want:]] = 1
            n_sample += want
        missing = self.target - n_sample
        if missing <= 0:
            return np.flatnonzero(assigned == 2)
        # filled up with examples no label placed first, then at random (the draws a split would make)
        rest = rng.permutation(np.flatnonzero(assigned == 0))
        if len(rest) < missing:
            rest = np.concatenate([rest, rng.permutation(np.flatnonzero(assigned == 1))])
        return np.concatenate([np.flatnonzero(assigned == 2), rest[:missing]])


class _DecisionListTracker(ErrorTotals):
    """Predictions of a growing decision list that ends with a fixed default rule: only newly set
    (example, label) pairs change, so the losses are updated incrementally."""

    def __init__(self, Y, default_values):
        self.Y = np.ascontiguousarray(Y, dtype=np.uint8)
        n, K = self.Y.shape
        self.decided = np.zeros((n, K), dtype=np.uint8)
        self.pred = np.repeat(default_values[None, :], n, axis=0).astype(np.uint8)
        self.errors = (self.pred != self.Y).sum(axis=1).astype(np.int64)
        self.wrong_labels = int(self.errors.sum())
        self.wrong_examples = int((self.errors > 0).sum())

    def apply(self, rows, labels, values) -> int:
        """Set the still undecided ``labels`` of ``rows`` to ``values``; returns how many were set."""
        if len(rows) == 0:
            return 0
        sub = np.ix_(rows, labels)
        free = self.decided[sub] == 0
        new = np.where(free, values[None, :], self.pred[sub]).astype(np.uint8)
        self.pred[sub] = new
        self.decided[sub] = 1
        errors = (self.pred[rows] != self.Y[rows]).sum(axis=1)
        self.wrong_labels += int(errors.sum() - self.errors[rows].sum())
        self.wrong_examples += int((errors > 0).sum() - (self.errors[rows] > 0).sum())
        self.errors[rows] = errors
        return int(free.sum())
