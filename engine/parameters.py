"""A learner's parameters, declared once: kind, range, choices, help and when they apply.

Each estimator class lists its parameters in ``PARAMETERS``; their defaults are read from its
``__init__`` (``FROM_INIT``), so the two cannot disagree.  The same declaration checks the values
when a learner is fitted (one ValueError naming the parameter), builds the GUI's learner panel
(``engine.registry``) and the command line's options (``engine.cli``)."""
from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, Callable, Mapping

KINDS = ("choice", "option", "int", "float", "seed", "object")


class _FromInit:
    def __repr__(self) -> str:
        return "FROM_INIT"


FROM_INIT: Any = _FromInit()  # the default is the one the estimator's __init__ has


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # 'choice' | 'option' (a choice with mlrl-boomer options: 'name{key=value}') | 'int' | 'float'
    #            | 'seed' | 'object' (anything; set from Python only)
    default: Any = FROM_INIT
    label: str = ""
    help: str = ""
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False  # None is allowed (shown as "no limit")
    # None is allowed and means the default (mlrl-boomer's convention; :meth:`effective` resolves it)
    none_is_default: bool = False
    # whether the parameter has any effect given all parameter values (a GUI disables it otherwise)
    applies: Callable[[Mapping], bool] | None = None
    low_open: bool = False  # a float range (minimum, maximum] rather than [minimum, maximum]
    shown: bool = True  # offered in the GUI's learner panel (advanced settings are not)
    options_key: str = ""  # kind 'option': its table in engine.options.OPTIONS when not the name itself

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown parameter kind {self.kind!r}")

    def applies_to(self, params: Mapping) -> bool:
        return self.applies is None or bool(self.applies(params))

    @property
    def flag(self) -> str:
        """The command line's option for the parameter."""
        return "--" + self.name.replace("_", "-")

    def range_text(self) -> str:
        lo = "-inf" if self.minimum is None else f"{self.minimum:g}"
        hi = "inf" if self.maximum is None else f"{self.maximum:g}"
        return f"{'(' if self.low_open or self.minimum is None else '['}{lo}, {hi}{')' if self.maximum is None else ']'}"

    def effective(self, value):
        """The value a fit uses: the default for None where None means the default."""
        return self.default if value is None and self.none_is_default else value

    def check(self, value) -> None:
        """ValueError naming the parameter when ``value`` is not one it takes."""
        if value is None and (self.optional or self.none_is_default or self.kind in ("seed", "object")):
            return
        name = self.name
        if self.kind == "choice":
            if not any(value == c and isinstance(value, bool) == isinstance(c, bool) for c in self.choices):
                raise ValueError(f"{name}={value!r} is not supported; choose one of "
                                 f"{', '.join(map(repr, self.choices))}")
        elif self.kind == "option":
            from .options import parse_option

            if not isinstance(value, str):
                raise ValueError(f"{name} must be a string such as {self.choices[0]!r}, got {value!r}")
            parse_option(self.options_key or name, value)
        elif self.kind in ("int", "seed"):
            lo = 0 if self.kind == "seed" and self.minimum is None else self.minimum
            ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
                (lo is None or value >= lo) and (self.maximum is None or value <= self.maximum)
            if not ok:
                if self.kind == "seed":
                    what = "a non-negative integer"
                elif self.maximum is None:
                    what = f"an integer >= {lo}" if lo is not None else "an integer"
                else:
                    what = f"an integer in [{lo}, {int(self.maximum)}]"
                raise ValueError(f"{name} must be {what}{' or None' if self.optional or self.kind == 'seed' else ''}"
                                 f", got {value!r}")
        elif self.kind == "float":
            ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
            if ok and self.minimum is not None:
                ok = value > self.minimum if self.low_open else value >= self.minimum
            if ok and self.maximum is not None:
                ok = value <= self.maximum
            if not ok:
                raise ValueError(f"{name} must be a number in {self.range_text()}, got {value!r}")

    def parse(self, text: str):
        """A value from the command line's text (checked); ValueError with the reason."""
        t = text.strip()
        if self.optional and t.lower() in ("none", ""):
            return None
        if self.kind == "choice":
            for c in self.choices:
                if str(c).lower() == t.lower():
                    return c
            raise ValueError(f"{t!r} is not a choice of {self.name}: {', '.join(map(str, self.choices))}")
        if self.kind in ("int", "seed"):
            try:
                value = int(t)
            except ValueError:
                raise ValueError(f"{self.name}: {t!r} is not an integer") from None
        elif self.kind == "float":
            try:
                value = float(t)
            except ValueError:
                raise ValueError(f"{self.name}: {t!r} is not a number") from None
        else:
            value = t
        self.check(value)
        return value


