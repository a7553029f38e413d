"""A measure as a frozen value: its family, cutoff and every convention it depends on.

Two measures are equal when every field is equal, whatever order their
parameters were written in; ``str(m)`` is the one canonical, fully explicit
form and :func:`judged.measures.parse` reads it back to an equal object.

>>> from judged.measures import parse
>>> m = parse("nDCG@10")
>>> str(m)
'nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10'
>>> parse(str(m)) == m
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, cast

from judged.errors import MeasureError
from judged.measures.conventions import MEASURE_CONVENTIONS, PARAM_ORDER, choices, convention
from judged.measures.conventions import ORDERED_TIES as _ORDERED_TIES

# The value types of the choice conventions, for mypy; their runtime values come from
# judged.measures.conventions (a test checks that the two agree).
Ideal = Literal["judged", "returned"]
Unjudged = Literal["zero", "drop"]
Ties = Literal["trec", "input", "average", "worst", "best", "docid"]
NoRel = Literal["0", "1", "skip"]
Rounding = Literal["round", "v9"]

IDEALS = cast("tuple[Ideal, ...]", choices("ideal"))
UNJUDGED = cast("tuple[Unjudged, ...]", choices("unjudged"))
TIES = cast("tuple[Ties, ...]", choices("ties"))
#: Tie rules that fix one order of the rows (every rule but ``average``).
ORDERED_TIES = cast("tuple[Ties, ...]", _ORDERED_TIES)
NORELS = cast("tuple[NoRel, ...]", choices("norel"))

__all__ = ["DEFAULTS", "IDEALS", "NORELS", "ORDERED_TIES", "PARAM_ORDER", "TIES", "UNJUDGED", "Gain", "Ideal",
           "Measure", "NoRel", "Ties", "Unjudged", "value_of"]


@dataclass(frozen=True)
class Gain:
    """How a grade becomes a gain: ``linear`` (g), ``exp`` (2^g - 1) or an explicit map.

    Grades below 1 gain 0 under ``linear`` and ``exp``. In an explicit map, a
    grade that is not listed gains its own value when positive and 0
    otherwise, which is trec_eval's rule for ``-m ndcg.1=3,2=9``; the map is
    applied exactly, with no truncation of fractional gains. Unjudged
    documents, and negative grades (pooled but not judged), gain 0 whatever
    the map says.

    >>> from judged.measures.gains import gains
    >>> gains([0, 1, 2, 3, 5], Gain.parse("{0:0,1:1,2:3,3:7}")).tolist()
    [0.0, 1.0, 3.0, 7.0, 5.0]
    >>> str(Gain.parse("{ 3: 10, 1 :1}"))
    '{1:1,3:10}'
    """

    kind: Literal["linear", "exp", "map"] = "linear"
    mapping: tuple[tuple[int, float], ...] = field(default=())

    @classmethod
    def parse(cls, text: str) -> Gain:
        text = text.strip()
        if text in ("linear", "exp"):
            return cls(text)  # type: ignore[arg-type]
        if text in ("exp-log2", "exponential"):
            return cls("exp")
        if text.startswith("{") and text.endswith("}"):
            return cls("map", _parse_gain_map(text))
        raise MeasureError(
            f"gain must be linear, exp or a map like {{0:0,1:1,2:3,3:7}}. Got {text!r} instead."
        )

    def __str__(self) -> str:
        if self.kind != "map":
            return self.kind
        return "{" + ",".join(f"{g}:{_format_number(v)}" for g, v in self.mapping) + "}"


def _parse_gain_map(text: str) -> tuple[tuple[int, float], ...]:
    body = text[1:-1].strip()
    if not body:
        raise MeasureError("gain map is empty; give at least one grade:gain pair, e.g. {1:1,2:3}.")
    pairs: dict[int, float] = {}
    for item in body.split(","):
        grade_text, sep, gain_text = item.partition(":")
        if not sep:
            raise MeasureError(f"gain map entry must be grade:gain. Got {item.strip()!r} instead.")
        try:
            grade = int(grade_text.strip())
        except ValueError:
            raise MeasureError(
                f"gain map grade must be an integer. Got {grade_text.strip()!r} instead."
            ) from None
        try:
            gain = float(gain_text.strip())
        except ValueError:
            raise MeasureError(
                f"gain map value must be a number. Got {gain_text.strip()!r} instead."
            ) from None
        if not math.isfinite(gain):
            raise MeasureError(f"gain map value must be finite. Got {gain_text.strip()!r} instead.")
        if grade in pairs:
            raise MeasureError(f"gain map lists grade {grade} twice.")
        pairs[grade] = gain
    return tuple(sorted(pairs.items()))


def _format_number(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def value_of(name: str, text: str, context: str | None = None) -> Any:
    """The value of the measure convention ``name`` written as ``text``, checked against the conventions table.

    A gain becomes a :class:`Gain`, a grade an ``int``, a number a ``float`` in
    its convention's bounds, a list of numbers (``[0.25,0.5]``) a tuple of them
    in ascending order, a scale an ``int`` grade or ``"query"``; a choice stays
    its text. ``context`` (the measure being read) goes into the error message.

    >>> value_of("gain", "exp"), value_of("rel", "02"), value_of("ties", "average")
    (Gain(kind='exp', mapping=()), 2, 'average')
    >>> value_of("p", "0.95"), value_of("max_rel", "3"), value_of("max_rel", "query")
    (0.95, 3, 'query')
    >>> value_of("levels", "[.75, 0.25,.5]")
    (0.25, 0.5, 0.75)
    """
    spec = convention(name)
    kind = spec.kind
    if kind == "gain":
        return Gain.parse(text)
    if kind == "scale":
        if text == "query":
            return text
        try:
            grade = int(text)
        except ValueError:
            raise MeasureError(f"{name} must be a grade >= 1 or query. Got {text!r} in {context or text!r}.") from None
        if grade < 1:
            raise MeasureError(f"{name} must be a grade >= 1 or query. Got {text!r} in {context or text!r}.")
        return grade
    if kind == "grade":
        try:
            return int(text)
        except ValueError:
            raise MeasureError(f"{name} must be an integer grade. Got {text!r} in {context or text!r}.") from None
    if kind == "number":
        return _number_in_bounds(name, text, context)
    if kind == "numbers":
        return _numbers_in_bounds(name, text, context)
    return convention(name).check(text)


def _numbers_in_bounds(name: str, text: str, context: str | None) -> tuple[float, ...]:
    """``[a,b,...]``: one or more numbers, each within the convention's bounds, in ascending order."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")) or not body[1:-1].strip():
        raise MeasureError(f"{name} must be numbers in brackets, as in {name}=[0.25,0.5,0.75]. "
                           f"Got {text!r} in {context or text!r}.")
    return tuple(sorted(_number_in_bounds(name, item.strip(), context) for item in body[1:-1].split(",")))


