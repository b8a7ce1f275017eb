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

from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np

from ..core.seco_search import (H_FMEASURE, H_HAMMING, H_PRECISION, H_RECALL, H_SUBSET, covered_counts, head_search,
                                mask_bitset)
from ..incremental import IncrementalPrediction
from ..learner import RuleLearner, RuleRecord, TrainingData
from ..model import RuleModel
from ..options import OPTIONS, OptionSpec, option_help, parse_option
from ..parameters import FROM_INIT, Parameter
from ..rules import Rule
from ..validation import check_choice
from .covering import MlrlFit
from .mlrl_blocks import MLRL_HEURISTICS, _irep, _irep_masks
from .pakdd import PakddFit, _countable

# -- the paper's search (PAKDD 2018) --------------------------------------------------------------
HEURISTICS = ("subset-accuracy", "f-measure", "hamming-accuracy", "precision", "recall")
HEURISTIC_CODES = {"precision": H_PRECISION, "hamming-accuracy": H_HAMMING, "recall": H_RECALL,
                   "f-measure": H_FMEASURE, "subset-accuracy": H_SUBSET}
HEAD_SEARCH = ("pruned", "exhaustive")
MAX_EXHAUSTIVE_LABELS = 24

# -- mlrl-seco 0.15.6's parameter values and options (engine.options syntax, tables 'seco:<name>') --


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


class SeCoClassifier(IncrementalPrediction, RuleLearner):
    """Separate-and-conquer multi-label rules, a decision list: mlrl-seco 0.15.6's ``SeCoClassifier``
    (every parameter, value, option and default; see the module doc), or the PAKDD 2018 paper's search
    (``search='pakdd-2018{...}'``, a parameter of ours).  Every parameter takes None, meaning its default
    (``random_state`` None is mlrl-seco's 1)."""

    LEARNER_NAME = "seco"
    NONE_IS_DEFAULT = True  # every parameter takes None, meaning its default, as mlrl-seco's do
    # a decision list's rules give labels, not probabilities (mlrl-seco has no predict_proba either)
    PROBABILITIES = False

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
        name, options = parse_option("seco:rule_induction", self.effective().rule_induction)
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
        values = self.effective()
        name, options = parse_option("seco:search", values.search)
        if name == "pakdd-2018":
            _, induction = parse_option("seco:rule_induction", values.rule_induction)
            cfg = dict(options, max_conditions=induction["max_conditions"] or None,
                       min_coverage=induction["min_coverage"],
                       max_rules=values.max_rules if values.max_rules > 0 else 2**31 - 1)
            yield from self._learn_pakdd(data, cfg)
        else:
            yield from self._learn_mlrl(data)

    # -- mlrl-seco's covering loop ---------------------------------------------------------
    def _learn_mlrl(self, data: TrainingData) -> Iterator[RuleRecord]:
        """mlrl-seco's covering loop (:class:`.covering.MlrlFit`)."""
        return MlrlFit(self, data).learn()

    # IREP of mlrl-seco's search (:func:`.mlrl_blocks._irep`)
    _irep = staticmethod(_irep)
    _irep_masks = staticmethod(_irep_masks)

    # -- the PAKDD 2018 covering loop (search='pakdd-2018{...}') ------------------------------
    def _learn_pakdd(self, data: TrainingData, cfg: dict) -> Iterator[RuleRecord]:
        """The PAKDD 2018 covering loop (:class:`.pakdd.PakddFit`)."""
        K = data.Y.shape[1]
        if cfg['head_search'] == "exhaustive" and K > MAX_EXHAUSTIVE_LABELS:
            raise ValueError(f"head_search='exhaustive' evaluates 2^K heads; K={K} labels is too many "
                             f"(at most {MAX_EXHAUSTIVE_LABELS})")
        return PakddFit(self, data, cfg, HEURISTIC_CODES[cfg['heuristic']]).learn()


def revision_steps(params: Mapping) -> int:
    """How many revision steps a fit with SeCoClassifier's ``params`` streams at most (after its rules):
    ``post_optimization='sequential{num_iterations=n}'`` revises each learned rule n times."""
    params = {k: v for k, v in params.items() if v is not None}  # None: the default
    if not _mlrl(params):
        return 0
    name, options = parse_option("seco:post_optimization", params.get("post_optimization", "none"))
    rules = int(params.get("max_rules", 500)) - 1  # the default rule counts
    return 0 if name == "none" else max(rules, 0) * options["num_iterations"]
