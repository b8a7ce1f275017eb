"""Real-valued targets (multi-output regression) as every loader reads them: a data set whose target
attributes hold numbers other than 0 and 1 is a regression data set (``Dataset.task == 'regression'``), its
targets float32 N x T; anything that is not a finite number is one error naming the target and the line."""
from __future__ import annotations

import numpy as np

from .errors import DatasetFormatError

FLOAT32_MAX = float(np.finfo(np.float32).max)
TASKS = (None, "classification", "regression")


def check_task(task) -> None:
    if task not in TASKS:
        raise ValueError(f"task must be 'classification', 'regression' or None (decided by the targets' values), "
                         f"got {task!r}")


def is_real_valued(column: np.ndarray) -> bool:
    """Whether a numeric target column (float, NaN = missing) holds a number other than 0 and 1."""
    finite = column[~np.isnan(column)]
    return bool(((finite != 0) & (finite != 1)).any())


def real_targets(path, names, columns, lines) -> np.ndarray:
    """float32 N x T of the numeric ``columns`` (float64, NaN = missing) named ``names``; ``lines[i]`` is
    example i's line in the file.  A missing, infinite or out-of-range value is refused, naming the target."""
    Y = np.empty((len(lines), len(columns)), dtype=np.float32)
    for k, (name, column) in enumerate(zip(names, columns)):
        column = np.asarray(column, dtype=np.float64)
        missing = np.flatnonzero(np.isnan(column))
        if missing.size:
            raise DatasetFormatError(path, f"missing value for target '{name}' (a regression target must be a "
                                           "number in every example)", int(lines[missing[0]]))
        bad = np.flatnonzero(np.abs(column) > FLOAT32_MAX)
        if bad.size:
            raise DatasetFormatError(path, f"target '{name}' has value {column[bad[0]]:g}, infinite or beyond the "
                                           "float32 range (±3.4e38)", int(lines[bad[0]]))
        Y[:, k] = column
    return Y
