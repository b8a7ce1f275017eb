"""BOOMER and SeCo as packages over a fit state: options parsed once into frozen settings, no learner
function over 80 lines or 16 parameters, no ``locals()`` hand-off."""
import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from engine.boomer import BoomerClassifier
from engine.boomer.instance_sampling import InstanceSampler
from engine.boomer.settings import MAX_CONDITIONS_CAP, BoomerSettings
from engine.boomer.stopping import StopCriteria

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine/boomer", "engine/seco")
# the estimators' constructors take one argument per parameter (scikit-learn's convention); _refine puts the
# arguments of mlrl-seco's refinement kernel in its order (their packing into records is a later step)
WIDE = {"BoomerClassifier.__init__", "BoomerRegressor.__init__", "SeCoClassifier.__init__", "_refine"}


def _functions():
    for package in PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        owner = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
                        yield path.relative_to(ROOT), owner + child.name, child


def test_no_learner_function_is_over_80_lines_or_16_parameters():
    long, wide = [], []
    for path, name, node in _functions():
        if node.end_lineno - node.lineno + 1 > 80:
            long.append(f"{path}:{node.lineno} {name}")
        args = node.args
        count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)
        if count > 16 and name not in WIDE:
            wide.append(f"{path}:{node.lineno} {name} ({count})")
    assert long == [] and wide == []
    assert sum(1 for _ in _functions()) > 150  # the walk found the packages' functions


def test_no_learner_hands_its_locals_over():
    calls = [f"{path}:{node.lineno}" for path, _, fn in _functions() for node in ast.walk(fn)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("locals", "vars")]
    assert calls == []


def test_settings_are_parsed_once_into_frozen_typed_values():
    est = BoomerClassifier(head_type="partial-fixed{output_ratio=0.5}", instance_sampling="without-replacement"
                           "{sample_size=0.25}", rule_induction="top-down-greedy{min_support=0.1}", max_conditions=3,
                           shrinkage=0.5, parallel_rule_refinement="true{num_preferred_threads=2}")
    settings = BoomerSettings.of(est)
    assert (settings.head_kind, settings.head["output_ratio"], settings.eta, settings.threads) == (
        "partial-fixed", 0.5, 0.5, 2)
    assert settings.n_drawn(200) == 50 and settings.n_drawn(3) == 1
    assert settings.induction.limits(200) == (3, 20)  # min_support 0.1 of 200 examples raises min_coverage to 20
    assert BoomerSettings.of(BoomerClassifier()).induction.limits(10) == (MAX_CONDITIONS_CAP, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.eta = 1.0
    with pytest.raises(TypeError):
        settings.head.options["output_ratio"] = 1.0
    assert settings.kernel_family(500, 8, 6) == est._kernel_family(500, 8, 6)


def test_a_rule_s_instance_sample_is_drawn_the_same_way_in_training_and_after():
    """One sampler serves training and post-optimization: its generator (seeded with random_state) moves on
    rule by rule; two samplers with the same seed draw the same samples."""
    Y = (np.random.default_rng(0).random((40, 3)) < 0.4).astype(np.uint8)
    draws = []
    for _ in range(2):
        sampler = InstanceSampler("without-replacement", 10, Y, None, 5)
        draws.append([sampler.draw().copy() for _ in range(3)])
    for a, b in zip(*draws):
        assert np.array_equal(a, b) and a.sum() == 10 and set(np.unique(a)) == {0.0, 1.0}
    assert not np.array_equal(draws[0][0], draws[0][1])  # a new sample per rule
    assert sampler.bagging == 0 and sampler.subset


def test_stop_criteria_say_why_training_ended():
    est = BoomerClassifier()
    est.records_ = [None] * 4
    stopping = StopCriteria(est, max_rules=3, time_limit=0, default_rule=True)
    assert (est.stop_reason_, est.stop_message_) == ("max_rules", "")
    assert stopping.another_rule(False) and stopping.another_rule(False) and not stopping.another_rule(False)
    assert est.stop_reason_ == "max_rules"  # the budget of 2 rules after the default rule
    stopping = StopCriteria(est, max_rules=0, time_limit=0, default_rule=True)
    assert not stopping.another_rule(True)
    assert est.stop_reason_ == "pre_pruning" and "after 4 rules" in est.stop_message_
    stopping.no_refinement("of the sampled outputs")
    assert est.stop_reason_ == "no_refinement" and est.stop_message_.endswith(
        "improves the objective of the sampled outputs")
