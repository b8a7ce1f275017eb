"""Training labels: 0/1 uint8 labels are used as given (no copy), others are converted once, and
fitting never writes to the caller's labels."""
import numpy as np
import pytest

from engine import BoomerClassifier
from engine.validation import check_labels


def test_uint8_labels_are_used_without_a_copy_and_others_are_converted():
    Y = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.uint8)
    assert np.shares_memory(check_labels(Y), Y)
    for given in (Y.astype(bool), Y.astype(np.int64), Y.astype(np.float32), 2 * Y.astype(np.int8) - 1,
                  np.asfortranarray(Y)):
        got = check_labels(given)
        assert got.dtype == np.uint8 and got.flags.c_contiguous and got.flags.writeable
        np.testing.assert_array_equal(got, Y)
    readonly = Y.copy()
    readonly.flags.writeable = False
    got = check_labels(readonly)
    assert got.flags.writeable and got is not readonly
    np.testing.assert_array_equal(got, Y)


@pytest.mark.parametrize("bad", [np.array([[0, 2]], dtype=np.uint8), np.array([[0, 7]], dtype=np.int64)])
def test_uint8_labels_outside_zero_one_are_refused_naming_the_value(bad):
    with pytest.raises(ValueError, match="only 0/1 or -1/\\+1, found"):
        check_labels(bad)


def test_fitting_leaves_the_callers_labels_alone():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    Y = (X[:, :3] + rng.normal(size=(120, 3)) > 0).astype(np.uint8)
    before = Y.copy()
    est = BoomerClassifier(max_rules=15, head_type="complete", post_optimization="sequential", random_state=1)
    list(est.fit_iter(X[:80], Y[:80], X[80:], Y[80:]))
    np.testing.assert_array_equal(Y, before)
