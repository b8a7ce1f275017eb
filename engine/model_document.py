"""Checks of untrusted model documents (JSON model files are user input).

Every index, shape, type and value a Numba kernel will later rely on is checked here, once, at
load time; the kernels' hot loops check nothing.  Every problem is one :class:`ValueError`
naming the rule and the field, e.g. ``"rule 17: head label 1000 out of range (6 labels)"``.

What a file can ask for is bounded, so a small file never causes large work:

* every count that sets work per prediction is bounded by what a real model could need: the
  learners' parameters have declared maxima (e.g. ML-ME's ``sa_iterations`` at most 10,000, the
  paper uses 150);
* every number is finite and at most ``MAX_MAGNITUDE`` in absolute value (about the float32
  range the attributes have), so sums and products of weights stay finite: no NaN predictions;
* the sizes that set the work of a prediction (``n_labels``, the number of rules, experts and
  coefficients) are proportional to the file's own size: every label a model predicts appears in
  it (a rule model's default rule covers every label; the other learners store per-label
  coefficients), and :func:`engine.persistence.estimator_from_document` refuses a rule model whose
  ``n_labels`` no rule, label vector or label name accounts for."""
from __future__ import annotations

import json
import math
from typing import Any, Mapping

import numpy as np

# Far beyond any real data set, small enough that nothing allocated from them exhausts memory.
MAX_FEATURES = 10_000_000
MAX_LABELS = 1_000_000
MAX_LABEL_VECTOR_ENTRIES = 200_000_000
MAX_MODEL_FILE_BYTES = 2 * 1024 ** 3
MAX_MAGNITUDE = 1e39  # beyond every float32 value (±3.4e38); sums of such weights stay finite in float64


def parse_json(text: str, name: str, kind: str = "file of this tool") -> Any:
    """``json.loads`` that rejects NaN/Infinity and turns every failure into a ValueError naming
    the file ``name`` (and saying it is not a ``kind``)."""
    def constant(value):
        raise ValueError(f"{name}: {value} is not a number JSON allows")

    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not a {kind} (invalid JSON at line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{name}: not a {kind} (nested too deeply)") from None


def mapping(value, field: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ValueError(f"{field}: expected an object, found {_kind(value)}")
    return value


def sequence(value, field: str, max_length: int | None = None) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{field}: expected a list, found {_kind(value)}")
    if max_length is not None and len(value) > max_length:
        raise ValueError(f"{field}: {len(value)} entries, at most {max_length} allowed")
    return value


def integer(value, field: str, low: int, high: int) -> int:
    """An int (JSON integer, or a float with an integral value) in ``[low, high)``; bools refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{field}: expected an integer, found {_kind(value)}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise ValueError(f"{field}: expected an integer, found {value!r}")
    value = int(value)
    if not low <= value < high:
        raise ValueError(f"{field}: {value} out of range [{low}, {high})")
    return value


def number(value, field: str) -> float:
    """A finite float; bools, strings and NaN/infinity refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{field}: expected a number, found {_kind(value)}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{field}: number too large") from None
    if not math.isfinite(value):
        raise ValueError(f"{field}: {value} is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"{field}: {value:g} is beyond ±{MAX_MAGNITUDE:g}, more than any model holds")
    return value


def string(value, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{field}: expected a string, found {_kind(value)}")
    return value


def choice(value, field: str, choices) -> Any:
    if not isinstance(value, (str, type(None))) or value not in choices:
        raise ValueError(f"{field}: {value!r} is not one of {', '.join(map(repr, choices))}")
    return value


def strings(value, field: str, length: int | None = None) -> tuple[str, ...]:
    """A list of strings, empty or of exactly ``length`` entries."""
    items = sequence(value, field, max_length=max(length or 0, 0) if length is not None else None)
    if length is not None and items and len(items) != length:
        raise ValueError(f"{field}: {len(items)} names for {length} entries")
    return tuple(string(s, f"{field}[{i}]") for i, s in enumerate(items))


def label_vector_matrix(value, field: str, n_labels: int) -> np.ndarray:
    """Training label vectors for eq. (19): a non-empty list of 0/1 rows of ``n_labels`` entries."""
    rows = sequence(value, field, max_length=MAX_LABEL_VECTOR_ENTRIES // n_labels)
    if not rows:
        raise ValueError(f"{field}: example-wise prediction needs at least one label vector")
    out = np.zeros((len(rows), n_labels), dtype=np.uint8)
    for m, row in enumerate(rows):
        row = sequence(row, f"{field}[{m}]")
        if len(row) != n_labels:
            raise ValueError(f"{field}[{m}]: {len(row)} entries, the model has {n_labels} labels")
        for k, v in enumerate(row):
            if isinstance(v, bool) or v not in (0, 1):
                raise ValueError(f"{field}[{m}][{k}]: {v!r} is not 0 or 1")
            out[m, k] = v
    return out


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
