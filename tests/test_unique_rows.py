"""engine.predictors.unique_rows is np.unique(Y, axis=0, ...) for 0/1 matrices (NumPy's version
holds the GIL for seconds on large label matrices; ours sorts packed 64-bit words)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from engine.predictors import unique_rows


def _reference(Y):
    rows, index, inverse, counts = np.unique(Y, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return rows, index, np.asarray(inverse).reshape(-1), counts


@pytest.mark.parametrize("n_labels", [1, 3, 8, 9, 63, 64, 65, 130])
@pytest.mark.parametrize("density", [0.05, 0.5])
@pytest.mark.parametrize("dtype", [np.uint8, bool, np.int64, np.float32])
def test_same_rows_order_indices_inverse_and_counts_as_numpy(n_labels, density, dtype):
    rng = np.random.default_rng(n_labels)
    Y = (rng.random((300, n_labels)) < density).astype(dtype)
    Y[50:80] = Y[10]  # repeated rows
    ours = unique_rows(Y, return_index=True, return_inverse=True, return_counts=True)
    for mine, theirs in zip(ours, _reference(Y)):
        np.testing.assert_array_equal(mine, theirs)
    assert ours[0].dtype == Y.dtype
    np.testing.assert_array_equal(unique_rows(Y), ours[0])
    np.testing.assert_array_equal(ours[0][ours[2]], Y)  # the inverse rebuilds Y


def test_a_single_row_and_other_values():
    np.testing.assert_array_equal(unique_rows(np.array([[1, 0, 1]], dtype=np.uint8)), [[1, 0, 1]])
    Y = np.array([[2, 0], [-1, 1], [2, 0]])  # not 0/1: NumPy's own
    rows, inverse = unique_rows(Y, return_inverse=True)
    np.testing.assert_array_equal(rows, [[-1, 1], [2, 0]])
    np.testing.assert_array_equal(inverse, [1, 0, 1])


def test_another_thread_keeps_running_while_large_matrices_are_sorted():
    Y = (np.random.default_rng(0).random((400_000, 14)) < 0.3).astype(np.uint8)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (unique_rows(Y, return_index=True, return_counts=True), done.set()))
    ticks = []
    worker.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        done.wait(0.001)
    worker.join()
    ticks.append(time.perf_counter())
    # NumPy's record sort holds the GIL throughout (here 2-3 s without a single tick); ours lets
    # this thread run at least every few hundred milliseconds on a loaded machine
    assert np.diff(ticks).max() < 0.5
