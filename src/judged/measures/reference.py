"""The measure reference, generated from the conventions table and the registry: ``judged measures`` prints it and
``docs/measures.md`` holds it (a test fails when the file is stale; regenerate with
``judged measures > docs/measures.md``).
"""

from __future__ import annotations

from judged.measures.conventions import EVALUATION_CONVENTIONS, MEASURE_CONVENTIONS, PARAM_ORDER, Convention
from judged.measures.registry import all_families


def measures_text() -> str:
    """Markdown listing every family, its aliases, cutoff, parameters, defaults and formula."""
    lines = [
        "# Measures",
        "",
        "Generated from judged's measure registry by `judged measures`; do not edit by hand.",
        "",
        "Names follow ir_measures (`nDCG@10`, `P@5`, `AP`); conventions are parameters:",
        "`nDCG(gain=exp,ties=average)@10`. Every output prints the fully explicit form.",
        "A bare name means what trec_eval means: linear gain, ideal from every judged document,",
        "unjudged documents counted as grade 0, ties broken by docid descending, and a query",
        "with no relevant judgment scored 0. A negative grade marks a document that was pooled",
        "but not judged: it counts as unjudged everywhere (trec_eval's rule).",
        "",
        "## Parameters",
        "",
        "| parameter | default | meaning |",
        "|---|---|---|",
    ]
    lines += [_row(c) for c in MEASURE_CONVENTIONS]
    lines += [
        "",
        "## Evaluation options",
        "",
        "Options of a whole evaluation (`judged eval --missing`, `judged.evaluate(..., missing=)`),",
        "not of one measure.",
        "",
        "| option | default | meaning |",
        "|---|---|---|",
    ]
    lines += [_row(c) for c in EVALUATION_CONVENTIONS]
    lines += ["", "## Families", ""]
    for fam in all_families():
        lines += [f"### {fam.name}", "", fam.summary[0].upper() + fam.summary[1:] + ".", ""]
        lines.append(f"- formula: `{fam.formula}`")
        if fam.aliases:
            lines.append("- aliases: " + ", ".join(f"`{a}`" for a in fam.aliases))
        optional = fam.cutoff == "optional"
        lines.append("- cutoff: " + ("`@k` optional (none = the whole ranking)" if optional else "none"))
        params = [p for p in PARAM_ORDER if p in fam.params]
        lines.append("- parameters: " + (", ".join(f"`{p}`" for p in params) if params else "none"))
        if "ties" in fam.params:
            lines.append("- ties accepted: " + "|".join(fam.ties))
        lines.append(f"- aggregate over queries: {fam.aggregate}")
        lines.append("")
    return "\n".join(lines)


def _row(c: Convention) -> str:
    default = "unset" if c.default is None else f"`{c.default}`"
    return f"| `{c.name}` | {default} | {c.meaning} |"
