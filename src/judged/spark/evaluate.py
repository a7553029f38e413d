"""``judged.spark.evaluate``: the local engine's measures and conventions over Spark DataFrames.

The run is never collected to the driver. It is shuffled once by query
together with the judgments (:mod:`judged.spark.pairs`), ranked by a window
per tie rule (:mod:`judged.spark.ranking`) and reduced to one row per query
(:mod:`judged.spark.plan`), where each measure is a column expression
(:mod:`judged.spark.kernels`). One Spark job computes that table, caches it
and sums it into the aggregates, counts, input sizes and input problems the
driver needs: a clean input is read once. Per-query values equal the local
engine's to about 1e-15; means are summed in Spark's order rather than in
query order, which can move their last bits (about n x 1e-16 for n queries).

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

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql import functions as F

from judged.errors import InputError, NoJudgedQueriesError, UsageError
from judged.engine.evaluate import MISSING_POLICIES, view_key
from judged.measures import parse
from judged.measures.spec import Measure
from judged.engine.result import MeasureCounts
from judged.spark.inputs import SparkInput, as_input
from judged.spark.kernels import nan, raw_value
from judged.spark.pairs import side_by_side
from judged.spark.plan import Plan
from judged.spark.problems import repeated_pair, row_problem
from judged.spark.provenance import provenance
from judged.spark.ranking import position
from judged.spark.result import SparkResult


def reported() -> Column:
    """A judged query: the only queries a result reports."""
    return F.col("qrels_lines") > 0


def missing_from_run() -> Column:
    """A judged query the run did not answer."""
    return reported() & (F.col("run_rows") == 0)


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
    ``run``). Bad rows raise :class:`~judged.InputError` naming the file,
    line and text where the input came from a file.
    """
    if missing not in MISSING_POLICIES:
        raise UsageError(f"missing must be one of {'|'.join(MISSING_POLICIES)}. Got {missing!r} instead.")
    if depth is not None and (not isinstance(depth, int) or depth < 1):
        raise UsageError(f"depth must be an int >= 1. Got {depth!r} instead.")
    measures = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    if not measures:
        raise UsageError("no measures given; name at least one, e.g. nDCG@10.")
    run_in, qrels_in = as_input(run, "run", columns, name), as_input(qrels, "qrels", columns)
    _refuse_unordered(measures, run_in)

    plan = Plan()
    raws = [raw_value(m, plan) for m in measures]
    cutoffs = sorted({m.cutoff for m in measures if m.cutoff is not None})
    coverage = _coverage(plan, view_key(measures[0]), cutoffs)
    table = plan.table(side_by_side(run_in, qrels_in), depth)
    wide = table.select(
        "qid", "run_rows", "qrels_rows", "qrels_lines", "bad_run", "bad_qrels", "repeated", "conflicts",
        "last_tag", "last_order", reported().alias("reported"), missing_from_run().alias("missing"),
        *(raw.alias(f"raw{i}") for i, raw in enumerate(raws)),
        *(column.alias(f"{what}{k}") for k, parts in coverage.items() for what, column in parts.items()),
    )
    wide = wide.select("*", *(_policies(F.col(f"raw{i}"), m, missing).alias(f"value{i}")
                              for i, m in enumerate(measures))).persist()
    try:
        stats = wide.agg(*_totals(measures, cutoffs, missing)).first()
        _raise_problems(stats, run_in, qrels_in)
    except BaseException:
        wide.unpersist()
        raise
    run_name = name or run_in.name or stats["tag"] or run_in.default_name
    if stats["evaluated"] == 0:
        wide.unpersist()
        raise NoJudgedQueriesError(
            f"run {run_name!r} shares no query with the judgments {qrels_in.name or qrels_in.default_name!r} "
            f"({stats['in_run']} run queries, {stats['judged']} judged queries)",
            path=run_in.path or run_name,
            expected="query ids that also appear in the judgments",
        )
    counts = {m: _counts(stats, i, m, missing) for i, m in enumerate(measures)}
    aggregate = {m: _aggregate(stats, i, m, counts[m]) for i, m in enumerate(measures)}
    record = provenance(run_name, run_in, qrels_in, measures, stats, cutoffs, missing, depth, command, counts, config)
    return SparkResult(run_name, tuple(measures), _long(wide, measures), aggregate, counts, record, wide)


def _refuse_unordered(measures: list[Measure], run: SparkInput) -> None:
    """``ties=input`` needs the run's row order, which a DataFrame only has when a column numbers its rows."""
    for m in measures:
        if view_key(m) == "input" and not run.ordered:
            raise UsageError(
                f"{m} ranks tied documents in input order, but a Spark DataFrame has no row order; pass "
                "columns={'order': ...} naming a column that numbers the run's rows (judged.spark.read_run "
                "keeps each file's order)."
            )


