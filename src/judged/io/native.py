"""The Python face of :mod:`judged._native`, the C loops that read and match large runs.

Strings cross the boundary as Arrow string views, polars' own layout, so a
parsed column becomes a polars Series without a copy and a polars column is
read by C in place. Work is spread over polars' thread count.

The extension is optional: when it was not built (no compiler at install
time, another platform) or ``JUDGED_NATIVE=0`` is set in the environment,
:func:`parse_trec` always answers ``None`` (the strict parser reads every
file) and the matching functions run in polars. :data:`NATIVE_STATUS` says
which (``judged --version`` shows it), and a debug line is logged.

>>> frame = parse_trec(b"q1 Q0 d1 1 2.5 run\\n# a comment\\nq1 Q0 d2 2 1.5 run\\n", RUN_FORMAT)
>>> frame is None or frame.rows() == [('q1', 'd1', 2.5), ('q1', 'd2', 1.5)]  # None: the extension is absent
True
>>> parse_trec(b"q1 Q0 d1 1 2.5\\n", RUN_FORMAT) is None  # short line: the strict parser decides
True
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import polars as pl
import pyarrow as pa


def _load_native() -> tuple[ModuleType | None, str]:
    """The extension module and a line saying whether it is used (``JUDGED_NATIVE=0`` turns it off)."""
    if os.environ.get("JUDGED_NATIVE", "1").strip() == "0":
        return None, "disabled by JUDGED_NATIVE=0"
    try:
        from judged import _native
    except ImportError as err:
        return None, f"not built: {err}"
    return _native, "available"


_native, NATIVE_STATUS = _load_native()
"""``available``, ``not built: <reason>`` or ``disabled by JUDGED_NATIVE=0``."""
if _native is None:
    logging.getLogger(__name__).debug("native reader %s; the strict Python parser reads TREC files", NATIVE_STATUS)


class TextShrank(OSError):
    """A mapped file shrank while the native parser read it (caught SIGBUS): the reader reports it."""


@dataclass(frozen=True)
class TrecFormat:
    """Where the fields of a TREC line are: the value's column, the least and most fields a line has."""

    value_column: str
    value_field: int
    min_fields: int
    max_fields: int  # 0: trailing fields allowed
    integer: bool
    indented_comments: bool  # a '#' after leading whitespace starts a comment too, as in trec_eval's runs


RUN_FORMAT = TrecFormat("score", 4, 6, 0, integer=False, indented_comments=True)
QRELS_FORMAT = TrecFormat("grade", 3, 4, 4, integer=True, indented_comments=False)


def parse_trec(text, form: TrecFormat, mapped: bool = False) -> pl.DataFrame | None:
    """Columns ``qid, docid`` and the value of every data line of ``text`` (bytes-like), or ``None``.

    ``mapped`` says ``text`` is a read-only :class:`mmap.mmap` of a file: its
    pages are handed back to the page cache as they are parsed, so the file
    and the columns parsed from it are not resident at once.

    ``None`` means a line the strict parser must judge (too few or too many
    fields, a value that is not a plain decimal number, a control byte, invalid
    UTF-8, a byte-order mark at the start), or that the extension is absent:
    the fast path never reads a line differently. Fields are split on ASCII
    whitespace only (docs/formats.md). :class:`TextShrank` when the mapped file
    shrinks while it is read.
    """
    if _native is None:
        return None
    try:
        parsed = _native.parse_trec(
            text, form.value_field, form.min_fields, form.max_fields, form.integer, mapped, pl.thread_pool_size(),
            form.indented_comments,
        )
    except _native.TextShrank as err:
        raise TextShrank(str(err)) from None
    if parsed is None:
        return None
    return _frame(*parsed, integer=form.integer, value_column=form.value_column)


