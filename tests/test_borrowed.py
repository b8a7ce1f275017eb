"""Borrowed views (engine.core.borrowed): the same memory as the array they borrow from."""
import numpy as np
from numba import njit

from engine.core.borrowed import borrowed


@njit(cache=False)
def _write_through(a):
    view = borrowed(a)
    for i in range(view.shape[0]):
        view[i] = 2 * view[i] + i
    return view.shape[0], view.strides[0]


@njit(cache=False)
def _tuple_through(pair):
    (x, (y, scale)) = borrowed(pair)
    x[0] += scale
    y[1, 1] = x[0]
    return scale


def test_a_borrowed_view_shares_data_shape_and_strides():
    base = np.arange(12.0).reshape(3, 4)
    column = base[:, 1]  # not contiguous: the strides must carry over
    length, stride = _write_through(column)
    assert (length, stride) == (3, column.strides[0])
    np.testing.assert_array_equal(base[:, 1], 2 * np.array([1.0, 5.0, 9.0]) + np.arange(3))
    np.testing.assert_array_equal(base[:, 0], [0.0, 4.0, 8.0])  # neighbours untouched


def test_a_tuple_is_borrowed_member_by_member():
    x = np.zeros(2)
    y = np.zeros((2, 2), dtype=np.float32)
    assert _tuple_through((x, (y, 1.5))) == 1.5
    assert x[0] == 1.5 and y[1, 1] == np.float32(1.5)
