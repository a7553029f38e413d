"""Per-query values laid out by rank, for user models whose weights depend on what was seen before.

Additive measures (DCG, RBP, P) reduce a column of row values per query in one
pass. ERR and the adaptive C/W/L models (INST, BPM, NERR) carry state from
one rank to the next, so they walk the ranks in order, each step vectorised
over queries: :func:`by_rank` hands them matrices of ``queries x ranks``,
padded with ``pad`` past the end of each ranking, a few million cells at a
time so that a long run never needs one huge matrix.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from judged.engine.view import RankedView

#: Cells per matrix handed out at once.
_CELLS = 4_000_000


def by_rank(view: RankedView, cutoff: int | None, values: np.ndarray, width: int | None = None,
            pad: float = 0.0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(queries, matrix)`` chunks: ``matrix[i, r]`` is ``values`` (one per row of ``view``) at 0-based rank
    ``r`` of query ``queries[i]``, for the first ``cutoff`` ranks (all when None), ``pad`` beyond the ranking,
    ``width`` columns (default: the longest ranking in the top ``cutoff``).

    >>> from judged.engine.ranking import build_view
    >>> from judged.io.inputs import Qrels, Run
    >>> view = build_view(Run.from_dict({"q": {"a": 2.0, "b": 1.0}, "r": {"c": 1.0}}), Qrels.from_dict({"q": {"a": 1}}))
    >>> [(q.tolist(), m.tolist()) for q, m in by_rank(view, None, np.array([1.0, 2.0, 3.0]), width=3)]
    [([0, 1], [[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]])]
    """
    top = view.top(cutoff)
    columns = int(top.counts.max(initial=0)) if width is None else width
    step = max(1, _CELLS // max(columns, 1))
    rows, positions = top.rows, top.positions
    for first in range(0, view.num_queries, step):
        queries = np.arange(first, min(view.num_queries, first + step))
        counts = top.counts[queries]
        lo = int(top.starts[first]) if len(queries) else 0
        hi = lo + int(counts.sum())
        matrix = np.full((len(queries), columns), pad, dtype=np.float64)
        matrix[np.repeat(np.arange(len(queries)), counts), positions[lo:hi]] = values[rows[lo:hi]]
        yield queries, matrix
