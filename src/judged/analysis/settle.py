"""Which comparisons the judgments already decide, whatever the unjudged documents turn out to be.

For runs A, B, ... one measure and the current judgments with a pool,
:func:`settle` computes, for every pair of runs, the exact minimum and maximum
of the mean difference ``mean(M_A - M_B)`` over every assignment of grades
(from the grade domain) to the pooled documents that are not judged. A grade
is one grade for both runs, so this is a *joint* bound, much tighter than
``min(A) - max(B)``: for nDCG both runs share the query's ideal list, so per
query the difference is ``(DCG_A - DCG_B) / IDCG`` and a document both runs
rank at the same depth cannot move its sign. Queries are independent, so the
mean's bound is the mean of the per-query bounds. The measure is one of the
families with exact joint bounds, nDCG, R, DCG, P, RBP, SDCG, INSQ, RR, Success
and R-prec (:mod:`judged.analysis.joint_families`, docs/settle.md); any other is
refused with the reason.

A pair is **settled** when its bound does not straddle 0: the sign of the
difference is the same under every assignment (or it is 0 under all of
them). The order of all runs is settled when every pair is. Each run's mean
gets its own exact range under the same pool. The stopping rule, "every
comparison among these runs on this measure is settled by the current
judgments", is then a statement judged proves, with the counts behind it.

Beyond the sign, the paired t-test at ``alpha`` (two-sided, per pair, no
correction): its conclusion *cannot change* when a proof over every
per-query difference inside the bounds says so (the mean's bound against an
upper bound on the variance, or the largest |t| against the least variance,
docs/settle.md), or, for a significant conclusion with at most
``CORNER_LIMIT`` queries whose range is not a point, exactly from every
corner of the ranges; it *can change* when two assignments with different
conclusions are found (the all-low, all-high and ``samples`` random corners
of the per-query ranges: each is reached by an actual assignment); otherwise
the answer is an *estimate*: none of the sampled assignments changes it.

>>> import judged
>>> from judged.analysis.settle import settle
>>> runs = [judged.read_run({"q": {"a": 3.0, "u": 2.0, "b": 1.0}}, name="A"),
...         judged.read_run({"q": {"b": 3.0, "u": 2.0, "a": 1.0}}, name="B")]
>>> s = settle(runs, {"q": {"a": 2, "b": 0}}, "nDCG@3", grades=range(3))
>>> p = s.pairs[0]      # u sits at rank 2 in both: whatever its grade, A ranks a (grade 2) above b
>>> p.settled, p.sign, round(p.minimum, 4) > 0
(True, 1, True)
>>> s.stopping.fires
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from judged.analysis.bounds import _grade_domain
from judged.analysis.impact import OpenPair, grade_effects
from judged.analysis.joint import JointPool, check_measure, joint_pool
from judged.engine.evaluate import evaluate
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.measures import parse
from judged.measures.spec import Measure
from judged.params import convention_choice

#: A mean bound beyond 0 by no more than this is treated as touching 0 (the exact ranges round by about 1e-16).
SETTLE_EPS = 1e-12
TEST_STATES = ("cannot change", "can change", "estimate")
#: A significant conclusion is checked at every corner of the per-query ranges when at most this many are not points.
CORNER_LIMIT = 16
_CORNER_CELLS = 1 << 22


@dataclass(frozen=True)
class RunBound:
    """One run's mean over the shared queries: with unjudged as 0, and its exact range."""

    run: str
    mean: float
    minimum: float
    maximum: float


@dataclass(frozen=True)
class TestOutcome:
    """The paired t-test of a pair at ``alpha``: its conclusion now and whether the unjudged grades can change it.

    ``conclusion`` is 1 (first run significantly better), -1 (worse) or 0 (no
    significant difference); ``state`` one of ``TEST_STATES``; ``how`` says
    why (the proof, the witness, or how many assignments were sampled).
    """

    conclusion: int
    state: str
    how: str


@dataclass(frozen=True, eq=False)
class PairBound:
    """Runs ``a`` and ``b`` (a listed first): mean difference a - b now, its exact range, and per query."""

    a: str
    b: str
    difference: float
    minimum: float
    maximum: float
    low: np.ndarray  #: per shared query
    high: np.ndarray
    test: TestOutcome | None  #: None with fewer than two shared queries

    @property
    def settled(self) -> bool:
        """The sign of the difference is the same under every assignment."""
        return self.sign is not None

    @property
    def sign(self) -> int | None:
        """1 when a is ahead under every assignment, -1 when behind, 0 when tied under all; None when open."""
        if self.minimum > SETTLE_EPS:
            return 1
        if self.maximum < -SETTLE_EPS:
            return -1
        if abs(self.minimum) <= SETTLE_EPS and abs(self.maximum) <= SETTLE_EPS:
            return 0
        return None


