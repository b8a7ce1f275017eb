"""Eq. (19)'s distances of the known label vectors under the logistic losses, with the C library's
``exp`` and ``log`` (Numba calls them; NumPy's vectorised ``exp`` rounds 5 % of values differently), in
the arithmetic order of mlrl-boomer's ``measureDistance``, so that exact ties fall as in the reference
and in an exported model (:mod:`engine.standalone`)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def logistic_vector_losses(F, signs, example_wise, out):
    """``out[i, m]``: the loss of predicting vector ``m`` (``signs`` M x K, +1 relevant, -1 not) for the
    scores ``F[i]``: example-wise, max + log(exp(-max) + sum_k exp(x_k - max)) with x_k = -s_k f_k and
    max = max(0, x); label-wise, the running mean over k of x + log(exp(-x) + 1) (x > 0) or
    log(1 + exp(x))."""
    N, K = F.shape
    M = signs.shape[0]
    x = np.empty(K)
    for i in range(N):
        for m in range(M):
            top = 0.0
            for k in range(K):
                x[k] = -signs[m, k] * F[i, k]
                top = max(top, x[k])
            if example_wise:
                total = math.exp(0.0 - top)
                for k in range(K):
                    total = total + math.exp(x[k] - top)
                out[i, m] = top + math.log(total)
                continue
            mean = 0.0
            for k in range(K):
                v = x[k]
                term = v + math.log(math.exp(0.0 - v) + 1.0) if v > 0 else math.log(1.0 + math.exp(v))
                mean = mean + (term - mean) / (k + 1)
            out[i, m] = mean
