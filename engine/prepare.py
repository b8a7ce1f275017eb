"""Compile a run's kernels before the run, in a process of its own: ``python -m engine prepare``.

Numba compiles a kernel the first time it is called and keeps the machine code in its cache; a
compile cannot be interrupted inside the process that runs it, but a process can be killed.  So a
user interface prepares a run whose kernels are not cached yet in a child process (Stop and Quit
kill it at once) and starts the run itself when the child is done: the run then loads its kernels
from the cache in well under a second.

Preparing a setting fits its learner with the run's own parameters on the run's own data (or the
built-in synthetic data) for a few steps and predicts once, so exactly the kernels the run calls are
compiled, no more.  A prepared setting leaves a stamp (:func:`stamp_folder`) for each part of the learner's
:meth:`kernel_setting` key (BOOMER: its core family and each optional part, :mod:`engine.boomer.stamps`),
tied to the digest of the kernel sources, so a later check
(:func:`is_prepared`) needs neither Numba's internals nor a compile.

Progress goes out as one JSON object a line (``--json``): ``setting`` (i of n), ``compiling``
(a kernel, how many compiled so far, seconds elapsed), ``prepared`` (a setting, its seconds, how
many stamps it made ready) and
``done``; errors as ``error``; ``--all`` first reports ``families`` (how many stamps, how many ready).
``--parent-pid`` makes the child end itself when its parent is gone.  The command line is
:mod:`engine.prepare_command`; ``--all`` and ``--list`` enumerate :mod:`engine.families`.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

PREPARE_STEPS = 3  # steps (BOOMER: the default rule and two learned rules) that reach every kernel of a fit
MAX_STEPS = 10_000  # a few steps reach every kernel; more is a mistake
DATA_KEYS = ("X", "Y", "X_test", "Y_test", "nominal")
MAX_DATA_BYTES = 2 << 30  # the arrays of a data file, expanded (its zip members' declared and npy headers' sizes)
MAX_PARAMS_CHARS = 1_000_000  # more than one command-line argument can hold


@dataclass(frozen=True)
class Setting:
    """A learner with parameters (the registry's names), to prepare under ``label``."""

    learner: str
    params: Mapping = field(default_factory=dict)
    label: str = ""

    @property
    def title(self) -> str:
        return self.label or f"{self.learner} {dict(self.params) or 'defaults'}"


def default_settings(learners: Iterable[str] | None = None) -> list[Setting]:
    """What a new user starts first: each learner's defaults, then its presets (BOOMER first: the
    window opens on it, and its four presets are the paper's Figure 1)."""
    from . import registry

    out = []
    for spec in registry.learners():
        if learners is not None and spec.key not in learners:
            continue
        out.append(Setting(spec.key, {}, f"{spec.key}: defaults"))
        for name, params in spec.presets.items():
            out.append(Setting(spec.key, dict(params), f"{spec.key}: {name}"))
    return out


# -- the stamps of prepared settings ---------------------------------------------------------------
def stamp_folder() -> Path:
    """``prepared/`` in this build's kernel folder (:func:`engine.numba_cache.kernel_folder`: the
    stamps go where the kernels they vouch for are); ``BOOMER_PREPARE_STAMPS`` names another folder."""
    override = os.environ.get("BOOMER_PREPARE_STAMPS")
    if override:
        return Path(override)
    from .numba_cache import kernel_folder

    return kernel_folder() / "prepared"


_DIGEST: str | None = None


def _sources_digest() -> str:
    global _DIGEST
    if _DIGEST is None:
        from .numba_cache import kernel_sources_digest

        _DIGEST = kernel_sources_digest()
    return _DIGEST


def _stamp_path(key: str) -> Path:
    return stamp_folder() / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")


def stamps_of(key) -> tuple[str, ...]:
    """The stamps a kernel key stands for: a key of one string is one stamp; a learner whose kernels
    come in parts (BOOMER: a core family and optional parts, :mod:`engine.boomer.stamps`) gives a tuple
    of them; None (nothing compiled) none."""
    if key is None:
        return ()
    return (key,) if isinstance(key, str) else tuple(key)


def _stamped(stamp: str) -> bool:
    try:
        doc = json.loads(_stamp_path(stamp).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("key") == stamp and doc.get("sources") == _sources_digest()


def is_prepared(key) -> bool:
    """Whether a setting with this :meth:`kernel_setting` key was prepared from today's kernel sources:
    each of its stamps (:func:`stamps_of`) exists (None: the learner compiles nothing)."""
    return all(_stamped(stamp) for stamp in stamps_of(key))


def mark_prepared(key, seconds: float) -> int:
    """Stamp each part of ``key``; returns how many were not stamped before."""
    new = 0
    for stamp in stamps_of(key):
        if _stamped(stamp):
            continue
        new += 1
        path = _stamp_path(stamp)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"key": stamp, "sources": _sources_digest(), "seconds": round(seconds, 2)}))
            os.replace(tmp, path)
        except OSError:  # a read-only cache: the run compiles what it needs itself
            pass
    return new


