"""Every kernel stamp a learner panel can reach: ``python -m engine prepare --all`` and ``--list``.

A fit compiles the kernels named by the key of :func:`engine.prepare.kernel_setting`: one stamp, or
(BOOMER) a core family and each optional part the setting uses (:mod:`engine.boomer.stamps`).  The
settings are explored as before: from each learner's defaults and presets, every single change the
panel offers (each choice of a shown choice or option parameter; a shown float set to zero or, at
zero, to a positive value) is applied, and a setting whose key is new is kept and changed again,
until no change yields a new key.  What is prepared is each *stamp* once, not each key (a product of
parts): a stamp is represented by the first setting found among those with the fewest stamps that
need it (a core family by a setting without optional parts, an optional part by the cheapest core
family that uses it; the defaults and presets come first).

Learners without a family key of their own (whose key is the whole parameter set) would never
close; for them the defaults, the presets and each single change of them are the families.
Learners whose key is None compile nothing and have none.
"""
from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Mapping

from .prepare import Setting, default_settings, is_prepared, kernel_setting, stamps_of

POSITIVE_PROBE = 0.1  # the value a float at zero is set to (any positive value is the same family)
MAX_FAMILIES = 20_000  # a learner whose closure grows beyond this is a mistake in its key


@dataclass(frozen=True)
class Family:
    """One kernel stamp (a family, or an optional part of one) and a setting that compiles it."""

    key: str
    setting: Setting
    start: bool = False  # a stamp of a learner's defaults or one of its presets

    @property
    def ready(self) -> bool:
        return is_prepared(self.key)

    @property
    def part(self) -> str:
        """'' for a core family, else the optional part (BOOMER's 'holdout', 'feature-binning', ...)."""
        head = self.key.split("|", 1)[0]
        return head.split("-", 1)[1] if head.startswith("boomer-") else ""


def stamp_units(found: list[tuple[object, Setting, bool]]) -> list[Family]:
    """Each stamp of the keys ``found`` ((key, setting, start) in the order found) once, with the first
    setting of those needing it with the fewest stamps (see the module's docstring)."""
    best: dict[str, tuple[tuple, Setting]] = {}
    start_stamps, first = set(), {}
    for key, setting, start in found:
        stamps = stamps_of(key)
        first.setdefault(setting.learner, set(stamps))  # the learner's defaults: the cheapest core
        if start:
            start_stamps.update(stamps)
        cost = (len(stamps), len(set(stamps) - first[setting.learner]), len(setting.params))
        for stamp in stamps:
            if stamp not in best or cost < best[stamp][0]:
                best[stamp] = (cost, setting)
    return [Family(stamp, setting, stamp in start_stamps) for stamp, (_, setting) in best.items()]


def panel_moves(spec) -> list[tuple[str, object]]:
    """The single changes a learner panel offers that may change a kernel family."""
    moves = []
    for p in spec.parameters:
        if not p.shown:
            continue
        if p.kind in ("choice", "option"):
            moves += [(p.name, c) for c in p.choices]
        elif p.kind == "float" and isinstance(p.default, (int, float)):
            zero_allowed = p.minimum is not None and p.minimum <= 0.0 and not p.low_open
            if p.default == 0.0:
                moves.append((p.name, POSITIVE_PROBE))
            elif zero_allowed:
                moves.append((p.name, 0.0))
    return moves


def _label(spec, params: Mapping, names: Mapping[str, str]) -> str:
    """'boomer: defaults', a preset's name, or the changed parameters."""
    frozen = _frozen(params)
    if frozen in names:
        return names[frozen]
    defaults = spec.defaults()
    changed = {k: v for k, v in params.items() if defaults.get(k) != v}
    return f"{spec.key}: " + (", ".join(f"{k}={v}" for k, v in sorted(changed.items())) or "defaults")


def _frozen(params: Mapping) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def _key(spec, params: Mapping, X, Y):
    """The family key of a setting, or False when the setting is invalid."""
    try:
        return kernel_setting(spec.make(**params), X, Y)
    except Exception:  # noqa: BLE001 - an invalid combination: the panel refuses it too
        return False


def _smallest(spec, params: dict, key, X, Y) -> dict:
    """``params`` without the changes (from the defaults) that do not make its family: a family's
    setting reads as what makes it, not as the path the search took to it."""
    for name in sorted(params):
        trial = {k: v for k, v in params.items() if k != name}
        if _key(spec, trial, X, Y) == key:
            params = trial
    return params


