"""The provenance record of a Spark evaluation: the local engine's record, field for field, plus the engine.

Every number the local record derives from its ranked view is summed in the
evaluation's own Spark job (:func:`judged.spark.evaluate`); this module only
arranges them. ``engine`` names Spark, its version and master, because
which engine produced a number belongs next to it.
"""

from __future__ import annotations

from pyspark.sql import Row

from judged.engine.provenance import provenance_record
from judged.spark.inputs import SparkInput


def provenance(run_name: str, run: SparkInput, qrels: SparkInput, measures, stats: Row, cutoffs: list[int],
               missing: str, depth: int | None, command, counts, config) -> dict:
    """The record :func:`judged.evaluate` writes, from the totals of the Spark job (``stats``)."""
    spark = run.frame.sparkSession
    return provenance_record(
        measures=measures,
        missing=missing,
        depth=depth,
        command=command,
        config=config,
        engine={"name": "spark", "spark": spark.version, "master": spark.sparkContext.master},
        run=_input_record(run, run_name, stats["run_rows"], stats["in_run"]),
        qrels={
            **_input_record(qrels, qrels.name or qrels.default_name, stats["qrels_rows"], stats["judged"]),
            "collapsed_duplicates": stats["qrels_lines"] - stats["qrels_rows"],
        },
        queries={
            "judged": stats["judged"],
            "in_run": stats["in_run"],
            "evaluated": stats["evaluated"],
            "missing_from_run": stats["missing_queries"],
            "missing_policy": missing,
            "run_only_ignored": stats["run_only"],
        },
        counts=counts,
        unjudged_at={str(k): stats[f"unjudged_at{k}"] for k in cutoffs},
        retrieved_at={str(k): stats[f"retrieved_at{k}"] for k in cutoffs},
        ties_across={str(k): stats[f"tied_at{k}"] for k in cutoffs},
    )


def _input_record(item: SparkInput, name: str, rows: int, queries: int) -> dict:
    return {"name": name, "path": item.path, "format": item.format, "sha256": item.sha256, "rows": rows,
            "queries": queries}
