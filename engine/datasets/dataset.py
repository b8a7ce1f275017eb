"""The multi-label data set object returned by every loader and generator."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp

from engine.predictors import unique_rows

from ..rules import Schema
from .errors import DatasetFormatError

FALLBACK_MEMORY_BYTES = 16 * 1024 ** 3  # assumed where the machine's memory cannot be read


def table_limit_bytes() -> int:
    """The largest table a loader allocates: a quarter of this machine's physical memory (the parsed
    table, the features and the labels are all held at once)."""
    try:
        memory = int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        memory = 0
    return (memory if memory > 0 else FALLBACK_MEMORY_BYTES) // 4


def check_table_size(path, n_rows: int, n_columns: int, itemsize: int, columns: str) -> None:
    """DatasetFormatError, before any allocation, when a dense ``n_rows`` x ``n_columns`` table of
    ``itemsize``-byte cells would exceed :func:`table_limit_bytes` (e.g. a file declaring 10^6 labels)."""
    need, limit = int(n_rows) * int(n_columns) * int(itemsize), table_limit_bytes()
    if need > limit:
        raise DatasetFormatError(path, f"{n_rows:,} examples x {n_columns:,} {columns} need a table of "
                                       f"{need / 1024 ** 3:.2f} GiB, more than the {limit / 1024 ** 3:.2f} GiB (a "
                                       "quarter of this machine's memory) a data set may take; use fewer examples "
                                       "or fewer labels/attributes")


class IndexNames(Sequence):
    """Names ``f<offset>``, ``f<offset+1>``, ... made on demand (a file may have millions of attributes)."""

    def __init__(self, n: int, offset: int = 0, prefix: str = "f"):
        self.n, self.offset, self.prefix = int(n), int(offset), prefix

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(self.n))]
        if not -self.n <= j < self.n:
            raise IndexError(j)
        return f"{self.prefix}{j % self.n + self.offset}"

    def __eq__(self, other) -> bool:
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"IndexNames({self.n}, offset={self.offset})"


@dataclass
class Dataset:
    """Features ``X`` (float32, NaN = missing, nominal attributes as value codes 0..m-1),
    labels ``Y`` (uint8 0/1, N x K), names, and which attributes are nominal.  A regression data set
    (``task == 'regression'``) has real-valued targets ``Y`` instead (float32 N x T; see :mod:`.targets`)."""

    X: np.ndarray | sp.spmatrix
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]
    nominal_values: dict[int, list[str]] = field(default_factory=dict)
    name: str = "data"
    source: str | None = None
    bayes_Y: np.ndarray | None = None  # Bayes-optimal predictions (synthetic data only)
    task: str = "classification"  # or "regression": real-valued targets

    @property
    def is_regression(self) -> bool:
        return self.task == "regression"

    @property
    def target_ranges(self) -> np.ndarray:
        """Each target's (minimum, maximum), T x 2 (a regression data set's)."""
        Y = np.asarray(self.Y, dtype=np.float64)
        return np.column_stack([Y.min(axis=0), Y.max(axis=0)]) if self.n_examples else np.zeros((Y.shape[1], 2))

    @property
    def n_examples(self) -> int:
        return int(self.Y.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    @property
    def nominal_mask(self) -> np.ndarray:
        mask = np.zeros(self.n_features, dtype=bool)
        mask[list(self.nominal_values)] = True
        return mask

    @property
    def schema(self) -> Schema:
        features = self.feature_names if isinstance(self.feature_names, IndexNames) else tuple(self.feature_names)
        return Schema(features, tuple(self.label_names), dict(self.nominal_values))

    @property
    def label_frequencies(self) -> np.ndarray:
        return np.asarray(self.Y, dtype=np.float64).mean(axis=0)

    @property
    def label_cardinality(self) -> float:
        return float(np.asarray(self.Y, dtype=np.float64).sum(axis=1).mean()) if self.n_examples else 0.0

    @property
    def n_distinct_label_sets(self) -> int:
        return int(unique_rows(np.asarray(self.Y, dtype=np.uint8)).shape[0]) if self.n_examples else 0

    def subset(self, indices) -> "Dataset":
        indices = np.asarray(indices)
        bayes = None if self.bayes_Y is None else self.bayes_Y[indices]
        return replace(self, X=self.X[indices], Y=self.Y[indices], bayes_Y=bayes)

    def train_test_split(self, test_size: float = 0.33, seed: int = 0) -> tuple["Dataset", "Dataset"]:
        """Random split; ``test_size`` is the fraction of examples held out (0 < test_size < 1)."""
        if not 0.0 < float(test_size) < 1.0:
            raise ValueError(f"test_size must lie strictly between 0 and 1, got {test_size}")
        n = self.n_examples
        n_test = int(round(n * float(test_size)))
        if n_test < 1 or n_test >= n:
            raise ValueError(f"test_size={test_size} leaves no training or no test example of {n}")
        order = np.random.default_rng(seed).permutation(n)
        return self.subset(np.sort(order[n_test:])), self.subset(np.sort(order[:n_test]))

    def summary(self) -> str:
        n_nominal = len(self.nominal_values)
        if self.is_regression:
            return (f"{self.name}: {self.n_examples} examples, {self.n_features} attributes "
                    f"({self.n_features - n_nominal} numeric, {n_nominal} nominal), {self.n_labels} real-valued "
                    "targets")
        return (f"{self.name}: {self.n_examples} examples, {self.n_features} attributes "
                f"({self.n_features - n_nominal} numeric, {n_nominal} nominal), {self.n_labels} labels, "
                f"cardinality {self.label_cardinality:.2f}, {self.n_distinct_label_sets} distinct label sets")
