"""Fits one learner in a process of its own, for the benchmarks (``python -m engine bench``, also
``--scale``, and ``python -m engine.bench.seco``).

Usage: ``PY fit_driver.py {ours,reference} DATA.npz SETTINGS.json``.  DATA holds ``X_train``,
``Y_train``, ``X_test`` (dense, or CSR parts ``*_data``/``*_indices``/``*_indptr``/``*_shape``);
SETTINGS is the estimator's keyword arguments, mlrl-boomer's names (ours takes the same), plus
``"__learner__": "seco"`` for mlrl-seco's ``SeCo`` instead of ``Boomer``, ``"__warm_up__": true``
to fit 3 rules on the same data first (loading or compiling code is not part of fitting; our kernel
family depends on the number of examples, so a smaller warm-up could leave the fit's own to compile) and
``"__rules__": true`` to add the reference's rules (numeric conditions and heads; see
:func:`reference_rules`), ``"__staged__": true`` (ours only; DATA holds ``Y_test``) to add the time
at which each rule was learned and the test losses after it (:func:`staged_test_losses`).  Prints
one JSON line: the fit time measured here, the process's peak resident memory (MiB, data included),
the test predictions (packed bits, with their shape) and the learner's version.  ``reference``
imports nothing of this project: it runs in mlrl-boomer's interpreter (Python >= 3.12)."""
import json
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp


def peak_resident_mib() -> float:
    """This process's peak resident memory in MiB: Linux's ``VmHWM``, the high-water mark of this
    program's own address space.  ``ru_maxrss`` is not that: Linux carries it over ``execve``, so a
    driver started from a larger process (the benchmark holding 983 labels of data) reported its parent's
    size.  ``ru_maxrss`` only where there is no ``/proc``."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


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
    from importlib import metadata

    name = "mlrl-seco" if learner == "seco" else "mlrl-boomer"
    return Estimator(**settings), getattr(package, "__version__", None) or metadata.version(name)


NUMERIC_OPERATORS = (("numerical_leq", "<="), ("numerical_gr", ">"))
ALL_OPERATORS = NUMERIC_OPERATORS + (("nominal_eq", "=="), ("nominal_neq", "!="))


def reference_rules(model, operators=NUMERIC_OPERATORS) -> list:
    """mlrl-boomer's rules as plain data: [{"conditions": [[attribute, "<=" or ">", threshold], ...],
    "labels": [...] or None (all), "scores": [...]}, ...], through its documented model API
    (``operators``: which of its condition kinds to read, by their attribute names)."""
    rules = []
    for rule in model:
        body, head = rule.body, rule.head
        conditions = []
        for name, operator in operators:
            indices = getattr(body, f"{name}_indices", None)
            thresholds = getattr(body, f"{name}_thresholds", None)
            if indices is not None:
                conditions += [[int(j), operator, float(t)] for j, t in zip(indices, thresholds)]
        labels = getattr(head, "indices", None)
        rules.append({"conditions": conditions, "labels": None if labels is None else [int(k) for k in labels],
                      "scores": [float(v) for v in head.scores]})
    return rules


def staged_test_losses(model, X_test, Y_test) -> tuple[list, list]:
    """Test Hamming and subset 0/1 loss after each of ``model``'s rules (the default rule first),
    predicted as the model predicts (eq. 2, then its predictor), adding one rule's head at a time."""
    from engine import metrics
    from engine.model import rule_coverage

    Y_test = np.asarray(Y_test)
    scores = np.zeros(Y_test.shape)
    hamming, subset = [], []
    for rule in model.rules:
        covered = rule_coverage(rule, X_test)
        scores[np.ix_(covered, rule.head_labels)] += rule.head_scores
        predictions = model.predict_from_scores(scores)
        hamming.append(float(metrics.hamming_loss(Y_test, predictions)))
        subset.append(float(metrics.subset_zero_one_loss(Y_test, predictions)))
    return hamming, subset


def main():
    which, data_path, settings_path = sys.argv[1:4]
    data = np.load(data_path)
    settings = json.loads(open(settings_path).read())
    learner = settings.pop("__learner__", "boomer")
    warm_up = settings.pop("__warm_up__", False)
    with_rules = settings.pop("__rules__", False)
    staged = settings.pop("__staged__", False) and which == "ours"
    X_train, X_test, Y_train = _matrix(data, "X_train"), _matrix(data, "X_test"), data["Y_train"]
    if warm_up:
        _estimator(which, learner, {**settings, "max_rules": 3})[0].fit(X_train, Y_train)
    estimator, version = _estimator(which, learner, settings)
    start = time.perf_counter()
    if staged:  # the time at which each rule arrived (fit() runs the same generator)
        rule_seconds = []
        for record in estimator.fit_iter(X_train, Y_train):
            rule_seconds += [time.perf_counter() - start] * len(record.rules)
    else:
        estimator.fit(X_train, Y_train)
    seconds = time.perf_counter() - start
    predictions = estimator.predict(X_test)
    predictions = predictions.toarray() if sp.issparse(predictions) else np.asarray(predictions)
    peak_mib = peak_resident_mib()
    answer = {"fit_seconds": seconds, "peak_mib": peak_mib, "shape": list(predictions.shape),
              "predictions": np.packbits(predictions > 0, axis=1).tolist(), "version": version}
    if staged:
        answer["rule_seconds"] = rule_seconds
        answer["test_hamming"], answer["test_subset"] = staged_test_losses(estimator.model_, X_test,
                                                                           data["Y_test"])
    if with_rules and which == "reference":
        answer["rules"] = reference_rules(estimator.model_)
        used = getattr(estimator.model_, "get_num_used_rules", None)  # post-pruning keeps a prefix
        if used is not None and used():
            answer["used_rules"] = int(used())
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
