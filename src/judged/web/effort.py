"""What a lead sees of a judging effort: progress per assessor and per query, pace, and agreement with its gate.

An effort is a pool and its assignments (the store keys assignments by pool),
so nothing here is stored: every figure is derived from the assignments and
the judgment log when the page is drawn.

*Time per judgment* is the gap between an assessor's consecutive labels
(grades and cannot-judge, from the log's timestamps). Gaps longer than
``max_gap`` are breaks, not judging, and are left out; the first label of a
sitting has no gap. The median is the figure to read: a few slow documents
pull the mean up.

>>> import datetime as dt
>>> start = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
>>> pace([start + dt.timedelta(seconds=s) for s in (0, 20, 50, 3600, 3610)])
Pace(timed=3, median_seconds=20.0, mean_seconds=20.0)
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from judged.agreement import Agreement, Gate, agreement, gate
from judged.agreement.calibration import RESAMPLES, Calibration, calibrate
from judged.judgments.model import Judgment, Query
from judged.judgments.worklist import PoolAssignment
from judged.render.agreement import render_agreement_json

#: A gap between two labels longer than this is a break, not time spent judging.
MAX_GAP = dt.timedelta(minutes=10)


@dataclass(frozen=True)
class Pace:
    """Time between consecutive labels: how many gaps were timed, their median and mean in seconds."""

    timed: int
    median_seconds: float | None
    mean_seconds: float | None


@dataclass(frozen=True)
class AssessorProgress:
    """One assessor's share of the effort: pairs assigned and labelled (of them cannot-judge), overlap, pace."""

    assessor: str
    assigned: int
    done: int
    cannot_judge: int
    overlap_assigned: int
    overlap_done: int
    pace: Pace


@dataclass(frozen=True)
class QueryProgress:
    """One query of the effort: its pairs, who judges it, and how many pairs each of them has labelled."""

    qid: str
    text: str
    pairs: int
    overlap: bool
    done: dict[str, int]

    @property
    def complete(self) -> bool:
        """Every assessor of the query has labelled every pair."""
        return all(n == self.pairs for n in self.done.values())


@dataclass(frozen=True)
class EffortAgreement:
    """Agreement on the effort's overlap set and the gate's verdict; ``result`` is ``None`` while it cannot be had."""

    result: Agreement | None
    verdict: Gate | None
    note: str

    def as_json(self) -> dict | None:
        """The figures as ``judged agreement --format json`` writes them (NaN as null)."""
        if self.result is None or self.verdict is None:
            return None
        return json.loads(render_agreement_json(self.result, self.verdict, self.note))


@dataclass(frozen=True)
class Effort:
    """A pool's judging effort at one moment."""

    pool: str
    pairs: int
    assessors: tuple[AssessorProgress, ...]
    queries: tuple[QueryProgress, ...]

    @property
    def assigned(self) -> int:
        """Assignments in all (an overlap pair counts once per assessor)."""
        return sum(a.assigned for a in self.assessors)

    @property
    def done(self) -> int:
        """Assignments labelled."""
        return sum(a.done for a in self.assessors)


def pace(times: Sequence[dt.datetime], max_gap: dt.timedelta = MAX_GAP) -> Pace:
    """The time between consecutive labels (in log order), breaks longer than ``max_gap`` left out."""
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(times) if b - a <= max_gap]
    if not gaps:
        return Pace(0, None, None)
    return Pace(len(gaps), float(statistics.median(gaps)), float(statistics.fmean(gaps)))


def summarise(pool: str, assignments: Sequence[PoolAssignment], labels: Sequence[Judgment],
              queries: dict[str, Query], times: dict[str, list[dt.datetime]]) -> Effort:
    """Progress of ``pool`` from its assignments and the current labels (``labels``: current events)."""
    current = {(e.assessor, e.qid, e.docid): e.kind for e in labels}
    assigned: Counter = Counter()
    done: Counter = Counter()
    cannot: Counter = Counter()
    overlap_assigned: Counter = Counter()
    overlap_done: Counter = Counter()
    query_pairs: dict[str, set[str]] = defaultdict(set)
    query_done: dict[str, Counter] = defaultdict(Counter)
    query_overlap: dict[str, bool] = {}
    for a in assignments:
        kind = current.get((a.assessor, a.qid, a.docid))
        assigned[a.assessor] += 1
        overlap_assigned[a.assessor] += a.overlap
        query_pairs[a.qid].add(a.docid)
        query_done[a.qid][a.assessor] += kind is not None
        query_overlap[a.qid] = a.overlap
        if kind is not None:
            done[a.assessor] += 1
            overlap_done[a.assessor] += a.overlap
            cannot[a.assessor] += kind == "cannot_judge"
    people = tuple(
        AssessorProgress(name, assigned[name], done[name], cannot[name], overlap_assigned[name], overlap_done[name],
                         pace(times.get(name, [])))
        for name in sorted(assigned)
    )
    rows = tuple(
        QueryProgress(qid, queries[qid].text if qid in queries else "", len(query_pairs[qid]), query_overlap[qid],
                      dict(sorted(query_done[qid].items())))
        for qid in sorted(query_pairs)
    )
    return Effort(pool, sum(len(d) for d in query_pairs.values()), people, rows)


def effort_agreement(labels: pl.DataFrame, assignments: Sequence[PoolAssignment], grades: Sequence[int] | None,
                     *, min_pairs: int, min_kappa: float, resamples: int) -> EffortAgreement:
    """Agreement of the effort's assessors on the pairs more than one of them graded, and the gate.

    ``labels`` is the store's current grades (``qid, docid, assessor, grade``);
    only the grades of assigned pairs by their assignees count. ``grades`` is
    the rubric's domain (``None`` when the store has no rubric: nothing is computed).
    """
    if grades is None:
        return EffortAgreement(None, None, "the store has no rubric, so there is no grade domain to measure on")
    keys = pl.DataFrame(
        {"qid": [a.qid for a in assignments], "docid": [a.docid for a in assignments],
         "assessor": [a.assessor for a in assignments]},
        schema={"qid": pl.String, "docid": pl.String, "assessor": pl.String},
    )
    graded = labels.join(keys, on=["qid", "docid", "assessor"], how="inner")
    if graded["assessor"].n_unique() < 2:
        return EffortAgreement(None, None, "agreement needs grades from two assessors; none yet on this effort")
    result = agreement(graded, grades=list(grades), resamples=resamples, seed=0)
    note = f"grade domain {', '.join(map(str, grades))} (the rubric's levels)"
    return EffortAgreement(result, gate(result, min_pairs=min_pairs, min_kappa=min_kappa), note)


def calibrations(labels: pl.DataFrame, machines: Sequence[str], grades: Sequence[int] | None, *,
                 resamples: int = RESAMPLES) -> list[Calibration]:
    """Each automatic assessor against the person who graded most of the same pairs (the dashboard's panel).

    ``labels`` are the store's current grades; nothing is computed without a rubric (``grades``).
    """
    if grades is None:
        return []
    people = labels.filter(~pl.col("assessor").is_in(list(machines)))
    found = []
    for machine in machines:
        mine = labels.filter(pl.col("assessor") == machine).select("qid", "docid")
        shared = (people.join(mine, on=["qid", "docid"], how="semi")["assessor"].value_counts()
                  .sort(["count", "assessor"], descending=[True, False]))  # most shared pairs, then by name
        if shared.is_empty():
            continue
        found.append(calibrate(labels, machine, shared["assessor"][0], grades=list(grades), resamples=resamples))
    return found
