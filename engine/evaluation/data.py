"""Data sets of the comparison: named benchmark sets from ``../shared/data`` or files as distributed,
a Mulan ``<name>-train`` file joined with its ``-test`` sibling (SPEC C.1: scene is concatenated),
nominal attributes one-hot encoded as the authors did, and the folds (``KFold(shuffle, seed 1)``)."""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold

from ..datasets import load, test_sibling

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
# the eight data sets of Table 1 (SPEC C.1), relative to the shared data folder
KNOWN = {"birds": ("table1/birds.arff",), "emotions": ("emotions.arff",), "enron": ("enron.arff",),
         "llog": ("table1/llog.arff",), "medical": ("table1/medical.arff",),
         "scene": ("table1/scene-train.arff", "table1/scene-test.arff"),
         "slashdot": ("table1/slashdot.arff",), "yeast": ("yeast.svm",)}
FOLD_SEED = 1


@dataclass(frozen=True)
class DataSpec:
    """A data set of the comparison: its name, its files (joined in order) and their content hash."""

    name: str
    files: tuple[str, ...]
    fingerprint: str


def resolve(item: str, data_dir: Path = SHARED_DATA) -> DataSpec:
    """A name of :data:`KNOWN` (read from ``data_dir``) or a data file path; a ``-train`` file brings
    its ``-test`` sibling.  Raises FileNotFoundError / ValueError naming the problem."""
    if item in KNOWN and not Path(item).exists():
        files = tuple(str(data_dir / f) for f in KNOWN[item])
        name = item
    else:
        path = Path(item)
        if not path.is_file():
            known = ", ".join(KNOWN)
            raise FileNotFoundError(f"data set {item!r} is neither a file nor one of the known names ({known})")
        sibling = test_sibling(path)
        files = (str(path),) if sibling is None else (str(path), str(sibling))
        name = path.stem
        for suffix in ("-train", "_train", ".train", "-TRAIN", "_TRAIN"):
            if sibling is not None and name.endswith(suffix):
                name = name[: -len(suffix)]
    for f in files:
        if not Path(f).is_file():
            raise FileNotFoundError(f"data file {f} of {name!r} is missing")
    return DataSpec(name, files, fingerprint(files))


def fingerprint(files) -> str:
    h = hashlib.sha1()
    for f in files:
        with open(f, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def one_hot(X, nominal_values: dict[int, list]) -> np.ndarray | sp.csr_matrix:
    """Replace every nominal attribute (value codes 0..m-1, NaN missing) by m 0/1 columns; a
    two-valued one stays one 0/1 column (its code), which carries the same information."""
    if not nominal_values:
        return X
    columns = []
    sparse = sp.issparse(X)
    Xc = sp.csc_matrix(X) if sparse else np.asarray(X)
    for j in range(X.shape[1]):
        col = Xc[:, [j]].toarray() if sparse else Xc[:, [j]]
        if j in nominal_values and len(nominal_values[j]) > 2:
            codes = col.ravel()
            m = len(nominal_values[j])
            columns.append(np.column_stack([(codes == v).astype(np.float32) for v in range(m)]))
        else:
            columns.append(col.astype(np.float32))
    out = np.hstack(columns).astype(np.float32)
    return sp.csr_matrix(out) if sparse else out


def load_spec(name: str, files: tuple[str, ...]):
    """(X, Y) of a data set: parts stacked, nominal attributes one-hot; X float32, dense or CSR."""
    return load_parts(name, files)[:2]


@functools.lru_cache(maxsize=4)
def load_parts(name: str, files: tuple[str, ...]):
    """(X, Y, rows per file) of a data set, as :func:`load_spec` stacks them."""
    parts = [load(f) for f in files]
    Xs = [one_hot(p.X, p.nominal_values) for p in parts]
    if any(sp.issparse(x) for x in Xs):
        X = sp.vstack([sp.csr_matrix(x) for x in Xs], format="csr").astype(np.float32)
    else:
        X = np.ascontiguousarray(np.vstack(Xs), dtype=np.float32)
    Y = np.ascontiguousarray(np.vstack([p.Y for p in parts]), dtype=np.uint8)
    return X, Y, tuple(int(p.Y.shape[0]) for p in parts)


def folds(n_examples: int, n_folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row indices of each fold: shuffled k-fold with the authors' seed 1."""
    if n_folds < 2 or n_folds > n_examples:
        raise ValueError(f"cannot split {n_examples} examples into {n_folds} folds")
    return list(KFold(n_splits=n_folds, shuffle=True, random_state=FOLD_SEED).split(np.arange(n_examples)))
