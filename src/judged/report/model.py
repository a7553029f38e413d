"""Everything a report shows, computed before anything is drawn: results, comparison, curves, explanations.

:func:`build` evaluates the runs, compares them (with the matrix of every
pair), collects each run's worst queries and the queries that changed most
against the baseline, works out the explain view of every query it links to,
settles every pair of runs on each measure (:func:`judged.analysis.settle.settle`:
which conclusions no grade of the unjudged documents can change), and gathers
the provenance. Pure apart from reading the inputs: no drawing,
no HTML (see :mod:`judged.report.page`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from judged.analysis.explain import Explanation, explain
from judged.analysis.settle import Settlement, settle
from judged.engine.config import Config
from judged.engine.evaluate import evaluate
from judged.engine.provenance import output_record
from judged.engine.result import Result
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels, Run
from judged.measures.spec import Measure
from judged.stats.compare import Comparison, MeasureComparison, compare
from judged.stats.distributions import changes, cutoff_curve

#: Deepest cutoff of each curve: nDCG@1..100, R@1..1000, Judged@1..100 (less when the runs are shallower).
CURVE_DEPTHS = {"nDCG": 100, "R": 1000, "Judged": 100}


@dataclass(frozen=True)
class QueryLink:
    """One query in a worst or most-changed list, with the anchors of its explain views."""

    qid: str
    value: float
    anchor: str
    baseline_anchor: str | None = None


@dataclass(frozen=True)
class RunQueries:
    """For one run and measure: its worst queries, and the queries that lost and gained most against the baseline."""

    run: str
    worst: tuple[QueryLink, ...]
    lost: tuple[QueryLink, ...] = ()
    gained: tuple[QueryLink, ...] = ()


@dataclass(frozen=True)
class MeasureSection:
    """One measure's comparison and the queries the report singles out for it."""

    comparison: MeasureComparison
    queries: tuple[RunQueries, ...]


@dataclass(frozen=True)
class Curve:
    """Mean of ``measure`` (given without a cutoff) at each cutoff, per run."""

    measure: str
    points: dict[str, dict[int, float]]


@dataclass(frozen=True)
class ExplainSection:
    """The explain view of one query of one run, under the anchor the lists link to.

    ``explanation`` is None when the run returned nothing for the query (scored 0 under ``missing=zero``).
    """

    anchor: str
    run: str
    qid: str
    explanation: Explanation | None


@dataclass(frozen=True)
class SettleSection:
    """What the judgments settle on one measure, or, in ``refused``, the one line saying why settle does not apply."""

    measure: str
    settlement: Settlement | None
    refused: str | None = None


@dataclass(frozen=True)
class ReportData:
    """The content of a report, ready to render."""

    title: str
    created: str
    results: tuple[Result, ...]
    comparison: Comparison
    sections: tuple[MeasureSection, ...]
    curves: tuple[Curve, ...]
    judged: Curve
    explain_measure: str
    explained: tuple[ExplainSection, ...]
    settled: tuple[SettleSection, ...]
    provenance: dict


