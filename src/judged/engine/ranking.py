"""Build the :class:`~judged.engine.view.RankedView`: join a run to its judgments and rank it, once.

The tie rule lives here and only here:

* ``trec``: score descending, then docid descending by bytes (trec_eval's ``comp_sim_docno``),
* ``input``: score descending, then input order (a stable sort),
* ``docid``: score descending, then docid ascending by bytes (Python's sort, so ir_measures'
  msmarco and judged providers),
* ``average``: ranked as ``trec``; measures spread credit over each tied group,
* ``worst`` / ``best``: each tied group in ascending / descending grade (unjudged
  as 0, pooled but unjudged at its negative grade), then docid descending: the lowest
  and highest score any tie order allows when the gain grows with the grade. Under a
  gain map, which need not, the measure's view re-orders each tied group by the gain
  itself (:func:`judged.measures.views.by_gain_within_ties`), as it drops unjudged rows
  for ``unjudged=drop``.

Run files are normally written query by query in descending score. That is
checked in one linear pass and, when it holds, the rows stay where they are:
queries keep the run's order (results are sorted by qid afterwards, per query
rather than per row) and only tied groups whose docids are out of order are
re-sorted. Anything else gets a full sort by (query, score, docid).

Grades are attached query by query in C when the run's queries are
contiguous (each query's judgments in a small hash table of their docids,
matched on the bytes); otherwise through the 64-bit (qid, docid) hashes of
both inputs, every match verified by comparing the strings (a collision falls
back to a plain string join). Either way the join is exact.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import polars as pl

from judged.engine.view import RankedView, Top
from judged.io.inputs import Qrels, Run
from judged.io.native import match_judgments, order_by_score, order_tied


def build_view(
    run: Run, qrels: Qrels, ties: str = "trec", depth: int | None = None, keep_docids: bool = False
) -> RankedView:
    """Rank ``run`` against ``qrels`` under the tie rule ``ties``, keeping at most ``depth`` per query.

    ``keep_docids`` adds the ranked docids to the view (for explaining one query, not for bulk work).
    """
    block_qids, block_lengths = run.blocks
    grouped = run.grouped
    run_qids = block_qids if grouped else block_qids.unique(maintain_order=True)
    judgments = prepared(qrels)
    answered = run_qids.to_list()  # plain lists and sets: a polars call costs more than these few thousand ids
    asked = set(answered)
    universe = answered + [qid for qid in judgments.qids if qid not in asked]

    grade, judged = _join_grades(run, qrels)
    score = run.frame["score"].to_numpy()
    docids = run.frame["docid"]
    counts = np.zeros(len(universe), dtype=np.int64)
    order = None  # the rows' rank order where it is not where they stand (built in place only for docids)
    tied = _order_in_place(docids.gather, block_lengths, score, grade, ties) if grouped else False
    if tied is False and grouped:  # grouped by query but not in score order (dicts, frames): sort each query
        by_score = order_by_score(score, block_lengths)
        ranked_score, ranked_grade = score[by_score], grade[by_score]
        # the ranked rows' docids are looked up where ties need them, not gathered for every row
        tied = _order_in_place(lambda rows: docids.gather(by_score[rows]), block_lengths, ranked_score,
                               ranked_grade, ties)
        if tied is not False:  # False again only where a score is NaN: then the full sort decides
            score, grade, judged, order = ranked_score, ranked_grade, judged[by_score], by_score
    if tied is False:
        lookup = pl.DataFrame({"qid": universe, "qidx": np.arange(len(universe), dtype=np.int32)})
        run_qidx = _query_index(run.frame["qid"], lookup)
        order = _full_sort(docids, run_qidx, score, grade, ties)
        score, grade, judged = score[order], grade[order], judged[order]
        counts[: len(answered)] = np.bincount(run_qidx, minlength=len(answered))
    else:
        counts[: len(block_lengths)] = block_lengths
        if tied is not None:  # scores are equal inside a tied group: only grade and judged move
            members, rows = tied
            grade[members] = grade[rows]
            judged[members] = judged[rows]
            if keep_docids or order is not None:
                base = np.arange(len(score), dtype=np.int64) if order is None else order
                order = base.copy()
                order[members] = base[rows]
    if depth is not None and (counts > depth).any():
        keep = Top(_offsets(counts), np.minimum(counts, depth)).rows
        score, grade, judged = score[keep], grade[keep], judged[keep]
        order = keep if order is None else order[keep]
        counts = np.minimum(counts, depth)

    judged_index = judgments.ranges(universe)
    ideal_offsets, ideal_grade = judgments.ideal_of(judged_index)
    missing = np.zeros(len(universe), dtype=bool)
    missing[len(answered) :] = True
    return RankedView(
        qids=universe,
        missing=missing,
        run_only=judged_index == len(judgments.qids),
        offsets=_offsets(counts),
        grade=grade,
        judged=judged,
        score=score,
        ideal_offsets=ideal_offsets,
        ideal_grade=ideal_grade,
        ties=ties,
        docid=(docids if order is None else docids.gather(order)) if keep_docids else None,
    )


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def _query_index(column: pl.Series, lookup: pl.DataFrame) -> np.ndarray:
    """Index of each row's qid in ``lookup`` (-1 when absent), via the runs of equal qids."""
    blocks = column.rle()
    lengths = blocks.struct.field("len").to_numpy()
    codes = (
        pl.DataFrame({"qid": blocks.struct.field("value")})
        .join(lookup, on="qid", how="left", maintain_order="left")["qidx"]
        .fill_null(-1)
        .to_numpy()
        .astype(np.int32)
    )
    return np.repeat(codes, lengths)


