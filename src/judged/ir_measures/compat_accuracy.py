"""ir_measures' compat and accuracy providers over judged's ``Compat`` and ``Accuracy`` families.

Their habits, reproduced:

* ``compat`` ranks by score descending, ties by docid ascending (Python's
  sort), and builds its ideal ranking from the documents graded > 0 by grade
  descending, then the run's score descending (a document the run did not
  retrieve at score 0), then the judgments' order. judged's ideal breaks
  grade ties by the run's own ranking; to hand it ir_measures' ideal, the
  relevant judgments are relabelled with distinct grades in that ideal
  order (the first of n gets n), so no tie is left for judged to break.
* ``accuracy`` ranks by score descending, ties in input order (a stable
  sort), and reports only the queries with a relevant document retrieved in
  the top k (``norel=skip``), with no DEFAULT for the others.

>>> from judged.ir_measures import Accuracy, Compat, accuracy, compat
>>> qrels = {"q": {"a": 1, "b": 1}}
>>> run = {"q": {"b": 1.0, "a": 1.0, "n": 2.0}}
>>> round(compat.calc_aggregate([Compat(p=0.5)], qrels, run)[Compat(p=0.5)], 12)  # ranking n, a, b; ideal a, b
0.25
>>> accuracy.calc_aggregate([Accuracy], qrels, run)  # n above both: no pair in order
{Accuracy: 0.0}
"""

from __future__ import annotations

import polars as pl

from judged.errors import UsageError
from judged.ir_measures.measures import Measure
from judged.ir_measures.providers import Provider, _always
from judged.measures.spec import Measure as JudgedMeasure


class CompatProvider(Provider):
    """Clarke et al.'s compatibility: ties by docid ascending; the ideal's grade ties by run score, then file order."""

    NAME = "compat"
    ties = "docid_asc"

    def __init__(self) -> None:
        super().__init__({"Compat": _always})

    def judgments(self, qrels: pl.DataFrame, run: pl.DataFrame) -> pl.DataFrame:
        """The relevant judgments relabelled n, n-1, ..., 1 in ir_measures' ideal order; the others as given."""
        scored = qrels.with_row_index("row").join(run.select("qid", "docid", "score"), on=["qid", "docid"],
                                                  how="left", maintain_order="left")
        ideal = scored.filter(pl.col("grade") > 0).sort(
            ["qid", "grade", pl.col("score").fill_null(0.0), "row"], descending=[False, True, True, False],
            maintain_order=True)
        relabelled = ideal.select("row", (pl.len() - pl.int_range(pl.len())).over("qid").cast(pl.Int64).alias("new"))
        out = scored.join(relabelled, on="row", how="left", maintain_order="left")
        return out.select("qid", "docid", pl.coalesce("new", "grade").alias("grade"))


class AccuracyProvider(Provider):
    """ir_measures' Accuracy: ties in input order, only queries with a relevant document retrieved reported."""

    NAME = "accuracy"
    ties = "input"
    defaults = False

    def __init__(self) -> None:
        super().__init__({"Accuracy": _always})

    def judged_measure(self, measure: Measure) -> JudgedMeasure:
        if measure["rel"] < 1:
            raise UsageError(f"{measure}: ir_measures' accuracy counts an unjudged document as grade 0, so relevant "
                             "under rel < 1, where judged never counts an unjudged document relevant")
        return super().judged_measure(measure)

