"""Parameters are declared once (engine.parameters): the registry, the GUI panel, the command line
and the estimators' own checks all come from each class's PARAMETERS, with __init__'s defaults."""
from __future__ import annotations

import subprocess
import sys

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import (check_get_params_invariance, check_no_attributes_set_in_init,
                                            check_parameters_default_constructible, check_set_params)

from engine import registry
from engine.parameters import FROM_INIT, DeclaredParameters, Parameter, declared

SPECS = [s for s in registry.learners()]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_registry_defaults_are_the_estimators_defaults(spec):
    assert spec.defaults() == spec.factory().get_params()
    assert [p.name for p in spec.parameters] and all(p.default is not FROM_INIT for p in spec.parameters)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_scikit_learn_parameter_checks(spec):
    name = spec.factory.__name__
    est = spec.factory()
    check_parameters_default_constructible(name, est)
    check_no_attributes_set_in_init(name, spec.factory())
    check_get_params_invariance(name, spec.factory())
    check_set_params(name, spec.factory())


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_every_declared_range_is_enforced_by_the_estimator(spec):
    """A value just outside each declared range, or not among the choices, is one ValueError naming the
    parameter, from the estimator itself (the same declaration the GUI and the CLI use)."""
    for p in spec.parameters:
        bad = []
        if p.kind in ("choice", "option"):
            bad.append("no-such-value")
        if p.kind in ("int", "float") and p.minimum is not None:
            bad.append(p.minimum if p.low_open else (p.minimum - 1 if p.kind == "int" else p.minimum - 0.5))
        if p.kind in ("int", "float") and p.maximum is not None:
            bad.append(p.maximum + 1)
        if p.kind == "int":
            bad.append(1.5)
        for value in bad:
            est = spec.factory(**{p.name: value})
            with pytest.raises(ValueError, match=p.name):
                est._check_params()


def test_a_declaration_must_match_init():
    class Learner(DeclaredParameters, BaseEstimator):
        PARAMETERS = (Parameter("depth", "int", FROM_INIT, minimum=1),)

        def __init__(self, depth=3, rate=0.5):
            self.depth, self.rate = depth, rate

    with pytest.raises(TypeError, match="undeclared \\['rate'\\]"):
        declared(Learner)

    class Disagrees(DeclaredParameters, BaseEstimator):
        PARAMETERS = (Parameter("depth", "int", 4, minimum=1),)

        def __init__(self, depth=3):
            self.depth = depth

    with pytest.raises(TypeError, match="defaults to 3 in __init__ but 4"):
        declared(Disagrees)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_the_command_line_offers_every_learners_parameters(spec, capsys):
    """``python -m engine fit --learner KEY --help`` names every parameter; a value below its minimum
    is one line on stderr and exit code 2 (the command's ``main`` in this process; the test below runs
    the entry point as a process)."""
    from engine.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["fit", "--learner", spec.key, "--help"])
    out = capsys.readouterr()
    assert stop.value.code == 0, out.err
    for p in spec.parameters:
        if p.kind != "object":
            assert p.flag in out.out
    numeric = next((p for p in spec.parameters if p.kind in ("int", "float") and p.minimum is not None), None)
    if numeric is not None:
        with pytest.raises(SystemExit) as stop:
            main(["demo", "--learner", spec.key, numeric.flag, "-5"])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and numeric.name in err and err.count("\n") == 1


def test_the_entry_point_reports_a_bad_value_as_one_line():
    out = subprocess.run([sys.executable, "-m", "engine", "demo", "--learner", "boomer", "--shrinkage", "-5"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "shrinkage" in out.stderr and out.stderr.count("\n") == 1
