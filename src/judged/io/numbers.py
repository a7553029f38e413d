"""The one rule for a score or grade written as text, shared by every reader that parses numbers.

Python's ``float()`` and ``int()`` read more than trec_eval's ``atof``/``atol``
do in any sensible sense: ``1_0`` as 10, ``٣`` (an Arabic-Indic digit) as 3,
surrounding Unicode whitespace. judged reads only ASCII:

- a score is ``[+-]`` digits, an optional ``.`` and digits, an optional
  exponent ``e``/``E`` ``[+-]`` digits (``.5``, ``5.``, ``1e-3``), or ``inf``/
  ``infinity`` (any case, signed), read as trec_eval's ``atof`` reads them;
  ``nan`` is recognised for the readers to refuse, and hex floats (``0x1p3``)
  are not numbers;
- a grade is ``[+-]`` digits and must fit in 64 bits; more digits than that
  are out of range, never a crash (Python's ``int()`` refuses 4,300 digits).

docs/formats.md states the rule for users. The C reader (src/judged/_native_src/lines.c)
accepts a subset of it and leaves every other text to these functions.

>>> parse_score("1e-3"), parse_score("-.5"), parse_score("1_0"), parse_score("٣")
(0.001, -0.5, None, None)
>>> parse_score("-inf"), parse_grade("+3"), parse_grade("1.0")
(-inf, 3, None)
>>> parse_grade("9" * 5000)
Traceback (most recent call last):
OverflowError: grade does not fit in 64 bits
"""

from __future__ import annotations

import re

_DECIMAL = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NON_FINITE = r"[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])"

SCORE_PATTERN = f"^(?:{_DECIMAL}|{_NON_FINITE})$"
"""A score's text (regular expression, for polars' ``str.contains`` as well as :mod:`re`)."""
GRADE_PATTERN = r"^[+-]?[0-9]+$"
"""A grade's text."""

_SCORE = re.compile(SCORE_PATTERN)
_GRADE = re.compile(GRADE_PATTERN)
_INT64_DIGITS = 19


def parse_score(text: str) -> float | None:
    """The score ``text`` spells (``inf`` included; ``nan`` too, for the caller to refuse), else ``None``."""
    return float(text) if _SCORE.fullmatch(text) else None


def parse_grade(text: str) -> int | None:
    """The grade ``text`` spells, else ``None``; :class:`OverflowError` when it does not fit in 64 bits."""
    if not _GRADE.fullmatch(text):
        return None
    if len(text.lstrip("+-0")) <= _INT64_DIGITS:  # never int() of thousands of digits
        grade = int(text)
        if -(2**63) <= grade < 2**63:
            return grade
    raise OverflowError("grade does not fit in 64 bits")


__all__ = ["GRADE_PATTERN", "SCORE_PATTERN", "parse_grade", "parse_score"]
