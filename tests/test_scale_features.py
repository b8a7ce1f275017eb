"""mlrl-boomer's scale settings, each against an exact or brute-force counterpart on small data:
feature binning, label binning, partial heads, holdout sets, global pruning, 32-bit statistics."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from engine import BoomerClassifier, metrics
from engine.core.binning import EQUAL_FREQUENCY, EQUAL_WIDTH, bin_keys
from engine.core.features import build_feature_index
from engine.core.head_variants import (HEAD_BINNED, HEAD_PARTIAL_DYNAMIC, HEAD_PARTIAL_FIXED, side_bins, variant_head,
                                       variant_quality)
from engine.core.heads import complete_quality, complete_scores, single_quality
from engine.core.losses import LOSS_CODES, n_hessian_entries, packed_index, update_statistics
from engine.holdout import split_holdout
from engine.model import rule_coverage
from engine.options import format_option, parse_option
from engine.pruning import PostPruning, PrePruning


def _problem(n=150, d=4, K=5, seed=0, zeros=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    if zeros:
        X[rng.random(X.shape) < 0.3] = 0.0
    W = rng.normal(size=(d, K))
    Y = (X @ W + 0.5 * rng.normal(size=(n, K)) > 0).astype(np.uint8)
    return X, Y


# -- options ------------------------------------------------------------------------------------

def test_option_strings_parse_like_mlrl_boomer():
    assert parse_option("feature_binning", "none") == ("none", {})
    name, opts = parse_option("feature_binning", "equal-width")
    assert name == "equal-width" and opts == {"bin_ratio": 0.33, "min_bins": 2, "max_bins": 0}
    name, opts = parse_option("global_pruning", "pre-pruning{min_rules=20, num_past=5,aggregation=min,"
                                                "use_holdout_set=false}")
    assert opts["min_rules"] == 20 and opts["num_past"] == 5 and opts["aggregation"] == "min"
    assert opts["use_holdout_set"] is False and opts["num_recent"] == 50
    assert parse_option("head_type", format_option("partial-fixed", {"output_ratio": 0.5}))[1]["output_ratio"] == 0.5


@pytest.mark.parametrize("param, value, message", [
    ("feature_binning", "equal-width{foo=1}", "unknown option 'foo'"),
    ("feature_binning", "equal-width{bin_ratio=0}", "bin_ratio must be in (0, 1]"),
    ("feature_binning", "equal-width{bin_ratio=abc}", "must be a number"),
    ("feature_binning", "equal-heights", "must be one of auto, none, equal-width, equal-frequency"),
    ("holdout", "random{holdout_set_size}", "not of the form key=value"),
    ("global_pruning", "pre-pruning{aggregation=median}", "must be one of min, max, avg"),
    ("head_type", "single{x=1}", "takes no options"),
])
def test_bad_option_strings_name_the_problem(param, value, message):
    with pytest.raises(ValueError, match=None) as err:
        parse_option(param, value)
    assert message in str(err.value) and param in str(err.value)
    X, Y = _problem(30)
    with pytest.raises(ValueError) as err:  # the estimator checks before any work starts
        BoomerClassifier(**{param: value}).fit(X, Y)
    assert message in str(err.value)


@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable"])
def test_label_binning_takes_l1_weights_and_an_l1_above_every_gradient_changes_no_score(loss):
    """As in mlrl-boomer 0.15.6: its L1 term leaves a gradient below the weight as it is, so a weight
    above every label's summed gradient gives the default rule the head it has without L1, and makes
    every candidate's quality worse than none: no rule follows."""
    X, Y = _problem(30)
    settings = dict(loss=loss, head_type="complete", label_binning="equal-width", max_rules=5)
    est = BoomerClassifier(**settings, l1_regularization_weight=1000.0).fit(X, Y)
    assert est.label_binning_used
    plain = BoomerClassifier(**settings).fit(X, Y)
    assert len(est.rules_) == 1 and est.rules_[0].head_scores.any()
    np.testing.assert_allclose(est.rules_[0].head_scores, plain.rules_[0].head_scores, rtol=1e-12)
    moderate = BoomerClassifier(**settings, l1_regularization_weight=0.5).fit(X, Y)
    assert len(moderate.rules_) == 5 and all(len(r.head_labels) == Y.shape[1] for r in moderate.rules_)


# -- feature binning ------------------------------------------------------------------------------

