"""The SQLite result store of an evaluation: every finished task is written (and committed) at once,
so killing a run loses only the tasks in flight, a rerun skips what is stored, and reports are rebuilt
from the store alone.  WAL journaling lets a viewer read while a run writes."""
from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS datasets (
    name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, files TEXT NOT NULL,
    n_examples INTEGER NOT NULL, n_labels INTEGER NOT NULL, labels BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    key TEXT PRIMARY KEY, dataset TEXT NOT NULL, fold INTEGER NOT NULL, n_folds INTEGER NOT NULL,
    method TEXT NOT NULL, grp TEXT NOT NULL, configurations TEXT NOT NULL, params TEXT NOT NULL,
    code_version TEXT NOT NULL, seconds REAL NOT NULL, worker TEXT NOT NULL, finished REAL NOT NULL,
    test_rows BLOB NOT NULL, predictions BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS failures (key TEXT NOT NULL, error TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS experiment_results (
    key TEXT PRIMARY KEY, dataset TEXT NOT NULL, fold INTEGER NOT NULL, learner TEXT NOT NULL,
    config TEXT NOT NULL, inner TEXT NOT NULL, costs TEXT NOT NULL, curve TEXT NOT NULL,
    code_version TEXT NOT NULL, worker TEXT NOT NULL, finished REAL NOT NULL,
    test_rows BLOB NOT NULL, predictions BLOB NOT NULL, scores BLOB);
CREATE TABLE IF NOT EXISTS experiment_models (key TEXT PRIMARY KEY, text BLOB NOT NULL);
"""


def _alive(owner: str) -> bool:
    """Whether the process of a claim's owner (``host:pid:token``) may still run: a process of this
    host is looked up, one of another host is presumed alive until its lease expires."""
    host, _, rest = str(owner).partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def pack_bits(A: np.ndarray) -> bytes:
    A = np.ascontiguousarray(A, dtype=np.uint8)
    return zlib.compress(json.dumps(list(A.shape)).encode() + b"\n" + np.packbits(A.ravel()).tobytes())


def _decompressed(blob) -> bytes:
    if not isinstance(blob, bytes):
        raise ValueError(f"expected a compressed blob, found {type(blob).__name__}")
    try:
        return zlib.decompress(blob)
    except zlib.error as exc:
        raise ValueError(f"not a compressed blob ({exc})") from None


def _shaped(blob, what: str) -> tuple[list[int], bytes]:
    """(shape, body) of a blob written as a JSON shape line and the data; ValueError otherwise."""
    head, _, body = _decompressed(blob).partition(b"\n")
    try:
        shape = json.loads(head)
    except (ValueError, RecursionError):
        shape = None
    if not (isinstance(shape, list) and shape and all(type(s) is int and s >= 0 for s in shape)):
        raise ValueError(f"not a packed {what} (its shape is missing or invalid)")
    return shape, body


def unpack_bits(blob: bytes) -> np.ndarray:
    """The 0/1 matrix :func:`pack_bits` packed; ValueError for anything else."""
    shape, body = _shaped(blob, "bit matrix")
    n = math.prod(shape)
    if (n + 7) // 8 != len(body):
        raise ValueError(f"not a packed bit matrix ({len(body)} bytes for shape {tuple(shape)})")
    return np.unpackbits(np.frombuffer(body, dtype=np.uint8), count=n).reshape(shape)


def pack_floats(A: np.ndarray) -> bytes:
    A = np.ascontiguousarray(A, dtype="<f4")
    return zlib.compress(json.dumps(list(A.shape)).encode() + b"\n" + A.tobytes())


def unpack_floats(blob: bytes) -> np.ndarray:
    """The float32 matrix :func:`pack_floats` packed; ValueError for anything else."""
    shape, body = _shaped(blob, "float matrix")
    if len(body) != 4 * math.prod(shape):
        raise ValueError(f"not a packed float matrix ({len(body)} bytes for shape {tuple(shape)})")
    return np.frombuffer(body, dtype="<f4").reshape(shape).astype(np.float64)


def pack_values(A: np.ndarray) -> bytes:
    """A real matrix (regression targets or predictions) as float64, after a ``{"float64": shape}`` line
    (a 0/1 matrix's line is its shape alone: :func:`unpack_matrix` tells the two apart)."""
    A = np.ascontiguousarray(A, dtype="<f8")
    return zlib.compress(json.dumps({"float64": list(A.shape)}).encode() + b"\n" + A.tobytes())


def pack_matrix(A: np.ndarray) -> bytes:
    """Real values (a floating-point ``A``) as :func:`pack_values`, anything else as 0/1 bits."""
    return pack_values(A) if np.asarray(A).dtype.kind == "f" else pack_bits(A)


def unpack_matrix(blob: bytes) -> np.ndarray:
    """The matrix :func:`pack_matrix` packed: float64 values or a 0/1 uint8 matrix; ValueError otherwise."""
    head = _decompressed(blob).partition(b"\n")[0]
    if not head.startswith(b"{"):
        return unpack_bits(blob)
    try:
        shape = json.loads(head).get("float64")
    except (ValueError, RecursionError, AttributeError):
        shape = None
    body = _decompressed(blob).partition(b"\n")[2]
    if not (isinstance(shape, list) and shape and all(type(s) is int and s >= 0 for s in shape)
            and len(body) == 8 * math.prod(shape)):
        raise ValueError("not a packed value matrix (its shape is missing, invalid or does not fit its data)")
    return np.frombuffer(body, dtype="<f8").reshape(shape).copy()


def pack_rows(rows: np.ndarray) -> bytes:
    return zlib.compress(np.ascontiguousarray(rows, dtype="<i8").tobytes())


def unpack_rows(blob: bytes) -> np.ndarray:
    """The row indices :func:`pack_rows` packed; ValueError for anything else."""
    raw = _decompressed(blob)
    if len(raw) % 8:
        raise ValueError(f"not a packed list of rows ({len(raw)} bytes)")
    return np.frombuffer(raw, dtype="<i8").copy()


@dataclass
class TaskResult:
    key: str
    dataset: str
    fold: int
    n_folds: int
    method: str
    group: dict
    configurations: list[str]
    params: dict
    code_version: str
    seconds: float
    worker: str
    test_rows: np.ndarray
    predictions: np.ndarray  # C x N_test x K uint8


@dataclass
class ExperimentResult:
    """One task of an experiment: a configuration of a learner fitted on a fold's training rows."""

    key: str
    dataset: str
    fold: int
    learner: str  # the candidate's key
    config: dict  # the estimator's parameters
    inner: dict  # measure -> value of the inner cross-validation ({} without a grid)
    costs: dict  # fit-time, predict-time, model-size, conditions (when known)
    curve: list  # [[size, test Hamming, test subset 0/1], ...] of a streaming learner
    code_version: str
    worker: str
    test_rows: np.ndarray
    predictions: np.ndarray  # N_test x K uint8, float64 targets (regression); prefixes x N_test x K with
    #                          costs["prefixes"]: BBC-CV's prefixes
    scores: np.ndarray | None  # N_test x K, or None when the learner gives no scores
    model_text: str | None = None  # the rules as text (``--save-rules``), else None


class ResultStore:
    def __init__(self, path, readonly: bool = False):
        self.path = Path(path)
        if readonly:
            if not self.path.is_file():
                raise FileNotFoundError(f"result store {self.path} does not exist")
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
            self._check()
        else:
            if self.path.is_dir():
                raise ValueError(f"result store {self.path} is a folder")
            folder = self.path.parent
            if not folder.is_dir():
                raise ValueError(f"result store {self.path}: the folder {folder} does not exist; create it first")
            try:
                self.db = sqlite3.connect(self.path, timeout=30)
            except sqlite3.Error as exc:
                raise ValueError(f"result store {self.path} cannot be opened: {exc}") from None
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.executescript(SCHEMA)
            except sqlite3.Error as exc:
                self.db.close()
                raise ValueError(f"{self.path} is not a result store: {exc}") from None
            self._check()

    def _check(self) -> None:
        try:
            names = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{self.path} is not a result store: {exc}") from None
        if not {"meta", "datasets", "tasks"} <= names:
            raise ValueError(f"{self.path} is not a result store (tables missing)")

    def _read(self, sql: str, args=()) -> list:
        """All rows of a query; a damaged database is a ValueError naming the store."""
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{self.path} is not a readable result store: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- run description ---------------------------------------------------------------------
    def set_meta(self, key: str, value) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def meta(self, key: str, default=None):
        row = next(iter(self._read("SELECT value FROM meta WHERE key=?", (key,))), None)
        return default if row is None else self._json(row[0], f"meta {key!r}")

    def _json(self, text, where: str):
        """A JSON field read back; ValueError naming the store and the entry when it is not JSON."""
        from ..model_document import parse_json

        if not isinstance(text, str):
            raise ValueError(f"{self.path}: {where}: expected JSON text, found {type(text).__name__}")
        return parse_json(text, f"{self.path}: {where}", "JSON value")

    def _blob(self, unpack, blob, where: str) -> np.ndarray:
        try:
            return unpack(blob)
        except ValueError as exc:
            raise ValueError(f"{self.path}: {where}: {exc}") from None

    def put_dataset(self, name: str, fingerprint: str, files, Y: np.ndarray) -> None:
        row = next(iter(self._read("SELECT fingerprint FROM datasets WHERE name=?", (name,))), None)
        if row is not None and row[0] != fingerprint:
            raise ValueError(f"the store holds results of a different data set named {name!r} "
                             f"(fingerprint {row[0]}, now {fingerprint}); use another store")
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?, ?, ?)",
                            (name, fingerprint, json.dumps(list(files)), int(Y.shape[0]), int(Y.shape[1]),
                             pack_matrix(Y)))

    def dataset_labels(self, name: str) -> np.ndarray:
        row = next(iter(self._read("SELECT labels FROM datasets WHERE name=?", (name,))), None)
        if row is None:
            raise ValueError(f"{self.path}: no data set {name!r} in the store")
        Y = self._blob(unpack_matrix, row[0], f"labels of data set {name!r}")
        if Y.ndim != 2:
            raise ValueError(f"{self.path}: labels of data set {name!r}: not a matrix (shape {Y.shape})")
        return Y

    def datasets(self) -> list[str]:
        return [r[0] for r in self._read("SELECT name FROM datasets ORDER BY name")]

    # -- tasks ---------------------------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        return {r[0] for r in self._read("SELECT key FROM tasks")}

    def put_task(self, r: TaskResult) -> None:
        with self.db:  # one transaction per task: committed before the next result is looked at
            self.db.execute(
                "INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.key, r.dataset, r.fold, r.n_folds, r.method, json.dumps(r.group, sort_keys=True),
                 json.dumps(r.configurations), json.dumps(r.params, sort_keys=True), r.code_version,
                 float(r.seconds), r.worker, time.time(), pack_rows(r.test_rows), pack_bits(r.predictions)))

    def put_failure(self, key: str, error: str) -> None:
        with self.db:
            self.db.execute("INSERT INTO failures VALUES (?, ?, ?)", (key, error, time.time()))

    def failures(self, since: float | None = None) -> list[tuple[str, str]]:
        """(key, error) of the failed tasks (those recorded at or after ``since``, a ``time.time()``)."""
        return [(k, e) for k, e in self._read("SELECT key, error FROM failures WHERE at >= ? ORDER BY at",
                                              (-math.inf if since is None else since,))]

    def tasks(self, dataset: str, method: str, n_folds: int, keys=None) -> list[TaskResult]:
        rows = self._read(
            "SELECT key, fold, grp, configurations, params, code_version, seconds, worker, test_rows, predictions "
            "FROM tasks WHERE dataset=? AND method=? AND n_folds=?", (dataset, method, n_folds))
        out = []
        for key, fold, grp, confs, params, version, seconds, worker, rows_blob, pred_blob in rows:
            if keys is not None and key not in keys:
                continue
            where = f"task {key!r}"
            confs = self._json(confs, where + ", configurations")
            if not (isinstance(confs, list) and all(isinstance(c, str) for c in confs)):
                raise ValueError(f"{self.path}: {where}: configurations must be a list of names")
            rows = self._blob(unpack_rows, rows_blob, where + ", test rows")
            predictions = self._blob(unpack_bits, pred_blob, where + ", predictions")
            if predictions.ndim != 3 or predictions.shape[:2] != (len(confs), len(rows)):
                raise ValueError(f"{self.path}: {where}: predictions of shape {predictions.shape} for "
                                 f"{len(confs)} configurations and {len(rows)} test rows")
            if not (isinstance(key, str) and isinstance(seconds, (int, float)) and isinstance(fold, int)):
                raise ValueError(f"{self.path}: {where}: key, seconds and fold must be a name and numbers")
            out.append(TaskResult(key, dataset, fold, n_folds, method, self._json(grp, where + ", group"), confs,
                                  self._json(params, where + ", params"), version, float(seconds), worker, rows,
                                  predictions))
        return out

    def timings(self) -> list[tuple[str, str, float]]:
        return self._read("SELECT dataset, method, seconds FROM tasks")

    def n_tasks(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM tasks")[0][0])

    # -- experiments ---------------------------------------------------------------------------
    def experiment_keys(self) -> set[str]:
        return {r[0] for r in self._read("SELECT key FROM experiment_results")}

    def put_result(self, r: ExperimentResult) -> None:
        with self.db:  # committed before the next result is looked at
            self.db.execute(
                "INSERT OR REPLACE INTO experiment_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r.key, r.dataset, int(r.fold), r.learner, json.dumps(r.config, sort_keys=True), json.dumps(r.inner),
                 json.dumps(r.costs), json.dumps(r.curve), r.code_version, r.worker, time.time(),
                 pack_rows(r.test_rows), pack_matrix(r.predictions), None if r.scores is None else pack_floats(r.scores)))
            if r.model_text is not None:
                self.db.execute("INSERT OR REPLACE INTO experiment_models VALUES (?, ?)",
                                (r.key, zlib.compress(r.model_text.encode("utf-8"))))

    def results(self, keys) -> dict[str, ExperimentResult]:
        """The stored results of these keys (absent keys are left out), every field checked."""
        wanted = set(keys)
        out = {}
        for row in self._read("SELECT key, dataset, fold, learner, config, inner, costs, curve, code_version, worker, "
                              "test_rows, predictions, scores FROM experiment_results"):
            key = row[0]
            if key not in wanted:
                continue
            where = f"result {key!r}"
            config, inner, costs, curve = (self._json(v, f"{where}, {n}") for v, n in
                                           zip(row[4:8], ("config", "inner", "costs", "curve")))
            if not (isinstance(config, dict) and isinstance(inner, dict) and isinstance(costs, dict)
                    and isinstance(curve, list) and isinstance(row[2], int)):
                raise ValueError(f"{self.path}: {where}: malformed fields")
            rows = self._blob(unpack_rows, row[10], where + ", test rows")
            P = self._blob(unpack_matrix, row[11], where + ", predictions")
            S = None if row[12] is None else self._blob(unpack_floats, row[12], where + ", scores")
            prefixes = costs.get("prefixes")
            if prefixes is not None and not (isinstance(prefixes, list) and prefixes and P.ndim == 3
                                             and P.shape[0] == len(prefixes)
                                             and all(type(t) is int and t > 0 for t in prefixes)):
                raise ValueError(f"{self.path}: {where}: predictions of shape {P.shape} for prefixes {prefixes!r}")
            shape = P.shape[1:] if prefixes is not None else P.shape
            if len(shape) != 2 or shape[0] != len(rows) or (S is not None and S.shape != shape):
                raise ValueError(f"{self.path}: {where}: predictions of shape {P.shape} for {len(rows)} test rows")
            out[key] = ExperimentResult(key, row[1], row[2], row[3], config, inner, costs, curve, row[8], row[9], rows,
                                        P, S)
        return out

    def _has_table(self, name: str) -> bool:
        return bool(self._read("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)))

    def model_keys(self) -> set[str]:
        """The results whose model text is stored (``--save-rules``)."""
        return {r[0] for r in self._read("SELECT key FROM experiment_models")} if self._has_table(
            "experiment_models") else set()

    def model_text(self, key: str) -> str | None:
        """A result's stored model text, or None."""
        if not self._has_table("experiment_models"):
            return None
        rows = self._read("SELECT text FROM experiment_models WHERE key=?", (key,))
        if not rows:
            return None
        try:
            return _decompressed(rows[0][0]).decode("utf-8")
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{self.path}: the model text of {key!r} is not readable ({exc})") from None

    def median_task_seconds(self) -> float | None:
        """The median fit and predict time of the stored experiment results (None without any)."""
        seconds = []
        for (costs,) in self._read("SELECT costs FROM experiment_results"):
            try:
                doc = json.loads(costs)
                seconds.append(float(doc.get("fit-time", 0.0)) + float(doc.get("predict-time", 0.0)))
            except (TypeError, ValueError, AttributeError):
                continue
        return float(np.median(seconds)) if seconds else None

    # -- claims: processes sharing a store share its tasks -------------------------------------
    def claim(self, keys, owner: str, lease_s: float, with_model: bool = False) -> list[str]:
        """The keys of ``keys`` this ``owner`` may compute, claimed in one transaction: those without a
        stored result (``with_model``: without a stored model text) and not claimed by another live
        owner (a claim older than ``lease_s`` seconds, or of a process of this host that is gone, has
        expired; a live one is renewed by :meth:`renew_claims`).  Owners are ``host:pid:token``."""
        now = time.time()
        got = []
        done = "experiment_models" if with_model else "experiment_results"
        try:
            self.db.execute("BEGIN IMMEDIATE")  # the write lock first: no other process claims between
            for key in keys:
                if self.db.execute(f"SELECT 1 FROM {done} WHERE key=?", (key,)).fetchone():
                    continue
                row = self.db.execute("SELECT owner, at FROM claims WHERE key=?", (key,)).fetchone()
                if row is not None and row[0] != owner and row[1] >= now - lease_s and _alive(row[0]):
                    continue
                self.db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (key, owner, now))
                got.append(key)
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise
        return got

    def renew_claims(self, keys, owner: str) -> None:
        with self.db:
            self.db.executemany("UPDATE claims SET at=? WHERE key=? AND owner=?",
                                [(time.time(), k, owner) for k in keys])

    def release_claims(self, keys, owner: str) -> None:
        with self.db:
            self.db.executemany("DELETE FROM claims WHERE key=? AND owner=?", [(k, owner) for k in keys])

    def delete_results(self, keys) -> None:
        with self.db:
            self.db.executemany("DELETE FROM experiment_results WHERE key=?", [(k,) for k in keys])
