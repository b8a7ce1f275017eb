"""Runs mlrl-boomer (the authors' reference) in its own interpreter for ``python -m engine bench``.

Usage: ``PY reference_driver.py DATA.npz SETTINGS.json``.  DATA holds ``X_train``, ``Y_train``,
``X_test`` (dense, or CSR parts ``*_data``/``*_indices``/``*_indptr``/``*_shape``); SETTINGS is the
estimator's keyword arguments (``"__learner__": "seco"`` fits mlrl-seco's ``SeCo`` instead of
``Boomer``).  Prints one JSON line: the fit time measured here (seconds) and the
test predictions.  Self-contained on purpose: it imports nothing of this project."""
import json
import sys
import time

import numpy as np
import scipy.sparse as sp


def _matrix(data, name):
    if f"{name}_data" in data:
        return sp.csr_matrix((data[f"{name}_data"], data[f"{name}_indices"], data[f"{name}_indptr"]),
                             shape=tuple(data[f"{name}_shape"]))
    return data[name]


def main():
    data = np.load(sys.argv[1])
    settings = json.loads(open(sys.argv[2]).read())
    learner = settings.pop("__learner__", "boomer")
    if learner == "seco":
        from mlrl.seco import SeCo as Estimator
        import mlrl.seco as package
    else:
        from mlrl.boosting import Boomer as Estimator
        import mlrl.boosting as package

    estimator = Estimator(**settings)
    X_train, X_test = _matrix(data, "X_train"), _matrix(data, "X_test")
    start = time.perf_counter()
    estimator.fit(X_train, data["Y_train"])
    seconds = time.perf_counter() - start
    predictions = estimator.predict(X_test)
    predictions = predictions.toarray() if sp.issparse(predictions) else np.asarray(predictions)
    version = getattr(package, "__version__", None)
    print(json.dumps({"fit_seconds": seconds, "predictions": predictions.astype(int).tolist(), "version": version}))


if __name__ == "__main__":
    main()
