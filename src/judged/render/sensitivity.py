"""Text and JSON for :func:`judged.sensitivity`."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from judged.analysis.sensitivity import Sensitivity


def render_sensitivity(s: Sensitivity) -> str:
    """One row per variation: mean, change and changed queries per run, the optimism flag, order changes.

    "changed" counts queries whose value moved; the last column flags variations that can
    score 1.0 for a ranking that is not perfect, with how many queries (per run) only reach
    1.0 under the variation.
    """
    buffer = io.StringIO()
    console = Console(file=buffer, width=shutil.get_terminal_size((140, 24)).columns,
                      force_terminal=False, color_system=None)
    table = Table(title=f"sensitivity of {s.measure} (missing={s.missing}), {s.queries} judged queries",
                  title_justify="left")
    table.add_column("convention")
    table.add_column("value")
    for run in s.runs:
        table.add_column(f"{run} mean", justify="right")
        table.add_column("delta", justify="right")
        table.add_column("changed", justify="right")
    table.add_column("can reach 1.0 without a perfect ranking")
    table.add_row("(chosen)", "", *[cell for m in s.means for cell in (f"{m:.4f}", "", "")], "")
    for v in s.variations:
        cells = []
        for mean, delta, changed in zip(v.means, v.deltas, v.changed):
            cells += [f"{mean:.4f}", f"{delta:+.4f}", str(changed)]
        flag = f"yes; queries newly at 1.0: {'/'.join(str(n) for n in v.new_ones)}" if v.optimistic else ""
        table.add_row(v.convention, v.value, *cells, flag)
    console.print(table)
    if len(s.runs) > 1:
        moved = [f"{v.convention}={v.value}" for v in s.variations if v.order_changed]
        console.print("order of runs changes under: " + (", ".join(moved) if moved else "no variation"))
    if s.measure.cutoff is not None:
        console.print("queries with a tied group straddling the cutoff: "
                      + ", ".join(f"{run} {n}" for run, n in zip(s.runs, s.ties_across_cutoff)))
    return buffer.getvalue()


def render_sensitivity_json(s: Sensitivity) -> str:
    record = asdict(s)
    record["measure"] = str(s.measure)
    for variation, original in zip(record["variations"], s.variations):
        variation["measure"] = str(original.measure)
    return json.dumps(record, indent=2) + "\n"
