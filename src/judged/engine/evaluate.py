"""Evaluate one run against judgments: the library's main verb.

>>> import judged
>>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
>>> qrels = {"q1": {"d1": 3, "d2": 0, "d3": 2}}
>>> result = judged.evaluate(run, qrels, ["nDCG@3", "P@2"])
>>> round(result.value("nDCG@3"), 6)
0.938557
>>> result.value("P@2")
0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from judged.errors import NoJudgedQueriesError, UsageError
from judged.io.inputs import Qrels, Run
from judged.io import read_qrels, read_run
from judged.measures import parse
from judged.measures.spec import Measure
from judged.engine.provenance import provenance_record
from judged.engine.result import MeasureCounts, Result
from judged.engine.ranking import build_view
from judged.engine.view import RankedView

MISSING_POLICIES = ("skip", "zero")


def evaluate(
    run,
    qrels,
    measures: Iterable[Measure | str],
    *,
    missing: str = "skip",
    depth: int | None = None,
    command: Sequence[str] | None = None,
    config: dict | None = None,
) -> Result:
    """Score ``run`` against ``qrels`` with every measure in ``measures``.

    ``run`` and ``qrels`` may be :class:`~judged.Run`/:class:`~judged.Qrels`,
    paths, DataFrames or ``{qid: {docid: value}}`` mappings; neither is
    modified. ``missing`` says what a judged query the run did not answer
    scores: ``skip`` (left out, as trec_eval without -c) or ``zero`` (as
    trec_eval -c and ir_measures). ``depth`` keeps at most that many documents
    per query after ranking (trec_eval -M). Run queries without judgments are
    ignored and counted. A run that shares no query with the judgments is an
    error, not 0.0. ``command`` and ``config`` (a team config's record, see
    :mod:`judged.engine.config`) are stored in the provenance.
    """
    if missing not in MISSING_POLICIES:
        raise UsageError(f"missing must be one of {'|'.join(MISSING_POLICIES)}. Got {missing!r} instead.")
    if depth is not None and (not isinstance(depth, int) or depth < 1):
        raise UsageError(f"depth must be an int >= 1. Got {depth!r} instead.")
    run, qrels = read_run(run), read_qrels(qrels)
    measures = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    if not measures:
        raise UsageError("no measures given; name at least one, e.g. nDCG@10.")

    views: dict[str, RankedView] = {}
    for m in measures:
        key = view_key(m)
        if key not in views:
            views[key] = build_view(run, qrels, key, depth)
    base = next(iter(views.values()))
    if not (~base.missing & ~base.run_only).any():
        raise NoJudgedQueriesError(
            f"run {run.name!r} shares no query with the judgments {qrels.name!r} "
            f"({run.num_queries} run queries, {qrels.num_queries} judged queries)",
            path=run.source.path if run.source else run.name,
            expected="query ids that also appear in the judgments",
        )

    reported = reported_queries(base)
    values, aggregate, counts = {}, {}, {}
    for m in measures:
        view = views[view_key(m)]
        raw = np.asarray(m.family.kernel(view, m), dtype=np.float64)[reported]
        values[m], counts[m] = _apply_policies(raw, view.missing[reported], m, missing)
        aggregate[m] = _aggregate(values[m], m)
    qids = tuple(base.qids[i] for i in reported)
    provenance = _provenance(run, qrels, measures, base, missing, depth, command, counts, config)
    return Result(run.name, tuple(measures), qids, values, aggregate, counts, provenance)


def reported_queries(view: RankedView) -> np.ndarray:
    """Indices of the view's judged queries in byte order of qid: the queries a Result reports, in its order."""
    judged_queries = np.flatnonzero(~view.run_only)
    return judged_queries[np.argsort(np.array(view.qids, dtype=object)[judged_queries], kind="stable")]


def view_key(measure: Measure) -> str:
    """The ranking a measure reads: ``average`` shares ``trec``'s order, every other tie rule has its own."""
    return "trec" if measure.ties == "average" else measure.ties


def _apply_policies(raw: np.ndarray, missing_mask: np.ndarray, measure: Measure, missing: str):
    """Apply the norel value and the missing-query policy; NaN marks a query left out.

    A missing query has an empty ranking, so under ``missing=zero`` every
    run-dependent measure is already 0 while NumRel keeps its real count, as
    with trec_eval -c.
    """
    norel = np.isnan(raw)
    values = raw.copy()
    if measure.norel != "skip":
        values[norel] = float(measure.norel)
    skipped_missing = int(missing_mask.sum()) if missing == "skip" else 0
    if missing == "skip":
        values[missing_mask] = np.nan
    counts = MeasureCounts(
        scored=int((~np.isnan(values)).sum()),
        skipped_missing=skipped_missing,
        skipped_norel=int((norel & ~(missing_mask & (missing == "skip"))).sum()) if measure.norel == "skip" else 0,
        zero_missing=int(missing_mask.sum()) if missing == "zero" else 0,
        norel=int(norel.sum()),
    )
    return values, counts


def _aggregate(values: np.ndarray, measure: Measure) -> float:
    """Mean (sum for counts) over scored queries, accumulated in query order like trec_eval."""
    scored = values[~np.isnan(values)]
    if not len(scored):
        return float("nan")
    total = float(np.cumsum(scored)[-1])
    return total if measure.family.aggregate == "sum" else total / len(scored)


def _provenance(run: Run, qrels: Qrels, measures, view: RankedView, missing, depth, command, counts, config) -> dict:
    unjudged_at, ties_across = {}, {}
    scored = ~view.run_only
    for cutoff in sorted({m.cutoff for m in measures if m.cutoff is not None}):
        top = view.top(cutoff)
        unjudged = top.counts - top.sum(top.take(view.judged))
        unjudged_at[str(cutoff)] = int(unjudged[scored].sum())
        ties_across[str(cutoff)] = int((view.ties_across(cutoff) & scored).sum())
    return provenance_record(
        measures=measures,
        missing=missing,
        depth=depth,
        command=command,
        config=config,
        run=_input_record(run),
        qrels={**_input_record(qrels), "collapsed_duplicates": qrels.collapsed_duplicates},
        queries={
            "judged": int(scored.sum()),
            "in_run": run.num_queries,
            "evaluated": int((scored & ~view.missing).sum()),
            "missing_from_run": int(view.missing.sum()),
            "missing_policy": missing,
            "run_only_ignored": int(view.run_only.sum()),
        },
        counts=counts,
        unjudged_at=unjudged_at,
        retrieved_at={str(k): int(view.top(int(k)).counts[scored].sum()) for k in unjudged_at},
        ties_across=ties_across,
    )


def _input_record(item: Run | Qrels) -> dict:
    source = item.source
    return {
        "name": item.name,
        "path": source.path if source else None,
        "format": source.format if source else "memory",
        "sha256": source.sha256 if source else None,
        "rows": len(item),
        "queries": item.num_queries,
    }
