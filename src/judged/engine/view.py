"""The canonical ranked view: one run joined to its judgments, ranked once, for all queries.

Every measure reads this view and nothing else. It covers every query of the
run and of the judgments: a judged query the run did not answer has an empty
ranking and is flagged ``missing``; a run query without judgments is flagged
``run_only`` and never reported. A negative grade marks a document that was
pooled but not judged (trec_eval's rule): it counts as unjudged everywhere, is
never relevant or non-relevant, and is left out of the ideal list. Rows are
columnar numpy arrays grouped by query (``offsets``), in rank order; the tie
rule that decided that order lives in :mod:`judged.engine.ranking`, which builds the view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import polars as pl

_T = TypeVar("_T")


@dataclass(frozen=True, eq=False)
class Top:
    """A prefix of every query's ranking: its first ``counts[q]`` rows, compacted query after query.

    Kernels gather per-row values into this compact order (:meth:`take`) and
    reduce them per query (:meth:`sum`); ``positions`` is each
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
        """Per-query sums of ``values`` given one per selected row (``np.add.reduceat``, pairwise within a long
        segment; :func:`judged.measures.views.rank_order_sum` adds left to right where the bits must agree)."""
        out = np.zeros(len(self.counts), dtype=np.float64)
        nonempty = self.counts > 0
        if nonempty.any():
            out[nonempty] = np.add.reduceat(values.astype(np.float64, copy=False), self.starts[nonempty])
        return out


@dataclass(frozen=True, eq=False)
class RankedView:
    """Ranked, judged rows of one run for every judged query; see the module docstring."""

    qids: list[str]
    missing: np.ndarray
    run_only: np.ndarray
    offsets: np.ndarray
    grade: np.ndarray  # per row; 0 when not in the judgments, the negative grade when pooled but unjudged
    judged: np.ndarray
    score: np.ndarray
    ideal_offsets: np.ndarray
    ideal_grade: np.ndarray  # per query, grades >= 0 of every judged document, descending
    ties: str
    docid: pl.Series | None = None
    _derived: dict[Hashable, Any] = field(default_factory=dict, repr=False)  # :meth:`derived`'s values

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def derived(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """``compute()``, computed once per view and ``key``: the measures of one evaluation (every cutoff, every
        family reading the same gains) share what they derive from the view. Arrays come back read-only, so no
        measure can change what another reads.

        >>> view = RankedView(["q"], np.array([False]), np.array([False]), np.array([0, 1]), np.array([2]),
        ...                   np.array([True]), np.zeros(1), np.array([0, 1]), np.array([2]), "trec")
        >>> first = view.derived(("double", 2), lambda: view.grade * 2)
        >>> view.derived(("double", 2), lambda: view.grade * 3) is first, first.flags.writeable
        (True, False)
        """
        if key not in self._derived:
            value = compute()
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, np.ndarray):
                    part.setflags(write=False)
            self._derived[key] = value
        cached: _T = self._derived[key]
        return cached

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
        return self.derived(("top", k), lambda: Top(self.offsets, self.lengths if k is None
                                                     else np.minimum(self.lengths, k)))

    def ideal_top(self, k: int | None) -> Top:
        """The first ``k`` ideal grades of each query (all when ``k`` is None)."""
        counts = np.diff(self.ideal_offsets)
        return Top(self.ideal_offsets, counts if k is None else np.minimum(counts, k))

    def judged_within(self, k: int | None) -> np.ndarray:
        """Judged documents among each query's first ``k`` rows (all when None), counted from the judged rows.

        >>> view = RankedView(["q"], np.array([False]), np.array([False]), np.array([0, 3]), np.array([1, 0, 2]),
        ...                   np.array([True, False, True]), np.zeros(3), np.array([0, 0]), np.array([], int), "trec")
        >>> view.judged_within(2).tolist(), view.judged_within(None).tolist()
        ([1], [2])
        """
        rows, starts = self.judged_rows, self.offsets[:-1]
        return np.searchsorted(rows, starts + self.top(k).counts) - np.searchsorted(rows, starts)

    @cached_property
    def judged_rows(self) -> np.ndarray:
        """The judged rows, ascending: a few per cent of a deep run's rows, read instead of the flags."""
        return np.flatnonzero(self.judged)

    @cached_property
    def judged_grades(self) -> np.ndarray:
        """The grades of :attr:`judged_rows`, in their order."""
        return self.grade[self.judged_rows]

    def num_relevant(self, rel: int) -> np.ndarray:
        """Judged documents with grade >= ``rel``, per query (from the judgments, not the run); counted once."""
        return self.derived(("num_relevant", rel), lambda: self.ideal_top(None).sum(self.ideal_grade >= rel))

    def num_nonrelevant(self, rel: int) -> np.ndarray:
        """Judged documents with grade < ``rel``, per query."""
        return self.ideal_top(None).sum(self.ideal_grade < rel)

    def relevant(self, rel: int) -> np.ndarray:
        """Per row: judged with grade >= ``rel``."""
        return self.derived(("relevant", rel), lambda: self.judged & (self.grade >= rel))

    def tie_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row, the 0-based ranks [start, stop) of its group of equal scores within the query."""
        return self.derived("ties", self._tie_bounds)

    def _tie_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.score)
        new_group = np.ones(n, dtype=bool)
        if n > 1:
            new_group[1:] = self.score[1:] != self.score[:-1]
        new_group[self.offsets[:-1][self.lengths > 0]] = True
        group = np.cumsum(new_group) - 1
        first = np.flatnonzero(new_group)
        size = np.diff(np.append(first, n))
        start = self.rank[first][group].astype(np.int64)
        return start, start + size[group]

    def ties_across(self, k: int) -> np.ndarray:
        """Per query: does a group of equal scores straddle the cutoff (ranks k and k+1 tie)?"""
        out = np.zeros(self.num_queries, dtype=bool)
        long_enough = np.flatnonzero(self.lengths > k)
        at = self.offsets[long_enough] + k
        out[long_enough] = self.score[at - 1] == self.score[at]
        return out

    def judged_only(self) -> RankedView:
        """The condensed view: unjudged rows removed before any cutoff (trec_eval -J)."""
        return self.derived("judged_only", self._judged_only)

    def _judged_only(self) -> RankedView:
        keep = self.judged
        counts = self.top(None).sum(keep).astype(np.int64)
        return dataclasses.replace(
            self, offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64), grade=self.grade[keep],
            judged=self.judged[keep], score=self.score[keep],
            docid=None if self.docid is None else self.docid.filter(pl.Series(keep)), _derived={},
        )

    def reordered(self, order: np.ndarray) -> RankedView:
        """This view with its rows taken in ``order``, a permutation within each query (scores stay in place:
        only which document holds each rank changes); nothing derived from this view carries over."""
        return dataclasses.replace(self, grade=self.grade[order], judged=self.judged[order],
                                   docid=None if self.docid is None else self.docid.gather(order), _derived={})

    def returned_ideal(self) -> RankedView:
        """This view with the ideal list built from the returned judged documents only (scikit-learn's ideal).

        Unjudged returned documents take no place in it, as they take none in the judged ideal.
        """
        return self.derived("returned_ideal", self._returned_ideal)

    def _returned_ideal(self) -> RankedView:
        query = self.qidx[self.judged]
        grades = self.grade[self.judged]
        order = np.lexsort((-grades, query))
        return dataclasses.replace(
            self, ideal_offsets=np.concatenate(([0], np.cumsum(np.bincount(query, minlength=self.num_queries)))),
            ideal_grade=grades[order], _derived={},
        )
