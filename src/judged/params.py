"""The kinds of value the public verbs take, each checked once: a choice, a probability, a count, a seed.

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

import math
from collections.abc import Sequence

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


__all__ = ["choice", "convention_choice", "count", "finite", "probability", "seed"]
