"""Runs and judgments as Spark DataFrames in judged's shape, each row's problem kept as data.

A :class:`SparkInput` holds the columns the evaluation reads and, per row,
what makes the row unusable (null for a good row). Problems are not raised
while the data is read: they are counted in the same Spark job as the
evaluation, so a clean input is read once, and only when one is found does a
second, small job locate it (:mod:`judged.spark.problems`) to name the file,
line and offending text, as the local readers do.

Columns are found by the same names as :mod:`judged.io.tabular` (``qid`` or
``query_id``..., ``docid`` or ``doc_id``..., ``score``, ``grade`` or
``relevance``...); ``columns=`` maps others, and its ``order`` entry names
a column that numbers the run's rows (needed only by ``ties=input``,
because a DataFrame has no row order of its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from judged.errors import UsageError
from judged.io.tabular import pick_column

VALUE_ROLE = {"run": "score", "qrels": "grade"}


@dataclass(frozen=True, eq=False)
class SparkInput:
    """A run or judgments as a Spark DataFrame with judged's columns, and where it came from.

    ``frame`` has ``qid`` and ``docid`` (strings), ``score`` (double) or
    ``grade`` (long), ``order`` (the input order, null when unknown),
    ``problem`` and ``expected`` (why a row cannot be used and what was
    expected, null for a good row), ``text`` (the row as written, for
    errors) and ``tag`` (a TREC run's tag, else null). For a file,
    ``lines`` lists every line (TREC) or row (Parquet, ``numbered``) with its
    ``order`` and ``file``, to count an error's line number with, and
    ``empty`` is the problem and expectation when the file has no rows.
    """

    kind: str
    frame: DataFrame
    name: str | None
    default_name: str
    path: str | None = None
    format: str = "spark"
    sha256: str | None = None
    lines: DataFrame | None = None
    numbered: bool = False
    empty: tuple[str, str] | None = None

    @property
    def ordered(self) -> bool:
        """Whether the rows carry their input order (files always do; a DataFrame when ``columns`` names it)."""
        return dict(self.frame.dtypes)["order"] != "void"


def as_input(source, kind: str, columns: Mapping[str, str] | None = None, name: str | None = None) -> SparkInput:
    """``source`` as a :class:`SparkInput`: read files keep theirs; a DataFrame has its columns found by name.

    >>> from judged.spark import spark_session
    >>> spark = spark_session()
    >>> df = spark.createDataFrame([("q1", "d1", "2.5")], ["query_id", "doc", "score"])
    >>> run = as_input(df, "run")
    >>> run.frame.select("qid", "docid", "score").first()
    Row(qid='q1', docid='d1', score=2.5)
    """
    if isinstance(source, SparkInput):
        return source
    if not isinstance(source, DataFrame):
        raise UsageError(
            f"judged.spark reads Spark DataFrames or judged.spark.read_{kind}(...). Got {type(source).__name__} instead."
        )
    return from_dataframe(source, kind, name=name, columns=columns)


def from_dataframe(
    df: DataFrame, kind: str, *, name: str | None = None, columns: Mapping[str, str] | None = None,
    order: Column | None = None, default_name: str | None = None, **source
) -> SparkInput:
    """Select and type the columns of ``df`` for a ``run`` or ``qrels``; bad values become row problems."""
    where = source.get("path") or name or kind
    value_role = VALUE_ROLE[kind]
    chosen = {role: pick_column(df.columns, role, columns, where) for role in ("qid", "docid", value_role)}
    if order is None and kind == "run" and columns and "order" in columns:
        order = df[pick_column(df.columns, "order", columns, where)]
    qid, docid = df[chosen["qid"]].cast("string"), df[chosen["docid"]].cast("string")
    raw = df[chosen[value_role]]
    number = parse_number(raw) if dict(df.dtypes)[chosen[value_role]] == "string" else raw.cast("double")
    checks = [
        (qid.isNull(), "qid is missing", "a query id"),
        (docid.isNull(), "docid is missing", "a document id"),
        (number.isNull(), f"{value_role} is not a number", "a number"),
    ]
    if kind == "run":
        checks.append((~finite(number), "score is not a finite number", "a finite score"))
        value = number
    else:
        checks.append(((number != F.floor(number)) | number.try_cast("long").isNull(), "grade is not an integer",
                       "an integer grade (fractional grades are not truncated)"))
    problem, expected = first_problem(checks)
    if kind == "qrels":
        value = F.when(problem.isNull(), number.try_cast("long"))
    frame = df.select(
        qid.alias("qid"),
        docid.alias("docid"),
        value.alias(value_role),
        (order if order is not None else F.lit(None)).alias("order"),
        problem.alias("problem"),
        expected.alias("expected"),
        (raw.cast("string") if source.get("numbered") else F.concat_ws(" ", qid, docid, raw.cast("string"))).alias("text"),
        F.lit(None).cast("string").alias("tag"),
    )
    return SparkInput(kind, frame, name, default_name or name or kind, **source)


def parse_number(text: Column) -> Column:
    """``text`` as a double where Python's ``float`` reads it (decimal or exponent notation, inf, nan), else null.

    Spark's cast alone also reads ``1.5d`` and hexadecimal, which the local
    readers refuse, so a finite number must be written with digits, signs,
    a point and an exponent only.
    """
    number = text.try_cast("double")
    plain = F.translate(text, "0123456789+-.eE", "") == ""
    return F.when(plain | ~finite(number), number)


def finite(number: Column) -> Column:
    """True for a number that is neither NaN nor infinite."""
    return ~F.isnan(number) & (F.abs(number) != F.lit(float("inf")))


def first_problem(checks: list[tuple[Column, str, str]]) -> tuple[Column, Column]:
    """The first failing check's problem and expectation, as two columns (null when every check passes)."""
    (failed, text, wanted), *rest = checks
    problem, expected = F.when(failed, text), F.when(failed, wanted)
    for failed, text, wanted in rest:
        problem, expected = problem.when(failed, text), expected.when(failed, wanted)
    return problem, expected
