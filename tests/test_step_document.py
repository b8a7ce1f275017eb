"""Every learner's steps survive JSON (engine.step_document): what a session keeps of a run, read back
field for field, and malformed step lists refused with one ValueError naming the step and field."""
from __future__ import annotations

import copy
import dataclasses
import json
import math

import numpy as np
import pytest

from engine.datasets import make_synthetic
from engine.learner import RuleRecord, RuleRevision
from engine.registry import get
from engine.step_document import decode_steps, encode_steps

LEARNERS = [
    ("boomer", {"max_rules": 4}),
    ("boomer", {"max_rules": 3, "post_optimization": "sequential{num_iterations=1}"}),  # revisions
    ("seco", {"max_rules": 3}),
    ("adaboost-mh", {"max_rules": 3}),  # stumps: two rules per step
    ("label-ranking", {"max_iterations": 5, "eval_every": 2}),  # test metrics every other step
    ("ml-me", {"n_experts": 2, "max_em_iter": 3, "early_stopping": False, "sa_iterations": 10}),
    ("cc-lr", {}),
]


@pytest.fixture(scope="module")
def data():
    return make_synthetic("conditional-dependence", 150, 4, seed=0)


def _fit(key, params, data):
    est = get(key).make(**params)
    return est, list(est.fit_iter(data.X, data.Y, data.X, data.Y))


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if hasattr(a, "head_labels"):  # rules: conditions and head
        return a.conditions == b.conditions and list(a.head_labels) == list(b.head_labels) and \
            list(a.head_scores) == list(b.head_scores)
    if isinstance(a, tuple) and a and hasattr(a[0], "head_labels"):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("key,params", LEARNERS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(LEARNERS)])
def test_steps_round_trip_field_for_field(key, params, data):
    est, steps = _fit(key, params, data)
    doc = json.loads(json.dumps(encode_steps(steps)))  # what a session file holds
    back = decode_steps(doc, len(steps), get(key).component.cls, getattr(est, "model_", None))
    assert len(back) == len(steps) and [type(s) for s in back] == [type(s) for s in steps]
    for a, b in zip(steps, back):
        assert a.index == b.index and a.kind == b.kind
        assert _same(dict(a.metrics), dict(b.metrics))
        if isinstance(a, (RuleRecord, RuleRevision)):
            for f in a.__dataclass_fields__:
                assert _same(getattr(a, f), getattr(b, f)), f
        else:
            assert a.component == b.component
    if key == "adaboost-mh" and steps[0].extra_rules:
        assert len(back[0].rules) == 2 and back[0].extra["alpha"] == steps[0].extra["alpha"]
    if "post_optimization" in params:
        assert [s.kind for s in back].count("revision") == 2


def _doc(key, params, data):
    est, steps = _fit(key, params, data)
    return est, steps, json.loads(json.dumps(encode_steps(steps)))


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.pop(), "2 steps, but the run's trajectory has 3"),
    (lambda d: d[1].update(kind=7), "step 1, kind: expected a string"),
    (lambda d: d[0]["component"].update(label="x"), "step 0, component, label: expected an integer"),
    (lambda d: d[0]["component"].update(inputs=[1.5]), "component, inputs[0]: expected an integer"),
    (lambda d: d[2]["component"].pop("strongest"), "missing field(s) strongest"),
    (lambda d: d[2]["component"].update(extra=1), "unknown field(s) extra"),
    (lambda d: d[1]["metrics"].update(train_hamming="a"), "step 1, metric train_hamming: expected a number"),
    (lambda d: d.__setitem__(0, []), "step 0: expected an object"),
])
def test_malformed_steps_of_a_learner_without_rules(mutate, message, data):
    _, steps, doc = _doc("cc-lr", {}, data)
    assert len(steps) == 4
    doc = doc[:3]
    mutate(doc)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        decode_steps(doc, 3, get("cc-lr").component.cls)


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d[1]["rules"][0]["conditions"].insert(0, {"attribute": 10 ** 6, "operator": "<=", "threshold": 0}),
     "step 1, rules[0], condition 0, attribute: 1000000 out of range"),
    (lambda d: d[0]["rules"][0]["head"].update(labels=[0, 99], scores=[1.0, 2.0]), "head label: 99 out of range"),
    (lambda d: d[0].update(coverage=[1, 2]), "1 rule(s) and 2 coverage(s)"),
    (lambda d: d[1].update(kind="revision", revises=5, iteration=1, rule=d[1]["rules"][0],
                           old_rule=d[1]["rules"][0]), "step 1, revises: 5 out of range"),
    (lambda d: d[0].update(improvement=float("1e400")), "step 0, improvement"),
])
def test_malformed_rule_steps(mutate, message, data):
    est, steps, doc = _doc("boomer", {"max_rules": 3}, data)
    mutate(doc)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        decode_steps(doc, len(steps), None, est.model_)


def test_rule_steps_need_a_model_and_other_steps_their_class(data):
    est, steps, doc = _doc("boomer", {"max_rules": 2}, data)
    with pytest.raises(ValueError, match="no model to hold its rules"):
        decode_steps(doc, len(steps), None, None)
    _, steps, doc = _doc("cc-lr", {}, data)
    with pytest.raises(ValueError, match="no saved form"):
        decode_steps(doc, len(steps), None)
    mixed = copy.deepcopy(doc)
    mixed[0] = _doc("boomer", {"max_rules": 1}, data)[2][0]
    with pytest.raises(ValueError, match="a rule step, but the run has no model"):
        decode_steps(mixed, len(steps), get("cc-lr").component.cls)


@dataclasses.dataclass(frozen=True)
class _Part:
    name: str
    weight: float


@dataclasses.dataclass(frozen=True)
class _Component:
    flag: bool
    count: int
    ids: tuple[int, ...]
    parts: tuple[_Part, ...]
    note: str | None


def test_a_component_of_numpy_scalars_comes_back_as_python_values():
    from engine.steps import Step

    step = Step(0, "thing", _Component(np.bool_(True), np.int64(3), (np.int32(1), 2), (_Part("a", np.float32(0.5)),),
                                       None), {"loss": np.float64(0.25), "gap": float("nan")})
    doc = json.loads(json.dumps(encode_steps([step])))
    back = decode_steps(doc, 1, _Component)[0]
    assert back.component == _Component(True, 3, (1, 2), (_Part("a", 0.5),), None)
    assert type(back.component.flag) is bool and type(back.component.count) is int
    assert back.metrics["loss"] == 0.25 and math.isnan(back.metrics["gap"])
    doc[0]["component"]["flag"] = 1
    with pytest.raises(ValueError, match="step 0, component, flag: expected true or false"):
        decode_steps(doc, 1, _Component)