def learner_families(spec, X, Y) -> list[Family]:
    """The stamps of one learner on data like ``X``, ``Y`` (see the module's docstring)."""
    return stamp_units(list(learner_settings(spec, X, Y).values()))


def learner_settings(spec, X, Y) -> dict:
    """Each kernel key of one learner on data like ``X``, ``Y``: (key, its setting, whether a start)."""
    starts = default_settings([spec.key])
    names = {_frozen(s.params): s.label for s in starts}
    closes = callable(getattr(spec.factory, "kernel_setting", None))
    moves = panel_moves(spec)
    defaults = spec.defaults()
    queue = deque((dict(s.params), True, True) for s in starts)
    seen_params, families = set(), {}
    while queue:
        params, expand, start = queue.popleft()
        frozen = _frozen(params)
        if frozen in seen_params:
            continue
        seen_params.add(frozen)
        key = _key(spec, params, X, Y)
        if key is None or key is False or key in families:
            continue
        if not start:
            params = _smallest(spec, params, key, X, Y)
        families[key] = (key, Setting(spec.key, params, _label(spec, params, names)), start)
        if len(families) > MAX_FAMILIES:
            raise RuntimeError(f"{spec.key}: more than {MAX_FAMILIES} kernel families; its kernel key is too fine")
        if expand:
            queue.extend(({**params, name: value}, closes, False) for name, value in moves
                         if params.get(name, defaults.get(name)) != value)
    return families


def reachable_families(learners: Iterable[str] | None = None, X=None, Y=None) -> list[Family]:
    """Every learner's stamps (or only ``learners``'), on ``X``, ``Y`` or the built-in data: those of
    every learner's defaults and presets first (BOOMER's first), then the rest, BOOMER's first."""
    from . import registry
    from .prepare import builtin_data

    if X is None or Y is None:
        data = builtin_data()
        X, Y = data["X"], data["Y"]
    wanted = None if learners is None else set(learners)
    out = []
    for spec in registry.learners():
        if wanted is None or spec.key in wanted:
            out += learner_families(spec, X, Y)
    return sorted(out, key=lambda f: not f.start)  # stable: the registry's order within each part


def read_families(path, X, Y) -> list[Family]:
    """``--families FILE``: a JSON list of ``{"learner": KEY, "params": {...}, "label": TEXT}`` instead of
    the enumeration (tests, or a chosen subset); their keys on data like ``X``, ``Y``."""
    from . import registry

    try:
        with open(path) as handle:
            items = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--families: cannot read {path} ({exc})") from None
    if not isinstance(items, list) or not all(isinstance(i, dict) and "learner" in i for i in items):
        raise ValueError("--families: a JSON list of objects with 'learner' (and 'params', 'label') is needed")
    found, keys = [], set()
    for item in items:
        spec = registry.get(str(item["learner"]))
        params = dict(item.get("params") or {})
        key = _key(spec, params, X, Y)
        if key is False:
            raise ValueError(f"--families: {item.get('label') or spec.key}: invalid parameters {params}")
        if key is not None and key not in keys:
            keys.add(key)
            found.append((key, Setting(spec.key, params, str(item.get("label") or spec.key)), False))
    return stamp_units(found)  # each stamp once


# -- ``prepare --all`` and ``prepare --list`` ------------------------------------------------------------
def prepare_families(families: list[Family], data: Mapping, emit, jobs: int = 1, data_path: str | None = None,
                     steps: int | None = None) -> int:
    """Prepare the stamps not made yet (one ``families`` event first: how many stamps there are and how
    many are ready), each representing setting once, then as :func:`engine.prepare.prepare`.  Returns
    the number of settings that failed."""
    from .prepare import PREPARE_STEPS, prepare, prepare_parallel

    steps = PREPARE_STEPS if steps is None else steps
    pending = [f for f in families if not f.ready]
    todo = list({_frozen([f.setting.learner, f.setting.params]): f.setting for f in pending}.values())
    emit({"event": "families", "total": len(families), "ready": len(families) - len(pending)})
    if jobs > 1 and len(todo) > 1:
        return prepare_parallel(todo, jobs, data, data_path, emit, steps)
    return prepare(todo, data, emit, steps)


def list_families(families: list[Family], write=print) -> None:
    """``--list``: each stamp, ready or not, with the setting that prepares it, and the totals."""
    ready = 0
    for family in families:
        ok = family.ready
        ready += ok
        part = f"  [{family.part} part]" if family.part else ""
        write(f"{'ready        ' if ok else 'would compile'}  {family.setting.title}{part}")
    write(f"{len(families)} kernel components: {ready} ready, {len(families) - ready} would compile")
