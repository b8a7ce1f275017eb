"""Functions short enough to read at once and with few parameters (issue 57): at most 80 lines (a Numba
kernel 160, since every extra level costs compile time) and 16 parameters (``self``/``cls`` not counted;
estimators' constructors excepted, scikit-learn's convention of one keyword per parameter), measured with
``ast`` over ``engine/`` and ``boomer_gui/``.

``KNOWN`` lists the functions that still exceed a limit with their size today: none of them may grow and no
other function may join them, so the list only shrinks (remove a line when its function is brought within
the limits)."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES, MAX_KERNEL_LINES, MAX_PARAMETERS = 80, 160, 16
# (file, function): (lines, parameters) today; BOOMER's kernels before their arrays travel in records
KNOWN = {
    ("engine/core/refinement.py", "_refine_rule"): (251, 31),
    ("engine/core/induction.py", "__call__"): (0, 48),
    ("engine/core/boosting_step.py", "_boost_one_rule"): (0, 48),
    ("engine/core/refinement.py", "_best_conditions_in_turn"): (0, 38),
    ("engine/core/refinement.py", "_best_conditions"): (0, 38),
    ("engine/core/refinement.py", "_sweep_attribute"): (0, 33),
    ("engine/core/induction.py", "top_refinements"): (0, 30),
    ("engine/core/sweep.py", "_walk_side"): (0, 25),
    ("engine/core/refinement.py", "refine_rule"): (0, 21),
    ("engine/core/stumps.py", "best_splits"): (0, 20),
    ("engine/core/sweep.py", "walk_attribute"): (0, 19),
}


def _is_estimator_constructor(node: ast.FunctionDef, owner: ast.ClassDef | None) -> bool:
    return (node.name == "__init__" and owner is not None
            and owner.name.endswith(("Classifier", "Regressor", "Booster")))


def _parameters(node: ast.FunctionDef) -> int:
    a = node.args
    n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    first = (a.posonlyargs + a.args)[:1]
    return n - (1 if first and first[0].arg in ("self", "cls") else 0)


def _rebound_names(tree: ast.Module) -> set[str]:
    """Functions compiled through ``rebound(func, ...)`` (a kernel specialised per family)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "rebound":
            if node.args and isinstance(node.args[0], (ast.Name, ast.Attribute)):
                names.add(node.args[0].id if isinstance(node.args[0], ast.Name) else node.args[0].attr)
    return names


def _is_jitted(node: ast.FunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if getattr(target, "id", getattr(target, "attr", "")) in ("njit", "jit"):
            return True
    return False


@lru_cache(maxsize=1)
def _functions() -> tuple:
    """(file, function name, lines, parameters, is a kernel, is an estimator's constructor) of every function."""
    return tuple(_measure())


def _measure():
    trees = {p: ast.parse(p.read_text()) for root in ("engine", "boomer_gui") for p in (ROOT / root).rglob("*.py")}
    rebound = set().union(*(_rebound_names(t) for t in trees.values()))
    for path, tree in trees.items():
        owners = {child: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for child in node.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kernel = _is_jitted(node) or node.name in rebound
                yield (path.relative_to(ROOT).as_posix(), node.name, node.end_lineno - node.lineno + 1,
                       _parameters(node), kernel, _is_estimator_constructor(node, owners.get(node)))


def test_the_measure_sees_kernels_and_constructors():
    found = {(f, name): (kernel, ctor) for f, name, _, _, kernel, ctor in _functions()}
    assert found[("engine/core/sweep.py", "walk_attribute")] == (True, False)  # compiled through rebound()
    assert found[("engine/core/heads.py", "complete_scores")] == (True, False)  # @njit
    assert found[("engine/boomer/estimator.py", "__init__")] == (False, True)


def test_no_function_is_longer_or_takes_more_parameters_than_allowed():
    too_big = []
    for f, name, lines, params, kernel, ctor in _functions():
        line_cap = MAX_KERNEL_LINES if kernel else MAX_LINES
        param_cap = 10 ** 6 if ctor else MAX_PARAMETERS
        known_lines, known_params = KNOWN.get((f, name), (0, 0))
        if (lines > line_cap and lines > known_lines) or (params > param_cap and params > known_params):
            too_big.append(f"{f}: {name} has {lines} lines (limit {line_cap}) and {params} parameters "
                           f"(limit {param_cap})")
    assert not too_big, "\n".join(too_big)


def test_the_known_exceptions_still_exist():
    """A function brought within the limits leaves KNOWN, so the list says what is left."""
    within = {(f, name): lines <= (MAX_KERNEL_LINES if kernel else MAX_LINES) and params <= MAX_PARAMETERS
              for f, name, lines, params, kernel, _ in _functions()}
    stale = [key for key in KNOWN if within.get(key, True)]
    assert not stale, f"within the limits now, remove from KNOWN: {stale}"
