"""CSV, TSV and Parquet files and in-memory DataFrames with named columns.

Columns are found by name: ``qid`` (or ``query_id``, ``query``), ``docid``
(or ``doc_id``, ``doc``, ``docno``), ``score`` for runs and ``grade`` (or
``relevance``, ``rel``, ``label``) for qrels; pass ``columns=`` to map others.
A frame that names its document ``docno`` or ``doc_id`` is read by that
column even when it also has ``docid``: PyTerrier's frames, before and after
``pt.model.to_ir_measures``, carry ``docid`` as the index's integer.
pandas and polars DataFrames are accepted by the API. A value written as
text (every CSV/TSV field, a Parquet string column) follows the TREC reader's
number rule (:mod:`judged.io.numbers`, docs/formats.md): ASCII digits, sign,
point and exponent; a grade is an integer that fits in 64 bits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from judged.errors import InputError
from judged.io.inputs import Qrels, Run, Source, opened
from judged.io.numbers import GRADE_PATTERN, SCORE_PATTERN

_CANDIDATES = {
    "qid": ("qid", "query_id", "query", "topic"),
    "docid": ("docid", "doc_id", "doc", "docno", "document"),
    "score": ("score", "sim", "similarity"),
    "grade": ("grade", "relevance", "rel", "label", "judgment"),
}

#: The columns that name the document in PyTerrier's frames (``docno``) and ir_measures' (``doc_id``).
_NAMED_DOCUMENT = ("docno", "doc_id")


def read_table(path: str | Path, kind: str, format: str, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> Run | Qrels:
    """Read a CSV (``format='csv'``), TSV or Parquet file as a run or qrels."""
    path = str(path)
    with opened(path) as handle:  # once, in a stream: a pipe or `-` has no second reading
        source = Source.of_handle(path, format, handle)
        try:
            if format == "parquet":
                frame = pl.read_parquet(handle)
            else:
                frame = pl.read_csv(handle, separator="\t" if format == "tsv" else ",", infer_schema=False)
        except pl.exceptions.PolarsError as err:
            raise InputError(f"cannot read {format.upper()}: {str(err).splitlines()[0]}", path=path) from None
    if frame.height == 0:
        raise InputError("file has no data rows", path=path, expected="a header and data rows")
    return from_frame(frame, kind, name or Path(path).stem, columns, source)


def from_frame(frame, kind: str, name: str, columns: Mapping[str, str] | None = None,
               source: Source | None = None) -> Run | Qrels:
    """Build a run or qrels from a polars or pandas DataFrame with named columns."""
    if not isinstance(frame, pl.DataFrame):
        frame = pl.from_pandas(frame, nan_to_null=False) if hasattr(frame, "to_numpy") else pl.DataFrame(frame)
    value = "score" if kind == "run" else "grade"
    where = source.path if source else name
    chosen = {role: pick_column(frame.columns, role, columns, where) for role in ("qid", "docid", value)}
    picked = frame.select(pl.col(col).alias(role) for role, col in chosen.items())
    picked = _typed(picked, value, where)
    ids = (chosen["qid"], chosen["docid"])
    if kind == "run":
        return Run.from_frame(picked, name, source, ids)
    return Qrels.from_frame(picked, name, source, ids)


def pick_column(names: Sequence[str], role: str, columns: Mapping[str, str] | None, where: str) -> str:
    """The column among ``names`` that holds ``role``: the one ``columns`` maps it to, else a usual name.

    Shared by the local readers and :mod:`judged.spark`, so both accept and refuse the same tables.
    """
    if columns and role in columns:
        if columns[role] not in names:
            raise InputError(f"column {columns[role]!r} (for {role}) not found", path=where,
                             text=", ".join(names), expected=f"a column named {columns[role]!r}")
        return columns[role]
    for candidate in _preferred(role, names):
        if candidate in names:
            return candidate
    raise InputError(f"no {role} column", path=where, text=", ".join(names),
                     expected=f"one of {', '.join(_CANDIDATES[role])} (or pass columns=)")


def _preferred(role: str, names: Sequence[str]) -> tuple[str, ...]:
    """The usual names of ``role`` in the order they are tried: ``docno``/``doc_id`` before ``docid``.

    >>> _preferred("docid", ["qid", "docid", "docno", "score"])[:2]
    ('docno', 'doc_id')
    """
    if role == "docid" and any(name in names for name in _NAMED_DOCUMENT):
        return _NAMED_DOCUMENT + tuple(c for c in _CANDIDATES[role] if c not in _NAMED_DOCUMENT)
    return _CANDIDATES[role]


def _typed(frame: pl.DataFrame, value: str, where: str) -> pl.DataFrame:
    frame = frame.with_columns(pl.col("qid").cast(pl.String), pl.col("docid").cast(pl.String))
    raw = frame[value]
    if raw.dtype == pl.String:
        return frame.with_columns(_from_text(raw, value, where).alias(value))
    as_float = raw.cast(pl.Float64, strict=False)
    _refuse(as_float.is_null(), raw, f"{value} is not a number", where, "a number")
    if value == "grade":
        _refuse(as_float != as_float.round(), raw, "grade is not an integer", where,
                "an integer grade (fractional grades are not truncated)")
    return frame.with_columns(as_float.alias(value))


def _from_text(raw: pl.Series, value: str, where: str) -> pl.Series:
    """The numbers a text column spells, by the one number rule; the first row that breaks it is an error."""
    if value == "score":
        _refuse(~raw.str.contains(SCORE_PATTERN).fill_null(False), raw, "score is not a number", where,
                "a number (ASCII digits, sign, point and exponent)")
        return raw.cast(pl.Float64)
    integral = raw.str.contains(GRADE_PATTERN).fill_null(False)
    _refuse(~integral, raw, "grade is not an integer", where,
            "an integer grade (ASCII digits and sign; fractional grades are not truncated)")
    grades = raw.cast(pl.Int64, strict=False)
    _refuse(grades.is_null(), raw, "grade is out of range", where, "an integer grade that fits in 64 bits")
    return grades


def _refuse(bad: pl.Series, raw: pl.Series, problem: str, where: str, expected: str) -> None:
    """Raise at the first row flagged in ``bad``, showing that row's own value."""
    if bad.any():
        row = int(bad.arg_true()[0])
        raise InputError(f"{problem} (row {row + 1})", path=where, text=str(raw[row]), expected=expected)