def init_defaults(cls) -> dict:
    """The defaults of ``cls.__init__`` by parameter name."""
    sig = inspect.signature(cls.__init__)
    return {n: p.default for n, p in sig.parameters.items() if n != "self" and p.kind != p.VAR_KEYWORD}


def declared(cls) -> tuple[Parameter, ...]:
    """``cls.PARAMETERS`` with every ``FROM_INIT`` default read from ``cls.__init__``.  TypeError when the
    declaration and ``__init__`` name different parameters or disagree on a default (caught at import)."""
    cached = cls.__dict__.get("_declared_parameters")
    if cached is not None:
        return cached
    defaults = init_defaults(cls)
    params = tuple(getattr(cls, "PARAMETERS", ()))
    names = [p.name for p in params]
    if sorted(names) != sorted(defaults):
        missing, extra = sorted(set(defaults) - set(names)), sorted(set(names) - set(defaults))
        raise TypeError(f"{cls.__name__}.PARAMETERS and __init__ differ: undeclared {missing}, not in __init__ {extra}")
    out = []
    none_is_default = bool(getattr(cls, "NONE_IS_DEFAULT", False))
    for p in params:
        d = defaults[p.name]
        if none_is_default:
            p = replace(p, none_is_default=True)
        if p.default is FROM_INIT:
            p = replace(p, default=d)
        elif p.default != d:
            raise TypeError(f"{cls.__name__}: {p.name} defaults to {d!r} in __init__ but {p.default!r} in PARAMETERS")
        p.check(p.default)
        out.append(p)
    result = tuple(out)
    cls._declared_parameters = result
    return result


def check_parameters(estimator) -> None:
    """Check every declared parameter's value (the first bad one is one ValueError naming it)."""
    for p in declared(type(estimator)):
        p.check(getattr(estimator, p.name))


def effective_params(estimator) -> SimpleNamespace:
    """The values a fit of ``estimator`` uses, by parameter name: each as given, None resolved to the
    declared default where None means the default (``NONE_IS_DEFAULT``).  The estimator's own attributes
    (and so ``get_params()``) keep what was given, as scikit-learn requires."""
    return SimpleNamespace(**{p.name: p.effective(getattr(estimator, p.name)) for p in declared(type(estimator))})


class DeclaredParameters:
    """Mixin of the estimators: ``PARAMETERS`` checked by :meth:`_check_params` (each parameter by its
    declaration, then :meth:`_check_combination` for rules between parameters).  With ``NONE_IS_DEFAULT``
    every parameter also takes None, meaning its default (mlrl-boomer's and mlrl-seco's convention):
    code that reads parameter values reads :meth:`effective`."""

    PARAMETERS: tuple = ()
    NONE_IS_DEFAULT = False

    def effective(self) -> SimpleNamespace:
        """The parameter values a fit uses (:func:`effective_params`)."""
        return effective_params(self)

    def _check_combination(self) -> None:
        """Rules between parameters (each parameter alone is checked by its declaration)."""

    def _check_params(self) -> None:
        check_parameters(self)
        self._check_combination()
