"""Parity with mlrl-seco 0.15.6 (the reference), run in its own interpreter through
``tests/mlrl_seco_reference_driver.py``: the same parameters and defaults, the same refusals, and with
deterministic settings (no instance sampling) the same rules and predictions on emotions (2/3 split).
``MLRL_REFERENCE_PYTHON`` names the interpreter (default ``/work/refvenv/bin/python``); without it,
or without mlrl-seco in it, every test here is skipped, saying why.

What cannot agree (see docs/benchmarks/seco.md): instance, feature and output samples (other random generators),
hence the default model's rules.  Beam search and sequential post-optimization:
``tests/test_mlrl_seco_parity_beam.py``.
"""
from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import numpy as np
import pytest

from engine.seco import SeCoClassifier

from reference_process import run_driver  # noqa: E402
from test_mlrl_parity import REFERENCE, ask_reference, reference_missing  # noqa: E402 - the shared reference runner

DRIVER = Path(__file__).with_name("mlrl_seco_reference_driver.py")
DATA_DIR = Path(os.environ.get("BOOMER_DATA_DIR", "/work/shared/data"))

_WHY = reference_missing("mlrl.seco", "mlrl-seco")
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _ask(request: dict, tmp_path) -> dict:
    return ask_reference(DRIVER, request, tmp_path, timeout=600)


@pytest.fixture(scope="module")
def emotions(tmp_path_factory):
    path = DATA_DIR / "emotions.arff"
    if not path.exists():
        pytest.skip(f"emotions.arff not found in {DATA_DIR}")
    from engine.datasets import load

    train, test = load(path).train_test_split(1 / 3, seed=0)
    X_train, Y_train = np.asarray(train.X, dtype=np.float64), np.asarray(train.Y, dtype=np.uint8)
    X_test = np.asarray(test.X, dtype=np.float64)
    data = tmp_path_factory.mktemp("emotions") / "data.npz"
    np.savez(data, X_train=X_train, Y_train=Y_train, X_test=X_test)
    return X_train, Y_train, X_test, data


def test_same_parameter_names_and_effective_defaults(tmp_path):
    """Our parameters are mlrl-seco's plus ``search`` (ours); where the reference's ``__init__`` says None,
    its effective default is the value our declaration spells out - checked below by fitting the reference
    with our defaults written out."""
    theirs = _ask({"kind": "signature"}, tmp_path)
    ours = {n: p.default for n, p in inspect.signature(SeCoClassifier.__init__).parameters.items() if n != "self"}
    assert set(ours) == set(theirs) | {"search"}
    assert all(v is None for v in theirs.values())  # the reference resolves every None in C++


def test_our_defaults_written_out_are_the_references_defaults(emotions, tmp_path):
    """The reference with our defaults passed explicitly learns exactly the model of the reference with its
    own defaults (same seed: its instance samples, IREP, the F-measure with beta 0.25, peak lift, 500
    rules ...): so every default we declare is its effective one."""
    *_, data = emotions
    spelled = {k: v for k, v in SeCoClassifier().get_params().items() if k != "search" and v is not None}
    assert spelled["heuristic"] == "f-measure" and spelled["rule_pruning"] == "irep" and spelled["max_rules"] == 500
    explicit = dict(spelled, heuristic="f-measure{beta=0.25}", pruning_heuristic="accuracy",
                    lift_function="peak{peak_label=2,max_lift=1.08,curvature=1.0}",
                    instance_sampling="stratified-output-wise{sample_size=0.66,min_samples=1,max_samples=0}",
                    rule_induction="top-down-greedy{min_coverage=1,min_support=0.0,max_conditions=0,"
                                   "max_head_refinements=1,recalculate_predictions=false}")
    a = _ask({"kind": "fit", "data": str(data), "settings": {}}, tmp_path)
    b = _ask({"kind": "fit", "data": str(data), "settings": explicit}, tmp_path)
    c = _ask({"kind": "fit", "data": str(data), "settings": spelled}, tmp_path)
    assert a["rules"] == b["rules"] == c["rules"] and a["predictions"] == b["predictions"]
    assert a["n_rules"] > 10


