"""``judged eval --engine spark``: run files evaluated on Spark, per-query values written as Parquet.

The command line's Spark path, apart from :mod:`judged.cli.eval_command` so
that the local path never imports Spark. Judgments come from a file read by
Spark or, for ``--judgments``, from a frozen set of the judgment store
(small, read by the store and handed to Spark); runs are always read by
Spark, never by the driver.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import reduce

from pyspark.sql import DataFrame, SparkSession

from judged.io.inputs import Qrels
from judged.measures.spec import Measure
from judged.spark.evaluate import evaluate
from judged.spark.inputs import SparkInput, from_dataframe
from judged.spark.output import write_parquet
from judged.spark.readers import read_qrels, read_run
from judged.spark.result import SparkResult
from judged.spark.session import spark_session

VALUES_PER_FILE = 1_000_000


def evaluate_files(runs: Sequence[str], qrels: str | Qrels, measures: Sequence[Measure], *, master: str,
                   missing: str, depth: int | None, run_format: str | None = None, qrels_format: str | None = None,
                   command: Sequence[str] | None = None, config: dict | None = None) -> list[SparkResult]:
    """Each run file evaluated on a Spark session on ``master`` against ``qrels`` (a file, or judgments in hand).

    >>> from judged.measures import parse
    >>> [result] = evaluate_files(["examples/runs/bm25.run"], "examples/qrels.txt", [parse("nDCG@10")],
    ...                           master="local[2]", missing="skip", depth=None)
    >>> result.run, round(result.value("nDCG@10"), 4)
    ('bm25', 0.7622)
    """
    spark = spark_session(master)
    judgments = (from_local(spark, qrels) if isinstance(qrels, Qrels)
                 else read_qrels(spark, qrels, format=qrels_format))
    return [evaluate(read_run(spark, path, format=run_format), judgments, measures, missing=missing, depth=depth,
                     command=command, config=config) for path in runs]


@contextmanager
def cli_session(master: str) -> Iterator[SparkSession]:
    """A session on ``master`` for one command: stopped at the end if this command started it, so executors
    shut down cleanly instead of being killed with the JVM (a ``local-cluster`` would log errors)."""
    existing = SparkSession.getActiveSession()
    spark = spark_session(master)
    try:
        yield spark
    finally:
        if existing is None:
            spark.stop()


def from_local(spark: SparkSession, qrels: Qrels) -> SparkInput:
    """Judgments already read on the driver (a frozen set of the judgment store) as a Spark input."""
    frame = spark.createDataFrame(qrels.frame.to_arrow())
    source = qrels.source
    return from_dataframe(frame, "qrels", name=qrels.name, path=source.path if source else None,
                          format=source.format if source else "memory", sha256=source.sha256 if source else None,
                          collapsed=qrels.collapsed_duplicates, id_columns=qrels.id_columns)


def write_per_query(results: Sequence[SparkResult], path: str) -> None:
    """Every result's per-query values (``run, qid, measure, value``) as one Parquet folder at ``path``.

    One file per million values (counted by the evaluation, so no extra job), not one per Spark partition:
    a small evaluation writes one file.
    """
    values = sum(c.scored for r in results for c in r.counts.values())
    frame = reduce(DataFrame.unionByName, (r.per_query() for r in results))
    write_parquet(frame.coalesce(max(1, math.ceil(values / VALUES_PER_FILE))), path)
