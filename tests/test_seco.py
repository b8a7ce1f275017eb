"""SeCo with multi-label heads: the counting convention by hand, pruned versus exhaustive head
search, the decision list and its losses, real data, persistence and the estimator protocol."""
from __future__ import annotations

import itertools
import json

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from engine import SeCoClassifier
from engine.bench.seco import run as run_benchmark
from engine.registry import get
from engine.seco import HEURISTICS, find_head

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # ../shared/data



def paper(heuristic="f-measure", beta=1.0, head_search="pruned", max_rules=100, max_conditions=5, min_coverage=1,
          label_coverage_threshold=1.0, max_uncovered=0.0, **more) -> SeCoClassifier:
    """The PAKDD 2018 search (search='pakdd-2018{...}') with the settings its parameters had before
    they became options (then defaults: the F-measure, rules of at most 5 conditions, 100 rules)."""
    search = (f"pakdd-2018{{heuristic={heuristic},beta={beta},head_search={head_search},"
              f"label_coverage_threshold={label_coverage_threshold},max_uncovered={max_uncovered}}}")
    induction = f"top-down-greedy{{max_conditions={max_conditions or 0},min_coverage={min_coverage}}}"
    return SeCoClassifier(search=search, rule_induction=induction, max_rules=max_rules, **more)


def random_labels(seed):
    """Correlated labels (so that multi-label heads occur), a covered set, predicted pairs and
    examples that left the training set."""
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 11))
    n = int(rng.integers(5, 150))
    base = rng.random((n, 1)) < 0.5
    Y = np.where(rng.random((n, K)) < 0.8, base, rng.random((n, K)) < 0.3).astype(np.uint8)
    covered = rng.random(n) < rng.uniform(0.05, 1.0)
    predicted = rng.random((n, K)) < rng.uniform(0.0, 0.5)
    active = rng.random(n) < 0.9
    covered[0] = active[0] = True
    return Y, covered, predicted, active


def brute_force_subset_accuracy(Y, covered, predicted, active):
    """Reference: every head over the eligible labels, each label with its better single value."""
    free = ~predicted & active[:, None]
    S = covered & active
    c1 = (free & (Y == 1) & S[:, None]).sum(axis=0)
    c0 = (free & (Y == 0) & S[:, None]).sum(axis=0)
    eligible = [k for k in range(Y.shape[1]) if c1[k] + c0[k] > 0]
    value = {k: int(c1[k] > c0[k]) for k in eligible}
    best = None
    for size in range(1, len(eligible) + 1):
        for head in itertools.combinations(eligible, size):
            ok = S.copy()
            for k in head:
                ok &= free[:, k] & (Y[:, k] == value[k])
            key = (int(ok.sum()), size, tuple(-k for k in head))
            if best is None or key > best[0]:
                best = (key, head)
    return best[1], best[0][0] / S.sum(), [value[k] for k in best[1]]


# -- head search --------------------------------------------------------------------------------
def test_counting_convention_by_hand():
    Y = np.array([[1, 1, 0],
                  [1, 1, 0],
                  [1, 0, 0],
                  [0, 1, 1],
                  [0, 0, 1]])
    covered = np.array([1, 1, 1, 0, 0], bool)
    predicted = np.zeros_like(Y, bool)
    predicted[1, 1] = True  # an earlier rule set (example 1, label 1)
    # Countable covered pairs: label 0: 1,1,1 (c1 = 3, c0 = 0); label 1: ex0 = 1, ex2 = 0 (c1 = 1,
    # c0 = 1); label 2: 0,0,0 (c1 = 0, c0 = 3).
    # Precision per single head: l0 present 3/3; l1 present 1/2, absent 1/2 -> absent on the tie;
    # l2 absent 3/3.  Best value 1: head {l0: present, l2: absent}, micro precision 6/6.
    head = find_head(Y, covered, heuristic="precision", predicted=predicted)
    assert head.labels.tolist() == [0, 2] and head.values.tolist() == [1, 0]
    assert head.value == 1.0 and head.pairs == 6
    assert head.evaluations == 2 * 3 + 1  # both values of three single heads, and the merged head
    # Recall of l0 present: TP 3, FN 0 (uncovered present: none) -> 1; l2 absent: TP 3, FN 0 -> 1;
    # l1 present: TP 1, FN 1 (ex3, uncovered) -> 1/2, absent: TP 1, FN 1 (ex4) -> 1/2.
    head = find_head(Y, covered, heuristic="recall", predicted=predicted)
    assert head.labels.tolist() == [0, 2] and head.value == 1.0
    # Hamming accuracy, l0 present: (TP 3 + TN 2) / 5 = 1; l1: (1 + 1) / 4 either way; l2 absent:
    # (3 + 2) / 5 = 1.
    head = find_head(Y, covered, heuristic="hamming-accuracy", predicted=predicted)
    assert head.labels.tolist() == [0, 2] and head.value == 1.0
    # Subset accuracy: |{covered examples, all head labels countable and right}| / 3.  Singles:
    # l0 present 3/3, l1 1/3 (absent, tie), l2 absent 3/3.  {l0, l2}: 3/3, kept; the best head.
    head = find_head(Y, covered, heuristic="subset-accuracy", predicted=predicted)
    assert head.labels.tolist() == [0, 2] and head.values.tolist() == [1, 0] and head.value == 1.0
    # l1 is never combined: its single value 1/3 is below the best, so no head with it is evaluated.
    assert head.evaluations == 2 * 3 + 1
    exhaustive = find_head(Y, covered, heuristic="subset-accuracy", predicted=predicted, exhaustive=True)
    assert exhaustive.labels.tolist() == [0, 2]
    assert exhaustive.evaluations == 2 * 3 + (2 ** 3 - 1 - 3)


