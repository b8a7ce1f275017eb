"""LAPACK's dsyevd and dgesv called from kernels (engine.core.lapack) against SciPy's calls of the same routines,
and the indefinite heads (engine.core.indefinite) that use them."""
import numpy as np
import pytest
import scipy.linalg

from engine.core.indefinite import INDEFINITE_MARGIN, indefinite_head
from engine.core.lapack import solve_symmetric, symmetric_eigenvalues
from engine.core.losses import packed_index


def test_eigenvalues_of_a_hand_computed_matrix():
    a = np.array([[1.0, 3.0], [3.0, 1.0]])  # eigenvalues 1 - 3 and 1 + 3
    w = np.empty(2)
    assert symmetric_eigenvalues(a.copy(), w) == 0
    np.testing.assert_allclose(w, [-2.0, 4.0], rtol=1e-15)
    a = np.diag([5.0, -1.0, 2.0])
    w = np.empty(3)
    assert symmetric_eigenvalues(a, w) == 0
    np.testing.assert_array_equal(w, [-1.0, 2.0, 5.0])  # ascending


@pytest.mark.parametrize("n", [1, 3, 8, 40])
def test_eigenvalues_and_solutions_are_scipys(n):
    """The routines SciPy's eigh(driver='evd') and solve call (SciPy's LAPACK, the same library)."""
    rng = np.random.default_rng(n)
    b = rng.normal(size=(n, n))
    a = b + b.T
    w = np.empty(n)
    assert symmetric_eigenvalues(a.copy(), w) == 0
    np.testing.assert_allclose(w, scipy.linalg.eigh(a, eigvals_only=True, driver="evd"), rtol=1e-12, atol=1e-12)
    rhs = rng.normal(size=n)
    x = rhs.copy()
    assert solve_symmetric(a.copy(), x) == 0
    np.testing.assert_allclose(x, scipy.linalg.solve(a, rhs), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a @ x, rhs, rtol=1e-9, atol=1e-9)


def test_a_singular_system_is_reported():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x = np.array([1.0, 2.0])
    assert solve_symmetric(a, x) > 0


def _packed(full):
    K = full.shape[0]
    return np.array([full[k, l] for k in range(K) for l in range(k, K)])


def test_indefinite_heads_solve_clearly_indefinite_systems_only():
    """A system whose smallest eigenvalue is below -1e-9 (1 + max |H_kk|) gets its solution, rated by the
    objective; one above that margin (or semi-definite) is left to the diagonal fallback (+inf)."""
    rng = np.random.default_rng(5)
    K = 5
    q, _ = np.linalg.qr(rng.normal(size=(K, K)))
    g = rng.normal(size=K)
    for smallest, indefinite in ((-1.0, True), (-1e-6, True), (-1e-12, False), (0.0, False), (0.5, False)):
        full = q @ np.diag([smallest, 1.0, 2.0, 3.0, 4.0]) @ q.T
        full = (full + full.T) / 2
        out = np.full(K, 7.0)
        quality = indefinite_head(g, _packed(full), 0.0, 0.0, out)
        assert (quality != np.inf) == indefinite, smallest
        if indefinite:
            np.testing.assert_allclose(full @ out, -g, atol=1e-6 / abs(smallest))
            assert quality == pytest.approx(g @ out + 0.5 * out @ full @ out, rel=1e-9)
        else:
            np.testing.assert_array_equal(out, 7.0)  # untouched
    assert INDEFINITE_MARGIN == 1e-9 and packed_index(0, 1, K) == 1


def test_indefinite_heads_of_a_singular_or_empty_system_fall_back():
    out = np.full(3, 7.0)
    singular = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # eigenvalues -1, 0, 1
    assert indefinite_head(np.ones(3), _packed(singular), 0.0, 0.0, out) == np.inf
    np.testing.assert_array_equal(out, 7.0)
    assert indefinite_head(np.empty(0), np.empty(0), 0.0, 0.0, np.empty(0)) == np.inf
