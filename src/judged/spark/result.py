"""What a Spark evaluation returns: the local engine's :class:`~judged.Result`, with its values also as Spark data.

It has the fields :mod:`judged.render` reads (``run``, ``measures``,
``aggregate``, ``counts``, ``provenance``), so the summary table, JSON,
TSV and trec_eval renderers print it as they print a local result. The
per-query values were collected to the driver to be aggregated in query
order (one row per query and measure, far smaller than the run);
:attr:`SparkResult.frame` offers them to Spark, e.g. to be written as Parquet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from pyspark.sql import DataFrame, SparkSession

from judged.engine.result import MeasureCounts, Result
from judged.measures.spec import Measure


@dataclass(frozen=True, eq=False)
class SparkResult:
    """One run evaluated on Spark: ``local`` is the :class:`~judged.Result` the local engine would return."""

    local: Result
    spark: SparkSession = field(repr=False)

    @property
    def run(self) -> str:
        return self.local.run

    @property
    def measures(self) -> tuple[Measure, ...]:
        return self.local.measures

    @property
    def aggregate(self) -> Mapping[Measure, float]:
        return self.local.aggregate

    @property
    def counts(self) -> Mapping[Measure, MeasureCounts]:
        return self.local.counts

    @property
    def provenance(self) -> Mapping:
        return self.local.provenance

    def renamed(self, run: str) -> SparkResult:
        """The same result under another run name (two files sharing a tag are told apart by file name)."""
        return SparkResult(replace(self.local, run=run), self.spark)

    def value(self, measure: Measure | str) -> float:
        """The aggregate of ``measure`` (mean over scored queries; a sum for the counts)."""
        return self.local.value(measure)

    @cached_property
    def frame(self) -> DataFrame:
        """Every scored (query, measure) pair as a Spark DataFrame ``qid, measure, value``, as
        :meth:`judged.Result.per_query` holds them (a query left out has no row)."""
        return self.spark.createDataFrame(self.local.per_query().select("qid", "measure", "value").to_arrow())

    def per_query(self) -> DataFrame:
        """Long table ``run, qid, measure, value``, the columns of :meth:`judged.Result.per_query`."""
        return self.spark.createDataFrame(self.local.per_query().to_arrow())