def test_a_pair_set_by_an_earlier_rule_never_counts_as_correct():
    Y = np.array([[1, 1], [1, 1], [0, 0]])
    covered = np.array([1, 1, 0], bool)
    predicted = np.array([[0, 1], [0, 0], [0, 0]], bool)
    # Subset accuracy of {l0, l1}: example 0's l1 is already set -> only example 1 counts: 1/2 < 1.
    head = find_head(Y, covered, heuristic="subset-accuracy", predicted=predicted)
    assert head.labels.tolist() == [0] and head.value == 1.0
    # With nothing predicted both labels are right on both covered examples.
    head = find_head(Y, covered, heuristic="subset-accuracy")
    assert head.labels.tolist() == [0, 1] and head.value == 1.0
    # Examples outside the training set are not counted at all.
    head = find_head(Y, covered, heuristic="precision", active=np.array([0, 1, 1], bool), predicted=predicted)
    assert head.pairs == 2


@pytest.mark.parametrize("heuristic", [h for h in HEURISTICS if h != "subset-accuracy"])
def test_the_decomposable_sweeps_one_pass_head_equals_the_head_search(heuristic):
    """The sweep for decomposable heuristics scores a side, or its complement among the valid
    examples, in one pass (ties summed as they come): the head search's value, size, covered pairs
    and evaluations, on random counts with many ties."""
    from engine.core.seco_search import (N_ROWS, REST, SIDE0, TOTAL, VALID, _decomposable_head, head_search_into)
    from engine.seco import HEURISTIC_CODES

    rng = np.random.default_rng(5)
    code = HEURISTIC_CODES[heuristic]
    for _ in range(300):
        K = int(rng.integers(1, 9))
        N1 = np.zeros((N_ROWS, K), np.int64)
        N0 = np.zeros((N_ROWS, K), np.int64)
        N1[TOTAL] = rng.integers(0, 12, K)
        N0[TOTAL] = rng.integers(0, 12, K)
        N1[VALID] = rng.integers(0, N1[TOTAL] + 1)
        N0[VALID] = rng.integers(0, N0[TOTAL] + 1)
        N1[SIDE0] = rng.integers(0, N1[VALID] + 1)
        N0[SIDE0] = rng.integers(0, N0[VALID] + 1)
        beta2 = float(rng.choice([1.0, 0.25, 4.0]))
        I, F, B = np.empty((5, K), np.int64), np.empty(K), np.zeros((3, 1), np.uint64)
        G = np.zeros((K, 1), np.uint64)
        for comp in (False, True):
            row = SIDE0
            if comp:
                N1[REST] = N1[VALID] - N1[SIDE0]
                N0[REST] = N0[VALID] - N0[SIDE0]
                row = REST
            expected = head_search_into(code, beta2, False, N1, N0, row, 1, G, G, B, SIDE0, 0, I, F)
            got = _decomposable_head(code, beta2, N1, N0, SIDE0, comp)
            assert got[1:] == expected[1:]
            assert got[0] == pytest.approx(expected[0], abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_pruned_head_search_finds_the_exhaustive_head(seed):
    Y, covered, predicted, active = random_labels(seed)
    for heuristic in HEURISTICS:
        pruned = find_head(Y, covered, heuristic=heuristic, predicted=predicted, active=active)
        full = find_head(Y, covered, heuristic=heuristic, predicted=predicted, active=active, exhaustive=True)
        assert pruned.labels.tolist() == full.labels.tolist(), heuristic
        assert pruned.values.tolist() == full.values.tolist(), heuristic
        assert pruned.value == pytest.approx(full.value, abs=1e-12)
        assert pruned.evaluations <= full.evaluations
    labels, value, values = brute_force_subset_accuracy(Y, covered, predicted, active)
    head = find_head(Y, covered, heuristic="subset-accuracy", predicted=predicted, active=active)
    assert tuple(head.labels) == labels and head.values.tolist() == values
    assert head.value == pytest.approx(value)


def test_ten_labels_with_many_ties():
    # All ten labels absent on every covered example: every head has subset accuracy 1.  The
    # pruned search absorbs labels instead of enumerating all 1023 combinations.
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 10)) < 0.5).astype(np.uint8)
    Y[:10] = 0
    covered = np.zeros(40, bool)
    covered[:10] = True
    pruned = find_head(Y, covered)
    full = find_head(Y, covered, exhaustive=True)
    assert pruned.labels.tolist() == full.labels.tolist() == list(range(10))
    assert pruned.evaluations == 2 * 10 + 9
    assert full.evaluations == 2 * 10 + 2 ** 10 - 1 - 10


