"""Helpers for mutation tests of JSON documents (model and session files)."""
from __future__ import annotations

import copy


def paths(node, prefix=(), per_list: int = 6):
    """Every container path of a JSON document (the first ``per_list`` entries of each list)."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,), per_list)
    elif isinstance(node, list):
        for i, v in enumerate(node[:per_list]):
            yield from paths(v, prefix + (i,), per_list)


def mutated(doc, data, replacements):
    """A copy of ``doc`` with one entry deleted or replaced, drawn with hypothesis ``data``."""
    from hypothesis import strategies as st

    doc = copy.deepcopy(doc)
    path = data.draw(st.sampled_from([p for p in paths(doc) if p]))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(st.sampled_from(replacements))
    return doc
