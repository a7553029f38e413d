"""Buckets of whole queries, each evaluated in a Spark worker by the local engine.

Rows are hashed to buckets by qid, so every row of a query (run and
judgments) meets in one bucket; a bucket is one Python call that builds a
local :class:`~judged.Run` and :class:`~judged.Qrels` from its rows (in input
order, so ``ties=input`` means what it means locally), validates them with
the local code, and computes every measure with
:func:`judged.engine.evaluate.query_values`, the local kernels. Per-query
values are therefore the local engine's by construction, and a measure added
to the registry reaches Spark with no Spark code.

A bucket is sized from the data (:func:`bucket_count`): about
:data:`BUCKET_BYTES` of input each, so it fits a worker's memory with the
local engine's working set, and at least one per core so every core works.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import polars as pl
import pyarrow as pa

from judged.engine.evaluate import query_values
from judged.engine.matching import numeric_sample
from judged.errors import InputError
from judged.io.inputs import QRELS_SCHEMA, RUN_SCHEMA, Qrels, RowProblem, Run, check_run, dedupe_qrels
from judged.io.tabular import from_frame
from judged.measures.spec import Measure
from judged.spark.reading import FILE_SHIFT, ROW_MASK, arrow_schema, error_json

BUCKET_BYTES = 64 << 20
MAX_BUCKETS = 4096
OUT = ("kind string, side string, qid string, missing boolean, raw array<double>, coverage array<long>, "
       "matching array<long>, stats array<long>, file string, `order` long, tag string, sha256 string, error string")
STATS = ("run_rows", "run_queries", "qrels_rows", "qrels_queries", "collapsed", "run_only")
_ROW_NUMBER = re.compile(r" \(row (\d+)\)$")


def bucket_count(size: int, parallelism: int) -> int:
    """How many buckets for ``size`` bytes of input: about :data:`BUCKET_BYTES` each, at least ``parallelism``.

    >>> bucket_count(10, 4), bucket_count(1 << 30, 4), bucket_count(1 << 50, 4)
    (4, 16, 4096)
    """
    return min(MAX_BUCKETS, max(parallelism, math.ceil(size / BUCKET_BYTES)))


@dataclass(frozen=True)
class BucketPlan:
    """What every bucket needs to know: the measures, depth, and how each side's rows are to be read."""

    measures: tuple[Measure, ...]
    depth: int | None
    names: dict[str, str]  # side -> the name a DataFrame's errors are reported under
    files: dict[str, tuple[str, ...]]  # side -> its files as the user names them, in listing order
    values: dict[str, str]  # side -> the column holding its scores or grades
    checked: dict[str, bool]  # side -> already validated file by file by the local reader

    def function(self):
        """The function ``mapInArrow`` calls with a partition's batches: the partition is one bucket (or a few,
        where hashed bucket numbers meet), whole queries either way, evaluated in one call."""

        def evaluate(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            received = list(batches)
            if received:
                yield from evaluate_bucket(pa.Table.from_batches(received), self).to_batches()

        return evaluate


def evaluate_bucket(table: pa.Table, plan: BucketPlan) -> pa.Table:
    """One bucket's rows (:data:`~judged.spark.reading.ROWS`) evaluated: a row per judged query, one of totals,
    the files' records passed on, and the first problem of each side as an ``error`` row."""
    frame = cast(pl.DataFrame, pl.from_arrow(table))
    out: list[pl.DataFrame] = [_file_records(frame.filter(pl.col("meta")))]
    rows = frame.filter(~pl.col("meta"))
    if rows.height:
        try:
            run = _run(rows.filter(pl.col("side") == "run").sort("order", nulls_last=True, maintain_order=True), plan)
            qrels = _qrels(rows.filter(pl.col("side") == "qrels").sort("order", nulls_last=True, maintain_order=True),
                           plan)
        except _Located as located:
            out.append(_error(located.side, located.order, located.error))
        else:
            out += _evaluated(run, qrels, plan)
    return _conform([o for o in out if o.height])


class _Located(Exception):
    def __init__(self, side: str, order: int, error: InputError) -> None:
        self.side, self.order, self.error = side, order, error


def _run(rows: pl.DataFrame, plan: BucketPlan) -> Run:
    picked = rows.select("qid", "docid", pl.col(plan.values["run"]).alias("score"))
    if plan.checked["run"]:
        run = Run(_typed(picked, RUN_SCHEMA), plan.names["run"])
        try:
            check_run(run)
        except RowProblem as problem:
            raise _in_file(rows, problem, "run", plan) from None
        return run
    try:
        return cast(Run, from_frame(picked, "run", plan.names["run"]))
    except InputError as error:
        raise _in_frame(rows, picked, error, "run") from None


def _qrels(rows: pl.DataFrame, plan: BucketPlan) -> Qrels:
    picked = rows.select("qid", "docid", pl.col(plan.values["qrels"]).alias("grade"))
    if plan.checked["qrels"]:
        try:
            deduped, collapsed = dedupe_qrels(_typed(picked, QRELS_SCHEMA))
        except RowProblem as problem:
            raise _in_file(rows, problem, "qrels", plan) from None
        return Qrels(deduped, plan.names["qrels"], None, collapsed)
    try:
        return cast(Qrels, from_frame(picked, "qrels", plan.names["qrels"]))
    except InputError as error:
        raise _in_frame(rows, picked, error, "qrels") from None


def _typed(frame: pl.DataFrame, schema: dict) -> pl.DataFrame:
    return frame.select(pl.col(column).cast(kind) for column, kind in schema.items())


def _in_file(rows: pl.DataFrame, problem: RowProblem, side: str, plan: BucketPlan) -> _Located:
    """A problem only a whole query shows (a document repeated across two files of a folder), at its file's row."""
    order = int(rows["order"][problem.row])
    problem.row = order & ROW_MASK
    return _Located(side, order, problem.at(plan.files[side][order >> FILE_SHIFT], None))


def _in_frame(rows: pl.DataFrame, picked: pl.DataFrame, error: InputError, side: str) -> _Located:
    """A DataFrame's bad row named by its values: its number in a bucket would mean nothing to the user."""
    found = _ROW_NUMBER.search(error.problem)
    if found is None:
        return _Located(side, -1, error)
    row = int(found.group(1)) - 1
    text = " ".join(str(v) for v in picked.row(row))
    order = rows["order"][row]
    return _Located(side, -1 if order is None else int(order),
                    InputError(error.problem[: found.start()], path=error.path, text=text, expected=error.expected))


def _evaluated(run: Run, qrels: Qrels, plan: BucketPlan) -> list[pl.DataFrame]:
    stats = [len(run), run.num_queries, len(qrels), qrels.num_queries, qrels.collapsed_duplicates]
    if not len(qrels):
        answered = run.blocks[0].unique(maintain_order=True).to_list()
        return [_numeric(numeric_sample(answered)), _totals(stats + [run.num_queries])]
    values = query_values(run, qrels, plan.measures, plan.depth)
    raw = np.column_stack([values.raw[m] for m in plan.measures])
    coverage = (np.column_stack([values.coverage[k] for k in sorted(values.coverage)]) if values.coverage
                else np.empty((len(values.qids), 0), dtype=np.int64))
    queries = pl.DataFrame({
        "kind": ["query"] * len(values.qids),
        "qid": list(values.qids),
        "missing": values.missing,
        "raw": pl.Series(raw.tolist(), dtype=pl.List(pl.Float64)),
        "coverage": pl.Series(coverage.tolist(), dtype=pl.List(pl.Int64)),
        "matching": pl.Series(values.matching.tolist(), dtype=pl.List(pl.Int64)),
    })
    return [queries, _numeric(values.numeric_run_only), _totals(stats + [values.run_only])]


def _numeric(qids: Sequence[str]) -> pl.DataFrame:
    """The bucket's unjudged run queries that read as numbers (:func:`~judged.engine.matching.numeric_sample`)
    as ``numeric`` rows, for the driver's :func:`~judged.engine.matching.number_forms`."""
    return pl.DataFrame({"kind": ["numeric"] * len(qids), "qid": list(qids)},
                        schema={"kind": pl.String, "qid": pl.String})


def _totals(stats: Sequence[int]) -> pl.DataFrame:
    return pl.DataFrame({"kind": ["bucket"], "stats": [list(map(int, stats))]}, schema={"kind": pl.String,
                                                                                          "stats": pl.List(pl.Int64)})


def _file_records(meta: pl.DataFrame) -> pl.DataFrame:
    """The files' own rows: hash, tag and collapsed repeats (``file``), or the reader's problem (``error``)."""
    return meta.select(
        pl.when(pl.col("error").is_null()).then(pl.lit("file")).otherwise(pl.lit("error")).alias("kind"),
        "side", "file", "order", "tag", "sha256", "error",
        pl.concat_list(pl.col("collapsed").fill_null(0)).alias("stats"),
    )


def _error(side: str, order: int, error: InputError) -> pl.DataFrame:
    # A bucket's problem sorts after its file's own (the local reader reads a file before it evaluates it).
    return pl.DataFrame({"kind": ["error"], "side": [side], "order": [order + (1 << (FILE_SHIFT + 20))],
                         "error": [error_json(error)]})


_OUT_TYPES: dict[str, Any] = {"kind": pl.String, "side": pl.String, "qid": pl.String, "missing": pl.Boolean,
              "raw": pl.List(pl.Float64), "coverage": pl.List(pl.Int64), "matching": pl.List(pl.Int64),
              "stats": pl.List(pl.Int64),
              "file": pl.String, "order": pl.Int64, "tag": pl.String, "sha256": pl.String, "error": pl.String}


def _conform(parts: list[pl.DataFrame]) -> pa.Table:
    """The parts as one table with every :data:`OUT` column, in order, absent ones null."""
    frames = [part.select((pl.col(n) if n in part.columns else pl.lit(None)).cast(t).alias(n)
                          for n, t in _OUT_TYPES.items()) for part in parts]
    return (pl.concat(frames) if frames else pl.DataFrame(schema=_OUT_TYPES)).to_arrow().cast(arrow_schema(OUT))
