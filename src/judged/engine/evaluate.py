"""Evaluate a run against judgments, the library's main verb, and many runs against the same judgments.

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

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from judged.engine.kernels import kernel_values, view_key
from judged.engine.matching import (
    Matching,
    number_forms,
    numeric_sample,
    per_query_matching,
    warn_if_unmatched,
    warn_number_forms,
    warn_unshared,
)
from judged.engine.provenance import input_record, provenance_record
from judged.engine.ranking import build_view
from judged.engine.result import MeasureCounts, Result
from judged.engine.view import RankedView
from judged.errors import NoJudgedQueriesError, UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels, Run
from judged.measures import parse
from judged.measures.registry import GEOMETRIC_FLOOR
from judged.measures.spec import Measure
from judged.params import convention_choice, count


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
    convention_choice("missing", missing)
    if depth is not None:
        count("depth", depth)
    run, qrels = read_run(run), read_qrels(qrels)
    parsed: list[Measure] = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    if not parsed:
        raise UsageError("no measures given; name at least one, e.g. nDCG@10.")

    return result_from_values(
        query_values(run, qrels, parsed, depth),
        parsed,
        run=input_record(run),
        qrels={**input_record(qrels), "collapsed_duplicates": qrels.collapsed_duplicates},
        run_queries=run.num_queries,
        missing=missing,
        depth=depth,
        command=command,
        config=config,
    )


def evaluate_runs(
    runs: Sequence,
    qrels,
    measures: Iterable[Measure | str],
    *,
    missing: str = "skip",
    depth: int | None = None,
    command: Sequence[str] | None = None,
    config: dict | None = None,
    run_format: str | None = None,
    progress: Callable[[int, object], None] | None = None,
) -> list[Result]:
    """:func:`evaluate` of each of ``runs`` against the same ``qrels``: one :class:`Result` a run, in order.

    What the runs share is done once: the judgments are read (and hashed) once and prepared once for the
    ranking, the measures parsed once; the next run is read while the current one is evaluated. Each result
    is the one :func:`evaluate` gives that run, bit for bit. ``run_format`` is the run files' format where
    their names do not say it (:func:`judged.read_run`'s ``format``); ``progress(i, run)`` is called before
    the i-th run (1-based) is evaluated. ``judged eval RUN...`` is this call.

    >>> import judged
    >>> runs = [{"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 2.0, "d1": 1.0}}]
    >>> [r.value("RR") for r in judged.evaluate_runs(runs, {"q1": {"d1": 1}}, ["RR"])]
    [1.0, 0.5]
    """
    convention_choice("missing", missing)
    if depth is not None:
        count("depth", depth)
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise UsageError(f"runs must be a list of runs (paths, frames, mappings or Runs). Got {type(runs).__name__}.")
    if not runs:
        raise UsageError("no runs given; name at least one.")
    judgments = read_qrels(qrels)
    parsed: list[Measure] = list(dict.fromkeys(parse(m) if isinstance(m, str) else m for m in measures))
    results = []
    with ThreadPoolExecutor(max_workers=1) as reader:
        upcoming = reader.submit(read_run, runs[0], format=run_format)
        for i, source in enumerate(runs, start=1):
            run = upcoming.result()
            if i < len(runs):
                upcoming = reader.submit(read_run, runs[i], format=run_format)
            if progress is not None:
                progress(i, source)
            results.append(evaluate(run, judgments, parsed, missing=missing, depth=depth, command=command,
                                    config=config))
    return results


def reported_queries(view: RankedView) -> np.ndarray:
    """Indices of the view's judged queries in byte order of qid: the queries a Result reports, in its order."""
    judged_queries = np.flatnonzero(~view.run_only)
    return judged_queries[np.argsort(np.array(view.qids, dtype=object)[judged_queries], kind="stable")]


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
    """Mean (sum for counts, geometric mean for gm_*) over scored queries, accumulated in query order like trec_eval."""
    scored = values[~np.isnan(values)]
    if not len(scored):
        return float("nan")
    kind = measure.family.aggregate
    if kind == "gmean":
        return float(np.exp(np.cumsum(np.log(np.maximum(scored, GEOMETRIC_FLOOR)))[-1] / len(scored)))
    total = float(np.cumsum(scored)[-1])
    return total if kind == "sum" else total / len(scored)


def no_shared_queries(run: str, qrels: str, path: str, run_queries: int, judged_queries: int) -> NoJudgedQueriesError:
    """The error for a run that shares no query with the judgments: there is nothing to score, which is not 0.0."""
    return NoJudgedQueriesError(
        f"run {run!r} shares no query with the judgments {qrels!r} "
        f"({run_queries} run queries, {judged_queries} judged queries)",
        path=path,
        expected="query ids that also appear in the judgments",
    )


@dataclass(frozen=True, eq=False)
class QueryValues:
    """Raw per-query values of some whole queries, and what the provenance needs of them.

    :func:`evaluate` is :func:`query_values` over all queries, then
    :func:`result_from_values` (the policies, counts, aggregation and
    provenance). A distributed engine does the same with buckets of whole
    queries, joined by :func:`merge_query_values` in between. ``qids`` are the judged
    queries; ``raw`` holds each measure's kernel value per qid (NaN where a
    query has no relevant judgment), ``missing`` marks queries the run did not
    answer, ``coverage`` maps each (tie order, cutoff) of
    :func:`coverage_keys` to per-query (unjudged, retrieved, tied across the
    cutoff) counts in that ranking's top k, ``matching`` holds per query
    :func:`~judged.engine.matching.per_query_matching`'s (retrieved,
    retrieved and judged, judged) counts,
    ``run_only`` counts run queries without judgments, and ``numeric_run_only``
    lists those that read as numbers (at most
    :data:`~judged.engine.matching.NUMBER_FORM_SAMPLE`), for
    :func:`~judged.engine.matching.number_forms`.
    """

    qids: tuple[str, ...]
    raw: dict[Measure, np.ndarray]
    missing: np.ndarray
    coverage: dict[tuple[str, int], np.ndarray]
    run_only: int
    matching: np.ndarray
    numeric_run_only: tuple[str, ...] = ()


def query_values(run: Run, qrels: Qrels, measures: Sequence[Measure], depth: int | None = None,
                 views: dict[str, RankedView] | None = None) -> QueryValues:
    """Every measure's raw value for each judged query of ``run`` and ``qrels``, with one ranking per tie rule.

    The queries must be whole (every row of each query present); the values
    are then those :func:`evaluate` computes for the same queries. ``views``,
    when given, holds the rankings already built (by tie rule) and receives
    those built here, for a caller that reads them again.

    >>> from judged.measures import parse
    >>> run = Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q9": {"a": 1.0}})
    >>> values = query_values(run, Qrels.from_dict({"q1": {"b": 1}, "q2": {"a": 1}}), [parse("P@1")])
    >>> values.qids, values.raw[parse("P@1")].tolist(), values.missing.tolist(), values.run_only
    (('q1', 'q2'), [0.0, 0.0], [False, True], 1)
    """
    views = {} if views is None else views
    for m in measures:
        key = view_key(m)
        if key not in views:
            views[key] = build_view(run, qrels, key, depth)
    base = views[view_key(measures[0])]
    reported = reported_queries(base)
    raw = kernel_values(views, measures, reported)
    coverage = {}
    for key, cutoff in coverage_keys(measures):
        view = views[key]
        top = view.top(cutoff)
        unjudged = top.counts - view.judged_within(cutoff)
        counted = np.stack([unjudged, top.counts, view.ties_across(cutoff)]).astype(np.int64)
        coverage[key, cutoff] = counted[:, reported].T
    run_only = map(base.qids.__getitem__, np.flatnonzero(base.run_only).tolist())
    return QueryValues(tuple(base.qids[i] for i in reported), raw, base.missing[reported], coverage,
                       int(base.run_only.sum()), per_query_matching(base)[reported], numeric_sample(run_only))


def coverage_keys(measures: Sequence[Measure]) -> list[tuple[str, int]]:
    """The (ranking, cutoff) pairs whose top k :class:`QueryValues` counts: each measure's own ranking (a tie rule
    can put judged documents first), at each cutoff a measure has.

    >>> from judged.measures import parse
    >>> coverage_keys([parse("nDCG(ties=best)@2"), parse("nDCG@2"), parse("P(ties=average)@2"), parse("AP")])
    [('best', 2), ('trec', 2)]
    """
    return sorted({(view_key(m), m.cutoff) for m in measures if m.cutoff is not None})


def merge_query_values(parts: Sequence[QueryValues], measures: Sequence[Measure]) -> QueryValues:
    """The values of disjoint sets of queries as one, in the order a :class:`Result` reports them (qid byte order)."""
    qids = [q for part in parts for q in part.qids]
    order = np.argsort(np.array(qids, dtype=object), kind="stable") if qids else np.empty(0, dtype=np.int64)
    return QueryValues(
        tuple(qids[i] for i in order),
        {m: np.concatenate([p.raw[m] for p in parts] or [np.empty(0)])[order] for m in measures},
        np.concatenate([p.missing for p in parts] or [np.empty(0, dtype=bool)])[order],
        {k: np.concatenate([p.coverage[k] for p in parts] or [np.empty((0, 3), dtype=np.int64)])[order]
         for k in coverage_keys(measures)},
        sum(p.run_only for p in parts),
        np.concatenate([p.matching for p in parts] or [np.empty((0, 3), dtype=np.int64)])[order],
        tuple(q for part in parts for q in part.numeric_run_only),
    )


def result_from_values(
    values: QueryValues,
    measures: Sequence[Measure],
    *,
    run: dict,
    qrels: dict,
    run_queries: int,
    missing: str = "skip",
    depth: int | None = None,
    command: Sequence[str] | None = None,
    config: dict | None = None,
    engine: dict | None = None,
    allow_unshared: bool = False,
) -> Result:
    """The :class:`Result` of :func:`evaluate` from merged per-query values and the inputs' records.

    ``run`` and ``qrels`` are the provenance's input records (``name``,
    ``path``, ``format``, ``sha256``, ``rows``, ``queries``, and for the
    judgments ``collapsed_duplicates``); ``run_queries`` counts the run's
    distinct queries. Raises :class:`NoJudgedQueriesError` when no judged
    query was answered by the run (with ``allow_unshared``, as trec_eval -c
    does, every query scores its missing value and a warning says why);
    warns when the run's documents are not the judgments'
    (:mod:`judged.engine.matching`).

    >>> from judged.measures import parse
    >>> values = query_values(Run.from_dict({"q1": {"a": 1.0}}), Qrels.from_dict({"q1": {"a": 1}}), [parse("P@1")])
    >>> record = {"name": "r", "path": None, "format": "memory", "sha256": None, "rows": 1, "queries": 1}
    >>> result_from_values(values, [parse("P@1")], run=record, qrels=record, run_queries=1).value("P@1")
    1.0
    """
    convention_choice("missing", missing)
    if not (~values.missing).any():
        error = no_shared_queries(run["name"], qrels["name"], run["path"] or run["name"], run_queries,
                                  qrels["queries"])
        if not allow_unshared:
            raise error
        warn_unshared(error.problem)
    per_query, aggregate, counts = {}, {}, {}
    for m in measures:
        per_query[m], counts[m] = _apply_policies(values.raw[m], values.missing, m, missing)
        aggregate[m] = _aggregate(per_query[m], m)
    sums = {key: values.coverage[key].sum(axis=0) for key in coverage_keys(measures)}
    at: dict[str, np.ndarray] = {}  # per cutoff, the ranking with the most unjudged documents in its top k
    for (_, k), s in sums.items():
        if str(k) not in at or s[0] > at[str(k)][0]:
            at[str(k)] = s
    matching = Matching.of(values.matching)
    warn_if_unmatched(matching, run, qrels)
    warn_number_forms(number_forms(values.numeric_run_only, (q for q, m in zip(values.qids, values.missing) if m)),
                      run, qrels)
    provenance = provenance_record(
        measures=measures,
        missing=missing,
        depth=depth,
        command=command,
        config=config,
        engine=engine,
        run=run,
        qrels=qrels,
        queries={
            "judged": len(values.qids),
            "in_run": run_queries,
            "evaluated": int((~values.missing).sum()),
            "missing_from_run": int(values.missing.sum()),
            "missing_policy": missing,
            "run_only_ignored": values.run_only,
        },
        counts=counts,
        documents=matching.record(),
        unjudged_at={k: int(s[0]) for k, s in at.items()},
        retrieved_at={k: int(s[1]) for k, s in at.items()},
        ties_across={k: int(s[2]) for k, s in at.items()},
        top_k={m: (int(sums[view_key(m), m.cutoff][0]), int(sums[view_key(m), m.cutoff][1]))
               for m in measures if m.cutoff is not None},
    )
    return Result(run["name"], tuple(measures), values.qids, per_query, aggregate, counts, provenance)
