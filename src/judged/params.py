"""The kinds of value the public verbs take, each checked once: a choice, a probability, a count, a seed.

The parameters several verbs share (``alpha``, ``seed``, ``resamples``, ...)
are declared once in :data:`PARAMETERS`, with their kind, usual default and
help; a verb checks one with :func:`check`, and the command line builds its
option from the same declaration (``judged.cli.output.parameter_option``).

Every verb checks its parameters here, so a bad value always gets the same
error: a :class:`~judged.UsageError` (a ``ValueError``), or a
:class:`~judged.errors.ParameterTypeError` (also a ``TypeError``) for the
wrong type, naming the parameter, what was given and what is allowed.
Conventions (``missing``, ``ties``, ...) take their choices from the
conventions table (:mod:`judged.measures.conventions`).

>>> probability("alpha", 0.05)
0.05
>>> probability("alpha", 2)
Traceback (most recent call last):
...
judged.errors.UsageError: alpha must lie strictly between 0 and 1. Got 2 instead.
>>> convention_choice("missing", "x")
Traceback (most recent call last):
...
judged.errors.UsageError: missing must be one of skip|zero. Got 'x' instead.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from judged.errors import ParameterTypeError, UsageError


def choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value`` when it is one of ``allowed``, else an error listing them."""
    if not isinstance(value, str) or value not in allowed:
        raise UsageError(f"{name} must be one of {'|'.join(allowed)}. Got {value!r} instead.")
    return value


def convention_choice(name: str, value: object) -> str:
    """``value`` when it is one of the choices the conventions table gives convention ``name``."""
    from judged.measures.conventions import convention

    return choice(name, value, convention(name).choices)


def _number(name: str, value: object, expected: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParameterTypeError(f"{name} must be {expected}. Got {value!r} instead.")
    return float(value)


def probability(name: str, value: object) -> float:
    """A level such as ``alpha`` or ``power``: a number strictly between 0 and 1."""
    number = _number(name, value, "a number strictly between 0 and 1")
    if not 0 < number < 1:
        raise UsageError(f"{name} must lie strictly between 0 and 1. Got {value!r} instead.")
    return number


def count(name: str, value: object, minimum: int = 1) -> int:
    """A whole number of things (queries listed, resamples, a depth) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} must be an int >= {minimum}. Got {value!r} instead.")
    if value < minimum:
        raise UsageError(f"{name} must be an int >= {minimum}. Got {value!r} instead.")
    return value


def seed(name: str, value: object) -> int:
    """A random seed: an int >= 0 (numpy's generators refuse negative seeds)."""
    return count(name, value, minimum=0)


def finite(name: str, value: object, *, positive: bool = False) -> float:
    """A finite number (``positive``: also > 0), such as a tolerance or a planned difference."""
    expected = "a finite number > 0" if positive else "a finite number"
    number = _number(name, value, expected)
    if not math.isfinite(number) or (positive and number <= 0):
        raise UsageError(f"{name} must be {expected}. Got {value!r} instead.")
    return number


@dataclass(frozen=True)
class Parameter:
    """A parameter the verbs share: its kind (how it is checked), usual default and help, declared once.

    >>> PARAMETERS["seed"].check(-1)
    Traceback (most recent call last):
    ...
    judged.errors.UsageError: seed must be an int >= 0. Got -1 instead.
    >>> PARAMETERS["resamples"].but(minimum=0, default=2000).check(0)
    0
    """

    name: str
    kind: Literal["probability", "count", "seed"]
    default: float | int | None
    help: str
    minimum: int = 1  # the least a count may be

    def check(self, value: object) -> float | int:
        """``value`` when it is one this parameter takes, else the judged error naming it and what is allowed."""
        if self.kind == "probability":
            return probability(self.name, value)
        if self.kind == "seed":
            return seed(self.name, value)
        return count(self.name, value, self.minimum)

    def but(self, **changes: object) -> Parameter:
        """This declaration with a verb's own default, minimum or help."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


#: The parameters several verbs share, by name.
PARAMETERS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("alpha", "probability", 0.05,
              "Significance level of the tests; intervals are at confidence 1 - alpha"),
    Parameter("power", "probability", 0.8, "Power the planning asks for"),
    Parameter("confidence", "probability", 0.95, "Confidence level of the intervals"),
    Parameter("permutations", "count", 10_000,
              "Random permutations of each paired randomization test (more: a steadier p-value)"),
    Parameter("resamples", "count", 10_000, "Bootstrap resamples of each confidence interval"),
    Parameter("seed", "seed", 0, "Random seed: the same seed gives the same p-values and intervals"),
    Parameter("worst", "count", 10, "Worst queries listed per run and measure", minimum=0),
)}


def check(name: str, value: object) -> float | int:
    """``value`` checked as the shared parameter ``name`` of :data:`PARAMETERS`.

    >>> check("alpha", "0.05")
    Traceback (most recent call last):
    ...
    judged.errors.ParameterTypeError: alpha must be a number strictly between 0 and 1. Got '0.05' instead.
    """
    return PARAMETERS[name].check(value)


__all__ = ["PARAMETERS", "Parameter", "check", "choice", "convention_choice", "count", "finite", "probability",
           "seed"]
