"""ir_measures' measure names and parameter spellings, read into judged's measures: the one place they map.

ir_measures writes ``nDCG(judged_only=True)@10``, ``P(rel=2)@5``, ``SetP``,
``nDCG(gains={0:0,1:1,2:3})@5``, ``NumRet(rel=1)``; judged writes the same
choices as conventions. :func:`from_ir_measures` reads a name, or one of
ir_measures' own measure objects, into the judged measure with those choices;
the ``ir_measures`` preset (:mod:`judged.presets`) then fixes what ir_measures
applies without saying (its tie rule, its missing-query policy).

>>> str(from_ir_measures("nDCG(judged_only=True)@10"))
'nDCG(gain=linear,ideal=judged,unjudged=drop,ties=trec,norel=0)@10'
>>> str(from_ir_measures("NumRet(rel=2)"))
'NumRelRet(rel=2,unjudged=zero,ties=trec)'
>>> str(from_ir_measures("ERR@10")), str(from_ir_measures("RBP(p=0.9)"))
('ERR(unjudged=zero,ties=trec,max_rel=4)@10', 'RBP(gain=linear,unjudged=zero,ties=trec,p=0.9,max_rel=query)')
>>> str(from_ir_measures("INST(T=2,min_rel=0,max_rel=3)"))
'INST(gain=linear,unjudged=zero,ties=trec,T=2,max_rel=3)'
>>> str(from_ir_measures("Compat(normalize=False)")), str(from_ir_measures("Accuracy(rel=2)@10"))
('Compat_raw(rel=1,unjudged=zero,ties=trec,norel=0,p=0.95)', 'Accuracy(rel=2,unjudged=zero,ties=trec,norel=skip)@10')
"""

from __future__ import annotations

import ast
import re

from judged.errors import MeasureError, UsageError
from judged.measures.parse import parse_own
from judged.measures.spec import Gain, Measure

#: ir_measures' defaults where judged's differ: gdeval (its ERR) fixes the top grade at 4; NERR10's p is 0.9;
#: Compat's p is 0.95 (Clarke et al.'s); Accuracy leaves out a query with no relevant document retrieved.
_THEIR_DEFAULTS: dict[str, dict[str, object]] = {"ERR": {"max_rel": 4}, "NERR10": {"p": 0.9}, "Compat": {"p": 0.95},
                                                 "Accuracy": {"norel": "skip"}}
#: ir_measures names that are not judged family names or aliases: (judged family, takes a cutoff).
_RENAMED = {"SetP": "P", "SetR": "R", "SetRelP": "RelP"}
_NO_CUTOFF = frozenset(_RENAMED)
_NAME = re.compile(r"\s*(?P<name>[A-Za-z][A-Za-z0-9_]*)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*",
                   re.DOTALL)


def from_ir_measures(measure: object) -> Measure:
    """The judged measure for an ir_measures name (``"P(rel=2)@5"``) or measure object (``P(rel=2)@5``)."""
    if isinstance(measure, str):
        name, params = _read(measure)
    elif hasattr(measure, "NAME") and isinstance(getattr(measure, "params", None), dict):
        name, params = str(measure.NAME), dict(measure.params)  # type: ignore[attr-defined]
    else:
        raise UsageError(f"a measure must be an ir_measures name like 'nDCG@10' or an ir_measures measure. "
                         f"Got {measure!r}.")
    return _convert(name, params, str(measure))


