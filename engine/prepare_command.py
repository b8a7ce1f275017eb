"""``python -m engine prepare``: the command line of :mod:`engine.prepare` (one setting, the usual
first runs, or with ``--all`` / ``--list`` every kernel family of :mod:`engine.families`)."""
from __future__ import annotations

import json
import sys
from typing import Callable, Mapping

from .prepare import (MAX_STEPS, PREPARE_STEPS, Setting, builtin_data, check_learners, default_settings,
                      parse_params, prepare, prepare_parallel, read_data, watch_parent)


def _steps(text: str) -> int:
    """``--steps``: an integer in [1, MAX_STEPS] (a usage error, exit 2, otherwise)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 1 <= value <= MAX_STEPS:
        raise argparse.ArgumentTypeError(f"{value} is outside [1, {MAX_STEPS}]")
    return value


def _emitter(as_json: bool) -> Callable[[dict], None]:
    """Progress events as JSON lines, or as the lines a person reads."""
    if as_json:
        def emit(event: dict) -> None:
            sys.stdout.write(json.dumps(event) + "\n")
            sys.stdout.flush()
        return emit

    def say(event: dict) -> None:
        kind = event["event"]
        if kind == "families":
            print(f"{event['total']} kernel components: {event['ready']} ready, {event['total'] - event['ready']} "
                  "to prepare", flush=True)
        elif kind == "setting":
            print(f"[{event['index'] + 1}/{event['of']}] {event['label']}", flush=True)
        elif kind == "prepared":
            print(f"      {event['label']}: ready in {event['seconds']:.1f} s", flush=True)
        elif kind == "error":
            print(f"      failed: {event['message']}", flush=True)
        elif kind == "done":
            print(f"prepared {event['settings'] - event['failed']} of {event['settings']} settings in "
                  f"{event['elapsed']:.1f} s", flush=True)
    return say


def _families(args, data: Mapping | None) -> list:
    """``--all`` / ``--list``: the families of ``--families FILE``, else every reachable one."""
    from .families import reachable_families, read_families

    if data is None:
        data = builtin_data()
    if args.families:
        return read_families(args.families, data["X"], data["Y"])
    return reachable_families(args.learners or None, data["X"], data["Y"])


def command(args) -> int:
    """``python -m engine prepare``: see the module's docstring."""
    if args.parent_pid:
        watch_parent(args.parent_pid)
    from .numba_cache import PRUNE_AFTER_DAYS, prune, prune_legacy

    pruned = prune(PRUNE_AFTER_DAYS)  # kernels of other sources, unused for a month
    prune_legacy(PRUNE_AFTER_DAYS)
    if pruned and not args.json:
        print(f"removed {len(pruned)} kernel folder(s) of other sources unused for {PRUNE_AFTER_DAYS} days", flush=True)
    families = None
    try:
        if args.learner and (args.all or args.list):
            raise ValueError("--learner prepares one setting; --all and --list every family (use --learners)")
        if args.learner:
            check_learners([args.learner], "--learner")
            settings = [Setting(args.learner, parse_params(args.params), args.learner)]
        else:
            check_learners(args.learners or [], "--learners")
            settings = default_settings(args.learners or None)
        data = read_data(args.data) if args.data else None
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        if args.all or args.list or args.families:
            families = _families(args, data)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    emit = _emitter(args.json)
    if families is not None:
        from .families import list_families, prepare_families

        if args.list:
            list_families(families)
            return 0
        return 1 if prepare_families(families, data, emit, args.jobs, args.data, args.steps) else 0
    if args.jobs > 1 and len(settings) > 1:
        return 1 if prepare_parallel(settings, args.jobs, data, args.data, emit, args.steps) else 0
    return 1 if prepare(settings, data, emit, args.steps) else 0


def add_parser(sub) -> None:
    p = sub.add_parser("prepare", help="compile the kernels of the usual first runs (or of one setting) into the "
                                       "cache, so that a run starts at once")
    p.add_argument("--learner", help="one learner (a registry key) instead of every learner's defaults and presets")
    p.add_argument("--params", help="its parameters as a JSON object (with --learner)")
    p.add_argument("--learners", nargs="*", help="only these learners' defaults and presets")
    p.add_argument("--data", help="an .npz file written by engine.prepare.save_data (default: the built-in "
                                  "synthetic data)")
    p.add_argument("--steps", type=_steps, default=PREPARE_STEPS, help=f"steps fitted per setting, in [1, {MAX_STEPS}]")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (settings with the same kernels are "
                                                       "prepared once)")
    p.add_argument("--all", action="store_true", help="every kernel family the window's learner panels can reach "
                                                      "(with --learners: theirs), skipping those already prepared")
    p.add_argument("--list", action="store_true", help="list those families, ready or would compile, and prepare "
                                                       "nothing")
    p.add_argument("--families", metavar="FILE", help="with --all or --list: these settings (a JSON list of "
                                                      "{learner, params, label}) instead of every family")
    p.add_argument("--json", action="store_true", help="progress as one JSON object a line")
    p.add_argument("--parent-pid", type=int, default=0, help="end when this process is no longer the parent")
    p.set_defaults(func=command)
