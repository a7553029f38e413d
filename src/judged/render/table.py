"""The terminal table: one row per measure (fully explicit form), one column per run, then the counts."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import numpy as np
from rich.table import Table

from judged.engine.config import ensure_same_conventions
from judged.engine.result import Result
from judged.render.width import text_console

#: The narrowest measure column that still shows a canonical name in a few lines.
_NAME_ROOM = 24


def _fmt(value: float, integer: bool) -> str:
    if math.isnan(value):
        return "n/a"
    return str(int(value)) if integer else f"{value:.4f}"


def render_table(results: Sequence[Result], per_query: bool = False, width: int | None = None) -> str:
    """A rich table as plain text (colour only on a terminal); runs side by side must share conventions."""
    ensure_same_conventions(results)
    buffer = io.StringIO()
    console = text_console(buffer, width, fallback=120)
    measures = results[0].measures
    # Numbers are never cut. When the runs' columns leave the measure column too little room, each measure gets
    # a short label in the table and its canonical name a line of its own under it.
    numbers = sum(max(len(r.run), 6) + 3 for r in results) + 10 + 1
    labelled = console.width - numbers < _NAME_ROOM
    summary = Table(title="judged eval", title_justify="left")
    if labelled:
        summary.add_column("m", no_wrap=True, min_width=len(f"m{len(measures)}"))
    else:
        summary.add_column("measure", overflow="fold")
    for result in results:
        summary.add_column(result.run, justify="right", no_wrap=True, min_width=min(len(result.run), 10))
    summary.add_column("queries", justify="right", no_wrap=True, min_width=7)
    for i, m in enumerate(measures, start=1):
        scored = "/".join(sorted({str(r.counts[m].scored) for r in results}))
        summary.add_row(f"m{i}" if labelled else str(m), *(_fmt(r.aggregate[m], m.family.integer) for r in results),
                        scored)
    console.print(summary)
    if labelled:
        for i, m in enumerate(measures, start=1):
            console.print(f"m{i} = {m}", overflow="fold")
    if per_query:
        detail = Table(title="per query", title_justify="left")
        detail.add_column("qid")
        detail.add_column("measure", overflow="fold")
        for result in results:
            detail.add_column(result.run, justify="right")
        for i in np.argsort(np.array(results[0].qids, dtype=object), kind="stable"):
            for m in measures:
                detail.add_row(results[0].qids[i], str(m), *(_fmt(r.values[m][i], m.family.integer) for r in results))
        console.print(detail)
    for result in results:
        console.print(_counts_line(result))
    config = results[0].provenance.get("config")
    if config:
        console.print(f"conventions pinned by {config['path']} (sha256 {config['sha256'][:12]})")
    frozen = judgment_set(results)
    if frozen:
        console.print(f"judgments: frozen set {frozen['name']} (sha256 {frozen['sha256'][:12]}) from {frozen['path']}")
    return buffer.getvalue()


def judgment_set(results: Sequence[Result]) -> dict | None:
    """The frozen judgment set the results were evaluated on (name, path, format, sha256, and the log's heads it
    was frozen from and read at), None for a file."""
    qrels = results[0].provenance.get("qrels") if results else None
    if not qrels or qrels.get("format") != "judgment-set":
        return None
    return {key: qrels[key] for key in ("name", "path", "format", "sha256", "heads") if key in qrels}


def _counts_line(result: Result) -> str:
    q = result.provenance["queries"]
    parts = [
        f"{result.run}: {q['evaluated']} of {q['judged']} judged queries evaluated",
        f"{q['missing_from_run']} missing from the run ({'scored 0' if q['missing_policy'] == 'zero' else 'skipped'})",
        f"{q['run_only_ignored']} run queries without judgments ignored",
    ]
    norel = max((c.norel for c in result.counts.values()), default=0)
    if norel:
        parts.append(f"{norel} with no relevant judgment")
    unjudged = result.provenance["unjudged_in_top_k"]
    if unjudged:
        parts.append("unjudged in top k: " + ", ".join(f"@{k} {n}" for k, n in unjudged.items()))
    return "; ".join(parts)
