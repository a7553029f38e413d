"""Hits: the rows of a ranked view that carry a flag (relevant, judged non-relevant), as sparse positions.

Rank-based measures only need where the relevant documents sit. Working on
those rows alone (a few per cent of a large run) instead of on every retrieved
row keeps AP, RR, R-precision and bpref linear in the number of hits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from judged.engine.view import RankedView


@dataclass(frozen=True)
class Hits:
    """Flagged rows in rank order, query after query: their ``query`` index and 0-based ``position`` within the
    query."""

    query: np.ndarray
    position: np.ndarray
    num_queries: int

    @classmethod
    def of(cls, view: RankedView, flags: np.ndarray) -> Hits:
        """The rows of ``view`` whose flag is set."""
        return cls.at(view, np.flatnonzero(flags))

    @classmethod
    def at(cls, view: RankedView, rows: np.ndarray) -> Hits:
        """The given rows of ``view`` (ascending)."""
        query = np.searchsorted(view.offsets, rows, side="right") - 1
        return cls(query, rows - view.offsets[query], view.num_queries)

    def where(self, keep: np.ndarray) -> Hits:
        """The hits for which ``keep`` (one flag per hit) is set."""
        return Hits(self.query[keep], self.position[keep], self.num_queries)

    def within(self, limit: int | np.ndarray | None) -> Hits:
        """Hits ranked above ``limit`` (one cutoff, or one per query); all when None."""
        if limit is None:
            return self
        bound = limit if np.isscalar(limit) else np.asarray(limit)[self.query]
        return self.where(self.position < bound)

    @cached_property
    def offsets(self) -> np.ndarray:
        """Where each query's hits start, and after the last query's, where they end (int64, one more than
        queries): the hits of query q are ``offsets[q]:offsets[q + 1]``."""
        return np.concatenate(([0], np.cumsum(np.bincount(self.query, minlength=self.num_queries)))).astype(np.int64)

    @cached_property
    def _keys(self) -> np.ndarray:
        """One sortable int64 per hit: its query, then its position (the hits are in this order)."""
        return self.query * _STRIDE + self.position

    def above(self, query: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """For each ``query[i]``, how many of its hits are ranked in its first ``depth[i]`` rows (a depth past
        2^32 - 1 counts as that: no query is longer).

        >>> hits = Hits(np.array([0, 0, 1]), np.array([1, 4, 0]), 2)
        >>> hits.above(np.array([0, 0, 1, 1]), np.array([1, 5, 0, 3])).tolist()
        [0, 2, 0, 1]
        """
        query = np.asarray(query, dtype=np.int64)
        bound = query * _STRIDE + np.minimum(np.asarray(depth, dtype=np.int64), _STRIDE - 1)
        return np.searchsorted(self._keys, bound) - self.offsets[query]

    def count(self) -> np.ndarray:
        """Hits per query."""
        return np.bincount(self.query, minlength=self.num_queries).astype(np.float64)

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Per-query sum of one value per hit."""
        return np.bincount(self.query, weights=values, minlength=self.num_queries)

    @cached_property
    def _ordinal(self) -> np.ndarray:
        return np.arange(len(self.query)) - self.offsets[self.query] + 1

    def ordinal(self) -> np.ndarray:
        """For each hit, how many hits of its query are at or above it (1 for the first); computed once."""
        return self._ordinal

    def first_position(self) -> np.ndarray:
        """Per query, the position of its first hit (-1 when none)."""
        out = np.full(self.num_queries, -1, dtype=np.int64)
        some = self.offsets[:-1] < self.offsets[1:]
        out[some] = self.position[self.offsets[:-1][some]]
        return out

    def preceding(self, other: Hits) -> np.ndarray:
        """For each hit, how many of ``other``'s hits in the same query are ranked above it."""
        return other.above(self.query, self.position)


_STRIDE = np.int64(1) << 32


def relevant_hits(view: RankedView, rel: int) -> Hits:
    """The relevant rows (judged, grade >= ``rel``) of ``view``, computed once per view and threshold."""
    return view.derived(("relevant_hits", rel), lambda: judged_hits(view).where(view.judged_grades >= rel))


def nonrelevant_hits(view: RankedView, rel: int) -> Hits:
    """The judged non-relevant rows (grade < ``rel``) of ``view``, computed once per view and threshold."""
    return view.derived(("nonrelevant_hits", rel), lambda: judged_hits(view).where(view.judged_grades < rel))


def judged_hits(view: RankedView) -> Hits:
    """The judged rows of ``view`` (pooled-but-unjudged rows are not judged), computed once per view."""
    return view.derived("judged_hits", lambda: Hits.at(view, view.judged_rows))
