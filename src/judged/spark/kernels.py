"""Every measure family as Spark column expressions: the definitions of :mod:`judged.measures.families`, per query.

A kernel turns one measure into a column of the per-query table, built from
aggregates it requests from the :class:`~judged.spark.plan.Plan`: counts and
sums over the ranked rows of its view (the condensed list for
``unjudged=drop``, read through ``cpos``), aggregates over the judgments,
running counts for AP and bpref, tied-group weights for ``ties=average``.
A query with no relevant judgment comes out NaN, as in the local kernels, so
that the ``norel`` policy decides; a judged query missing from the run has
no ranked rows and scores as an empty ranking. The arithmetic follows the
local kernels operation for operation (gain times discount, ordinal over
rank + 1, ...) so that values agree to the last few bits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

from judged.errors import MeasureError
from judged.engine.evaluate import view_key
from judged.measures.spec import Measure
from judged.spark.gains import discount, gain_of, ideal_dcg
from judged.spark.plan import Plan
from judged.spark.ranking import PeerWeight, in_list, position, relevant


def nan() -> Column:
    """NaN: a value the ``norel`` or missing-query policy decides."""
    return F.lit(float("nan"))


def empty() -> Column:
    """An empty list of positions or counts, for a query with no ranked rows."""
    return F.array().cast("array<bigint>")


@dataclass(frozen=True)
class Scope:
    """One measure's reading of the plan: its view, its list (``unjudged``), cutoff and relevance threshold."""

    measure: Measure
    plan: Plan

    @property
    def ties(self) -> str:
        """The ranking the measure reads (``average`` reads ``trec``'s, as locally)."""
        return view_key(self.measure)

    @property
    def position(self) -> Column:
        """The row's rank in the measure's list (null outside it)."""
        return position(self.ties, self.measure.unjudged)

    @property
    def in_list(self) -> Column:
        """Whether the row is in the measure's list: ranked, kept by ``depth``, judged under ``unjudged=drop``."""
        return in_list(self.ties, self.measure.unjudged)

    @property
    def relevant(self) -> Column:
        """A judged row with grade >= the measure's ``rel``."""
        return relevant(self.measure.rel)

    def within(self) -> Column:
        """Rows of the measure's list ranked above its cutoff."""
        cutoff = self.measure.cutoff
        return self.in_list if cutoff is None else self.in_list & (self.position < cutoff)

    def top(self) -> Column:
        """Rows of the full ranking above the cutoff (for the measures without ``unjudged``)."""
        cutoff, ranked = self.measure.cutoff, position(self.ties, "zero")
        return ranked.isNotNull() if cutoff is None else ranked < cutoff

    def rows(self, key: tuple, aggregate: Column) -> Column:
        """A per-query aggregate over the measure's view, shared by every measure asking the same."""
        return self.plan.over_view(self.ties, (self.measure.ties, self.measure.unjudged, *key), aggregate)

    def num_relevant(self) -> Column:
        """Judged documents with grade >= rel, from the judgments (not the run)."""
        rel = self.measure.rel
        return self.plan.over_judgments(("relevant", rel), F.count(F.when(F.col("judgment") & (F.col("grade") >= rel), 1)))

    def num_nonrelevant(self) -> Column:
        """Judged documents with grade < rel, from the judgments."""
        rel = self.measure.rel
        return self.plan.over_judgments(("nonrelevant", rel), F.count(F.when(F.col("judgment") & (F.col("grade") < rel), 1)))


def zero(column: Column) -> Column:
    """``column``, or 0 for a query with no rows in the view (missing from the run)."""
    return F.coalesce(column, F.lit(0))


def divide(numerator: Column, denominator: Column) -> Column:
    """``numerator / denominator``, NaN where the denominator is 0 (the ``norel`` policy decides)."""
    return F.when(denominator != 0, numerator / denominator).otherwise(nan())


def found(s: Scope) -> Column:
    """Relevant documents in the top k (the expected count when tied groups are averaged)."""
    m = s.measure
    if m.ties == "average":
        weight = s.plan.peer_weight(PeerWeight(s.ties, m.unjudged, "count", m.cutoff))
        return zero(s.rows(("found", m.rel, m.cutoff), F.sum(F.when(s.relevant, weight))))
    return zero(s.rows(("found", m.rel, m.cutoff), F.count(F.when(s.within() & s.relevant, 1))))


def dcg(s: Scope) -> Column:
    """DCG at the cutoff: gain of each judged row times its discount (unjudged rows gain 0)."""
    m = s.measure
    gains = F.when(F.col("judged"), gain_of(m.gain, F.col("grade"))).otherwise(0.0)
    if m.ties == "average":
        weight = s.plan.peer_weight(PeerWeight(s.ties, m.unjudged, "discount", m.cutoff))
        return zero(s.rows(("dcg", str(m.gain), m.cutoff), F.sum(gains * weight)))
    return zero(s.rows(("dcg", str(m.gain), m.cutoff), F.sum(F.when(s.within(), gains * discount(s.position)))))


