"""mlrl-boomer 0.15.6's feature binning arithmetic (engine.core.binning), on hand-computed cases, and
feature_binning='auto' (its switch); the models against the reference's own: tests/test_mlrl_parity_binning.py."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.boomer import BoomerClassifier, feature_binning_kind
from engine.core.binning import (LISTED_IN_SPARSE_BIN, equal_frequency_bins, equal_width_bins, reference_bin_count,
                                 reference_binned_matrix)

f32 = np.float32


@pytest.mark.parametrize("n, ratio, min_bins, max_bins, expected", [
    (100, 0.33, 2, 0, 33),  # 0.33f x 100 = 33.0000013 rounds to 33 in float32
    (30, 0.1, 2, 0, 3),  # 0.1f x 30 is 3 in float32 (in double 3.00000004: 4 bins)
    (3, 0.33, 2, 0, 2),  # at least min_bins
    (1, 0.33, 2, 0, 1),  # ... but no more than the examples
    (1000, 0.5, 2, 64, 64),  # at most max_bins
])
def test_bin_count_is_a_float32_fraction_of_the_examples(n, ratio, min_bins, max_bins, expected):
    assert reference_bin_count(n, ratio, min_bins, max_bins) == expected


def test_equal_width_thresholds_come_from_the_bin_position_after_empty_bins_are_dropped():
    # min 1, width 12 / 4 = 3: intervals [1, 4) [4, 7) [7, 10) [10, 13]; [4, 7) is empty and dropped; 0 lies
    # below the values, so its bin is the last (the reference's unsigned conversion of a negative index)
    bins, zero_bin, thresholds = equal_width_bins(f32([1, 2, 8, 9, 13]), 5, False, 4)
    assert bins.tolist() == [0, 0, 1, 1, 2] and zero_bin == 2
    # bin 1 (8 and 9) has threshold 1 + 2 x 3 = 7, from its position, not 10 from its interval
    assert thresholds.tolist() == [4.0, 7.0]


def test_equal_width_on_the_sparse_format_counts_the_zeros_as_a_value():
    # values -4, -2, 3 and three zeros: min -4, max 3, width 3.5; 0 in the interval [-0.5, 3], with 3
    bins, zero_bin, thresholds = equal_width_bins(f32([-4, -2, 3]), 6, True, 2)
    assert bins.tolist() == [0, 0, 1] and zero_bin == 1 and thresholds.tolist() == [-0.5]


def test_equal_frequency_bins_hold_ceil_of_values_per_bin_and_equal_values_together():
    # 6 values, 3 bins of 2: the second 1 stays in the first bin; thresholds the float32 means
    bins, zero_bin, thresholds = equal_frequency_bins(f32([1, 1, 2, 3, 4, 5]), 6, False, 3)
    assert bins.tolist() == [0, 0, 1, 1, 2, 2] and zero_bin == 0 and thresholds.tolist() == [1.5, 3.5]


def test_equal_frequency_on_the_sparse_format_gives_the_zeros_a_bin_of_their_own_when_the_open_one_is_full():
    # 4 stored values, 4 zeros, 2 values per bin: -3, -1 fill bin 0; the zeros open bin 1 (4 of them, full),
    # so 2 opens bin 2 (threshold between 0 and 2), and 5 joins it
    bins, zero_bin, thresholds = equal_frequency_bins(f32([-3, -1, 2, 5]), 8, True, 2)
    assert bins.tolist() == [0, 0, 2, 2] and zero_bin == 1 and thresholds.tolist() == [-0.5, 1.0]


def test_equal_frequency_sparse_bin_takes_the_negatives_and_the_positives_after_the_zeros():
    # 9 stored values, 1 zero, 5 values per bin: -1 is alone in bin 0 when the zero comes, so it joins it;
    # 1, 2 and 3 complete it; 4 opens bin 1 (threshold 3.5)
    bins, zero_bin, thresholds = equal_frequency_bins(f32([-1, 1, 2, 3, 4, 5, 6, 7, 8]), 10, True, 2)
    assert bins.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 1] and zero_bin == 0 and thresholds.tolist() == [3.5]


def test_equal_frequency_zeros_may_open_more_bins_than_asked_for():
    # the zeros count towards a bin's values, the values per bin do not count them: 4 per bin, the two
    # zeros fill bin 0 early, 6 opens a third bin (the reference writes it past its arrays' end; we keep it)
    bins, zero_bin, thresholds = equal_frequency_bins(f32([-1, 1, 2, 3, 4, 5, 6]), 9, True, 2)
    assert bins.tolist() == [0, 0, 1, 1, 1, 1, 2] and zero_bin == 0 and thresholds.tolist() == [1.5, 5.5]


def test_a_feature_with_one_bin_allows_no_condition():
    assert equal_frequency_bins(f32([1, 2, 3]), 3, False, 1) is None
    assert equal_width_bins(f32([1, 1, 5]), 3, False, 2) is not None
    # all values in the sparse bin but none: after dropping the empty intervals a single bin
    assert equal_width_bins(f32([-1.0, 5.0]), 2, False, 3) is not None
    assert equal_width_bins(f32([5.0, 5.0, 5.0, 6.0]), 4, False, 2)[2].tolist() == [5.5]


def test_binned_matrix_numbers_bins_from_the_sparse_bin_and_maps_kernel_thresholds_back():
    X = np.column_stack([[1, 2, 8, 9, 13], [5, 4, 3, 2, 1], [0, 1, 0, 1, 1]]).astype(np.float64)
    X[4, 1] = np.nan
    skip = np.array([False, False, True])
    Xb, thresholds = reference_binned_matrix(X, False, skip, "equal-width", 0.8, 2, 0)  # ceil(0.8f x 5) = 4 bins
    assert Xb[:, 0].tolist() == [-2, -2, -1, -1, 0]  # bins 0, 1, 2 counted from the sparse bin (2)
    assert thresholds.threshold(0, -1.5) == 4.0 and thresholds.threshold(0, -0.5) == 7.0
    assert np.isnan(Xb[4, 1]) and Xb[:, 2].tolist() == X[:, 2].tolist()  # missing stays, skipped kept
    assert thresholds.tables[2] is None


def test_binned_matrix_keeps_sparse_input_sparse_and_marks_the_listed_positives_of_the_sparse_bin():
    X = sp.csc_matrix(np.array([[-1], [1], [2], [3], [4], [5], [6], [7], [8], [0]], dtype=np.float64))
    Xb, thresholds = reference_binned_matrix(X, True, np.array([False]), "equal-frequency", 0.2, 2, 0)  # 2 bins
    assert sp.issparse(Xb)
    # the case above: -1, the zero, 1, 2 and 3 in bin 0; the reference lists 1, 2, 3 (not -1 nor the zero)
    listed = LISTED_IN_SPARSE_BIN
    assert Xb.toarray()[:, 0].tolist() == [0, listed, listed, listed, 1, 1, 1, 1, 1, 0]
    assert thresholds.threshold(0, 0.75) == 3.5


def test_auto_binning_is_equal_width_from_200001_examples_in_the_references_dense_format():
    assert feature_binning_kind("auto", 200_001, False) == "equal-width"
    assert feature_binning_kind("auto", 200_000, False) == "none"
    assert feature_binning_kind("auto", 10**6, True) == "none"


def test_auto_binning_counts_every_row_of_fit_and_asks_the_references_format(monkeypatch):
    """'auto' bins from the threshold on on all rows given to fit (the holdout set's too, as the
    reference's feature matrix holds them) and on SciPy input the reference keeps dense."""
    import engine.boomer.settings as settings

    monkeypatch.setattr(settings, "AUTO_BINNING_MIN_EXAMPLES", 40)
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(50, 3)), 2)
    Y = (X[:, :2] + 0.3 * rng.normal(size=(50, 2)) > 0).astype(np.uint8)
    fixed = dict(max_rules=4, feature_sampling="none", holdout="random{holdout_set_size=0.3}")

    binned = [str(r) for r in BoomerClassifier(**fixed, feature_binning="equal-width").fit(X, Y).rules_]
    exact = [str(r) for r in BoomerClassifier(**fixed, feature_binning="none").fit(X, Y).rules_]
    assert binned != exact
    assert [str(r) for r in BoomerClassifier(**fixed, feature_binning="auto").fit(X, Y).rules_] == binned
    Xs = sp.csr_matrix(X)  # no zeros: the reference's dense format ('auto' format) is the smaller
    assert [str(r) for r in BoomerClassifier(**fixed, feature_binning="auto").fit(Xs, Y).rules_] == binned
    assert [str(r) for r in BoomerClassifier(**fixed, feature_binning="auto", feature_format="sparse").fit(
        Xs, Y).rules_] == exact