@dataclass(frozen=True)
class StoppingRule:
    """Whether every comparison is settled, with the counts that say so."""

    fires: bool
    pairs_settled: int
    pairs: int
    unjudged: int  #: pooled documents of the shared queries without a judgment
    could_matter: int | None  #: of those, documents whose grade can move an open pair's bound (None: not counted)
    statement: str


@dataclass(frozen=True, eq=False)
class Settlement:
    """Everything :func:`settle` found (module docstring)."""

    measure: Measure
    pool: str  #: ``top_k``, ``retrieved`` or ``given``
    grades: tuple[int, ...]
    alpha: float
    qids: tuple[str, ...]  #: the queries every run scored
    skipped: int  #: judged queries some run did not score (missing under missing=skip)
    runs: tuple[RunBound, ...]
    pairs: tuple[PairBound, ...]
    stopping: StoppingRule
    data: JointPool  #: restricted to ``qids``; what the selection strategies read
    #: per query, (documents x grades) moves of the open bounds (:func:`~judged.analysis.impact.grade_effects`),
    #: when the stopping rule counted them
    effects: tuple[np.ndarray, ...] | None = None

    @property
    def order(self) -> tuple[str, ...]:
        """The runs by mean with unjudged as 0, best first (ties in the order given)."""
        ranked = sorted(range(len(self.runs)), key=lambda i: -self.runs[i].mean)
        return tuple(self.runs[i].run for i in ranked)

    @property
    def order_settled(self) -> bool:
        """Whether every pair, and so the order of all runs, is settled."""
        return all(pair.settled for pair in self.pairs)

    def open_pairs(self) -> list[OpenPair]:
        """The open pairs as :class:`~judged.analysis.impact.OpenPair` (for :mod:`~judged.analysis.selection`)."""
        index = {run.run: i for i, run in enumerate(self.runs)}
        return [OpenPair(index[p.a], index[p.b], p.low, p.high) for p in self.pairs if not p.settled]


def settle(
    runs: Sequence,
    qrels,
    measure: Measure | str = "nDCG@10",
    *,
    pool: str | Iterable[tuple[str, str]] = "top_k",
    grades: Iterable[int] | None = None,
    missing: str = "skip",
    alpha: float = 0.05,
    samples: int = 200,
    seed: int = 0,
    count_matter: bool = True,
) -> Settlement:
    """Joint bounds of every pair of ``runs`` on ``measure``, the settled order and the stopping rule.

    ``runs`` are paths, frames or mappings (read as :func:`judged.read_run`),
    ``qrels`` the current judgments (a negative grade is pooled, not judged).
    ``pool`` is ``top_k`` (every run's top k), ``retrieved`` (everything
    retrieved) or the (qid, docid) pairs of a pool; only its unjudged
    documents take grades, from ``grades`` (default 0..the highest grade in
    ``qrels``). The measure must be of a family with exact joint bounds (nDCG,
    R, DCG, P, RBP, SDCG and INSQ with a fixed ``max_rel``, RR, Success, Rprec), with
    ``ideal=judged``, ``ties=trec|input`` and ``norel=0|1``; its ``unjudged``
    parameter is ignored (unjudged as 0 is the current value). ``alpha``, ``samples`` and ``seed`` drive the t-test
    part (module docstring). ``count_matter`` counts, for the stopping rule,
    the unjudged documents whose grade can move an open bound (one exact solve
    per document, grade and open pair; ``could_matter`` is None without it).
    """
    convention_choice("missing", missing)
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie strictly between 0 and 1. Got {alpha!r} instead.")
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise UsageError(f"samples must be an int >= 0. Got {samples!r} instead.")
    measure = check_measure(parse(measure) if isinstance(measure, str) else measure)
    measure = replace(measure, unjudged="zero")
    loaded = [read_run(run) for run in runs]
    if len(loaded) < 2:
        raise UsageError(f"settle compares runs: give at least two. Got {len(loaded)}.")
    names = [run.name for run in loaded]
    if len(set(names)) < len(names):
        raise UsageError(f"two runs are named alike ({', '.join(names)}); settle names pairs by run.")
    qrels = read_qrels(qrels)
    domain = _grade_domain(qrels, grades)
    data = joint_pool(loaded, qrels, measure, domain, pool)
    results = [evaluate(run, qrels, [measure], missing=missing) for run in loaded]
    current = np.array([result.values[measure] for result in results])
    shared = ~np.isnan(current).any(axis=0)
    data = data.restrict(np.flatnonzero(shared))
    current = current[:, shared]

    norel = float(measure.norel)
    run_bounds = []
    for r, name in enumerate(data.runs):
        lo, hi = _range(data, np.eye(len(data.runs))[r], norel, current[r])
        run_bounds.append(RunBound(name, _mean(current[r]), _mean(lo), _mean(hi)))
    t_crit = _t_critical(alpha, len(data.qids))
    rng = np.random.default_rng(seed)
    pairs = []
    for a, b in combinations(range(len(data.runs)), 2):
        weights = np.zeros(len(data.runs))
        weights[a], weights[b] = 1.0, -1.0
        now = current[a] - current[b]
        lo, hi = _range(data, weights, 0.0, now)
        test = None if t_crit is None else _test(now, lo, hi, t_crit, samples, rng)
        pairs.append(PairBound(data.runs[a], data.runs[b], _mean(now), _mean(lo), _mean(hi), lo, hi, test))
    partial = Settlement(measure, pool if isinstance(pool, str) else "given", domain, alpha, data.qids,
                         int((~shared).sum()), tuple(run_bounds), tuple(pairs),
                         StoppingRule(False, 0, 0, 0, 0, ""), data)
    effects = _effects(partial) if count_matter else None
    return replace(partial, stopping=_stopping(partial, effects), effects=effects)


