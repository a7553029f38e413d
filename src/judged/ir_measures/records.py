"""ir_measures' records and TREC readers: ``Qrel``, ``ScoredDoc``, ``Metric`` and the lazy line readers.

>>> list(read_trec_qrels("q1 0 d1 2\\nq1 0 d2 0\\n"))[0]
Qrel(query_id='q1', doc_id='d1', relevance=2, iteration='0')
>>> next(read_trec_run("q1 Q0 d1 1 0.5 run\\n"))
ScoredDoc(query_id='q1', doc_id='d1', score=0.5)
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from typing import IO, Any, NamedTuple


class Qrel(NamedTuple):
    """One judgment: the query, the document, its grade (and TREC's unused iteration column)."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    """One retrieved document and its score."""

    query_id: str
    doc_id: str
    score: float


class GenericDoc(NamedTuple):
    """A document's text, as ir_measures' (and ir_datasets') document records carry it."""

    doc_id: str
    text: str


class Metric(NamedTuple):
    """One query's value of one measure."""

    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    """The aggregates and the per-query metrics of one ``calc``."""

    aggregated: Any
    per_query: list[Metric]


GenericQrel, GenericScoredDoc = Qrel, ScoredDoc


def read_trec_qrels(file: str | IO[str]) -> Iterator[Qrel]:
    """The ``qid iteration docid grade`` lines of a path (``.gz`` too), an open file or the text itself."""
    for fields in _lines(file, 4):
        yield Qrel(fields[0], fields[2], int(fields[3]), fields[1])


def read_trec_run(file: str | IO[str]) -> Iterator[ScoredDoc]:
    """The ``qid Q0 docid rank score tag`` lines of a path (``.gz`` too), an open file or the text itself."""
    for fields in _lines(file, 6):
        yield ScoredDoc(fields[0], fields[2], float(fields[4]))


def _lines(file: str | IO[str], width: int) -> Iterator[list[str]]:
    """The whitespace-split fields of each non-blank line; a string holding a newline is the text itself."""
    if isinstance(file, str) and "\n" not in file:
        opener = gzip.open if file.endswith(".gz") else open
        with opener(file, "rt") as handle:
            yield from _lines(handle, width)
        return
    for number, line in enumerate(io.StringIO(file) if isinstance(file, str) else file, start=1):
        if line.strip():
            fields = line.split()
            if len(fields) != width:
                raise ValueError(f"line {number}: expected {width} fields, got {len(fields)}: {line.strip()!r}")
            yield fields
