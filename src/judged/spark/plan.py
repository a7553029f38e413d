"""What a list of measures reads, each aggregate named and computed once, and the per-query table that holds it.

Kernels (:mod:`judged.spark.kernels`) ask a :class:`Plan` for what they
need: an aggregate over a query's judgments, an aggregate over the rows
ranked under one tie rule, running counts for a relevance threshold, or a
tied group's share of credit. Each request gets a column of the per-query
table, and equal requests share one. :meth:`Plan.table` then adds one
ranking per tie rule to the rows of :func:`~judged.spark.pairs.side_by_side`
(a window each, inside the query partitions) and computes every request in
a single aggregation by query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from judged.spark.pairs import judgment, query_aggregates
from judged.spark.ranking import PeerWeight, rank, running_names


@dataclass
class ViewNeeds:
    """What the measures read from one tie rule's ranking: relevance thresholds and tied-group weights."""

    thresholds: set[int] = field(default_factory=set)
    weights: dict[str, PeerWeight] = field(default_factory=dict)


class Plan:
    """Named per-query aggregates, requested by the kernels and computed together by :meth:`table`."""

    def __init__(self) -> None:
        self._names: dict[tuple, str] = {}
        self.judgments: dict[str, Column] = {}
        self.aggregates: dict[str, Column] = {}
        self.views: dict[str, ViewNeeds] = {}

    def _name(self, key: tuple) -> str:
        return self._names.setdefault(key, f"a{len(self._names)}")

    def over_judgments(self, key: tuple, aggregate: Column) -> Column:
        """A per-query aggregate over the query's judgments (rows flagged ``judgment``, with ``grade``)."""
        name = self._name(("judgments", *key))
        self.judgments.setdefault(name, aggregate)
        return F.col(name)

    def over_view(self, ties: str, key: tuple, aggregate: Column) -> Column:
        """A per-query aggregate over the rows ranked under ``ties`` (null for a query without run rows)."""
        self.views.setdefault(ties, ViewNeeds())
        name = self._name(("view", ties, *key))
        self.aggregates.setdefault(name, aggregate)
        return F.col(name)

    def running(self, ties: str, rel: int) -> tuple[Column, Column]:
        """Row columns: relevant and judged non-relevant rows at or above each row under ``ties``, for ``rel``."""
        self.views.setdefault(ties, ViewNeeds()).thresholds.add(rel)
        relevant, nonrelevant = running_names(ties, rel)
        return F.col(relevant), F.col(nonrelevant)

    def peer_weight(self, weight: PeerWeight) -> Column:
        """A row column: the share of rank credit the row's tied group gets (``ties=average``)."""
        name = self._name(("weight", weight))
        self.views.setdefault(weight.ties, ViewNeeds()).weights[name] = weight
        return F.col(name)

    def table(self, rows: DataFrame, depth: int | None) -> DataFrame:
        """One row per query of the run or the judgments: its counts and every requested aggregate."""
        for ties, needs in self.views.items():
            rows = rank(rows, ties, depth, needs.thresholds, needs.weights)
        rows = rows.withColumn("judgment", judgment())
        return rows.groupBy("qid").agg(
            *query_aggregates(self.judgments), *(aggregate.alias(name) for name, aggregate in self.aggregates.items())
        )