# -- the learner ------------------------------------------------------------------------------
def random_problem(seed, n=120, K=6):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, n), rng.random(n) * (rng.random(n) < 0.5),
                         rng.random(n)]).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    Y = (rng.random((n, K)) < 0.3).astype(np.uint8)
    Y[:, :3] |= (X[:, [1]] == 2)
    Y[:, 3:] |= (np.nan_to_num(X[:, [3]]) > 0.6)
    return X, Y


@pytest.mark.parametrize("heuristic", ["subset-accuracy", "f-measure", "precision"])
def test_pruned_and_exhaustive_learn_the_same_rules(heuristic):
    X, Y = random_problem(1)
    pruned = paper(heuristic=heuristic, max_rules=15).fit(X, Y, nominal_attributes=[1])
    full = paper(heuristic=heuristic, max_rules=15, head_search="exhaustive").fit(
        X, Y, nominal_attributes=[1])
    assert pruned.rules_ == full.rules_
    assert pruned.n_head_evaluations_ < full.n_head_evaluations_
    assert pruned.n_head_evaluations_ == sum(r.extra["head_evaluations"] for r in pruned.records_)


@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_decision_list_and_incremental_losses(heuristic):
    X, Y = random_problem(2)
    est = paper(heuristic=heuristic, beta=0.5, max_rules=25)
    est.fit(X[:90], Y[:90], X_test=X[90:], Y_test=Y[90:], nominal_attributes=[1])
    rules = est.rules_
    assert rules[-1].is_default and len(rules) == len(est.records_)
    assert set(np.unique(np.concatenate([r.head_scores for r in rules]))) <= {-1.0, 1.0}
    # The incrementally tracked losses are those of the decision list's predictions.
    last = est.records_[-1]
    P = est.predict(X[:90])
    assert last.train_hamming == pytest.approx(float((P != Y[:90]).mean()))
    assert last.train_subset == pytest.approx(float((P != Y[:90]).any(axis=1).mean()))
    Pv = est.predict(X[90:])
    assert last.test_hamming == pytest.approx(float((Pv != Y[90:]).mean()))
    # Decision-list semantics by hand: the first covering rule that predicts a label sets it.
    Xd = X[90:].astype(np.float64)
    expected = np.zeros_like(Y[90:])
    decided = np.zeros(Y[90:].shape, bool)
    for rule in rules:
        cov = rule.covers(Xd)
        for k, s in zip(rule.head_labels, rule.head_scores):
            free = cov & ~decided[:, k]
            expected[free, k] = s > 0
            decided[free, k] = True
    np.testing.assert_array_equal(Pv, expected)
    # Each rule set at least one new label on a training example.
    assert all(r.extra["new_pairs"] >= 1 for r in est.records_[:-1])


def test_examples_leave_the_training_set_and_stopping_criteria():
    X, Y = random_problem(3)
    half = paper(label_coverage_threshold=0.5, max_rules=200).fit(X, Y)
    remaining = [r.extra["remaining"] for r in half.records_]
    assert all(b <= a for a, b in zip(remaining, remaining[1:]))
    assert remaining[-1] == 0  # ran until no example was left
    early = paper(max_uncovered=0.5, max_rules=200).fit(X, Y)
    assert early.records_[-2].extra["remaining"] <= 0.5 * len(X) < early.records_[-3].extra["remaining"]
    only_default = paper(max_rules=1).fit(X, Y)
    assert len(only_default.rules_) == 1 and only_default.rules_[0].is_default