def flatten_nested(nested: object, value_column: str) -> tuple[pl.DataFrame, np.ndarray] | None:
    """Columns ``qid, docid, <value_column>`` of a ``{qid: {docid: value}}`` dict of dicts, in its order, and
    each qid's number of rows; ``None`` when the extension is absent or a key is not a ``str``, an inner
    mapping not a ``dict``, or a value not a float or int (an int for ``grade``): the Python path converts or
    refuses those with a located message.

    >>> flat = flatten_nested({"q1": {"d1": 2.5, "d2": 1}, "q2": {}}, "score")
    >>> flat is None or (flat[0].rows(), flat[1].tolist()) == ([("q1", "d1", 2.5), ("q1", "d2", 1.0)], [2, 0])
    True
    """
    if _native is None or type(nested) is not dict:
        return None
    flat = _native.flatten_nested(nested, value_column == "grade")
    if flat is None:
        return None
    *columns, lengths = flat
    frame = _frame(*columns, integer=value_column == "grade", value_column=value_column)
    return frame, np.frombuffer(lengths, dtype=np.int64)


def _frame(
    rows: int, qid_views, docid_views, values, buffers: list, *, integer: bool, value_column: str
) -> pl.DataFrame:
    """The C extension's string views and values as a polars frame, without copying them."""
    data = [pa.py_buffer(b) for b in buffers]
    columns = [
        pa.Array.from_buffers(pa.string_view(), rows, [None, pa.py_buffer(qid_views), *data]),
        pa.Array.from_buffers(pa.string_view(), rows, [None, pa.py_buffer(docid_views), *data]),
        pa.Array.from_buffers(pa.int64() if integer else pa.float64(), rows, [None, pa.py_buffer(values)]),
    ]
    # As a record batch, polars takes the columns without importing pyarrow.compute (20 ms at start-up).
    return pl.DataFrame(pa.RecordBatch.from_arrays(columns, names=["qid", "docid", value_column]))


def first_repeated_row(docids: pl.Series, offsets: np.ndarray) -> int | None:
    """The first row whose docid already appeared among rows ``offsets[b]:offsets[b + 1]`` of its query ``b``."""
    if _native is None:
        return _first_repeated_row_polars(docids, offsets)
    views, buffers = string_views(docids)
    repeated, _, _ = _native.scan_queries(
        views, buffers, _int64(offsets), None, None, None, None, None, True, _threads_for(len(docids))
    )
    return None if repeated < 0 else repeated


