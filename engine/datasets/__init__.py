"""Loaders for the field's multi-label file formats and the paper's synthetic generators."""
from __future__ import annotations

from pathlib import Path

from ..fileio import input_file_problem
from .arff import find_mulan_xml, load_arff, test_sibling
from .csvfile import load_csv
from .dataset import Dataset
from .errors import DatasetFormatError, DatasetWarning, LabelsNotFoundError
from .svmlight import load_svmlight
from .targets import check_task
from .synthetic import SYNTHETIC_KINDS, SYNTHETIC_REGRESSION_KINDS, make_synthetic

__all__ = ["Dataset", "DatasetFormatError", "DatasetWarning", "LabelsNotFoundError", "SYNTHETIC_KINDS",
           "SYNTHETIC_REGRESSION_KINDS", "load",
           "make_synthetic", "find_mulan_xml", "test_sibling", "SUFFIXES"]

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".txt")
SUFFIXES = (".arff", ".csv") + SVMLIGHT_SUFFIXES
MAX_FILE_BYTES = 8 * 1024 ** 3


def load(path, label_columns=None, xml=None, n_labels=None, n_features=None, progress=None, task=None) -> Dataset:
    """Load a data set, choosing the format by the file suffix.

    ``.arff``: Mulan if ``xml`` is given or a label file is found (``<stem>.xml``, or ``<name>.xml`` for
    ``<name>-train.arff``/``<name>-test.arff``, see :func:`find_mulan_xml`), else MEKA (``-C n`` in the
    relation name); ``label_columns`` (names or indices) overrides both.  ``.svm``/``.svmlight``/
    ``.libsvm``/``.txt``: multi-label svmlight, with ``n_labels`` labels (default: largest label + 1)
    and ``n_features`` attributes (default: the largest index in the file).  ``.csv``:
    ``label_columns`` (names or indices) are the labels.  Raises FileNotFoundError for a missing file,
    DatasetFormatError (a ValueError) for a malformed one or anything that is not a regular file, and
    LabelsNotFoundError (a DatasetFormatError) when nothing says which attributes are labels.
    ``progress`` (optional, any format) is called with the fraction done, from 0 to 1.

    Missing values: a numeric cell ``nan`` (any case, signed or not) is a missing value (NaN) in every
    format, as are ``?`` (ARFF, CSV) and an empty CSV cell; infinite values are refused.  A file whose
    dense table would take more than a quarter of the machine's memory (e.g. 10^6 labels declared) is
    refused before it is allocated.

    Real-valued targets (multi-output regression; ``Dataset.task == 'regression'``, ``Y`` float32): numeric
    ARFF target attributes or CSV label columns holding a number other than 0 and 1, svmlight label fields of
    real numbers (``1.5,-0.2 idx:val ...``); ``task`` ('classification' or 'regression') decides instead.
    """
    check_task(task)
    path = Path(path)
    problem = input_file_problem(path, "data file", MAX_FILE_BYTES)
    if problem:
        raise DatasetFormatError(path, problem)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DatasetFormatError(path, f"unknown file type '{suffix}'; supported: {', '.join(SUFFIXES)}")
    _only_for(suffix, (".csv", ".arff"), label_columns=label_columns)
    _only_for(suffix, ".arff", xml=xml)
    _only_for(suffix, SVMLIGHT_SUFFIXES, n_labels=n_labels)
    _only_for(suffix, SVMLIGHT_SUFFIXES, n_features=n_features)
    if suffix == ".arff":
        data = load_arff(path, xml=xml, label_columns=label_columns, progress=progress, task=task)
    elif suffix == ".csv":
        data = load_csv(path, label_columns, task=task)
    else:
        data = load_svmlight(path, n_labels=n_labels, n_features=n_features, task=task)
    if progress is not None:
        progress(1.0)
    return data


def _only_for(suffix: str, allowed, **option) -> None:
    (name, value), = option.items()
    if value is not None and suffix not in ((allowed,) if isinstance(allowed, str) else allowed):
        raise ValueError(f"option {name}= does not apply to {suffix} files")
