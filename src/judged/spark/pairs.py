"""Runs and judgments side by side: one shuffle by query, then each (query, document) pair's grade.

Run rows and judgments are unioned and partitioned by query once. Every
later step (the pair's grade, the ranking under each tie rule, the ideal
list, the per-query counts) works inside those partitions on the same rows,
so the run is shuffled once and read once however many measures and tie
rules are asked for. Within a query, the rows of one (qid, docid) pair meet
in one window: a run row takes the pair's grade (none: unjudged), the first
judgment of a pair stands for it and exact repeats are counted, and a
document twice in the run or judged with two grades is flagged for the
error. A negative grade marks a document that was pooled but not judged, as
in :mod:`judged.engine.view`: unjudged in the run, outside the ideal list.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from judged.spark.inputs import SparkInput


def is_run() -> Column:
    """A row of the run (else a judgment)."""
    return F.col("is_run")


def judgment() -> Column:
    """A judgment that counts: the first row of its pair, with a grade >= 0."""
    return ~is_run() & F.col("first") & (F.col("grade") >= 0)


def side_by_side(run: SparkInput, qrels: SparkInput) -> DataFrame:
    """Run rows and judgment rows of each query in one partition.

    A run row carries ``judged`` (its pair has a grade >= 0) and ``grade``
    (that grade, 0 when unjudged); a judgment row its own ``grade`` and
    ``first`` (the row standing for its pair).
    """
    order_type = run.frame.schema["order"].dataType
    run_rows = run.frame.select(
        "qid", "docid", "score", F.lit(None).cast("long").alias("grade"), "order", "tag",
        F.lit(True).alias("is_run"), F.col("problem").isNotNull().alias("bad"),
    )
    judgments = qrels.frame.select(
        "qid", "docid", F.lit(None).cast("double").alias("score"), "grade", F.lit(None).cast(order_type).alias("order"),
        F.lit(None).cast("string").alias("tag"), F.lit(False).alias("is_run"), F.col("problem").isNotNull().alias("bad"),
    )
    both = run_rows.unionByName(judgments).repartition("qid")
    pair = Window.partitionBy("qid", "docid").orderBy("is_run", "grade")
    whole = pair.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    pair_grade = F.max("grade").over(whole)
    judged = is_run() & F.coalesce(pair_grade >= 0, F.lit(False))
    return both.select(
        "qid", "docid", "score", "order", "tag", "is_run", "bad",
        judged.alias("judged"),
        F.when(judged, pair_grade).when(is_run(), 0).otherwise(F.col("grade")).alias("grade"),
        (F.row_number().over(pair) == 1).alias("first"),
        F.count(F.when(is_run(), 1)).over(whole).alias("copies"),
        (F.min("grade").over(whole) != pair_grade).alias("conflict"),
    )


def query_aggregates(judgments: Mapping[str, Column]) -> list[Column]:
    """Per query: its sizes, the problems found, the run's last tag, then the named aggregates ``judgments``.

    ``judgments`` may read ``grade`` and the ``judgment`` flag (a judgment that counts).
    """
    return [
        F.count(F.when(is_run(), 1)).alias("run_rows"),
        F.count(F.when(~is_run(), 1)).alias("qrels_lines"),
        F.count(F.when(~is_run() & F.col("first"), 1)).alias("qrels_rows"),
        F.count(F.when(is_run() & F.col("bad"), 1)).alias("bad_run"),
        F.count(F.when(~is_run() & F.col("bad"), 1)).alias("bad_qrels"),
        F.count(F.when(is_run() & (F.col("copies") > 1), 1)).alias("repeated"),
        F.count(F.when(~is_run() & F.col("conflict"), 1)).alias("conflicts"),
        F.max_by("tag", F.when(is_run(), F.col("order"))).alias("last_tag"),
        F.max(F.when(is_run(), F.col("order"))).alias("last_order"),
        *(aggregate.alias(name) for name, aggregate in judgments.items()),
    ]
