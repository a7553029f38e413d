"""Labels as the agreement statistics read them: one row per (query, document) pair, one column per assessor.

The input is plain data any store can produce: a polars DataFrame with
columns ``qid``, ``docid``, ``assessor``, ``grade`` (one row per pair per
assessor) and the rubric's grade domain. Grades become their position in the
domain (0 for the lowest grade), -1 where an assessor did not grade a pair.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from judged.errors import InputError, UsageError
from judged.io import read_qrels
from judged.io.inputs import Qrels

COLUMNS = ("qid", "docid", "assessor", "grade")


@dataclass(frozen=True, eq=False)
class CodedLabels:
    """Pairs sorted by (qid, docid); ``codes[u, r]`` is assessor r's grade of pair u as a domain index, or -1."""

    grades: tuple[int, ...]
    assessors: tuple[str, ...]
    qids: tuple[str, ...]
    docids: tuple[str, ...]
    codes: np.ndarray


def domain_of(grades) -> tuple[int, ...]:
    """The grade domain from a rubric (its ``grades``) or a sequence of distinct integers, sorted.

    >>> domain_of(range(3)), domain_of([3, 1, 2])
    ((0, 1, 2), (1, 2, 3))
    """
    values = getattr(grades, "grades", grades)
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise UsageError(f"grades must be a rubric or a sequence of integers. Got {grades!r} instead.")
    integral = all(isinstance(g, (int, np.integer)) and not isinstance(g, bool) for g in values)
    if not integral or len(set(values)) != len(values):
        raise UsageError(f"grades must be distinct integers. Got {list(values)!r} instead.")
    if len(values) < 2:
        raise UsageError(f"a grade domain needs at least two grades. Got {list(values)!r} instead.")
    return tuple(sorted(int(g) for g in values))


def code_labels(labels, grades) -> CodedLabels:
    """Validate ``labels`` against the domain ``grades`` and pivot them to one row per pair.

    >>> import polars as pl
    >>> frame = pl.DataFrame({"qid": ["q1", "q1", "q1"], "docid": ["a", "a", "b"],
    ...                       "assessor": ["ann", "bob", "ann"], "grade": [3, 1, 0]})
    >>> coded = code_labels(frame, [0, 1, 2, 3])
    >>> coded.assessors, coded.codes.tolist()
    (('ann', 'bob'), [[3, 1], [0, -1]])
    """
    domain = domain_of(grades)
    frame = _frame(labels)
    keys = frame.select("qid", "docid").unique().sort(["qid", "docid"]).with_row_index("unit")
    assessors = tuple(frame["assessor"].unique(maintain_order=True).to_list())
    indexed = frame.join(keys, on=["qid", "docid"], how="left", maintain_order="left").with_columns(
        pl.col("assessor").replace_strict(assessors, list(range(len(assessors))), return_dtype=pl.Int64)
        .alias("rater"))
    domain_array = np.asarray(domain)
    grade = indexed["grade"].to_numpy()
    position = np.searchsorted(domain_array, grade)
    inside = (position < len(domain)) & (domain_array[np.minimum(position, len(domain) - 1)] == grade)
    if not inside.all():
        row = int(np.flatnonzero(~inside)[0])
        raise InputError(f"grade {grade[row]} is not in the grade domain", path="labels", text=_row(frame, row),
                         expected=f"one of {', '.join(str(g) for g in domain)}")
    codes = np.full((keys.height, len(assessors)), -1, dtype=np.int16)
    codes[indexed["unit"].to_numpy(), indexed["rater"].to_numpy()] = position
    return CodedLabels(domain, assessors, tuple(keys["qid"].to_list()), tuple(keys["docid"].to_list()), codes)


def labels_from_qrels(qrels_by_assessor: Mapping[str, Qrels | str | Path], grades=None) -> pl.DataFrame:
    """One labels frame from each assessor's judgments; negative grades (pooled, not judged) are left out.

    With ``grades`` (a rubric or its grades), a grade outside the domain is an :class:`InputError` at its
    file line.

    >>> labels_from_qrels({"ann": {"q1": {"a": 2, "b": -1}}, "bob": {"q1": {"a": 1}}}).rows()
    [('q1', 'a', 'ann', 2), ('q1', 'a', 'bob', 1)]
    """
    frames = []
    for name, qrels in qrels_by_assessor.items():
        qrels = read_qrels(qrels, name=name)
        if grades is not None:
            check_domain(qrels, grades)
        judged = qrels.frame.filter(pl.col("grade") >= 0)
        frames.append(judged.select("qid", "docid", pl.lit(name).alias("assessor"), "grade"))
    if not frames:
        raise UsageError("no assessors given; name at least two, e.g. --assessor ann=ann.qrels.")
    return pl.concat(frames)


