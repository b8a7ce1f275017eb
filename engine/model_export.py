"""A rule model as plain Python (one ``.py`` file needing only the standard library) and as readable
text (IF … THEN …) for reports.

The exported file is :mod:`engine.standalone`'s source followed by the model as a literal; it
predicts as the engine does (see that module).  :func:`model_literal` is the model in that form."""
from __future__ import annotations

from pathlib import Path

from .core.label_vectors import SEARCH_BUDGET, label_vector_keys
from .fileio import atomic_write_text
from .model import RuleModel
from .predictors import EXACT_TIES_BUDGET
from .rules import OP_CODES, Rule, Schema

_RUNTIME = Path(__file__).with_name("standalone.py")


def rule_model_of(obj) -> RuleModel:
    """The rule model of a fitted estimator (or the model itself); ValueError for anything else."""
    model = obj if isinstance(obj, RuleModel) else getattr(obj, "model_", None)
    if not isinstance(model, RuleModel):
        raise ValueError(f"{type(obj).__name__} has no rule model to export (only rule learners: BOOMER, "
                         "AdaBoost.MH rules, SeCo)")
    return model


def _predictors_literal(model: RuleModel) -> dict | None:
    p = model.predictors
    if p is None:
        return None

    def lists(calibration):
        if calibration is None:
            return None
        return [[[float(t), float(v)] for t, v in zip(ts, vs)] for ts, vs in zip(calibration.thresholds,
                                                                                 calibration.values)]

    vectors = [] if p.vectors is None else [[int(y) for y in row] for row in p.vectors]
    return {"loss": p.loss, "binary": p.binary, "based_on_probabilities": bool(p.based_on_probabilities),
            "binary_calibrated": bool(p.binary_calibrated), "probability": p.probability,
            "probability_calibrated": bool(p.probability_calibrated), "label_vectors": vectors,
            "frequencies": [] if p.frequencies is None else [int(f) for f in p.frequencies],
            "marginal_calibration": lists(p.marginal), "joint_calibration": lists(p.joint),
            "exact_ties_budget": EXACT_TIES_BUDGET}


def model_literal(obj) -> dict:
    """The model as plain Python values (the ``MODEL`` of an exported file)."""
    model = rule_model_of(obj)
    schema = model.schema or Schema()
    rules = [[[(int(c.attribute), OP_CODES[c.operator], float(c.threshold)) for c in r.conditions],
              [int(k) for k in r.head_labels], [float(s) for s in r.head_scores]] for r in model.rules]
    vectors = None if model.label_vectors is None else [[int(y) for y in row] for row in model.label_vectors]
    return {
        "n_features": int(model.n_features), "n_labels": int(model.n_labels), "prediction": model.prediction,
        "loss": model.loss, "rules": rules, "label_vectors": vectors,
        "vector_keys": [int(k) for k in label_vector_keys(model.n_labels)] if vectors is not None else None,
        "search_budget": SEARCH_BUDGET, "predictors": _predictors_literal(model),
        "feature_names": [schema.feature(j) for j in range(model.n_features)],
        "label_names": [schema.label(k) for k in range(model.n_labels)],
    }


def _literal_text(d: dict) -> str:
    """``d`` as Python source, one rule per line (floats by ``repr``: they read back exactly)."""
    lines = ["{"]
    for key, value in d.items():
        if key == "rules":
            lines.append(f"    {key!r}: [")
            lines.extend(f"        {rule!r}," for rule in value)
            lines.append("    ],")
        else:
            lines.append(f"    {key!r}: {value!r},")
    lines.append("}")
    return "\n".join(lines)


_MAIN = '''

if __name__ == "__main__":  # rows as JSON on standard input, predictions as JSON on standard output
    import json

    _main_what = sys.argv[1] if len(sys.argv) > 1 else "predict"
    _main_functions = {"predict": predict, "decision_function": decision_function, "predict_proba": predict_proba}
    if _main_what not in _main_functions:
        sys.exit(f"usage: python {sys.argv[0]} [predict|decision_function|predict_proba] < rows.json")
    json.dump(_main_functions[_main_what](json.load(sys.stdin)), sys.stdout)
'''