def match_judgments(
    docids: pl.Series,
    offsets: np.ndarray,
    judged_docids: pl.Series,
    judged_rows: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The run rows that have a judgment, ascending, and the row of that judgment; matched exactly on docid
    within each query.

    Query ``b``'s run rows are ``offsets[b]:offsets[b + 1]``; its judgments are
    rows ``judged_rows[starts[b]:ends[b]]`` of ``judged_docids``.
    """
    if _native is None:
        return _match_judgments_polars(docids, offsets, judged_docids, judged_rows, starts, ends)
    views, buffers = string_views(docids)
    judged_views, judged_buffers = string_views(judged_docids)
    _, rows, judged = _native.scan_queries(
        views,
        buffers,
        _int64(offsets),
        judged_views,
        judged_buffers,
        _int64(judged_rows),
        _int64(starts),
        _int64(ends),
        False,
        _threads_for(len(docids) + len(judged_docids)),
    )
    return np.frombuffer(rows, dtype=np.int64), np.frombuffer(judged, dtype=np.int64)


def order_by_score(scores: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The permutation putting each query's rows (``lengths`` rows a query, in order) by score, highest first;
    equal scores keep their input order (a stable sort per query, as trec_eval sorts each query).

    >>> order_by_score(np.array([1.0, 3.0, 3.0, 2.0, 5.0]), np.array([3, 2])).tolist()
    [1, 2, 0, 4, 3]
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if _native is None:
        query = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        return np.lexsort((-scores, query)).astype(np.int64)
    return np.frombuffer(_native.order_by_score(scores, _int64(lengths), _threads_for(len(scores))), dtype=np.int64)


def order_tied(
    docids: pl.Series, members: np.ndarray, opens: np.ndarray, grades: np.ndarray | None, best: bool
) -> np.ndarray:
    """The rows of each tied group in rank order: by grade when ``grades`` is given (descending when
    ``best``, else ascending), then docid descending by bytes. ``members`` lists the groups' rows, group
    after group; ``opens[i]`` marks the first row of a group."""
    if _native is None:
        return _order_tied_polars(docids, members, opens, grades, best)
    views, buffers = string_views(docids)
    grades = None if grades is None else np.ascontiguousarray(grades, dtype=np.int32)
    rows = _native.order_tied(views, buffers, _int64(members), np.ascontiguousarray(opens, dtype=bool), grades, best)
    return np.frombuffer(rows, dtype=np.int64)


def _threads_for(rows: int) -> int:
    """Threads for C work over ``rows`` rows: one below 65,536 (starting threads would cost more than they
    save, and more again on a loaded machine), else polars' thread count."""
    return 1 if rows < 1 << 16 else pl.thread_pool_size()


def string_views(series: pl.Series) -> tuple[memoryview, list]:
    """The 16-byte views of a String series and the buffers they point into, without copying."""
    array = series.to_arrow(compat_level=pl.CompatLevel.newest())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        raise ValueError("string_views: the series has nulls")
    if not pa.types.is_string_view(array.type):
        array = array.cast(pa.string_view())
    buffers = array.buffers()
    views = memoryview(buffers[1]).cast("B")[16 * array.offset : 16 * (array.offset + len(array))]
    return views, buffers[2:]


def _int64(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


# ---- the same answers in polars, for when the extension is absent ----------------------------------


def _blocks(offsets: np.ndarray) -> np.ndarray:
    """The block of each row, for blocks ``offsets[b]:offsets[b + 1]``."""
    offsets = _int64(offsets)
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def _first_repeated_row_polars(docids: pl.Series, offsets: np.ndarray) -> int | None:
    frame = pl.DataFrame({"block": _blocks(offsets), "docid": docids}).with_row_index("row")
    later = frame.filter(pl.col("row") != pl.col("row").min().over("block", "docid"))
    if later.is_empty():
        return None
    return int(later.select(pl.col("row").min()).item())


def _match_judgments_polars(
    docids: pl.Series, offsets: np.ndarray, judged_docids: pl.Series, judged_rows: np.ndarray,
    starts: np.ndarray, ends: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    lengths = _int64(ends) - _int64(starts)
    firsts = np.cumsum(lengths) - lengths
    picked = np.arange(lengths.sum(), dtype=np.int64) + np.repeat(_int64(starts) - firsts, lengths)
    judged = _int64(judged_rows)[picked]
    right = pl.DataFrame({
        "block": np.repeat(np.arange(len(lengths), dtype=np.int64), lengths),
        "docid": judged_docids.gather(judged),
        "judged": judged,
    })
    left = pl.DataFrame({"block": _blocks(offsets), "docid": docids}).with_row_index("row")
    matched = left.join(right, on=["block", "docid"], how="inner").unique("row", keep="first").sort("row")
    return matched["row"].to_numpy().astype(np.int64), matched["judged"].to_numpy().astype(np.int64)


def _order_tied_polars(
    docids: pl.Series, members: np.ndarray, opens: np.ndarray, grades: np.ndarray | None, best: bool
) -> np.ndarray:
    members = _int64(members)
    keys = {"group": np.cumsum(np.asarray(opens, dtype=np.int64)), "docid": docids.gather(members), "row": members}
    by, descending = ["group", "docid"], [False, True]
    if grades is not None:
        keys["grade"] = np.asarray(grades)[members]
        by, descending = ["group", "grade", "docid"], [False, best, True]
    ordered = pl.DataFrame(keys).sort(by, descending=descending, maintain_order=True)
    return ordered["row"].to_numpy().astype(np.int64)
