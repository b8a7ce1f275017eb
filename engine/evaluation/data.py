"""Data sets of the comparison: named benchmark sets from ``../shared/data`` or files as distributed,
a Mulan ``<name>-train`` file joined with its ``-test`` sibling (SPEC C.1: scene is concatenated),
the built-in synthetic generators (``synthetic:KIND`` or ``synthetic:KIND:examples=N,labels=K,seed=S``;
``targets`` is another word for ``labels``; defaults 1000 examples, 6 labels or 3 targets, seed 0),
nominal attributes one-hot encoded as the authors did, and the folds (``KFold(shuffle, seed 1)``).

A data set is a regression data set (real targets, ``Y`` float64) when its loader or generator says
so: a ``Dataset`` whose ``task`` is ``"regression"`` or whose ``Y`` is floating point; otherwise its
labels are 0/1 (``Y`` uint8)."""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import KFold

from ..datasets import SYNTHETIC_KINDS, SYNTHETIC_REGRESSION_KINDS, load, make_synthetic, test_sibling

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
# the eight data sets of Table 1 (SPEC C.1), relative to the shared data folder
KNOWN = {"birds": ("table1/birds.arff",), "emotions": ("emotions.arff",), "enron": ("enron.arff",),
         "llog": ("table1/llog.arff",), "medical": ("table1/medical.arff",),
         "scene": ("table1/scene-train.arff", "table1/scene-test.arff"),
         "slashdot": ("table1/slashdot.arff",), "yeast": ("yeast.svm",)}
FOLD_SEED = 1
SYNTHETIC = "synthetic:"
SYNTHETIC_VERSION = 1  # part of a synthetic data set's fingerprint: raise it when a generator changes
CLASSIFICATION, REGRESSION = "classification", "regression"  # the tasks (as experiment.scoring names them)


@dataclass(frozen=True)
class DataSpec:
    """A data set of the comparison: its name, its files (joined in order) and their content hash."""

    name: str
    files: tuple[str, ...]  # a synthetic data set: its one canonical ``synthetic:...`` spec
    fingerprint: str
    task: str | None = None  # known before loading (synthetic data), else None


def synthetic_spec(item: str) -> tuple[str, int, int, int]:
    """(kind, examples, labels, seed) of a ``synthetic:...`` name; ValueError naming the problem."""
    kind, _, options = item[len(SYNTHETIC):].partition(":")
    kinds = SYNTHETIC_KINDS + SYNTHETIC_REGRESSION_KINDS
    if kind not in kinds:
        raise ValueError(f"unknown synthetic data kind {kind!r}; known: {', '.join(kinds)}")
    values = {"examples": 1000, "labels": 3 if kind in SYNTHETIC_REGRESSION_KINDS else 6, "seed": 0}
    for part in filter(None, (p.strip() for p in options.split(","))):
        key, eq, text = (x.strip() for x in part.partition("="))
        key = "labels" if key == "targets" else key
        if key not in values or not eq or not text.isdigit():
            raise ValueError(f"{item!r}: expected synthetic:KIND:examples=N,labels=K,seed=S (whole numbers; targets= "
                             f"for labels=), got {part!r}")
        values[key] = int(text)
    if not 2 <= values["examples"] <= 10_000_000 or not 1 <= values["labels"] <= 10_000:
        raise ValueError(f"{item!r}: examples must be in [2, 10000000] and labels (targets) in [1, 10000]")
    return kind, values["examples"], values["labels"], values["seed"]


def _synthetic(item: str) -> DataSpec:
    kind, n, k, seed = synthetic_spec(item)
    regression = kind in SYNTHETIC_REGRESSION_KINDS
    canonical = f"{SYNTHETIC}{kind}:examples={n},{'targets' if regression else 'labels'}={k},seed={seed}"
    name = canonical[len(SYNTHETIC):] if item != f"{SYNTHETIC}{kind}" else kind
    return DataSpec(name, (canonical,), fingerprint((canonical,)), REGRESSION if regression else CLASSIFICATION)


def resolve(item: str, data_dir: Path = SHARED_DATA) -> DataSpec:
    """A name of :data:`KNOWN` (read from ``data_dir``), a ``synthetic:...`` name or a data file path; a
    ``-train`` file brings its ``-test`` sibling.  Raises FileNotFoundError / ValueError naming the problem."""
    if item.startswith(SYNTHETIC) and not Path(item).exists():
        return _synthetic(item)
    if item in KNOWN and not Path(item).exists():
        files = tuple(str(data_dir / f) for f in KNOWN[item])
        name = item
    else:
        path = Path(item)
        if not path.is_file():
            known = ", ".join(KNOWN)
            raise FileNotFoundError(f"data set {item!r} is neither a file nor one of the known names ({known}) nor "
                                    "synthetic:KIND")
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
        if str(f).startswith(SYNTHETIC):  # generated: the canonical spec and the generators' version
            h.update(f"{f}|{SYNTHETIC_VERSION}".encode())
            continue
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
    """(X, Y, rows per file) of a data set, as :func:`load_spec` stacks them: Y float64 for regression
    targets, else uint8."""
    parts = [make_synthetic(*synthetic_spec(f)) if f.startswith(SYNTHETIC) else load(f) for f in files]
    Xs = [one_hot(p.X, p.nominal_values) for p in parts]
    if any(sp.issparse(x) for x in Xs):
        X = sp.vstack([sp.csr_matrix(x) for x in Xs], format="csr").astype(np.float32)
    else:
        X = np.ascontiguousarray(np.vstack(Xs), dtype=np.float32)
    regression = any(task_of(p) == REGRESSION for p in parts)
    Y = np.ascontiguousarray(np.vstack([p.Y for p in parts]), dtype=np.float64 if regression else np.uint8)
    return X, Y, tuple(int(p.Y.shape[0]) for p in parts)


def task_of(data) -> str:
    """REGRESSION for a data set (or its Y) with real targets, else CLASSIFICATION (see the module's docstring)."""
    if getattr(data, "task", None) == REGRESSION:
        return REGRESSION
    Y = getattr(data, "Y", data)
    return REGRESSION if np.asarray(Y).dtype.kind == "f" else CLASSIFICATION


def folds(n_examples: int, n_folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row indices of each fold: shuffled k-fold with the authors' seed 1."""
    if n_folds < 2 or n_folds > n_examples:
        raise ValueError(f"cannot split {n_examples} examples into {n_folds} folds")
    return list(KFold(n_splits=n_folds, shuffle=True, random_state=FOLD_SEED).split(np.arange(n_examples)))
