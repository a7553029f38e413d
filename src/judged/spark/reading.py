"""Each data file read in a Spark worker by judged's own local reader, and the rows every input becomes.

A file is one task: the executor hands its path (a ``file:`` URI) or its
bytes (any other filesystem, through Spark's ``binaryFile`` source) to
:func:`judged.io.read_run` / :func:`judged.io.read_qrels` exactly as the
local engine does, so a file is accepted, refused and named by the same code,
message for message, and a grammar change in the local reader reaches Spark
with no Spark code. Rows leave the worker in the common layout
:data:`ROWS`; a file's problem, hash, run tag and collapsed repeats travel as
one extra ``meta`` row rather than as an exception, so the driver raises the
first problem as the local reader would.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import polars as pl
import pyarrow as pa

from judged.errors import InputError
from judged.io import read_qrels, read_run
from judged.io.inputs import Source
from judged.io.tabular import from_frame, read_table
from judged.spark.sources import DataFile

ROWS = ("side string, qid string, docid string, score double, grade long, text string, `order` long, "
        "file string, `row` long, meta boolean, tag string, sha256 string, collapsed long, error string")
ROW_FIELDS = [field.strip().split(" ")[0].strip("`") for field in ROWS.split(",")]
FILE_SHIFT = 40  # a row's order is (file index << 40) + its row in the file: files in name order, rows in file order
ROW_MASK = (1 << FILE_SHIFT) - 1


_ARROW = {"string": pa.string(), "double": pa.float64(), "long": pa.int64(), "boolean": pa.bool_(),
          "array<double>": pa.list_(pa.float64()), "array<long>": pa.list_(pa.int64())}


def arrow_schema(ddl: str) -> pa.Schema:
    """The Arrow schema Spark expects back from a Python worker for a DDL schema of :data:`ROWS`' simple types."""
    fields = [field.strip().split(" ", 1) for field in ddl.split(", ")]
    return pa.schema([(name.strip("`"), _ARROW[kind]) for name, kind in fields])


_ROWS_SCHEMA = arrow_schema(ROWS)


def error_json(error: InputError, path: str | None = None) -> str:
    """An :class:`InputError` as data (its fields), optionally at another path; :func:`raise_error` rebuilds it."""
    return json.dumps({"problem": error.problem, "path": path if path is not None else error.path,
                       "line": error.line, "text": error.text, "expected": error.expected})


def raise_error(text: str) -> None:
    """Raise the :class:`InputError` that :func:`error_json` wrote."""
    fields = json.loads(text)
    raise InputError(fields.pop("problem"), **fields)


def file_reader(kind: str, files: tuple[DataFile, ...], format: str, columns: Mapping[str, str] | None):
    """The ``mapInArrow`` function that reads the files whose indices (``index``, and ``content`` when not local)
    arrive in its batches."""

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index, content in zip(batch.column("index").to_pylist(), batch.column("content").to_pylist()):
                yield from _read_one(kind, index, files[index], format, columns, content)

    return read


def _read_one(kind: str, index: int, file: DataFile, format: str, columns, content: bytes | None):
    with _local_copy(file, content) as local:
        try:
            item = _read_local(kind, local, file, format, columns)
        except InputError as error:
            yield _meta(kind, index, file, error=error_json(error, _shown(error.path, local, file)))
            return
        except (OSError, EOFError) as error:  # a damaged file the reader did not put into words (a truncated gzip)
            yield _meta(kind, index, file, error=error_json(InputError(f"cannot read file: {error}", path=file.shown)))
            return
    frame = item.frame.with_row_index("row").select(  # a data row names no file: its order says which
        "qid", "docid", item.frame.columns[2],
        pl.lit(kind).alias("side"),
        ((pl.lit(index, pl.Int64) * (1 << FILE_SHIFT)) + pl.col("row").cast(pl.Int64)).alias("order"),
        pl.lit(False).alias("meta"),
    )
    yield from _in_rows(frame).to_batches(max_chunksize=1 << 20)
    tag = item.name if kind == "run" and format == "trec" else None
    yield _meta(kind, index, file, tag=tag, sha256=item.source.sha256 if item.source else None,
                collapsed=getattr(item, "collapsed_duplicates", 0))


def _read_local(kind: str, local: str, file: DataFile, format: str, columns):
    """The file read by the local reader; hive partition values (``qid=001`` folders) join a Parquet file's columns
    (the other formats hold every column in the file)."""
    reader = read_run if kind == "run" else read_qrels
    if format != "parquet" or not file.partitions:
        return reader(local, format=format, columns=columns)
    if os.path.getsize(local) == 0:
        return read_table(local, kind, format, None, columns)
    frame = pl.read_parquet(local)
    frame = frame.with_columns(pl.lit(v).alias(k) for k, v in file.partitions if k not in frame.columns)
    return from_frame(frame, kind, Path(local).stem, columns, Source.of_file(local, format))


class _local_copy:
    """The file's local path: itself for a ``file:`` URI, else its bytes written to a temporary file (removed after)."""

    def __init__(self, file: DataFile, content: bytes | None) -> None:
        self.file, self.content = file, content
        self.temp: str | None = None

    def __enter__(self) -> str:
        if self.file.local is not None:
            return self.file.local
        handle, self.temp = tempfile.mkstemp(prefix="judged-", suffix="-" + Path(self.file.uri).name)
        with os.fdopen(handle, "wb") as out:
            out.write(self.content or b"")
        return self.temp

    def __exit__(self, *exc) -> None:
        if self.temp is not None:
            os.unlink(self.temp)


def _shown(path: str | None, local: str, file: DataFile) -> str | None:
    """An error's path as the user named the file (the local reader saw a URI's path or a temporary copy)."""
    return file.shown if path in (local, str(Path(local))) else path


def _in_rows(frame: pl.DataFrame) -> pa.Table:
    """``frame``'s columns in :data:`ROWS` order, absent ones null."""
    types = {"side": pl.String, "qid": pl.String, "docid": pl.String, "score": pl.Float64, "grade": pl.Int64,
             "text": pl.String, "order": pl.Int64, "file": pl.String, "row": pl.Int64, "meta": pl.Boolean,
             "tag": pl.String, "sha256": pl.String, "collapsed": pl.Int64, "error": pl.String}
    return frame.select(
        (pl.col(name) if name in frame.columns else pl.lit(None)).cast(types[name]).alias(name) for name in ROW_FIELDS
    ).to_arrow().cast(_ROWS_SCHEMA)


def _meta(kind: str, index: int, file: DataFile, **fields) -> pa.RecordBatch:
    row = {"side": kind, "order": index << FILE_SHIFT, "file": file.shown, "meta": True, **fields}
    return _in_rows(pl.DataFrame([row])).to_batches()[0]
