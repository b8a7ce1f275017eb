"""Table 1's statistics (SPEC C.7, T-C1/T-C2), BBC-CV (T-C4) and the measures, without Dask."""
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from engine.evaluation.table1 import paper_table1 as T
from engine.evaluation.stats.bbc_cv import bbc_cv
from engine.evaluation.stats.cd_diagram import cliques, cd_figure
from engine.evaluation.stats.measures import MEASURES
from engine.evaluation.stats.statistics import average_ranks, critical_distance, friedman, ranks, wilcoxon


def table(measure):
    return np.array([T.TABLE[measure][d] for d in T.DATASETS])


def half_up(x):
    return float(Decimal(str(float(x))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def test_ranks_average_ties():
    assert ranks([[1.0, 2.0, 2.0, 0.5]]).tolist() == [[2.0, 3.5, 3.5, 1.0]]
    assert ranks([[1.0, 2.0]], higher_is_better=True).tolist() == [[2.0, 1.0]]


@pytest.mark.parametrize("measure", ["subset_01", "example_f1"])
def test_average_ranks_reproduce_the_paper(measure):  # T-C1
    avg = average_ranks(table(measure), MEASURES[measure].higher_is_better)
    assert [half_up(a) for a in avg] == list(T.AVERAGE_RANKS[measure])


def test_hamming_average_ranks_documented_discrepancy():  # T-C1, SPEC C.7
    avg = average_ranks(table("hamming"))
    assert avg[0] == pytest.approx(3.50) and avg[2] == pytest.approx(4.25)  # paper: 3.56 and 4.19
    others = [j for j in range(7) if j not in (0, 2)]
    assert [half_up(avg[j]) for j in others] == [T.AVERAGE_RANKS["hamming"][j] for j in others]
    # the paper's values follow when medical's 2.5/2.5 tie is broken 3/2
    R = ranks(table("hamming"))
    R[T.DATASETS.index("medical"), [0, 2]] = [3.0, 2.0]
    assert [half_up(a) for a in R.mean(axis=0)] == list(T.AVERAGE_RANKS["hamming"])


@pytest.mark.parametrize("measure, chi2, p, f, fp", [
    ("subset_01", 23.85, 0.0006, 6.92, None), ("hamming", 10.33, 0.112, 1.92, 0.100),
    ("example_f1", 18.59, 0.0049, 4.42, 0.0015)])
def test_friedman_and_iman_davenport(measure, chi2, p, f, fp):  # T-C2
    r = friedman(table(measure), MEASURES[measure].higher_is_better)
    assert r.df == (6, 42)
    assert round(r.chi2, 2) == chi2
    assert r.f == pytest.approx(f, abs=0.01)  # SPEC C.7 prints F to two places
    assert r.chi2_p == pytest.approx(p, abs=0.5 * 10 ** -len(str(p).split(".")[1]))
    if fp is None:
        assert r.f_p < 1e-4
    else:
        assert round(r.f_p, 4 if fp < 0.01 else 3) == fp


def test_nemenyi_critical_distance():  # SPEC C.7: 2.909 / 3.185 for k = 7, N = 8
    assert round(critical_distance(7, 8, 0.10), 3) == 2.909
    assert round(critical_distance(7, 8, 0.05), 3) == 3.185


def test_wilcoxon_exw_multi_against_single():  # 8 of 8 wins: exact two-sided p = 2 / 256
    V = table("subset_01")
    assert wilcoxon(V[:, 3], V[:, 2]) == pytest.approx(2 / 256)
    assert wilcoxon(V[:, 0], V[:, 0]) == 1.0


def test_measures_by_hand():
    Y = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 0]], dtype=np.uint8)
    P = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 1]], dtype=np.uint8)
    assert MEASURES["hamming"].score(Y, P) == pytest.approx(100 * 3 / 9)
    assert MEASURES["subset_01"].score(Y, P) == pytest.approx(100 * 2 / 3)
    # F1 per example: 2/3, 1 (both empty), 2*1/(2+2) = 0.5
    assert MEASURES["example_f1"].score(Y, P) == pytest.approx(100 * (2 / 3 + 1 + 0.5) / 3)
    for name in ("hamming", "subset_01", "example_f1"):
        m = MEASURES[name]
        assert 100 * m.per_example(Y, P).mean() == pytest.approx(m.score(Y, P))