def _brute_keys(x, method, ratio, min_bins, max_bins):
    """Bins of the non-zero values of one dense column, written independently of the kernel."""
    distinct = np.unique(x)
    n_bins = max(min_bins, math.ceil(ratio * len(distinct)))
    if max_bins:
        n_bins = min(n_bins, max_bins)
    nz = x[x != 0]
    if n_bins >= len(distinct):
        return nz.astype(np.float32)
    if method == EQUAL_WIDTH:
        x, nz = x.astype(np.float64), nz.astype(np.float64)
        lo, hi = x.min(), x.max()
        width = (hi - lo) / n_bins
        return np.minimum(np.floor((nz - lo) / width), n_bins - 1).astype(np.float32)
    order = np.sort(x, kind="stable")
    first_rank = {v: np.searchsorted(order, v, side="left") for v in distinct}
    return np.array([first_rank[v] * n_bins // len(x) for v in nz], dtype=np.float32)


@pytest.mark.parametrize("method", [EQUAL_WIDTH, EQUAL_FREQUENCY])
@pytest.mark.parametrize("ratio, max_bins", [(0.33, 0), (0.1, 0), (0.5, 4), (1.0, 0)])
def test_bin_keys_match_a_brute_force_binning(method, ratio, max_bins):
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(200, 6)), 1).astype(np.float32)  # ties, negatives, zeros
    index = build_feature_index(X, np.zeros(6, np.uint8))
    keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples, method, ratio, 2,
                    max_bins)
    for j in range(6):
        a, b = index.ptr[j], index.ptr[j + 1]
        order = np.argsort(index.rows[a:b], kind="stable")  # back to example order
        expected = _brute_keys(X[:, j], method, ratio, 2, max_bins)
        got = keys[a:b][order]
        # bins are identified up to their numbering: the same examples share a key
        assert len(np.unique(got)) == len(np.unique(expected))
        pairs = set(zip(got.tolist(), expected.tolist()))
        assert len(pairs) == len(np.unique(got))


def _discretised(X, keys, index):
    """X with each non-zero value replaced by (its bin + 1) * sign: exact search on it splits where
    the binned search may."""
    Xd = np.zeros_like(X)
    for j in range(X.shape[1]):
        a, b = index.ptr[j], index.ptr[j + 1]
        sign = np.sign(index.values[a:b])
        Xd[index.rows[a:b], j] = sign * (1000.0 + keys[a:b] - (keys[a:b].min() if b > a else 0))
    return Xd


@pytest.fixture
def our_numeric_search(monkeypatch):
    """Unbinned attributes searched by our own walk (every threshold between distinct values), not as
    mlrl-boomer searches them (engine.core.sweep: SEARCH_DENSE): binned attributes are searched by our walk
    over their bins, so that is the exact search they must equal."""
    import engine.boomer.fit_state as boomer_fit_state

    monkeypatch.setattr(boomer_fit_state, "search_segments", lambda index, *args: np.zeros((index.n_features, 5), np.int64))
    monkeypatch.setattr(boomer_fit_state, "search_keys", lambda ptr, values: values)


@pytest.mark.parametrize("method", ["equal-width-midpoint", "equal-frequency-midpoint"])
@pytest.mark.parametrize("loss", ["logistic-decomposable", "logistic-non-decomposable"])
def test_binned_learning_equals_exact_learning_on_the_binned_data(method, loss, our_numeric_search):
    """Rules learned with binning cover the same training examples, with the same heads, as rules
    learned exactly on data where every value is replaced by its bin (without bagging: examples
    out of the bag may lie between two bins' values, and both searches place thresholds at the
    midpoint of the in-bag values around them)."""
    X, Y = _problem(160, 4, 4, seed=1, zeros=True)
    X = np.abs(X) + (X != 0)  # positive values and zeros: bins keep their order under the mapping
    index = build_feature_index(X, np.zeros(4, np.uint8))
    option, opts = parse_option("feature_binning", f"{method}{{bin_ratio=0.2}}")
    from engine.core.binning import METHOD_CODES
    keys = bin_keys(index.ptr, index.values, index.missing_ptr, index.nominal, index.n_examples,
                    METHOD_CODES[option], 0.2, 2, 0)
    assert len(np.unique(keys)) < len(np.unique(index.values))  # binning is not a no-op here
    Xd = _discretised(X, keys, index)
    settings = dict(loss=loss, max_rules=25, random_state=4, instance_sampling="none")
    binned = BoomerClassifier(feature_binning=f"{method}{{bin_ratio=0.2}}", **settings).fit(X, Y)
    exact = BoomerClassifier(**settings).fit(Xd, Y)
    assert len(binned.rules_) == len(exact.rules_)
    for rb, re in zip(binned.rules_, exact.rules_):
        np.testing.assert_array_equal(rule_coverage(rb, X), rule_coverage(re, Xd))
        np.testing.assert_allclose(rb.head_scores, re.head_scores, rtol=1e-9, atol=1e-12)