def data_profile(X, Y) -> dict:
    """What of the data decides which kernels a fit compiles (see :meth:`kernel_setting`)."""
    import scipy.sparse as sp

    return {"n_examples": int(X.shape[0]), "n_features": int(X.shape[1]), "n_labels": int(Y.shape[1]),
            "sparse": bool(sp.issparse(X))}


def _unrelated_parameters(estimator) -> set:
    """The parameters that change no kernel: the seed, and the budget its registry entry declares."""
    from . import registry

    budgets = {spec.budget for spec in registry.learners() if spec.factory is type(estimator)}
    return {"random_state"} | (budgets - {None})


def kernel_setting(estimator, X, Y) -> str | tuple[str, ...] | None:
    """The key of the kernels a fit of ``estimator`` on data like ``X``, ``Y`` compiles: the
    learner's own :meth:`kernel_setting` where it has one (a string, a tuple of stamps of the parts
    its kernels come in, or None), else its class, its parameters (but the seed and the budget) and
    whether the data are sparse."""
    profile = data_profile(X, Y)
    method = getattr(estimator, "kernel_setting", None)
    if method is not None:
        return method(profile)
    unrelated = _unrelated_parameters(estimator)
    params = {k: v for k, v in estimator.get_params().items() if k not in unrelated}
    return json.dumps([type(estimator).__name__, params, profile["sparse"]], sort_keys=True, default=str)


# -- compiling ---------------------------------------------------------------------------------------
class CompileWatch:
    """Reports each kernel Numba starts compiling while it is installed (Numba's public event API)."""

    def __init__(self, report: Callable[[str, int], None]):
        from numba.core import event

        self._event = event
        self.count = 0
        self._report = report
        watch = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                watch.count += 1
                dispatcher = ev.data.get("dispatcher")
                name = getattr(getattr(dispatcher, "py_func", None), "__name__", None) or str(dispatcher)
                watch._report(name, watch.count)

            def on_end(self, ev):
                pass

        self._listener = _Listener()

    def __enter__(self):
        self._event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        self._event.unregister("numba:compile", self._listener)


def builtin_data():
    """The window's opening data: the synthetic strong conditional dependence set, 2,000 + 2,000."""
    from .datasets import make_synthetic

    train = make_synthetic("conditional-dependence", 2000, 6, 0)
    test = make_synthetic("conditional-dependence", 2000, 6, 1)
    return {"X": train.X, "Y": train.Y, "X_test": test.X, "Y_test": test.Y, "nominal": train.nominal_mask}


