"""Loading saved models of any registered learner (JSON; nothing is ever unpickled).

A model file is untrusted input: :func:`load_estimator` checks every field before a kernel
sees it, and raises ValueError for any content that is not a valid model."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from . import model_document as checks
from .fileio import input_file_problem
from .learner import MODEL_FORMAT, MODEL_VERSION, RuleLearner


def read_json_file(path, what: str, max_bytes: int = checks.MAX_MODEL_FILE_BYTES):
    """The JSON content of a regular file of at most ``max_bytes``; ValueError for bad content,
    FileNotFoundError for a missing file, ValueError for directories and other non-files."""
    path = Path(path)
    problem = input_file_problem(path, what, max_bytes)
    if problem:
        raise ValueError(f"{path.name}: {problem}")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: not a {what} (not UTF-8 text: byte {exc.start})") from None
    except OSError as exc:
        raise ValueError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    return checks.parse_json(text, path.name, what)


def estimator_from_document(doc: Mapping, name: str = "model file") -> RuleLearner:
    """A fitted estimator from a model document (``est.to_model_dict()``); ValueError when invalid."""
    from . import registry

    if not isinstance(doc, Mapping) or doc.get("format") != MODEL_FORMAT:
        raise ValueError(f"{name}: not a model file of this tool (format field missing or different)")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MODEL_VERSION:
        raise ValueError(f"{name}: model format version {version!r} is not one this program reads "
                         f"(1 to {MODEL_VERSION})")
    key = doc.get("learner")
    if not isinstance(key, str):
        raise ValueError(f"{name}: the learner field must be a learner key, found {key!r}")
    try:
        est = registry.get(key).factory.from_model_dict(doc)
        model = getattr(est, "model_", None)
        if model is not None:
            _check_label_evidence(model)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return est


# A rule model may predict this many labels although nothing in it mentions them (e.g. one saved before
# its default rule); beyond it, every label must appear in the file (model_document's docstring).
UNMENTIONED_LABELS = 1_000


def _check_label_evidence(model) -> None:
    """A rule model's ``n_labels`` must be accounted for by the file: a head, the label vectors or
    the label names (a real model's default rule covers every label), so the work of a prediction
    (examples x labels) is proportional to the file's size, not to a number written in it."""
    mentioned = max([int(r.head_labels[-1]) + 1 for r in model.rules if len(r.head_labels)]
                    + [len(model.schema.label_names) if model.schema else 0,
                       0 if model.label_vectors is None else model.label_vectors.shape[1], UNMENTIONED_LABELS])
    if model.n_labels > mentioned:
        raise ValueError(f"model, n_labels: {model.n_labels} labels, but no rule, label vector or label name "
                         f"mentions a label beyond {mentioned - 1} (a real model's default rule covers every label)")


def load_estimator(path) -> RuleLearner:
    """Read a model written by ``RuleLearner.save`` and return a fitted estimator."""
    return estimator_from_document(read_json_file(path, "model file"), Path(path).name)
