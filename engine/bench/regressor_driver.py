"""Runs mlrl-boomer's ``BoomerRegressor`` (the reference) for ``engine.bench.regressor`` and
tests/test_mlrl_parity_regressor.py, in the reference's own interpreter.

Imports nothing of this project but ``fit_driver.py``'s reading of the reference's rules (a plain module of
this folder, loaded by path).  Usage: ``PY regressor_driver.py REQUEST.json``; prints one JSON line.
Requests (``"kind"``):

- ``fit``: ``data`` (an .npz with ``X_train``, ``Y_train``, ``X_test``) and ``settings`` (keyword arguments of
  ``BoomerRegressor``): answers the test predictions, the number of rules and, with ``"rules": true``, the
  rules' conditions and heads; with ``"incremental": n`` the predictions after each ``apply_next(n)``;
  ``fit_seconds``: the fit's wall-clock time.
- ``cv``: ``data`` (an .npz with ``X``, ``Y``, ``folds``: each example's fold) and ``settings``: per fold the
  test predictions and the fit's time.
- ``check``: ``settings`` only; fits a tiny fixed data set and answers ``{"ok": true}`` or the error's type
  and message.
- ``params``: ``BoomerRegressor().get_params()``; ``signature``: its ``__init__`` defaults.
"""
import inspect
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fit_driver import ALL_OPERATORS, reference_rules  # noqa: E402 - the benchmarks' driver, by path


def _check(learner, settings: dict) -> dict:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    Y = X[:, :3] @ rng.normal(size=(3, 3)) + 0.1 * rng.normal(size=(40, 3))
    try:
        learner(**settings).fit(X, Y)
    except Exception as error:  # noqa: BLE001 - the answer is the error
        return {"ok": False, "type": type(error).__name__, "message": str(error)}
    return {"ok": True}


def _fit(learner, request: dict) -> dict:
    data = np.load(request["data"])
    start = time.perf_counter()
    est = learner(**request.get("settings", {})).fit(data["X_train"], data["Y_train"])
    seconds = time.perf_counter() - start
    answer = {"predictions": np.asarray(est.predict(data["X_test"]), dtype=float).tolist(),
              "n_rules": int(est.model_.get_num_rules()), "fit_seconds": seconds}
    if request.get("rules"):
        answer["rules"] = reference_rules(est.model_, ALL_OPERATORS)
    if request.get("incremental"):
        predictor = est.predict_incrementally(data["X_test"])
        steps = []
        while predictor.has_next():
            steps.append(np.asarray(predictor.apply_next(int(request["incremental"])), dtype=float).tolist())
        answer["incremental"] = steps
    return answer


def _cv(learner, request: dict) -> dict:
    data = np.load(request["data"])
    X, Y, folds = data["X"], data["Y"], data["folds"]
    out = []
    for fold in np.unique(folds):
        test = folds == fold
        start = time.perf_counter()
        est = learner(**request.get("settings", {})).fit(X[~test], Y[~test])
        seconds = time.perf_counter() - start
        out.append({"predictions": np.asarray(est.predict(X[test]), dtype=float).tolist(), "fit_seconds": seconds})
    return {"folds": out}


def main() -> None:
    from mlrl.boosting.learners import BoomerRegressor

    request = json.loads(open(sys.argv[1]).read())
    kind = request["kind"]
    if kind == "params":
        answer = BoomerRegressor().get_params()
    elif kind == "signature":
        answer = {n: p.default for n, p in inspect.signature(BoomerRegressor.__init__).parameters.items()
                  if n != "self"}
    elif kind == "check":
        answer = _check(BoomerRegressor, request.get("settings", {}))
    elif kind == "cv":
        answer = _cv(BoomerRegressor, request)
    else:
        answer = _fit(BoomerRegressor, request)
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
