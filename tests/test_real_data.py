"""BOOMER on real benchmark data from ../shared/data (skipped with a reason when absent)."""
from pathlib import Path

import numpy as np
import pytest

from engine import BoomerClassifier, metrics
from engine.datasets import load

pytestmark = pytest.mark.slow

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"  # ../shared/data


@pytest.fixture(scope="module")
def emotions_split():
    if not (DATA_DIR / "emotions.arff").exists():
        pytest.skip(f"emotions.arff not found in {DATA_DIR}")
    return load(DATA_DIR / "emotions.arff").train_test_split(0.33, seed=0)


@pytest.mark.parametrize("loss, head, max_subset, max_hamming", [
    ("logistic-non-decomposable", "complete", 0.70, 0.21),
    ("logistic-decomposable", "single", None, 0.21),
])
def test_emotions_reaches_the_papers_quality(emotions_split, loss, head, max_subset, max_hamming):
    train, test = emotions_split
    est = BoomerClassifier.paper_2020(loss=loss, head_type=head, max_rules=1000, random_state=1)
    records = list(est.fit_iter(train.X, train.Y, test.X, test.Y, schema=train.schema))
    P = est.predict(test.X)
    hamming = metrics.hamming_loss(test.Y, P)
    subset = metrics.subset_zero_one_loss(test.Y, P)
    assert hamming <= max_hamming
    if max_subset is not None:
        assert subset <= max_subset
    # the streamed test losses are those of the final model
    assert records[-1].test_hamming == pytest.approx(hamming)
    assert records[-1].test_subset == pytest.approx(subset)
    # ranking quality is far better than chance (rank loss of random scores is about 0.5)
    assert metrics.rank_loss(test.Y, est.decision_function(test.X)) < 0.25


def test_sparse_enron_trains_with_nominal_conditions():
    if not (DATA_DIR / "enron.arff").exists():
        pytest.skip(f"enron.arff not found in {DATA_DIR}")
    train, test = load(DATA_DIR / "enron.arff").train_test_split(0.33, seed=0)
    est = BoomerClassifier(max_rules=300, random_state=1)
    est.fit(train.X, train.Y, nominal_attributes=train.nominal_mask, schema=train.schema)
    assert {c.operator for r in est.rules_ for c in r.conditions} <= {"==", "!="}
    baseline = metrics.hamming_loss(test.Y, np.zeros_like(test.Y))
    assert metrics.hamming_loss(test.Y, est.predict(test.X)) < baseline
