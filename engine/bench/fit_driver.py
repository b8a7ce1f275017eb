"""Fits one learner in a process of its own, for the benchmarks (``python -m engine bench``, also
``--scale``, and ``python -m engine.bench.seco``).

Usage: ``PY fit_driver.py {ours,reference} DATA.npz SETTINGS.json``.  DATA holds ``X_train``,
``Y_train``, ``X_test`` (dense, or CSR parts ``*_data``/``*_indices``/``*_indptr``/``*_shape``);
SETTINGS is the estimator's keyword arguments, mlrl-boomer's names (ours takes the same), plus
``"__learner__": "seco"`` for mlrl-seco's ``SeCo`` instead of ``Boomer`` and ``"__warm_up__": true``
to fit 3 rules on 300 examples first (loading compiled code is not part of fitting).  Prints one JSON
line: the fit time measured here, the process's peak resident memory (MiB, data included), the test
predictions (packed bits, with their shape) and the learner's version.  ``reference`` imports
nothing of this project: it runs in mlrl-boomer's interpreter (Python >= 3.12)."""
import json
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp


def _matrix(data, name):
    if f"{name}_data" in data:
        return sp.csr_matrix((data[f"{name}_data"], data[f"{name}_indices"], data[f"{name}_indptr"]),
                             shape=tuple(data[f"{name}_shape"]))
    return data[name]


def _estimator(which, learner, settings):
    """(estimator, version) of ours or the reference's ``learner`` ('boomer' or 'seco')."""
    if which == "ours":
        import engine
        from engine import BoomerClassifier

        known = set(BoomerClassifier._get_param_names())
        return BoomerClassifier(**{k: v for k, v in settings.items() if k in known}), getattr(engine, "__version__",
                                                                                                "ours")
    if learner == "seco":
        import mlrl.seco as package
        from mlrl.seco import SeCo as Estimator
    else:
        import mlrl.boosting as package
        from mlrl.boosting import Boomer as Estimator
    return Estimator(**settings), getattr(package, "__version__", None)


def main():
    which, data_path, settings_path = sys.argv[1:4]
    data = np.load(data_path)
    settings = json.loads(open(settings_path).read())
    learner = settings.pop("__learner__", "boomer")
    warm_up = settings.pop("__warm_up__", False)
    X_train, X_test, Y_train = _matrix(data, "X_train"), _matrix(data, "X_test"), data["Y_train"]
    if warm_up:
        _estimator(which, learner, {**settings, "max_rules": 3})[0].fit(X_train[:300], Y_train[:300])
    estimator, version = _estimator(which, learner, settings)
    start = time.perf_counter()
    estimator.fit(X_train, Y_train)
    seconds = time.perf_counter() - start
    predictions = estimator.predict(X_test)
    predictions = predictions.toarray() if sp.issparse(predictions) else np.asarray(predictions)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"fit_seconds": seconds, "peak_mib": peak_mib, "shape": list(predictions.shape),
                      "predictions": np.packbits(predictions > 0, axis=1).tolist(), "version": version}))


if __name__ == "__main__":
    main()
