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

from .boomer import PAPER_2020, BoomerClassifier

_PAPER = {k: v for k, v in PAPER_2020.items() if k != "max_rules"}  # presets leave the budget alone
from .parameters import Parameter, declared  # noqa: F401 - Parameter is part of this API
from .boomer.post_optimization import revision_steps


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
    (``inspect(step, schema)`` → HTML) and, for a loaded model, ``summary(estimator)`` → HTML;
    ``cls`` is the class of ``step.component`` (a frozen dataclass: sessions save steps with it,
    see :mod:`engine.step_document`)."""

    kind: str
    noun: str  # "rule", "iteration", "expert": what the budget counts, for progress texts
    columns: tuple[Column, ...] = ()
    inspect: Callable[[Any, Any], str] | None = None
    summary: Callable[[Any], str] | None = None
    cls: type | None = None


CLASSIFIER_METRICS = (
    Metric("train_hamming", "Hamming loss (train)"), Metric("train_subset", "subset 0/1 loss (train)"),
    Metric("test_hamming", "Hamming loss (test)"), Metric("test_subset", "subset 0/1 loss (test)"))
CLASSIFIER_PLOTS = (Plot("Hamming vs subset 0/1 loss", (("train_hamming", "train_subset"),
                                                        ("test_hamming", "test_subset")),
                         "Hamming loss", "subset 0/1 loss"),)
RULES = ComponentView("rule", "rule")


@dataclass(frozen=True)
class LearnerSpec:
    key: str
    title: str
    factory: Callable[..., Any]
    parameters: tuple[Parameter, ...] = ()  # default: the factory's declaration (engine.parameters)
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""
    budget: str | None = None  # the parameter that bounds the number of steps
    # steps besides the budget's that ``params`` ask for (BOOMER's revisions of earlier rules), None: none
    extra_steps: Callable[[Mapping], int] | None = None
    metrics: tuple[Metric, ...] = CLASSIFIER_METRICS
    plots: tuple[Plot, ...] = CLASSIFIER_PLOTS
    component: ComponentView = RULES
    capabilities: frozenset = frozenset()  # {"what-if", "explain"}
    # rule learners: numbers of each step (keys of ``RuleRecord.extra``) shown as rule-table columns
    step_columns: tuple[Metric, ...] = ()
    improvement: str = "Decrease of the training objective achieved by the rule"  # what 'improvement' means
    task: str = "classification"  # the data it learns from: 'classification' (0/1 labels) or 'regression'

    def __post_init__(self):
        if not self.parameters and getattr(self.factory, "PARAMETERS", None):
            object.__setattr__(self, "parameters", declared(self.factory))
        names = {p.name for p in self.parameters}
        if self.budget is not None and self.budget not in names:
            raise ValueError(f"{self.key}: budget parameter {self.budget!r} is not one of its parameters")
        known = {m.name for m in self.metrics} | {STEP}
        for plot in self.plots:
            for x, y in plot.series:
                if x not in known or y not in known:
                    raise ValueError(f"{self.key}: plot {plot.title!r} names an undeclared metric ({x}, {y})")

    def fits_task(self, task: str) -> bool:
        """Does it learn from data of ``task`` ('classification' or 'regression')?"""
        return self.task == task

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)

    def budget_of(self, params: Mapping) -> int | None:
        """The number of steps ``params`` allow (None: no limit or no budget parameter)."""
        if self.budget is None:
            return None
        value = params.get(self.budget)
        if value is None:  # not given, or None meaning the default (mlrl-boomer's convention)
            value = self.defaults().get(self.budget)
        return int(value) if value else None

    def steps_of(self, params: Mapping) -> int | None:
        """The number of steps a run streams at most: the budget's and the :attr:`extra_steps` (None: no
        limit; settings that are not valid yet add none)."""
        budget = self.budget_of(params)
        if budget is None or self.extra_steps is None:
            return budget
        try:
            return budget + int(self.extra_steps({**self.defaults(), **params}))
        except (ValueError, TypeError):
            return budget

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def make(self, **params):
        unknown = set(params) - {p.name for p in self.parameters}
        if unknown:
            raise ValueError(f"unknown parameter(s) for {self.title}: {', '.join(sorted(unknown))}")
        return self.factory(**{**self.defaults(), **params})


_REGISTRY: dict[str, LearnerSpec] = {}
PAPER_PRESETS = ("Label-wise, single-label heads", "Label-wise, multi-label heads", "Example-wise, single-label heads",
                 "Example-wise, multi-label heads")  # BOOMER's presets with the paper's 2020 settings (Figure 1)
MLRL_DEFAULTS_PRESET = "mlrl-boomer 0.15.6 defaults"


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


register(LearnerSpec(
    key="boomer",
    title="BOOMER (gradient-boosted rules)",
    factory=BoomerClassifier,
    description="Rapp et al., ECML-PKDD 2020: gradient boosting of multi-label rules with a second-order objective.",
    budget="max_rules",
    extra_steps=revision_steps,  # post_optimization: each pass revises every learned rule
    capabilities=frozenset({"what-if", "explain"}),
    metrics=CLASSIFIER_METRICS + (Metric("holdout_loss", "loss on the holdout set"),
                                  Metric("train_loss", "loss on the training set (global pruning without holdout)")),
    # The paper's Figure 1 (Rapp et al. 2020): each preset sets every parameter of PAPER_2020 explicitly,
    # so choosing one gives the paper's model whatever the estimator's defaults (mlrl-boomer's) are.
    # The last preset is mlrl-boomer 0.15.6's default model, every value spelled out.  No preset
    # touches the run's budget (max_rules): a lecturer's 300 rules stay 300 rules.
    presets={
        "Label-wise, single-label heads": {**_PAPER, "loss": "logistic-decomposable", "head_type": "single"},
        "Label-wise, multi-label heads": {**_PAPER, "loss": "logistic-decomposable", "head_type": "complete"},
        "Example-wise, single-label heads": {**_PAPER, "loss": "logistic-non-decomposable", "head_type": "single"},
        "Example-wise, multi-label heads": {**_PAPER, "loss": "logistic-non-decomposable", "head_type": "complete"},
        # every setting the panel offers (advanced ones it does not offer stay at these defaults anyway)
        MLRL_DEFAULTS_PRESET: {p.name: p.default for p in declared(BoomerClassifier)
                               if p.shown and p.name not in ("random_state", "max_rules")},
    },
))

# -- BOOMER for multi-output regression (engine/boomer/regressor.py) ----------------------------
from .boomer import BoomerRegressor  # noqa: E402

REGRESSION_METRICS = (Metric("train_mse", "mean squared error (train)"), Metric("train_mae", "mean absolute error (train)"),
                      Metric("test_mse", "mean squared error (test)"), Metric("test_mae", "mean absolute error (test)"))
REGRESSION_PLOTS = (Plot("MSE and MAE", ((STEP, "train_mse"), (STEP, "test_mse"), (STEP, "train_mae"),
                                         (STEP, "test_mae")), "rules", "error"),)

register(LearnerSpec(
    key="boomer-regressor",
    title="BOOMER regressor (gradient-boosted rules, real targets)",
    factory=BoomerRegressor,
    description="mlrl-boomer 0.15.6's BoomerRegressor: gradient boosting of multi-output regression rules with "
                "squared-error statistics; heads are real values per target.",
    budget="max_rules",
    extra_steps=revision_steps,
    task="regression",
    capabilities=frozenset({"explain"}),
    metrics=REGRESSION_METRICS + (Metric("holdout_loss", "loss on the holdout set"),
                                  Metric("train_loss", "loss on the training set (global pruning without holdout)")),
    plots=REGRESSION_PLOTS,
    step_columns=(Metric("train_mse", "train MSE"), Metric("train_mae", "train MAE"), Metric("test_mse", "test MSE"),
                  Metric("test_mae", "test MAE")),
    improvement="Decrease of the training objective (squared error) achieved by the rule",
    presets={MLRL_DEFAULTS_PRESET: {p.name: p.default for p in declared(BoomerRegressor)
                                    if p.shown and p.name not in ("random_state", "max_rules")}},
))


# -- AdaBoost.MH and separate-and-conquer rules (engine/adaboost.py, engine/seco/) -------------
from .adaboost import AdaBoostMHClassifier  # noqa: E402
from .seco import SeCoClassifier, revision_steps as seco_revision_steps  # noqa: E402

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
    presets={
        "Stumps": {"weak_learner": "stump"},
        "Rules": {"weak_learner": "rule", "max_conditions": None},
        "Short rules (≤ 3 conditions)": {"weak_learner": "rule", "max_conditions": 3},
    },
))

SECO_DEFAULTS_PRESET = "mlrl-seco 0.15.6 defaults"
register(LearnerSpec(
    key="seco",
    title="SeCo (separate-and-conquer, multi-label heads)",
    factory=SeCoClassifier,
    description="mlrl-seco 0.15.6's separate-and-conquer learner (its parameters and defaults): a decision list of "
                "rules predicting minority labels, heads by heuristics and lift functions; the PAKDD 2018 search of "
                "Rapp, Loza Mencía & Fürnkranz (heads by anti-monotonicity) as search='pakdd-2018{...}'.",
    budget="max_rules",  # a decision list: no what-if switches; explanations by the first covering rule per label
    extra_steps=seco_revision_steps,
    capabilities=frozenset({"explain"}),  # post_optimization='sequential': each pass revises every learned rule
    step_columns=(Metric("heuristic", "heuristic", False),),
    improvement="Decrease of the training Hamming loss achieved by the rule",
    presets={
        # every setting the panel offers, at mlrl-seco's defaults (the budget stays the user's)
        SECO_DEFAULTS_PRESET: {p.name: p.default for p in declared(SeCoClassifier)
                               if p.shown and p.name not in ("random_state", "max_rules")},
        "Partial heads, peak lift (mlrl-seco)": {"search": "mlrl-seco", "head_type": "partial", "lift_function": "peak"},
        # the paper's search; min_coverage 10 keeps rules general (pure rules covering a handful of examples overfit)
        "Subset accuracy (the paper)": {"search": "pakdd-2018{heuristic=subset-accuracy,head_search=pruned}",
                                        "rule_induction": "top-down-greedy{min_coverage=10}"},
        "F-measure (the paper)": {"search": "pakdd-2018{heuristic=f-measure,beta=1.0}",
                                  "rule_induction": "top-down-greedy{max_conditions=5}"},
        "Hamming accuracy (the paper)": {"search": "pakdd-2018{heuristic=hamming-accuracy}",
                                         "rule_induction": "top-down-greedy{min_coverage=10}"},
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
                     f"<td align='right'>{_fmt(m.get('test_' + key))}</td></tr>" for key, title in _ERRORS)
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
    presets={f"Trained with {d}": {"decomposition": d} for d in _DECOMPOSITIONS},
    budget="max_iterations",
    metrics=(
        Metric("train_loss", "loss L (train)"), Metric("bound", "Theorem-1 bound", lower_is_better=False),
        Metric("decrease", "decrease of L", lower_is_better=False), Metric("slack", "decrease − bound",
                                                                            lower_is_better=False),
        *(Metric(f"{s}_{key}", f"{title} error ({'train' if s == 'train' else 'test'})")
          for s in ("train", "test") for key, title in _ERRORS),
        *CLASSIFIER_METRICS,
        Metric("test_rank_loss", "rank loss (test)"),
        Metric("test_average_precision", "average precision (test)", lower_is_better=False),
    ),
    plots=(
        Plot("Training loss", ((STEP, "train_loss"),), "iteration", "L (eq. 1)"),
        Plot("Generalised errors", tuple((STEP, f"{s}_{key}") for s in ("train", "test") for key, _ in _ERRORS),
             "iteration", "error"),
        CLASSIFIER_PLOTS[0],
    ),
    component=ComponentView(
        "update", "iteration",
        columns=(Column("largest change", lambda s: s.component.summary()),
                 Column("moved", lambda s: s.component.n_changed)),
        inspect=_ranking_inspect, summary=_ranking_summary, cls=_ranking.ParallelUpdate),
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
                  for key, name in (("test_subset", "test subset 0/1"), ("test_hamming", "test Hamming"),
                                    ("test_cll", "test CLL-loss (sum)"), ("internal_val_ll", "internal-validation LL")))
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
    presets={"Paper (5 experts, early stopping)": {"n_experts": 5, "early_stopping": True, "structure": "tree"},
             "Single CTBN": {"n_experts": 1, "structure": "tree"},
             "Binary relevance (logistic regressions)": {"n_experts": 1, "structure": "independent"},
             "5 experts, no early stopping": {"n_experts": 5, "early_stopping": False, "structure": "tree"}},
    budget="n_experts",
    metrics=(*CLASSIFIER_METRICS,
             Metric("test_cll", "CLL-loss (test, sum)"), Metric("train_cll", "CLL-loss (train, sum)"),
             Metric("internal_val_ll", "internal-validation LL", lower_is_better=False),
             Metric("penalized_ll", "penalised LL (EM)", lower_is_better=False),
             Metric("em_iterations", "EM iterations"), Metric("ess", "effective sample size", lower_is_better=False),
             Metric("n_experts", "experts in the mixture")),
    plots=(CLASSIFIER_PLOTS[0],
           Plot("Conditional log-likelihood", ((STEP, "train_cll"), (STEP, "test_cll")), "expert", "CLL-loss")),
    component=ComponentView(
        "expert", "expert",
        columns=(Column("tree", lambda s: s.component.summary()),
                 Column("accepted", lambda s: "yes" if s.component.accepted else "no")),
        inspect=_mlme_inspect, summary=_mlme_summary, cls=_mlme.ExpertStep),
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
    metrics=(*CLASSIFIER_METRICS, Metric("test_cll", "CLL-loss (test, sum)"), Metric("train_cll", "CLL-loss (train, sum)")),
    component=ComponentView(
        "label", "label",
        columns=(Column("label", lambda s: s.component.name or str(s.component.label)),
                 Column("reads labels", lambda s: str(len(s.component.inputs))),
                 Column("largest coefficients", lambda s: s.component.strongest)),
        inspect=_chain_inspect, summary=_chain_summary, cls=_chain.ChainLink),
))
