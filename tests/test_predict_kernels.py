"""engine.core.predict: the sum of the covering heads (eq. 2) and the decision list's first covering rule per
label, both one parallel kernel, against a plain Python loop over random rules with missing values."""
from __future__ import annotations

import numpy as np
import pytest

from engine.core.predict import first_covering, sum_of_heads
from engine.core.sweep import OP_EQ, OP_GT, OP_LEQ, OP_NEQ

_TESTS = {OP_LEQ: lambda v, t: v <= t, OP_GT: lambda v, t: v > t, OP_EQ: lambda v, t: v == t,
          OP_NEQ: lambda v, t: v != t}


def _rules(rng, R, D, K):
    cond_ptr, attrs, ops, thrs, head_ptr, labels, scores = [0], [], [], [], [0], [], []
    for _ in range(R):
        for _ in range(int(rng.integers(1, 3))):
            attrs.append(int(rng.integers(0, D)))
            ops.append(int(rng.choice(list(_TESTS))))
            thrs.append(float(rng.integers(0, 3)))
        cond_ptr.append(len(attrs))
        head = rng.choice(K, size=int(rng.integers(1, K + 1)), replace=False)
        labels.extend(int(k) for k in head)
        scores.extend(float(s) for s in rng.normal(size=len(head)))
        head_ptr.append(len(labels))
    return (np.array(cond_ptr, np.int64), np.array(attrs, np.int64), np.array(ops, np.int64),
            np.array(thrs, np.float32), np.array(head_ptr, np.int64), np.array(labels, np.int64),
            np.array(scores, np.float64))


def _covers(x, rules, r):
    cond_ptr, attrs, ops, thrs = rules[:4]
    return all(x[attrs[c]] == x[attrs[c]] and _TESTS[int(ops[c])](x[attrs[c]], thrs[c])
               for c in range(cond_ptr[r], cond_ptr[r + 1]))


@pytest.mark.parametrize("seed", range(4))
def test_sums_and_first_covering_rules_match_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    N, D, K, R = 40, 3, 4, 6
    X = rng.integers(0, 4, (N, D)).astype(np.float32)
    X[rng.random((N, D)) < 0.1] = np.nan  # missing values are never covered
    rules = _rules(rng, R, D, K)
    active = (rng.random(R) < 0.8).astype(np.uint8)
    F = np.zeros((N, K))
    sum_of_heads(X, *rules, active, F)
    out, decided = np.zeros((N, K)), np.zeros((N, K), np.uint8)
    first_covering(X, *rules, active, out, decided)
    head_ptr, labels, scores = rules[4:]
    want_sum, want_first, want_decided = np.zeros((N, K)), np.zeros((N, K)), np.zeros((N, K), np.uint8)
    for i in range(N):
        for r in range(R):
            if active[r] and _covers(X[i], rules, r):
                for c in range(head_ptr[r], head_ptr[r + 1]):
                    want_sum[i, labels[c]] += scores[c]
                    if not want_decided[i, labels[c]]:
                        want_first[i, labels[c]], want_decided[i, labels[c]] = scores[c], 1
    assert np.array_equal(F, want_sum)  # the same additions in the same order: bit for bit
    assert np.array_equal(out, want_first) and np.array_equal(decided, want_decided)
    assert want_decided.any() and not want_decided.all()  # the data exercise both cases
