"""The SQLite result store of an evaluation: every finished task is written (and committed) at once,
so killing a run loses only the tasks in flight, a rerun skips what is stored, and reports are rebuilt
from the store alone.  WAL journaling lets a viewer read while a run writes."""
from __future__ import annotations

import json
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
"""


def pack_bits(A: np.ndarray) -> bytes:
    A = np.ascontiguousarray(A, dtype=np.uint8)
    return zlib.compress(json.dumps(list(A.shape)).encode() + b"\n" + np.packbits(A.ravel()).tobytes())


def unpack_bits(blob: bytes) -> np.ndarray:
    raw = zlib.decompress(blob)
    head, _, body = raw.partition(b"\n")
    shape = tuple(json.loads(head))
    n = int(np.prod(shape))
    return np.unpackbits(np.frombuffer(body, dtype=np.uint8), count=n).reshape(shape)


def pack_rows(rows: np.ndarray) -> bytes:
    return zlib.compress(np.ascontiguousarray(rows, dtype="<i8").tobytes())


def unpack_rows(blob: bytes) -> np.ndarray:
    return np.frombuffer(zlib.decompress(blob), dtype="<i8").copy()


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
            self.db = sqlite3.connect(self.path, timeout=30)
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.executescript(SCHEMA)
            except sqlite3.DatabaseError as exc:
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
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def put_dataset(self, name: str, fingerprint: str, files, Y: np.ndarray) -> None:
        row = self.db.execute("SELECT fingerprint FROM datasets WHERE name=?", (name,)).fetchone()
        if row is not None and row[0] != fingerprint:
            raise ValueError(f"the store holds results of a different data set named {name!r} "
                             f"(fingerprint {row[0]}, now {fingerprint}); use another store")
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO datasets VALUES (?, ?, ?, ?, ?, ?)",
                            (name, fingerprint, json.dumps(list(files)), int(Y.shape[0]), int(Y.shape[1]),
                             pack_bits(Y)))

    def dataset_labels(self, name: str) -> np.ndarray:
        row = self.db.execute("SELECT labels FROM datasets WHERE name=?", (name,)).fetchone()
        if row is None:
            raise KeyError(f"no data set {name!r} in the store")
        return unpack_bits(row[0])

    def datasets(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM datasets ORDER BY name")]

    # -- tasks ---------------------------------------------------------------------------------
    def finished_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT key FROM tasks")}

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

    def failures(self) -> list[tuple[str, str]]:
        return [(k, e) for k, e in self.db.execute("SELECT key, error FROM failures ORDER BY at")]

    def tasks(self, dataset: str, method: str, n_folds: int, keys=None) -> list[TaskResult]:
        rows = self.db.execute(
            "SELECT key, fold, grp, configurations, params, code_version, seconds, worker, test_rows, predictions "
            "FROM tasks WHERE dataset=? AND method=? AND n_folds=?", (dataset, method, n_folds)).fetchall()
        out = []
        for key, fold, grp, confs, params, version, seconds, worker, rows_blob, pred_blob in rows:
            if keys is not None and key not in keys:
                continue
            out.append(TaskResult(key, dataset, fold, n_folds, method, json.loads(grp), json.loads(confs),
                                  json.loads(params), version, seconds, worker, unpack_rows(rows_blob),
                                  unpack_bits(pred_blob)))
        return out

    def timings(self) -> list[tuple[str, str, float]]:
        return list(self.db.execute("SELECT dataset, method, seconds FROM tasks"))

    def n_tasks(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])
