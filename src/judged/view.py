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
    grade, judged = _join_grades(run, qrels, run_qidx, qrels_qidx)
    score = run.frame["score"].to_numpy()

    present = run_qidx >= 0
    rows = None if present.all() else np.flatnonzero(present)
    run_only = 0 if rows is None else int(run.frame["qid"].filter(pl.Series(~present)).n_unique())
    qidx = run_qidx if rows is None else run_qidx[rows]
    order = _rank_order(run.frame["docid"], rows, qidx, score if rows is None else score[rows], ties)
    if rows is not None:
        order = rows if order is None else rows[order]
    if order is not None:
        score, grade, judged = score[order], grade[order], judged[order]

    counts = np.bincount(run_qidx + 1, minlength=len(qids) + 1)[1:].astype(np.int64)
    missing = counts == 0
    if depth is not None and (counts > depth).any():
        keep = Top(_offsets(counts), np.minimum(counts, depth)).rows
        score, grade, judged = score[keep], grade[keep], judged[keep]
        counts = np.minimum(counts, depth)

    qgrade = qrels.frame["grade"].to_numpy()
    graded = qgrade >= 0
    qgrade, ideal_qidx = qgrade[graded], qrels_qidx[graded]
    ideal_order = np.lexsort((-qgrade, ideal_qidx))
    ideal_counts = np.bincount(ideal_qidx, minlength=len(qids)).astype(np.int64)
    return RankedView(
        qids=qids.to_list(),
        missing=missing,
        offsets=_offsets(counts),
        grade=grade,
        judged=judged,
        score=score,
        ideal_offsets=_offsets(ideal_counts),
        ideal_grade=qgrade[ideal_order].astype(np.int32),
        ties=ties,
        run_only_queries=run_only,
    )


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


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


def _join_grades(
    run: Run, qrels: Qrels, run_qidx: np.ndarray, qrels_qidx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Grade and judged flag of each run row, matched exactly on (query, docid).

    Rows are matched on the 64-bit pair hash, then every match is verified by
    comparing query and docid; a failed verification (a hash collision) falls
    back to a plain string join. A negative grade leaves the row unjudged.
    """
    right = pl.DataFrame({"key": qrels.pair_keys, "qrow": np.arange(len(qrels), dtype=np.int64)})
    matched_rows = (
        pl.DataFrame({"key": run.pair_keys})
        .with_row_index("row")
        .join(right, on="key", how="inner")
    )
    if matched_rows["row"].n_unique() != matched_rows.height:  # two judgments share a hash
        return _join_grades_exact(run, qrels, run_qidx, qrels_qidx)
    rows = matched_rows["row"].to_numpy().astype(np.int64)
    qrows = matched_rows["qrow"].to_numpy()
    same_doc = (run.frame["docid"].gather(rows) == qrels.frame["docid"].gather(qrows)).all()
    if not (same_doc and (run_qidx[rows] == qrels_qidx[qrows]).all()):
        return _join_grades_exact(run, qrels, run_qidx, qrels_qidx)
    return _scatter_grades(len(run), rows, qrels.frame["grade"].to_numpy()[qrows])


def _join_grades_exact(
    run: Run, qrels: Qrels, run_qidx: np.ndarray, qrels_qidx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    left = pl.DataFrame({"qidx": run_qidx, "docid": run.frame["docid"]}).with_row_index("row")
    right = pl.DataFrame({"qidx": qrels_qidx, "docid": qrels.frame["docid"], "grade": qrels.frame["grade"]})
    matched = left.join(right, on=["qidx", "docid"], how="inner")
    return _scatter_grades(len(run), matched["row"].to_numpy().astype(np.int64), matched["grade"].to_numpy())


def _scatter_grades(n: int, rows: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row grade and judged flag; a negative grade (pooled, not judged) stays unjudged with grade 0."""
    grade = np.zeros(n, dtype=np.int32)
    judged = np.zeros(n, dtype=bool)
    judged_rows = grades >= 0
    grade[rows[judged_rows]] = grades[judged_rows]
    judged[rows[judged_rows]] = True
    return grade, judged


def _rank_order(
    docids: pl.Series, rows: np.ndarray | None, qidx: np.ndarray, score: np.ndarray, ties: str
) -> np.ndarray | None:
    """The permutation (of the selected ``rows``) that puts them in rank order, or ``None`` when they already are.

    Runs are usually written query by query in score order, so the common
    case costs a linear check; when only tied groups are out of docid order,
    only the tied rows are re-sorted.
    """
    n = len(qidx)
    if n < 2:
        return None

    def docid(at: np.ndarray) -> pl.Series:
        return docids.gather(at if rows is None else rows[at])

    same = qidx[1:] == qidx[:-1]
    tie = same & (score[1:] == score[:-1])
    if not (~same | (score[:-1] >= score[1:])).all() or _split_queries(qidx):
        return _full_sort(docid, qidx, score, ties)
    order = None
    if ties != "input" and tie.any():
        at = np.flatnonzero(tie)
        if not (docid(at) > docid(at + 1)).all():
            order = _sort_tied(docid, tie, n)
    blocks = _block_order(qidx)
    if blocks is None:
        return order
    return blocks if order is None else order[blocks]


def _split_queries(qidx: np.ndarray) -> bool:
    """True when some query's rows are not contiguous."""
    starts = np.flatnonzero(np.concatenate(([True], qidx[1:] != qidx[:-1])))
    return len(np.unique(qidx[starts])) != len(starts)


def _full_sort(docid, qidx: np.ndarray, score: np.ndarray, ties: str) -> np.ndarray:
    n = len(qidx)
    by = pl.DataFrame({"qidx": qidx, "score": score, "row": np.arange(n, dtype=np.int64)})
    if ties == "input":
        ranked = by.sort(["qidx", "score", "row"], descending=[False, True, False])
    else:
        by = by.with_columns(docid(np.arange(n)).alias("docid"))
        ranked = by.sort(["qidx", "score", "docid"], descending=[False, True, True])
    return ranked["row"].to_numpy()


def _sort_tied(docid, tie: np.ndarray, n: int) -> np.ndarray:
    """Identity order except inside tied groups, which are re-sorted by docid descending."""
    first = np.flatnonzero(tie)  # each tied pair (i, i+1)
    members = np.union1d(first, first + 1)
    opens = np.ones(len(members), dtype=bool)  # a member opens a group unless tied to the row before it
    opens[1:] = ~np.isin(members[1:] - 1, first, assume_unique=True)
    group = np.cumsum(opens)
    ranked = pl.DataFrame({"group": group, "row": members, "docid": docid(members)}).sort(
        ["group", "docid"], descending=[False, True]
    )
    order = np.arange(n, dtype=np.int64)
    order[members] = ranked["row"].to_numpy()
    return order


def _block_order(qidx: np.ndarray) -> np.ndarray | None:
    """The permutation putting contiguous query blocks in qidx order (``None`` when they already are)."""
    n = len(qidx)
    starts = np.flatnonzero(np.concatenate(([True], qidx[1:] != qidx[:-1])))
    block_q = qidx[starts]
    if (block_q[1:] > block_q[:-1]).all():
        return None
    by_query = np.argsort(block_q)
    lengths = np.diff(np.append(starts, n))[by_query]
    shift = starts[by_query] - _starts(lengths)
    return np.repeat(shift, lengths) + np.arange(n)
