"""Text and JSON for ``judged agreement``: overlap, kappas, alpha, confusion matrix, breakdowns and the gate."""

from __future__ import annotations

import io
import json
import math
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from judged.agreement import Agreement, AssessorPair, Gate
from judged.render.width import text_console


def _num(value: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def render_agreement(result: Agreement, verdict: Gate, domain_note: str) -> str:
    """The report a person reads before deciding whether to judge the rest with this rubric."""
    buffer = io.StringIO()
    console = text_console(buffer, None, fallback=120)
    console.print(f"judged agreement: {', '.join(result.assessors)} over grades "
                  f"{', '.join(map(str, result.grades))} ({domain_note})")
    console.print(f"pairs: {result.units} graded by anyone, {result.overlap} by two or more assessors")
    for pair in result.pairs:
        _pair(console, pair)
    alpha = Table(title="Krippendorff's alpha, all assessors", title_justify="left")
    for column in ("metric", "alpha", "pairs", "labels", "note"):
        alpha.add_column(column, justify="left" if column in ("metric", "note") else "right")
    for a in result.alpha.values():
        alpha.add_row(a.metric, _num(a.value), str(a.units), str(a.values), a.reason or "")
    console.print(alpha)
    console.print(f"gate (at least {verdict.min_pairs} pairs graded by both, {verdict.weights} kappa at least "
                  f"{verdict.min_kappa:g}): {'PASS' if verdict.passed else 'FAIL'}")
    console.print(verdict.verdict)
    return buffer.getvalue()


def _pair(console: Console, pair: AssessorPair) -> None:
    console.print(f"\n{pair.first} vs {pair.second}: {pair.pairs} pairs graded by both, {pair.agreed} identical "
                  f"(raw agreement {_num(pair.raw)})")
    kappas = Table(title="Cohen's kappa", title_justify="left")
    for column in ("weights", "kappa", "CI", "note"):
        kappas.add_column(column, justify="right" if column in ("kappa", "CI") else "left")
    for k in pair.kappas:
        interval = f"{_num(k.low)} to {_num(k.high)}" if not math.isnan(k.low) else "n/a"
        note = k.reason or (f"{k.undefined_resamples} of {k.resamples} resamples undefined"
                            if k.undefined_resamples else "")
        kappas.add_row(k.weights, _num(k.value), f"{interval} ({k.confidence:.0%}, {k.resamples} resamples)", note)
    console.print(kappas)
    console.print(f"confusion matrix: rows {pair.first}'s grade, columns {pair.second}'s")
    confusion = Table()
    confusion.add_column(f"{pair.first} \\ {pair.second}")
    for g in pair.grades:
        confusion.add_column(str(g), justify="right")
    for g, row in zip(pair.grades, pair.confusion.tolist()):
        confusion.add_row(str(g), *map(str, row))
    console.print(confusion)
    grades = Table(title="per grade", title_justify="left")
    for column in ("grade", pair.first, pair.second, "both", "specific agreement"):
        grades.add_column(column, justify="right")
    for level in pair.per_grade:
        grades.add_row(str(level.grade), str(level.first), str(level.second), str(level.agreed), _num(level.specific))
    console.print(grades)
    queries = Table(title="per query", title_justify="left")
    for column in ("qid", "pairs", "identical", "raw", "mean distance", "linear kappa"):
        queries.add_column(column, justify="left" if column == "qid" else "right")
    for q in pair.per_query:
        queries.add_row(q.qid, str(q.pairs), str(q.agreed), _num(q.raw), _num(q.mean_distance), _num(q.kappa_linear))
    console.print(queries)


def render_agreement_json(result: Agreement, verdict: Gate, domain_note: str) -> str:
    """``{"grades", "domain", "assessors", "units", "overlap", "alpha", "pairs", "gate"}``; NaN is null."""
    pairs = []
    for pair in result.pairs:
        record = asdict(pair)
        record["confusion"] = pair.confusion.tolist()
        pairs.append(record)
    document = {
        "grades": list(result.grades),
        "domain": domain_note,
        "assessors": list(result.assessors),
        "units": result.units,
        "overlap": result.overlap,
        "seed": result.seed,
        "alpha": {metric: asdict(a) for metric, a in result.alpha.items()},
        "pairs": pairs,
        "gate": {**asdict(verdict), "checks": [{**asdict(c), "passed": c.passed} for c in verdict.checks]},
    }
    return json.dumps(_nulls(document), indent=2) + "\n"


def _nulls(value):
    """NaN floats become None (JSON null), recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nulls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulls(v) for v in value]
    return value
