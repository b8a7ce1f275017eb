"""The covering loop of Rapp, Loza Mencía & Fürnkranz, PAKDD 2018 (``search='pakdd-2018{...}'``): per rule
the head of the examples still in the training set, then conditions added greedily while the heuristic of
the best head improves; examples leave once enough of their labels are set.  :class:`PakddFit` holds a fit."""
from __future__ import annotations

import math
import warnings
from typing import Iterator

import numpy as np

from ..binary_attributes import as_equalities
from ..core.features import build_feature_index
from ..core.refinement import apply_condition
from ..core.seco_search import (H_SUBSET, TOL, Pairs, Walked, best_conditions, best_conditions_decomposable,
                                covered_counts, head_search, label_bitsets, mask_bitset)
from ..learner import RuleRecord, TrainingData
from ..model import rule_coverage
from ..rules import OPERATORS, Condition, Rule
from .mlrl_blocks import _MAX_CONDITIONS_CAP, _DecisionListTracker


class PakddFit:
    """One fit of the PAKDD 2018 search for the estimator ``est`` with the search's options ``cfg`` (heuristic
    code ``heuristic``): the feature index, the decision list's losses, the examples still active and the
    sweep's output and scratch arrays, built once."""

    def __init__(self, est, data: TrainingData, cfg: dict, heuristic: int):
        self.est, self.data, self.cfg = est, data, cfg
        self.Y = Y = data.Y
        self.n, self.K = n, K = Y.shape
        self.heuristic = heuristic
        self.beta2 = float(cfg['beta']) ** 2
        self.exhaustive = cfg['head_search'] == "exhaustive"
        self.index = index = build_feature_index(data.X, data.nominal)
        if index.constant_attributes().all():
            warnings.warn("every attribute is constant on the training data: rules can only have empty bodies",
                          RuntimeWarning, stacklevel=5)
        self.D = D = index.n_features
        self.W = max(1, (n + 63) // 64)
        self.max_conditions = cfg['max_conditions'] or _MAX_CONDITIONS_CAP
        self.min_coverage = int(cfg['min_coverage'])
        est.n_head_evaluations_ = 0
        self.default = est.default_rule(Y, data.schema)
        default_values = (self.default.head_scores > 0).astype(np.uint8)
        self.train = _DecisionListTracker(Y, default_values)
        self.val = _DecisionListTracker(data.Y_test, default_values) if data.X_test is not None else None
        self.active = np.ones(n, dtype=bool)
        self.min_remaining = cfg['max_uncovered'] * n
        # per attribute its best condition's value, head size, operator, threshold and head evaluations
        self.outputs = (np.empty(D), np.empty(D, dtype=np.int64), np.empty(D, dtype=np.int64), np.empty(D),
                        np.empty(D, dtype=np.int64))
        self.T1, self.T0 = np.empty(K, np.int64), np.empty(K, np.int64)
        self.labels, self.values = np.empty(K, np.int64), np.empty(K, np.int64)
        self.cond_args = (index.ptr, index.rows, index.values, index.missing_ptr, index.missing_rows)
        # the sweeps compact each attribute's covered entries as they pass (engine.core.sweep)
        self.cache = np.empty(len(index.rows), dtype=np.int32 if len(index.rows) < 2**31 else np.int64)
        self.seg = np.zeros((D, 3), dtype=np.int64)
        self.walked = Walked(index.ptr, index.rows, index.values, index.values, self.cache, self.seg,
                             index.missing_ptr, index.missing_rows, index.nominal)

    def learn(self) -> Iterator[RuleRecord]:
        """The rules, then the default rule (none after cancelling)."""
        for t in range(self.cfg['max_rules'] - 1):  # the default rule is the last of max_rules
            n_active = int(self.active.sum())
            if n_active == 0 or n_active <= self.min_remaining:
                break
            counts = _countable(self.Y, self.train.decided.astype(bool), self.active)
            cov = self.active.astype(np.uint8)
            n_T = covered_counts(cov, counts[0], counts[1], self.T1, self.T0)
            bits = mask_bitset(cov, self.W)
            value, size, _, evals = self._head(counts, n_T, bits)
            if size == 0:
                break
            grown = self._grow(counts, cov, n_T, bits, value)
            if grown is None:
                return  # cancelled: the unfinished rule is dropped
            conditions, n_T, bits, sweep_evals = grown
            # The chosen body's head (already evaluated during the sweep: not counted again).
            value, size, _, _ = self._head(counts, n_T, bits)
            if size == 0:
                break
            self.est.n_head_evaluations_ += int(evals) + sweep_evals
            yield self._record(t, conditions, value, size, int(evals) + sweep_evals)
        yield self.default_record()

    def _head(self, counts, n_T: int, bits):
        """The best head of the covered examples (its labels and values into ``labels``, ``values``)."""
        C1, C0, G1, G0, U1, U0 = counts
        return head_search(self.heuristic, self.beta2, self.exhaustive, self.T1, self.T0, U1, U0, n_T, G1, G0, bits,
                           bits, 0, self.labels, self.values)

    def _grow(self, counts, cov, n_T: int, bits, value):
        """Conditions added while the best head improves: (conditions, covered count, covered bitset, head
        evaluations of the sweeps), None when cancelled."""
        C1, C0, G1, G0, U1, U0 = counts
        out_v, out_p, out_op, out_thr, out_evals = self.outputs
        heuristic, beta2, data = self.heuristic, self.beta2, self.data
        conditions, evals = [], 0
        self.seg[:, 0] = 0  # a new rule: no compacted entries yet
        # every heuristic is at most 1: a rule that reaches 1 cannot be improved, its sweep is skipped
        while len(conditions) < self.max_conditions and n_T > self.min_coverage and value < 1.0 - TOL:
            pairs = Pairs(C1, C0, self.T1, self.T0, U1, U0)
            settings = (heuristic, beta2, self.exhaustive, self.min_coverage)
            if heuristic == H_SUBSET:
                best_conditions(self.D, self.walked, cov, bits, n_T, pairs, (G1, G0), settings, self.outputs,
                                data.cancel)
            else:  # the head depends on the counts alone: a sweep without bitsets
                best_conditions_decomposable(self.D, self.walked, cov, n_T, pairs, settings, self.outputs, data.cancel)
            if data.cancelled:
                return None
            evals += int(out_evals.sum())
            best = -1
            for j in range(self.D):
                if out_op[j] >= 0 and (best < 0 or out_v[j] > out_v[best] + TOL
                                       or (out_v[j] >= out_v[best] - TOL and out_p[j] > out_p[best])):
                    best = j
            if best < 0 or not out_v[best] > value + TOL:
                break
            op, thr = int(out_op[best]), float(out_thr[best])
            conditions.append(Condition(best, OPERATORS[op], thr))
            apply_condition(best, op, thr, *self.cond_args, cov)
            n_T = covered_counts(cov, C1, C0, self.T1, self.T0)
            bits = mask_bitset(cov, self.W)
            value = out_v[best]
        return conditions, n_T, bits, evals

    def _record(self, t: int, conditions: list, value, size: int, rule_evals: int) -> RuleRecord:
        """The rule of ``conditions`` and the head just searched, applied to the decision list's losses and the
        examples still active."""
        data, train, val, cfg = self.data, self.train, self.val, self.cfg
        head_labels = self.labels[:size].copy()
        head_values = self.values[:size].copy()
        rule = Rule(as_equalities(tuple(conditions), data.binary), head_labels,
                    np.where(head_values > 0, 1.0, -1.0), data.schema)
        covered_all = np.ones(self.n, dtype=np.uint8)
        for c in conditions:
            apply_condition(c.attribute, OPERATORS.index(c.operator), c.threshold, *self.cond_args, covered_all)
        covered_rows = np.flatnonzero(covered_all)
        before = train.hamming
        new_pairs = train.apply(covered_rows, head_labels, head_values)
        if cfg['label_coverage_threshold'] >= 1.0:
            self.active &= ~train.decided.all(axis=1)
        else:
            self.active &= train.decided.mean(axis=1) < cfg['label_coverage_threshold'] - 1e-12
        record = dict(index=t, rule=rule, coverage=int(len(covered_rows)),
                      improvement=float(before - train.hamming), train_hamming=train.hamming,
                      train_subset=train.subset)
        if val is not None:
            val.apply(np.flatnonzero(rule_coverage(rule, data.X_test)), head_labels, head_values)
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        record["extra"] = {"heuristic": float(value), "head_evaluations": float(rule_evals),
                           "head_size": float(size), "new_pairs": float(new_pairs),
                           "remaining": float(self.active.sum())}
        return RuleRecord(**record)

    def default_record(self) -> RuleRecord:
        """The default rule, last in the decision list."""
        train, val = self.train, self.val
        record = dict(index=len(self.est.records_), rule=self.default, coverage=self.n, improvement=0.0,
                      train_hamming=train.hamming, train_subset=train.subset,
                      extra={"heuristic": math.nan, "head_evaluations": 0.0, "head_size": float(self.K),
                             "new_pairs": float(int((train.decided == 0).sum())),
                             "remaining": float(self.active.sum())})
        if val is not None:
            record.update(test_hamming=val.hamming, test_subset=val.subset)
        return RuleRecord(**record)


def _countable(Y, predicted, active):
    n, K = Y.shape
    free = (~predicted) & active[:, None]
    C1 = np.ascontiguousarray(free & (Y == 1), dtype=np.uint8)
    C0 = np.ascontiguousarray(free & (Y == 0), dtype=np.uint8)
    W = max(1, (n + 63) // 64)
    return (C1, C0, label_bitsets(C1, W), label_bitsets(C0, W), C1.sum(axis=0).astype(np.int64),
            C0.sum(axis=0).astype(np.int64))
