"""A floor under every judging strategy: judgments no strategy can do without to prove a pair's order.

Given the true grades of a pool (a simulation's complete judgments), how few
judgments can make :func:`judged.analysis.settle.settle` call a pair of runs
settled, whichever documents are chosen and even knowing every grade in
advance? :func:`proof_floor` returns a number that no choice goes below, so
a strategy that needs more than a third of a pool may be blamed only for the
part above the floor.

Why it is a floor. Orient pair (A, B) so that its true mean difference is
positive, and write c_u = s (d_A(u) - d_B(u)) for each pooled document (its
discount in each run's top k, 0 outside; s the true sign). A settled pair has
its least mean difference above 0, and the least is at most the difference
under any one assignment of the unjudged documents. Take the assignment that
gives each unjudged document the top gain when c_u <= 0 and the least gain
when c_u > 0 (or, per query, the least also when c_u = 0), and the true grade to every
judged document u in S. Per query its value is N(S) / I(S), where judging u
adds delta_u = c_u (g_u - adversary_u) >= 0 to the numerator and moves one
gain of the ideal from the adversary's to the true one. Over every S of at most
m documents of the query, N(S) is at most N(0) plus the m largest delta_u, and
I(S) lies between the ideal with the m conversions that lower it most (the
smallest true gains first) and the ideal with the m that raise it most; so
N / I is at most that largest numerator over the least ideal when it is
positive, over the largest ideal when not. A pair is settled by S only if the
sum over queries of these per-query ceilings, at the numbers of S's documents
in each query, exceeds 0; a dynamic programme over the queries finds the
fewest documents for which any split does. Every pair must be settled for the
stopping rule to fire, so the largest pair's floor is a floor for the rule.

**Jointly.** One set of judgments must settle every pair at once. With the
ideal between its least and largest value over every S (I_lo, I_hi), the
query's value is at most g(N) = N / I_lo for N > 0 and N / I_hi otherwise, a
convex function of N, so it is at most the chord of g over the numerator's
whole range [N(0), N(0) + sum delta_u], which is linear in the documents
judged; and at most the smaller of the chords of the two assignments. So
every set that settles every pair, as 0/1 indicators x_u, satisfies, for each
pair, sum over queries of min(chords) > 0: a linear programme whose least
sum of x_u over 0 <= x_u <= 1 is at most the size of any such set. The floor
is the larger of the two: the largest pair's own floor, and that programme's
optimum rounded up.

It is a floor, not the answer: the real least number can be higher (the
exact bounds are tighter than one assignment, and the programme relaxes the
0/1 choice).

>>> import judged
>>> runs = [judged.read_run({"q": {"a": 2.0, "b": 1.0}}, name="A"),
...         judged.read_run({"q": {"b": 2.0, "a": 1.0}}, name="B")]
>>> proof_floor(runs, {"q": {"a": 2, "b": 0}}, "nDCG@2").judgments   # a alone cannot prove it: b could be 2
2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from judged.analysis.settle import SETTLE_EPS, settle
from judged.errors import UsageError
from judged.measures import parse
from judged.measures.gains import discounts
from judged.measures.spec import Measure


@dataclass(frozen=True)
class Floor:
    """Judgments no strategy can do without: per pair (``pairs``: (a, b, floor)), jointly, and the larger of the two."""

    judgments: int  #: max(the largest pair's floor, ``joint``)
    pairs: tuple[tuple[str, str, int], ...]
    joint: int  #: the linear programme's optimum, rounded up (module docstring)


def proof_floor(runs: Sequence, truth: Mapping[str, Mapping[str, int]], measure: Measure | str = "nDCG@10",
                grades: Sequence[int] | None = None) -> Floor:
    """The floor (module docstring) for ``runs`` on ``measure`` when every document of ``truth`` starts unjudged.

    ``truth`` holds the true grade of every pooled document (``{qid: {docid: grade}}``); the pool is its
    documents and the grade domain ``grades`` (default 0..the highest true grade). A pair tied under the true
    grades is left out (a tie is settled only when nothing can move it).
    """
    measure = parse(measure) if isinstance(measure, str) else measure
    if measure.name != "nDCG":
        raise UsageError(f"proof_floor is derived for nDCG (one ideal list shared by both runs). Got {measure}.")
    known = [g for docs in truth.values() for g in docs.values()]
    if not known:
        raise UsageError("proof_floor needs the true grade of at least one pooled document. Got none.")
    domain = tuple(range(max(known) + 1)) if grades is None else tuple(grades)
    if any(g not in domain for g in known):
        raise UsageError(f"proof_floor: every true grade must lie in the grade domain {list(domain)}.")
    pool = [(qid, docid) for qid, docs in truth.items() for docid in docs]
    unjudged = {qid: {docid: -1 for docid in docs} for qid, docs in truth.items()}
    # settle's own data: the queries every run scored, the pooled documents and each run's discount for them
    data = settle(runs, unjudged, measure, pool=pool, grades=domain, samples=0, count_matter=False).data
    position = {g: i for i, g in enumerate(domain)}
    true_gain = [data.grade_gains[[position[truth[qid][d]] for d in docs]] if docs else np.zeros(0)
                 for qid, docs in zip(data.qids, data.pool)]
    k = data.cutoff if data.cutoff > 0 else None
    bottom, top = float(data.values[0]), float(data.values[-1])
    found, chords = [], []
    for a, b in combinations(range(len(data.runs)), 2):
        coef = [share[a] - share[b] for share in data.discount]
        mean = sum(_value(c, g, k) for c, g in zip(coef, true_gain)) / max(len(coef), 1)
        if abs(mean) <= SETTLE_EPS:
            continue
        sign = np.sign(mean)
        ceilings = [np.minimum(_ceiling(sign * c, g, (bottom, top), k, zero_ties=False),
                               _ceiling(sign * c, g, (bottom, top), k, zero_ties=True))
                    for c, g in zip(coef, true_gain)]
        found.append((data.runs[a], data.runs[b], _fewest(ceilings)))
        chords.append([[_chord(sign * c, g, (bottom, top), k, zero_ties) for zero_ties in (False, True)]
                       for c, g in zip(coef, true_gain)])
    joint = _joint(chords, [len(docs) for docs in data.pool])
    return Floor(max([joint, *(f for _, _, f in found)]), tuple(found), joint)


def _ideal(gains: np.ndarray, k: int | None) -> float:
    top = np.sort(gains)[::-1][:k]
    return float((top * discounts(np.arange(len(top)))).sum())


def _value(coef: np.ndarray, gains: np.ndarray, k: int | None) -> float:
    """The query's difference under ``gains`` (0 when the ideal is empty: both runs score norel)."""
    ideal = _ideal(gains, k)
    return float(coef @ gains) / ideal if ideal > 0 else 0.0


