"""Comparison output: a terminal table per measure, and JSON, TSV, LaTeX and HTML.

The columns depend on what was asked for: the p-value column names its
correction, URisk/TRisk appear with ``risk_alpha``, and planning with
``plan_delta`` (a line under the terminal table, two columns elsewhere).
"""

from __future__ import annotations

import html
import io
import json
import math
import shutil
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from judged.stats.compare import Comparison, MeasureComparison, RunRow, SignificanceMatrix

COLUMNS = ("run", "mean", "95% CI", "diff", "diff 95% CI", "p (Holm)", "d_z", "W/T/L", "median", "p10", "share<")

P_LABELS = {"holm": "p (Holm)", "bh": "p (BH)", "none": "p", "tukey": "p (Tukey)"}

CORRECTION_TEXT = {
    "holm": "after Holm correction across the runs compared; paired randomization test",
    "bh": "after Benjamini-Hochberg correction across the runs compared; paired randomization test",
    "none": "with no correction for the number of runs compared; paired randomization test",
    "tukey": "by a randomised Tukey HSD over all runs (systems permuted within each query)",
}


def columns(c: Comparison, *, planning: bool = True) -> tuple[str, ...]:
    """The column names of :func:`row_cells` for ``c`` (planning columns only when asked for and present)."""
    names = tuple(P_LABELS[c.correction] if name == "p (Holm)" else name for name in COLUMNS)
    if c.risk_alpha is not None:
        names += (f"URisk (a={c.risk_alpha:g})", "TRisk")
    if planning and c.plan_delta is not None:
        names += ("MDD", f"n for {c.plan_delta:g}")
    return names


def row_cells(row: RunRow, c: Comparison, *, planning: bool = True) -> list[str]:
    """One run's cells, in the order of :func:`columns`; ``*`` marks a difference significant at ``c.alpha``."""
    s = row.summary
    cells = [row.run, f"{row.mean.estimate:.4f}", f"[{row.mean.low:.4f}, {row.mean.high:.4f}]"]
    if row.difference is None or row.p_adjusted is None or row.wins_ties_losses is None:  # only the baseline
        cells += ["baseline", "", "", "", ""]
    else:
        marker = "*" if row.p_adjusted <= c.alpha else ""
        wtl = row.wins_ties_losses
        cells += [f"{row.difference.estimate:+.4f}{marker}", f"[{row.difference.low:+.4f}, {row.difference.high:+.4f}]",
                  f"{row.p_adjusted:.4f}", f"{row.d_z:+.2f}", f"{wtl.wins}/{wtl.ties}/{wtl.losses}"]
    cells += [f"{s.median:.4f}", f"{s.p10:.4f}", f"{s.share_below:.0%}"]
    if c.risk_alpha is not None:
        cells += ["", ""] if row.risk is None else [f"{row.risk.urisk:+.4f}", f"{row.risk.trisk:+.2f}"]
    if planning and c.plan_delta is not None:
        p = row.planning
        cells += ["", ""] if p is None else [_number(p.minimum_detectable, ".4f"), _number(p.queries_needed, "d")]
    return cells


