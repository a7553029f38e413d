"""Text and JSON for :func:`judged.explain`: one row per rank, the ideal list, then the arithmetic."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence

from rich import box
from rich.table import Table

from judged.analysis.explain import Explanation, Step
from judged.render.width import natural_width, text_console


def render_explanation(explanations: Sequence[Explanation]) -> str:
    """The worked computation as text; with two explanations (``--vs``) their rankings side by side.

    When the terminal is too narrow for both rankings side by side, they are printed one after the other, so no
    column is dropped.
    """
    buffer = io.StringIO()
    console = text_console(buffer, None, fallback=140)
    first = explanations[0]
    console.print(f"query {first.qid}  measure {first.measure}", overflow="fold")
    side_by_side = _ranking_table(explanations)
    if len(explanations) > 1 and natural_width(side_by_side) > console.width:
        for e in explanations:  # too narrow to put the runs side by side: one ranking after the other
            console.print(_ranking_table([e], title=f"ranking of {e.run}", compact=True))
    else:
        console.print(side_by_side)
    console.print(_steps_table("ideal ordering (every judged document by gain)", first.ideal, "running IDCG"))
    for e in explanations:
        console.print(_summary(e))
    return buffer.getvalue()


def render_explanation_json(explanations: Sequence[Explanation]) -> str:
    return json.dumps({"explanations": [e.to_dict() for e in explanations]}, indent=2, default=_json_number) + "\n"


def _json_number(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def _ranking_table(explanations: Sequence[Explanation], title: str = "ranking", compact: bool = False) -> Table:
    """Ranks down, runs across; the discount is shared unless ties are averaged (then it is per document)."""
    averaged = explanations[0].measure.ties == "average"
    per_run = ("docid", "score", "grade", "gain") + (("weight",) if averaged else ()) + ("contribution", "running DCG")
    table = Table(title=title, title_justify="left")
    if compact:
        table.box, table.pad_edge = box.SIMPLE_HEAD, False
    table.add_column("rank", justify="right")
    if not averaged:
        table.add_column("discount", justify="right")
    for e in explanations:
        suffix = f" ({e.run})" if len(explanations) > 1 else ""
        for name in per_run:
            table.add_column(name + suffix, justify="left" if name == "docid" else "right",
                             overflow="fold", min_width=12 if name == "docid" and not compact else None)
    depth = max(len(e.ranking) for e in explanations)
    for i in range(depth):
        cells = [str(i + 1)] + ([] if averaged else [f"{1 / math.log2(i + 2):.3f}"])
        for e in explanations:
            step = e.ranking[i] if i < len(e.ranking) else None
            cells += _step_cells(step, with_score=True, with_discount=averaged) if step else [""] * len(per_run)
        table.add_row(*cells)
    return table


def _steps_table(title: str, steps: Sequence[Step], running: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name in ("rank", "docid", "grade", "gain", "discount", "contribution", running):
        table.add_column(name, justify="left" if name == "docid" else "right",
                         overflow="fold" if name == "docid" else "ellipsis", no_wrap=name != "docid")
    for step in steps:
        table.add_row(str(step.rank), *_step_cells(step, with_score=False, with_discount=True))
    return table


def _step_cells(step: Step, with_score: bool, with_discount: bool) -> list[str]:
    cells = [step.docid]
    if with_score:
        cells.append(f"{step.score:g}")
    cells += ["unjudged" if step.grade is None else str(step.grade), f"{step.gain:g}"]
    if with_discount:
        cells.append(f"{step.discount:.3f}")
    return cells + [f"{step.contribution:.3f}", f"{step.running:.3f}"]


def _summary(e: Explanation) -> str:
    k = f"@{e.measure.cutoff}" if e.measure.cutoff else ""
    lines = [f"{e.run}: DCG{k} = {e.dcg:.3f}   IDCG{k} = {e.idcg:.3f}"]
    if e.measure.name == "nDCG":
        lines.append(f"  nDCG{k} = {e.dcg:.3f} / {e.idcg:.3f} = {e.value:.4f}" if e.idcg else
                     f"  nDCG{k} = {e.value:.4f} (no relevant judgment: the norel={e.measure.norel} rule)")
    recall = "n/a" if math.isnan(e.recall) else f"{e.recall:.4f}"
    lines.append(f"  recall{k} = {e.relevant_found}/{e.relevant_total} = {recall}   judged{k} = {e.judged:.4f}")
    return "\n".join(lines)