def save_data(path, X, Y, X_test=None, Y_test=None, nominal=None) -> None:
    """The data a child process prepares on (dense or CSC ``X``; read back by :func:`load_data`)."""
    import scipy.sparse as sp

    arrays = {}
    for name, value in (("X", X), ("X_test", X_test)):
        if value is None:
            continue
        if sp.issparse(value):
            value = sp.csc_matrix(value)
            arrays.update({f"{name}_data": value.data, f"{name}_indices": value.indices,
                           f"{name}_indptr": value.indptr, f"{name}_shape": np.array(value.shape)})
        else:
            arrays[name] = np.asarray(value)
    for name, value in (("Y", Y), ("Y_test", Y_test), ("nominal", nominal)):
        if value is not None:
            arrays[name] = np.asarray(value)
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def check_npz(path, max_bytes: int = MAX_DATA_BYTES) -> None:
    """Refuse, before anything is loaded, an ``.npz`` whose arrays expand to more than ``max_bytes``:
    the zip's declared sizes and each ``.npy`` header's shape and type are read, no array."""
    import struct
    import zipfile
    import zlib

    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, EOFError, NotImplementedError, struct.error) as exc:  # e.g. "multi-disk zip"
        raise ValueError(f"{path}: not an .npz file ({exc})") from None
    try:
        with archive:
            _check_members(archive, path, max_bytes)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, struct.error) as exc:
        raise ValueError(f"{path}: a damaged .npz file ({exc})") from None  # RuntimeError: "encrypted"


def _check_members(archive, path, max_bytes: int) -> None:
    """The declared and the header sizes of an open .npz's members, then their checksums."""
    members = archive.infolist()
    declared = sum(m.file_size for m in members)
    if declared > max_bytes:
        raise ValueError(f"{path}: its arrays expand to {declared:,} bytes, more than the {max_bytes:,} "
                         "a data file for prepare may hold")
    total = 0
    for member in members:
        with archive.open(member) as handle:
            total += _npy_bytes(handle, f"{path}: {member.filename}")
        if total > max_bytes:
            raise ValueError(f"{path}: its arrays' headers declare more than {max_bytes:,} bytes "
                             f"({member.filename} and those before it: {total:,})")
    bad = archive.testzip()  # every member read once (at most the declared sizes): no damaged stream later
    if bad is not None:
        raise ValueError(f"{path}: {bad} is damaged (its checksum does not match)")


def _npy_bytes(handle, where: str) -> int:
    """The size an ``.npy`` stream's header declares (shape x item size); ValueError if it has none."""
    from numpy.lib import format as npy

    try:
        version = npy.read_magic(handle)
        header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, _, dtype = header(handle)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"{where}: not an .npy array ({exc})") from None
    return math.prod(shape) * dtype.itemsize


def load_data(path) -> dict:
    """Arrays saved by :func:`save_data`; no pickles are read."""
    import scipy.sparse as sp

    from .validation import check_sparse

    out = {}
    with np.load(path, allow_pickle=False) as npz:
        files = set(npz.files)
        for name in ("X", "X_test"):
            if name in files:
                out[name] = npz[name]
            elif f"{name}_data" in files:
                out[name] = check_sparse(sp.csc_matrix((npz[f"{name}_data"], npz[f"{name}_indices"],
                                                        npz[f"{name}_indptr"]),
                                                       shape=tuple(int(v) for v in npz[f"{name}_shape"])),
                                         f"{Path(path).name}: {name}")  # bounds, before any kernel reads it
        for name in ("Y", "Y_test", "nominal"):
            if name in files:
                out[name] = npz[name]
    if "X" not in out or "Y" not in out:
        raise ValueError(f"{path}: no training data (X, Y)")
    return out


def read_data(path, max_bytes: int = MAX_DATA_BYTES) -> dict:
    """:func:`load_data` of a file from outside: refused (ValueError) when its arrays would expand to
    more than ``max_bytes`` (:func:`check_npz`, before anything is loaded) or when its members are not
    the arrays :func:`save_data` writes."""
    check_npz(path, max_bytes)
    try:
        return load_data(path)
    except (TypeError, KeyError, IndexError) as exc:  # a member missing, or not of the shape written
        raise ValueError(f"{path}: not a data file of prepare ({type(exc).__name__}: {exc})") from None


