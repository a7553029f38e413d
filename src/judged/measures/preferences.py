"""trec_eval's preference measures (``-m all_prefs``): how many of the judged preferences a ranking fulfils.

A preference "A over B" comes from a judgment group (one user's need): in
one of its sub-groups A has a higher level than B. Preferences inside a group
are transitive (A over B in one sub-group and B over C in another give A
over C) and must be consistent; different groups may disagree. A preference
is *fulfilled* when A ranks above B; it is counted *retrieved* when both are
retrieved, *implied* when only one is (fulfilled when it is A), and *not
occurring* when neither is (never fulfilled). ``_ret`` measures count only
retrieved preferences, ``_imp`` ones retrieved and implied preferences, the
rest all of them:

- ``prefs_simp``: fulfilled / possible over all preferences of the query;
- ``prefs_pair``: the mean over document pairs of the share of groups whose
  preference on the pair is fulfilled;
- ``prefs_avgjg``: fulfilled / possible within each group, averaged over groups;
- ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg`` with each group's judged
  non-relevant documents (level 0) cut or padded to as many as it has
  relevant ones (akin to bpref);
- ``prefs_num_prefs_poss``, ``prefs_num_prefs_ful``, ``prefs_num_prefs_ful_ret``:
  the counts, summed over queries.

Why preferences are not families of the registry: a preference relates two
documents inside a judgment group, which the ranked view's one grade per
document cannot hold (docs/design.md, "Preferences"). Each query is handled
as trec_eval's ``form_prefs_counts.c`` does it, quirks included (the
``Rnonrel`` recount of a single-sub-group judgment group also pairs the
non-relevant class with itself), so the numbers are trec_eval's to the bit.

>>> rows = [("u1", "s1", "a", 2.0), ("u1", "s1", "b", 1.0), ("u1", "s1", "c", 0.0)]
>>> query = QueryPreferences.of(["b", "a"], rows)   # b above a: a>b broken; a>c and b>c implied, fulfilled
>>> [preference_value(name, query) for name in ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_simp")]
[3.0, 2.0, 0.6666666666666666]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from judged.errors import InputError

Row = tuple[str, str, str, float]  # (judgment group, sub-group, docid, level)


@dataclass(frozen=True, eq=False)
class Group:
    """One judgment group of one query, its documents named by their docid rank (see :class:`QueryPreferences`).

    ``ranks`` are the members' docid ranks, ascending; ``level`` each member's
    level; ``prefers[i, j]`` says member i is preferred to member j
    (transitively closed). ``classes`` holds, for a group with a single
    sub-group, the docid ranks of each level from the highest level down
    (trec_eval's equivalence classes), and is None otherwise.
    """

    ranks: np.ndarray
    level: np.ndarray
    prefers: np.ndarray
    classes: tuple[np.ndarray, ...] | None

    def relevant(self) -> np.ndarray:
        return self.level > 0.0

    def nonrelevant(self) -> np.ndarray:
        """Judged non-relevant: level 0, or in a single-sub-group group any level <= 0 (trec_eval's two rules)."""
        return self.level <= 0.0 if self.classes is not None else self.level == 0.0


@dataclass(frozen=True, eq=False)
class QueryPreferences:
    """A query's judgment groups against one ranking.

    Every judged document gets a docid rank: the retrieved ones 0..R-1 in
    rank order (R = ``judged_retrieved``), the others R.. in byte order of
    docid. Rank order, for preferences, is trec_eval's: score descending,
    then docid *ascending* (the caller ranks; :func:`judged.engine.preferences`).
    """

    groups: tuple[Group, ...]
    judged: int
    judged_retrieved: int

    @classmethod
    def of(cls, ranked: Sequence[str], rows: Sequence[Row]) -> QueryPreferences:
        """The groups of ``rows`` (one query's preference lines) against ``ranked`` docids, best first."""
        judged_docs = {docid for _, _, docid, _ in rows}
        retrieved = [d for d in ranked if d in judged_docs]
        unretrieved = sorted(judged_docs.difference(retrieved), key=lambda d: d.encode())
        rank = {d: i for i, d in enumerate(retrieved + unretrieved)}
        by_group: dict[str, list[Row]] = {}
        for row in rows:
            by_group.setdefault(row[0], []).append(row)
        groups = tuple(_group(jg, by_group[jg], rank) for jg in sorted(by_group, key=str.encode))
        return cls(groups, len(rank), len(retrieved))

    @cached_property
    def counts(self) -> np.ndarray:
        """Per group: fulfilled retrieved, possible retrieved, fulfilled implied, possible implied, not occurring."""
        return np.array([_counts(g, self.judged_retrieved) for g in self.groups], dtype=np.int64).reshape(-1, 5)

    @cached_property
    def pair_counts(self) -> np.ndarray:
        """``[i, j]``: how many groups prefer the document of docid rank i to that of rank j."""
        total = np.zeros((self.judged, self.judged), dtype=np.int64)
        for g in self.groups:
            total[np.ix_(g.ranks, g.ranks)] += g.prefers
        return total

    @cached_property
    def pair_shares(self) -> tuple[np.ndarray, np.ndarray]:
        """Every document pair some group has a preference on: its area (1 both retrieved, 2 one, 3 neither) and
        the share of those groups' preferences the ranking fulfils (0 in area 3), area by area and in row order
        within an area, the order trec_eval sums them in."""
        counts, r = self.pair_counts, self.judged_retrieved
        either = counts + counts.T
        retrieved = np.arange(self.judged) < r
        area = 3 - retrieved[:, None].astype(np.int64) - retrieved[None, :]
        i, j = np.nonzero(np.triu(either > 0, k=1))  # i < j: i ranks above j, or is the one retrieved
        order = np.argsort(area[i, j], kind="stable")
        i, j = i[order], j[order]
        return area[i, j], np.where(area[i, j] < 3, counts[i, j] / np.maximum(either[i, j], 1), 0.0)


def _group(jg: str, rows: list[Row], rank: dict[str, int]) -> Group:
    """A judgment group from its lines: equivalence classes when it has one sub-group, else a closed relation."""
    docs = sorted({rank[d] for _, _, d, _ in rows})
    local = {r: i for i, r in enumerate(docs)}
    ranks = np.array(docs, dtype=np.int64)
    level = np.full(len(docs), -1.0)
    prefers = np.zeros((len(docs), len(docs)), dtype=bool)
    subgroups: dict[str, list[tuple[int, float]]] = {}
    for _, jsg, docid, value in rows:
        subgroups.setdefault(jsg, []).append((local[rank[docid]], value))
    if len(subgroups) == 1:
        members = next(iter(subgroups.values()))
        index = np.array([i for i, _ in members])
        values = np.array([v for _, v in members])
        level[index] = values
        prefers = level[:, None] > level[None, :]
        classes = tuple(ranks[level == v] for v in sorted(set(values.tolist()), reverse=True))
        return Group(ranks, level, prefers, classes)
    for members in subgroups.values():
        index = np.array([i for i, _ in members])
        values = np.array([v for _, v in members])
        conflict = ((level[index] > 0) & (values == 0)) | ((level[index] == 0) & (values > 0))
        if conflict.any():
            docid = _docid(rank, ranks[index[conflict][0]])
            raise InputError(f"document {docid!r} is judged non-relevant (level 0) and relevant in judgment group "
                             f"{jg!r}", expected="one judgment group that agrees with itself")
        level[index] = values
        prefers[np.ix_(index, index)] |= values[:, None] > values[None, :]
    prefers = _closure(prefers)
    if (prefers & prefers.T).any():
        i, j = np.argwhere(prefers & prefers.T)[0]
        raise InputError(f"judgment group {jg!r} prefers {_docid(rank, ranks[i])!r} to {_docid(rank, ranks[j])!r} "
                         "and the reverse (through its sub-groups)",
                         expected="consistent preferences inside a judgment group; put a disagreeing view in a "
                         "group of its own")
    return Group(ranks, level, prefers, None)


def _docid(rank: dict[str, int], wanted: int) -> str:
    return next(d for d, r in rank.items() if r == wanted)


def _closure(prefers: np.ndarray) -> np.ndarray:
    """The transitive closure of a preference relation (repeated squaring)."""
    closed = prefers.copy()
    while True:
        longer = closed | ((closed.astype(np.int64) @ closed.astype(np.int64)) > 0)
        if (longer == closed).all():
            return closed & ~np.eye(len(closed), dtype=bool)
        closed = longer


def _counts(group: Group, retrieved: int) -> tuple[int, int, int, int, int]:
    above, below = np.nonzero(group.prefers)
    a, b = group.ranks[above], group.ranks[below]
    a_in, b_in = a < retrieved, b < retrieved
    fulfilled = a < b
    ful_ret = int((fulfilled & b_in).sum())
    ful_imp = int((fulfilled & a_in & ~b_in).sum())
    broken_ret = int((~fulfilled & a_in).sum())
    broken_imp = int((~fulfilled & ~a_in & b_in).sum())
    not_occurring = int((~a_in & ~b_in).sum())
    return ful_ret, broken_ret + ful_ret, ful_imp, broken_imp + ful_imp, not_occurring


def _ratio(numerator: float, denominator: float) -> float:
    """C's double division: 0/0 is NaN (which later fails every ``> 0`` test, as in trec_eval)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(numerator) / np.float64(denominator))


def _simple(query: QueryPreferences, columns: tuple[int, ...], possible: tuple[int, ...]) -> float:
    c = query.counts
    total = int(c[:, list(possible)].sum())
    return int(c[:, list(columns)].sum()) / total if total else 0.0


def _per_group(query: QueryPreferences, columns: tuple[int, ...], possible: tuple[int, ...]) -> float:
    total = 0.0
    for row in query.counts:
        poss = int(row[list(possible)].sum())
        if poss:
            total += int(row[list(columns)].sum()) / poss
    return total / len(query.groups) if total > 0.0 else 0.0


def _pairs(query: QueryPreferences, areas: int) -> float:
    """prefs_pair: the mean over document pairs of the share of groups whose preference on the pair is fulfilled.

    ``areas`` 1 takes pairs of retrieved documents, 2 also pairs with one
    retrieved, 3 also pairs with neither (they count, never fulfilled).
    """
    area, shares = query.pair_shares
    taken = int(np.searchsorted(area, areas, side="right"))
    return float(np.cumsum(shares[:taken])[-1] / taken) if taken else 0.0


def _avgjg_rnonrel(query: QueryPreferences, retrieved_only: bool) -> float:
    total = 0.0
    r = query.judged_retrieved
    for group, row in zip(query.groups, query.counts, strict=True):
        ful_ret, poss_ret, ful_imp, poss_imp, not_occurring = (int(v) for v in row)
        rel, nonrel = group.relevant(), group.nonrelevant()
        num_rel, num_nonrel = int(rel.sum()), int(nonrel.sum())
        rel_ret = int((rel & (group.ranks < r)).sum())
        nonrel_ret = int((nonrel & (group.ranks < r)).sum())
        big_r, big_n = (rel_ret, nonrel_ret) if retrieved_only else (num_rel, num_nonrel)
        if big_r >= big_n:
            ful = ful_ret + (0 if retrieved_only else ful_imp) + rel_ret * (big_r - big_n)
            poss = poss_ret + (0 if retrieved_only else poss_imp + not_occurring) + num_rel * (big_r - big_n)
        else:
            # trec_eval keeps rel_ret non-relevant documents of equivalence classes but num_rel of a relation
            ful, poss = _recount(group, r, big_r if group.classes is not None else num_rel, retrieved_only)
        total += _ratio(ful, poss)
    return total / len(query.groups) if total > 0.0 else 0.0


def _recount(group: Group, retrieved: int, keep: int, retrieved_only: bool) -> tuple[int, int]:
    """Fulfilled and possible preferences with only the first ``keep`` non-relevant documents (trec_eval's
    ``recalculate``), in the group's own representation."""
    if group.classes is not None:
        classes = [c[c < retrieved] for c in group.classes] if retrieved_only else list(group.classes)
        kept = group.classes[-1][:keep]
        kept = kept[kept < retrieved] if retrieved_only else kept
        ful = poss = 0
        pairs = [(a, b) for x, a in enumerate(classes) for b in classes[x + 1:-1]] + [(a, kept) for a in classes]
        for a, b in pairs:
            later = len(b) - np.searchsorted(np.sort(b), a, side="right")  # members of b ranked after each a
            hits = int(later[a < retrieved].sum()) if not retrieved_only else int(later.sum())
            ful += hits
            poss += len(a) * len(b) - hits
        return ful, poss + ful
    nonrel = group.level == 0.0
    scope = group.ranks < retrieved if retrieved_only else np.ones(len(group.ranks), dtype=bool)
    order = np.flatnonzero(nonrel & scope)
    first_dropped = group.ranks[order[keep]] if len(order) > keep else (retrieved if retrieved_only else np.inf)
    kept = ~(nonrel & (group.ranks >= first_dropped))
    if retrieved_only:
        kept &= group.ranks < retrieved
    above, below = np.nonzero(group.prefers & kept[:, None] & kept[None, :])
    a, b = group.ranks[above], group.ranks[below]
    ful = int(((a < b) & (a < retrieved)).sum())
    return ful, len(a)


PreferenceKernel = Callable[[QueryPreferences], float]

#: trec_eval's preference measures, in its table order: name -> (printed as an integer count, kernel).
PREFERENCE_MEASURES: dict[str, tuple[bool, PreferenceKernel]] = {
    "prefs_num_prefs_poss": (True, lambda q: float(q.counts[:, [1, 3, 4]].sum())),
    "prefs_num_prefs_ful": (True, lambda q: float(q.counts[:, [0, 2]].sum())),
    "prefs_num_prefs_ful_ret": (True, lambda q: float(q.counts[:, 0].sum())),
    "prefs_simp": (False, lambda q: _simple(q, (0, 2), (1, 3, 4))),
    "prefs_pair": (False, lambda q: _pairs(q, 3)),
    "prefs_avgjg": (False, lambda q: _per_group(q, (0, 2), (1, 3, 4))),
    "prefs_avgjg_Rnonrel": (False, lambda q: _avgjg_rnonrel(q, retrieved_only=False)),
    "prefs_simp_ret": (False, lambda q: _simple(q, (0,), (1,))),
    "prefs_pair_ret": (False, lambda q: _pairs(q, 1)),
    "prefs_avgjg_ret": (False, lambda q: _per_group(q, (0,), (1,))),
    "prefs_avgjg_Rnonrel_ret": (False, lambda q: _avgjg_rnonrel(q, retrieved_only=True)),
    "prefs_simp_imp": (False, lambda q: _simple(q, (0, 2), (1, 3))),
    "prefs_pair_imp": (False, lambda q: _pairs(q, 2)),
    "prefs_avgjg_imp": (False, lambda q: _per_group(q, (0, 2), (1, 3))),
}


def preference_value(name: str, query: QueryPreferences) -> float:
    """The preference measure ``name`` (a key of :data:`PREFERENCE_MEASURES`) for one query."""
    return PREFERENCE_MEASURES[name][1](query)


__all__ = ["PREFERENCE_MEASURES", "Group", "QueryPreferences", "preference_value"]
