"""Do we learn mlrl-boomer's rules?  Both learners deterministic (no sampling, no binning), the same
data and settings; ours with each ``single_label_choice``.

    python -m engine.bench.rule_parity --reference-python PY [--examples 2000] [--labels 20] [--rules 12]

Data: the scale benchmark's generator (:func:`engine.bench.scale.make_data`).  A rule is the same
when its head label and its conditions (attribute, operator, threshold to 4 significant digits, in
any order) are.  Prints, per choice, how many of the first rules after the default rule are the same
and the first one that is not.  mlrl-boomer is used as a black box through ``fit_driver.py``.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from engine.bench.boomer import run_driver
from engine.bench.scale import make_data
from engine.boomer import SINGLE_LABEL_CHOICES, BoomerClassifier

SETTINGS = dict(loss="logistic-decomposable", head_type="single", shrinkage=0.3, l2_regularization_weight=1.0,
                instance_sampling="none", feature_sampling="none", feature_binning="none", label_binning="none",
                holdout="none", global_pruning="none", random_state=1)


def rule_key(conditions, label) -> tuple:
    """A rule as a comparable value: its label and its sorted (attribute, operator, threshold) triples,
    thresholds to 4 significant digits (the reference stores them in 32 bits)."""
    return label, tuple(sorted((int(j), op, float(f"{t:.4g}")) for j, op, t in conditions))


def ours_keys(rules) -> list:
    return [rule_key([(c.attribute, c.operator, c.threshold) for c in r.conditions], int(r.head_labels[0]))
            for r in rules if r.conditions]


def reference_keys(rules) -> list:
    return [rule_key(r["conditions"], r["labels"][0]) for r in rules if r["conditions"]]


def compare(ours: list, reference: list) -> tuple[int, int | None]:
    """(number of leading rules that are the same, index of the first that is not, or None)."""
    for i, (a, b) in enumerate(zip(ours, reference)):
        if a != b:
            return i, i
    n = min(len(ours), len(reference))
    return n, (None if len(ours) == len(reference) else n)


def run(args) -> int:
    X, Y, _, _ = make_data(args.examples, args.labels)
    settings = {**SETTINGS, "max_rules": args.rules + 1}
    with tempfile.TemporaryDirectory(prefix="boomer-parity-") as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, X_train=X, Y_train=Y, X_test=X[:10])
        answer = run_driver(args.reference_python, "reference", data,
                            {**settings, "rule_pruning": "none", "default_rule": "true", "__rules__": True})
    reference = reference_keys(answer["rules"])
    print(f"{args.examples} examples x {X.shape[1]} attributes, {args.labels} labels, {args.rules} rules after the default "
          f"rule, sampling and binning off; mlrl-boomer {answer['version']}")
    for choice in SINGLE_LABEL_CHOICES:
        ours = ours_keys(BoomerClassifier(**settings, single_label_choice=choice).fit(X, Y).rules_)
        same, first = compare(ours, reference)
        print(f"single_label_choice={choice!r}: the first {same} of {len(reference)} rules are the same")
        if first is not None and first < min(len(ours), len(reference)):
            print(f"  rule {first + 1}: ours {ours[first]}\n  {'':>{len(str(first + 1)) + 6}}"
                  f"reference {reference[first]}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.bench.rule_parity", description=__doc__.splitlines()[0])
    parser.add_argument("--reference-python", required=True, metavar="PY",
                        help="a Python interpreter with mlrl-boomer installed (e.g. 3.12 for 0.15.6)")
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--rules", type=int, default=12)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
