"""Runs mlrl-boomer (the reference) for tests/test_mlrl_parity.py, in the reference's own interpreter.

Imports nothing of this project but ``engine/bench/fit_driver.py``'s reading of the reference's rules
(a plain module, loaded by path).  Usage: ``PY mlrl_reference_driver.py REQUEST.json``; prints one
JSON line.  Requests (``"kind"``):

- ``fit``: ``data`` (an .npz with ``X_train``, ``Y_train``, ``X_test``) and ``settings`` (keyword
  arguments of ``BoomerClassifier``): answers the test scores (``decision_function``), the binary
  predictions, the number of rules (the default rule included) and the rules' conditions and heads.
- ``check``: ``settings`` only; fits a tiny fixed data set and answers ``{"ok": true}`` or the
  error's type and message (how the reference treats an invalid value).
- ``signature``: the ``__init__`` defaults of ``BoomerClassifier``.
"""
import inspect
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "bench"))
from fit_driver import ALL_OPERATORS, reference_rules  # noqa: E402 - the benchmarks' driver, by path


def main() -> None:
    from mlrl.boosting import BoomerClassifier

    request = json.loads(open(sys.argv[1]).read())
    kind = request["kind"]
    if kind == "signature":
        sig = inspect.signature(BoomerClassifier.__init__)
        print(json.dumps({n: p.default for n, p in sig.parameters.items() if n != "self"}))
        return
    settings = request.get("settings", {})
    if kind == "check":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 4))
        Y = (rng.random((40, 3)) < 0.4).astype(np.uint8)
        try:
            BoomerClassifier(**settings).fit(X, Y)
        except Exception as error:  # noqa: BLE001 - the answer is the error
            print(json.dumps({"ok": False, "type": type(error).__name__, "message": str(error)}))
            return
        print(json.dumps({"ok": True}))
        return
    data = np.load(request["data"])
    est = BoomerClassifier(**settings).fit(data["X_train"], data["Y_train"])
    X_test = data["X_test"]
    predictions = est.predict(X_test)
    answer = {"scores": np.asarray(est.decision_function(X_test), dtype=float).tolist(),
              "predictions": np.asarray(predictions.toarray() if hasattr(predictions, "toarray")
                                        else predictions).astype(int).tolist(),
              "n_rules": int(est.model_.get_num_rules()), "n_used_rules": int(est.model_.get_num_used_rules())}
    if request.get("rules"):
        answer["rules"] = reference_rules(est.model_, ALL_OPERATORS)
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
