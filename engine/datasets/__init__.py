"""Loaders for the field's multi-label file formats and the paper's synthetic generators."""
from __future__ import annotations

from pathlib import Path

from .arff import load_arff
from .csvfile import load_csv
from .dataset import Dataset
from .errors import DatasetFormatError
from .svmlight import load_svmlight
from .synthetic import SYNTHETIC_KINDS, make_synthetic

__all__ = ["Dataset", "DatasetFormatError", "SYNTHETIC_KINDS", "load", "make_synthetic", "SUFFIXES"]

SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".txt")
SUFFIXES = (".arff", ".csv") + SVMLIGHT_SUFFIXES


def load(path, label_columns=None, xml=None, n_labels=None) -> Dataset:
    """Load a data set, choosing the format by the file suffix.

    ``.arff``: Mulan if ``xml`` is given or ``<stem>.xml`` lies beside the file, else MEKA (``-C n`` in
    the relation name).  ``.svm``/``.svmlight``/``.libsvm``/``.txt``: multi-label svmlight, with
    ``n_labels`` labels (default: largest label + 1).  ``.csv``: ``label_columns`` (names or indices)
    are the labels.  Raises FileNotFoundError for a missing file and DatasetFormatError (a ValueError)
    for a malformed one.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(2, "data file not found", str(path))
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DatasetFormatError(path, f"unknown file type '{suffix}'; supported: {', '.join(SUFFIXES)}")
    _only_for(suffix, ".csv", label_columns=label_columns)
    _only_for(suffix, ".arff", xml=xml)
    _only_for(suffix, SVMLIGHT_SUFFIXES, n_labels=n_labels)
    if suffix == ".arff":
        return load_arff(path, xml=xml)
    if suffix == ".csv":
        return load_csv(path, label_columns)
    return load_svmlight(path, n_labels=n_labels)


def _only_for(suffix: str, allowed, **option) -> None:
    (name, value), = option.items()
    if value is not None and suffix not in ((allowed,) if isinstance(allowed, str) else allowed):
        raise ValueError(f"option {name}= does not apply to {suffix} files")