def test_bbc_cv_picks_the_best_configuration():  # T-C4
    rng = np.random.default_rng(0)
    n, K, C = 300, 5, 12
    Y = (rng.random((n, K)) < 0.3).astype(np.uint8)
    P = np.repeat(Y[None], C, axis=0)
    noise = np.full(C, 0.20)
    noise[7] = 0.10  # configuration 7 is best by construction
    for c in range(C):
        P[c] ^= (rng.random((n, K)) < noise[c]).astype(np.uint8)
    r = bbc_cv(Y, P, "hamming", n_bootstraps=200, seed=1)
    assert r.selection_frequencies()[7] >= 0.95
    assert r.mean["hamming"] == pytest.approx(np.mean(r.scores["hamming"]))  # the mean, not the last bootstrap
    assert len(r.scores["subset_01"]) == 200
    assert 5.0 < r.mean["hamming"] < 15.0


def test_bbc_cv_one_bootstrap_by_brute_force():
    rng = np.random.default_rng(3)
    n, K, C = 40, 3, 4
    Y = (rng.random((n, K)) < 0.5).astype(np.uint8)
    P = (rng.random((C, n, K)) < 0.5).astype(np.uint8)
    r = bbc_cv(Y, P, "subset_01", n_bootstraps=1, seed=5)
    draw = np.random.default_rng(5).integers(0, n, n)
    in_bag = [np.mean([np.any(Y[i] != P[c][i]) for i in draw]) for c in range(C)]
    best = int(np.argmin(in_bag))
    assert r.selected[0] == best
    oob = np.setdiff1d(np.arange(n), draw)
    assert r.scores["subset_01"][0] == pytest.approx(100 * np.mean(np.any(Y[oob] != P[best][oob], axis=1)))
    assert r.scores["example_f1"][0] == pytest.approx(MEASURES["example_f1"].score(Y[oob], P[best][oob]))


def test_bbc_cv_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        bbc_cv(np.zeros((5, 2)), np.zeros((3, 4, 2)), "hamming")
    with pytest.raises(ValueError, match="unknown measure"):
        bbc_cv(np.zeros((5, 2)), np.zeros((3, 5, 2)), "accuracy")


def test_cd_cliques_and_figure():
    # ranks 1, 1.5, 3, 5 with CD 2.1: {1, 1.5, 3} and {3, 5} are the maximal groups
    assert cliques([5.0, 1.0, 3.0, 1.5], 2.1) == [(0, 2), (2, 3)]
    assert cliques([1.0, 4.0], 1.0) == []
    fig = cd_figure(["a", "b", "c", "d"], [5.0, 1.0, 3.0, 1.5], 2.1, "t")
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"a (5.00)", "b (1.00)", "c (3.00)", "d (1.50)"} <= texts


def test_nemenyi_q_table_agrees_with_the_studentized_range():
    from scipy import stats

    from engine.evaluation.stats.statistics import nemenyi_q

    for k in range(2, 11):
        for alpha in (0.05, 0.10):
            exact = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
            assert nemenyi_q(alpha, k) == pytest.approx(exact, abs=2e-3)
    assert nemenyi_q(0.05, 12) == pytest.approx(stats.studentized_range.ppf(0.95, 12, np.inf) / np.sqrt(2))


def test_findings_follow_the_table():
    """The report's C.8 checks on a report built from known cell means (the paper's own values)."""
    from engine.evaluation.stats.bbc_cv import BBCResult
    from engine.evaluation.table1.report import Cell, Report, findings

    rep = Report(list(T.DATASETS), list(T.METHODS), 10, 1)
    for d in T.DATASETS:
        for j, m in enumerate(T.METHODS):
            scores = {meas: np.array([T.TABLE[meas][d][j]]) for meas in T.TABLE}
            scores.update(micro_f1=np.array([0.0]), macro_f1=np.array([0.0]))
            rep.cells[(d, m)] = Cell(BBCResult(np.array([0]), scores, 1, "hamming"), ["c"], 1.0)
    result = {statement.split(" (")[0]: holds for statement, holds, _ in findings(rep)}
    assert result["ex.w. multi has the best average rank in Subset 0/1 loss"] is True
    assert result["ex.w. multi < ex.w. single in subset 0/1 on most data sets"] is True
    assert result["ex.w. ≪ l.w. in subset 0/1 on medical"] is True  # 28.45/30.16 against 23.90/23.04
    assert result["LP is strong on llog"] is True and result["LP is strong on emotions"] is True
    del rep.cells[("slashdot", "lp")]
    assert {s.split(" (")[0]: h for s, h, _ in findings(rep)}["ex.w. ≪ l.w. in subset 0/1 on slashdot"] is True
    del rep.cells[("slashdot", "boomer-exw-single")]
    assert {s.split(" (")[0]: h for s, h, _ in findings(rep)}["ex.w. ≪ l.w. in subset 0/1 on slashdot"] is None
