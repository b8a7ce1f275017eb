"""Fuzz targets, one per input kind a user can hand the tool: ARFF, sparse ARFF, svmlight, CSV, Mulan
XML, the model file of every learner, session files and the evaluation store.

Each example is a valid file mutated (characters inserted, deleted, replaced, lines duplicated, the
file cut short; JSON values replaced or removed; store cells overwritten).  Every target asserts
that the result is either valid or one error of the documented family with a message
(DatasetFormatError for data files, ValueError for model, session and store files), never another
exception, and that it takes no longer than a bound derived from the input's size.

The example budget comes from the hypothesis profile (tests/conftest.py): ``ci`` (the default, a
few minutes' share of the suite) or ``long`` (``pytest -m fuzz --hypothesis-profile=long``)."""
from __future__ import annotations

import json
import sqlite3
import time
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.datasets import DatasetFormatError, DatasetWarning, load, make_synthetic
from engine.persistence import estimator_from_document, load_estimator
from json_mutations import mutated

pytestmark = pytest.mark.fuzz

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _bound(n_bytes: int) -> float:
    """Seconds an input of ``n_bytes`` may take: a constant for start-up work plus a per-byte share
    (the files here are a few KB; a quadratic or unbounded path exceeds it by far)."""
    return 5.0 + n_bytes * 1e-4


def _timed(call, n_bytes: int):
    start = time.perf_counter()
    try:
        return call()
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < _bound(n_bytes), f"{elapsed:.1f} s for {n_bytes} bytes"


# ----------------------------------------------------------------------------- text mutations
INSERTS = ["{", "}", ",", "'", '"', "\\", "%", "@data", "@attribute", "?", "nan", "1e400", "-C 9", "\x00", ":",
           " ", "\n", "é", "\xff", "1_000", "９", "9" * 30, "<", ">", "&", "<label name='x'/>", "-1", "{0 1}"]


def mutate_text(text: str, data) -> str:
    for _ in range(data.draw(st.integers(1, 3))):
        if not text:
            return text
        kind = data.draw(st.sampled_from(["delete", "insert", "replace", "truncate", "duplicate-line"]))
        i = data.draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            text = text[:i] + text[data.draw(st.integers(i, min(len(text), i + 12))):]
        elif kind == "insert":
            text = text[:i] + data.draw(st.sampled_from(INSERTS)) + text[i:]
        elif kind == "replace":
            text = text[:i] + data.draw(st.characters(max_codepoint=0x2FF)) + text[i + 1:]
        elif kind == "truncate":
            text = text[:i]
        else:
            lines = text.splitlines()
            k = data.draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:k + 1] + lines[k:])
    return text


