"""Text and JSON for :func:`judged.analysis.bounds.unjudged_bounds`: what the judgments can and cannot say per query."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence

import numpy as np
from rich.table import Table

from judged.analysis.bounds import BoundsResult
from judged.render.width import text_console


def render_bounds(results: Sequence[BoundsResult], per_query: bool = False) -> str:
    """Means per run (and optionally every query): unjudged as 0, condensed, exact min and max, method."""
    buffer = io.StringIO()
    console = text_console(buffer, None, fallback=120)
    first = results[0]
    summary = Table(title=f"unjudged bounds of {first.measure} (scope={first.scope}, grades "
                          f"{min(first.grades)}..{max(first.grades)})", title_justify="left")
    for name in ("run", "unjudged as 0", "condensed", "min", "max", "width", "queries bounded exactly"):
        summary.add_column(name, justify="left" if name == "run" else "right")
    for r in results:
        exact = sum(m == "exact" for m in r.method)
        scored = sum(m != "skipped" for m in r.method)
        summary.add_row(r.run, *(_fmt(v) for v in (r.mean_zero, r.mean_condensed, r.mean_minimum, r.mean_maximum,
                                                   r.mean_maximum - r.mean_minimum)), f"{exact}/{scored}")
    console.print(summary)
    if per_query:
        for r in results:
            table = Table(title=f"{r.run} per query", title_justify="left")
            for name in ("qid", "unjudged in top k", "unjudged as 0", "condensed", "min", "max", "method"):
                table.add_column(name, justify="left" if name in ("qid", "method") else "right")
            for i, qid in enumerate(r.qids):
                table.add_row(qid, str(int(r.unjudged_top_k[i])), _fmt(r.zero[i]), _fmt(r.condensed[i]),
                              _fmt(r.minimum[i]), _fmt(r.maximum[i]), r.method[i])
            console.print(table)
    ideal = " (each grade also enters the ideal list)" if first.measure.name == "nDCG" else ""
    console.print(f"min and max: the lowest and highest {first.measure.name} over every grade the unjudged documents "
                  f"could have{ideal}; 'exact' is the true optimum, 'bound' a proven range.")
    return buffer.getvalue()


def render_bounds_json(results: Sequence[BoundsResult]) -> str:
    records = []
    for r in results:
        records.append({
            "run": r.run, "measure": str(r.measure), "scope": r.scope, "grades": list(r.grades),
            "means": {k: _number(v) for k, v in r.means.items()},
            "per_query": {
                qid: {"unjudged_top_k": int(r.unjudged_top_k[i]), "zero": _number(r.zero[i]),
                      "condensed": _number(r.condensed[i]), "min": _number(r.minimum[i]),
                      "max": _number(r.maximum[i]), "method": r.method[i]}
                for i, qid in enumerate(r.qids)
            },
        })
    return json.dumps({"bounds": records}, indent=2) + "\n"


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def _number(value) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value