def _adversary(coef: np.ndarray, levels: tuple[float, float], zero_ties: bool) -> np.ndarray:
    """The assignment the floor measures against: the top gain where the losing run gains more, else the least."""
    bottom, top = levels
    return np.where(coef < 0, top, bottom) if zero_ties else np.where(coef <= 0, top, bottom)


def _chord(coef: np.ndarray, gains: np.ndarray, levels: tuple[float, float], k: int | None,
           zero_ties: bool) -> tuple[float, np.ndarray] | None:
    """(g(N(0)), slope * delta): the query's value is at most the first plus the second's dot with x.

    None when the chord gives no bound (the least ideal can be empty while the numerator is positive).
    """
    adversary = _adversary(coef, levels, zero_ties)
    delta = coef * (gains - adversary)
    least, most = _ideal(np.minimum(gains, adversary), k), _ideal(np.maximum(gains, adversary), k)

    def g(numerator: float) -> float:
        if numerator > 0:
            return numerator / least if least > 0 else np.inf
        return numerator / most if most > 0 else 0.0

    start, spread = float(coef @ adversary), float(delta.sum())
    low, high = g(start), g(start + spread)
    if not np.isfinite(high):
        return None
    return low, delta * ((high - low) / spread if spread > 0 else 0.0)


def _joint(chords: list[list[list[tuple[float, np.ndarray] | None]]], sizes: list[int]) -> int:
    """The linear programme of the module docstring: variables x (every pooled document), then z (pair, query)."""
    import scipy.optimize
    import scipy.sparse

    if not chords:
        return 0
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(int)
    documents, queries = int(offsets[-1]), len(sizes)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    bound: list[float] = []
    for p, per_query in enumerate(chords):
        row = len(bound)  # sum over queries of z[p, q] >= 0
        rows += [row] * queries
        cols += range(documents + p * queries, documents + (p + 1) * queries)
        vals += [-1.0] * queries
        bound.append(0.0)
        for q, pair_chords in enumerate(per_query):
            for chord in pair_chords:
                if chord is None:
                    continue
                row = len(bound)  # z[p, q] - slope * delta . x <= g(N(0))
                rows += [row] * (sizes[q] + 1)
                cols += [documents + p * queries + q, *range(offsets[q], offsets[q + 1])]
                vals += [1.0, *(-chord[1]).tolist()]
                bound.append(chord[0])
    width = documents + len(chords) * queries
    matrix = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(len(bound), width))
    cost = np.concatenate((np.ones(documents), np.zeros(width - documents)))
    limits = [(0.0, 1.0)] * documents + [(None, None)] * (width - documents)
    found = scipy.optimize.linprog(cost, A_ub=matrix, b_ub=np.array(bound), bounds=limits, method="highs")
    if found.status != 0:
        raise UsageError(f"proof_floor: the linear programme found no optimum ({found.message}).")
    return int(np.ceil(found.fun - 1e-6 * max(1.0, found.fun)))  # the solver's tolerance, never up


