"""Runs mlrl-boomer (the reference) for tests/test_mlrl_parity.py, in the reference's own interpreter.

Imports nothing of this project but ``engine/bench/fit_driver.py``'s reading of the reference's rules
(a plain module, loaded by path).  Usage: ``PY mlrl_reference_driver.py REQUEST.json``; prints one
JSON line.  Requests (``"kind"``):

- ``fit``: ``data`` (an .npz with ``X_train``, ``Y_train``, ``X_test``, optionally ``sample_weight``; a
  sparse ``X_train`` as CSR parts ``X_train_data``, ``X_train_indices``, ``X_train_indptr``, ``X_train_shape``)
  and ``settings`` (keyword arguments of ``BoomerClassifier``; ``fit_kwargs``: of its ``fit``):
  answers the test scores (``decision_function``), the binary predictions, the number of rules (the default rule included) and the rules' conditions and heads;
  with ``"probabilities": true`` also ``predict_proba`` (or the error it raises), the isotonic
  calibration models' bins (one list per label / label vector, [threshold, value] pairs) and the
  known label vectors (relevant label indices, frequency) in the reference's order; with ``"incremental": n``
  also the scores and predictions of ``*_incrementally`` after each ``apply_next(n)``.
- ``check``: ``settings`` only; fits a tiny fixed data set and answers ``{"ok": true}`` or the
  error's type and message (how the reference treats an invalid value).
- ``signature``: the ``__init__`` defaults of ``BoomerClassifier``; ``params``: ``BoomerClassifier().get_params()``.
"""
import inspect
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "bench"))
from fit_driver import ALL_OPERATORS, reference_rules  # noqa: E402 - the benchmarks' driver, by path


def answer_signature_or_check(learner, request: dict) -> bool:
    """Answer a ``signature`` or ``check`` request about the reference's ``learner`` class (True if
    it was one of them); shared with ``mlrl_seco_reference_driver.py``."""
    kind = request["kind"]
    if kind == "params":  # what a default-made estimator's get_params() gives
        print(json.dumps(learner().get_params()))
        return True
    if kind == "signature":
        sig = inspect.signature(learner.__init__)
        print(json.dumps({n: p.default for n, p in sig.parameters.items() if n != "self"}))
        return True
    if kind == "check":
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 4))
        Y = (rng.random((40, 3)) < 0.4).astype(np.uint8)
        try:
            learner(**request.get("settings", {})).fit(X, Y)
        except Exception as error:  # noqa: BLE001 - the answer is the error
            print(json.dumps({"ok": False, "type": type(error).__name__, "message": str(error)}))
            return True
        print(json.dumps({"ok": True}))
        return True
    return False


def main() -> None:
    from mlrl.boosting import BoomerClassifier

    request = json.loads(open(sys.argv[1]).read())
    if answer_signature_or_check(BoomerClassifier, request):
        return
    settings = request.get("settings", {})
    data = np.load(request["data"])
    fit_kwargs = dict(request.get("fit_kwargs", {}))
    if "sample_weight" in data.files:
        fit_kwargs["sample_weight"] = data["sample_weight"]
    est = BoomerClassifier(**settings).fit(_features(data, "X_train"), data["Y_train"], **fit_kwargs)
    X_test = data["X_test"]
    predictions = est.predict(X_test)
    answer = {"scores": np.asarray(est.decision_function(X_test), dtype=float).tolist(),
              "predictions": np.asarray(predictions.toarray() if hasattr(predictions, "toarray")
                                        else predictions).astype(int).tolist(),
              "n_rules": int(est.model_.get_num_rules()), "n_used_rules": int(est.model_.get_num_used_rules())}
    if request.get("rules"):
        answer["rules"] = reference_rules(est.model_, ALL_OPERATORS + (("ordinal_leq", "<="), ("ordinal_gr", ">")))
    if request.get("incremental"):  # step size: the reference's incremental scores and predictions
        answer["incremental"] = _incremental(est, X_test, int(request["incremental"]))
    if request.get("probabilities"):
        answer.update(_probabilities(est, X_test))
        answer["train_scores"] = np.asarray(est.decision_function(data["X_train"]), dtype=float).tolist()
    print(json.dumps(answer))


def _incremental(est, X_test, step: int) -> dict:
    """``decision_function_incrementally`` and ``predict_incrementally``: the rules at the start and the
    scores and predictions after each ``apply_next(step)``."""
    out = {}
    for key, method in (("scores", est.decision_function_incrementally), ("predictions", est.predict_incrementally)):
        predictor = method(X_test)
        out["num_next"] = int(predictor.get_num_next())
        steps = []
        while predictor.has_next():
            P = predictor.apply_next(step)
            steps.append(np.asarray(P.toarray() if hasattr(P, "toarray") else P, dtype=float).tolist())
        out[key] = steps
    return out


def _features(data, name):
    """``data[name]``, or the CSR matrix of its parts ``name_data``, ``name_indices``, ``name_indptr``,
    ``name_shape``."""
    if f"{name}_data" in data.files:
        from scipy.sparse import csr_matrix
        return csr_matrix((data[f"{name}_data"], data[f"{name}_indices"], data[f"{name}_indptr"]),
                          shape=tuple(data[f"{name}_shape"]))
    return data[name]


def _probabilities(est, X_test) -> dict:
    out = {}
    try:
        out["probabilities"] = np.asarray(est.predict_proba(X_test), dtype=float).tolist()
    except Exception as error:  # noqa: BLE001 - the answer is the error
        out["proba_error"] = {"type": type(error).__name__, "message": str(error)}
    for key in ("marginal_probability_calibration_model_", "joint_probability_calibration_model_"):
        model = getattr(est, key, None)
        if model is not None and hasattr(model, "visit"):
            out[key.rstrip("_")] = [[list(b) for b in bins] for bins in model.__reduce__()[2][1]]
    info = getattr(est, "output_space_info_", None)
    if info is not None and hasattr(info, "visit"):
        vectors = []

        class Visitor:
            def visit_label_vector(self, vector, frequency):
                vectors.append([[int(i) for i in vector], int(frequency)])

        info.visit(Visitor())
        out["label_vectors"] = vectors
    return out


if __name__ == "__main__":
    main()
