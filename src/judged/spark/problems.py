"""Locate an input problem the evaluation counted: the first bad row, at its file line, as the local readers say it.

Only runs when the evaluation's own job found a problem: a small second job
picks the first bad row in input order (or by qid and docid, for a DataFrame
without one) and, for a file, counts the lines before it in the same file,
so the message reads ``path:line: problem: 'text' (expected ...)`` exactly as
:mod:`judged.io` writes it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from pyspark.sql import Row, Window
from pyspark.sql import functions as F

from judged.errors import InputError
from judged.spark.inputs import VALUE_ROLE, SparkInput


def row_problem(source: SparkInput) -> InputError:
    """The first row of ``source`` (in input order where known) that cannot be used, as an error."""
    bad = source.frame.where(F.col("problem").isNotNull())
    return input_error(source, bad.orderBy("order", "qid", "docid").select("problem", "expected", "text", "order").first())


def repeated_pair(source: SparkInput) -> InputError:
    """The first row repeating a (qid, docid) pair: a document twice in a run, or a judgment with a second grade."""
    pair = Window.partitionBy("qid", "docid")
    rows = source.frame.withColumn("nth", F.row_number().over(pair.orderBy("order", "text")))
    if source.kind == "run":
        problem, expected = "document appears twice in the same query of the run", "each docid at most once per query"
    else:
        rows = rows.withColumn("grades", F.size(F.collect_set("grade").over(pair))).where(F.col("grades") > 1)
        problem = "conflicting judgment: this document was already judged with a different grade"
        expected = "one grade per (qid, docid)"
    text = F.concat_ws(" ", "qid", "docid", F.col(VALUE_ROLE[source.kind]).cast("string")) if source.numbered else F.col("text")
    second = rows.where(F.col("nth") == 2).orderBy("order", "qid", "docid").select(text.alias("text"), "order").first()
    return input_error(source, Row(problem=problem, expected=expected, text=second["text"], order=second["order"]))


def input_error(source: SparkInput, row: Row) -> InputError:
    """An error for one bad row: at its file line (TREC) or row (Parquet) where it came from a file, else by its values."""
    path, line, problem = source.path or source.default_name, None, row["problem"]
    if source.lines is not None:
        file = source.lines.where(F.col("order") == row["order"]).first()["file"]
        number = 1 + source.lines.where((F.col("file") == file) & (F.col("order") < row["order"])).count()
        path = source.path if same_file(source.path, file) else local_path(file)
        if source.numbered:
            problem = f"{problem} (row {number})"
        else:
            line = number
    return InputError(problem, path=path, line=line, text=row["text"], expected=row["expected"])


def same_file(path: str | None, uri: str) -> bool:
    """Whether the file Spark calls ``uri`` is the one the user named ``path`` (not a file found in a folder)."""
    return path is not None and Path(local_path(uri)).resolve() == Path(local_path(path)).resolve()


def local_path(uri: str) -> str:
    """A ``file:`` URI as a plain path (how the local readers name files); other URIs unchanged."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri
