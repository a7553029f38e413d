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
from dataclasses import asdict

from rich.table import Table

from judged.render.width import text_console
from judged.stats.compare import Comparison, MeasureComparison, RunRow, SignificanceMatrix

COLUMNS = ("run", "mean", "95% CI", "diff", "diff 95% CI", "p (Holm)", "d_z", "W/T/L", "median", "p10", "share<")

P_LABELS = {"holm": "p (Holm)", "bh": "p (BH)", "none": "p", "tukey": "p (Tukey)"}

CORRECTION_TEXT = {
    "holm": "the paired randomization test's p-value after Holm correction",
    "bh": "the paired randomization test's p-value after Benjamini-Hochberg correction",
    "none": "the paired randomization test's p-value, not corrected for the number of runs compared",
    "tukey": "the randomised Tukey HSD's p-value over all runs (systems permuted within each query)",
}

FAMILY_TEXT = {"measure": "over the runs compared on each measure", "all": "over every run and measure compared"}


def columns(c: Comparison, *, planning: bool = True) -> tuple[str, ...]:
    """The column names of :func:`row_cells` for ``c`` (planning columns only when asked for and present)."""
    names = tuple(P_LABELS[c.correction] if name == "p (Holm)" else
                  f"diff {1 - c.alpha:.0%} CI" if name == "diff 95% CI" else name for name in COLUMNS)
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
    """Where each column comes from, what the marker means, and the settings that produced them."""
    confidence = f"{1 - c.alpha:.0%}"
    text = (f"mean 95% CI: paired bootstrap percentile interval ({c.resamples} resamples). "
            f"diff {confidence} CI: the differences the paired randomization test ({c.permutations} permutations) "
            f"does not reject at {c.alpha}, before correction, so it excludes 0 exactly when that test's "
            f"uncorrected p <= {c.alpha}. {P_LABELS[c.correction]}: {CORRECTION_TEXT[c.correction]}"
            + ("" if c.correction == "tukey" else f" {FAMILY_TEXT[c.family]}")
            + f"; * p <= {c.alpha}. median, p10, < threshold and worst queries: over the same queries. Seed {c.seed}.")
    if c.risk_alpha is not None:
        text += (f" URisk weights each loss against the baseline by 1 + {c.risk_alpha:g}; TRisk < -2 is "
                 "significantly riskier than the baseline, > 2 significantly safer.")
    if c.plan_delta is not None:
        text += (f" MDD: the smallest true difference these queries detect; n: the queries needed to detect "
                 f"{c.plan_delta:g} (paired t-test power by the noncentral t, alpha {c.alpha}, power {c.power}; "
                 "never fewer than the randomization test needs to reach alpha at all).")
    return text


def left_out_line(m: MeasureComparison) -> str | None:
    """The judged queries the comparison leaves out and why (None when it leaves none out)."""
    if not m.left_out:
        return None
    return "  left out of the comparison: " + "; ".join(f"{count} {reason}" for reason, count in m.left_out)


def planning_lines(m: MeasureComparison, c: Comparison) -> list[str]:
    """The planning line of each run compared with the baseline (empty without ``plan_delta``)."""
    lines = []
    for row in m.runs:
        p = row.planning
        if p is None:
            continue
        if p.queries_needed is None:
            lines.append(f"  planning {row.run}: the differences from {m.baseline} do not vary; n/a")
            continue
        if p.minimum_detectable is None:
            lines.append(f"  planning {row.run} vs {m.baseline} (alpha {p.alpha}, power {p.power}): {p.queries} "
                         f"queries cannot reach p <= {p.alpha} (the test needs {p.minimum_queries}); detecting "
                         f"{p.delta:g} needs {p.queries_needed} queries")
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


def render_comparison(c: Comparison, width: int | None = None) -> str:
    """Terminal tables: one per measure, its worst queries, planning lines and significance matrix.

    Each measure's long canonical name is printed on its own line above its
    table; when the table is wider than the terminal (80 columns), it is split
    in two (the means and tests, then the rest), so no number is cut short.
    """
    buffer = io.StringIO()
    console = text_console(buffer, width, fallback=150)
    names = columns(c, planning=False)
    for m in c.measures:
        console.print(m.measure, overflow="fold")
        console.print(f"  over {m.queries} queries scored by every run (baseline {m.baseline})")
        left_out = left_out_line(m)
        if left_out:
            console.print(left_out)
        rows = [row_cells(row, c, planning=False) for row in m.runs]
        headers = [name.replace("share<", f"< {m.runs[0].summary.threshold:g}") for name in names]
        for part in _parts(headers, rows, console.width):
            console.print(_table([headers[i] for i in part], [[row[i] for i in part] for row in rows]))
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


