"""Session files are untrusted input: random mutations of a valid session give a ValueError from
``Session.from_dict`` or a session whose every part is valid (checked before anything is applied)."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boomer_gui.components.session import Session
from boomer_gui.components.state import DataSpec, RunHistory
from engine import BoomerClassifier
from engine.datasets import make_synthetic
from json_mutations import mutated


@pytest.fixture(scope="module")
def document():
    data = make_synthetic("conditional-dependence", n_examples=200, seed=0)
    est = BoomerClassifier(max_rules=6)
    history = RunHistory()
    run = history.new_run("boomer: default", "boomer", est.get_params())
    run.append(est.fit_iter(data.X, data.Y))
    n_rules = len(est.rules_)
    return Session(DataSpec(n_examples=200, n_test=200), "boomer", est.get_params(), est.to_model_dict(),
                   history.to_list(), 0, [True] * (n_rules - 1) + [False]).to_dict()


def test_a_valid_session_round_trips(document):
    s = Session.from_dict(json.loads(json.dumps(document)))
    assert s.to_dict() == document and s.estimator is not None and len(s.history()) == 1


VALUES = [None, True, 0, -1, 7, 10 ** 12, 0.5, float("nan"), "x", "", [], [1], {}, {"a": 1}]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_sessions_raise_only_value_error(document, data):
    doc = mutated(document, data, VALUES)
    try:
        s = Session.from_dict(doc)
    except ValueError:
        return
    s.history()  # everything that was accepted is usable
    assert s.active is None or len(s.active) == len(s.estimator.model_.rules)
