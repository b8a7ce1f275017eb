"""Every learner stops soon after Stop (issue 60): label ranking's set-up (preference graphs, base
features, the objective) now runs in the consuming thread and looks at the cancel event; the
benchmark command runs start/cancel cycles per learner and writes its table."""
import threading
import time

import numpy as np
import pytest

from engine.bench import stop_latency
from engine.ranking.booster import LabelRankingBooster

STOP_WITHIN_S = 0.2


def _ranking_data(n=40_000, d=10, k=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = (X @ rng.normal(size=(d, k)) + rng.normal(size=(n, k)) > 0).astype(np.uint8)
    return X, Y


def test_label_ranking_stops_during_its_set_up():
    X, Y = _ranking_data()
    LabelRankingBooster(max_iterations=2).fit(X[:200], Y[:200])  # kernels compiled or loaded
    event = threading.Event()
    est = LabelRankingBooster(features="thresholds")
    start = time.perf_counter()
    steps = est.fit_iter(X, Y, X[:5000], Y[:5000], cancel=event)
    call = time.perf_counter() - start
    assert call < 0.5  # validation only: the set-up (seconds on this data) is not done by the caller
    received, ended = [], []

    def consume():
        received.extend(steps)
        ended.append(time.perf_counter())

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    time.sleep(0.3)  # well inside the set-up (its graphs alone loop over 40,000 examples)
    set_at = time.perf_counter()
    event.set()
    worker.join(30)
    assert ended and not received
    assert ended[0] - set_at < STOP_WITHIN_S
    with pytest.raises(Exception, match="not fitted"):
        est.predict(X[:3])


def test_an_event_set_before_the_first_step_learns_nothing_and_an_unset_one_changes_nothing():
    X, Y = _ranking_data(n=300)
    event = threading.Event()
    event.set()
    est = LabelRankingBooster(max_iterations=5)
    assert list(est.fit_iter(X, Y, cancel=event)) == []
    plain = LabelRankingBooster(max_iterations=5).fit(X, Y)
    watched = LabelRankingBooster(max_iterations=5).fit(X, Y, cancel=threading.Event())
    assert np.array_equal(plain.coef_, watched.coef_)
    assert plain.n_examples_without_edges_ == int(((Y.sum(1) == 0) | (Y.sum(1) == Y.shape[1])).sum())


def test_too_many_edges_are_refused_when_fit_iter_is_called(monkeypatch):
    from engine.ranking import graphs

    X, Y = _ranking_data(n=300)
    monkeypatch.setattr(graphs, "MAX_EDGES", 100)
    with pytest.raises(ValueError, match="edges in total; at most 100 fit in memory"):
        LabelRankingBooster().fit_iter(X, Y)


def test_the_stop_latency_benchmark_writes_its_table(tmp_path, capsys):
    out = tmp_path / "docs" / "benchmarks" / "stop_latency.md"
    missing = tmp_path / "absent.svm"  # the random stand-in of yeast's shape
    code = stop_latency.run(["--learners", "label-ranking", "cc-lr", "--cycles", "3", "--max-delay", "0.2",
                             "--data", str(missing), "--record", str(out)])
    text = out.read_text()
    assert text.startswith("# `stop_latency` runs\n") and "random stand-in 2417 x 103 x 14" in text
    assert "`python -m engine.bench.stop_latency" in text or "python -m" in text  # the dated heading names the command
    rows = [line for line in text.splitlines() if line.startswith("| label-ranking") or line.startswith("| cc-lr")]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        median, worst = float(cells[1]), float(cells[2])
        assert 0.0 <= median <= worst < 5.0 and cells[4].endswith("/3")
    assert code == (0 if max(float(r.strip("|").split("|")[2]) for r in rows) <= STOP_WITHIN_S else 1)
