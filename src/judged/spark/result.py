"""What a Spark evaluation returns: per-query values as a Spark DataFrame; aggregates, counts and provenance as data.

It has the fields :mod:`judged.render` reads (``run``, ``measures``,
``aggregate``, ``counts``, ``provenance``), so the summary table, JSON,
TSV and trec_eval renderers print it as they print a local
:class:`~judged.Result`; only the per-query values stay in Spark.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from judged.measures import parse
from judged.measures.spec import Measure
from judged.engine.result import MeasureCounts


@dataclass(frozen=True, eq=False)
class SparkResult:
    """One run evaluated on Spark: per-query values in ``frame`` (``qid, measure, value``), the rest as data.

    ``frame`` holds every scored (query, measure) pair, as
    :meth:`judged.Result.per_query` does: a query left out (missing from the
    run under ``missing=skip``, or without a relevant judgment under
    ``norel=skip``) has no row. The table behind it is cached in Spark
    (memory and disk) so that reading it again does not re-run the
    evaluation; :meth:`unpersist` frees it.
    """

    run: str
    measures: tuple[Measure, ...]
    frame: DataFrame
    aggregate: dict[Measure, float]
    counts: dict[Measure, MeasureCounts]
    provenance: dict
    cached: DataFrame | None = field(default=None, repr=False)

    def value(self, measure: Measure | str) -> float:
        """The aggregate of ``measure`` (mean over scored queries; a sum for the counts)."""
        return self.aggregate[measure if isinstance(measure, Measure) else parse(measure)]

    def per_query(self) -> DataFrame:
        """Long table ``run, qid, measure, value``, the columns of :meth:`judged.Result.per_query`."""
        return self.frame.select(F.lit(self.run).alias("run"), "qid", "measure", "value")

    def unpersist(self) -> None:
        """Free the cached per-query table (the ``frame`` is then recomputed if read again)."""
        if self.cached is not None:
            self.cached.unpersist()
