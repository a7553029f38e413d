"""Read measure strings in the ir_measures style, extended with explicit conventions.

Grammar: ``NAME [ "(" key=value {"," key=value} ")" ] [ "@" k ]``. Values may
be quoted; a gain map is written in braces (``gain={0:0,1:1,2:3,3:7}``).
``ndcg_cut_10``-style trec_eval names are not accepted here: this is the
language every output prints.

>>> str(parse("NDCG(ties=average, gain=exp)@5"))
'nDCG(gain=exp,ideal=judged,unjudged=zero,ties=average,norel=0)@5'
>>> parse("MAP") == parse("AP")
True
"""

from __future__ import annotations

import re
from typing import Any

from judged.errors import MeasureError
from judged.measures.conventions import PARAM_ORDER
from judged.measures.registry import family_of
from judged.measures.spec import Measure, value_of

_HEAD = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*")


def parse(text: str) -> Measure:
    """Parse one measure string into a :class:`Measure`."""
    if not isinstance(text, str) or not text.strip():
        raise MeasureError(f"a measure must be a non-empty string like 'nDCG@10'. Got {text!r}.")
    head = _HEAD.match(text)
    if head is None:
        raise MeasureError(f"cannot read measure {text!r}: it must start with a name like nDCG.")
    name = family_of(head.group("name")).name
    rest = text[head.end() :]
    params: dict[str, str] = {}
    if rest.startswith("("):
        close = _matching_paren(text, head.end())
        params = _split_params(text[head.end() + 1 : close], text)
        rest = text[close + 1 :].strip()
    cutoff = None
    if rest:
        match = re.fullmatch(r"@\s*(\S+)", rest.strip())
        if match is None:
            raise MeasureError(f"cannot read {rest!r} after the name in {text!r}: expected @k.")
        try:
            cutoff = int(match.group(1))
        except ValueError:
            raise MeasureError(
                f"cutoff must be an int >= 1. Got {match.group(1)!r} instead in {text!r}."
            ) from None
    return Measure(name, cutoff, **_convert(params, text))


def explicit_params(text: str) -> dict[str, str]:
    """The parameters written out in ``text``, in canonical form (``gain={ 1: 1 }`` -> ``{1:1}``).

    >>> explicit_params("nDCG(ties=average, gain=exp)@5")
    {'ties': 'average', 'gain': 'exp'}
    """
    head = _HEAD.match(text)
    if head is None or not text[head.end() :].startswith("("):
        return {}
    close = _matching_paren(text, head.end())
    raw = _split_params(text[head.end() + 1 : close], text)
    return {key: canonical_param(key, value) for key, value in raw.items()}


def canonical_param(key: str, value) -> str:
    """The canonical text of one parameter value, validated (``rel=01`` -> ``1``)."""
    return str(value_of(key, str(value).strip().strip("'\""), str(value)))


def _matching_paren(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] in "({":
            depth += 1
        elif text[i] in ")}":
            depth -= 1
            if depth == 0:
                return i
    raise MeasureError(f"unbalanced parentheses in measure {text!r}.")


def _split_params(body: str, text: str) -> dict[str, str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    params: dict[str, str] = {}
    for item in items:
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise MeasureError(f"parameter {item.strip()!r} in {text!r} must be key=value.")
        if key not in PARAM_ORDER:
            raise MeasureError(
                f"unknown parameter {key!r} in {text!r}; known: {', '.join(PARAM_ORDER)}."
            )
        if key in params:
            raise MeasureError(f"parameter {key!r} given twice in {text!r}.")
        params[key] = value.strip().strip("'\"")
    return params


def _convert(params: dict[str, str], text: str) -> dict[str, Any]:
    return {key: value_of(key, value, text) for key, value in params.items()}
