"""Turn a qrels file into the judgment events that make it a named assessor's labels.

An import sets labels: it records an event only for a pair whose current
label is not the file's grade, and ``replace`` withdraws the current labels
the file lacks (:class:`ImportPlan`). Importing a file that is already
current therefore changes nothing, and ``replace`` makes the file exactly the
assessor's labels whatever was imported before. Event ids derive from the
assessor, the file's sha256, the pair, the grade and the log's head when
the import began, so a retried import stores its events once and a later
import of the same file (after others) records them again. Grades are checked
against the rubric when one is named, and a grade outside it is reported at
its file line.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judged.errors import InputError
from judged.io import read_qrels
from judged.io.inputs import Qrels
from judged.judgments.catalog import level_grades
from judged.judgments.model import Judgment, NewJudgment, check_id
from judged.rubric import Rubric

_NAMESPACE = uuid.UUID("5b0d1c6e-7a51-4a8e-9a55-6a7564676564")


def read_labels(source: str | Path | Qrels, assessor: str, rubric: Rubric | None) -> Qrels:
    """The qrels of ``source``, their grades checked against ``rubric`` when there is one."""
    check_id(assessor, "an assessor name")
    qrels = read_qrels(source)
    if rubric is not None:
        _check_grades(qrels, rubric)
    return qrels


@dataclass(frozen=True)
class ImportPlan:
    """What importing a file changes: ``entries`` to record (the file's labels that are not current),
    ``unchanged`` (file labels already current) and ``withdrawn`` (current pairs the file lacks, under
    ``replace``)."""

    entries: list[NewJudgment]
    unchanged: int
    withdrawn: list[tuple[str, str]]


def import_plan(qrels: Qrels, assessor: str, rubric: str | None, current: Mapping[tuple[str, str], Judgment],
                *, replace: bool, head: str | None) -> ImportPlan:
    """The events that make ``qrels`` the assessor's labels, given the assessor's ``current`` label events.

    ``rubric`` is the ``NAME@VERSION`` the import records (a current label under another rubric is
    recorded again under this one); ``head`` the log's head hash, part of each event id.

    >>> q = Qrels.from_dict({"q1": {"a": 1, "b": 0}})
    >>> plan = import_plan(q, "ann", None, {}, replace=False, head=None)
    >>> [(e.qid, e.docid, e.grade) for e in plan.entries], plan.unchanged, plan.withdrawn
    ([('q1', 'a', 1), ('q1', 'b', 0)], 0, [])
    """
    digest = qrels.source.sha256 if qrels.source else None
    entries: list[NewJudgment] = []
    for qid, docid, grade in qrels.frame.iter_rows():
        now = current.get((qid, docid))
        if now is not None and now.kind == "grade" and now.grade == grade and rubric in (None, now.rubric):
            continue
        ident = uuid.uuid5(_NAMESPACE, f"{assessor}\0{digest}\0{qid}\0{docid}\0{grade}\0{head}") if digest else None
        entries.append(NewJudgment(qid, docid, assessor, grade=grade, event_id=str(ident) if ident else None))
    kept = set(zip(qrels.frame["qid"].to_list(), qrels.frame["docid"].to_list()))
    withdrawn = sorted(set(current) - kept) if replace else []
    return ImportPlan(entries, qrels.frame.height - len(entries), withdrawn)


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