def test_binning_that_cannot_merge_values_is_the_exact_search(our_numeric_search):
    X, Y = _problem(120, 3, 4, seed=2)
    exact = BoomerClassifier(max_rules=30).fit(X, Y)
    for method in ("equal-width-midpoint", "equal-frequency-midpoint"):
        binned = BoomerClassifier(max_rules=30, feature_binning=f"{method}{{bin_ratio=1.0}}").fit(X, Y)
        assert [str(r) for r in binned.rules_] == [str(r) for r in exact.rules_]


@pytest.mark.parametrize("method", ["equal-width", "equal-width-midpoint"])
def test_binning_keeps_quality_and_handles_sparse_and_missing_values(method):
    X, Y = _problem(400, 6, 5, seed=3, zeros=True)
    X[::7, 2] = np.nan
    Xs = sp.csc_matrix(np.nan_to_num(X))
    train, test = slice(0, 300), slice(300, None)
    for data in (X, Xs):
        exact = BoomerClassifier(max_rules=60).fit(data[train], Y[train])
        binned = BoomerClassifier(max_rules=60, feature_binning=f"{method}{{bin_ratio=0.1}}").fit(data[train],
                                                                                                Y[train])
        loss_exact = metrics.hamming_loss(Y[test], exact.predict(data[test]))
        loss_binned = metrics.hamming_loss(Y[test], binned.predict(data[test]))
        assert loss_binned <= loss_exact + 0.03


# -- feature binning with examples out of the sample (docs/benchmarks/scale.md, "Binning with bagging") -----------------

BINNED_BAGGING = dict(loss="logistic-decomposable", head_type="single", max_rules=2, shrinkage=0.3,
                      l2_regularization_weight=1.0, feature_binning="equal-width{bin_ratio=0.05}",
                      instance_sampling="with-replacement{sample_size=0.99}", feature_sampling="none",
                      statistic_type="64-bit", label_binning="none", holdout="none", global_pruning="none")


def binned_bagging_data():
    """400 examples, two attributes spread evenly over [-100, 100] (each of 20 equal-width bins holds
    about 20 examples), two equal labels: x0 <= -50 and x1 <= 50."""
    rng = np.random.default_rng(1)
    n = 400
    X = np.column_stack([np.round(rng.permutation(np.linspace(-99.9, 99.9, n)) + rng.uniform(-0.1, 0.1, n), 3)
                         for _ in range(2)]).astype(np.float32).astype(np.float64)
    y = (X[:, 0] <= -50) & (X[:, 1] <= 50)
    return X, np.column_stack([y, y]).astype(np.uint8)


def out_of_sample_weights(X, case):
    """``sample_weight`` with zeros for the examples of one attribute's lowest or highest bin (``case``
    'x0 lowest', ..., or None): sampling with replacement never gives them a non-zero weight."""
    weights = np.ones(X.shape[0])
    if case is not None:
        x = X[:, int(case[1])]
        width = (x.max() - x.min()) / 20
        weights[x < x.min() + width + 0.05 if case.endswith("lowest") else x > x.max() - width - 0.05] = 0.0
    return weights


BINNED_BAGGING_CASES = [None, "x0 lowest", "x0 highest", "x1 lowest", "x1 highest"]


# the reference's first rule per case (attributes and operators; tests/test_mlrl_parity_binning.py asks it)
REFERENCE_RULE = {
    None: [(0, "<="), (1, "<=")],
    # x0's lowest bin out of the sample: no split below the zeros on x0 in the first step, none on x0 at
    # all later; the rule is one condition on the other side of x0's zeros
    "x0 lowest": [(0, ">")],
    "x0 highest": [(0, "<="), (1, "<=")],  # only the first step searches downwards from the highest bin
    "x1 lowest": [(0, "<=")],  # after x0 <= -50: x1's lowest covered bin out of the sample, x1 skipped
    # x1 <= 50 lies above x1's zeros, still found after the first condition: the upward search spans
    # every bin
    "x1 highest": [(0, "<="), (1, "<=")],
}


