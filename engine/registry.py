"""The learner registry: what a user interface needs to offer a learner without knowing it.

Each :class:`LearnerSpec` names an estimator class, describes its parameters (kind, range,
choices, help) and one-click presets, and declares what its ``fit_iter`` streams (see
:mod:`engine.steps`): the metrics of its steps, the default plots, the kind of component a step
adds and how to present it, the budget parameter, and optional capabilities ("what-if" switches,
"explain" per-example explanations).  A GUI builds its learner panel, step table, plots,
inspector and progress bar from these specs, so adding a learner is one ``register`` call."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .boomer import (FEATURE_BINNING, FEATURE_SAMPLING, GLOBAL_PRUNING, HEAD_TYPES, HOLDOUT, INSTANCE_SAMPLING,
                     LABEL_BINNING, STATISTIC_TYPES, BoomerClassifier, label_binning_applies)
from .options import OPTIONS, format_option
from .core.losses import LOSSES


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # 'choice' | 'option' (a choice with mlrl-boomer options: 'name{key=value}') | 'int' | 'float' | 'seed'
    default: Any
    label: str = ""
    help: str = ""
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False  # None is allowed (shown as "no limit")
    # whether the parameter has any effect given all parameter values (a GUI disables it otherwise)
    applies: Callable[[Mapping], bool] | None = None

    def applies_to(self, params: Mapping) -> bool:
        return self.applies is None or bool(self.applies(params))

    def __post_init__(self):
        if self.kind not in ("choice", "option", "int", "float", "seed"):
            raise ValueError(f"unknown parameter kind {self.kind!r}")


@dataclass(frozen=True)
class Metric:
    """A value a learner reports in ``step.metrics``."""

    name: str
    label: str
    lower_is_better: bool = True


@dataclass(frozen=True)
class Plot:
    """A default plot: one line per (x, y) pair of metric names; x may be ``STEP`` (the step index)."""

    title: str
    series: tuple[tuple[str, str], ...]
    xlabel: str = ""
    ylabel: str = ""


STEP = "step"


@dataclass(frozen=True)
class Column:
    """A column of the step table: ``value(step)`` gives a string or a number."""

    title: str
    value: Callable[[Any], Any]


@dataclass(frozen=True)
class ComponentView:
    """How to present what a step adds: its kind (``step.kind``), table columns, an inspector
    (``inspect(step, schema)`` → HTML) and, for a loaded model, ``summary(estimator)`` → HTML."""

    kind: str
    noun: str  # "rule", "iteration", "expert": what the budget counts, for progress texts
    columns: tuple[Column, ...] = ()
    inspect: Callable[[Any, Any], str] | None = None
    summary: Callable[[Any], str] | None = None


def _label_binning_applies(params: Mapping) -> bool:
    try:
        return label_binning_applies(str(params.get("loss", "")), str(params.get("head_type", "auto")))
    except ValueError:  # a head type still being typed: the learner reports it when a run starts
        return True


def option_help(parameter: str) -> str:
    """The values of ``parameter`` that take options, written with their defaults."""
    with_options = [format_option(name, {k: spec.default for k, spec in specs.items()})
                    for name, specs in OPTIONS[parameter].items() if specs]
    return ("; options, e.g. " + ", ".join(with_options)) if with_options else ""


CLASSIFIER_METRICS = (
    Metric("train_hamming", "Hamming loss (train)"), Metric("train_subset", "subset 0/1 loss (train)"),
    Metric("val_hamming", "Hamming loss (test)"), Metric("val_subset", "subset 0/1 loss (test)"))
CLASSIFIER_PLOTS = (Plot("Hamming vs subset 0/1 loss", (("train_hamming", "train_subset"),
                                                        ("val_hamming", "val_subset")),
                         "Hamming loss", "subset 0/1 loss"),)
RULES = ComponentView("rule", "rule")


@dataclass(frozen=True)
class LearnerSpec:
    key: str
    title: str
    factory: Callable[..., Any]
    parameters: tuple[Parameter, ...]
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""
    budget: str | None = None  # the parameter that bounds the number of steps
    metrics: tuple[Metric, ...] = CLASSIFIER_METRICS
    plots: tuple[Plot, ...] = CLASSIFIER_PLOTS
    component: ComponentView = RULES
    capabilities: frozenset = frozenset()  # {"what-if", "explain"}
    # rule learners: numbers of each step (keys of ``RuleRecord.extra``) shown as rule-table columns
    step_columns: tuple[Metric, ...] = ()
    improvement: str = "Decrease of the training objective achieved by the rule"  # what 'improvement' means

    def __post_init__(self):
        names = {p.name for p in self.parameters}
        if self.budget is not None and self.budget not in names:
            raise ValueError(f"{self.key}: budget parameter {self.budget!r} is not one of its parameters")
        known = {m.name for m in self.metrics} | {STEP}
        for plot in self.plots:
            for x, y in plot.series:
                if x not in known or y not in known:
                    raise ValueError(f"{self.key}: plot {plot.title!r} names an undeclared metric ({x}, {y})")

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)

    def budget_of(self, params: Mapping) -> int | None:
        """The number of steps ``params`` allow (None: no limit or no budget parameter)."""
        if self.budget is None:
            return None
        value = params.get(self.budget, self.defaults().get(self.budget))
        return int(value) if value else None

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def make(self, **params):
        unknown = set(params) - {p.name for p in self.parameters}
        if unknown:
            raise ValueError(f"unknown parameter(s) for {self.title}: {', '.join(sorted(unknown))}")
        return self.factory(**{**self.defaults(), **params})


_REGISTRY: dict[str, LearnerSpec] = {}


def register(spec: LearnerSpec) -> None:
    _REGISTRY[spec.key] = spec


def unregister(key: str) -> None:
    """Remove a learner (e.g. one a test or a plug-in registered)."""
    _REGISTRY.pop(key, None)


def learners() -> list[LearnerSpec]:
    return list(_REGISTRY.values())


def get(key: str) -> LearnerSpec:
    try:
        return _REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown learner {key!r}; known: {', '.join(_REGISTRY)}") from None


def spec_for(estimator) -> LearnerSpec:
    for spec in _REGISTRY.values():
        if type(estimator) is spec.factory:
            return spec
    raise ValueError(f"{type(estimator).__name__} is not a registered learner")


register(LearnerSpec(
    key="boomer",
    title="BOOMER (gradient-boosted rules)",
    factory=BoomerClassifier,
    description="Rapp et al., ECML-PKDD 2020: gradient boosting of multi-label rules with a second-order objective.",
    budget="max_rules",
    capabilities=frozenset({"what-if", "explain"}),
    metrics=CLASSIFIER_METRICS + (Metric("holdout_loss", "loss on the holdout set"),
                                  Metric("train_loss", "loss on the training set (global pruning without holdout)")),
    parameters=(
        Parameter("loss", "choice", "logistic-decomposable", "Loss", "label-wise (decomposable) or example-wise",
                  choices=LOSSES),
        Parameter("head_type", "option", "auto", "Head", "single label, all labels, some labels (partial), or "
                  "auto (single for decomposable losses, complete otherwise)" + option_help("head_type"),
                  choices=HEAD_TYPES),
        Parameter("max_rules", "int", 1000, "Rules", "number of rules including the default rule", minimum=1,
                  maximum=100000),
        Parameter("shrinkage", "float", 0.3, "Shrinkage η", "learning rate", minimum=0.001, maximum=1.0),
        Parameter("l2_regularization_weight", "float", 1.0, "L2 weight λ", "eq. 15", minimum=0.0, maximum=1000.0),
        Parameter("l1_regularization_weight", "float", 0.0, "L1 weight", "", minimum=0.0, maximum=1000.0),
        Parameter("instance_sampling", "choice", "with-replacement", "Instance sampling", "bagging per rule",
                  choices=INSTANCE_SAMPLING),
        Parameter("feature_sampling", "choice", "without-replacement", "Feature sampling",
                  "log2 attributes per refinement step", choices=FEATURE_SAMPLING),
        Parameter("max_conditions", "int", None, "Max conditions", "empty = no limit", minimum=1, maximum=256,
                  optional=True),
        Parameter("min_coverage", "int", 1, "Min coverage", "examples a condition must cover", minimum=1,
                  maximum=100000),
        Parameter("feature_binning", "option", "none", "Feature binning", "split only between bins of each "
                  "attribute's values" + option_help("feature_binning"), choices=FEATURE_BINNING),
        Parameter("label_binning", "option", "none", "Label binning", "complete heads of example-wise "
                  "(non-decomposable) losses: labels with similar gradient/Hessian ratios share one score (GBLB); "
                  "label-wise complete heads are exact already in O(K)" + option_help("label_binning"),
                  choices=LABEL_BINNING, applies=_label_binning_applies),
        Parameter("holdout", "option", "none", "Holdout set", "training examples set aside to watch the loss "
                  "(for global pruning)" + option_help("holdout"), choices=HOLDOUT),
        Parameter("global_pruning", "option", "none", "Global pruning", "early stopping (pre) or keep the best "
                  "prefix (post), by the holdout loss" + option_help("global_pruning"), choices=GLOBAL_PRUNING),
        Parameter("statistic_type", "choice", "64-bit", "Statistics", "gradients and Hessians in 64 or 32 bits",
                  choices=STATISTIC_TYPES),
        Parameter("random_state", "seed", 1, "Seed", "same seed, same rules", minimum=0, maximum=2**31 - 1),
    ),
    presets={
        "Label-wise, single-label heads": {"loss": "logistic-decomposable", "head_type": "single"},
        "Label-wise, multi-label heads": {"loss": "logistic-decomposable", "head_type": "complete"},
        "Example-wise, single-label heads": {"loss": "logistic-non-decomposable", "head_type": "single"},
        "Example-wise, multi-label heads": {"loss": "logistic-non-decomposable", "head_type": "complete"},
    },
))


# -- AdaBoost.MH and separate-and-conquer rules (engine/adaboost.py, engine/seco.py) -------------
from .adaboost import FEATURE_SAMPLING as _ADA_FEATURE_SAMPLING  # noqa: E402
from .adaboost import WEAK_LEARNERS, AdaBoostMHClassifier  # noqa: E402
from .seco import HEAD_SEARCH, HEURISTICS, SeCoClassifier  # noqa: E402

register(LearnerSpec(
    key="adaboost-mh",
    title="AdaBoost.MH (boosted stumps or rules)",
    factory=AdaBoostMHClassifier,
    description="Schapire & Singer 1999: boosting with a distribution over (example, label) pairs; "
                "weak hypotheses vote ±1 per label with one confidence per round.",
    budget="max_rules",
    component=ComponentView("rule", "round"),  # a round adds one rule, or two for a stump
    step_columns=(Metric("alpha", "α", False), Metric("Z", "Z"), Metric("bound", "∏Z")),
    improvement="Decrease of the training error bound ∏Z in this round",
    capabilities=frozenset({"what-if", "explain"}),
    parameters=(
        Parameter("weak_learner", "choice", "stump", "Weak learner", "decision stumps (both sides vote) or "
                  "greedy rules (abstain outside the body)", choices=WEAK_LEARNERS),
        Parameter("max_rules", "int", 200, "Rounds", "boosting rounds (a stump adds two rules per round)",
                  minimum=1, maximum=100000),
        Parameter("max_conditions", "int", None, "Max conditions", "rule weak learner; empty = no limit",
                  minimum=1, maximum=256, optional=True, applies=lambda p: p.get("weak_learner") == "rule"),
        Parameter("feature_sampling", "choice", "none", "Feature sampling", "log2 attributes per search step",
                  choices=_ADA_FEATURE_SAMPLING),
        Parameter("random_state", "seed", 1, "Seed", "used by feature sampling", minimum=0, maximum=2**31 - 1,
                  applies=lambda p: p.get("feature_sampling") != "none"),
    ),
    presets={
        "Stumps": {"weak_learner": "stump"},
        "Rules": {"weak_learner": "rule", "max_conditions": None},
        "Short rules (≤ 3 conditions)": {"weak_learner": "rule", "max_conditions": 3},
    },
))

register(LearnerSpec(
    key="seco",
    title="SeCo (separate-and-conquer, multi-label heads)",
    factory=SeCoClassifier,
    description="Rapp, Loza Mencía & Fürnkranz, PAKDD 2018: a decision list of rules with multi-label heads, "
                "heads found by pruning with anti-monotonicity or decomposability of the heuristic.",
    budget="max_rules",  # a decision list: no what-if switches, no additive explanation
    step_columns=(Metric("heuristic", "heuristic", False),),
    improvement="Decrease of the training Hamming loss achieved by the rule",
    parameters=(
        Parameter("heuristic", "choice", "f-measure", "Heuristic", "rule quality on micro-averaged "
                  "confusion matrices (subset accuracy: example-based)", choices=HEURISTICS),
        Parameter("beta", "float", 1.0, "F-measure β", "weight of recall in the F-measure", minimum=0.01,
                  maximum=100.0, applies=lambda p: p.get("heuristic") == "f-measure"),
        Parameter("head_search", "choice", "pruned", "Head search", "pruned (anti-monotonicity) or exhaustive "
                  "over all label combinations", choices=HEAD_SEARCH),
        Parameter("max_rules", "int", 100, "Rules", "rules including the default rule", minimum=1, maximum=100000),
        Parameter("max_conditions", "int", 5, "Max conditions", "empty = no limit", minimum=1, maximum=256,
                  optional=True),
        Parameter("min_coverage", "int", 1, "Min coverage", "training examples a rule must cover", minimum=1,
                  maximum=100000),
        Parameter("label_coverage_threshold", "float", 1.0, "Label coverage", "fraction of an example's labels "
                  "that must be predicted before it leaves the training set", minimum=0.01, maximum=1.0),
        Parameter("max_uncovered", "float", 0.0, "Max uncovered", "stop when at most this fraction of the "
                  "training examples remains", minimum=0.0, maximum=0.99),
    ),
    presets={
        # min_coverage 10 keeps rules general; pure rules covering a handful of examples overfit
        "Subset accuracy (the paper)": {"heuristic": "subset-accuracy", "head_search": "pruned", "min_coverage": 10,
                                        "max_conditions": None},
        "F-measure": {"heuristic": "f-measure", "beta": 1.0, "max_conditions": 5},
        "Hamming accuracy": {"heuristic": "hamming-accuracy", "min_coverage": 10},
        "Precision": {"heuristic": "precision", "min_coverage": 10},
    },
))


# -- log-linear label ranking (engine/ranking/) --------------------------------------------------
from .ranking import booster as _ranking  # noqa: E402
from .ranking.graphs import DECOMPOSITIONS as _DECOMPOSITIONS  # noqa: E402

_ERRORS = (("01", "0-1"), ("dis", "dis"), ("Dom", "Dom"), ("dom", "dom"))


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.4g}"


def _ranking_inspect(step, schema=None) -> str:
    m = step.metrics
    rows = "".join(f"<tr><td>{c.feature}</td><td>{c.label}</td><td align='right'>{c.delta:+.4g}</td>"
                   f"<td align='right'>{c.value:.4g}</td></tr>" for c in step.component.changes)
    errors = "".join(f"<tr><td>{title}</td><td align='right'>{_fmt(m.get('train_' + key))}</td>"
                     f"<td align='right'>{_fmt(m.get('val_' + key))}</td></tr>" for key, title in _ERRORS)
    return (f"<h3>Iteration {step.index + 1}</h3>"
            f"<p>Loss L = {m['train_loss']:.6g}; it fell by {m['decrease']:.4g}, Theorem 1 guaranteed "
            f"{m['bound']:.4g} (slack {m['slack']:.3g} ≥ 0). {step.component.n_changed} coefficients moved.</p>"
            f"<table><tr><th>base feature</th><th>label</th><th>Δλ</th><th>λ</th></tr>{rows}</table>"
            f"<h4>Generalised errors (eq. 1)</h4><table><tr><th></th><th>train</th><th>test</th></tr>{errors}"
            "</table>")


def _ranking_summary(est) -> str:
    names = est.base_features_.names(list(est.schema_.feature_names) or None)
    labels = [est.schema_.label(y) for y in range(est.n_labels_)] + ["⊥ (calibration)"]
    coef = est.coef_
    top = np.argsort(-np.abs(coef).ravel(), kind="stable")[:20]
    rows = "".join(f"<tr><td>{names[j // coef.shape[1]]}</td><td>{labels[j % coef.shape[1]]}</td>"
                   f"<td align='right'>{coef.ravel()[j]:+.4g}</td></tr>" for j in top)
    return (f"<h3>Label-ranking model</h3><p>{est.n_labels_} labels, {coef.shape[0]} base features "
            f"({est.base_features_.kind}), decomposition {est.decomposition}.</p>"
            f"<table><tr><th>base feature</th><th>label</th><th>λ</th></tr>{rows}</table>")


register(LearnerSpec(
    key=_ranking.LEARNER_KEY,
    title="Label ranking (log-linear boosting)",
    factory=_ranking.LabelRankingBooster,
    description="Dekel, Manning & Singer, NIPS 2003: a log-linear ranking model trained on preference graphs "
                "(relevant ≻ irrelevant labels) with the parallel boosting update of Fig. 3.",
    parameters=(
        Parameter("decomposition", "choice", "dom", "Decomposition", "how each preference graph is split into "
                  "subgraphs: the loss's reading of a mistake (eq. 1)", choices=_DECOMPOSITIONS),
        Parameter("features", "choice", "per-label", "Base features", "per-label: scaled attribute values (the "
                  "paper); thresholds: x > θ indicators, each reads as a rule", choices=_ranking.FEATURES),
        Parameter("n_thresholds", "int", 8, "Thresholds", "per attribute, for threshold features", minimum=1,
                  maximum=255),
        Parameter("update", "choice", "parallel", "Update", "parallel: all coefficients (Fig. 3); sequential: "
                  "one base function per step (an extension)", choices=_ranking.UPDATES),
        Parameter("threshold", "choice", "calibration-label", "Bipartition", "how rankings become label sets "
                  "(not in the paper): a calibration label, or the training label cardinality",
                  choices=_ranking.THRESHOLDS),
        Parameter("max_iterations", "int", 200, "Iterations", "boosting iterations (steps)", minimum=1,
                  maximum=1_000_000),
        Parameter("eval_every", "int", 10, "Test every", "test metrics every this many steps", minimum=1,
                  maximum=100_000),
    ),
    presets={f"Trained with {d}": {"decomposition": d} for d in _DECOMPOSITIONS},
    budget="max_iterations",
    metrics=(
        Metric("train_loss", "loss L (train)"), Metric("bound", "Theorem-1 bound", lower_is_better=False),
        Metric("decrease", "decrease of L", lower_is_better=False), Metric("slack", "decrease − bound",
                                                                            lower_is_better=False),
        *(Metric(f"{s}_{key}", f"{title} error ({'train' if s == 'train' else 'test'})")
          for s in ("train", "val") for key, title in _ERRORS),
        *CLASSIFIER_METRICS,
        Metric("val_rank_loss", "rank loss (test)"),
        Metric("val_average_precision", "average precision (test)", lower_is_better=False),
    ),
    plots=(
        Plot("Training loss", ((STEP, "train_loss"),), "iteration", "L (eq. 1)"),
        Plot("Generalised errors", tuple((STEP, f"{s}_{key}") for s in ("train", "val") for key, _ in _ERRORS),
             "iteration", "error"),
        CLASSIFIER_PLOTS[0],
    ),
    component=ComponentView(
        "update", "iteration",
        columns=(Column("largest change", lambda s: s.component.summary()),
                 Column("moved", lambda s: s.component.n_changed)),
        inspect=_ranking_inspect, summary=_ranking_summary),
))


# -- ML-ME: mixtures of CTBN experts (engine/mlme/) ----------------------------------------------
from .mlme import classifier as _mlme  # noqa: E402


def _mlme_inspect(step, schema=None) -> str:
    c, m = step.component, step.metrics
    head = (f"<h3>Expert {c.expert}: {'accepted' if c.accepted else 'rejected'}"
            f"{' (mixture refitted on all training data)' if c.refit else ''}</h3>")
    label = schema.label if schema is not None else (lambda i: f"y{i}")
    arcs = "".join(f"<tr><td>{label(i)}</td><td>{'root' if p < 0 else label(p)}</td>"
                   f"<td align='right'>{w:.4g}</td></tr>" for i, (p, w) in enumerate(zip(c.parents, c.arc_weights)))
    em_trace = ", ".join(f"{v:.5g}" for v in c.em_objective[:: max(1, len(c.em_objective) // 8)])
    val = "".join(f"<tr><td>{name}</td><td align='right'>{_fmt(m.get(key))}</td></tr>"
                  for key, name in (("val_subset", "test subset 0/1"), ("val_hamming", "test Hamming"),
                                    ("val_cll", "test CLL-loss (sum)"), ("internal_val_ll", "internal-validation LL")))
    return (head + f"<p>Tree: {c.tree}</p>"
            f"<p>Learned on weights ω ∝ 1 − P(y|x): max {c.omega_max:.3g}, effective sample size {c.omega_ess:.1f}. "
            f"EM: {c.em_iterations} iterations; penalised log-likelihood {em_trace}.</p>"
            f"<table><tr><th>label</th><th>parent</th><th>W (eq. 13)</th></tr>{arcs}</table>"
            f"<table>{val}</table>")


def _mlme_summary(est) -> str:
    label = est.schema_.label
    rows = "".join(f"<li>{e.describe(label)}</li>" for e in est.mixture_.experts)
    return (f"<h3>ML-ME mixture of {est.mixture_.n_experts} CTBN expert(s)</h3>"
            f"<p>{est.n_labels_} labels, {est.n_features_in_} attributes.</p><ol>{rows}</ol>")


register(LearnerSpec(
    key=_mlme.LEARNER_KEY,
    title="ML-ME (mixture of tree-structured experts)",
    factory=_mlme.MLMEClassifier,
    description="Hong, Batal & Hauskrecht 2014: a gated mixture of conditional tree-structured Bayesian "
                "networks, experts added one at a time on re-weighted data, MAP label vectors by annealing.",
    parameters=(
        Parameter("n_experts", "int", 5, "Experts", "most experts (the paper: 5)", minimum=1, maximum=50),
        Parameter("l2", "float", 10.0, "L2 weight (experts)", "of every logistic regression", minimum=0.0,
                  maximum=10000.0),
        Parameter("gate_l2", "float", 100.0, "L2 weight (gate)", "of the softmax gate", minimum=0.0, maximum=10000.0),
        Parameter("early_stopping", "choice", True, "Early stopping", "stop when the internal-validation "
                  "likelihood drops", choices=(True, False)),
        Parameter("structure", "choice", "tree", "Expert structure", "tree: each label may have one parent "
                  "label (CTBN); independent: none (binary relevance)", choices=_mlme.STRUCTURES),
        Parameter("max_em_iter", "int", 50, "EM iterations", "per expert added", minimum=1, maximum=1000),
        Parameter("sa_iterations", "int", 150, "Annealing steps", "MAP search per example (the paper: 150)",
                  minimum=0, maximum=100000),
        Parameter("random_state", "seed", 1, "Seed", "splits and annealing", minimum=0, maximum=2**31 - 1),
    ),
    presets={"Paper (5 experts, early stopping)": {"n_experts": 5, "early_stopping": True, "structure": "tree"},
             "Single CTBN": {"n_experts": 1, "structure": "tree"},
             "Binary relevance (logistic regressions)": {"n_experts": 1, "structure": "independent"},
             "5 experts, no early stopping": {"n_experts": 5, "early_stopping": False, "structure": "tree"}},
    budget="n_experts",
    metrics=(*CLASSIFIER_METRICS,
             Metric("val_cll", "CLL-loss (test, sum)"), Metric("train_cll", "CLL-loss (train, sum)"),
             Metric("internal_val_ll", "internal-validation LL", lower_is_better=False),
             Metric("penalized_ll", "penalised LL (EM)", lower_is_better=False),
             Metric("em_iterations", "EM iterations"), Metric("ess", "effective sample size", lower_is_better=False),
             Metric("n_experts", "experts in the mixture")),
    plots=(CLASSIFIER_PLOTS[0],
           Plot("Conditional log-likelihood", ((STEP, "train_cll"), (STEP, "val_cll")), "expert", "CLL-loss")),
    component=ComponentView(
        "expert", "expert",
        columns=(Column("tree", lambda s: s.component.summary()),
                 Column("accepted", lambda s: "yes" if s.component.accepted else "no")),
        inspect=_mlme_inspect, summary=_mlme_summary),
))


from .mlme import chain as _chain  # noqa: E402


def _chain_inspect(step, schema) -> str:
    c = step.component
    label = schema.label if schema is not None else (lambda i: f"y{i}")
    reads = ", ".join(label(j) for j in c.inputs) or "no label (the first of the chain)"
    m = step.metrics
    return (f"<h3>Link {c.position + 1}: {label(c.label)}</h3><p>Reads the attributes and {reads}.</p>"
            f"<p>Largest coefficients: {c.strongest}</p>"
            f"<p>Training Hamming {_fmt(m.get('train_hamming'))}, subset 0/1 {_fmt(m.get('train_subset'))}.</p>")


def _chain_summary(est) -> str:
    label = est.schema_.label
    chain = " → ".join(label(int(k)) for k in est.order_[: len(est.coef_)])
    return (f"<h3>Classifier chain of {len(est.coef_)} logistic regressions</h3>"
            f"<p>{est.n_labels_} labels, {est.n_features_in_} attributes; chain: {chain}.</p>")


register(LearnerSpec(
    key=_chain.LEARNER_KEY,
    title="Classifier chain (logistic regressions)",
    factory=_chain.LogisticChainClassifier,
    description="The baseline of ML-ME's paper: one L2 logistic regression per label, on the attributes and the "
                "labels before it in the chain (original order); greedy prediction. Binary relevance is the "
                "ML-ME preset 'Binary relevance'.",
    parameters=(Parameter("l2", "float", 10.0, "L2 weight", "of every logistic regression (ML-ME's default)",
                          minimum=0.0, maximum=10000.0),),
    metrics=(*CLASSIFIER_METRICS, Metric("val_cll", "CLL-loss (test, sum)"), Metric("train_cll", "CLL-loss (train, sum)")),
    component=ComponentView(
        "label", "label",
        columns=(Column("label", lambda s: str(s.component.label)),
                 Column("reads labels", lambda s: str(len(s.component.inputs))),
                 Column("largest coefficients", lambda s: s.component.strongest)),
        inspect=_chain_inspect, summary=_chain_summary),
))
