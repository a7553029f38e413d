"""Read measure strings in the ir_measures style, extended with explicit conventions.

Grammar: ``NAME [ "(" key=value {"," key=value} ")" ] [ "@" k ]``. Values may
be quoted; a gain map is written in braces (``gain={0:0,1:1,2:3,3:7}``), a list of
numbers in brackets (``levels=[0.25,0.5,0.75]``).
A name judged does not know is read as trec_eval names it (``ndcg_cut_10``,
``ndcg_cut.10``, ``P_10``, ``map_cut_10``, ``iprec_at_recall_0.50``,
``11pt_avg``), through the one table :mod:`judged.measures.trec_names`, when
it names exactly one measure; every output then prints judged's canonical
form. An unknown name suggests the nearest of judged's and trec_eval's names.

>>> str(parse("NDCG(ties=average, gain=exp)@5"))
'nDCG(gain=exp,ideal=judged,unjudged=zero,ties=average,norel=0)@5'
>>> parse("MAP") == parse("AP") and parse("ndcg_cut.10") == parse("ndcg_cut_10") == parse("nDCG@10")
True
>>> str(parse("iprec_at_recall_0.50"))
'IPrec(rel=1,unjudged=zero,ties=trec,norel=0,recall=0.5,rounding=round)'
"""

from __future__ import annotations

import re
from typing import Any

from judged.errors import MeasureError, UsageError
from judged.measures.conventions import PARAM_ORDER
from judged.measures.registry import family_of, unknown_measure
from judged.measures.spec import Measure, value_of

_HEAD = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_\-]*)\s*")  # 11pt_avg starts with a digit


def parse(text: str) -> Measure:
    """Parse one measure string into a :class:`Measure`: judged's grammar, else one trec_eval name, else an
    ir_measures name (:mod:`judged.measures.ir_names`). A name both grammars read is read as judged's.

    >>> str(parse("ndcg_cut_10"))  # trec_eval's name
    'nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10'
    >>> str(parse("IPrec@0.5"))  # ir_measures' name
    'IPrec(rel=1,unjudged=zero,ties=trec,norel=0,recall=0.5,rounding=round)'
    >>> str(parse("NumRet(rel=1)"))  # ir_measures counts the relevant documents retrieved so
    'NumRelRet(rel=1,unjudged=zero,ties=trec)'
    """
    if not isinstance(text, str) or not text.strip():
        raise MeasureError(f"a measure must be a non-empty string like 'nDCG@10'. Got {text!r}.")
    try:
        return parse_own(text)
    except MeasureError as err:
        found = _trec_eval_measure(text.strip()) or _ir_measures_measure(text.strip())
        if found is None:
            raise err from None
        return found


def _ir_measures_measure(text: str) -> Measure | None:
    """The measure ir_measures' name ``text`` asks for; None if ir_measures cannot read it either."""
    from judged.measures.ir_names import from_ir_measures

    try:
        return from_ir_measures(text)
    except (MeasureError, UsageError):
        return None


def _trec_eval_measure(text: str) -> Measure | None:
    """The one measure trec_eval's name ``text`` asks for; None if it is no trec_eval name."""
    from judged.measures.trec_names import from_trec_eval, is_trec_eval_name

    if not is_trec_eval_name(text):
        return None
    try:
        measures = from_trec_eval(text)
    except UsageError as err:
        raise MeasureError(str(err)) from None
    if len(measures) > 1:
        printed = ", ".join(name for name, _ in measures)
        raise MeasureError(f"trec_eval's {text!r} names {len(measures)} measures ({printed}); name one, "
                           f"e.g. {measures[0][0]} or {measures[0][1]}.")
    return measures[0][1]


def parse_own(text: str) -> Measure:
    """One measure in judged's own grammar only: ``Name(convention=value,...)@k``."""
    head = _HEAD.match(text)
    if head is None:
        raise MeasureError(f"cannot read measure {text!r}: it must start with a name like nDCG.")
    name = _family_name(head.group("name"))
    rest = text[head.end() :]
    params: dict[str, str] = {}
    if rest.startswith("("):
        close = _matching_paren(text, head.end())
        params = _split_params(text[head.end() + 1 : close], text)
        rest = text[close + 1 :].strip()
    family = family_of(name)
    for key in params:  # written out, even at its default: a convention the family does not have is refused
        if key not in family.params:
            reason = dict(family.without).get(key)
            raise MeasureError(f"{name} has no parameter {key!r}" + (f": {reason}." if reason else "."))
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


def _family_name(name: str) -> str:
    from judged.measures.trec_names import printed_names

    try:
        return family_of(name).name
    except MeasureError:
        raise unknown_measure(name, printed_names()) from None


def explicit_params(text: str) -> dict[str, str]:
    """The parameters written out in ``text``, in canonical form (``gain={ 1: 1 }`` -> ``{1:1}``).

    >>> explicit_params("nDCG(ties=average, gain=exp)@5")
    {'ties': 'average', 'gain': 'exp'}
    >>> explicit_params("nDCG(judged_only=True)@10")  # ir_measures' spelling of unjudged=drop
    {'unjudged': 'drop'}
    """
    try:
        return _explicit_params(text)
    except MeasureError as err:
        from judged.measures.ir_names import judged_text

        try:
            return _explicit_params(judged_text(text))
        except (MeasureError, UsageError):
            raise err from None


def _explicit_params(text: str) -> dict[str, str]:
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
        if ch in "{[":
            depth += 1
        elif ch in "}]":
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