def _coverage(plan: Plan, ties: str, cutoffs: list[int]) -> dict[int, dict[str, Column]]:
    """Per cutoff, what the provenance reports of the first measure's ranking: retrieved, unjudged, tied across."""
    parts = {}
    ranked = position(ties, "zero")
    for k in cutoffs:
        top = ranked < k
        score_at = {rank: plan.over_view(ties, ("score at", rank), F.max(F.when(ranked == rank, F.col("score"))))
                    for rank in (k - 1, k)}
        parts[k] = {
            "retrieved": F.coalesce(plan.over_view(ties, ("retrieved", k), F.count(F.when(top, 1))), F.lit(0)),
            "judged": F.coalesce(plan.over_view(ties, ("judged", k), F.count(F.when(top & F.col("judged"), 1))), F.lit(0)),
            "tied": F.coalesce(score_at[k - 1] == score_at[k], F.lit(False)),
        }
    return parts


def _policies(raw: Column, measure: Measure, missing: str) -> Column:
    """The value reported: ``norel`` fills a NaN (unless ``skip``), ``missing=skip`` leaves missing queries out."""
    value = raw if measure.norel == "skip" else F.when(F.isnan(raw), float(measure.norel)).otherwise(raw)
    return F.when(F.col("missing"), nan()).otherwise(value) if missing == "skip" else value


def _totals(measures: list[Measure], cutoffs: list[int], missing: str) -> list[Column]:
    """The single row of sums the driver needs: query and row counts, problems, and per measure its counts and total."""
    reported, absent = F.col("reported"), F.col("missing")
    totals = [
        F.count(F.when(reported, 1)).alias("judged"),
        F.count(F.when(reported & ~absent, 1)).alias("evaluated"),
        F.count(F.when(absent, 1)).alias("missing_queries"),
        F.count(F.when(F.col("run_rows") > 0, 1)).alias("in_run"),
        F.count(F.when((F.col("run_rows") > 0) & ~reported, 1)).alias("run_only"),
        F.max_by("last_tag", "last_order").alias("tag"),
        *(F.coalesce(F.sum(c), F.lit(0)).alias(c) for c in
          ("run_rows", "qrels_rows", "qrels_lines", "bad_run", "bad_qrels", "repeated", "conflicts")),
    ]
    for i, m in enumerate(measures):
        scored = reported & ~F.isnan(f"value{i}")
        norel = reported & F.isnan(f"raw{i}")
        left_out = norel & ~absent if missing == "skip" else norel
        totals += [
            F.count(F.when(scored, 1)).alias(f"scored{i}"),
            F.count(F.when(norel, 1)).alias(f"norel{i}"),
            F.count(F.when(left_out, 1)).alias(f"skipped_norel{i}"),
            F.sum(F.when(scored, F.col(f"value{i}"))).alias(f"total{i}"),
        ]
    for k in cutoffs:
        totals += [
            F.coalesce(F.sum(F.when(reported, F.col(f"retrieved{k}") - F.col(f"judged{k}"))), F.lit(0)).alias(f"unjudged_at{k}"),
            F.coalesce(F.sum(F.when(reported, F.col(f"retrieved{k}"))), F.lit(0)).alias(f"retrieved_at{k}"),
            F.count(F.when(reported & F.col(f"tied{k}"), 1)).alias(f"tied_at{k}"),
        ]
    return totals


def _raise_problems(stats: Row, run: SparkInput, qrels: SparkInput) -> None:
    """Raise the first input problem the job counted, located by a small second job; judgments first, as locally."""
    for source, rows, bad, repeated in ((qrels, "qrels_lines", "bad_qrels", "conflicts"), (run, "run_rows", "bad_run", "repeated")):
        if source.empty is not None and stats[rows] == 0:
            problem, expected = source.empty
            raise InputError(problem, path=source.path, expected=expected)
        if stats[bad]:
            raise row_problem(source)
        if stats[repeated]:
            raise repeated_pair(source)


def _counts(stats: Row, i: int, measure: Measure, missing: str) -> MeasureCounts:
    absent = stats["missing_queries"]
    return MeasureCounts(
        scored=stats[f"scored{i}"],
        skipped_missing=absent if missing == "skip" else 0,
        skipped_norel=stats[f"skipped_norel{i}"] if measure.norel == "skip" else 0,
        zero_missing=absent if missing == "zero" else 0,
        norel=stats[f"norel{i}"],
    )


def _aggregate(stats: Row, i: int, measure: Measure, counts: MeasureCounts) -> float:
    """Mean over the scored queries (the sum for counts); NaN when none is scored."""
    if not counts.scored:
        return float("nan")
    total = float(stats[f"total{i}"])
    return total if measure.family.aggregate == "sum" else total / counts.scored


def _long(wide: DataFrame, measures: list[Measure]) -> DataFrame:
    """``qid, measure, value`` for every scored (query, measure) pair of the per-query table."""
    entries = F.array(*(F.struct(F.lit(str(m)).alias("measure"), F.col(f"value{i}").alias("value"))
                        for i, m in enumerate(measures)))
    pairs = wide.where("reported").select("qid", F.explode(entries).alias("entry"))
    return pairs.select("qid", "entry.measure", "entry.value").where(~F.isnan("value"))
