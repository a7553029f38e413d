"""Turn a qrels file into judgment events of a named assessor (an existing collection's labels, or a judge's output).

Event ids derive from the assessor, the file's sha256 and the line's content,
so importing the same file twice stores its labels once. Grades are checked
against the rubric when one is named, and a grade outside it is reported at
its file line.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from judged.errors import InputError
from judged.io import read_qrels
from judged.io.inputs import Qrels
from judged.judgments.catalog import level_grades
from judged.judgments.model import NewJudgment, check_id
from judged.rubric import Rubric

_NAMESPACE = uuid.UUID("5b0d1c6e-7a51-4a8e-9a55-6a7564676564")


def qrels_entries(
    source: str | Path | Qrels, assessor: str, rubric: Rubric | None
) -> tuple[Qrels, Iterator[NewJudgment]]:
    """The qrels read from ``source`` and, lazily, one :class:`NewJudgment` per judged pair."""
    check_id(assessor, "an assessor name")
    qrels = read_qrels(source)
    if rubric is not None:
        _check_grades(qrels, rubric)
    digest = qrels.source.sha256 if qrels.source else None
    frame = qrels.frame

    def entries() -> Iterator[NewJudgment]:
        """One event per row, its id derived from the file when the qrels came from one."""
        for qid, docid, grade in frame.iter_rows():
            ident = uuid.uuid5(_NAMESPACE, f"{assessor}\0{digest}\0{qid}\0{docid}\0{grade}") if digest else None
            yield NewJudgment(qid, docid, assessor, grade=grade, event_id=str(ident) if ident else None)

    return qrels, entries()


def _check_grades(qrels: Qrels, rubric: Rubric) -> None:
    allowed = level_grades(rubric)
    bad = np.flatnonzero(~np.isin(qrels.frame["grade"].to_numpy(), allowed))
    if not len(bad):
        return
    qid, docid, grade = qrels.frame.row(int(bad[0]))
    path = qrels.source.path if qrels.source else qrels.name
    raise InputError(
        f"grade {grade} is not a level of rubric {rubric.name}@{rubric.version}",
        path=path,
        line=_line_of(path, qid, docid) if qrels.source and qrels.source.format == "trec" else None,
        text=f"{qid} {docid} {grade}",
        expected=f"one of {', '.join(map(str, allowed))}",
    )


def _line_of(path: str, qid: str, docid: str) -> int | None:
    """The line of a TREC qrels file that judges (qid, docid)."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            fields = raw.decode("utf-8", "replace").split()
            if len(fields) == 4 and fields[0] == qid and fields[2] == docid:
                return number
    return None