REFUSALS = [
    {"heuristic": "subset-accuracy"}, {"heuristic": "f-measure{beta=-1}"}, {"heuristic": "f-measure{m=1}"},
    {"heuristic": "m-estimate{m=-1}"}, {"pruning_heuristic": "laplace{m=1}"}, {"head_type": "complete"},
    {"lift_function": "peak{max_lift=0.5}"}, {"lift_function": "kln{k=0}"}, {"lift_function": "peak{curvature=0}"},
    {"lift_function": "peak{peak_label=-1}"}, {"max_rules": -1}, {"time_limit": -1}, {"random_state": -1},
    {"rule_induction": "top-down-greedy{min_coverage=0}"}, {"rule_induction": "top-down-greedy{min_support=1.0}"},
    {"rule_induction": "top-down-greedy{max_conditions=-1}"}, {"instance_sampling": "with-replacement{sample_size=0}"},
    {"feature_sampling": "without-replacement{sample_size=1.0}"}, {"output_sampling": "without-replacement{sample_size=1}"},
    {"holdout": "auto"}, {"holdout": "random{holdout_set_size=1.0}"}, {"feature_binning": "auto"},
    {"feature_binning": "equal-width{bin_ratio=0}"}, {"rule_pruning": "rep"}, {"parallel_rule_refinement": "auto"},
    {"parallel_prediction": "true{num_preferred_threads=-1}"}, {"feature_format": "csr"},
    {"post_optimization": "sequential{num_iterations=0}"},
]
ACCEPTED = [
    {"heuristic": "f-measure{beta=0}"}, {"heuristic": "f-measure{beta=inf}"}, {"heuristic": "m-estimate{m=0}"},
    {"heuristic": "m-estimate{m=inf}"}, {"heuristic": "laplace"}, {"heuristic": "weighted-relative-accuracy"},
    {"pruning_heuristic": "recall"}, {"head_type": "partial", "lift_function": "peak{peak_label=0}"},
    {"head_type": "partial", "lift_function": "peak{peak_label=10,curvature=2}"},
    {"head_type": "partial", "lift_function": "kln{k=0.5}"}, {"head_type": "partial", "lift_function": "none"},
    {"max_rules": 0}, {"max_rules": 1}, {"time_limit": 5}, {"random_state": 0},
    {"rule_induction": "top-down-greedy{max_head_refinements=0,min_support=0.2,max_conditions=3}"},
    {"instance_sampling": "with-replacement{sample_size=0.5}"}, {"instance_sampling": "without-replacement"},
    {"instance_sampling": "stratified-example-wise"}, {"instance_sampling": "none"},
    {"feature_sampling": "without-replacement{num_retained=1}"}, {"output_sampling": "round-robin"},
    {"output_sampling": "without-replacement"}, {"holdout": "random"},
    {"holdout": "stratified-output-wise{holdout_set_size=0.2}"}, {"feature_binning": "equal-frequency"},
    {"feature_binning": "equal-width{bin_ratio=0.5,min_bins=3,max_bins=8}"}, {"rule_pruning": "none"},
    {"parallel_rule_refinement": "false"}, {"parallel_statistic_update": "true{num_preferred_threads=2}"},
    {"feature_format": "sparse"}, {"output_format": "dense"}, {"prediction_format": "auto"},
]


def _ours_accepts(settings, X, Y) -> bool:
    try:
        SeCoClassifier(**settings).fit(X, Y)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("settings", REFUSALS + ACCEPTED, ids=lambda s: json.dumps(s))
def test_same_refusals_and_acceptances_as_the_reference(settings, tmp_path):
    check_refusal_parity(settings, settings in ACCEPTED, tmp_path)


def check_refusal_parity(settings, accepted: bool, tmp_path) -> None:
    """Both learners accept ``settings`` on the driver's tiny data set, or both refuse them; ``accepted``
    says which."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = (rng.random((40, 3)) < 0.4).astype(np.uint8)
    theirs = _ask({"kind": "check", "settings": settings}, tmp_path)
    assert _ours_accepts(settings, X, Y) == theirs["ok"], theirs.get("message")
    assert theirs["ok"] == accepted


def test_the_reference_aborts_on_samples_of_several_labels(tmp_path):
    """mlrl-seco 0.15.6 aborts (a C++ assertion, 'std::__advance ... __n >= 0') when a rule may predict a
    sample of more than one label (its label samples are not sorted); ours learns from them."""
    settings = {"output_sampling": "without-replacement{sample_size=0.5,max_samples=2}"}
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"kind": "check", "settings": settings}))
    proc = run_driver(REFERENCE, DRIVER, path, 600)
    assert proc.returncode != 0 and "__n >= 0" in proc.stderr
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = (rng.random((40, 3)) < 0.4).astype(np.uint8)
    est = SeCoClassifier(**settings).fit(X, Y)
    assert all(len(r.head_labels) <= 2 for r in est.rules_[:-1])


DETERMINISTIC = [
    {"instance_sampling": "none"},  # the default model without its random instance samples
    {"instance_sampling": "none", "head_type": "partial"},
    {"instance_sampling": "none", "head_type": "partial", "lift_function": "kln"},
    {"instance_sampling": "none", "head_type": "partial", "lift_function": "none", "heuristic": "precision",
     "max_rules": 150},
    {"instance_sampling": "none", "head_type": "partial", "lift_function": "peak{peak_label=0,max_lift=1.5,curvature=2}"},
    {"instance_sampling": "none", "heuristic": "laplace", "max_rules": 150},
    {"instance_sampling": "none", "heuristic": "m-estimate"},
    {"instance_sampling": "none", "heuristic": "m-estimate{m=2}", "head_type": "partial"},
    {"instance_sampling": "none", "heuristic": "weighted-relative-accuracy"},
    {"instance_sampling": "none", "heuristic": "accuracy", "max_rules": 60},
    {"instance_sampling": "none", "heuristic": "recall"},
    {"instance_sampling": "none", "heuristic": "f-measure{beta=2}"},
    {"instance_sampling": "none", "output_sampling": "round-robin", "max_rules": 60},
    {"instance_sampling": "none", "rule_induction": "top-down-greedy{max_conditions=2,min_coverage=5}"},
    {"instance_sampling": "none", "rule_induction": "top-down-greedy{max_head_refinements=0}", "head_type": "partial"},
    {"instance_sampling": "none", "rule_induction": "top-down-greedy{min_support=0.1}"},
]


@pytest.mark.parametrize("settings", DETERMINISTIC, ids=lambda s: json.dumps(s))
def test_same_rules_and_predictions_on_emotions(settings, emotions, tmp_path):
    """Every rule (conditions with their float32 thresholds, head labels, predicted values), the default
    rule and the test predictions are the reference's."""
    X_train, Y_train, X_test, data = emotions
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings}, tmp_path)
    ours = SeCoClassifier(**settings).fit(X_train, Y_train)
    assert_same_model(ref, ours, X_test, Y_train.shape[1])


