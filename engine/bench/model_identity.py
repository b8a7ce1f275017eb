"""Model identity across refactorings: fit BOOMER (and SeCo) on two small data sets under ten settings each
and write everything a model is (every streamed step's rule, improvement and tracked errors, the stop reason,
test predictions and probabilities) to JSON, floats as ``float.hex`` so that a comparison is bit for bit.

    python -m engine.bench.model_identity write /tmp/identity_before [--learner boomer|seco] [--rules 150] [--only a,b]
    python -m engine.bench.model_identity compare /tmp/identity_before /tmp/identity_after

``compare`` exits with status 1 and names the first difference of every setting that differs.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

EMOTIONS = Path("/work/shared/data/emotions.arff")

# ten settings among the kernel families that compile in reasonable time; together they walk the default
# fused kernel, example-wise statistics, label binning (both scopes), partial heads, instance, feature and
# output sampling, weighted draws, the induction module (beam, IREP), feature binning, holdout, global
# pruning, calibration and sequential post-optimization
BOOMER_SETTINGS = {
    "defaults": {},
    "single-bagging-pre-pruning": {"head_type": "single", "instance_sampling": "with-replacement",
                                   "global_pruning": "pre-pruning", "statistic_type": "64-bit"},
    "examplewise-binned": {"loss": "logistic-non-decomposable", "feature_sampling": "none"},
    "examplewise-rule-bins": {"loss": "logistic-non-decomposable", "label_binning_scope": "rule",
                              "instance_sampling": "without-replacement{sample_size=0.7}"},
    "partial-dynamic-stratified": {"head_type": "partial-dynamic",
                                   "instance_sampling": "stratified-output-wise{sample_size=0.6}",
                                   "label_binning": "none"},
    "output-sampling": {"output_sampling": "round-robin", "head_type": "single"},
    "post-optimization": {"post_optimization": "sequential{num_iterations=2,refine_heads=true}",
                          "instance_sampling": "with-replacement{sample_size=0.5}"},
    "beam-irep": {"rule_induction": "top-down-beam-search{beam_width=3}", "rule_pruning": "irep",
                  "instance_sampling": "without-replacement{sample_size=0.66}", "max_conditions": None},
    "post-pruning-calibrated": {"global_pruning": "post-pruning", "holdout": "auto",
                                "marginal_probability_calibration": "isotonic", "head_type": "partial-fixed"},
    "binned-features-squared": {"loss": "squared-error-decomposable", "feature_binning": "equal-width",
                                "statistic_type": "64-bit", "shrinkage": 0.5, "l1_regularization_weight": 0.1},
}

# SeCo: mlrl-seco's covering loop (greedy and beam, single and partial heads, the heuristics, sampling,
# holdout, binning, IREP or none, post-optimization) and the PAKDD 2018 search
SECO_SETTINGS = {
    "defaults": {},
    "partial-kln-laplace": {"head_type": "partial", "lift_function": "kln", "heuristic": "laplace"},
    "beam-m-estimate": {"rule_induction": "top-down-beam-search{beam_width=3}", "heuristic": "m-estimate"},
    "no-pruning-wra": {"rule_pruning": "none", "heuristic": "weighted-relative-accuracy",
                       "instance_sampling": "none"},
    "sampled-features-outputs": {"feature_sampling": "without-replacement", "output_sampling": "round-robin"},
    "holdout-binned": {"holdout": "random", "feature_binning": "equal-width"},
    "post-optimization": {"post_optimization": "sequential{num_iterations=1}", "head_type": "partial"},
    "bagging-precision": {"instance_sampling": "with-replacement{sample_size=0.7}", "heuristic": "precision",
                          "rule_induction": "top-down-greedy{max_conditions=3,min_coverage=5}"},
    "pakdd-subset": {"search": "pakdd-2018{heuristic=subset-accuracy}"},
    "pakdd-f-measure-exhaustive": {"search": "pakdd-2018{heuristic=f-measure,head_search=exhaustive}",
                                   "rule_induction": "top-down-greedy{min_coverage=10}"},
}


def _hex(value) -> object:
    if value is None:
        return None
    value = float(value)
    return "nan" if math.isnan(value) else value.hex()


def _rule(rule) -> dict:
    return {"conditions": [[int(c.attribute), str(c.operator), _hex(c.threshold)] for c in rule.conditions],
            "labels": [int(k) for k in rule.head_labels], "scores": [_hex(s) for s in rule.head_scores]}


def _step(step) -> dict:
    out = {"kind": getattr(step, "kind", "rule")}
    for name in ("index", "revises", "iteration", "coverage"):
        if hasattr(step, name):
            out[name] = int(getattr(step, name))
    for name in ("improvement", "train_hamming", "train_subset", "test_hamming", "test_subset"):
        out[name] = _hex(getattr(step, name, None))
    out["extra"] = {k: _hex(v) for k, v in sorted(dict(getattr(step, "extra", {}) or {}).items())}
    out["rule"] = _rule(step.rule)
    return out


def _array(values) -> list:
    values = np.asarray(values.toarray() if hasattr(values, "toarray") else values, dtype=np.float64)
    return [v.hex() for v in values.ravel().tolist()] + [list(values.shape)]


def datasets() -> dict:
    """Two (train, test) pairs: emotions cut 2/3 : 1/3, and a synthetic set with sample weights."""
    from engine.datasets import load, make_synthetic

    emotions = load(EMOTIONS)
    X, Y = emotions.X, np.asarray(emotions.Y)
    cut = (2 * X.shape[0]) // 3
    synthetic = make_synthetic("conditional-dependence", n_examples=450, n_labels=5, seed=3)
    Xs, Ys = np.asarray(synthetic.X), np.asarray(synthetic.Y)
    weights = np.random.default_rng(7).integers(0, 3, size=300).astype(np.float64)
    return {"emotions": (X[:cut], Y[:cut], X[cut:], Y[cut:], None),
            "synthetic": (Xs[:300], Ys[:300], Xs[300:], Ys[300:], weights)}


def fit_one(cls, params: dict, data, weights_ok: bool) -> dict:
    X, Y, Xt, Yt, weights = data
    est = cls(**params)
    kwargs = {"sample_weight": weights} if weights is not None and weights_ok else {}
    steps = [_step(step) for step in est.fit_iter(X, Y, X_test=Xt, Y_test=Yt, **kwargs)]
    out = {"steps": steps, "stop_reason": getattr(est, "stop_reason_", None),
           "selected_steps": getattr(est, "selected_steps_", None),
           "model": [_rule(rule) for rule in est.rules_], "predict": _array(est.predict(Xt))}
    try:
        out["predict_proba"] = _array(est.predict_proba(Xt))
    except (AttributeError, ValueError) as error:
        out["predict_proba"] = f"unavailable: {type(error).__name__}"
    return out


def write(folder: Path, learner: str, rules: int, only: str | None = None) -> None:
    if learner == "boomer":
        from engine.boomer import BoomerClassifier as cls
        settings, budget, weights_ok = BOOMER_SETTINGS, {"max_rules": rules}, True
    else:
        from engine.seco import SeCoClassifier as cls
        settings, budget, weights_ok = SECO_SETTINGS, {"max_rules": rules}, False
    folder.mkdir(parents=True, exist_ok=True)
    for data_name, data in datasets().items():
        for name, params in settings.items():
            if only and name not in only.split(","):
                continue
            path = folder / f"{learner}-{data_name}-{name}.json"
            result = fit_one(cls, {**budget, **params}, data, weights_ok)
            path.write_text(json.dumps(result, indent=0))
            print(f"{path.name}: {len(result['steps'])} steps, stop {result['stop_reason']}", flush=True)


def compare(before: Path, after: Path) -> int:
    names = sorted(p.name for p in before.glob("*.json"))
    bad = 0
    for name in names:
        other = after / name
        if not other.exists():
            print(f"{name}: missing in {after}")
            bad += 1
            continue
        a, b = json.loads((before / name).read_text()), json.loads(other.read_text())
        if a != b:
            bad += 1
            print(f"{name}: DIFFERS ({_first_difference(a, b)})")
    print(f"{len(names) - bad} of {len(names)} identical")
    return 1 if bad or not names else 0


def _first_difference(a, b, path="") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} != {b!r}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("folder", type=Path)
    w.add_argument("--learner", choices=("boomer", "seco"), default="boomer")
    w.add_argument("--rules", type=int, default=150)
    w.add_argument("--only", help="comma-separated setting names (default: all)")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        write(args.folder, args.learner, args.rules, args.only)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