def _range(data: JointPool, weights: np.ndarray, empty: float, now: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact per-query range of the objective, widened to the current value when unjudged as 0 is an assignment."""
    lo, hi = data.ranges(weights, empty)
    if data.values[0] == 0:
        lo, hi = np.fmin(lo, now), np.fmax(hi, now)
    return lo, hi


def _mean(values: np.ndarray) -> float:
    return float(values.sum() / len(values)) if len(values) else float("nan")


def _t_critical(alpha: float, n: int) -> float | None:
    if n < 2:
        return None
    import scipy.stats

    return float(scipy.stats.t.ppf(1 - alpha / 2, n - 1))


def conclusions(differences: np.ndarray, t_crit: float) -> np.ndarray:
    """The paired t-test's conclusion for each row of per-query differences: 1, -1 or 0 (not significant).

    Significant when |t| >= ``t_crit`` (p <= alpha); every difference equal:
    0 when they are 0, else significant (``judged.stats.paired.t_test``'s rule).

    >>> conclusions(np.array([[0.2, 0.21, 0.22], [0.1, -0.1, 0.0], [0.2, 0.2, 0.2]]), 4.303)
    array([1, 0, 1])
    """
    d = np.atleast_2d(differences)
    n = d.shape[1]
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, mean / (sd / np.sqrt(n)), np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))
    return np.where(np.abs(t) >= t_crit, np.sign(t), 0).astype(np.int64)


def _test(now: np.ndarray, lo: np.ndarray, hi: np.ndarray, t_crit: float, samples: int, rng) -> TestOutcome:
    conclusion = int(conclusions(now, t_crit)[0])
    if _proved(conclusion, lo, hi, t_crit):
        return TestOutcome(conclusion, "cannot change", "proved over every difference inside the bounds")
    free = np.flatnonzero(hi > lo)
    if conclusion != 0 and len(free) <= CORNER_LIMIT and len(lo) << len(free) <= _CORNER_CELLS:
        # significance is mean - t_crit sd / sqrt(n) >= 0 (with the sign), a concave function: it holds on the
        # whole box exactly when it holds at every corner, and every corner is reached by an assignment
        bits = (np.arange(2 ** len(free))[:, None] >> np.arange(len(free))[None, :]) & 1
        corners = np.broadcast_to(lo, (len(bits), len(lo))).copy()
        corners[:, free] = np.where(bits == 1, hi[free], lo[free])
        if (conclusions(corners, t_crit) == conclusion).all():
            return TestOutcome(conclusion, "cannot change", f"exact: all {len(bits)} corners of the ranges keep it")
        return TestOutcome(conclusion, "can change", "exact: a corner of the ranges (an assignment) loses it")
    corners = np.vstack((lo, hi, np.where(rng.random((samples, len(lo))) < 0.5, lo, hi)))
    found = conclusions(corners, t_crit)
    differ = np.flatnonzero(found != conclusion)
    if len(differ):
        which = ("every query at its lowest difference", "every query at its highest difference")
        first = int(differ[0])
        where = which[first] if first < 2 else "a sampled corner of the ranges"
        return TestOutcome(conclusion, "can change", f"an assignment gives {_WORDS[int(found[first])]} ({where})")
    return TestOutcome(conclusion, "estimate", f"none of {samples + 2} assignments changes it; not proved")


_WORDS = {1: "significantly better", -1: "significantly worse", 0: "no significant difference"}


def _proved(conclusion: int, lo: np.ndarray, hi: np.ndarray, t_crit: float) -> bool:
    """Whether every vector of differences inside [lo, hi] gives ``conclusion`` (sufficient conditions)."""
    n = len(lo)
    if conclusion != 0:
        low_mean = float(np.mean(lo)) if conclusion > 0 else -float(np.mean(hi))
        if low_mean <= 0:
            return False
        centre = float(np.mean((lo + hi) / 2))
        # var(d) <= sum (d_q - m)^2 / (n - 1) for any m, and each term is largest at an end of its range
        upper_var = float(np.maximum((lo - centre) ** 2, (hi - centre) ** 2).sum()) / (n - 1)
        if upper_var == 0 or low_mean / np.sqrt(upper_var / n) > t_crit * (1 + 1e-9):
            return True
        # t >= t_crit exactly when n (n - 1 + t_crit^2) mean^2 >= t_crit^2 sum d^2 (mean > 0); bound each side
        squares = float(np.maximum(lo**2, hi**2).sum())
        return n * (n - 1 + t_crit**2) * low_mean**2 > t_crit**2 * squares * (1 + 1e-9)
    least_var = _least_variance(lo, hi)
    largest_mean = max(abs(float(np.mean(lo))), abs(float(np.mean(hi))))
    if least_var <= 0:
        return largest_mean == 0
    return largest_mean / np.sqrt(least_var / n) < t_crit * (1 - 1e-9)


def _least_variance(lo: np.ndarray, hi: np.ndarray) -> float:
    """min over d in the box [lo, hi] of the sample variance: min over m of sum dist(m, [lo_q, hi_q])^2 / (n - 1).

    Piecewise quadratic in m: on each interval between consecutive ends, the
    ranges above m and below m are fixed and the minimiser is their ends' mean.
    """
    ends = np.unique(np.concatenate((lo, hi)))
    candidates = [ends]
    for left, right in zip(np.concatenate(([-np.inf], ends)), np.concatenate((ends, [np.inf]))):
        above, below = lo >= right, hi <= left
        count = int(above.sum() + below.sum())
        if count:
            centre = (float(lo[above].sum()) + float(hi[below].sum())) / count
            candidates.append(np.array([min(max(centre, left), right)]))
    m = np.concatenate(candidates)[:, None]
    distance = np.maximum(lo[None, :] - m, 0) + np.maximum(m - hi[None, :], 0)
    return float((distance**2).sum(axis=1).min()) * (1 - 1e-9) / (len(lo) - 1)


def _effects(s: Settlement) -> tuple[np.ndarray, ...] | None:
    open_pairs = s.open_pairs()
    if not open_pairs:
        return None
    return tuple(grade_effects(s.data, open_pairs, q) for q in range(len(s.qids)))


def _stopping(s: Settlement, effects: tuple[np.ndarray, ...] | None) -> StoppingRule:
    settled = sum(p.settled for p in s.pairs)
    open_pairs = s.open_pairs()
    could = None if open_pairs and effects is None else 0
    if effects is not None:
        could = sum(int((moves > 0).any(axis=1).sum()) for moves in effects)
    unjudged = s.data.unjudged
    runs = len(s.runs)
    if not open_pairs:
        statement = (f"every pairwise order among these {runs} runs on {s.measure} is settled by the current "
                     f"judgments: {settled} of {len(s.pairs)} pairs settled, {scope(s)}{_tests_that_can_change(s)}")
    else:
        matter = "" if could is None else f", {could} of which can still move an open pair's bound"
        statement = (f"not yet: {settled} of {len(s.pairs)} pairs settled on {s.measure}; {unjudged} pooled "
                     f"documents unjudged{matter}")
    return StoppingRule(not open_pairs, settled, len(s.pairs), unjudged, could, statement)


def scope(s: Settlement) -> str:
    """What a settled order is proved under, in words: the grades it holds for and the documents it assumes.

    A proof covers the pooled documents only; a document no pool holds is taken as not relevant, so a
    relevant one outside the pool can still reorder two close runs.
    """
    pooled = {"top_k": f"every run's top {s.measure.cutoff}" if s.measure.cutoff else "the runs' rankings",
              "retrieved": "everything the runs retrieved", "given": "the given pool"}[s.pool]
    return (f"whatever grades ({min(s.grades)}..{max(s.grades)}) the {s.data.unjudged} unjudged documents of "
            f"{pooled} take, documents outside the pool taken as not relevant")


def _tests_that_can_change(s: Settlement) -> str:
    """The paired t-test verdicts that are not settled with the order, said beside it so neither reads as the other."""
    states = [p.test.state for p in s.pairs if p.test is not None]
    if not states:
        return ""
    change, estimated = states.count("can change"), states.count("estimate")
    parts = []
    if change:
        parts.append(f"{change} paired t-test verdict{'s' if change != 1 else ''} can still change")
    if estimated:
        parts.append(f"{estimated} only estimated")
    return "; " + (", ".join(parts) if parts else "no paired t-test verdict can change")
