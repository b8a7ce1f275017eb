"""ML-ME and the classifier chain run BLAS on one thread while they fit, and give the setting back."""
from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from engine.mlme.chain import LogisticChainClassifier
from engine.mlme.classifier import MLMEClassifier


def _blas_threads() -> set[int]:
    return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


@pytest.mark.parametrize("make", [lambda: MLMEClassifier(n_experts=2, max_em_iter=3, sa_iterations=10),
                                  LogisticChainClassifier])
def test_fit_runs_blas_on_one_thread_and_restores_it(make):
    if not _blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can see")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] + rng.normal(scale=0.5, size=(60, 3)) > 0).astype(np.uint8)
    with threadpool_limits(2, user_api="blas"):  # the conftest's single thread would hide the switch
        during = [_blas_threads() for _ in make().fit_iter(X, Y)]
        after = _blas_threads()
    assert during and all(d == {1} for d in during)
    assert after == {2}
