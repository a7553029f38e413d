"""The canonical ranked view: one run joined to its judgments, ranked once, for all queries.

Every measure reads this view and nothing else, so the tie rule lives here
and only here. The view covers every query of the judgments (in byte order
of qid, as trec_eval prints them); a judged query the run did not answer has
an empty ranking and is flagged ``missing``; run queries without judgments are
left out and counted. A negative grade marks a document that was pooled but not
judged (trec_eval's rule): it counts as unjudged everywhere, is never relevant
or non-relevant, and is left out of the ideal list. Rows are columnar numpy
arrays grouped by query (``offsets``), in rank order:

* ``trec`` ties: score descending, then docid descending by bytes (trec_eval),
* ``input`` ties: score descending, then input order (a stable sort),
* ``average`` ties: ranked as ``trec``; measures spread credit over each tied
  group (:meth:`RankedView.tie_bounds`).

Building it joins run rows to judgments through a 64-bit hash of
(query, docid) and then verifies every match by comparing the strings, so the
join is exact; an unverified match falls back to a plain string join.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import polars as pl

from judged.inputs import Qrels, Run

_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True, eq=False)
class Top:
    """A prefix of every query's ranking: its first ``counts[q]`` rows, compacted query after query.

    Kernels gather per-row values into this compact order (:meth:`take`) and
    reduce them per query (:meth:`sum`, :meth:`max`); ``positions`` is each
    selected row's 0-based rank.
    """

    offsets: np.ndarray
    counts: np.ndarray

    @cached_property
    def starts(self) -> np.ndarray:
        """Where each query's segment starts in the compact order."""
        return np.concatenate(([0], np.cumsum(self.counts)[:-1])).astype(np.int64)

    @cached_property
    def whole(self) -> bool:
        return bool((self.counts == np.diff(self.offsets)).all())

    @cached_property
    def rows(self) -> np.ndarray:
        """Row index (into the full arrays) of each selected row."""
        total = int(self.counts.sum())
        return np.repeat(self.offsets[:-1] - self.starts, self.counts) + np.arange(total, dtype=np.int64)

    @cached_property
    def positions(self) -> np.ndarray:
        """0-based rank of each selected row within its query."""
        total = int(self.counts.sum())
        return np.arange(total, dtype=np.int64) - np.repeat(self.starts, self.counts)

    def take(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per row of the full arrays) restricted to the selected rows."""
        return values if self.whole else values[self.rows]

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per-query sums of ``values`` given one per selected row."""
        return self._reduce(np.add, values)

    def max(self, values: np.ndarray) -> np.ndarray:
        """Per-query maxima of ``values`` (0 for an empty selection)."""
        return self._reduce(np.maximum, values)

    def _reduce(self, ufunc, values: np.ndarray) -> np.ndarray:
        out = np.zeros(len(self.counts), dtype=np.float64)
        nonempty = self.counts > 0
        if nonempty.any():
            out[nonempty] = ufunc.reduceat(values.astype(np.float64, copy=False), self.starts[nonempty])
        return out


