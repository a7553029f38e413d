"""``judged.spark.evaluate``: Spark distributes whole queries; judged's local engine evaluates them.

Run and judgment rows are shuffled once into buckets of whole queries
(:mod:`judged.spark.buckets`); each bucket is one call of the local engine in
a Python worker. The driver collects one row per judged query (its raw value
for every measure) and hands them, sorted by qid as a local result is, to
the local engine's own policies, counts, aggregation and provenance
(:func:`judged.engine.evaluate.result_from_values`): per-query values,
aggregates, counts and records equal :func:`judged.evaluate`'s exactly.

>>> from judged.spark import evaluate, spark_session
>>> spark = spark_session()
>>> run = spark.createDataFrame([("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0)], ["qid", "docid", "score"])
>>> qrels = spark.createDataFrame([("q1", "d1", 3), ("q1", "d2", 0), ("q1", "d3", 2)], ["qid", "docid", "grade"])
>>> result = evaluate(run, qrels, ["nDCG@3", "P@2"])
>>> round(result.value("nDCG@3"), 6), result.value("P@2")
(0.938557, 0.5)
>>> result.per_query().where("measure LIKE 'P%'").select("qid", "value").collect()
[Row(qid='q1', value=0.5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import cast

import numpy as np
import polars as pl
from pyspark.sql import functions as F

from judged.engine.evaluate import (
    QueryValues,
    coverage_keys,
    merge_query_values,
    result_from_values,
    view_key,
)
from judged.engine.matching import ids_read_from
from judged.errors import UsageError
from judged.measures import parse
from judged.measures.spec import Measure
from judged.params import convention_choice, count
from judged.spark.buckets import OUT, STATS, BucketPlan, bucket_count
from judged.spark.inputs import SparkInput, as_input
from judged.spark.reading import raise_error
from judged.spark.result import SparkResult


def evaluate(
    run,
    qrels,
    measures: Iterable[Measure | str],
    *,
    missing: str = "skip",
    depth: int | None = None,
    columns: Mapping[str, str] | None = None,
    name: str | None = None,
    command: Sequence[str] | None = None,
    config: dict | None = None,
) -> SparkResult:
    """Score ``run`` against ``qrels`` on Spark with every measure in ``measures``, as :func:`judged.evaluate` does.

    ``run`` and ``qrels`` are Spark DataFrames (columns found by name, or
    mapped by ``columns``; its ``order`` entry names a column numbering the
    run's rows, which ``ties=input`` needs) or what
    :func:`~judged.spark.read_run` and :func:`~judged.spark.read_qrels`
    return. ``missing``, ``depth``, ``command`` and ``config`` mean what they
    mean locally; ``name`` names the run (default: a TREC run's tag, else
    its file name, else ``run``). Bad rows raise :class:`~judged.InputError`
    with the local readers' messages.
    """
    convention_choice("missing", missing)
    if depth is not None:
        count("depth", depth)
    wanted = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    if not wanted:
        raise UsageError("no wanted given; name at least one, e.g. nDCG@10.")
    run_in, qrels_in = as_input(run, "run", columns, name), as_input(qrels, "qrels", columns)
    _refuse_unordered(wanted, run_in)

    spark = run_in.frame.sparkSession
    buckets = bucket_count(run_in.size + qrels_in.size, spark.sparkContext.defaultParallelism)
    rows = run_in.frame.unionByName(qrels_in.frame)
    bucket = F.when(F.col("meta"), F.lit(-1)).otherwise(F.pmod(F.xxhash64("qid"), F.lit(buckets)))
    plan = BucketPlan(
        tuple(wanted), depth,
        names={"run": run_in.name or run_in.default_name, "qrels": qrels_in.name or qrels_in.default_name},
        files={"run": run_in.files, "qrels": qrels_in.files},
        values={"run": run_in.value, "qrels": qrels_in.value},
        checked={"run": run_in.checked, "qrels": qrels_in.checked},
    )
    spread = rows.withColumn("bucket", bucket).repartition(buckets, "bucket")  # whole queries per partition, no sort
    out = cast(pl.DataFrame, pl.from_arrow(spread.mapInArrow(plan.function(), OUT).toArrow()))
    _raise_first_error(out)
    files = out.filter(pl.col("kind") == "file")
    totals = dict(zip(STATS, np.array(out.filter(pl.col("kind") == "bucket")["stats"].to_list(),
                                      dtype=np.int64).reshape(-1, len(STATS)).sum(axis=0).tolist()))
    values = merge_query_values([_query_values(out.filter(pl.col("kind") == "query"), wanted, totals,
                                               out.filter(pl.col("kind") == "numeric")["qid"].to_list())], wanted)
    run_name = name or run_in.name or _last(files, "run", "tag") or run_in.default_name
    collapsed = totals["collapsed"] + qrels_in.collapsed + sum(files.filter(pl.col("side") == "qrels")["stats"]
                                                               .list.first().to_list())
    local = result_from_values(
        values, wanted, missing=missing, depth=depth, command=command, config=config,
        engine={"name": "spark", "spark": spark.version, "master": spark.sparkContext.master},
        run=_record(run_in, run_name, files, totals["run_rows"], totals["run_queries"]),
        qrels={**_record(qrels_in, qrels_in.name or qrels_in.default_name, files, totals["qrels_rows"],
                         totals["qrels_queries"]), "collapsed_duplicates": int(collapsed)},
        run_queries=totals["run_queries"],
    )
    return SparkResult(local, spark)


def _refuse_unordered(measures: list[Measure], run: SparkInput) -> None:
    """``ties=input`` needs the run's row order, which a DataFrame only has when a column numbers its rows."""
    for m in measures:
        if view_key(m) == "input" and not run.ordered:
            raise UsageError(
                f"{m} ranks tied documents in input order, but a Spark DataFrame has no row order; pass "
                "columns={'order': ...} naming a column that numbers the run's rows (judged.spark.read_run "
                "keeps each file's order)."
            )


def _raise_first_error(out: pl.DataFrame) -> None:
    """Raise the problem the local engine would meet first: the judgments' before the run's, a file's in order."""
    errors = out.filter(pl.col("kind") == "error")
    if errors.height:
        first = errors.sort(pl.col("side") != "qrels", "order").row(0, named=True)
        raise_error(first["error"])


def _query_values(queries: pl.DataFrame, measures: list[Measure], totals: dict, numeric: list[str]) -> QueryValues:
    """The collected per-query rows (and the buckets' unjudged numeric run queries) as the local engine's
    :class:`QueryValues` (in any order; merged after)."""
    n = queries.height
    raw = np.array(queries["raw"].to_list(), dtype=np.float64).reshape(n, len(measures))
    keys = coverage_keys(measures)
    coverage = np.array(queries["coverage"].to_list(), dtype=np.int64).reshape(n, 3 * len(keys))
    return QueryValues(
        tuple(queries["qid"].to_list()),
        {m: raw[:, i] for i, m in enumerate(measures)},
        queries["missing"].to_numpy().astype(bool),
        {k: coverage[:, 3 * i: 3 * i + 3] for i, k in enumerate(keys)},
        int(totals["run_only"]),
        np.array(queries["matching"].to_list(), dtype=np.int64).reshape(n, 3),
        tuple(numeric),
    )


def _last(files: pl.DataFrame, side: str, column: str) -> str | None:
    """``column`` of the side's last file (in name order): a TREC run is named by its last line's tag."""
    mine = files.filter(pl.col("side") == side).sort("order")
    return mine[column][-1] if mine.height else None


def _record(item: SparkInput, name: str, files: pl.DataFrame, rows: int, queries: int) -> dict:
    sha256 = _last(files, item.kind, "sha256") if item.single else item.sha256
    return {"name": name, "path": item.path, "format": item.format, "sha256": sha256, "rows": int(rows),
            "queries": int(queries), "ids": ids_read_from(item.format, item.id_columns)}
