"""Text, JSON and a pool file for :func:`judged.analysis.settle.settle`: settled and open pairs, what to judge next."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence

from rich.table import Table

from judged.analysis.settle import PairBound, Settlement, scope
from judged.render.width import text_console

#: The paired t-test's conclusion for the pair (first, second), in words.
CONCLUSION = {1: "first better", -1: "first worse", 0: "no significant difference"}


def render_settle(s: Settlement, proposals: Sequence[tuple[str, str, float]] = ()) -> str:
    """Runs' mean ranges, every pair with its joint range, the order, the stopping rule and the next documents."""
    buffer = io.StringIO()
    console = text_console(buffer, None, fallback=120)
    grades = f"{min(s.grades)}..{max(s.grades)}"
    console.print(f"settle {s.measure} over {len(s.qids)} queries every run scored"
                  + (f" ({s.skipped} skipped: not scored by every run)" if s.skipped else "")
                  + f"; pool {s.pool}: {s.stopping.unjudged} unjudged documents may take grades {grades}")
    runs = Table(title=f"runs: mean {s.measure.name}, with unjudged as 0 and its exact range", title_justify="left")
    for name in ("run", "unjudged as 0", "min", "max"):
        runs.add_column(name, justify="left" if name == "run" else "right")
    for r in s.runs:
        runs.add_row(r.run, _fmt(r.mean), _fmt(r.minimum), _fmt(r.maximum))
    console.print(runs)
    pairs = Table(title=f"pairs: mean difference first - second over every joint assignment; paired t-test at "
                        f"alpha={s.alpha}", title_justify="left")
    for name in ("first", "second", "now", "min", "max", "sign", "t-test now", "can it change"):
        pairs.add_column(name, justify="right" if name in ("now", "min", "max") else "left")
    for p in s.pairs:
        test = ("n/a", "fewer than 2 queries") if p.test is None else (CONCLUSION[p.test.conclusion],
                                                                        f"{p.test.state}: {p.test.how}")
        pairs.add_row(p.a, p.b, _fmt(p.difference), _fmt(p.minimum), _fmt(p.maximum), sign_label(p), *test)
    console.print(pairs)
    order = " > ".join(s.order)
    if s.order_settled:
        console.print(f"order: {order} (settled: proved {scope(s)})")
    else:
        open_pairs = ", ".join(f"{p.a}-{p.b}" for p in s.pairs if not p.settled)
        console.print(f"order with unjudged as 0: {order} (open: {open_pairs})")
    console.print(f"stopping rule: {s.stopping.statement}")
    if proposals:
        table = Table(title=f"next {len(proposals)} documents to judge, by query (impact: expected shrink of the "
                            "open bounds)", title_justify="left")
        for name in ("qid", "docid", "impact"):
            table.add_column(name, justify="right" if name == "impact" else "left")
        for qid, docid, score in proposals:
            table.add_row(qid, docid, f"{score:.4g}")
        console.print(table)
    return buffer.getvalue()


def render_settle_json(s: Settlement, proposals: Sequence[tuple[str, str, float]] = ()) -> str:
    """The same as JSON: runs, pairs (with per-query ranges), order, stopping rule, next documents."""
    document = {
        "measure": str(s.measure), "pool": s.pool, "grades": list(s.grades), "alpha": s.alpha,
        "queries": len(s.qids), "skipped_queries": s.skipped,
        "runs": [{"run": r.run, "mean": _number(r.mean), "min": _number(r.minimum), "max": _number(r.maximum)}
                 for r in s.runs],
        "pairs": [_pair(p, s.qids) for p in s.pairs],
        "order": list(s.order), "order_settled": s.order_settled,
        "claims": {"kind": "proved", "scope": scope(s)},  # what every "settled" here is proved under
        "stopping": {"fires": s.stopping.fires, "pairs_settled": s.stopping.pairs_settled,
                     "pairs": s.stopping.pairs, "unjudged": s.stopping.unjudged,
                     "could_matter": s.stopping.could_matter, "statement": s.stopping.statement},
        "next": [{"qid": q, "docid": d, "impact": score} for q, d, score in proposals],
    }
    return json.dumps(document, indent=2) + "\n"


def render_pool_run(proposals: Sequence[tuple[str, str, float]], tag: str = "settle") -> str:
    """The proposals as a TREC run file, in their order: ``judged pool build FILE --depth N`` pools exactly them.

    Scores fall strictly down the file, so every tie rule keeps this order.

    >>> print(render_pool_run([("q2", "d9", 0.5), ("q2", "d1", 0.2), ("q1", "d4", 0.3)]), end="")
    q2 Q0 d9 1 3 settle
    q2 Q0 d1 2 2 settle
    q1 Q0 d4 1 1 settle
    """
    lines, rank, previous = [], 0, None
    for position, (qid, docid, _) in enumerate(proposals):
        rank = rank + 1 if qid == previous else 1
        previous = qid
        lines.append(f"{qid} Q0 {docid} {rank} {len(proposals) - position} {tag}\n")
    return "".join(lines)


def _pair(p: PairBound, qids: Sequence[str]) -> dict:
    return {
        "first": p.a, "second": p.b, "difference": _number(p.difference), "min": _number(p.minimum),
        "max": _number(p.maximum), "settled": p.settled, "sign": p.sign,
        "test": None if p.test is None else {"conclusion": p.test.conclusion, "state": p.test.state,
                                              "how": p.test.how},
        "per_query": {qid: {"min": _number(lo), "max": _number(hi)} for qid, lo, hi in zip(qids, p.low, p.high)},
    }


def sign_label(p: PairBound) -> str:
    """The pair's sign in words: who is ahead under every assignment, or ``open``."""
    return {1: "first ahead (settled)", -1: "first behind (settled)", 0: "tied (settled)", None: "open"}[p.sign]


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def _number(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value
