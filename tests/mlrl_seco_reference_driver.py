"""Runs mlrl-seco (the reference) for tests/test_mlrl_seco_parity.py, in the reference's own interpreter.

Imports nothing of this project but ``engine/bench/fit_driver.py``'s reading of the reference's rules
(a plain module, loaded by path).  Usage: ``PY mlrl_seco_reference_driver.py REQUEST.json``; prints one
JSON line.  Requests (``"kind"``):

- ``fit``: ``data`` (an .npz with ``X_train``, ``Y_train``, ``X_test``) and ``settings`` (keyword
  arguments of ``SeCoClassifier``; ``"sparse": true`` passes the training features as a SciPy CSC
  matrix; ``fit_kwargs``: of its ``fit``): answers the binary test predictions, the number of rules
  (the default rule included) and the rules' conditions, head labels and scores; with ``"incremental": true``
  also the predictions of ``predict_incrementally`` after each ``apply_next(1)``;
- ``check``: ``settings`` only; fits a tiny fixed data set and answers ``{"ok": true}`` or the
  error's type and message;
- ``signature``: the ``__init__`` defaults of ``SeCoClassifier``; ``params``: ``SeCoClassifier().get_params()``.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "bench"))
from fit_driver import ALL_OPERATORS, reference_rules  # noqa: E402 - the benchmarks' driver, by path
from mlrl_reference_driver import answer_signature_or_check  # noqa: E402 - beside this file


def main() -> None:
    from mlrl.seco import SeCoClassifier

    request = json.loads(open(sys.argv[1]).read())
    if answer_signature_or_check(SeCoClassifier, request):
        return
    settings = request.get("settings", {})
    data = np.load(request["data"])
    X_train = data["X_train"]
    if request.get("sparse"):
        import scipy.sparse as sp

        X_train = sp.csc_matrix(X_train)
    est = SeCoClassifier(**settings).fit(X_train, data["Y_train"], **request.get("fit_kwargs", {}))
    predictions = est.predict(data["X_test"])
    answer = {"predictions": np.asarray(predictions.toarray() if hasattr(predictions, "toarray")
                                        else predictions).astype(int).tolist(),
              "n_rules": int(est.model_.get_num_rules()),
              "rules": reference_rules(est.model_, ALL_OPERATORS)}
    if request.get("incremental"):  # the predictions of predict_incrementally after each apply_next(1)
        steps = est.predict_incrementally(data["X_test"])
        answer["incremental"] = []
        while steps.has_next():
            P = steps.apply_next(1)
            answer["incremental"].append(np.asarray(P.toarray() if hasattr(P, "toarray") else P).astype(int).tolist())
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