def build(
    runs: Sequence,
    qrels,
    measures: Sequence[Measure | str] | None = None,
    *,
    baseline: str | None = None,
    config: Config | None = None,
    missing: str | None = None,
    permutations: int = 10_000,
    resamples: int = 10_000,
    seed: int = 0,
    correction: str = "holm",
    worst: int = 10,
    title: str | None = None,
    command: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    settle_pool: str | Iterable[tuple[str, str]] | None = "top_k",
) -> ReportData:
    """Evaluate and compare ``runs`` on ``qrels`` and collect what the report shows (see the module docstring).

    ``progress``, when given, is called with a line on each step. ``settle_pool``
    is the pool :func:`~judged.analysis.settle.settle` lets take grades
    (``top_k``: every unjudged document in some run's top k; ``retrieved``; or
    (qid, docid) pairs); ``None`` leaves the section out (it costs one exact
    solve per unjudged document, grade and open pair).
    """
    step = progress or _quiet
    team = config or Config()
    qrels = read_qrels(qrels)
    step("reading runs")
    runs = _distinct([read_run(run) for run in runs])
    parsed = [team.measure(m) for m in measures] if measures else (team.default_measures() or [team.measure("nDCG@10")])
    policy = team.with_missing(missing)
    step(f"evaluating {len(runs)} runs")
    results = tuple(evaluate(run, qrels, parsed, missing=policy, command=command, config=team.record())
                    for run in runs)
    comparison = compare(results, baseline=baseline, permutations=permutations, resamples=resamples, seed=seed,
                         correction=correction, matrix=True, worst=worst, progress=step)
    step("curves and explained queries")
    anchors: dict[tuple[str, str], str] = {}
    sections = tuple(_section(m, results, anchors, worst) for m in comparison.measures)
    depth = max(_depth(run) for run in runs)
    curves = tuple(_curve(runs, qrels, _base(parsed, team, name), depth, policy) for name in ("nDCG", "R"))
    explain_measure = next((m for m in parsed if m.name in ("nDCG", "DCG")), None) or team.measure("nDCG@10")
    explained = _explained(anchors, runs, qrels, explain_measure)
    settlements: tuple[SettleSection, ...] = ()
    if settle_pool is not None:
        step("settling every pair on the judgments")
        pool = settle_pool if isinstance(settle_pool, str) else list(settle_pool)
        settlements = tuple(_settle(runs, qrels, m, pool, policy, comparison.alpha, seed) for m in parsed)
    created = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    return ReportData(
        title=title or f"judged report: {', '.join(r.run for r in results)}",
        created=created,
        results=results,
        comparison=comparison,
        sections=sections,
        curves=curves,
        judged=_curve(runs, qrels, team.measure("Judged"), depth, policy),
        explain_measure=str(explain_measure),
        explained=explained,
        settled=settlements,
        provenance=_provenance(results, qrels, team, comparison, created, command, explain_measure, correction,
                               settlements),
    )


def _distinct(runs: list[Run]) -> list[Run]:
    """Runs that share a name are told apart by their file names (or their position)."""
    names = [r.name for r in runs]
    return [replace(r, name=f"{r.name} ({r.source.path if r.source else f'#{i + 1}'})") if names.count(r.name) > 1
            else r for i, r in enumerate(runs)]


def _section(m: MeasureComparison, results: Sequence[Result], anchors: dict, worst: int) -> MeasureSection:
    by_run = {r.run: r for r in results}
    base = by_run[m.baseline]

    def link(run: str, qid: str, value: float, with_baseline: bool = False) -> QueryLink:
        anchor = anchors.setdefault((run, qid), f"explain-{len(anchors) + 1}")
        base_anchor = anchors.setdefault((m.baseline, qid), f"explain-{len(anchors) + 1}") if with_baseline else None
        return QueryLink(qid, value, anchor, base_anchor)

    queries = []
    for row in m.runs:
        worst_links = tuple(link(row.run, q, v) for q, v in row.summary.worst)
        if row.run == m.baseline:
            queries.append(RunQueries(row.run, worst_links))
            continue
        moved = changes(by_run[row.run], base, m.measure, n=worst)
        queries.append(RunQueries(row.run, worst_links, tuple(link(row.run, q, d, True) for q, d in moved.lost),
                                  tuple(link(row.run, q, d, True) for q, d in moved.gained)))
    return MeasureSection(m, tuple(queries))


