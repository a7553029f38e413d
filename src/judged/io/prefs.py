"""trec_eval's other judgment formats: preferences (``-R prefs``, ``qrels_prefs``) and judgment groups (``qrels_jg``).

A preference file (``qid jg jsg docid level``) states preferences
indirectly: inside one judgment sub-group (jsg) of one judgment group (jg, one
user's information need), a document with a higher level is preferred to one
with a lower level; level 0 means judged non-relevant. ``-R qrels_prefs``
reads an ordinary qrels file the same way, its second column naming the
judgment group and each group holding a single sub-group. A judgment-group
file (``qid jg docid grade``) is a qrels file whose second column names the
group: each group is a complete set of graded judgments of its own.

Lines follow the TREC grammar of :mod:`judged.io.trec` (ASCII whitespace,
``#`` comments at the start of a line, the number rule of
:mod:`judged.io.numbers`); a line with another number of fields, a level that
is not a finite number or a grade that is not an integer is an error naming
file, line and text. Repeating a document inside one sub-group is an error
(trec_eval would count its preferences twice or stop).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "prefs")
>>> _ = open(path, "w").write("q1 u1 s1 d1 2\\nq1 u1 s1 d2 0\\n")
>>> read_prefs(path).frame.rows()
[('q1', 'u1', 's1', 'd1', 2.0), ('q1', 'u1', 's1', 'd2', 0.0)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from judged.errors import InputError
from judged.io.inputs import QRELS_SCHEMA, Qrels, RowProblem, Source, dedupe_qrels, opened
from judged.io.numbers import parse_score
from judged.io.trec import _qrels_row, check_field_count, trec_lines

PREFS_SCHEMA = {"qid": pl.String, "jg": pl.String, "jsg": pl.String, "docid": pl.String, "level": pl.Float64}
_PREFS_COLUMNS = ("qid", "jg", "jsg", "docid", "level")
_QRELS_PREFS_COLUMNS = ("qid", "jg", "docid", "level")
_QRELS_JG_COLUMNS = ("qid", "jg", "docid", "grade")


@dataclass(frozen=True, eq=False)
class Preferences:
    """Preference judgments in input order: columns ``qid``, ``jg``, ``jsg``, ``docid``, ``level``."""

    frame: pl.DataFrame
    name: str
    source: Source | None = None

    @property
    def qids(self) -> list[str]:
        """The judged queries, in byte order of qid (trec_eval's order)."""
        return sorted(self.frame["qid"].unique().to_list())


@dataclass(frozen=True, eq=False)
class JudgmentGroups:
    """Judgments of several groups (users) of the same queries: one :class:`Qrels` per group id, in byte order."""

    groups: dict[str, Qrels]
    name: str
    source: Source | None = None

    @property
    def qids(self) -> list[str]:
        """Every query some group judged, in byte order of qid."""
        return sorted({q for qrels in self.groups.values() for q in qrels.frame["qid"].unique().to_list()})


def read_prefs(path: str | Path, name: str | None = None) -> Preferences:
    """Read a ``qid jg jsg docid level`` preference file (trec_eval's ``-R prefs``)."""
    return _read_preferences(str(path), _PREFS_COLUMNS, name)


def read_qrels_prefs(path: str | Path, name: str | None = None) -> Preferences:
    """Read a qrels file as preferences (trec_eval's ``-R qrels_prefs``): column 2 is the group, one sub-group each."""
    return _read_preferences(str(path), _QRELS_PREFS_COLUMNS, name)


def read_qrels_jg(path: str | Path, name: str | None = None) -> JudgmentGroups:
    """Read a ``qid jg docid grade`` file (trec_eval's ``-R qrels_jg``) into one :class:`Qrels` per group."""
    path = str(path)
    rows: list[tuple[str, str, str, int]] = []
    lines: list[int] = []
    with opened(path) as handle:  # once, in a stream: a pipe or `-` has no second reading
        source = Source.of_handle(path, "qrels_jg", handle)
        for number, fields, text in trec_lines(path, indented_comments=False, handle=handle):
            check_field_count(fields, _QRELS_JG_COLUMNS, True, path, number, text)
            qid, docid, grade = _qrels_row(fields, path, number, text)
            rows.append((fields[1], qid, docid, grade))
            lines.append(number)
    if not rows:
        raise InputError("file has no data lines", path=path, expected=" ".join(_QRELS_JG_COLUMNS) + " lines")
    frame = pl.DataFrame(rows, schema={"jg": pl.String, **QRELS_SCHEMA}, orient="row").with_row_index("row")
    groups = {}
    for (jg,), part in sorted(frame.group_by("jg", maintain_order=True), key=lambda item: str(item[0][0]).encode()):
        try:
            judged, collapsed = dedupe_qrels(part.select(list(QRELS_SCHEMA)))
        except RowProblem as problem:  # a conflicting grade inside one group, at its own line
            raise problem.at(path, lines[int(part["row"][problem.row])]) from None
        groups[str(jg)] = Qrels(judged, f"{name or Path(path).name}:{jg}", source, collapsed)
    return JudgmentGroups(groups, name or Path(path).name, source)


def _read_preferences(path: str, columns: tuple[str, ...], name: str | None) -> Preferences:
    rows: list[tuple[str, str, str, str, float]] = []
    lines: list[int] = []
    with opened(path) as handle:  # once, in a stream: a pipe or `-` has no second reading
        source = Source.of_handle(path, "prefs", handle)
        for number, fields, text in trec_lines(path, indented_comments=False, handle=handle):
            check_field_count(fields, columns, True, path, number, text)
            level = parse_score(fields[-1])
            if level is None or not math.isfinite(level):
                raise InputError("preference level is not a finite number", path=path, line=number,
                                 text=text.rstrip("\r\n"),
                                 expected=f"a number in column {len(columns)}, such as 0, 1 or 2.5")
            jsg = fields[2] if len(columns) == len(_PREFS_COLUMNS) else "0"  # qrels_prefs: one sub-group per group
            rows.append((fields[0], fields[1], jsg, fields[-2], level))
            lines.append(number)
    if not rows:
        raise InputError("file has no data lines", path=path, expected=" ".join(columns) + " lines")
    frame = pl.DataFrame(rows, schema=PREFS_SCHEMA, orient="row")
    repeated = frame.select(pl.struct("qid", "jg", "jsg", "docid").is_duplicated()).to_series()
    if repeated.any():
        first_repeat = _second_occurrence(frame.select("qid", "jg", "jsg", "docid"))
        raise RowProblem(first_repeat, "document appears twice in the same judgment sub-group",
                         " ".join(map(str, frame.row(first_repeat))),
                         "each docid at most once per (qid, jg, jsg); give a second view its own sub-group",
                         ).at(path, lines[first_repeat])
    return Preferences(frame, name or Path(path).name, source)


def _second_occurrence(keys: pl.DataFrame) -> int:
    """Row of the first line that repeats an earlier line's key."""
    seen = set()
    for row, key in enumerate(keys.iter_rows()):
        if key in seen:
            return row
        seen.add(key)
    raise ValueError("no repeated key")  # callers check that there is one


__all__ = ["JudgmentGroups", "Preferences", "read_prefs", "read_qrels_jg", "read_qrels_prefs"]