@dataclass(frozen=True, eq=False)
class RankedView:
    """Ranked, judged rows of one run for every judged query; see the module docstring."""

    qids: list[str]
    missing: np.ndarray
    offsets: np.ndarray
    grade: np.ndarray
    judged: np.ndarray
    score: np.ndarray
    ideal_offsets: np.ndarray
    ideal_grade: np.ndarray  # per query, grades >= 0 of every judged document, descending
    ties: str
    run_only_queries: int = 0
    _derived: dict = field(default_factory=dict, repr=False)

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Documents retrieved per query."""
        return np.diff(self.offsets)

    @cached_property
    def rank(self) -> np.ndarray:
        """0-based rank of each row within its query."""
        starts = np.repeat(self.offsets[:-1], self.lengths)
        return (np.arange(len(self.grade), dtype=np.int64) - starts).astype(np.int32)

    @cached_property
    def qidx(self) -> np.ndarray:
        """Query index of each row."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int32), self.lengths)

    def top(self, k: int | None) -> Top:
        """The rows ranked in the first ``k`` of each query (all rows when ``k`` is None)."""
        key = ("top", k)
        if key not in self._derived:
            counts = self.lengths if k is None else np.minimum(self.lengths, k)
            self._derived[key] = Top(self.offsets, counts)
        return self._derived[key]

    def prefix(self, counts: np.ndarray) -> Top:
        """The first ``counts[q]`` rows of each query (clipped to what was retrieved)."""
        return Top(self.offsets, np.minimum(self.lengths, counts.astype(np.int64)))

    def ideal_top(self, k: int | None) -> Top:
        """The first ``k`` ideal grades of each query (all when ``k`` is None)."""
        counts = np.diff(self.ideal_offsets)
        return Top(self.ideal_offsets, counts if k is None else np.minimum(counts, k))

    def num_relevant(self, rel: int) -> np.ndarray:
        """Judged documents with grade >= ``rel``, per query (from the judgments, not the run)."""
        return self.ideal_top(None).sum(self.ideal_grade >= rel)

    def num_nonrelevant(self, rel: int) -> np.ndarray:
        """Judged documents with grade < ``rel``, per query."""
        return self.ideal_top(None).sum(self.ideal_grade < rel)

    def relevant(self, rel: int) -> np.ndarray:
        """Per row: judged with grade >= ``rel``."""
        return self.judged & (self.grade >= rel)

    def tie_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row, the 0-based ranks [start, stop) of its group of equal scores within the query."""
        if "ties" not in self._derived:
            n = len(self.score)
            new_group = np.ones(n, dtype=bool)
            if n > 1:
                new_group[1:] = self.score[1:] != self.score[:-1]
            new_group[self.offsets[:-1][self.lengths > 0]] = True
            group = np.cumsum(new_group) - 1
            first = np.flatnonzero(new_group)
            size = np.diff(np.append(first, n))
            start = self.rank[first][group]
            self._derived["ties"] = (start, start + size[group])
        return self._derived["ties"]

    def judged_only(self) -> RankedView:
        """The condensed view: unjudged rows removed before any cutoff (trec_eval -J)."""
        if "judged_only" not in self._derived:
            keep = self.judged
            counts = self.top(None).sum(keep).astype(np.int64)
            self._derived["judged_only"] = RankedView(
                qids=self.qids,
                missing=self.missing,
                offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
                grade=self.grade[keep],
                judged=self.judged[keep],
                score=self.score[keep],
                ideal_offsets=self.ideal_offsets,
                ideal_grade=self.ideal_grade,
                ties=self.ties,
                run_only_queries=self.run_only_queries,
            )
        return self._derived["judged_only"]

    def returned_ideal(self) -> RankedView:
        """This view with the ideal list built from the returned documents only (scikit-learn's ideal)."""
        if "returned_ideal" not in self._derived:
            grades = np.where(self.judged, self.grade, 0)
            order = np.lexsort((-grades, self.qidx))
            self._derived["returned_ideal"] = RankedView(
                qids=self.qids,
                missing=self.missing,
                offsets=self.offsets,
                grade=self.grade,
                judged=self.judged,
                score=self.score,
                ideal_offsets=self.offsets,
                ideal_grade=grades[order],
                ties=self.ties,
                run_only_queries=self.run_only_queries,
            )
        return self._derived["returned_ideal"]


def build_view(run: Run, qrels: Qrels, ties: str = "trec", depth: int | None = None) -> RankedView:
    """Rank ``run`` against ``qrels`` under the tie rule ``ties``, keeping at most ``depth`` per query."""
    qids = qrels.frame["qid"].unique().sort()
    lookup = pl.DataFrame({"qid": qids, "qidx": np.arange(len(qids), dtype=np.int32)})
    run_qidx = _query_index(run.frame["qid"], lookup)
    qrels_qidx = _query_index(qrels.frame["qid"], lookup)
    present = run_qidx >= 0
    run_only = int(run.frame.filter(pl.Series(~present))["qid"].n_unique()) if not present.all() else 0

    frame = run.frame if present.all() else run.frame.filter(pl.Series(present))
    qidx = run_qidx[present]
    grade, judged = _join_grades(frame, qidx, qrels.frame, qrels_qidx)
    score = frame["score"].to_numpy()
    order = _rank_order(frame, qidx, score, ties)
    if order is not None:
        qidx, score, grade, judged = qidx[order], score[order], grade[order], judged[order]
    counts = np.bincount(qidx, minlength=len(qids)).astype(np.int64)
    missing = counts == 0
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    if depth is not None:
        rank = np.arange(len(qidx)) - np.repeat(offsets[:-1], counts)
        keep = rank < depth
        qidx, score, grade, judged = qidx[keep], score[keep], grade[keep], judged[keep]
        counts = np.minimum(counts, depth)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    qgrade = qrels.frame["grade"].to_numpy()
    graded = qgrade >= 0
    qgrade, ideal_qidx = qgrade[graded], qrels_qidx[graded]
    ideal_order = np.lexsort((-qgrade, ideal_qidx))
    ideal_counts = np.bincount(ideal_qidx, minlength=len(qids)).astype(np.int64)
    return RankedView(
        qids=qids.to_list(),
        missing=missing,
        offsets=offsets,
        grade=grade,
        judged=judged,
        score=score,
        ideal_offsets=np.concatenate(([0], np.cumsum(ideal_counts))).astype(np.int64),
        ideal_grade=qgrade[ideal_order],
        ties=ties,
        run_only_queries=run_only,
    )


def _query_index(column: pl.Series, lookup: pl.DataFrame) -> np.ndarray:
    """Index of each row's qid in ``lookup`` (-1 when absent), via the runs of equal qids."""
    blocks = column.rle()
    values = blocks.struct.field("value")
    lengths = blocks.struct.field("len").to_numpy()
    codes = (
        pl.DataFrame({"qid": values})
        .join(lookup, on="qid", how="left", maintain_order="left")["qidx"]
        .fill_null(-1)
        .to_numpy()
        .astype(np.int32)
    )
    return np.repeat(codes, lengths)


def _pair_keys(docids: pl.Series, qidx: np.ndarray) -> np.ndarray:
    dochash = docids.hash(seed=29).to_numpy()
    return dochash ^ (qidx.astype(np.uint64) * _MIX)


def _join_grades(
    run: pl.DataFrame, qidx: np.ndarray, qrels: pl.DataFrame, qrels_qidx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Grade and judged flag of each run row, matched exactly on (query, docid)."""
    right = pl.DataFrame(
        {
            "key": _pair_keys(qrels["docid"], qrels_qidx),
            "qrow": np.arange(qrels.height, dtype=np.int64),
        }
    )
    left = pl.DataFrame({"key": _pair_keys(run["docid"], qidx)})
    qrow = left.join(right, on="key", how="left", maintain_order="left")["qrow"]
    if len(qrow) != run.height:  # a repeated key in the judgments: hash collision, be exact
        return _join_grades_exact(run, qidx, qrels, qrels_qidx)
    matched = qrow.is_not_null().to_numpy()
    rows = qrow.to_numpy()[matched].astype(np.int64) if matched.any() else np.empty(0, np.int64)
    same_query = qrels_qidx[rows] == qidx[matched]
    same_doc = (run["docid"].filter(pl.Series(matched)) == qrels["docid"].gather(rows)).to_numpy()
    if not (same_query.all() and same_doc.all()):
        return _join_grades_exact(run, qidx, qrels, qrels_qidx)
    grade = np.zeros(run.height, dtype=np.int64)
    grade[matched] = qrels["grade"].to_numpy()[rows]
    return _negative_as_unjudged(grade, matched)


def _join_grades_exact(
    run: pl.DataFrame, qidx: np.ndarray, qrels: pl.DataFrame, qrels_qidx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    left = pl.DataFrame({"qidx": qidx, "docid": run["docid"]})
    right = pl.DataFrame({"qidx": qrels_qidx, "docid": qrels["docid"], "grade": qrels["grade"]})
    grade = left.join(right, on=["qidx", "docid"], how="left", maintain_order="left")["grade"]
    judged = grade.is_not_null().to_numpy()
    return _negative_as_unjudged(grade.fill_null(0).to_numpy().astype(np.int64), judged)


def _negative_as_unjudged(grade: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's rule: a negative grade marks a pooled but unjudged document, never relevant or non-relevant."""
    negative = grade < 0
    if negative.any():
        grade = np.where(negative, 0, grade)
        judged = judged & ~negative
    return grade, judged


def _rank_order(frame: pl.DataFrame, qidx: np.ndarray, score: np.ndarray, ties: str) -> np.ndarray | None:
    """The permutation that puts rows in rank order, or ``None`` when they already are."""
    n = len(qidx)
    if n < 2:
        return None
    same = qidx[1:] == qidx[:-1]
    tie = same & (score[1:] == score[:-1])
    ordered = ~same | (score[1:] > score[:-1]) | tie
    if ties != "input" and tie.any():
        at = np.flatnonzero(tie)
        docids = frame["docid"]
        ordered[at] = (docids.gather(at) > docids.gather(at + 1)).to_numpy()
    if ordered.all():
        blocks = _block_order(qidx)
        if blocks is not False:
            return blocks
    by = pl.DataFrame({"qidx": qidx, "score": score, "row": np.arange(n, dtype=np.int64)})
    if ties == "input":
        ranked = by.sort(["qidx", "score", "row"], descending=[False, True, False])
    else:
        by = by.with_columns(frame["docid"])
        ranked = by.sort(["qidx", "score", "docid"], descending=[False, True, True])
    return ranked["row"].to_numpy()


def _block_order(qidx: np.ndarray) -> np.ndarray | None | bool:
    """Rows already ranked within queries: the permutation putting query blocks in qidx order.

    ``None`` when the blocks are already in order, ``False`` when a query's
    rows are split over several blocks (only a full sort can rank them).
    """
    n = len(qidx)
    starts = np.flatnonzero(np.concatenate(([True], qidx[1:] != qidx[:-1])))
    block_q = qidx[starts]
    if len(np.unique(block_q)) != len(block_q):
        return False
    if (block_q[1:] > block_q[:-1]).all():
        return None
    by_query = np.argsort(block_q)
    lengths = np.diff(np.append(starts, n))[by_query]
    shift = starts[by_query] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(shift, lengths) + np.arange(n)
