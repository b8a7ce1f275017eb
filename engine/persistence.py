"""Loading saved models of any registered learner (JSON; nothing is ever unpickled)."""
from __future__ import annotations

import json
from pathlib import Path

from .learner import MODEL_FORMAT, RuleLearner


def load_estimator(path) -> RuleLearner:
    """Read a model written by ``RuleLearner.save`` and return a fitted estimator."""
    from . import registry

    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name}: not a model file (invalid JSON at line {exc.lineno}: {exc.msg})") from None
    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path.name}: not a model file of this tool (format field missing or different)")
    spec = registry.get(doc.get("learner", ""))
    return spec.factory.from_model_dict(doc)