def _ceiling(coef: np.ndarray, gains: np.ndarray, levels: tuple[float, float], k: int | None,
             zero_ties: bool) -> np.ndarray:
    """Per m = 0..n, an upper bound on the query's difference under the adversary once any m documents are judged."""
    adversary = _adversary(coef, levels, zero_ties)
    delta = coef * (gains - adversary)
    numerator = float(coef @ adversary) + np.concatenate(([0.0], np.cumsum(np.sort(delta)[::-1])))
    lowering = np.flatnonzero(gains < adversary)
    lowering = lowering[np.argsort(gains[lowering], kind="stable")]
    raising = np.flatnonzero(gains > adversary)
    raising = raising[np.argsort(-gains[raising], kind="stable")]
    n = len(coef)
    least, most = np.empty(n + 1), np.empty(n + 1)
    for m in range(n + 1):
        low, high = adversary.copy(), adversary.copy()
        low[lowering[:m]] = gains[lowering[:m]]
        high[raising[:m]] = gains[raising[:m]]
        least[m], most[m] = _ideal(low, k), _ideal(high, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        above = np.where(least > 0, numerator / least, np.inf)
        below = np.where(most > 0, numerator / most, 0.0)
    return np.where(numerator > 0, above, below)


def _fewest(ceilings: list[np.ndarray]) -> int:
    """The fewest documents, split over the queries, whose per-query ceilings can sum above 0."""
    best = np.zeros(1)
    for ceiling in ceilings:
        size = len(best) + len(ceiling) - 1
        combined = np.full(size, -np.inf)
        for m, value in enumerate(ceiling):
            combined[m: m + len(best)] = np.fmax(combined[m: m + len(best)], best + value)
        best = np.maximum.accumulate(combined)
    reached = np.flatnonzero(best > 0)
    if not len(reached):
        raise UsageError("proof_floor: no set of judgments settles the pair, not even all of them.")
    return int(reached[0])