# seeds whose samples leave x0 <= -50 the better first condition in every case (with seed 2's sample and
# x0's lowest bin out of it, x0 > -50 is better, -42.98 against -38.85: that case would not tell a skipped
# side from a searched one)
@pytest.mark.parametrize("seed", [1, 5])
@pytest.mark.parametrize("case", BINNED_BAGGING_CASES)
def test_our_binned_search_does_not_depend_on_the_extreme_bins_being_sampled(case, seed):
    """'equal-width-midpoint' (ours): examples out of the sample in an attribute's lowest or highest bin
    take no split of that attribute away: the rule is x0 <= -50 and x1 <= 50 in every case."""
    X, Y = binned_bagging_data()
    settings = {**BINNED_BAGGING, "feature_binning": "equal-width-midpoint{bin_ratio=0.05}"}
    rule = BoomerClassifier(**settings, random_state=seed, single_label_choice="largest-score").fit(
        X, Y, sample_weight=out_of_sample_weights(X, case)).rules_[1]
    conditions = sorted((c.attribute, c.operator, c.threshold) for c in rule.conditions)
    assert [c[:2] for c in conditions] == [(0, "<="), (1, "<=")]
    assert -51 < conditions[0][2] < -49 and 49 < conditions[1][2] < 51


@pytest.mark.parametrize("seed", [1, 5])
@pytest.mark.parametrize("case", BINNED_BAGGING_CASES)
def test_the_references_binned_search_skips_a_side_whose_extreme_bin_is_out_of_the_sample(case, seed):
    """'equal-width' (the reference's name, so its search: .sweep.OUT_OF_SAMPLE): a pass whose first bin
    holds no example of the sample evaluates nothing, so the rule is mlrl-boomer 0.15.6's."""
    X, Y = binned_bagging_data()
    rule = BoomerClassifier(**BINNED_BAGGING, random_state=seed, single_label_choice="largest-score").fit(
        X, Y, sample_weight=out_of_sample_weights(X, case)).rules_[1]
    assert sorted((c.attribute, c.operator) for c in rule.conditions) == REFERENCE_RULE[case]


# -- partial heads and label binning ----------------------------------------------------------------

def _statistics(K, full, seed):
    rng = np.random.default_rng(seed)
    n = 40
    Y = rng.random((n, K)) < 0.4
    F = rng.normal(scale=0.5, size=(n, K))
    loss = "logistic-non-decomposable" if full else "logistic-decomposable"
    G = np.empty((n, K))
    H = np.empty((n, n_hessian_entries(K, not full)))
    update_statistics(LOSS_CODES[loss], (Y != 0).astype(np.uint8), F, np.arange(n), n, G, H)
    return G[:25].sum(0), H[:25].sum(0)


def _variant(g, h, full, mode, params, l2=1.0, l1=0.0, scratch=None):
    """Quality, labels and scores of a variant head; ``scratch`` (3 x max(K, 2B) ints) keeps the
    labels' bins in its first row for a binned head."""
    K = g.shape[0]
    if scratch is None:
        scratch = np.empty((3, max(K, 2 * int(params[3]))), np.int64)
    q = variant_quality(g, h, full, mode, params, l2, l1, np.zeros((K, K)), np.zeros(K), scratch[0], scratch[1],
                        scratch[2], np.empty(K), np.empty(len(h)))
    labels, scores = np.empty(K, np.int64), np.empty(K)
    n = variant_head(g, h, full, mode, params, l2, l1, 1.0, np.zeros((K, K)), scratch[0], scratch[1], scratch[2],
                     np.empty(K), np.empty(len(h)), labels, scores)
    return q, labels[:n], scores[:n]


def _brute_subset_quality(g, h, full, labels, l2=1.0):
    """Eq. (16) on the labels' sub-system by numpy."""
    K = g.shape[0]
    if full:
        Hm = np.array([[h[packed_index(min(a, b), max(a, b), K)] for b in labels] for a in labels])
    else:
        Hm = np.diag(h[labels])
    gs = g[labels]
    p = np.linalg.solve(Hm + l2 * np.eye(len(labels)), -gs)
    return gs @ p + 0.5 * p @ Hm @ p + 0.5 * l2 * p @ p, p


def _dense_hessian(h, K):
    return np.array([[h[packed_index(min(a, b), max(a, b), K)] for b in range(K)] for a in range(K)])