def _parts(headers: list[str], rows: list[list[str]], width: int) -> list[list[int]]:
    """Column indices of the tables that fit ``width``, each starting with the run column, in column order."""
    sizes = [max(len(h), *(len(row[i]) for row in rows)) + 3 for i, h in enumerate(headers)]  # padding, border
    parts, current = [], [0]
    for i in range(1, len(headers)):
        if len(current) > 1 and 1 + sum(sizes[j] for j in current) + sizes[i] > width:
            parts.append(current)
            current = [0]
        current.append(i)
    return [*parts, current]


def _table(headers: list[str], rows: list[list[str]]) -> Table:
    """A table whose numbers are never wrapped or cut (the run names fold when space runs out)."""
    table = Table()
    for i, name in enumerate(headers):
        if i == 0:
            table.add_column(name, justify="left", overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True,
                             min_width=max(len(name), *(len(row[i]) for row in rows)))
    for row in rows:
        table.add_row(*row)
    return table


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


#: The TSV columns of a run row: one value per cell (intervals as two columns), empty where it does not apply.
TSV_COLUMNS = ("measure", "run", "queries", "mean", "mean_low", "mean_high", "diff", "diff_low", "diff_high",
               "p", "p_adjusted", "correction", "significant", "d_z", "wins", "ties", "losses", "median", "p10",
               "threshold", "share_below")


def render_comparison_tsv(c: Comparison) -> str:
    """Machine-readable TSV: a header, one line per (measure, run), one number per cell at full precision.

    Intervals are two columns (``_low``, ``_high``); ``significant`` is 1 or 0
    (``p_adjusted <= alpha``); the baseline's comparison cells are empty;
    ``urisk``/``trisk`` and ``mdd``/``queries_needed`` columns follow when
    asked for. A significance matrix follows after one empty line, as its own
    table: ``measure run other p_adjusted correction significant``, one line
    per ordered pair.
    """
    header = list(TSV_COLUMNS)
    if c.risk_alpha is not None:
        header += ["urisk", "trisk"]
    if c.plan_delta is not None:
        header += ["mdd", "queries_needed"]
    lines = ["\t".join(header)]
    for m in c.measures:
        lines += ["\t".join(_tsv(v) for v in _tsv_row(m, row, c)) for row in m.runs]
    pairs = [m for m in c.measures if m.matrix is not None]
    if pairs:
        lines += ["", "\t".join(("measure", "run", "other", "p_adjusted", "correction", "significant"))]
        for m in pairs:
            grid = m.matrix
            if grid is None:
                continue
            lines += ["\t".join(_tsv(v) for v in (m.measure, a, b, p, grid.correction, int(p <= c.alpha)))
                      for i, a in enumerate(grid.runs) for j, (b, p) in enumerate(zip(grid.runs, grid.p_values[i]))
                      if i != j]
    return "\n".join(lines) + "\n"


def _tsv_row(m: MeasureComparison, row: RunRow, c: Comparison) -> list:
    s = row.summary
    cells: list = [m.measure, row.run, m.queries, row.mean.estimate, row.mean.low, row.mean.high]
    if row.difference is None or row.wins_ties_losses is None or row.p_adjusted is None:
        cells += [None] * 11
    else:
        wtl = row.wins_ties_losses
        cells += [row.difference.estimate, row.difference.low, row.difference.high, row.p_value, row.p_adjusted,
                  c.correction, int(row.p_adjusted <= c.alpha), row.d_z, wtl.wins, wtl.ties, wtl.losses]
    cells += [s.median, s.p10, s.threshold, s.share_below]
    if c.risk_alpha is not None:
        cells += [None, None] if row.risk is None else [row.risk.urisk, row.risk.trisk]
    if c.plan_delta is not None:
        p = row.planning
        cells += [None, None] if p is None else [p.minimum_detectable, p.queries_needed]
    return cells


def _tsv(value) -> str:
    """A cell: empty for None, ``inf``/``-inf`` for an unbounded end, the shortest exact text for a float."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


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