def _read(text: str) -> tuple[str, dict[str, object]]:
    match = _NAME.fullmatch(text)
    if match is None:
        raise UsageError(f"cannot read ir_measures measure {text!r}: expected Name, Name@k or Name(param=value)@k.")
    params: dict[str, object] = {}
    if match.group("params"):
        unreadable = UsageError(f"cannot read the parameters of ir_measures measure {text!r}: expected "
                                "name=value pairs with Python literal values.")
        try:
            call = ast.parse(f"f({match.group('params')})", mode="eval").body
            if not isinstance(call, ast.Call) or call.args:
                raise unreadable
            params = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
        except (SyntaxError, ValueError):
            raise unreadable from None
    if match.group("cutoff") and match.group("name") == "IPrec":  # ir_measures writes the recall level there
        params["recall"] = match.group("cutoff")
    elif match.group("cutoff"):
        try:
            params["cutoff"] = int(match.group("cutoff"))
        except ValueError:
            raise UsageError(f"cutoff must be an int >= 1. Got {match.group('cutoff')!r} in {text!r}.") from None
    return match.group("name"), params


def judged_text(text: str) -> str:
    """judged's spelling of an ir_measures name, the conventions it sets written out.

    >>> judged_text("nDCG(judged_only=True)@10"), judged_text("SetP(rel=2)")
    ('nDCG(unjudged=drop)@10', 'P(rel=2)')
    """
    name, params = _read(text)
    return _spelling(name, params, text)


def _convert(name: str, params: dict[str, object], label: str) -> Measure:
    try:
        return parse_own(_spelling(name, params, label))
    except MeasureError as err:
        raise UsageError(f"cannot read ir_measures measure {label!r}: {err}") from None


def _spelling(name: str, params: dict[str, object], label: str) -> str:
    params = dict(params)
    cutoff = params.pop("cutoff", None)
    params = {**_THEIR_DEFAULTS.get(name, {}), **params}
    if name == "SetP" and params.pop("relative", False) is True:
        name = "SetRelP"  # SetP(relative=True) is trec_eval's set_relative_P
    if name == "NumRet" and "rel" in params:
        name = "NumRelRet"  # ir_measures counts relevant retrieved documents as NumRet(rel=r)
    if name == "Compat" and "normalize" in params:
        normalize = params.pop("normalize")
        if not isinstance(normalize, bool):
            raise UsageError(f"ir_measures' Compat takes normalize=True or False. Got {label!r}.")
        name = "Compat" if normalize else "Compat_raw"
    if name in _NO_CUTOFF and cutoff is not None:
        raise UsageError(f"ir_measures' {name} takes no cutoff. Got {label!r}.")
    conventions = [c for c in (_convention(key, value, label) for key, value in params.items()) if c]
    text = _RENAMED.get(name, name) + (f"({','.join(conventions)})" if conventions else "")
    return text + (f"@{cutoff}" if cutoff is not None else "")


def _convention(key: str, value: object, label: str) -> str:
    if key == "rel" and isinstance(value, int) and not isinstance(value, bool):
        return f"rel={value}"
    if key in ("p", "T", "beta") and isinstance(value, int | float) and not isinstance(value, bool):
        return f"{key}={value}"
    if key == "recall" and isinstance(value, str | int | float) and not isinstance(value, bool):
        return f"{key}={value}"
    if key == "max_rel" and isinstance(value, int) and not isinstance(value, bool):
        return f"max_rel={value}"
    if key == "norel" and value == "skip":
        return "norel=skip"  # not ir_measures' own: Accuracy's rule for a query without a pair, written out
    if key == "min_rel" and value == 0:
        return ""  # judged's scaled gains start at grade 0
    if key == "judged_only" and isinstance(value, bool):
        return f"unjudged={'drop' if value else 'zero'}"
    if key == "gains" and isinstance(value, dict):
        return "gain=" + str(Gain.parse("{" + ",".join(f"{g}:{v}" for g, v in value.items()) + "}"))
    if key == "dcg" and value in ("log2", "exp-log2"):
        return "gain=" + ("exp" if value == "exp-log2" else "linear")
    raise UsageError(f"ir_measures parameter {key}={value!r} in {label!r} has no judged convention; judged reads "
                     "rel, judged_only, gains, dcg, p, T, max_rel, min_rel=0, beta, recall (IPrec@r), "
                     "relative (SetP) and normalize (Compat).")
