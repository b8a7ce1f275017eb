"""Fits one learner for ``python -m engine bench --scale`` in a fresh process, so that its time and
peak memory are its own.

Usage: ``PY scale_driver.py {ours,reference} DATA.npz SETTINGS.json``.  DATA holds ``X_train``,
``Y_train``, ``X_test``; SETTINGS the estimator's keyword arguments (mlrl-boomer's names; ours
takes the same).  Prints one JSON line: fit seconds, peak resident memory (MiB, the whole process),
the test predictions (packed bits) and the learner's version.  ``reference`` imports nothing of
this project (it runs in mlrl-boomer's interpreter)."""
import json
import resource
import sys
import time

import numpy as np


def _reference_estimator(settings):
    from mlrl.boosting import Boomer

    return Boomer(**settings), "mlrl-boomer"


def _our_estimator(settings):
    from engine import BoomerClassifier

    known = set(BoomerClassifier._get_param_names())
    return BoomerClassifier(**{k: v for k, v in settings.items() if k in known}), "ours"


def main():
    which, data_path, settings_path = sys.argv[1:4]
    data = np.load(data_path)
    settings = json.loads(open(settings_path).read())
    estimator, name = (_our_estimator if which == "ours" else _reference_estimator)(settings)
    X_train, Y_train, X_test = data["X_train"], data["Y_train"], data["X_test"]
    # load compiled code first (Numba's cache, the reference's libraries): not part of fitting
    warm, _ = (_our_estimator if which == "ours" else _reference_estimator)({**settings, "max_rules": 3})
    warm.fit(X_train[:300], Y_train[:300])
    start = time.perf_counter()
    estimator.fit(X_train, Y_train)
    seconds = time.perf_counter() - start
    predictions = estimator.predict(X_test)
    predictions = predictions.toarray() if hasattr(predictions, "toarray") else np.asarray(predictions)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    packed = np.packbits(predictions.astype(np.uint8) > 0, axis=1)
    print(json.dumps({"fit_seconds": seconds, "peak_mib": peak_mib, "shape": list(predictions.shape),
                      "predictions": packed.tolist(), "learner": name}))


if __name__ == "__main__":
    main()