def _number(value, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def footnote(c: Comparison) -> str:
    """What the marker and the p-values mean, and the settings that produced them."""
    text = (f"* p <= {c.alpha} {CORRECTION_TEXT[c.correction]} ({c.permutations} permutations), "
            f"bootstrap CIs ({c.resamples} resamples), seed {c.seed}.")
    if c.risk_alpha is not None:
        text += (f" URisk weights each loss against the baseline by 1 + {c.risk_alpha:g}; TRisk < -2 is "
                 "significantly riskier than the baseline, > 2 significantly safer.")
    if c.plan_delta is not None:
        text += (f" MDD: the smallest true difference these queries detect; n: the queries needed to detect "
                 f"{c.plan_delta:g} (paired two-sided test, alpha {c.alpha}, power {c.power}, normal approximation).")
    return text


def planning_lines(m: MeasureComparison, c: Comparison) -> list[str]:
    """The planning line of each run compared with the baseline (empty without ``plan_delta``)."""
    lines = []
    for row in m.runs:
        p = row.planning
        if p is None:
            continue
        if p.minimum_detectable is None:
            lines.append(f"  planning {row.run}: the differences from {m.baseline} do not vary; n/a")
            continue
        lines.append(f"  planning {row.run} vs {m.baseline} (alpha {p.alpha}, power {p.power}): {p.queries} queries "
                     f"detect {p.minimum_detectable:.4f}; detecting {p.delta:g} needs {p.queries_needed} queries")
    return lines


def matrix_title(matrix: SignificanceMatrix) -> str:
    """What the p-values of a significance matrix are."""
    if matrix.correction == "tukey":
        return "pairwise p, randomised Tukey HSD over all runs"
    pairs = len(matrix.runs) * (len(matrix.runs) - 1) // 2
    corrections = {"holm": f"Holm over {pairs} pairs", "bh": f"Benjamini-Hochberg over {pairs} pairs"}
    how = corrections.get(matrix.correction, "uncorrected")
    return f"pairwise p, paired randomization tests, {how}"


def matrix_cells(matrix: SignificanceMatrix, alpha: float) -> list[list[str]]:
    """Rows of the matrix as text: ``*`` marks p <= alpha, the diagonal is blank."""
    return [[name] + ["" if i == j else f"{p:.4f}" + ("*" if p <= alpha else "") for j, p in enumerate(row)]
            for i, (name, row) in enumerate(zip(matrix.runs, matrix.p_values))]


def render_comparison(c: Comparison) -> str:
    """Terminal tables: one per measure, its worst queries, planning lines and significance matrix."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=shutil.get_terminal_size((150, 24)).columns,
                      force_terminal=False, color_system=None)
    for m in c.measures:
        table = Table(title=f"{m.measure} over {m.queries} queries scored by every run (baseline {m.baseline})",
                      title_justify="left")
        for name in columns(c, planning=False):
            table.add_column(name.replace("share<", f"< {m.runs[0].summary.threshold:g}"),
                             justify="left" if name == "run" else "right")
        for row in m.runs:
            table.add_row(*row_cells(row, c, planning=False))
        console.print(table)
        for row in m.runs:
            worst = ", ".join(f"{q} {v:.3f}" for q, v in row.summary.worst[:5])
            console.print(f"  {row.run}: worst queries {worst}")
        for line in planning_lines(m, c):
            console.print(line)
        if m.matrix is not None:
            console.print(f"  {matrix_title(m.matrix)}:")
            console.print(_matrix_table(m.matrix, c.alpha))
    console.print(footnote(c))
    return buffer.getvalue()


def _matrix_table(matrix: SignificanceMatrix, alpha: float) -> Table:
    table = Table()
    table.add_column("")
    for name in matrix.runs:
        table.add_column(name, justify="right")
    for cells in matrix_cells(matrix, alpha):
        table.add_row(*cells)
    return table


def render_comparison_html(c: Comparison) -> str:
    """One HTML table per measure (what a notebook shows for a comparison)."""
    parts = []
    header = "".join(f"<th>{html.escape(name)}</th>" for name in columns(c))
    for m in c.measures:
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row_cells(row, c)) + "</tr>"
            for row in m.runs
        )
        caption = html.escape(f"{m.measure}, {m.queries} queries, baseline {m.baseline}")
        parts.append(f"<table><caption>{caption}</caption><tr>{header}</tr>{rows}</table>")
    return "".join(parts)


def render_comparison_json(c: Comparison) -> str:
    """Every field of the comparison; non-finite numbers (an infinite TRisk) become null."""
    return json.dumps(_finite(asdict(c)), indent=2, allow_nan=False) + "\n"


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def render_comparison_tsv(c: Comparison) -> str:
    """One line per (measure, run) under a header line (the matrix is in the JSON, table and LaTeX forms)."""
    lines = ["measure\t" + "\t".join(columns(c))]
    for m in c.measures:
        lines += [m.measure + "\t" + "\t".join(row_cells(row, c)) for row in m.runs]
    return "\n".join(lines) + "\n"


def render_comparison_latex(c: Comparison) -> str:
    """A tabular per measure, and one per significance matrix."""
    out = []
    names = columns(c)
    for m in c.measures:
        out.append("% " + m.measure)
        out.append("\\begin{tabular}{l" + "r" * (len(names) - 1) + "}")
        out.append(" & ".join(_latex(h) for h in names) + " \\\\ \\hline")
        out += [" & ".join(_latex(x) for x in row_cells(row, c)) + " \\\\" for row in m.runs]
        out.append("\\end{tabular}")
        if m.matrix is not None:
            out.append(f"% {m.measure}: {matrix_title(m.matrix)}")
            out.append("\\begin{tabular}{l" + "r" * len(m.matrix.runs) + "}")
            out.append(" & ".join(_latex(h) for h in ("", *m.matrix.runs)) + " \\\\ \\hline")
            out += [" & ".join(_latex(x) for x in cells) + " \\\\" for cells in matrix_cells(m.matrix, c.alpha)]
            out.append("\\end{tabular}")
    return "\n".join(out) + "\n"


def _latex(text: str) -> str:
    for a, b in (("\\", "\\textbackslash{}"), ("%", "\\%"), ("_", "\\_"), ("&", "\\&"), ("#", "\\#"), ("<", "$<$")):
        text = text.replace(a, b)
    return text
