"""Text and JSON for :func:`judged.sensitivity`."""

from __future__ import annotations

import io
import json
from dataclasses import asdict

from rich.table import Table

from judged.analysis.sensitivity import Sensitivity
from judged.render.width import natural_width, text_console


def render_sensitivity(s: Sensitivity, width: int | None = None) -> str:
    """One row per variation: mean, change and changed queries per run, then the variations that can score
    1.0 for a ranking that is not perfect and those that change the order of the runs.

    "changed" counts queries whose value moved. When the runs side by side do not fit ``width`` (the
    output's), each run gets a table of its own: no number is cut.
    """
    buffer = io.StringIO()
    console = text_console(buffer, width, fallback=140)
    title = f"sensitivity of {s.measure} (missing={s.missing}), {s.queries} judged queries"
    console.print(title)
    side_by_side = _table(s, range(len(s.runs)))
    if natural_width(side_by_side) <= console.width:
        console.print(side_by_side)
    else:
        for i in range(len(s.runs)):
            console.print(_table(s, [i]))
    optimistic = [f"{v.convention}={v.value} (" + ", ".join(f"{run} {n}" for run, n in zip(s.runs, v.new_ones)) + ")"
                  for v in s.variations if v.optimistic]
    console.print("can reach 1.0 without a perfect ranking (queries newly at 1.0): "
                  + ("; ".join(optimistic) if optimistic else "no variation"))
    if len(s.runs) > 1:
        moved = [f"{v.convention}={v.value}" for v in s.variations if v.order_changed]
        console.print("order of runs changes under: " + (", ".join(moved) if moved else "no variation"))
    if s.measure.cutoff is not None:
        console.print("queries with a tied group straddling the cutoff: "
                      + ", ".join(f"{run} {n}" for run, n in zip(s.runs, s.ties_across_cutoff)))
    return buffer.getvalue()


def _table(s: Sensitivity, runs) -> Table:
    """The variations against the runs numbered ``runs``: mean, delta and changed queries for each."""
    table = Table()
    table.add_column("convention", no_wrap=True)
    table.add_column("value", no_wrap=True)
    for i in runs:
        table.add_column(f"{s.runs[i]} mean", justify="right", no_wrap=True)
        table.add_column("delta", justify="right", no_wrap=True)
        table.add_column("changed", justify="right", no_wrap=True)
    table.add_row("(chosen)", "", *[cell for i in runs for cell in (f"{s.means[i]:.4f}", "", "")])
    for v in s.variations:
        table.add_row(v.convention, v.value,
                      *[cell for i in runs for cell in (f"{v.means[i]:.4f}", f"{v.deltas[i]:+.4f}", str(v.changed[i]))])
    return table


def render_sensitivity_json(s: Sensitivity) -> str:
    record = asdict(s)
    record["measure"] = str(s.measure)
    for variation, original in zip(record["variations"], s.variations):
        variation["measure"] = str(original.measure)
    return json.dumps(record, indent=2) + "\n"
