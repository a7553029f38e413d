"""Comparison output: a terminal table per measure, and JSON, TSV and LaTeX."""

from __future__ import annotations

import html
import io
import json
import shutil
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from judged.compare import Comparison, RunRow

COLUMNS = ("run", "mean", "95% CI", "diff", "diff 95% CI", "p (Holm)", "d_z", "W/T/L", "median", "p10", "share<")


def _cells(row: RunRow, alpha: float) -> list[str]:
    s = row.summary
    cells = [row.run, f"{row.mean.estimate:.4f}", f"[{row.mean.low:.4f}, {row.mean.high:.4f}]"]
    if row.difference is None:
        cells += ["baseline", "", "", "", ""]
    else:
        marker = "*" if row.p_adjusted <= alpha else ""
        wtl = row.wins_ties_losses
        cells += [f"{row.difference.estimate:+.4f}{marker}", f"[{row.difference.low:+.4f}, {row.difference.high:+.4f}]",
                  f"{row.p_adjusted:.4f}", f"{row.d_z:+.2f}", f"{wtl.wins}/{wtl.ties}/{wtl.losses}"]
    return cells + [f"{s.median:.4f}", f"{s.p10:.4f}", f"{s.share_below:.0%}"]


def render_comparison(c: Comparison) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=shutil.get_terminal_size((150, 24)).columns,
                      force_terminal=False, color_system=None)
    for m in c.measures:
        table = Table(title=f"{m.measure} over {m.queries} queries scored by every run (baseline {m.baseline})",
                      title_justify="left")
        for name in COLUMNS:
            table.add_column(name.replace("share<", f"< {m.runs[0].summary.threshold:g}"),
                             justify="left" if name == "run" else "right")
        for row in m.runs:
            table.add_row(*_cells(row, c.alpha))
        console.print(table)
        for row in m.runs:
            worst = ", ".join(f"{q} {v:.3f}" for q, v in row.summary.worst[:5])
            console.print(f"  {row.run}: worst queries {worst}")
    console.print(f"* p <= {c.alpha} after {c.correction.title()} correction across the runs compared; paired "
                  f"randomization test ({c.permutations} permutations), bootstrap CIs ({c.resamples} resamples), "
                  f"seed {c.seed}.")
    return buffer.getvalue()


def render_comparison_html(c: Comparison) -> str:
    """One HTML table per measure (what a notebook shows for a comparison)."""
    parts = []
    for m in c.measures:
        header = "".join(f"<th>{html.escape(name)}</th>" for name in COLUMNS)
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in _cells(row, c.alpha)) + "</tr>"
            for row in m.runs
        )
        caption = html.escape(f"{m.measure}, {m.queries} queries, baseline {m.baseline}")
        parts.append(f"<table><caption>{caption}</caption><tr>{header}</tr>{rows}</table>")
    return "".join(parts)


def render_comparison_json(c: Comparison) -> str:
    return json.dumps(asdict(c), indent=2) + "\n"


def render_comparison_tsv(c: Comparison) -> str:
    lines = ["measure\t" + "\t".join(COLUMNS)]
    for m in c.measures:
        lines += [m.measure + "\t" + "\t".join(_cells(row, c.alpha)) for row in m.runs]
    return "\n".join(lines) + "\n"


def render_comparison_latex(c: Comparison) -> str:
    out = []
    for m in c.measures:
        out.append("% " + m.measure)
        out.append("\\begin{tabular}{l" + "r" * (len(COLUMNS) - 1) + "}")
        out.append(" & ".join(_latex(h) for h in COLUMNS) + " \\\\ \\hline")
        out += [" & ".join(_latex(x) for x in _cells(row, c.alpha)) + " \\\\" for row in m.runs]
        out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


def _latex(text: str) -> str:
    for a, b in (("\\", "\\textbackslash{}"), ("%", "\\%"), ("_", "\\_"), ("&", "\\&"), ("#", "\\#"), ("<", "$<$")):
        text = text.replace(a, b)
    return text