def python_source(obj, source: str = "") -> str:
    """The text of the exported ``.py`` file."""
    model = rule_model_of(obj)
    literal = model_literal(model)
    runtime = _RUNTIME.read_text(encoding="utf-8")
    probabilities = "predict_proba, " if _has_probabilities(model) else ""
    header = (f'"""A {model.prediction} rule model of {len(model.rules)} rules, {model.n_features} attributes and '
              f'{model.n_labels} labels{", exported from " + source if source else ""}.\n\n'
              f"Plain Python (the standard library; NumPy is used when importable): predict(X), "
              f"decision_function(X), {probabilities}with X a list of rows (each a list of {model.n_features} "
              "attribute values, None or NaN for a missing one, or a dict {attribute index: value}). Generated "
              'by python -m engine export; the prediction code follows, then the model."""\n')
    body = runtime.split('"""', 2)[2].lstrip("\n")  # the runtime without its own docstring
    return (header + "import sys\n" + body + "\n\nMODEL = " + _literal_text(literal) + "\n" + _MAIN)


def _has_probabilities(model: RuleModel) -> bool:
    if model.prediction == "decision-list":
        return False
    return model.predictors is None or model.predictors.loss.startswith("logistic")


def write_python(obj, path, source: str = "") -> None:
    atomic_write_text(path, python_source(obj, source))


# -- the readable text form ----------------------------------------------------------------------
def _number(x: float) -> str:
    return f"{x:.6g}"


def condition_text(rule_condition, schema: Schema) -> str:
    c = rule_condition
    name = schema.feature(c.attribute)
    if c.operator in ("==", "!="):
        return f"{name} {'=' if c.operator == '==' else '≠'} {schema.value(c.attribute, c.threshold)}"
    return f"{name} {c.operator} {_number(c.threshold)}"


def rule_text(rule: Rule, schema: Schema, decision_list: bool = False) -> str:
    """``IF a <= 1 AND b = x THEN happy +0.83, sad -0.21`` (a decision list: ``THEN happy, NOT sad``)."""
    if decision_list:
        head = ", ".join(("" if s > 0 else "NOT ") + schema.label(int(k)) for k, s in zip(rule.head_labels,
                                                                                         rule.head_scores))
    else:
        head = ", ".join(f"{schema.label(int(k))} {s:+.4g}" for k, s in zip(rule.head_labels, rule.head_scores))
    if not rule.conditions:
        return f"ALWAYS {head}" if not decision_list else f"OTHERWISE {head}"
    return "IF " + " AND ".join(condition_text(c, schema) for c in rule.conditions) + f" THEN {head}"


def _how_text(model: RuleModel) -> str:
    if model.prediction == "decision-list":
        return ("A decision list: each label takes the value of the first rule (in order) that covers the example "
                "and names the label; labels no covering rule names are absent.")
    how = "Scores: per label, the sum of the heads of every rule covering the example."
    p = model.predictors
    if p is not None and (p.binary == "gfm" or p.based_on_probabilities):
        return how + f" Prediction: mlrl-boomer's {p.binary} predictor based on probabilities."
    if model.prediction == "example-wise" or (p is not None and p.binary == "example-wise"):
        return how + (" Prediction: the label vector seen in training whose example-wise "
                      f"{model.loss} loss of the scores is smallest.")
    return how + " Prediction: a label is relevant when its score is positive."


def model_text(obj) -> str:
    """The whole model as text: how it predicts, then one numbered rule per line."""
    model = rule_model_of(obj)
    schema = model.schema or Schema()
    lines = [f"Rule model: {len(model.rules)} rules, {model.n_features} attributes, {model.n_labels} labels "
             f"({', '.join(schema.label(k) for k in range(min(model.n_labels, 20)))}"
             f"{', …' if model.n_labels > 20 else ''}).", _how_text(model),
             "A missing attribute value satisfies no condition.", ""]
    width = len(str(len(model.rules)))
    decision_list = model.prediction == "decision-list"
    lines.extend(f"{i + 1:>{width}}. {rule_text(r, schema, decision_list)}" for i, r in enumerate(model.rules))
    return "\n".join(lines) + "\n"


def write_text(obj, path) -> None:
    atomic_write_text(path, model_text(obj))


__all__ = ["model_literal", "python_source", "write_python", "model_text", "rule_text", "write_text",
           "rule_model_of"]
