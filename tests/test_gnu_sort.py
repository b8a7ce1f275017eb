"""engine.core.gnu_sort leaves equal values in the order GCC's ``std::sort`` leaves them: checked against
the real ``std::sort`` of libstdc++, compiled here with the system's C++ compiler (skipped, saying so,
where there is none)."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from engine.core.gnu_sort import gnu_order, gnu_sort

CXX = shutil.which("g++") or shutil.which("c++")

PROGRAM = r"""
#include <algorithm>
#include <cstdio>
#include <vector>
struct Entry { unsigned index; float value; };
int main() {
    unsigned m;
    while (std::scanf("%u", &m) == 1) {
        std::vector<Entry> v(m);
        for (unsigned i = 0; i < m; i++) std::scanf("%u %f", &v[i].index, &v[i].value);
        std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.value < b.value; });
        for (unsigned i = 0; i < m; i++) std::printf("%u ", v[i].index);
        std::printf("\n");
    }
}
"""


def _arrays():
    """Arrays with many ties (few distinct values), of every size class the introsort treats apart
    (insertion sort only, partitions, the heapsort fallback of adversarial inputs)."""
    rng = np.random.default_rng(0)
    arrays = [np.ones(n, dtype=np.float32) for n in (1, 2, 16, 17, 100, 1500)]
    for n in list(rng.integers(2, 40, size=30)) + list(rng.integers(40, 3000, size=40)):
        arrays.append(rng.integers(0, int(rng.integers(1, 6)), size=n).astype(np.float32))
    arrays += [np.sort(a)[::-1].copy() for a in arrays[-10:]]
    return arrays


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++) to build the std::sort it is compared with")
def test_equal_values_stand_as_std_sort_leaves_them(tmp_path):
    binary = tmp_path / "stdsort"
    source = tmp_path / "stdsort.cpp"
    source.write_text(PROGRAM)
    subprocess.run([CXX, "-O2", "-std=c++17", "-o", str(binary), str(source)], check=True)
    arrays = _arrays()
    stdin = "".join(f"{len(a)}\n" + " ".join(f"{i} {v:g}" for i, v in enumerate(a)) + "\n" for a in arrays)
    lines = subprocess.run([str(binary)], input=stdin, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(arrays)
    for values, line in zip(arrays, lines):
        vals = values.copy()
        rows = np.arange(len(vals), dtype=np.int32)
        gnu_sort(vals, rows)
        np.testing.assert_array_equal(rows, np.array(line.split(), dtype=np.int32), err_msg=f"{len(vals)} values")
        np.testing.assert_array_equal(vals, np.sort(values))


def test_gnu_order_reorders_only_the_equal_values_of_the_attributes_asked_for():
    """An index sorted by value (rows ascending among equal values): the attributes asked for get their
    equal values in gnu_sort's order of their entries in row order; the others, and distinct values, stay."""
    values = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  # 20 equal: partitioned
                       -2, 0.5, 3,  # distinct
                       2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], dtype=np.float32)
    rows = np.concatenate([np.arange(20), [4, 1, 7], np.arange(20)]).astype(np.int32)
    ptr = np.array([0, 20, 23, 43])
    ordered = rows.copy()
    gnu_order(ptr, ordered, values, np.array([0, 1]))
    expected = np.arange(20, dtype=np.int32)
    gnu_sort(np.ones(20, dtype=np.float32), expected)
    assert not np.array_equal(expected, np.arange(20))  # the introsort moves equal values
    np.testing.assert_array_equal(ordered[:20], expected)
    np.testing.assert_array_equal(ordered[20:], rows[20:])  # distinct values; attribute 2 not asked for
