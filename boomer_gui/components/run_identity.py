"""What tells runs apart: their line style (colour, marker and dash together) and their names.

Qt-free.  Styles: run k gets colour k mod 8, marker k mod 5 and dash k mod 3 (8, 5 and 3 are pairwise
coprime, so the 120 first runs all differ, neighbours differ in all three, and two runs fewer than 15
apart share at most one of the three).  The colours are Okabe & Ito's colour-blind-safe palette
without its yellow and black (hard to see on white, and black is the plot's marking colour), with
Paul Tol's wine and olive.

Names: what defines a run, not a diff against the previous run: the learner, BOOMER's loss and head
type, the preset it was started from, and the parameters that differ from the preset's (or, without
one, the learner's defaults) settings, the step budget included; ``#2``, ``#3`` only when the same
name is already in the window."""
from __future__ import annotations

import re
from typing import Iterable, Mapping

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#999933")
MARKERS = ("o", "s", "^", "D", "v")
DASHES = ("solid", "dashed", "dotted")
# matplotlib's dash patterns (on, off, ... in line widths) and Qt's for the swatches
DASH_PATTERNS = {"solid": None, "dashed": (5.0, 2.0), "dotted": (1.2, 1.6)}
MAX_NAMED_PARAMS = 3  # a name lists at most this many changed settings ("+2 more" for the rest)

LEARNER_LABELS = {"boomer": "BOOMER", "seco": "SeCo", "adaboost-mh": "AdaBoost.MH", "label-ranking": "Label ranking",
                  "ml-me": "ML-ME", "cc-lr": "Classifier chain"}
# BOOMER's losses, as the paper names them
LOSS_LABELS = {"decomposable": "label-wise", "non-decomposable": "example-wise"}
HEAD_LABELS = {"single": "single-label heads", "complete": "multi-label heads", "partial": "partial heads",
               "auto": "auto heads"}
# presets whose name would only repeat the loss and head type: a short tag instead
PRESET_TAGS = {"Label-wise, single-label heads": "paper", "Label-wise, multi-label heads": "paper",
               "Example-wise, single-label heads": "paper", "Example-wise, multi-label heads": "paper",
               "mlrl-boomer 0.15.6 defaults": "mlrl defaults"}


def style(k: int) -> tuple[str, str, str]:
    """(colour, marker, dash) of the ``k``-th style (0-based)."""
    return PALETTE[k % len(PALETTE)], MARKERS[k % len(MARKERS)], DASHES[k % len(DASHES)]


N_STYLES = len(PALETTE) * len(MARKERS) * len(DASHES)


def next_style(counter: int, used: Iterable[tuple[str, str, str]]) -> tuple[str, str, str]:
    """The style of the ``counter``-th run (0-based), or the next one after it that no run in ``used``
    has (runs removed and sessions reopened leave gaps); the ``counter``-th when every one is used."""
    used = set(used)
    for i in range(N_STYLES):
        s = style(counter + i)
        if s not in used:
            return s
    return style(counter)


def learner_label(key: str, title: str = "") -> str:
    """A learner's short name: ``BOOMER``, ``SeCo`` ... (a plug-in: its title before any parenthesis)."""
    return LEARNER_LABELS.get(key) or (title.split(" (")[0] if title else key)


def loss_label(loss) -> str:
    """``logistic-non-decomposable`` -> ``example-wise logistic``; other values as they are."""
    text = str(loss)
    for suffix, kind in sorted(LOSS_LABELS.items(), key=lambda kv: -len(kv[0])):
        if text.endswith("-" + suffix):
            return f"{kind} {text[: -len(suffix) - 1].replace('-', ' ')}"
    return text


def _value(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def describe_setting(key: str, params: Mapping, defaults: Mapping, presets: Mapping[str, Mapping],
                     budget: str | None = None, title: str = "") -> str:
    """The name of a run of learner ``key`` with ``params`` (what defines it; see the module)."""
    full = {**defaults, **params}
    shown = {"loss", "head_type"} if key == "boomer" else set()
    preset = _preset_of(presets, full, budget) or _nearest_preset(presets, defaults, full, shown)
    reference = {**defaults, **(presets[preset] if preset else {})}
    parts = [learner_label(key, title)]
    if key == "boomer":
        head = full.get("head_type")
        parts.append(f"{loss_label(full.get('loss'))}, {HEAD_LABELS.get(str(head), head)}")
        if preset:
            parts[-1] += f" ({PRESET_TAGS.get(preset, preset)})"
    elif preset:
        parts.append(preset)
    changed = _changes(full, reference, shown)
    name = " · ".join(parts)
    if changed:
        more = len(changed) - MAX_NAMED_PARAMS
        listed = changed[:MAX_NAMED_PARAMS] + ([f"+{more} more"] if more > 0 else [])
        name += f" · {', '.join(listed)}"
    return name


def _changes(full: Mapping, reference: Mapping, shown) -> list[str]:
    """``k=v`` of the settings in ``full`` that differ from ``reference`` (in the learner's order)."""
    return [f"{k}={_value(v)}" for k, v in full.items()
            if k not in shown and (k not in reference or v != reference[k])]


def _nearest_preset(presets: Mapping[str, Mapping], defaults: Mapping, full: Mapping, shown) -> str | None:
    """The preset fewer of the run's settings differ from than from the defaults (a preset with one
    setting changed is named by that preset and that setting), the nearest one; None: the defaults."""
    best, fewest = None, len(_changes(full, defaults, shown))
    for name, values in presets.items():
        n = len(_changes(full, {**defaults, **values}, shown))
        if n < fewest:
            best, fewest = name, n
    return best


def _preset_of(presets: Mapping[str, Mapping], full: Mapping, budget: str | None) -> str | None:
    """The preset ``full`` settings match: one that matches them all first, else one whose settings
    but the budget match (300 rules of a preset are still that preset); the most specific of these."""
    for ignore in (None, budget):
        matches = [name for name, values in presets.items()
                   if all(full.get(k) == v for k, v in values.items() if k != ignore)]
        if matches:
            return max(matches, key=lambda n: len(presets[n]))
    return None


_SUFFIX = re.compile(r"^(.*) #(\d+)$")


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name #2``, ``#3`` ... when a run in the window already has it."""
    taken = set(taken)
    if name not in taken:
        return name
    base = _SUFFIX.match(name).group(1) if _SUFFIX.match(name) else name
    k = 2
    while f"{base} #{k}" in taken:
        k += 1
    return f"{base} #{k}"


def check_name(name: str, taken: Iterable[str]) -> str:
    """A name the user typed, stripped; ValueError when it is empty or another run has it."""
    text = " ".join(str(name).split())
    if not text:
        raise ValueError("a run needs a name")
    if text in set(taken):
        raise ValueError(f"another run is already named {text!r}")
    return text
