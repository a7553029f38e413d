"""Runs and judgments on Spark as rows of one layout (:data:`judged.spark.reading.ROWS`), and where they came from.

Files are read in the workers by the local readers (:mod:`judged.spark.reading`).
A Spark DataFrame is not validated here: its columns are found by the local
rule (:func:`judged.io.tabular.pick_column`, ``columns=`` maps others, and
its ``order`` entry names a column numbering the run's rows, which
``ties=input`` needs because a DataFrame has no row order of its own), its
values travel untouched, and each bucket of whole queries is validated by
the local frame code (:func:`judged.io.tabular.from_frame`) in the worker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from judged.errors import UsageError
from judged.io.tabular import pick_column
from judged.spark.reading import ROW_FIELDS

VALUE_ROLE = {"run": "score", "qrels": "grade"}
INTEGER_TYPES = ("tinyint", "smallint", "int", "bigint")
FLOAT_TYPES = ("float", "double")


@dataclass(frozen=True, eq=False)
class SparkInput:
    """A run or judgments as Spark rows, with what the provenance and the buckets need to know of them.

    ``frame`` has the :data:`~judged.spark.reading.ROWS` columns; ``value``
    names the one holding each row's score or grade (``score``, ``grade`` or
    ``text``); ``checked`` says the rows were already validated file by file
    by the local reader; ``ordered`` that ``order`` numbers them in input
    order; ``size`` estimates their bytes, from which the buckets are sized;
    ``single`` that the input is one file (whose hash is then the input's);
    ``collapsed`` counts repeated judgments collapsed before Spark saw them;
    ``files`` names the input's files in the order their rows are numbered;
    ``id_columns`` the DataFrame's columns the qids and docids came from.
    """

    kind: str
    frame: DataFrame
    name: str | None
    default_name: str
    path: str | None = None
    format: str = "spark"
    value: str = "score"
    checked: bool = False
    ordered: bool = False
    size: int = 0
    single: bool = False
    sha256: str | None = None
    collapsed: int = 0
    files: tuple[str, ...] = ()
    id_columns: tuple[str, str] | None = None


def as_input(source, kind: str, columns: Mapping[str, str] | None = None, name: str | None = None) -> SparkInput:
    """``source`` as a :class:`SparkInput`: read files keep theirs; a DataFrame has its columns found by name.

    >>> from judged.spark import spark_session
    >>> df = spark_session().createDataFrame([("q1", "d1", "2.5")], ["query_id", "doc", "score"])
    >>> run = as_input(df, "run")
    >>> run.value, run.ordered, run.frame.select("qid", "docid", "text").first()
    ('text', False, Row(qid='q1', docid='d1', text='2.5'))
    """
    if isinstance(source, SparkInput):
        return source
    if not isinstance(source, DataFrame):
        raise UsageError(
            f"judged.spark reads Spark DataFrames or judged.spark.read_{kind}(...). "
            f"Got {type(source).__name__} instead."
        )
    return from_dataframe(source, kind, name=name, columns=columns)


def from_dataframe(df: DataFrame, kind: str, *, name: str | None = None, columns: Mapping[str, str] | None = None,
                   **source) -> SparkInput:
    """The rows of ``df`` for a ``run`` or ``qrels``: id columns as strings, the value as it was typed."""
    where = source.get("path") or name or kind
    role = VALUE_ROLE[kind]
    chosen = {r: pick_column(df.columns, r, columns, where) for r in ("qid", "docid", role)}
    order = None
    if kind == "run" and columns and "order" in columns:
        order = df[pick_column(df.columns, "order", columns, where)].cast("long")
    typed = dict(df.dtypes)[chosen[role]]
    value = "grade" if typed in INTEGER_TYPES else "score" if typed in FLOAT_TYPES else "text"
    picked: dict[str, Column] = {
        "side": F.lit(kind),
        "qid": df[chosen["qid"]].cast("string"),
        "docid": df[chosen["docid"]].cast("string"),
        value: df[chosen[role]].cast({"grade": "long", "score": "double", "text": "string"}[value]),
        "order": order if order is not None else F.lit(None),
        "meta": F.lit(False),
    }
    types = {"score": "double", "grade": "long", "order": "long", "row": "long", "collapsed": "long",
             "meta": "boolean"}
    frame = df.select(*((picked[f] if f in picked else F.lit(None)).cast(types.get(f, "string")).alias(f)
                        for f in ROW_FIELDS))
    return SparkInput(kind, frame, name, name or kind, value=value, ordered=order is not None,
                      size=estimated_size(df), **{"id_columns": (chosen["qid"], chosen["docid"]), **source})


UNKNOWN_SIZE = 1 << 62  # Spark reports Long.MaxValue bytes when it cannot estimate a plan


def estimated_size(df: DataFrame) -> int:
    """Spark's own estimate of the bytes behind ``df`` (from its plan's statistics), 0 when it has none."""
    try:
        size = int(str(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))
    except Exception:  # an estimate only: without one the buckets follow the parallelism
        return 0
    return size if size < UNKNOWN_SIZE else 0