def assert_same_model(ref, ours, X_test, K):
    """The reference's answer and our fitted model: the same rules (conditions in any order, head labels,
    0/1 there and -1/+1 here) and the same test predictions."""
    assert ref["n_rules"] == len(ours.rules_)
    for theirs, mine in zip(ref["rules"], ours.rules_):
        assert sorted(map(tuple, theirs["conditions"])) == sorted((c.attribute, c.operator, c.threshold)
                                                                    for c in mine.conditions)
        assert (theirs["labels"] if theirs["labels"] is not None else list(range(K))) == list(mine.head_labels)
        assert [2 * s - 1 for s in theirs["scores"]] == list(mine.head_scores)
    np.testing.assert_array_equal(ours.predict(X_test), np.asarray(ref["predictions"]))


@pytest.mark.parametrize("settings", [{"instance_sampling": "none"},
                                      {"instance_sampling": "none", "head_type": "partial"}], ids=lambda s: json.dumps(s))
def test_same_rules_from_sparse_input(settings, emotions, tmp_path):
    """Sparse (CSC) training features: an attribute with implicit zeros is searched as the reference searches
    sparse vectors (the block of non-zero values against the zeros; a condition's complement keeps the
    zeros), the others as dense ones - emotions has 8 such attributes (1 to 82 zeros), and e.g. rule 158
    of the first setting has '70 <= 0.001708' from sparse input but '70 <= 0.0030125' from dense input, in
    both learners."""
    import scipy.sparse as sp

    settings = {**settings, "feature_format": "sparse"}  # else the reference may make them dense again (auto)
    X_train, Y_train, X_test, data = emotions
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "sparse": True}, tmp_path)
    ours = SeCoClassifier(**settings).fit(sp.csc_matrix(X_train), Y_train)
    dense = SeCoClassifier(**settings).fit(X_train, Y_train)
    assert ref["n_rules"] == len(ours.rules_)
    for theirs, mine in zip(ref["rules"][:-1], ours.rules_[:-1]):
        assert sorted(map(tuple, theirs["conditions"])) == sorted((c.attribute, c.operator, c.threshold)
                                                                    for c in mine.conditions)
        assert theirs["labels"] == list(mine.head_labels)
    assert ours.rules_ != dense.rules_
    np.testing.assert_array_equal(ours.predict(X_test), np.asarray(ref["predictions"]))


@pytest.mark.parametrize("settings", [{"instance_sampling": "none"},
                                      {"instance_sampling": "none", "head_type": "partial"}], ids=lambda s: json.dumps(s))
def test_incremental_predictions_are_the_references(settings, emotions, tmp_path):
    """predict_incrementally after each rule: the default rule alone first, then each learned rule before it."""
    X_train, Y_train, X_test, data = emotions
    ref = _ask({"kind": "fit", "data": str(data), "settings": settings, "incremental": True}, tmp_path)
    ours = list(SeCoClassifier(**settings).fit(X_train, Y_train).predict_incrementally(X_test))
    assert len(ours) == len(ref["incremental"]) == ref["n_rules"]
    for step, (mine, theirs) in enumerate(zip(ours, ref["incremental"])):
        np.testing.assert_array_equal(mine, np.asarray(theirs), err_msg=f"after {step + 1} rules")
