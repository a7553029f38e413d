"""Text and JSON for ``judged assessors``: means under each assessor, swings, and whether the run order changes."""

from __future__ import annotations

import io
import json
import math

import numpy as np
from rich.table import Table

from judged.agreement.assessors import AssessorSensitivity, OrderAgreement
from judged.render.width import text_console


def _num(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def render_assessors(s: AssessorSensitivity, per_query: bool = False) -> str:
    """One table per measure (runs by assessors, the swing of the mean and the largest per-query swing),
    then the order comparison; with ``per_query`` every query's values and swing."""
    buffer = io.StringIO()
    console = text_console(buffer, None, fallback=120)
    left = [f"{name} {n}" for name, n in s.left_out.items() if n]
    console.print(f"judged assessors: {len(s.runs)} run{'s' if len(s.runs) != 1 else ''} under "
                  f"{', '.join(s.assessors)}, on the {len(s.qids)} {'query' if len(s.qids) == 1 else 'queries'} every "
                  "assessor judged"
                  + (f" (left out, judged by only some: {', '.join(left)})" if left else ""))
    missing = [f"{name} {n}" for name, n in s.missing_pairs.items() if n]
    if missing:
        console.print(f"pairs graded by only some assessors, left out (missing, not a swing): {', '.join(missing)}")
    query_swing = s.query_swing
    for m, measure in enumerate(s.measures):
        console.print(f"\n{measure}")
        table = Table()
        table.add_column("run")
        for name in s.assessors:
            table.add_column(name, justify="right")
        table.add_column("swing", justify="right")
        table.add_column("largest query swing", justify="right")
        for r, run in enumerate(s.runs):
            table.add_row(run, *(_num(v) for v in s.means[m, r]), _num(s.swing[m, r]),
                          _largest(query_swing[m, r], s.qids))
        console.print(table)
        for order in s.orders:
            if order.measure == measure:
                console.print(_order_line(order))
        if per_query:
            console.print(f"per query: {measure}")
            detail = Table()
            detail.add_column("qid")
            detail.add_column("run")
            for name in s.assessors:
                detail.add_column(name, justify="right")
            detail.add_column("swing", justify="right")
            for q, qid in enumerate(s.qids):
                for r, run in enumerate(s.runs):
                    detail.add_row(qid, run, *(_num(v) for v in s.values[m, r, :, q]), _num(query_swing[m, r, q]))
            console.print(detail)
    return buffer.getvalue()


def _largest(swings: np.ndarray, qids: tuple[str, ...]) -> str:
    if np.isnan(swings).all():
        return "n/a"
    i = int(np.nanargmax(swings))
    return f"{swings[i]:.4f} ({qids[i]})"


def _order_line(order: OrderAgreement) -> str:
    head = f"order of runs, {order.first} vs {order.second}: "
    if order.run_pairs == 0:
        return f"{head}{order.reason}"
    tau = f"Kendall's tau {order.tau:.3f}" if order.reason is None else f"Kendall's tau n/a ({order.reason})"
    moved = "same order"
    if not order.same_order:
        moved = ", ".join(part for part, n in ((f"{order.swapped} of {order.run_pairs} run pairs swap places",
                                                order.swapped),
                                               (f"{order.ties_broken} tied under only one assessor",
                                                order.ties_broken)) if n)
    return f"{head}{tau}; {moved}"


def render_assessors_json(s: AssessorSensitivity) -> str:
    """``{"runs", "assessors", "qids", "left_out", "measures": {measure: {"runs": {...}, "orders": [...]}}}``."""
    query_swing = s.query_swing
    measures = {}
    for m, measure in enumerate(s.measures):
        runs = {}
        for r, run in enumerate(s.runs):
            runs[run] = {
                "means": dict(zip(s.assessors, map(_json_num, s.means[m, r]))),
                "swing": _json_num(s.swing[m, r]),
                "per_query": {qid: {"values": dict(zip(s.assessors, map(_json_num, s.values[m, r, :, q]))),
                                    "swing": _json_num(query_swing[m, r, q])} for q, qid in enumerate(s.qids)},
            }
        orders = [{"first": o.first, "second": o.second, "tau": _json_num(o.tau), "swapped": o.swapped,
                   "ties_broken": o.ties_broken, "run_pairs": o.run_pairs, "same_order": o.same_order,
                   "reason": o.reason}
                  for o in s.orders if o.measure == measure]
        measures[str(measure)] = {"runs": runs, "orders": orders}
    document = {"runs": list(s.runs), "assessors": list(s.assessors), "qids": list(s.qids),
                "left_out": s.left_out, "missing_pairs": s.missing_pairs, "measures": measures}
    return json.dumps(document, indent=2) + "\n"


def _json_num(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