def prepare_setting(setting: Setting, data: Mapping, steps: int = PREPARE_STEPS) -> tuple[str | None, float]:
    """Fit ``setting``'s learner for ``steps`` steps on ``data`` and predict once: every kernel the
    run calls is compiled (or loaded from the cache).  Returns (its kernel key, seconds)."""
    from . import registry

    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    spec = registry.get(setting.learner)
    params = dict(setting.params)
    if spec.budget is not None:
        budget = spec.budget_of(params)
        params[spec.budget] = steps if budget is None else min(budget, steps)
    estimator = spec.make(**params)
    X, Y = data["X"], data["Y"]
    start = time.perf_counter()
    kw = {}
    if data.get("X_test") is not None and data.get("Y_test") is not None:
        kw = {"X_test": data["X_test"], "Y_test": data["Y_test"]}
    nominal = data.get("nominal")
    if nominal is not None and not np.any(nominal):
        nominal = None
    for _ in estimator.fit_iter(X, Y, nominal_attributes=nominal, **kw):
        pass
    if hasattr(estimator, "predict"):
        estimator.predict(kw.get("X_test", X))
    seconds = time.perf_counter() - start
    key = kernel_setting(estimator, X, Y)
    mark_prepared(key, seconds)
    return key, seconds


def _prepare_one(setting: Setting, data: Mapping, steps: int) -> dict:
    """:func:`prepare_setting` as a ``prepared`` or ``error`` event: one bad setting must not keep the
    others from being prepared."""
    pending = [s for s in stamps_of(setting_key(setting, data["X"], data["Y"])) if not _stamped(s)]
    try:
        _, seconds = prepare_setting(setting, data, steps)
    except Exception as exc:
        return {"event": "error", "label": setting.title, "message": f"{type(exc).__name__}: {exc}"}
    stamped = sum(_stamped(s) for s in pending)  # the parts this setting made ready
    return {"event": "prepared", "label": setting.title, "seconds": round(seconds, 2), "stamped": stamped}


def prepare(settings: list[Setting], data: Mapping | None = None, emit: Callable[[dict], None] = print,
            steps: int = PREPARE_STEPS) -> int:
    """Prepare each setting in turn, settings with the same kernels once; ``emit`` receives progress
    events (dicts).  Returns the number of settings that failed (their error is reported, the others
    still prepared)."""
    data = builtin_data() if data is None else data
    todo = distinct_settings(settings, data)
    start = time.perf_counter()
    failures = 0

    def compiling(name: str, count: int) -> None:
        emit({"event": "compiling", "kernel": name, "compiled": count,
              "elapsed": round(time.perf_counter() - start, 2)})

    with CompileWatch(compiling) as watch:
        for i, setting in enumerate(todo):
            emit({"event": "setting", "index": i, "of": len(todo), "label": setting.title,
                  "elapsed": round(time.perf_counter() - start, 2)})
            event = _prepare_one(setting, data, steps)
            failures += event["event"] == "error"
            emit({**event, "index": i, "compiled": watch.count})
    emit({"event": "done", "settings": len(todo), "failed": failures, "compiled": watch.count,
          "elapsed": round(time.perf_counter() - start, 2)})
    return failures


def _prepare_in_worker(learner: str, params: dict, label: str, data_path: str | None, steps: int) -> dict:
    """One setting in a worker process of :func:`prepare_parallel` (an event for the parent)."""
    data = read_data(data_path) if data_path else builtin_data()
    with CompileWatch(lambda name, count: None) as watch:
        event = _prepare_one(Setting(learner, params, label), data, steps)
    return {**event, "compiled": watch.count}


def setting_key(setting: Setting, X, Y) -> str | None:
    """:func:`kernel_setting` of ``setting``'s learner on data like ``X``, ``Y``; None for an invalid
    setting (preparing it reports the error)."""
    from . import registry

    try:
        return kernel_setting(registry.get(setting.learner).make(**setting.params), X, Y)
    except Exception:  # noqa: BLE001 - any invalid parameter
        return None


def distinct_settings(settings: list[Setting], data: Mapping) -> list[Setting]:
    """``settings`` without those whose kernels another one already compiles (same kernel key on
    ``data``); settings whose key cannot be told are kept."""
    seen, out = set(), []
    for setting in settings:
        key = setting_key(setting, data["X"], data["Y"])
        if key is not None and key in seen:
            continue
        seen.add(key)
        out.append(setting)
    return out


