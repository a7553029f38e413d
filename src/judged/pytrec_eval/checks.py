"""pytrec_eval's argument checks: the types its C extension takes, refused with its exception types.

Where pytrec_eval raises ``TypeError`` this module raises
:class:`~judged.errors.InputTypeError` (a ``TypeError`` and a judged
:class:`~judged.errors.InputError`), saying what was expected and what came.
Where it accepts a value judged would not take as it is (a NaN score, a
negative ``relevance_level``), the value is taken as pytrec_eval treats it and
counted for one warning.

>>> judged_queries({"q1": {"d1": 1}, "q2": {}})
{'q1': {'d1': 1}}
>>> flag(True), level(2)
(True, 2)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping

from judged.errors import InputTypeError

#: The range of a C int, which pytrec_eval's ``relevance_level`` and ``judged_docs_only_flag`` are read into.
_C_INT = (-(2**31), 2**31 - 1)
#: The range of a C long, which a grade is read into.
_C_LONG = (-(2**63), 2**63 - 1)


def _c_int(value: object, name: str) -> int:
    """``value`` as a C int, as Python's ``PyArg_Parse`` ``i`` reads it: an int (or ``__index__``), in range."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InputTypeError(f"{name} must be an int", text=repr(value), path="RelevanceEvaluator",
                             expected="an int such as 1") from None
    if not _C_INT[0] <= number <= _C_INT[1]:
        raise InputTypeError(f"{name} must fit a C int", text=repr(value), path="RelevanceEvaluator",
                             expected=f"an int from {_C_INT[0]} to {_C_INT[1]}")
    return number


def level(value: object) -> int:
    """``relevance_level``: an int other than 0 (pytrec_eval refuses 0 and accepts a negative level)."""
    number = _c_int(value, "relevance_level")
    if number == 0:
        raise InputTypeError("relevance_level should be positive", text=repr(value), path="RelevanceEvaluator",
                             expected="the lowest grade that counts as relevant, an int >= 1")
    return number


def flag(value: object) -> bool:
    """``judged_docs_only_flag``: an int (True, False, 0, 1 ...), true when not 0."""
    return _c_int(value, "judged_docs_only_flag") != 0


def nonempty_queries(query_relevance: object) -> dict[object, object]:
    """The queries with at least one judgment, unchecked: pytrec_eval drops the others before any check."""
    if not isinstance(query_relevance, Mapping):
        raise _type("query_relevance must be a mapping of qid to {docid: grade}", query_relevance, "a dict")
    kept = {}
    for qid, docs in query_relevance.items():
        if not hasattr(docs, "__len__"):
            raise _type("a query's judgments must be a dict of docid to grade", docs, "a dict", qid)
        if len(docs):
            kept[qid] = docs
    return kept


def judged_queries(query_relevance: object) -> dict[str, dict[str, int]]:
    """The queries with at least one judgment, checked: str qids and docids, int grades in a C long."""
    kept = nonempty_queries(query_relevance)
    for qid, docs in kept.items():
        if not isinstance(qid, str):
            raise _type("a qid must be a str", qid, "a str such as 'q1'")
        if not isinstance(docs, dict):
            raise _type("a query's judgments must be a dict of docid to grade", docs, "a dict", qid)
        for docid, grade in docs.items():
            if not isinstance(docid, str):
                raise _type("a docid must be a str", docid, "a str such as 'd1'", qid)
            if not isinstance(grade, int):
                raise _type("a grade must be an int", grade, "an int such as 0, 1 or 2 (bool counts)", qid)
            if not _C_LONG[0] <= grade <= _C_LONG[1]:
                raise _type("a grade must fit a C long", grade, f"an int from {_C_LONG[0]} to {_C_LONG[1]}", qid)
    return kept  # type: ignore[return-value]


def checked_scores(scores: object) -> tuple[Mapping[str, Mapping[str, float]], int]:
    """``scores`` checked as pytrec_eval's extension checks a run, and how many of its scores are NaN.

    Every query is checked, judged or not: str qids and docids, int or float scores (a ``bool`` is an
    int; a numpy float32 is neither, as in pytrec_eval).
    """
    if not isinstance(scores, dict):
        raise _type("scores must be a dict of qid to {docid: score}", scores, "a dict")
    nans = 0
    for qid, docs in scores.items():
        if not isinstance(qid, str):
            raise _type("a qid must be a str", qid, "a str such as 'q1'")
        if not isinstance(docs, dict):
            raise _type("a query's scores must be a dict of docid to score", docs, "a dict", qid)
        for docid, score in docs.items():
            if not isinstance(docid, str):
                raise _type("a docid must be a str", docid, "a str such as 'd1'", qid)
            if type(score) is not float and not _number(score):
                raise _type("a score must be an int or a float", score, "a number such as 1.5", qid)
            if score != score:
                nans += 1
    return scores, nans


def _number(score: object) -> bool:
    """An int or float as pytrec_eval takes one: a float (subclass), or an int a double can hold."""
    if isinstance(score, float):
        return True
    if not isinstance(score, int):
        return False
    try:
        return math.isfinite(float(score))
    except OverflowError:
        return False


def _type(problem: str, value: object, expected: str, qid: object = None) -> InputTypeError:
    """The TypeError for ``value``, naming the query it is in."""
    where = "query " + repr(qid) if qid is not None else None
    return InputTypeError(problem, path=where, text=repr(value)[:120], expected=expected)