def graded_labels(labels: pl.DataFrame, grades, *, source: str) -> pl.DataFrame:
    """The labels with a grade (>= 0; negative means pooled, not judged), each checked against the domain.

    ``source`` names where the labels came from (a store's URL) in the error for a grade outside ``grades``.

    >>> frame = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "assessor": ["ann", "ann"], "grade": [2, -1]})
    >>> graded_labels(frame, [0, 1, 2], source="judged.db").rows()
    [('q1', 'a', 'ann', 2)]
    >>> graded_labels(frame, [0, 1], source="judged.db")
    Traceback (most recent call last):
    judged.errors.InputError: judged.db: grade 2 is not in the rubric's grades: 'q1 a ann 2' (expected one of 0, 1)
    """
    domain = domain_of(grades)
    judged = _frame(labels).filter(pl.col("grade") >= 0)
    outside = judged.filter(~pl.col("grade").is_in(domain))
    if outside.height:
        raise InputError(f"grade {outside['grade'][0]} is not in the rubric's grades", path=source,
                         text=_row(outside, 0), expected=f"one of {', '.join(map(str, domain))}")
    return judged


def check_domain(qrels: Qrels, grades) -> None:
    """Raise :class:`InputError` at the first judgment (grade >= 0) whose grade is outside the domain ``grades``.

    >>> check_domain(Qrels.from_dict({"q1": {"a": 4}}), [0, 1, 2, 3])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    judged.errors.InputError: qrels: grade 4 is not in the rubric's grades: 'q1 a 4' (expected one of 0, 1, 2, 3, ...)
    """
    domain = domain_of(grades)
    outside = qrels.frame.with_row_index("row").filter((pl.col("grade") >= 0) & ~pl.col("grade").is_in(domain))
    if not outside.height:
        return
    _, qid, docid, grade = outside.row(0)
    path = qrels.source.path if qrels.source else qrels.name
    line, text = _qrels_line(qrels, qid, docid)
    raise InputError(f"grade {grade} is not in the rubric's grades", path=path, line=line,
                     text=text or f"{qid} {docid} {grade}",
                     expected=f"one of {', '.join(map(str, domain))}, or a negative grade for a pooled pair "
                              "left unjudged")


def _qrels_line(qrels: Qrels, qid: str, docid: str) -> tuple[int | None, str | None]:
    """The line of a TREC qrels file holding (qid, docid), with its text; (None, None) for other sources."""
    source = qrels.source
    if source is None or source.format != "trec":
        return None, None
    with open(source.path, "rb") as handle:
        opener = gzip.open if handle.read(2) == b"\x1f\x8b" else open
    with opener(source.path, "rt", encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            fields = raw.split()
            if len(fields) == 4 and fields[0] == qid and fields[2] == docid:
                return number, raw.rstrip("\r\n")
    return None, None


def _frame(labels) -> pl.DataFrame:
    if not isinstance(labels, pl.DataFrame):
        if not hasattr(labels, "columns"):
            raise UsageError(f"labels must be a DataFrame with columns {', '.join(COLUMNS)}. "
                             f"Got {type(labels).__name__} instead.")
        labels = pl.from_pandas(labels)
    missing = [c for c in COLUMNS if c not in labels.columns]
    if missing:
        raise InputError(f"labels lack the column(s) {', '.join(missing)}", path="labels",
                         text=", ".join(labels.columns), expected=f"columns {', '.join(COLUMNS)}")
    frame = labels.select(pl.col("qid").cast(pl.String), pl.col("docid").cast(pl.String),
                          pl.col("assessor").cast(pl.String), "grade")
    nulls = frame.select(pl.any_horizontal(pl.all().is_null())).to_series()
    if nulls.any():
        raise InputError("a label has an empty field", path="labels", text=_row(frame, int(nulls.arg_max())),
                         expected="qid, docid, assessor and grade on every row")
    grade = frame["grade"]
    if not grade.dtype.is_numeric():
        raise InputError("grades are not numbers", path="labels", text=str(grade.dtype), expected="integer grades")
    if grade.dtype.is_float():
        fractional = (grade.is_nan() | ~grade.is_finite() | (grade != grade.round())).fill_null(True)
        if fractional.any():
            raise InputError("grade is not an integer", path="labels", text=_row(frame, int(fractional.arg_max())),
                             expected="integer grades")
    frame = frame.with_columns(pl.col("grade").cast(pl.Int64))
    repeated = frame.select(~pl.struct("qid", "docid", "assessor").is_first_distinct()).to_series()
    if repeated.any():
        raise InputError("the same assessor graded this pair twice", path="labels",
                         text=_row(frame, int(repeated.arg_max())),
                         expected="one row per (qid, docid) per assessor: the assessor's current grade")
    return frame


def _row(frame: pl.DataFrame, row: int) -> str:
    return " ".join(str(v) for v in frame.row(row))