def ideal(s: Scope) -> Column:
    """DCG of the ideal list: every judged document of the query (or only the returned ones), by gain."""
    m = s.measure
    if m.ideal == "judged":
        listed = F.when(F.col("judgment"), gain_of(m.gain, F.col("grade")))
        gains = s.plan.over_judgments(("ideal", str(m.gain)), F.sort_array(F.collect_list(listed), asc=False))
    else:
        listed = F.when(in_list(s.ties, "zero") & F.col("judged"), gain_of(m.gain, F.col("grade")))
        gains = s.rows(("returned ideal", str(m.gain)), F.sort_array(F.collect_list(listed), asc=False))
    return zero(ideal_dcg(gains, m.cutoff))


def ndcg(s: Scope) -> Column:
    """nDCG: DCG over the ideal DCG; NaN when the ideal is 0 (no positive gain judged)."""
    return divide(dcg(s), ideal(s))


def precision(s: Scope) -> Column:
    """P@k: relevant in the top k over k; without a cutoff, over the number retrieved (0 for none)."""
    cutoff = s.measure.cutoff
    if cutoff is not None:
        return found(s) / cutoff
    length = zero(s.rows(("length",), F.count(F.when(s.in_list, 1))))
    return F.when(length > 0, found(s) / length).otherwise(0.0)


def recall(s: Scope) -> Column:
    """R@k: relevant in the top k over the judged relevant documents of the query."""
    return divide(found(s), s.num_relevant())


def success(s: Scope) -> Column:
    """Success@k: 1 when a relevant document is in the top k."""
    return (found(s) > 0).cast("double")


def num_rel_ret(s: Scope) -> Column:
    """NumRelRet@k: relevant documents in the top k."""
    return found(s).cast("double")


def retrieved(s: Scope) -> Column:
    """Documents in the top k of the full ranking."""
    return zero(s.rows(("retrieved", s.measure.cutoff), F.count(F.when(s.top(), 1))))


def num_ret(s: Scope) -> Column:
    """NumRet@k: documents in the top k."""
    return retrieved(s).cast("double")


def num_rel(s: Scope) -> Column:
    """NumRel: judged documents with grade >= rel."""
    return s.num_relevant().cast("double")


def judged_share(s: Scope) -> Column:
    """Judged@k: share of the retrieved top k that has a judgment (0 when nothing was retrieved)."""
    judged = zero(s.rows(("judged", s.measure.cutoff), F.count(F.when(s.top() & F.col("judged"), 1))))
    return F.when(retrieved(s) > 0, judged / retrieved(s)).otherwise(0.0)


def average_precision(s: Scope) -> Column:
    """AP@k: precision at each relevant document in the top k, summed, over the judged relevant documents."""
    m = s.measure
    ordinal, _ = s.plan.running(s.ties, m.rel)
    precisions = F.when(s.within() & s.relevant, ordinal / (s.position + 1.0))
    return divide(zero(s.rows(("ap", m.rel, m.cutoff), F.sum(precisions))), s.num_relevant())


def reciprocal_rank(s: Scope) -> Column:
    """RR@k: 1 / rank of the first relevant document in the top k (0 when there is none)."""
    m = s.measure
    first = s.rows(("first", m.rel, m.cutoff), F.min(F.when(s.within() & s.relevant, s.position)))
    return F.when(first.isNotNull(), 1.0 / (first + 1.0)).otherwise(0.0)


def r_precision(s: Scope) -> Column:
    """Rprec: relevant documents in the top R over R, R the judged relevant documents of the query."""
    positions = s.rows(("positions", s.measure.rel), F.collect_list(F.when(s.in_list & s.relevant, s.position)))
    count = s.num_relevant()
    return divide(F.size(F.filter(F.coalesce(positions, empty()), lambda p: p < count)), count)


def bpref(s: Scope) -> Column:
    """Bpref@k: 1 - min(non-relevant above, R) / min(R, N) per relevant document in the top k, over R."""
    m = s.measure
    _, nonrelevant_above = s.plan.running(s.ties, m.rel)
    above = s.rows(("above", m.rel, m.cutoff), F.collect_list(F.when(s.within() & s.relevant, nonrelevant_above)))
    count, bound = s.num_relevant(), F.least(s.num_relevant(), s.num_nonrelevant())

    def add(total: Column, nonrelevant: Column) -> Column:
        penalty = F.when(bound > 0, F.least(nonrelevant, count) / bound).otherwise(0.0)
        return total + (1.0 - penalty)

    return divide(F.aggregate(F.coalesce(above, empty()), F.lit(0.0), add), count)


#: The Spark kernel of every measure family, by the family's name.
KERNELS: dict[str, Callable[[Scope], Column]] = {
    "nDCG": ndcg,
    "DCG": dcg,
    "P": precision,
    "R": recall,
    "Success": success,
    "NumRelRet": num_rel_ret,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "Judged": judged_share,
    "AP": average_precision,
    "RR": reciprocal_rank,
    "Rprec": r_precision,
    "Bpref": bpref,
}


def raw_value(measure: Measure, plan: Plan) -> Column:
    """The measure's per-query value before the ``norel`` and missing-query policies (NaN: no relevant judgment)."""
    if measure.name not in KERNELS:
        raise MeasureError(f"{measure.name} has no Spark kernel yet; evaluate it with the local engine.")
    return KERNELS[measure.name](Scope(measure, plan)).cast("double")
