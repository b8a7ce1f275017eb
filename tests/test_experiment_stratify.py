"""Iterative stratification (Sechidis et al. 2011) against plain k-fold: label and label-pair
distributions across folds, the rarest label spread evenly, every example in exactly one fold."""
import numpy as np
import pytest
from sklearn.model_selection import KFold

from engine.evaluation.experiment.stratify import iterative_assignment, stratified_folds, stratified_split


def correlated_labels(seed=0, n=400, k=10):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    W = rng.normal(size=(3, k))
    return ((Z @ W) * 0.8 + np.linspace(-3.0, 0.0, k) + rng.normal(size=(n, k)) > 0).astype(np.uint8)


def pair_deviation(Y, folds):
    """Mean over folds and label pairs of |share of the fold with both labels - share in the whole|."""
    Y = Y.astype(float)
    upper = np.triu_indices(Y.shape[1], 1)
    whole = (Y.T @ Y / len(Y))[upper]
    return float(np.mean([np.abs((Y[t].T @ Y[t] / len(t))[upper] - whole) for _, t in folds]))


def label_deviation(Y, folds):
    return float(np.mean([np.abs(Y[t].mean(axis=0) - Y.mean(axis=0)) for _, t in folds]))


def test_folds_partition_the_examples_with_near_equal_sizes():
    Y = correlated_labels()
    folds = stratified_folds(Y, 5, seed=3)
    tests = np.concatenate([t for _, t in folds])
    assert sorted(tests.tolist()) == list(range(len(Y)))
    for train, test in folds:
        assert not set(train) & set(test) and len(train) + len(test) == len(Y)
        assert abs(len(test) - len(Y) / 5) <= 2


def test_the_rarest_label_is_spread_as_evenly_as_possible():
    Y = correlated_labels()
    rarest = int(np.argmin(Y.sum(axis=0)))
    for seed in range(5):
        counts = [int(Y[t, rarest].sum()) for _, t in stratified_folds(Y, 5, seed)]
        assert max(counts) - min(counts) <= 1, counts


def test_label_pairs_are_distributed_more_evenly_than_by_plain_k_fold():
    Y = correlated_labels()
    ours = [pair_deviation(Y, stratified_folds(Y, 5, s)) for s in range(10)]
    plain = [pair_deviation(Y, list(KFold(5, shuffle=True, random_state=s).split(Y))) for s in range(10)]
    assert np.mean(ours) < 0.9 * np.mean(plain), (np.mean(ours), np.mean(plain))
    # and single labels far more evenly (the algorithm's own target)
    ours = [label_deviation(Y, stratified_folds(Y, 5, s)) for s in range(10)]
    plain = [label_deviation(Y, list(KFold(5, shuffle=True, random_state=s).split(Y))) for s in range(10)]
    assert np.mean(ours) < 0.5 * np.mean(plain)


def test_label_pairs_on_emotions(shared_data):
    from engine.evaluation.data import load_spec, resolve

    spec = resolve("emotions", shared_data)
    _, Y = load_spec(spec.name, spec.files)
    ours = np.mean([pair_deviation(Y, stratified_folds(Y, 3, s)) for s in range(6)])
    plain = np.mean([pair_deviation(Y, list(KFold(3, shuffle=True, random_state=s).split(Y))) for s in range(6)])
    assert ours < plain


def test_a_hand_sized_example():
    # label 1 has two examples: one per fold; label 0 (four) two per fold; the unlabelled examples fill up
    Y = np.array([[1, 1], [1, 1], [1, 0], [1, 0], [0, 0], [0, 0]])
    fold = iterative_assignment(Y, (0.5, 0.5), seed=0)
    assert sorted(fold[:2].tolist()) == [0, 1]
    assert np.bincount(fold[:4], minlength=2).tolist() == [2, 2]
    assert np.bincount(fold, minlength=2).tolist() == [3, 3]


def test_split_shares_and_bad_arguments():
    Y = correlated_labels(1, n=300)
    train, test = stratified_split(Y, 0.25, seed=1)
    assert len(test) == 75 and len(train) == 225
    with pytest.raises(ValueError, match="folds"):
        stratified_folds(Y[:3], 5)
    with pytest.raises(ValueError, match="test_size"):
        stratified_split(Y, 1.5)
