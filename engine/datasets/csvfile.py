"""CSV reader: a header row of column names, one example per row, label columns named by the caller.

The file is UTF-8 (a BOM allowed), else read as Latin-1.  The delimiter is ``,`` unless the header
contains none and has ``;`` or a tab.  Empty cells, ``?`` and ``NaN`` (any case) are missing values.
A column whose present cells all parse as numbers is numeric; a column most of whose present cells
are not numbers is nominal, with codes 0..m-1 given to its values in order of first appearance; a
column most of whose cells are numbers but with other text in some cells (``n/a``, a stray byte) is
refused, naming the first such cell.  Numbers are written as in ARFF and svmlight: no digit-group
underscores (``1_000``), ASCII digits only.  Label columns must hold only 0 and 1.
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import numpy as np

from .dataset import Dataset
from .errors import DatasetFormatError
from .numbers import first_unusual_number
from .targets import is_real_valued, real_targets

_MISSING = {"", "?", "nan"}
FLOAT32_MAX = float(np.finfo(np.float32).max)


def load_csv(path, label_columns, task=None) -> Dataset:
    """Load a CSV file; ``label_columns`` lists the label columns by name or index (negative allowed).  Label
    columns holding a number other than 0 and 1 are real-valued targets (a regression data set,
    :mod:`.targets`); ``task`` ('classification', 'regression') decides instead."""
    path = Path(path)
    text = _read_text(path)
    if not text.strip():
        raise DatasetFormatError(path, "the file is empty")
    first = text.lstrip("\r\n").split("\n", 1)[0]
    delimiter = "," if "," in first else ";" if ";" in first else "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header, header_line, rows, row_lines = None, 0, [], []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header, header_line = [cell.strip() for cell in row], reader.line_num
                continue
            if len(row) != len(header):
                raise DatasetFormatError(path, f"expected {len(header)} values, found {len(row)}", reader.line_num)
            rows.append([cell.strip() for cell in row])
            row_lines.append(reader.line_num)
    except csv.Error as exc:
        raise DatasetFormatError(path, f"malformed CSV: {exc}", reader.line_num) from None
    label_idx = _label_indices(path, header, header_line, label_columns)
    columns = list(zip(*rows)) if rows else [()] * len(header)
    Y = _targets(path, header, columns, label_idx, row_lines, task)
    if Y is None:
        Y = np.empty((len(rows), len(label_idx)), dtype=np.uint8)
        for k, j in enumerate(label_idx):
            Y[:, k] = _label_column(path, header[j], columns[j], row_lines)
    labels = set(label_idx)
    feature_idx = [j for j in range(len(header)) if j not in labels]
    X = np.empty((len(rows), len(feature_idx)), dtype=np.float32)
    nominal_values = {}
    for i, j in enumerate(feature_idx):
        try:
            column, values = _feature_column(columns[j])
        except _MixedColumn as mixed:
            why = ("is written with '_' or non-ASCII digits, which a data file's numbers never are" if mixed.unusual
                   else "is not a number, but most of the column's values are; write '?' or leave the cell empty "
                        "for a missing value")
            raise DatasetFormatError(path, f"value '{columns[j][mixed.row]}' of column '{header[j]}' {why}",
                                     row_lines[mixed.row]) from None
        too_large = np.flatnonzero(np.abs(column) > FLOAT32_MAX)  # inf included; NaN (missing) is not
        if too_large.size:
            r = int(too_large[0])
            raise DatasetFormatError(path, f"value '{columns[j][r]}' of column '{header[j]}' is infinite or beyond "
                                           "the float32 range (±3.4e38)", row_lines[r])
        X[:, i] = column
        if values is not None:
            nominal_values[i] = values
    return Dataset(X=X, Y=Y, feature_names=[header[j] for j in feature_idx],
                   label_names=[header[j] for j in label_idx], nominal_values=nominal_values,
                   name=path.stem, source=str(path), task="classification" if Y.dtype == np.uint8 else "regression")


def _label_indices(path, header, header_line, label_columns) -> list[int]:
    names = ", ".join(header[:20]) + (", ..." if len(header) > 20 else "")
    if label_columns is None or (not isinstance(label_columns, (str, int)) and len(label_columns) == 0):
        raise DatasetFormatError(path, f"label_columns must name the label columns of a CSV file; "
                                       f"its columns are: {names}")
    if isinstance(label_columns, (str, int)):
        label_columns = [label_columns]
    duplicated = sorted(name for name, count in Counter(header).items() if count > 1)
    if duplicated:
        raise DatasetFormatError(path, f"column name '{duplicated[0]}' occurs twice in the header", header_line)
    indices = []
    position = {name: j for j, name in enumerate(header)}
    for column in label_columns:
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not -len(header) <= column < len(header):
                raise DatasetFormatError(path, f"label column index {column} out of range for "
                                               f"{len(header)} columns")
            indices.append(int(column) % len(header))
        elif str(column) in position:
            indices.append(position[str(column)])
        else:
            raise DatasetFormatError(path, f"label column '{column}' not found; the columns are: {names}")
    if len(set(indices)) != len(indices):
        raise DatasetFormatError(path, "label_columns names a column twice")
    if len(indices) == len(header):
        raise DatasetFormatError(path, "every column is a label column; no features left")
    return sorted(indices)


def _targets(path, header, columns, label_idx, row_lines, task) -> np.ndarray | None:
    """Real-valued targets (float32) when a label column holds a number other than 0 and 1 (or ``task`` is
    'regression'); None for 0/1 labels.  A target cell that is not a number is refused, naming it."""
    if task == "classification":
        return None
    numbers = []
    for j in label_idx:
        cells = columns[j]
        numbers.append(np.array([float(c) if _is_number(c) else np.nan for c in cells], dtype=np.float64))
    if task is None and not any(is_real_valued(column) for column in numbers):
        return None
    for j, column in zip(label_idx, numbers):
        for i in np.flatnonzero(np.isnan(column)):
            cell = columns[j][i]
            if cell.lower() not in _MISSING and cell.lower().lstrip("+-") != "nan":
                raise DatasetFormatError(path, f"target '{header[j]}' has value '{cell}'; regression targets must "
                                               "be numbers", row_lines[i])
    return real_targets(path, [header[j] for j in label_idx], numbers, row_lines)


def _label_column(path, name, cells, row_lines) -> np.ndarray:
    text = np.array(cells, dtype=str)
    if np.all((text == "0") | (text == "1")):
        return (text == "1").astype(np.uint8)
    for i, cell in enumerate(cells):
        if cell not in ("0", "1"):
            value = float(cell) if _is_number(cell) else None
            if value is None or value not in (0.0, 1.0):
                problem = (f"missing value for label '{name}'" if cell.lower() in _MISSING
                           else f"label '{name}' has value '{cell}'; labels must be 0 or 1")
                raise DatasetFormatError(path, problem, row_lines[i])
    return np.array([float(cell) for cell in cells], dtype=np.uint8)


class _MixedColumn(Exception):
    def __init__(self, row: int, unusual: bool = False):
        super().__init__(row)
        self.row, self.unusual = row, unusual


def _read_text(path: Path) -> str:
    from .arff import _read_text as read  # the same rule as ARFF: UTF-8, else Latin-1

    return read(path)


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return first_unusual_number([cell]) is None


def _feature_column(cells) -> tuple[np.ndarray, list[str] | None]:
    """Numeric values with NaN for missing cells, or nominal codes and the value names; raises
    _MixedColumn at the first non-number of a column that is mostly numbers."""
    missing = [cell.lower() in _MISSING for cell in cells]
    present = ["nan" if gone else cell for cell, gone in zip(cells, missing)]
    try:
        values = np.array(present, dtype=np.float64)
    except ValueError:
        values = None
    if values is not None:  # every cell reads as a number, perhaps only by Python's extensions
        unusual = first_unusual_number(present)
        if unusual is None:
            return values, None
        raise _MixedColumn(unusual, unusual=True)
    numeric = [gone or _is_number(cell) for cell, gone in zip(cells, missing)]
    n_present = len(cells) - sum(missing)
    if 2 * (sum(numeric) - sum(missing)) > n_present:
        raise _MixedColumn(numeric.index(False))
    codes: dict[str, int] = {}
    out = np.empty(len(cells), dtype=np.float64)
    for i, (cell, gone) in enumerate(zip(cells, missing)):
        out[i] = np.nan if gone else codes.setdefault(cell, len(codes))
    return out, list(codes)