def numbers_text(values: tuple[float, ...]) -> str:
    """The canonical text of a list of numbers.

    >>> numbers_text((0.25, 0.5, 1.0))
    '[0.25,0.5,1]'
    """
    return "[" + ",".join(_format_number(v) for v in values) + "]"


def _number_in_bounds(name: str, text: str, context: str | None) -> float:
    low, high = convention(name).bounds
    wanted = "a finite number" + (f" >= {_format_number(low)}" if low is not None else "") + (
        f" and <= {_format_number(high)}" if high is not None else "")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        raise MeasureError(f"{name} must be {wanted}. Got {text!r} in {context or text!r}.")
    return value


#: The table's default of every measure convention, as the value its Measure field holds.
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {c.name: value_of(c.name, cast(str, c.default)) for c in MEASURE_CONVENTIONS}
)


@dataclass(frozen=True)
class Measure:
    """One measure with every convention it depends on; build it with :func:`judged.measures.parse`.

    Fields a family does not use stay at their defaults, so equality and the
    canonical string only ever reflect conventions that change the number.
    """

    name: str
    cutoff: int | None = None
    gain: Gain = DEFAULTS["gain"]
    rel: int = DEFAULTS["rel"]
    ideal: Ideal = DEFAULTS["ideal"]
    unjudged: Unjudged = DEFAULTS["unjudged"]
    ties: Ties = DEFAULTS["ties"]
    norel: NoRel = DEFAULTS["norel"]
    beta: float = DEFAULTS["beta"]
    recall: float = DEFAULTS["recall"]
    rounding: Rounding = DEFAULTS["rounding"]
    levels: tuple[float, ...] = DEFAULTS["levels"]
    mult: float = DEFAULTS["mult"]
    rel_ret: float = DEFAULTS["rel_ret"]
    nonrel_ret: float = DEFAULTS["nonrel_ret"]
    rel_missed: float = DEFAULTS["rel_missed"]
    p: float = DEFAULTS["p"]
    T: float = DEFAULTS["T"]
    max_rel: int | Literal["query"] = DEFAULTS["max_rel"]

    def __post_init__(self) -> None:
        """Check every convention as the parser does, so a measure built by hand fails here, not when evaluated;
        a gain written as text (``gain="exp"``) reads as :meth:`Gain.parse` reads it.

        >>> Measure("nDCG", 10, gain="exp").gain == Gain("exp")
        True
        >>> Measure("nDCG", ties="bogus")
        Traceback (most recent call last):
        ...
        judged.errors.MeasureError: ties must be one of trec|input|average|worst|best|docid. Got 'bogus' instead.
        """
        from judged.errors import ParameterTypeError
        from judged.measures.registry import family_of

        if isinstance(self.gain, str):
            object.__setattr__(self, "gain", Gain.parse(self.gain))
        elif not isinstance(self.gain, Gain):
            raise ParameterTypeError(f"gain must be a Gain or its text, such as 'exp' or '{{1:1,2:3}}'. "
                                     f"Got {self.gain!r} instead.")
        family = family_of(self.name)
        family.validate(self)

    @property
    def family(self):
        """The registered family (kernel, description, allowed parameters) of this measure."""
        from judged.measures.registry import family_of

        return family_of(self.name)

    def params(self) -> dict[str, str]:
        """The family's conventions as strings, in canonical order."""
        accepted = self.family.params
        return {p: _param_text(self, p) for p in PARAM_ORDER if p in accepted}

    def __str__(self) -> str:
        params = self.params()
        text = self.name
        if params:
            text += "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


def _param_text(measure: Measure, param: str) -> str:
    value = getattr(measure, param)
    if isinstance(value, tuple) and convention(param).kind == "numbers":
        return numbers_text(value)
    return _format_number(value) if isinstance(value, float) else str(value)