def prepare_parallel(settings: list[Setting], jobs: int, data: Mapping | None = None, data_path: str | None = None,
                     emit: Callable[[dict], None] = print, steps: int = PREPARE_STEPS) -> int:
    """:func:`prepare` in ``jobs`` worker processes (each reads ``data_path``, or makes the built-in
    data; ``data`` is the same, here).  Returns the number of settings that failed."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    todo = distinct_settings(settings, builtin_data() if data is None else data)
    start = time.perf_counter()
    failures = compiled = 0
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_prepare_in_worker, s.learner, dict(s.params), s.title, data_path, steps): i
                   for i, s in enumerate(todo)}
        for i, setting in enumerate(todo):
            emit({"event": "setting", "index": i, "of": len(todo), "label": setting.title, "elapsed": 0.0})
        for future in as_completed(futures):
            event = {**future.result(), "index": futures[future]}
            failures += event["event"] == "error"
            compiled += event["compiled"]
            emit(event)
    emit({"event": "done", "settings": len(todo), "failed": failures, "compiled": compiled,
          "elapsed": round(time.perf_counter() - start, 2)})
    return failures


def watch_parent(parent_pid: int, interval_s: float = 0.2) -> None:
    """End this process at once when ``parent_pid`` is no longer its parent (the window was closed
    or killed): no compile outlives the application that asked for it."""
    try:  # Linux: the kernel sends SIGKILL when the parent dies
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def poll():
        while True:
            if os.getppid() != parent_pid:
                os._exit(3)
            time.sleep(interval_s)

    threading.Thread(target=poll, name="parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:
        os._exit(3)


def check_learners(keys: list[str], option: str) -> None:
    from . import registry

    known = [spec.key for spec in registry.learners()]
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"{option}: unknown learner {unknown[0]!r}; known: {', '.join(known)}")


def parse_params(text: str | None) -> dict:
    """``--params``: a JSON object of parameter values (nothing nested deeper than JSON can recurse)."""
    if not text:
        return {}
    if len(text) > MAX_PARAMS_CHARS:
        raise ValueError(f"--params: {len(text):,} characters; a learner's parameters need far fewer")
    try:
        params = json.loads(text)
    except RecursionError:
        raise ValueError("--params: nested too deeply; a learner's parameters are a flat JSON object") from None
    except ValueError as exc:
        raise ValueError(f"--params: not JSON ({exc})") from None
    if not isinstance(params, dict):
        raise ValueError("--params must be a JSON object")
    return params


# -- ``python -m engine cache`` ----------------------------------------------------------------------
def cache_command(args) -> int:
    """Where the compiled kernels are; ``--prune`` removes the folders of other sources."""
    from .numba_cache import cache_folders, kernel_folder, prune, prune_legacy

    if args.prune:
        removed = prune(args.older_than)
        freed = sum(f.size for f in removed)
        legacy = prune_legacy(args.older_than)
        print(f"removed {len(removed)} folder(s) of kernels of other sources ({freed / 1e6:.1f} MB)"
              + (f" and {legacy} kernel file(s) cached beside the sources by earlier versions" if legacy else ""))
    print(f"kernel folder of these sources: {kernel_folder()}")
    for folder in cache_folders():
        age = (time.time() - folder.last_used) / 86400.0
        what = "this build" if folder.current else f"other sources, last used {age:.1f} days ago"
        print(f"  {folder.path.name}  {folder.files:5d} files  {folder.size / 1e6:8.1f} MB  {what}")
    return 0


def add_cache_parser(sub) -> None:
    p = sub.add_parser("cache", help="where the compiled kernels are cached; --prune removes the kernels of other "
                                     "(older) sources")
    p.add_argument("--info", action="store_true", help="list the kernel folders (the default)")
    p.add_argument("--prune", action="store_true", help="remove the kernel folders of other sources (never this "
                                                        "build's)")
    p.add_argument("--older-than", type=float, default=0.0, metavar="DAYS",
                   help="with --prune: only folders unused for this many days (default 0: all of them)")
    p.set_defaults(func=cache_command)
