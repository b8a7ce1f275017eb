"""Model files are untrusted input: every tampered file gives one ValueError, never a crash.

The mutation tests run in a subprocess, so a segfault in a kernel fails the test instead of
killing pytest."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import AdaBoostMHClassifier, BoomerClassifier, SeCoClassifier
from engine.datasets import make_synthetic
from engine.persistence import estimator_from_document, load_estimator
from json_mutations import mutated


@pytest.fixture(scope="module")
def data():
    return make_synthetic("conditional-dependence", n_examples=300, seed=0)


@pytest.fixture(scope="module")
def documents(data):
    """A saved model of every learner and prediction strategy."""
    learners = {
        "boomer-example-wise": BoomerClassifier(loss="logistic-non-decomposable", head_type="complete", max_rules=15),
        "boomer-label-wise": BoomerClassifier(max_rules=15),
        "adaboost": AdaBoostMHClassifier(max_rules=8),
        "seco": SeCoClassifier(max_rules=5),
    }
    return {name: est.fit(data.X, data.Y).to_model_dict() for name, est in learners.items()}


def _write(tmp_path, doc, name="m.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _tampered(doc, edit):
    doc = copy.deepcopy(doc)
    edit(doc)
    return doc


def _first_rule_with(doc, what):
    return next(r for r in doc["model"]["rules"] if r[what] and (what != "head" or r["head"]["labels"]))


TAMPERINGS = {
    "head label 1000": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(0, 1000),
                        "head label: 1000 out of range"),
    "head label 100000": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(0, 100000),
                          "out of range"),
    "negative head label": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(0, -1),
                            "head label: -1 out of range"),
    "attribute out of range": (lambda d: _first_rule_with(d, "conditions")["conditions"][0].__setitem__(
        "attribute", 2), "attribute: 2 out of range"),
    "negative attribute": (lambda d: _first_rule_with(d, "conditions")["conditions"][0].__setitem__(
        "attribute", -5), "attribute: -5 out of range"),
    "unknown operator": (lambda d: _first_rule_with(d, "conditions")["conditions"][0].__setitem__(
        "operator", "<"), "operator"),
    "score as string": (lambda d: _first_rule_with(d, "head")["head"]["scores"].__setitem__(0, "0.5"),
                        "expected a number"),
    "boolean label": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(0, True),
                      "expected an integer, found a boolean"),
    "fractional label": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(0, 0.5),
                         "expected an integer"),
    "more scores than labels": (lambda d: _first_rule_with(d, "head")["head"]["scores"].append(1.0),
                                "scores"),
    "duplicate head label": (lambda d: _first_rule_with(d, "head")["head"]["labels"].__setitem__(
        slice(None), [0, 0]) or _first_rule_with(d, "head")["head"]["scores"].__setitem__(slice(None), [1.0, 1.0]),
        "occurs twice"),
    "label vector too short": (lambda d: d["model"]["label_vectors"][0].pop(), "label_vectors[0]"),
    "label vector entry 7": (lambda d: d["model"]["label_vectors"][0].__setitem__(0, 7), "not 0 or 1"),
    "no label vectors": (lambda d: d["model"].__setitem__("label_vectors", None), "label_vectors"),
    "n_labels zero": (lambda d: d["model"].__setitem__("n_labels", 0), "n_labels"),
    "n_features huge": (lambda d: d["model"].__setitem__("n_features", 10 ** 12), "n_features"),
    "missing rules": (lambda d: d["model"].pop("rules"), "missing field 'rules'"),
    "rules not a list": (lambda d: d["model"].__setitem__("rules", {"a": 1}), "expected a list"),
    "unknown prediction": (lambda d: d["model"].__setitem__("prediction", "magic"), "prediction"),
    "unknown loss": (lambda d: d["model"].__setitem__("loss", "hinge"), "loss"),
    "nominal index out of range": (lambda d: d["model"].__setitem__("nominal", [9]), "nominal"),
    "too few label names": (lambda d: d["model"]["schema"].__setitem__("label_names", ["a"]), "label_names"),
    "unknown parameter": (lambda d: d["params"].__setitem__("bogus", 1), "unknown parameter(s)"),
    "bad parameter value": (lambda d: d["params"].__setitem__("shrinkage", 7.0), "shrinkage"),
    "parameter of wrong type": (lambda d: d["params"].__setitem__("max_rules", "many"), "max_rules"),
    "unknown learner": (lambda d: d.__setitem__("learner", "magic"), "unknown learner"),
    "newer version": (lambda d: d.__setitem__("version", 99), "version 99"),
    "not a model": (lambda d: d.__setitem__("format", "other"), "not a model file"),
}


@pytest.mark.parametrize("case", sorted(TAMPERINGS))
def test_each_tampering_is_one_value_error_naming_the_field(tmp_path, documents, case):
    edit, expected = TAMPERINGS[case]
    path = _write(tmp_path, _tampered(documents["boomer-example-wise"], edit))
    with pytest.raises(ValueError) as info:
        load_estimator(path)
    assert expected in str(info.value)
    assert str(info.value).startswith("m.json:")


@pytest.mark.parametrize("text, expected", [
    ('{"format": NaN}', "NaN"),
    ('{"a": Infinity}', "Infinity"),
    ("[" * 100000 + "]" * 100000, r"not a model file \(nested too deeply\)"),
    ("{not json", r"not a model file \(invalid JSON at line 1"),
    ("", "invalid JSON"),
])
def test_file_level_garbage_is_a_value_error(tmp_path, text, expected):
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=expected):
        load_estimator(path)


def test_binary_garbage_and_directories_are_value_errors(tmp_path):
    path = tmp_path / "m.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_estimator(path)
    with pytest.raises(ValueError, match="not a regular file"):
        load_estimator(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_estimator(tmp_path / "missing.json")


def test_rule_numbers_in_messages_count_from_zero(tmp_path, documents):
    doc = copy.deepcopy(documents["boomer-label-wise"])
    doc["model"]["rules"][5]["head"]["scores"][0] = "x"
    with pytest.raises(ValueError, match=r"rule 5, head score"):
        estimator_from_document(doc)


@pytest.mark.parametrize("name", ["boomer-example-wise", "boomer-label-wise", "adaboost", "seco"])
def test_valid_models_round_trip_exactly(tmp_path, data, documents, name):
    doc = documents[name]
    est = estimator_from_document(json.loads(json.dumps(doc)))
    assert est.to_model_dict() == doc
    again = load_estimator(_write(tmp_path, doc))
    assert np.array_equal(again.predict(data.X), est.predict(data.X))
    assert np.array_equal(again.decision_function(data.X), est.decision_function(data.X))


def test_loaded_model_hands_kernels_only_in_range_indices(documents):
    for doc in documents.values():
        model = estimator_from_document(doc).model_
        c = model.compiled()
        assert ((c.attrs >= 0) & (c.attrs < model.n_features)).all()
        assert ((c.head_labels >= 0) & (c.head_labels < model.n_labels)).all()
        assert np.isfinite(c.head_scores).all() and np.isfinite(c.thrs).all()
        assert c.cond_ptr[-1] == len(c.attrs) and c.head_ptr[-1] == len(c.head_labels)


# ----------------------------------------------------------------------------- hypothesis
REPLACEMENTS = [None, True, False, 0, -1, 1, 2, 7, 1000, -100000, 2 ** 62, 10 ** 30, 0.5, -0.0, 1e308, "x", "",
                [], [1, 2], {}, {"a": 1}]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_mutations_raise_only_value_error_in_process(documents, data, st_data):
    name = st_data.draw(st.sampled_from(sorted(documents)))
    doc = mutated(documents[name], st_data, REPLACEMENTS)
    try:
        est = estimator_from_document(doc)
    except ValueError:
        return
    # what loads must predict without error on data of the right width
    X = data.X if est.model_.n_features == data.X.shape[1] else np.zeros((3, est.model_.n_features), np.float32)
    P = est.predict(X)
    assert P.shape == (X.shape[0], est.model_.n_labels)


MUTATION_SCRIPT = textwrap.dedent("""
    import copy, json, random, sys
    import numpy as np
    from engine.persistence import load_estimator
    docs = json.loads(open(sys.argv[1]).read())
    rng = random.Random(int(sys.argv[2]))
    values = [None, True, 0, -1, 1, 3, 999, 100000, -2**40, 2**63, 1e308, 0.25, "7", [], [0], {}]
    seen = {}
    for trial in range(int(sys.argv[3])):
        doc = copy.deepcopy(rng.choice(docs))
        node = doc
        path = []
        while isinstance(node, (dict, list)) and node and (not path or rng.random() < 0.8):
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        parent, key = path[-1]
        parent[key] = rng.choice(values)
        text = json.dumps(doc)
        if rng.random() < 0.2:
            text = text[: rng.randrange(len(text))]
        open(sys.argv[4], "w").write(text)
        try:
            est = load_estimator(sys.argv[4])
            X = np.random.default_rng(trial).normal(size=(20, est.model_.n_features)).astype(np.float32)
            est.predict(X)
            if hasattr(est, "predict_proba"):  # a decision list (SeCo) has no probabilities
                est.predict_proba(X)
            outcome = "loaded"
        except ValueError:
            outcome = "ValueError"
        seen[outcome] = seen.get(outcome, 0) + 1
    print(json.dumps(seen))
""")


def test_random_mutations_never_crash_the_process(tmp_path, documents):
    """Seeded random mutations (values, truncation) in a child process: it must exit 0 (no
    segfault, no out-of-bounds write) having seen only ValueError or valid models."""
    docs = tmp_path / "docs.json"
    docs.write_text(json.dumps(list(documents.values())))
    script = tmp_path / "mutate.py"
    script.write_text(MUTATION_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(docs), "7", "300", str(tmp_path / "m.json")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(seen) <= {"loaded", "ValueError"} and seen.get("ValueError", 0) > 100
