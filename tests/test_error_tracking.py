"""Incremental error tracking (eq. 18) against recounting from scratch, on float32 and float64 scores."""
import numpy as np
import pytest

from engine.core.boosting import add_head_scores, label_wise_errors, label_wise_errors_of_head


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_errors_of_a_head_equal_a_recount_after_adding_it(dtype):
    rng = np.random.default_rng(0)
    n, K = 60, 5
    Y = (rng.random((n, K)) < 0.4).astype(np.uint8)
    F = np.zeros((n, K), dtype=dtype)  # zeros first: before the default rule every score is 0
    errors = np.zeros(n, dtype=np.int64)
    label_wise_errors(F, Y, np.arange(n, dtype=np.int64), n, errors, 0.0)
    wrong = int(errors.sum())
    for step in range(300):
        rows = np.sort(rng.choice(n, size=rng.integers(1, n + 1), replace=False)).astype(np.int64)
        labels = np.sort(rng.choice(K, size=rng.integers(1, K + 1), replace=False)).astype(np.int64)
        # scores like 0.1, whose float32 rounding is not the float64 value, and exact cancellations
        head = rng.choice([0.1, -0.1, 0.3, -0.7, 1e-3], size=len(labels))
        d_labels, _ = label_wise_errors_of_head(F, Y, rows, len(rows), labels, head, errors, 0.0)
        add_head_scores(F, rows, len(rows), labels, head, 1.0)
        wrong += d_labels
        recount = np.zeros(n, dtype=np.int64)
        label_wise_errors(F, Y, np.arange(n, dtype=np.int64), n, recount, 0.0)
        np.testing.assert_array_equal(errors, recount, err_msg=f"step {step}")
        assert wrong == int(((F > 0) != Y).sum())


def test_the_first_head_on_zero_float32_scores_is_counted():
    """f32(0.1) - 0.1 > 0: recovering the old score from the new one would count nothing here."""
    F = np.zeros((1, 1), dtype=np.float32)
    Y = np.zeros((1, 1), dtype=np.uint8)
    errors = np.zeros(1, dtype=np.int64)
    rows, labels = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    d_labels, d_examples = label_wise_errors_of_head(F, Y, rows, 1, labels, np.array([0.1]), errors, 0.0)
    assert (d_labels, d_examples, errors[0]) == (1, 1, 1)


@pytest.mark.parametrize("loss", ["logistic-decomposable", "squared-hinge-decomposable", "logistic-non-decomposable",
                                  "squared-error-non-decomposable"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_fused_update_counts_and_refreshes_as_a_recount(loss, dtype):
    """``apply_head_tracked`` (one pass) against a recount of the errors and the statistics recomputed
    from scratch, for single-label (the gathered path), partial and complete heads (in order: the
    contiguous path; out of order: the general one)."""
    from engine.core.boosting import apply_head_tracked
    from engine.core.losses import LOSS_CODES, is_decomposable, n_hessian_entries, score_threshold, update_statistics

    rng = np.random.default_rng(1)
    n, K = 50, 6
    code = LOSS_CODES[loss]
    Y = (rng.random((n, K)) < 0.4).astype(np.uint8)
    F = np.zeros((n, K), dtype=dtype)
    G = np.zeros((n, K), dtype=dtype)
    H = np.zeros((n, n_hessian_entries(K, is_decomposable(loss))), dtype=dtype)
    everyone = np.arange(n, dtype=np.int64)
    update_statistics(code, Y, F, everyone, n, G, H)
    errors = np.zeros(n, dtype=np.int64)
    threshold = score_threshold(loss)  # the squared hinge's 0.5: the tracked kernel must use it too
    label_wise_errors(F, Y, everyone, n, errors, threshold)
    wrong, wrong_examples = int(errors.sum()), int((errors > 0).sum())
    for step in range(120):
        rows = np.sort(rng.choice(n, size=rng.integers(1, n + 1), replace=False)).astype(np.int64)
        size = (1, int(rng.integers(2, K)), K, K)[step % 4]
        labels = rng.choice(K, size=size, replace=False).astype(np.int64)
        if step % 4 != 3:  # the last kind: every label, out of order
            labels = np.sort(labels)
        head = rng.choice([0.1, -0.1, 0.3, -0.7, 1e-3, 2.5], size=size)
        expected = F.copy()
        add_head_scores(expected, rows, len(rows), labels, head, 1.0)
        d_labels, d_examples = apply_head_tracked(code, Y, F, G, H, rows, len(rows), labels, head, Y, errors)
        np.testing.assert_array_equal(F, expected, err_msg=f"step {step}")
        wrong += d_labels
        wrong_examples += d_examples
        recount = np.zeros(n, dtype=np.int64)
        label_wise_errors(F, Y, everyone, n, recount, threshold)
        np.testing.assert_array_equal(errors, recount, err_msg=f"step {step}")
        assert (wrong, wrong_examples) == (int(recount.sum()), int((recount > 0).sum()))
        G_fresh, H_fresh = np.zeros_like(G), np.zeros_like(H)
        update_statistics(code, Y, F, everyone, n, G_fresh, H_fresh)
        np.testing.assert_array_equal(G, G_fresh, err_msg=f"step {step}")
        np.testing.assert_array_equal(H, H_fresh, err_msg=f"step {step}")