def _brute_reference_partial(g, h, full, order, l2=1.0):
    """mlrl-boomer 0.15.6's partial head of a full Hessian on the labels ``order`` (its order), by numpy:
    the sub-system its copyCoefficients builds (entry (a, b), a <= b, read at position
    labels[b] (labels[b] + 1) / 2 + labels[a] of the column-wise packed upper triangle), solved, and the
    quality of that solution with the first n gradients and the leading n x n block.  Returns (quality,
    labels ascending, their scores)."""
    K, n = g.shape[0], len(order)
    Hd = _dense_hessian(h, K)
    colwise = [Hd[r, c] for c in range(K) for r in range(c + 1)]
    sub = np.empty((n, n))
    for a in range(n):
        for b in range(a, n):
            sub[a, b] = sub[b, a] = colwise[order[b] * (order[b] + 1) // 2 + order[a]]
    p = np.linalg.solve(sub + l2 * np.eye(n), -g[order])
    q = g[:n] @ p + 0.5 * p @ Hd[:n, :n] @ p + 0.5 * l2 * p @ p
    return q, np.sort(order), p[np.argsort(order)]


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_partial_fixed_heads_are_the_n_largest_scores_as_the_reference_solves_them(full, seed):
    """mlrl-boomer 0.15.6's meaning: the n labels whose individual optimal scores are largest in absolute
    value; a decomposable loss rates them by their summed eq. (17) qualities, a non-decomposable one
    solves the sub-system it builds in that order (the true one only if the labels ascend) and rates
    the solution with the leading gradients and Hessian block (see head_variants)."""
    K = 7
    g, h = _statistics(K, full, seed)
    diag = np.array([h[packed_index(k, k, K)] if full else h[k] for k in range(K)])
    scores = -g / (diag + 1.0)
    for n in (1, 2, 3, K):
        q, labels, head = _variant(g, h, full, HEAD_PARTIAL_FIXED, np.array([n, 0, 0, 0.0]))
        order = np.argsort(-np.abs(scores), kind="stable")[:n]  # no ties here
        assert list(labels) == sorted(order)
        if full:
            expected_q, _, expected_p = _brute_reference_partial(g, h, full, order)
            if list(order) == sorted(order):  # ascending labels: the true sub-system
                np.testing.assert_allclose(expected_p, _brute_subset_quality(g, h, full, order)[1], rtol=1e-9)
        else:
            expected_q = float(np.sum(-0.5 * g[order] ** 2 / (diag[order] + 1.0)))
            expected_p = scores[np.sort(order)]
        assert q == pytest.approx(expected_q, rel=1e-9)
        np.testing.assert_allclose(head, expected_p, rtol=1e-9)
        if n == K and not full:  # all labels: the complete head
            assert q == pytest.approx(complete_quality(g, h, full, 1.0, 0.0, np.zeros((K, K)), np.zeros(K)))
        if n == 1 and not full:
            assert q == pytest.approx(single_quality(g, h, full, 1.0, 0.0)[0])


@pytest.mark.parametrize("full", [False, True])
def test_partial_dynamic_heads_keep_labels_near_the_largest_score(full):
    """mlrl-boomer 0.15.6's meaning: label k is kept if (|s_k| - min|s|)^e >= (1 - t)(max|s| - min|s|)^e,
    1 - t in single precision; labels ascending."""
    K = 8
    g, h = _statistics(K, full, 11)
    diag = np.array([h[packed_index(k, k, K)] if full else h[k] for k in range(K)])
    a = np.abs(-g / (diag + 1.0))
    for threshold, exponent in ((1e-6, 1.0), (0.3, 1.0), (0.3, 2.0), (0.02, 2.0), (0.999, 1.5)):
        _, labels, _ = _variant(g, h, full, HEAD_PARTIAL_DYNAMIC, np.array([0, threshold, exponent, 0.0]))
        factor = float(np.float32(1) - np.float32(threshold))
        expected = np.flatnonzero((a - a.min()) ** exponent >= factor * (a.max() - a.min()) ** exponent)
        assert list(labels) == list(expected)
        assert int(np.argmax(a)) in labels
    _, labels, _ = _variant(g, h, full, HEAD_PARTIAL_DYNAMIC, np.array([0, 1e-6, 1.0, 0.0]))
    assert list(labels) == [int(np.argmax(a))]  # a tiny threshold: the largest score alone


def _binned_params(ratio, min_bins=1, max_bins=0, K=100):
    return np.array([0, 0, 0, side_bins(K, ratio, min_bins, max_bins), ratio, min_bins, max_bins])


def _brute_bins(w, ratio, min_bins=1, max_bins=0):
    """mlrl-boomer's equal-width label bins, written out: per sign ceil(ratio x n) bins (in single
    precision, bounded) over that sign's [min, max]; negatives first, -1 for a zero score."""
    bins = np.full(len(w), -1)
    offset = 0
    for side in (w < 0, w > 0):
        n = int(side.sum())
        if n == 0:
            continue
        count = max(int(np.ceil(np.float32(ratio) * np.float32(n))), min(min_bins, n))
        if max_bins:
            count = min(count, max_bins)
        lo, hi = w[side].min(), w[side].max()
        span = (hi - lo) / count
        idx = np.zeros(n, int) if span == 0 else np.minimum(np.floor((w[side] - lo) / span).astype(int), count - 1)
        bins[side] = offset + idx
        offset += count
    return bins


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_label_binning_with_one_label_per_bin_is_the_complete_head(full, seed):
    """Two labels per sign at most, and as many bins (ratio 1): every label its own bin, so the
    binned head is the exact complete head."""
    K = 4
    _, h = _statistics(K, full, seed)
    g = np.array([2.0, 0.5, -0.7, -2.5]) * (seed + 1)  # two labels of each sign
    diag = np.array([h[packed_index(k, k, K)] if full else h[k] for k in range(K)])
    q, labels, scores = _variant(g, h, full, HEAD_BINNED, _binned_params(1.0, K=K))
    assert len(np.unique(_brute_bins(-g / (diag + 1.0), 1.0))) == K
    chol = np.zeros((K, K))
    assert q == pytest.approx(complete_quality(g, h, full, 1.0, 0.0, chol, np.zeros(K)), rel=1e-9)
    expected = np.empty(K)
    complete_scores(g, h, full, 1.0, 0.0, chol, expected)
    np.testing.assert_allclose(scores, expected, rtol=1e-9)


def _shared_score_optimum(g, h, full, bins, l2=1.0, l1=0.0):
    """Brute force of mlrl-boomer's binned head: scores shared within each bin (zero for bin -1) from
    the reduced system built with an assignment matrix A: A'g, A'HA with each bin's diagonal entry
    replaced by the sum of its labels' diagonal entries, L2 and L1 weighted by the bin sizes (L1 as
    mlrl-boomer 0.15.6 has it: a diagonal bin's gradient moved away from zero by its weight where it
    exceeds that weight, a full system's moved towards zero where it exceeds alpha; below, unchanged).
    Returns (objective, scores)."""
    K = len(g)
    used = np.unique(bins[bins >= 0])
    A = (bins[:, None] == used[None, :]).astype(float)  # K x bins
    Hm = np.array([[h[packed_index(min(a, b), max(a, b), K)] for b in range(K)] for a in range(K)]) if full \
        else np.diag(h)
    Hb = A.T @ Hm @ A
    Hb[np.diag_indices(len(used))] = A.T @ np.diag(Hm)
    sizes = A.sum(axis=0)
    gb = A.T @ g
    if full:
        g_eff = np.where(np.abs(gb) > l1, gb - l1 * sizes * np.sign(gb), gb)
    else:
        g_eff = np.where(np.abs(gb) > l1 * sizes, gb + l1 * sizes * np.sign(gb), gb)
    pb = np.linalg.solve(Hb + l2 * np.diag(sizes), -g_eff)
    objective = gb @ pb + 0.5 * pb @ (Hb + l2 * np.diag(sizes)) @ pb + l1 * sizes @ np.abs(pb)
    return objective, A @ pb


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("l1", [0.0, 0.3])
@pytest.mark.parametrize("ratio", [0.3, 0.5])
def test_label_binning_solves_the_shared_score_system(full, l1, ratio):
    """Labels of a bin share one score, the optimum of eq. (14) under that constraint; with L1 the
    bins come from mlrl-boomer's label-wise scores (moved away from zero where |g| > alpha) and a bin
    of n labels carries n times the L1 weight."""
    K = 9
    g, h = _statistics(K, full, 5)
    diag = np.array([h[packed_index(k, k, K)] if full else h[k] for k in range(K)])
    scores_l1 = -np.where(np.abs(g) > l1, g + l1 * np.sign(g), g) / (diag + 1.0)
    bins = _brute_bins(scores_l1, ratio)
    q_expected, p = _shared_score_optimum(g, h, full, bins, l1=l1)
    params = _binned_params(ratio, K=K)
    scratch = np.empty((3, max(K, 2 * int(params[3]))), np.int64)
    q, labels, scores = _variant(g, h, full, HEAD_BINNED, params, l1=l1, scratch=scratch)
    assert list(labels) == list(range(K))
    np.testing.assert_array_equal(scratch[0][:K], bins)  # the bins of every label
    assert q == pytest.approx(q_expected, rel=1e-9)
    np.testing.assert_allclose(scores, p, rtol=1e-9, atol=1e-12)
    assert len(np.unique(np.round(scores[bins >= 0], 12))) == len(np.unique(bins[bins >= 0]))


@pytest.mark.parametrize("settings", [
    dict(head_type="partial-fixed{output_ratio=0.4}"), dict(head_type="partial-dynamic"),
    dict(head_type="complete", label_binning="equal-width"),
    dict(loss="logistic-non-decomposable", head_type="partial-fixed"),
    dict(loss="logistic-non-decomposable", label_binning="equal-width{bin_ratio=0.5}"),
])
def test_head_variants_learn_models_that_generalise(settings):
    X, Y = _problem(400, 6, 6, seed=8)
    est = BoomerClassifier(max_rules=80, **settings).fit(X[:300], Y[:300])
    sizes = [len(r.head_labels) for r in est.rules_[1:]]
    if settings.get("head_type", "").startswith("partial-fixed"):
        # as mlrl-boomer: ceil(ratio x K) in single precision, ratio 0: the average label cardinality / K
        cardinality = np.float32(Y[:300].sum(axis=1).mean())
        ratio = np.float32(0.4) if "output_ratio" in settings["head_type"] else cardinality / np.float32(6)
        n = max(2, math.ceil(ratio * np.float32(6)))
        assert set(sizes) == {n}
    baseline = metrics.hamming_loss(Y[300:], np.zeros_like(Y[300:]))
    assert metrics.hamming_loss(Y[300:], est.predict(X[300:])) < baseline - 0.05


# -- holdout sets and global pruning --------------------------------------------------------------

@pytest.mark.parametrize("method", ["random", "stratified-output-wise", "stratified-example-wise"])
def test_holdout_splits_are_disjoint_sized_and_stratified(method):
    rng = np.random.default_rng(0)
    Y = (rng.random((300, 6)) < np.array([0.05, 0.1, 0.3, 0.5, 0.2, 0.02])).astype(np.uint8)
    train, holdout = split_holdout(Y, method, 0.33, 7)
    assert len(holdout) == 99 and len(train) == 201
    assert len(np.intersect1d(train, holdout)) == 0 and len(np.union1d(train, holdout)) == 300
    if method == "stratified-output-wise":
        for k in range(6):
            assert abs(Y[holdout, k].sum() - 0.33 * Y[:, k].sum()) <= 1.5
    if method == "stratified-example-wise":
        vectors, counts = np.unique(Y, axis=0, return_counts=True)
        for v, c in zip(vectors, counts):
            assert abs((Y[holdout] == v).all(axis=1).sum() - 0.33 * c) < 1.0 + 1e-9


def _holdout_losses(est, X, Y):
    """The mean loss on the holdout set after each rule, recomputed from the model's rules."""
    from engine.core.losses import example_loss
    rows = est.holdout_indices_
    Xh, Yh = X[rows], (Y[rows] > 0).astype(np.uint8)
    F = np.zeros(Yh.shape)
    out = []
    code = LOSS_CODES[est.loss]
    for record in est.records_:
        for rule in record.rules:
            covered = rule_coverage(rule, Xh)
            F[np.ix_(covered, rule.head_labels)] += rule.head_scores
        out.append(np.mean([example_loss(code, Yh[i], F[i]) for i in range(len(Yh))]))
    return np.array(out)


def test_pre_pruning_stops_where_a_manual_scan_of_the_holdout_loss_stops():
    X, Y = _problem(300, 5, 4, seed=6)
    opts = "pre-pruning{min_rules=10,num_past=8,num_recent=4,min_improvement=0.01,stop_interval=2}"
    est = BoomerClassifier(max_rules=400, holdout="random", global_pruning=opts).fit(X, Y)
    recorded = np.array([r.extra["holdout_loss"] for r in est.records_])
    np.testing.assert_allclose(recorded, _holdout_losses(est, X, Y), rtol=1e-9)
    # manual scan (engine.pruning's, mlrl-boomer's meaning): at every second reading t once 12 earlier ones
    # fill the windows, the mean of the 8 past (t-12 .. t-5) against the 4 recent (t-4 .. t-1) values; the
    # first t whose improvement (past - recent) / recent is below 1 % stops, keeping the best prefix read
    # with full windows (t >= 13)
    stop = None
    for t in range(13, 401):
        if t % 2 == 0:
            past, recent = recorded[t - 13:t - 5].mean(), recorded[t - 5:t - 1].mean()
            if (past - recent) / recent < 0.01:
                stop = t
                break
    assert stop is not None and len(est.records_) == stop < 400
    best = 13 + int(np.argmin(recorded[12:stop]))
    assert est.selected_steps_ == best and len(est.rules_) == best
    prefix = BoomerClassifier(max_rules=best, holdout="random").fit(X, Y)
    np.testing.assert_array_equal(prefix.predict(X), est.predict(X))


def test_post_pruning_keeps_the_best_prefix_on_the_holdout_set():
    X, Y = _problem(300, 5, 4, seed=9)
    est = BoomerClassifier(max_rules=120, holdout="stratified-example-wise",
                           global_pruning="post-pruning{min_rules=5,interval=3}").fit(X, Y)
    recorded = np.array([r.extra["holdout_loss"] for r in est.records_])
    np.testing.assert_allclose(recorded, _holdout_losses(est, X, Y), rtol=1e-9)
    assert len(est.records_) == 120
    candidates = [t for t in range(5, 121) if t % 3 == 0]
    best = min(candidates, key=lambda t: (recorded[t - 1], t))
    assert est.selected_steps_ == best and len(est.rules_) == best


def test_pruning_without_a_holdout_set_watches_the_training_loss():
    X, Y = _problem(200, 4, 3, seed=2)
    est = BoomerClassifier(max_rules=50, global_pruning="post-pruning{min_rules=1}", holdout="none").fit(X, Y)
    losses = np.array([r.extra["train_loss"] for r in est.records_])
    assert est.holdout_indices_ is None
    assert est.selected_steps_ == int(np.argmin(losses)) + 1 == len(est.rules_)
    # remove_unused_rules=false keeps every rule
    keep = BoomerClassifier(max_rules=50, global_pruning="post-pruning{min_rules=1,remove_unused_rules=false}",
                            holdout="none")
    assert len(keep.fit(X, Y).rules_) == 50


def test_pre_pruning_aggregations():
    # mlrl-boomer 0.15.6's meaning: readings 5, 1, 5 fill the past window [5, 1, 5] (through the recent
    # one), 0.95 is then the recent window; reading 0.9 compares them: min 1 -> 0.95 improves by
    # (1 - 0.95) / 0.95 = 5.3 % (< 10 %: stop); max 5 and avg 3.67 -> 0.95 improve a lot (go on)
    for aggregation, stops in (("min", True), ("max", False), ("avg", False)):
        p = PrePruning(min_rules=1, num_past=3, num_recent=1, aggregation=aggregation, min_improvement=0.1)
        results = [p.update(t + 1, v) for t, v in enumerate([5.0, 1.0, 5.0, 0.95, 0.9])]
        assert results == [False, False, False, False, stops]
        # the best prefix counts only readings taken while the windows were full: rule 5
        assert p.selected == 5


def test_pre_pruning_window_starts_at_min_rules_and_may_go_on():
    # min_rules 10 with windows of 3 + 1 readings: readings start after rule 10 - 4 = 6
    p = PrePruning(min_rules=10, num_past=3, num_recent=1, aggregation="min", min_improvement=0.1)
    values = [0.1] * 6 + [5.0, 1.0, 5.0, 0.95, 0.9]
    assert [p.update(t + 1, v) for t, v in enumerate(values)] == [False] * 10 + [True]
    assert p.selected == 11
    # remove_unused_rules=false: training goes on, the model keeps the best prefix once it fired
    p = PrePruning(min_rules=1, num_past=3, num_recent=1, aggregation="min", min_improvement=0.1,
                   remove_unused_rules=False)
    assert not any(p.update(t + 1, v) for t, v in enumerate([5.0, 1.0, 5.0, 0.95, 0.9, 0.1, 0.05]))
    assert p.selected == 5 and p.learned == 7


def test_thirty_two_bit_statistics_learn_the_same_model_quality():
    X, Y = _problem(400, 6, 5, seed=4)
    for loss in ("logistic-decomposable", "logistic-non-decomposable"):
        a = BoomerClassifier(loss=loss, max_rules=80).fit(X[:300], Y[:300])
        b = BoomerClassifier(loss=loss, max_rules=80, statistic_type="32-bit").fit(X[:300], Y[:300])
        assert [str(r) for r in a.rules_[:5]] == [str(r) for r in b.rules_[:5]]
        la = metrics.hamming_loss(Y[300:], a.predict(X[300:]))
        lb = metrics.hamming_loss(Y[300:], b.predict(X[300:]))
        assert abs(la - lb) <= 0.02


@pytest.mark.slow
def test_scale_benchmark_runs_each_fit_in_its_own_process(capsys):
    """``python -m engine bench --scale`` on a toy size, without a reference: a row with time, losses
    and the process's peak memory."""
    from types import SimpleNamespace

    from engine.bench import scale as bench_scale

    args = SimpleNamespace(reference_python=None, sizes=[400], labels=[4], heads=["single"], rules=5,
                           max_n_200=10_000)
    assert bench_scale.run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.split()[:3] == ["400", "4", "single"])
    fields = row.replace("|", " ").split()
    assert float(fields[3]) >= 0 and 0 <= float(fields[8]) <= 100 and float(fields[12]) > 50  # s, Ham %, MiB
    assert fields[6] == fields[7] == "-"  # no reference, no time to reach its losses
    assert not any(line.startswith("time ~ N^b") for line in lines)  # one size: no exponent (not "nan")
    assert bench_scale.exponent([1e4, 1e5], [1.0, 10.0]) == pytest.approx(1.0)