def test_a_rule_at_the_heuristics_maximum_is_not_refined():
    """Every heuristic is at most 1: a body whose head reaches 1 is kept without a sweep, so only the
    head search's evaluations are counted (2 per label: both values)."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    Y = np.column_stack([np.ones(40), rng.random(40) < 0.5]).astype(np.uint8)  # label 0 always present
    est = paper(heuristic="precision", max_rules=2).fit(X, Y)
    first = est.records_[0]
    assert first.rule.conditions == () and list(first.rule.head_labels) == [0]
    assert first.extra["heuristic"] == 1.0 and first.extra["head_evaluations"] == 4


def test_max_rules_counts_the_default_rule_like_boomer():
    """max_rules=n gives n rules and n steps (rows), the default rule included."""
    X, Y = random_problem(6)
    for n in (2, 7):
        est = paper(max_rules=n, min_coverage=1, max_conditions=2).fit(X, Y)
        assert len(est.rules_) == len(est.records_) == n and est.rules_[-1].is_default
        est = SeCoClassifier(max_rules=n, instance_sampling="none", heuristic="precision").fit(X, Y)
        assert len(est.rules_) == len(est.records_) == n and est.rules_[-1].is_default
    with pytest.raises(ValueError, match="max_rules"):
        SeCoClassifier(max_rules=-1).fit(X, Y)


def test_stopping_early_still_ends_with_the_default_rule():
    X, Y = random_problem(4)
    est = SeCoClassifier(max_rules=30, heuristic="precision")
    it = est.fit_iter(X, Y)
    first = [next(it) for _ in range(3)]
    it.close()
    assert len(est.rules_) == 4 and est.rules_[-1].is_default
    assert est.rules_[:3] == [r.rule for r in first]
    P = est.predict(X)
    assert first[-1].train_hamming == pytest.approx(float((P != Y).mean()))


def test_sparse_input_learns_the_dense_rules():
    X, Y = random_problem(5)
    X0 = np.nan_to_num(X, nan=0.0)
    dense = paper(max_rules=10).fit(X0, Y)
    sparse = paper(max_rules=10).fit(sp.csc_matrix(X0), Y)
    assert dense.rules_ == sparse.rules_


def test_save_and_reload_predict_identically(tmp_path):
    X, Y = random_problem(6)
    est = SeCoClassifier(head_type="partial", max_rules=20).fit(X, Y, nominal_attributes=[1])
    path = tmp_path / "seco.json"
    est.save(path)
    again = SeCoClassifier.from_model_dict(json.loads(path.read_text()))
    assert again.get_params() == est.get_params()
    assert again.model_.prediction == "decision-list"
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))


def test_estimator_protocol_and_parameter_errors():
    est = SeCoClassifier(heuristic="f-measure{beta=2.0}", max_rules=3,
                         rule_induction="top-down-greedy{min_coverage=4}")
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    X, Y = random_problem(0)
    for bad in ({"heuristic": "subset-accuracy"}, {"heuristic": "f-measure{beta=-1}"}, {"heuristic": "f-measure{m=1}"},
                {"pruning_heuristic": "m-estimate{m=-0.5}"}, {"head_type": "complete"}, {"max_rules": -1},
                {"lift_function": "peak{max_lift=0.5}"}, {"lift_function": "kln{k=0}"},
                {"lift_function": "peak{curvature=0}"}, {"rule_induction": "top-down-greedy{min_coverage=0}"},
                {"feature_binning": "auto"}, {"holdout": "auto"}, {"parallel_rule_refinement": "auto"},
                {"time_limit": -1}, {"random_state": -1}, {"feature_format": "csr"},
                {"search": "pakdd-2018{heuristic=accuracy}"}, {"search": "pakdd-2018{beta=0}"},
                {"search": "pakdd-2018{label_coverage_threshold=1.5}"}, {"search": "pakdd-2018{max_uncovered=1.0}"},
                {"rule_induction": "top-down-beam-search{beam_width=1}"},
                {"rule_induction": "top-down-beam-search{max_conditions=1}"},
                {"post_optimization": "sequential{num_iterations=0}"}):
        with pytest.raises(ValueError):
            SeCoClassifier(**bad).fit(X, Y)
    with pytest.raises(ValueError, match="too many"):
        paper(head_search="exhaustive").fit(X[:, :2], np.zeros((len(X), 30)))
    with pytest.raises(ValueError):
        SeCoClassifier().fit(X, Y[:, :0])


def test_registry_entry_and_presets():
    from engine.registry import SECO_DEFAULTS_PRESET

    spec = get("seco")
    assert spec.factory is SeCoClassifier
    assert {"Subset accuracy (the paper)", "F-measure (the paper)", "Hamming accuracy (the paper)",
            SECO_DEFAULTS_PRESET} <= set(spec.presets)
    for preset in spec.presets.values():
        assert isinstance(spec.make(**preset), SeCoClassifier)
    assert spec.defaults() == SeCoClassifier().get_params()  # the panel's defaults are the estimator's
    paper_model = spec.make(**spec.presets["Subset accuracy (the paper)"])
    assert paper_model.search.startswith("pakdd-2018{heuristic=subset-accuracy")
    assert spec.make(**spec.presets[SECO_DEFAULTS_PRESET]).get_params() == SeCoClassifier().get_params()


def test_every_registry_default_is_the_estimators_default():
    from engine.registry import learners

    for spec in learners():
        defaults = spec.factory().get_params()
        for param in spec.parameters:
            assert param.name in defaults, (spec.key, param.name)
            assert param.default == defaults[param.name], (spec.key, param.name, param.default, defaults[param.name])


def test_benchmark_prints_a_table():
    lines = []
    rows = run_benchmark(n_examples=60, n_features=3, n_rules=3, max_labels=5, out=lines.append)
    assert [r[0] for r in rows] == [2, 3, 4, 5]
    assert all(same for *_, same in rows)
    assert all(pruned <= full for _, pruned, full, *_ in rows)
    assert len(lines) == 2 + 4


@pytest.fixture(scope="module")
def emotions():
    try:
        from engine.datasets import load
    except ImportError:
        pytest.skip("engine.datasets.load is not available")
    path = DATA_DIR / "emotions.arff"
    if not path.exists():
        pytest.skip(f"emotions.arff not found in {DATA_DIR}")
    return load(path).train_test_split(1 / 3, seed=0)


@pytest.mark.parametrize("heuristic, min_coverage, max_rules", [("subset-accuracy", 10, 100), ("f-measure", 1, 40),
                                                                ("hamming-accuracy", 1, 40)])
def test_emotions_beats_the_all_negative_predictor(emotions, heuristic, min_coverage, max_rules):
    train, test = emotions
    est = paper(heuristic=heuristic, min_coverage=min_coverage, max_rules=max_rules)
    est.fit_dataset(train, test=test)
    trivial = float(test.Y.mean())  # Hamming loss of predicting every label absent
    hamming = float((est.predict(test.X) != test.Y).mean())
    assert hamming < trivial - 0.02
    assert est.records_[-1].test_hamming == pytest.approx(hamming)


def test_model_files_of_the_earlier_parameters_load_as_the_paper_search(tmp_path):
    """A model file written before mlrl-seco's parameters (heuristic 'subset-accuracy', beta, head_search,
    max_conditions, min_coverage, label_coverage_threshold, max_uncovered) loads: its parameters become
    search='pakdd-2018{...}' and rule_induction options, and it predicts as saved."""
    X, Y = random_problem(6)
    est = paper(heuristic="subset-accuracy", max_rules=8, max_conditions=None, min_coverage=3).fit(X, Y)
    doc = est.to_model_dict()
    doc["params"] = {"heuristic": "subset-accuracy", "beta": 1.0, "head_search": "pruned", "max_rules": 8,
                     "max_conditions": None, "min_coverage": 3, "label_coverage_threshold": 1.0,
                     "max_uncovered": 0.0}
    again = SeCoClassifier.from_model_dict(json.loads(json.dumps(doc)))
    assert again.search == ("pakdd-2018{heuristic=subset-accuracy,head_search=pruned,beta=1.0,"
                            "label_coverage_threshold=1.0,max_uncovered=0.0}")
    assert again.rule_induction == "top-down-greedy{max_conditions=0,min_coverage=3}" and again.max_rules == 8
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    refit = clone(again).fit(X, Y)  # the translated parameters learn the same rules
    assert refit.rules_ == est.rules_
    doc["params"] = {"heuristic": "subset-accuracy", "head_search": "sideways"}
    with pytest.raises(ValueError, match="head_search"):
        SeCoClassifier.from_model_dict(doc)