def _join_grades(run: Run, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Grade and judged flag of each run row, matched exactly on (qid, docid)."""
    rows, qrows = _matched_by_query(run, qrels) if run.grouped else _matched_by_pair(run, qrels)
    return _scatter_grades(len(run), rows, qrels.frame["grade"].to_numpy()[qrows])


def _matched_by_query(run: Run, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Matched (run row, qrels row) pairs of a run grouped by query, found within each query in C."""
    judgments = prepared(qrels)
    block_qids, block_lengths = run.blocks
    ranges = judgments.ranges(block_qids.to_list())
    return match_judgments(
        run.frame["docid"],
        _offsets(block_lengths),
        qrels.frame["docid"],
        judgments.rows,
        judgments.starts[ranges],
        judgments.ends[ranges],
    )


@dataclass(frozen=True, eq=False)
class PreparedJudgments:
    """What the view needs of a judgments set whatever the run: its queries (sorted), each query's rows, and
    each query's graded judgments in descending grade (the ideal list). Built once per :class:`Qrels` by
    :func:`prepared`, so an evaluator that scores many runs against one set pays for it once.
    """

    qids: list[str]
    rows: np.ndarray  # the judgment rows grouped by query, in the order of ``qids``
    starts: np.ndarray  # query i's rows are rows[starts[i]:ends[i]]; the entry past the last query is empty
    ends: np.ndarray
    ideal_offsets: np.ndarray  # query i's ideal grades are ideal_grade[ideal_offsets[i]:ideal_offsets[i + 1]]
    ideal_grade: np.ndarray

    @classmethod
    def of(cls, qrels: Qrels) -> PreparedJudgments:
        rows, runs = _by_query(qrels.frame["qid"])
        lengths = runs.struct.field("len").to_numpy().astype(np.int64)
        ends = np.cumsum(lengths)
        grade = qrels.frame["grade"].to_numpy()[rows]
        graded = grade >= 0  # a negative grade is pooled but not judged: never in the ideal list
        query = np.repeat(np.arange(len(lengths)), lengths)[graded]
        ideal = np.lexsort((-grade[graded], query))
        return cls(
            qids=runs.struct.field("value").to_list(),
            rows=rows,
            starts=np.append(ends - lengths, 0),
            ends=np.append(ends, 0),
            ideal_offsets=_offsets(np.bincount(query, minlength=len(lengths))),
            ideal_grade=grade[graded][ideal].astype(np.int32),
        )

    @cached_property
    def _index(self) -> dict[str, int]:
        return {qid: i for i, qid in enumerate(self.qids)}

    def ranges(self, qids: list[str]) -> np.ndarray:
        """Index of each of ``qids`` among the judged queries; the empty entry past them when not judged."""
        index, absent = self._index, len(self.qids)
        return np.fromiter((index.get(qid, absent) for qid in qids), dtype=np.int64, count=len(qids))

    def ideal_of(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ideal lists (offsets, grades) of the queries at ``index`` (from :meth:`ranges`), in their order; a
        query without judgments has none."""
        bounds = np.append(self.ideal_offsets, self.ideal_offsets[-1])  # the entry past the last query is empty
        counts = bounds[index + 1] - bounds[index]
        offsets = _offsets(counts)
        take = np.repeat(bounds[index] - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        return offsets, self.ideal_grade[take]


def _by_query(qids: pl.Series) -> tuple[np.ndarray, pl.Series]:
    """The rows in order of qid (a stable sort: a query's rows keep their order) and the runs of equal qids in
    that order. A file grouped by query, as qrels files are, needs only its runs put in order."""
    runs = qids.rle()
    values = runs.struct.field("value")
    if values.n_unique() < len(values):  # a query in two places: sort every row
        rows = qids.arg_sort().to_numpy().astype(np.int64)
        return rows, qids.gather(rows).rle()
    order = values.arg_sort().to_numpy()
    lengths = runs.struct.field("len").to_numpy().astype(np.int64)
    starts, placed = np.cumsum(lengths) - lengths, lengths[order]
    rows = np.repeat(starts[order] - (np.cumsum(placed) - placed), placed) + np.arange(len(qids), dtype=np.int64)
    return rows, runs[pl.Series(order)]


_PREPARED: weakref.WeakKeyDictionary[Qrels, PreparedJudgments] = weakref.WeakKeyDictionary()


def prepared(qrels: Qrels) -> PreparedJudgments:
    """The :class:`PreparedJudgments` of ``qrels``, computed on its first use and kept while it lives."""
    found = _PREPARED.get(qrels)
    if found is None:
        found = _PREPARED[qrels] = PreparedJudgments.of(qrels)
    return found


def _matched_by_pair(run: Run, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """Matched (run row, qrels row) pairs through the (qid, docid) hashes, every match verified."""
    right = pl.DataFrame({"key": qrels.pair_keys, "qrow": np.arange(len(qrels), dtype=np.int64)})
    matched = pl.DataFrame({"key": run.pair_keys}).with_row_index("row").join(right, on="key", how="inner")
    rows = matched["row"].to_numpy().astype(np.int64)
    qrows = matched["qrow"].to_numpy()
    verified = matched["row"].n_unique() == len(rows) and all(
        (run.frame[column].gather(rows) == qrels.frame[column].gather(qrows)).all()
        for column in ("docid", "qid")
    )
    if not verified:
        exact = (
            run.frame.select("qid", "docid")
            .with_row_index("row")
            .join(qrels.frame.with_row_index("qrow").select("qid", "docid", "qrow"), on=["qid", "docid"])
        )
        rows, qrows = exact["row"].to_numpy().astype(np.int64), exact["qrow"].to_numpy()
    return rows, qrows


def _scatter_grades(n: int, rows: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row grade and judged flag: a document not in the judgments is unjudged with grade 0; a negative
    grade (pooled, not judged) is unjudged and keeps its grade, which tells infAP the two apart."""
    grade = np.zeros(n, dtype=np.int32)
    judged = np.zeros(n, dtype=bool)
    grade[rows] = grades
    judged[rows[grades >= 0]] = True
    return grade, judged


def _order_in_place(
    docid_at: Callable[[np.ndarray], pl.Series], lengths: np.ndarray, score: np.ndarray, grade: np.ndarray,
    ties: str
) -> tuple[np.ndarray, np.ndarray] | Literal[False] | None:
    """Rank rows already grouped by query: ``None`` when they are ranked as they stand, ``(members, rows)``
    when the rows of tied groups must move (``rows[i]`` belongs at ``members[i]``), ``False`` when the
    scores are not descending (a full sort is needed). ``docid_at(rows)``: the docids of those rows."""
    n = len(score)
    if n < 2:
        return None
    last_of_query = np.cumsum(lengths)[:-1] - 1
    descending = score[:-1] >= score[1:]
    descending[last_of_query] = True
    if not descending.all():
        return False
    if ties == "input":
        return None
    tie = score[:-1] == score[1:]
    tie[last_of_query] = False
    first = np.flatnonzero(tie)
    if not len(first):
        return None
    if ties in ("trec", "average") and (docid_at(first) > docid_at(first + 1)).all():
        return None
    if ties == "docid":  # ascending within ties already, or the full sort puts them so
        return None if (docid_at(first) < docid_at(first + 1)).all() else False
    return _tied_order(docid_at, tie, grade, ties)


def _tied_order(
    docid_at: Callable[[np.ndarray], pl.Series], tie: np.ndarray, grade: np.ndarray, ties: str
) -> tuple[np.ndarray, np.ndarray]:
    """Rows in tied groups (``tie[i]``: rows i and i+1 tie) and, for each, the row that belongs in its place.

    Only the tied rows' docids (and grades) are handed to :func:`order_tied`, numbered by their place among
    the members; its answer is numbered back."""
    in_group = np.zeros(len(tie) + 1, dtype=bool)
    in_group[:-1] = tie
    in_group[1:] |= tie
    members = np.flatnonzero(in_group)
    opens = members == 0
    opens[~opens] = ~tie[members[~opens] - 1]  # a member opens a group unless tied to the row before it
    by_grade = grade[members] if ties in ("worst", "best") else None
    local = order_tied(docid_at(members), np.arange(len(members), dtype=np.int64), opens, by_grade, ties == "best")
    return members, members[local]


def _full_sort(docids: pl.Series, qidx: np.ndarray, score: np.ndarray, grade: np.ndarray, ties: str) -> np.ndarray:
    """The permutation ranking every row: by query, score descending, then the tie rule."""
    by = pl.DataFrame({"qidx": qidx, "score": score}).with_row_index("row")
    if ties == "input":
        ranked = by.sort(["qidx", "score", "row"], descending=[False, True, False])
    elif ties in ("worst", "best"):
        ranked = by.with_columns(grade=grade, docid=docids).sort(
            ["qidx", "score", "grade", "docid"], descending=[False, True, ties == "best", True]
        )
    else:
        ranked = by.with_columns(docid=docids).sort(["qidx", "score", "docid"],
                                                   descending=[False, True, ties != "docid"])
    return ranked["row"].to_numpy().astype(np.int64)
