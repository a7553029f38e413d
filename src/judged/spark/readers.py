"""Read TREC and Parquet run and judgment files with Spark, each row keeping its place in its file.

TREC lines are split on whitespace as the local strict parser splits them:
``#`` lines and blank lines are skipped, a run line needs six fields (more
are ignored, as trec_eval ignores them), a qrels line exactly four, a score
must be a finite number and a grade an integer; a row that breaks a rule
carries the local reader's problem text and is reported with its line. Every
row keeps its order in the file (file, split, position in the split), which
gives ``ties=input`` its meaning and an error its line number. A run is named
by the tag on its last line, as trec_eval names it, found within the
evaluation's own Spark job. gzip files are read by their ``.gz`` suffix
(Hadoop's codecs) rather than sniffed. Parquet columns are found by name as
in :mod:`judged.io.tabular`.
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlparse

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from judged.errors import InputError, UsageError
from judged.io.inputs import Source
from judged.io import detect_format
from judged.spark.inputs import SparkInput, finite, first_problem, from_dataframe, parse_number

FORMATS = ("trec", "parquet")
RUN_FIELDS = "qid Q0 docid rank score tag"
QRELS_FIELDS = "qid iter docid grade"
INTEGER = r"^[+-]?[0-9]+$"


def read_run(spark: SparkSession, path: str, *, format: str | None = None, name: str | None = None,
             columns: Mapping[str, str] | None = None) -> SparkInput:
    """Read a TREC or Parquet run with Spark, for :func:`judged.spark.evaluate`; nothing is read until it runs.

    >>> from judged.spark import spark_session
    >>> run = read_run(spark_session(), "examples/runs/bm25.run")
    >>> run.frame.where("qid = 'q01'").count(), run.default_name
    (100, 'bm25.run')
    """
    return _read(spark, path, "run", format, name, columns)


def read_qrels(spark: SparkSession, path: str, *, format: str | None = None, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> SparkInput:
    """Read TREC or Parquet judgments with Spark; exact repeats collapse and conflicting grades are an error.

    >>> from judged.spark import spark_session
    >>> qrels = read_qrels(spark_session(), "examples/qrels.txt")
    >>> sorted(r.grade for r in qrels.frame.where("qid = 'q01'").select("grade").distinct().collect())
    [0, 1, 2, 3]
    """
    return _read(spark, path, "qrels", format, name, columns)


def _read(spark: SparkSession, path: str, kind: str, format: str | None, name: str | None, columns) -> SparkInput:
    path = str(path)
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise UsageError(
            f"the Spark engine reads {' and '.join(FORMATS)} files. Got {fmt!r} for {path}; "
            "convert it to Parquet or use the local engine."
        )
    local = _local(path)
    if local is not None and not glob.glob(local):
        raise InputError("no such file", path=path)
    source = {
        "path": path,
        "format": fmt,
        "sha256": Source.of_file(local, fmt).sha256 if local is not None and Path(local).is_file() else None,
    }
    try:
        if fmt == "trec":
            return _trec(spark, path, kind, name, source)
        return _parquet(spark, path, kind, name, columns, source)
    except AnalysisException as err:
        raise InputError(f"cannot read {fmt}: {str(err).splitlines()[0]}", path=path) from None


def _local(path: str) -> str | None:
    """``path`` on this machine's filesystem (a plain path or a ``file:`` URI), else None (hdfs://, s3a://...)."""
    parsed = urlparse(path)
    if parsed.scheme == "file":
        return parsed.path
    return path if len(parsed.scheme) <= 1 else None


def _trec(spark: SparkSession, path: str, kind: str, name: str | None, source: dict) -> SparkInput:
    lines = _numbered(spark.read.text(path)).withColumnRenamed("value", "text")
    text = F.col("text")
    data = lines.where(~text.startswith("#")).select("text", "order", _fields(text).alias("fields"))
    data = data.where(F.size("fields") > 0)
    fields = F.col("fields")
    width = F.size(fields)
    if kind == "run":
        score = parse_number(F.get(fields, 4))
        problem, expected = first_problem([
            (width < 6, _found(6, width), RUN_FIELDS),
            (score.isNull(), "score is not a number", "a finite number in column 5"),
            (~finite(score), "score is not a finite number", "a finite number in column 5"),
        ])
        value, tag, empty = score.alias("score"), F.get(fields, 5), RUN_FIELDS
    else:
        grade = F.when(F.get(fields, 3).rlike(INTEGER), F.get(fields, 3).try_cast("long"))
        problem, expected = first_problem([
            (width != 4, _found(4, width), QRELS_FIELDS),
            (grade.isNull(), "grade is not an integer", "an integer grade in column 4 (fractional grades are not truncated)"),
        ])
        value, tag, empty = grade.alias("grade"), F.lit(None).cast("string"), QRELS_FIELDS
    frame = data.select(
        F.get(fields, 0).alias("qid"),
        F.get(fields, 2).alias("docid"),
        value,
        "order",
        problem.alias("problem"),
        expected.alias("expected"),
        "text",
        tag.alias("tag"),
    )
    return SparkInput(kind, frame, name, Path(path).name, lines=lines.select("order", "file"),
                      empty=("file has no data lines", empty + " lines"), **source)


def _fields(text: Column) -> Column:
    """The line split on runs of whitespace, as ``str.split()``; empty for a blank line.

    Most lines separate fields by single spaces, and for them a literal split
    (no regular expression) is about twice as fast; any other whitespace takes the general path.
    """
    simple = ~(text.contains("  ") | text.startswith(" ") | text.endswith(" ") | text.contains("\t")
               | text.contains("\r") | text.contains("\x0b") | text.contains("\x0c") | (text == ""))
    stripped = F.regexp_replace(text, r"^\s+|\s+$", "")
    general = F.when(stripped == "", F.array().cast("array<string>")).otherwise(F.split(stripped, r"\s+"))
    return F.when(simple, F.split(text, " ")).otherwise(general)


def _numbered(df: DataFrame) -> DataFrame:
    """``df`` with ``order`` (increasing with the position in each file) and ``file`` (the file's URI).

    Spark hands a file's splits to partitions in the file's order, so the
    partition-prefixed ids of ``monotonically_increasing_id`` increase down
    every file: one long orders the rows (``ties=input``) and, counted
    within the file, gives an error its line or row number.
    """
    return df.select("*", F.monotonically_increasing_id().alias("order"), F.col("_metadata.file_path").alias("file"))


def _found(width: int, found: Column) -> Column:
    return F.concat(F.lit(f"expected {width} columns, found "), found.cast("string"))


def _parquet(spark: SparkSession, path: str, kind: str, name: str | None, columns, source: dict) -> SparkInput:
    rows = _numbered(spark.read.parquet(path))
    return from_dataframe(rows, kind, name=name, columns=columns, order=F.col("order"), default_name=Path(path).stem,
                          lines=rows.select("order", "file"), numbered=True,
                          empty=("file has no data rows", "a header and data rows"), **source)