@st.composite
def tables(draw):
    n, d, k = draw(st.integers(1, 8)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    values = st.floats(-1e6, 1e6, allow_nan=False, width=32).map(lambda v: float(np.float32(v)))
    X = np.array([[draw(values) for _ in range(d)] for _ in range(n)], dtype=np.float32)
    Y = np.array([[draw(st.integers(0, 1)) for _ in range(k)] for _ in range(n)], dtype=np.uint8)
    return X, Y


def arff_text(X, Y, sparse=False, meka=True) -> str:
    d, k = X.shape[1], Y.shape[1]
    lines = ["@relation 'data: -C -%d'" % k if meka else "@relation data"]
    lines += [f"@attribute x{j} numeric" for j in range(d)] + [f"@attribute 'y\\'{j}' {{0,1}}" for j in range(k)]
    lines.append("@data")
    for x, y in zip(X, Y):
        row = [repr(float(v)) for v in x] + [str(int(v)) for v in y]
        lines.append("{" + ", ".join(f"{j} {v}" for j, v in enumerate(row) if float(v) != 0) + "}" if sparse
                     else ",".join(row))
    return "\n".join(lines) + "\n"


def mulan_xml(k: int) -> str:
    labels = "".join(f'<label name="y\\\'{j}"></label>\n' for j in range(k))
    return f'<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n{labels}</labels>\n'


def csv_text(X, Y) -> str:
    header = [f"x{j}" for j in range(X.shape[1])] + [f"y{j}" for j in range(Y.shape[1])]
    rows = [",".join([repr(float(v)) for v in x] + [str(int(v)) for v in y]) for x, y in zip(X, Y)]
    return ",".join(header) + "\n" + "\n".join(rows) + "\n"


def svmlight_text(X, Y) -> str:
    return "\n".join(",".join(str(k) for k in np.flatnonzero(y)) + " " + " ".join(f"{j}:{float(v)!r}" for j, v in
                                                                                 enumerate(x)) for x, y in zip(X, Y)) + "\n"


def _load_checked(path, **kw):
    """Load; a DatasetFormatError with a message is an accepted outcome, any other exception fails."""
    size = path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob("*.xml"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DatasetWarning)
            ds = _timed(lambda: load(path, **kw), size)
    except DatasetFormatError as exc:
        assert str(exc).strip() and "\n" not in exc.problem
        return None
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    assert X.shape[0] == ds.Y.shape[0] and X.shape[1] == len(ds.feature_names) >= 1
    assert np.isfinite(X[~np.isnan(X)]).all()
    # label columns holding other numbers load as real targets (a regression data set): finite reals then
    assert np.isfinite(ds.Y).all() if ds.task == "regression" else set(np.unique(ds.Y)) <= {0, 1}
    assert len(ds.label_names) == ds.Y.shape[1] >= 1
    return ds


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


@FUZZ
@given(tables(), st.data())
def test_fuzz_arff(tmp_path, table, data):
    _load_checked(_write(tmp_path, "f.arff", mutate_text(arff_text(*table), data)))


@FUZZ
@given(tables(), st.data())
def test_fuzz_sparse_arff(tmp_path, table, data):
    _load_checked(_write(tmp_path, "f.arff", mutate_text(arff_text(*table, sparse=True), data)))


@FUZZ
@given(tables(), st.data())
def test_fuzz_svmlight(tmp_path, table, data):
    _load_checked(_write(tmp_path, "f.svm", mutate_text(svmlight_text(*table), data)))


@FUZZ
@given(tables(), st.data())
def test_fuzz_csv(tmp_path, table, data):
    X, Y = table
    _load_checked(_write(tmp_path, "f.csv", mutate_text(csv_text(X, Y), data)),
                  label_columns=[f"y{j}" for j in range(Y.shape[1])])


@FUZZ
@given(tables(), st.data())
def test_fuzz_mulan_xml(tmp_path, table, data):
    X, Y = table
    _write(tmp_path, "f.xml", mutate_text(mulan_xml(Y.shape[1]), data))
    _load_checked(_write(tmp_path, "f.arff", arff_text(X, Y, meka=False)))


# ----------------------------------------------------------------------------- model files
REPLACEMENTS = [None, True, 0, -1, 1, 2, 7, 1000, 999_999, 10 ** 9, -100000, 2 ** 62, 10 ** 30, 0.5, -0.0, 1e30,
                1e308, -1e308, "x", "", [], [1, 2], [[0.5]], {}, {"a": 1}]


@pytest.fixture(scope="module")
def model_documents():
    """A saved model of every registered learner, trained on a small synthetic set."""
    from engine.registry import learners

    data = make_synthetic("conditional-dependence", n_examples=120, seed=0)
    quick = {"boomer": {"max_rules": 6}, "adaboost-mh": {"max_rules": 4}, "seco": {"max_rules": 3},
             "label-ranking": {"max_iterations": 5}, "ml-me": {"n_experts": 2, "max_em_iter": 3},
             "cc-lr": {}}
    docs = {}
    for spec in learners():
        est = spec.make(**quick.get(spec.key, {}))
        docs[spec.key] = est.fit(data.X, data.Y).to_model_dict()
    return docs, data


def _use(est, data):
    """What a loaded model must do: predict (and give finite probabilities) on data of its width."""
    n_features = est.n_features_in_
    X = data.X[:20] if n_features == data.X.shape[1] else np.zeros((5, n_features), np.float32)
    P = est.predict(X)
    assert P.shape == (X.shape[0], est.n_labels_) and set(np.unique(P)) <= {0, 1}
    if hasattr(est, "predict_proba"):
        assert np.isfinite(est.predict_proba(X)).all()


def _model_target(key):
    @FUZZ
    @given(st.data())
    def target(model_documents, tmp_path, data):
        docs, train = model_documents
        if data.draw(st.booleans()):
            doc = mutated(docs[key], data, REPLACEMENTS)
            text = json.dumps(doc)
            load = lambda: estimator_from_document(doc)  # noqa: E731
        else:
            text = mutate_text(json.dumps(docs[key]), data)
            path = _write(tmp_path, "m.json", text)
            load = lambda: load_estimator(path)  # noqa: E731
        try:
            est = _timed(load, len(text))
        except ValueError as exc:
            assert str(exc).strip()
            return
        _timed(lambda: _use(est, train), len(text))
    target.__name__ = f"test_fuzz_model_file_{key.replace('-', '_')}"
    return target


test_fuzz_model_file_boomer = _model_target("boomer")
test_fuzz_model_file_adaboost_mh = _model_target("adaboost-mh")
test_fuzz_model_file_seco = _model_target("seco")
test_fuzz_model_file_label_ranking = _model_target("label-ranking")
test_fuzz_model_file_ml_me = _model_target("ml-me")
test_fuzz_model_file_cc_lr = _model_target("cc-lr")


# ----------------------------------------------------------------------------- session files
def _session_module():
    try:
        from boomer_gui.components import session, state
    except ImportError:  # the package's earlier layout
        from boomer_gui.files import session
        from boomer_gui import state
    return session, state


@pytest.fixture(scope="module")
def session_document():
    from engine import BoomerClassifier
    from engine.registry import get

    session, state = _session_module()
    data = make_synthetic("conditional-dependence", n_examples=150, seed=0)
    est = BoomerClassifier(max_rules=5)
    history = state.RunHistory()
    run = history.new_run("boomer: default", "boomer", est.get_params())
    run.records = list(est.fit_iter(data.X, data.Y))
    run.append(run.records)
    chain = get("cc-lr").make()  # a learner whose steps are not rules: its steps and model in the run
    steps_run = history.new_run("cc-lr", "cc-lr", chain.get_params())
    steps_run.records = list(chain.fit_iter(data.X, data.Y))
    steps_run.append(steps_run.records)
    runs = history.to_list()
    runs[0]["steps"] = state.steps_document(run, True)
    runs[1].update(steps=state.steps_document(steps_run, True), model=chain.to_model_dict())
    n_rules = len(est.rules_)
    return session.Session(state.DataSpec(n_examples=150, n_test=150), "boomer", est.get_params(),
                           est.to_model_dict(), runs, 0, [True] * (n_rules - 1) + [False]).to_dict()


@FUZZ
@given(st.data())
def test_fuzz_session_file(session_document, tmp_path, data):
    session, _ = _session_module()
    if data.draw(st.booleans()):
        text = json.dumps(mutated(session_document, data, REPLACEMENTS + [float("nan")]))
    else:
        text = mutate_text(json.dumps(session_document), data)
    path = _write(tmp_path, "s.json", text)
    try:
        s = _timed(lambda: session.load_session(path), len(text))
    except ValueError as exc:
        assert str(exc).strip()
        return
    s.history()
    assert s.active is None or s.estimator is None or len(s.active) == len(s.estimator.model_.rules)


# ----------------------------------------------------------------------------- evaluation store
def _store(path):
    """A small store as an evaluation run leaves it: one data set, one method, every fold."""
    from engine.evaluation.table1.methods import METHODS
    from engine.evaluation.table1.profiles import PROFILES
    from engine.evaluation.store import ResultStore, TaskResult

    p = PROFILES["smoke"]
    rng = np.random.default_rng(0)
    Y = (rng.random((30, 3)) < 0.4).astype(np.uint8)
    folds = np.array_split(np.arange(30), p.n_folds)
    confs = METHODS["br"].configurations(METHODS["br"].groups(p)[0], p)
    keys = [f"d/br/{f}" for f in range(p.n_folds)]
    with ResultStore(path) as store:
        store.put_dataset("d", "fp", ["d.arff"], Y)
        store.set_meta("run", {"profile": p.as_dict(), "datasets": ["d"], "methods": ["br"], "n_tasks": len(keys),
                               "keys": keys})
        for f, rows in enumerate(folds):
            store.put_task(TaskResult(keys[f], "d", f, p.n_folds, "br", METHODS["br"].groups(p)[0], confs, {}, "v",
                                      1.0, "w", rows, (rng.random((len(confs), len(rows), 3)) < 0.5).astype(np.uint8)))


STORE_CELLS = [("tasks", "predictions"), ("tasks", "test_rows"), ("tasks", "configurations"), ("tasks", "fold"),
               ("tasks", "seconds"), ("tasks", "key"), ("tasks", "grp"), ("datasets", "labels"), ("meta", "value")]


@FUZZ
@given(st.data())
def test_fuzz_evaluation_store(tmp_path, data):
    from engine.evaluation.table1.report import build_report
    from engine.evaluation.store import ResultStore, pack_bits

    path = tmp_path / "s.sqlite"
    path.unlink(missing_ok=True)
    _store(path)
    db = sqlite3.connect(path)
    for _ in range(data.draw(st.integers(1, 3))):
        table, column = data.draw(st.sampled_from(STORE_CELLS))
        values = [None, 0, -1, 7, 2 ** 40, 1.5, "x", "[]", "{}", '{"a": 1}', "[1, 2]", b"", b"\x00" * 9,
                  zlib.compress(b"junk"), zlib.compress(b"[3, 2]\n\x00"), zlib.compress(b"[1000000000, 1000000000]\n"),
                  pack_bits(np.ones((2, 2, 2), np.uint8)), pack_bits(np.ones((30, 3), np.uint8)),
                  json.dumps({"profile": {}, "keys": []})]
        value = data.draw(st.sampled_from(values))
        if isinstance(value, bytes) and data.draw(st.booleans()) and value:
            cut = data.draw(st.integers(0, len(value) - 1))
            value = value[:cut] + bytes([value[cut] ^ 0xFF]) + value[cut + 1:]
        try:
            db.execute(f"UPDATE {table} SET {column}=? WHERE rowid=(SELECT MIN(rowid) FROM {table})", (value,))
        except sqlite3.IntegrityError:  # NULL where the schema forbids it: not a store a run can leave
            pass
    db.commit()
    db.close()
    try:
        with ResultStore(path, readonly=True) as store:
            report = _timed(lambda: build_report(store), path.stat().st_size)
    except ValueError as exc:
        assert str(exc).strip()
        return
    assert set(report.datasets) == {"d"}