def _explained(anchors: dict[tuple[str, str], str], runs: Sequence[Run], qrels: Qrels,
               measure: Measure) -> tuple[ExplainSection, ...]:
    """The explain view of every linked (run, query), run by run in the runs' order, then by query id."""
    by_name = {run.name: run for run in runs}
    order = {run.name: i for i, run in enumerate(runs)}
    answered = {run.name: set(run.frame["qid"].unique().to_list()) for run in runs}
    return tuple(ExplainSection(anchor, run, qid,
                                explain(by_name[run], qrels, qid, measure) if qid in answered[run] else None)
                 for (run, qid), anchor in sorted(anchors.items(), key=lambda item: (order[item[0][0]], item[0][1])))


def _settle(runs: Sequence[Run], qrels: Qrels, measure: Measure, pool: str | list[tuple[str, str]], missing: str,
            alpha: float, seed: int) -> SettleSection:
    """Every pair of ``runs`` settled on ``measure`` over ``pool``, or the reason settle refuses it."""
    try:
        return SettleSection(str(measure), settle(runs, qrels, measure, pool=pool, missing=missing, alpha=alpha,
                                                  seed=seed))
    except UsageError as err:
        return SettleSection(str(measure), None, str(err))


def _depth(run: Run) -> int:
    """The longest ranking of ``run`` (1 for an empty run)."""
    lengths = run.frame.group_by("qid").agg(pl.len())
    return max(1, int(lengths["len"].to_numpy().max(initial=1)))


def _base(measures: Sequence[Measure], team: Config, name: str) -> Measure:
    """The requested measure of family ``name`` without its cutoff, else the family under the team's conventions."""
    return next((replace(m, cutoff=None) for m in measures if m.name == name), None) or team.measure(name)


def curve_cutoffs(name: str, depth: int) -> list[int]:
    """Every cutoff up to 100, then every tenth, up to the curve's limit (:data:`CURVE_DEPTHS`) and the runs' depth.

    >>> curve_cutoffs("R", 130)[-5:], len(curve_cutoffs("R", 5000)), len(curve_cutoffs("nDCG", 5000))
    ([99, 100, 110, 120, 130], 190, 100)
    """
    top = min(CURVE_DEPTHS[name], depth)
    return list(range(1, min(top, 100) + 1)) + list(range(110, top + 1, 10))


def _curve(runs: Sequence[Run], qrels: Qrels, base: Measure, depth: int, missing: str) -> Curve:
    ks = curve_cutoffs(base.name, depth)
    points = {run.name: cutoff_curve(run, qrels, str(base), ks, missing=missing) for run in runs}
    return Curve(str(base), points)


def _quiet(text: str) -> None:
    """No progress to show."""


def _provenance(results, qrels: Qrels, team: Config, comparison: Comparison, created: str, command,
                explain_measure: Measure, correction: str, settlements: Sequence[SettleSection]) -> dict:
    """The record every JSON output carries (each run's own evaluation record under ``runs``), and the report's
    settings under ``report``."""
    record = output_record(results=results, inputs=[qrels], command=command, config=team.record())
    record["created"] = created
    record["report"] = {
        "statistics": {
            "permutations": comparison.permutations,
            "resamples": comparison.resamples,
            "seed": comparison.seed,
            "alpha": comparison.alpha,
            "correction": correction,
            "matrix": "randomised Tukey HSD" if correction == "tukey" else "paired randomization tests, "
                      f"{correction} over all pairs",
        },
        "explain_measure": str(explain_measure),
        "curve_cutoffs": {name: f"1..{limit}, every tenth above 100, up to the runs' depth"
                          for name, limit in CURVE_DEPTHS.items()},
        "settled": {section.measure: _settle_record(section, comparison.seed) for section in settlements},
    }
    return record


def _settle_record(section: SettleSection, seed: int) -> dict | str:
    """How one measure was settled (its conventions, pool, grade domain, test), or why it was refused."""
    s = section.settlement
    if s is None:
        return section.refused or ""
    return {"measure": str(s.measure), "pool": s.pool, "grades": list(s.grades), "alpha": s.alpha,
            "queries": len(s.qids), "test": "paired t-test, two-sided, uncorrected", "seed": seed}
