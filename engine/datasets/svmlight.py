"""Multi-label svmlight/libsvm reader: one example per line, ``l1,l2 idx:val idx:val ...``.

Labels are 0-based integers (the label field may be empty: no relevant label); ``#`` starts a comment
and ``qid:`` tokens are ignored.  Feature indices are 0-based if index 0 occurs anywhere in the file,
1-based otherwise; features are named ``f<index>`` after the file's own indices and omitted values are 0.
A value ``nan`` (any case) is a missing value, as in ARFF and CSV; infinite values are refused.
Numbers are ASCII digits without digit-group underscores (``1_000`` is refused, as in every format).
Labels are named ``y0``, ``y1``, ...  A file whose label fields hold real numbers (``1.5,-0.2 idx:val ...``, the
same count on every line) has real-valued targets instead (a regression data set, :mod:`.targets`).  Data whose dense form would exceed ``DENSE_LIMIT_BYTES`` are
returned as a scipy CSR matrix (the engine trains on sparse input directly).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .dataset import Dataset, IndexNames, check_table_size
from .errors import DatasetFormatError, DatasetWarning
from .numbers import first_unusual_number
from .targets import real_targets

MAX_FEATURES = 10_000_000
MAX_LABELS = 100_000
DENSE_LIMIT_BYTES = 512 * 1024 ** 2
SPARSE_FROM_BYTES = 16 * 1024 ** 2
FLOAT32_MAX = float(np.finfo(np.float32).max)


def load_svmlight(path, n_labels: int | None = None, n_features: int | None = None, task=None) -> Dataset:
    """Load a multi-label svmlight file; ``n_labels`` defaults to the largest label + 1, ``n_features``
    to the largest feature index (give it for a test file that lacks the training file's top index).
    A label field with a number that is not a label index (``1.5``, ``-2``) makes every label field a list of
    real-valued targets, the same number on every line (a regression data set, ``t1,t2,... idx:val ...``);
    ``task`` ('classification', 'regression') decides instead."""
    path = Path(path)
    for name, value, cap in (("n_labels", n_labels, MAX_LABELS), ("n_features", n_features, MAX_FEATURES)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                  or not 1 <= value <= cap):
            raise ValueError(f"{name} must be an integer in 1..{cap}, got {value!r}")
    data = path.read_bytes()
    text = data.decode("utf-8-sig", errors="replace")
    if not text.strip():
        raise DatasetFormatError(path, "the file is empty")
    regression = task == "regression" or (task is None and _real_valued_fields(text))
    lines = _Lines()
    for line_no, line in enumerate(text.splitlines(), 1):
        lines.read(path, line_no, line, regression, n_labels)
    _warn_about(path, data, lines)
    rows = np.repeat(np.arange(len(lines.row_lines)), lines.counts)
    indices, values = _numbers(path, lines.index_tokens, lines.value_tokens, rows, lines.row_lines)
    _check_values(path, indices, values, rows, lines.row_lines)
    offset = 0 if indices.size and indices.min() == 0 else 1
    n_file = int(indices.max()) + 1 - offset if indices.size else 0
    if n_features is not None and n_file > n_features:
        i = int(np.argmax(indices))
        raise DatasetFormatError(path, f"feature index {indices[i]} beyond the {n_features} attributes given "
                                       f"(n_features)", lines.row_lines[int(rows[i])])
    n_features = n_file if n_features is None else n_features
    if n_features < 1:  # found by the fuzz target: a data set of no attributes cannot be trained on
        raise DatasetFormatError(path, "no attributes: no line has a feature and n_features is not given")
    X = _matrix(rows, indices - offset, values, len(lines.row_lines), n_features)
    if regression:
        Y = _targets(path, lines.fields, lines.row_lines)
        return Dataset(X=X, Y=Y, feature_names=_feature_names(n_features, offset),
                       label_names=[f"y{k}" for k in range(Y.shape[1])], name=path.stem, source=str(path),
                       task="regression")
    Y = _label_matrix(path, lines, n_labels)
    return Dataset(X=X, Y=Y, feature_names=_feature_names(n_features, offset),
                   label_names=[f"y{k}" for k in range(Y.shape[1])], name=path.stem, source=str(path))


class _Lines:
    """What the lines of a file hold, token by token, before any number is parsed."""

    def __init__(self):
        self.label_rows: list[int] = []
        self.label_cols: list[int] = []
        self.row_lines: list[int] = []
        self.suspicious = 0  # first line that starts with a feature out of order
        self.counts: list[int] = []
        self.index_tokens: list[str] = []
        self.value_tokens: list[str] = []
        self.fields: list[tuple[int, str, int]] = []  # (row, label field, line) of a regression file

    def read(self, path, line_no: int, line: str, regression: bool, n_labels) -> None:
        """Take one line (comments and blank lines ignored)."""
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            return
        row = len(self.row_lines)
        if ":" in tokens[0]:
            features = tokens
            if not self.suspicious and len(tokens) > 1 and _index_of(tokens[0]) >= _index_of(tokens[1]) >= 0:
                self.suspicious = line_no  # e.g. '2:3 1:0.5': a label field written with ':'?
        elif regression:
            features = tokens[1:]
            self.fields.append((row, tokens[0], line_no))
        else:
            features = tokens[1:]
            for label in _labels_of(path, tokens[0], n_labels, line_no):
                self.label_rows.append(row)
                self.label_cols.append(label)
        pairs = [token.split(":") for token in features if not token.startswith("qid:")]
        if not all(len(pair) == 2 for pair in pairs):
            bad = next(":".join(pair) for pair in pairs if len(pair) != 2)
            raise DatasetFormatError(path, f"bad token '{bad}' (expected <index>:<value>)", line_no)
        self.index_tokens.extend([pair[0] for pair in pairs])
        self.value_tokens.extend([pair[1] for pair in pairs])
        self.counts.append(len(pairs))
        self.row_lines.append(line_no)


def _labels_of(path, field: str, n_labels, line_no: int) -> list[int]:
    """The label indices of a label field ``l1,l2,...``, each checked."""
    labels = []
    for label in field.split(","):
        if not (label.isascii() and label.isdigit()):
            raise DatasetFormatError(path, f"bad label '{label}' (labels are integers >= 0, "
                                           "separated by commas)", line_no)
        if n_labels is not None and int(label) >= n_labels:
            raise DatasetFormatError(path, f"label {label} out of range 0..{n_labels - 1}", line_no)
        if int(label) >= MAX_LABELS:
            raise DatasetFormatError(path, f"label {label} is beyond the {MAX_LABELS} labels this tool "
                                           "handles", line_no)
        labels.append(int(label))
    return labels


def _warn_about(path, data: bytes, lines: _Lines) -> None:
    """A label field that looks written as a feature, and a last line without its end."""
    if lines.suspicious:
        warnings.warn(DatasetWarning(
            f"{path.name}, line {lines.suspicious}: the line has no label field and its first feature index is "
            f"not below the next one (features must be in increasing order); if the first token was meant as "
            f"labels, separate them with ',' (e.g. '2,3')"), stacklevel=4)
    if data.rstrip(b" \t") and not data.rstrip(b" \t").endswith((b"\n", b"\r")):
        warnings.warn(DatasetWarning(f"{path.name}: the last line has no line end; the file may be truncated "
                                     f"(line {lines.row_lines[-1] if lines.row_lines else 1})"), stacklevel=4)


def _label_matrix(path, lines: _Lines, n_labels) -> np.ndarray:
    """The N x K 0/1 label matrix (K = ``n_labels``, else the largest label + 1)."""
    K = n_labels if n_labels is not None else (max(lines.label_cols) + 1 if lines.label_cols else 0)
    if K < 1:
        raise DatasetFormatError(path, "no labels: no line has a label and n_labels is not given")
    check_table_size(path, len(lines.row_lines), K, 1, "labels")
    Y = np.zeros((len(lines.row_lines), K), dtype=np.uint8)
    Y[lines.label_rows, lines.label_cols] = 1
    return Y


def _real_valued_fields(text: str) -> bool:
    """Whether some line's label field holds a number that is not a label index (a regression file)."""
    for line in text.splitlines():
        tokens = line.split("#", 1)[0].split()
        if tokens and ":" not in tokens[0]:
            for value in tokens[0].split(","):
                if not (value.isascii() and value.isdigit()) and _is_float(value):
                    return True
    return False


def _targets(path, fields, row_lines) -> np.ndarray:
    """float32 N x T of the label fields of a regression file: T numbers on every line."""
    if len(fields) != len(row_lines):
        with_targets = {row for row, _, _ in fields}
        line = row_lines[next(i for i in range(len(row_lines)) if i not in with_targets)]
        raise DatasetFormatError(path, "a line without targets in a regression file (every line starts with its "
                                       "targets, e.g. '1.5,-0.2 1:0.3')", line)
    if not fields:
        raise DatasetFormatError(path, "no examples")
    n_targets = len(fields[0][1].split(","))
    Y = np.empty((len(fields), n_targets), dtype=np.float64)
    for row, field, line_no in fields:
        cells = field.split(",")
        if len(cells) != n_targets:
            raise DatasetFormatError(path, f"{len(cells)} targets, but the first line has {n_targets}", line_no)
        for k, cell in enumerate(cells):
            if not _is_float(cell) or first_unusual_number([cell]) is not None:
                raise DatasetFormatError(path, f"target {k} has value '{cell}'; regression targets must be numbers",
                                         line_no)
            Y[row, k] = float(cell)
    return real_targets(path, [f"y{k}" for k in range(n_targets)], list(Y.T), row_lines)


def _index_of(token: str) -> int:
    head = token.split(":", 1)[0]
    return int(head) if head.isascii() and head.isdigit() and len(head) < 18 else -1


def _feature_names(n: int, offset: int):
    return IndexNames(n, offset)


def _numbers(path, index_tokens, value_tokens, rows, row_lines):
    """Indices (int64 >= 0) and values (float64) of all features, or an error naming the bad token."""
    try:
        indices = np.array(index_tokens, dtype=np.int64)
        values = np.array(value_tokens, dtype=np.float64)
    except (ValueError, OverflowError):
        indices = None
    unusual = first_unusual_number(value_tokens)
    if indices is None or (indices.size and indices.min() < 0) or unusual is not None:
        for i, (index, value) in enumerate(zip(index_tokens, value_tokens)):
            if not (index.isascii() and index.isdigit() and len(index) < 18) or not _is_float(value) \
                    or first_unusual_number([value]) is not None:
                raise DatasetFormatError(path, f"bad token '{index}:{value}' (expected <index>:<value> with an "
                                               "integer index >= 0 and a numeric value)",
                                         row_lines[int(rows[i])])
        raise DatasetFormatError(path, "bad feature index or value")  # unreachable in practice
    return indices, values


def _check_values(path, indices, values, rows, row_lines) -> None:
    """Sane indices, values in float32 range or NaN (missing), no index twice in a row."""
    if indices.size:
        i = int(np.argmax(indices))
        if indices[i] > MAX_FEATURES:
            raise DatasetFormatError(path, f"feature index {indices[i]} is beyond the {MAX_FEATURES} attributes "
                                           "this tool handles", row_lines[int(rows[i])])
    bad = np.flatnonzero(np.abs(values) > FLOAT32_MAX)  # inf and float32 overflow; NaN (missing) is not
    if bad.size:
        i = int(bad[0])
        raise DatasetFormatError(path, f"value {float(values[i])!r} of feature {indices[i]} is not a finite number "
                                       "in the float32 range", row_lines[int(rows[i])])
    if indices.size:
        order = np.lexsort((indices, rows))
        same = np.flatnonzero((np.diff(rows[order]) == 0) & (np.diff(indices[order]) == 0))
        if same.size:
            i = int(order[same[0]])
            raise DatasetFormatError(path, f"feature index {indices[i]} occurs twice in one example",
                                     row_lines[int(rows[i])])


def _matrix(rows, cols, values, n_rows: int, n_cols: int):
    """Dense float32, or CSR when the dense form would be large and mostly zeros, or exceed
    DENSE_LIMIT_BYTES."""
    dense_bytes = n_rows * n_cols * 4
    density = len(values) / max(n_rows * n_cols, 1)
    if dense_bytes > DENSE_LIMIT_BYTES or (dense_bytes > SPARSE_FROM_BYTES and density < 0.25):
        return sp.csr_matrix((values.astype(np.float32), (rows, cols)), shape=(n_rows, n_cols), dtype=np.float32)
    X = np.zeros((n_rows, n_cols), dtype=np.float32)
    X[rows, cols] = values
    return X


def _is_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
