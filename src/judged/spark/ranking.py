"""Rank every query's run rows in Spark under one tie rule: the window's order is the tie rule.

The rule lives here and only here, as in :mod:`judged.engine.ranking`:

* ``trec`` (and ``average``): score descending, then docid descending by bytes
  (Spark compares strings by their UTF-8 bytes, as trec_eval's ``strcmp``),
* ``input``: score descending, then the input order,
* ``worst`` / ``best``: score descending, grade ascending / descending
  (unjudged as 0), then docid descending.

Each tie rule asked for adds its own columns to the rows of
:func:`~judged.spark.pairs.side_by_side`, so every ranking lives in one
DataFrame and one aggregation reads them all: ``pos_<ties>``, the 0-based
rank (null for a judgment row and for a row cut by ``depth``, which cuts
after ranking as trec_eval -M does); ``cpos_<ties>``, the rank among the
judged rows kept (the condensed list of ``unjudged=drop``); per relevance
threshold, running counts of the relevant and the judged non-relevant rows
at or above the row (AP, bpref); and, for ``ties=average``, the share of
rank credit of the row's tied group (:class:`PeerWeight`). Judgment rows
have no score, so they sort after every run row and leave the run's ranks,
running counts and tied groups untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from judged.spark.gains import discount


def position(ties: str, unjudged: str) -> Column:
    """A row's 0-based rank in the list of ``unjudged=zero`` (every row kept) or ``drop`` (judged rows only)."""
    return F.col(f"pos_{ties}" if unjudged == "zero" else f"cpos_{ties}")


def in_list(ties: str, unjudged: str) -> Column:
    """Whether a row is in the list of ``unjudged=zero`` or ``drop`` under ``ties`` (never a judgment row)."""
    return position(ties, unjudged).isNotNull()


def relevant(rel: int) -> Column:
    """A judged run row with grade >= ``rel``."""
    return F.col("judged") & (F.col("grade") >= rel)


def nonrelevant(rel: int) -> Column:
    """A judged run row with grade < ``rel``."""
    return F.col("judged") & (F.col("grade") < rel)


def running_names(ties: str, rel: int) -> tuple[str, str]:
    """Columns counting the relevant and the judged non-relevant rows at or above each row, for ``rel``."""
    suffix = f"{ties}_m{-rel}" if rel < 0 else f"{ties}_{rel}"
    return f"rel_{suffix}", f"non_{suffix}"


@dataclass(frozen=True)
class PeerWeight:
    """The credit a tied group spreads over its members (McSherry & Najork): ranks inside the cutoff / group size.

    ``unit`` is ``count`` (each rank worth 1: P, R) or ``discount`` (each rank
    worth its DCG discount); ``unjudged`` says which list the group is
    formed in (``drop``: judged rows only, ranked by ``cpos``).
    """

    ties: str
    unjudged: str
    unit: str
    cutoff: int | None

    def column(self) -> Column:
        """Per row, its group's credit divided by the group's size; 0 for rows outside the list."""
        peers = Window.partitionBy("qid").orderBy(F.col("score").desc()).rangeBetween(Window.currentRow, Window.currentRow)
        members = in_list(self.ties, self.unjudged)
        rank = position(self.ties, self.unjudged)
        inside = members if self.cutoff is None else rank < self.cutoff
        worth = F.lit(1) if self.unit == "count" else discount(rank)
        credit = F.coalesce(F.sum(F.when(inside, worth)).over(peers), F.lit(0))
        return F.when(members, credit / F.count(F.when(members, 1)).over(peers)).otherwise(0.0)


def tie_order(ties: str) -> list[Column]:
    """The window order that ranks a query's rows under ``ties`` (rows without a score last)."""
    score, docid = F.col("score").desc(), F.col("docid").desc()
    if ties in ("trec", "average"):
        return [score, docid]
    if ties == "input":
        return [score, F.col("order").asc()]
    return [score, F.col("grade").asc() if ties == "worst" else F.col("grade").desc(), docid]


def rank(rows: DataFrame, ties: str, depth: int | None, thresholds: Iterable[int] = (),
         weights: Mapping[str, PeerWeight] | None = None) -> DataFrame:
    """``rows`` with the columns of the ranking under ``ties`` (see the module docstring)."""
    order = Window.partitionBy("qid").orderBy(*tie_order(ties))
    above = order.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    ranked = F.row_number().over(order) - 1
    kept = F.col("is_run") if depth is None else F.col("is_run") & (ranked < depth)
    pos = F.when(kept, ranked.cast("long"))
    counts = []
    for rel in sorted(set(thresholds)):
        relevant_above, nonrelevant_above = running_names(ties, rel)
        counts += [F.sum(relevant(rel).cast("long")).over(above).alias(relevant_above),
                   F.sum(nonrelevant(rel).cast("long")).over(above).alias(nonrelevant_above)]
    view = rows.select(
        "*",
        pos.alias(f"pos_{ties}"),
        F.when(kept & F.col("judged"), F.sum(F.col("judged").cast("long")).over(above) - 1).alias(f"cpos_{ties}"),
        *counts,
    )
    if weights:
        view = view.select("*", *(weight.column().alias(name) for name, weight in weights.items()))
    return view
