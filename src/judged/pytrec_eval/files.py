"""pytrec_eval's readers of TREC lines: whitespace-separated fields, one judgment or score a line.

As pytrec_eval's: a run line is ``qid Q0 docid rank score tag`` and a qrels
line ``qid iter docid grade``, each split on whitespace, the score read by
``float`` and the grade by ``int``; the result is a ``defaultdict`` of dicts.
A line that does not read so, or a document twice in a query, raises
:class:`~judged.InputError` (a ``ValueError``) naming the line, where
pytrec_eval raises a bare ``ValueError`` or ``AssertionError``.

>>> dict(parse_qrel(["q1 0 d1 2", "q1 0 d2 0"]))
{'q1': {'d1': 2, 'd2': 0}}
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import TypeVar

from judged.errors import InputError

T = TypeVar("T", int, float)


def parse_run(f_run: Iterable[str]) -> collections.defaultdict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` from TREC run lines (``qid Q0 docid rank score tag``)."""
    return _parse(f_run, "run", 6, 4, float, "qid Q0 docid rank score tag, the score a number")


def parse_qrel(f_qrel: Iterable[str]) -> collections.defaultdict[str, dict[str, int]]:
    """``{qid: {docid: grade}}`` from TREC qrels lines (``qid iter docid grade``)."""
    return _parse(f_qrel, "qrels", 4, 3, int, "qid iter docid grade, the grade an integer")


def _parse(lines: Iterable[str], kind: str, fields: int, value_at: int, read: Callable[[str], T],
           expected: str) -> collections.defaultdict[str, dict[str, T]]:
    """The nested dict of ``lines``, each split into ``fields`` fields, the value at ``value_at`` read by ``read``."""
    out: collections.defaultdict[str, dict[str, T]] = collections.defaultdict(dict)
    path = getattr(lines, "name", None)
    where = path if isinstance(path, str) else f"<{kind} lines>"
    for number, line in enumerate(lines, start=1):
        parts = line.strip().split()
        try:
            if len(parts) != fields:
                raise ValueError
            value = read(parts[value_at])
        except ValueError:
            raise InputError(f"not a {kind} line", path=where, line=number, text=line.rstrip("\n"),
                             expected=expected) from None
        qid, docid = parts[0], parts[2]
        if docid in out[qid]:
            raise InputError(f"document {docid} is already in query {qid}", path=where, line=number,
                             text=line.rstrip("\n"), expected="each document once per query")
        out[qid][docid] = value
    return out
