"""Multi-label svmlight/libsvm reader: one example per line, ``l1,l2 idx:val idx:val ...``.

Labels are 0-based integers (the label field may be empty: no relevant label); ``#`` starts a comment
and ``qid:`` tokens are ignored.  Feature indices are 0-based if index 0 occurs anywhere in the file,
1-based otherwise; features are named ``f<index>`` after the file's own indices and omitted values are 0.
Labels are named ``y0``, ``y1``, ...
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .dataset import Dataset
from .errors import DatasetFormatError


def load_svmlight(path, n_labels: int | None = None) -> Dataset:
    """Load a multi-label svmlight file; ``n_labels`` defaults to the largest label + 1."""
    path = Path(path)
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    if not text.strip():
        raise DatasetFormatError(path, "the file is empty")
    label_rows: list[int] = []
    label_cols: list[int] = []
    row_lines: list[int] = []
    counts: list[int] = []
    index_tokens: list[str] = []
    value_tokens: list[str] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        tokens = line.split()
        if not tokens:
            continue
        row = len(row_lines)
        if ":" in tokens[0]:
            features = tokens
        else:
            features = tokens[1:]
            for label in tokens[0].split(","):
                if not (label.isascii() and label.isdigit()):
                    raise DatasetFormatError(path, f"bad label '{label}' (labels are integers >= 0, "
                                                   "separated by commas)", line_no)
                if n_labels is not None and int(label) >= n_labels:
                    raise DatasetFormatError(path, f"label {label} out of range 0..{n_labels - 1}", line_no)
                label_rows.append(row)
                label_cols.append(int(label))
        pairs = [token.split(":") for token in features if not token.startswith("qid:")]
        if not all(len(pair) == 2 for pair in pairs):
            bad = next(":".join(pair) for pair in pairs if len(pair) != 2)
            raise DatasetFormatError(path, f"bad token '{bad}' (expected <index>:<value>)", line_no)
        index_tokens.extend([pair[0] for pair in pairs])
        value_tokens.extend([pair[1] for pair in pairs])
        counts.append(len(pairs))
        row_lines.append(line_no)
    rows = np.repeat(np.arange(len(row_lines)), counts)
    indices, values = _numbers(path, index_tokens, value_tokens, rows, row_lines)
    offset = 0 if indices.size and indices.min() == 0 else 1
    n_features = int(indices.max()) + 1 - offset if indices.size else 0
    X = np.zeros((len(row_lines), n_features), dtype=np.float32)
    X[rows, indices - offset] = values
    K = n_labels if n_labels is not None else (max(label_cols) + 1 if label_cols else 0)
    if K < 1:
        raise DatasetFormatError(path, "no labels: no line has a label and n_labels is not given")
    Y = np.zeros((len(row_lines), K), dtype=np.uint8)
    Y[label_rows, label_cols] = 1
    return Dataset(X=X, Y=Y, feature_names=[f"f{j + offset}" for j in range(n_features)],
                   label_names=[f"y{k}" for k in range(K)], name=path.stem, source=str(path))


def _numbers(path, index_tokens, value_tokens, rows, row_lines):
    """Indices (int64 >= 0) and values (float64) of all features, or an error naming the bad token."""
    try:
        indices = np.array(index_tokens, dtype=np.int64)
        values = np.array(value_tokens, dtype=np.float64)
    except ValueError:
        indices = None
    if indices is None or (indices.size and indices.min() < 0):
        for i, (index, value) in enumerate(zip(index_tokens, value_tokens)):
            if not (index.isascii() and index.isdigit()) or not _is_float(value):
                raise DatasetFormatError(path, f"bad token '{index}:{value}' (expected <index>:<value> with an "
                                               "integer index >= 0 and a numeric value)",
                                         row_lines[int(rows[i])])
        raise DatasetFormatError(path, "bad feature index or value")  # unreachable in practice
    return indices, values


def _is_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
