"""Text rendering of an automatic assessor's calibration (:mod:`judged.agreement.calibration`).

>>> import polars as pl
>>> from judged.agreement.calibration import calibrate
>>> labels = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["a", "a", "b", "b"],
...                        "assessor": ["ann", "llm", "ann", "llm"], "grade": [0, 1, 2, 2]})
>>> print(render_calibration(calibrate(labels, "llm", "ann", grades=[0, 1, 2], resamples=0)).splitlines()[0])
calibration of llm (automatic) against ann: 2 pairs graded by both, 1 identical (raw agreement 0.500)
"""

from __future__ import annotations

import math

from judged.agreement.calibration import Calibration


def _num(x: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(x) else f"{x:.{digits}f}"


def render_calibration(c: Calibration) -> str:
    """The calibration as plain text: agreement, confusion, bias per grade, per run, and what it does to conclusions."""
    p = c.pair
    kappa = p.kappa("linear")
    interval = "" if math.isnan(kappa.low) else (f" ({kappa.confidence:.0%} CI {_num(kappa.low)} to "
                                                 f"{_num(kappa.high)}, resampling queries)")
    lines = [f"calibration of {c.automatic} (automatic) against {c.human}: {p.pairs} pairs graded by both, "
             f"{p.agreed} identical (raw agreement {_num(p.raw)})",
             f"linear kappa {_num(kappa.value)}{interval}", "",
             f"confusion (rows {p.first}, columns {p.second}): grades {', '.join(map(str, p.grades))}"]
    lines += ["  " + " ".join(f"{int(n):5d}" for n in row) for row in p.confusion]
    lines += ["", f"bias per grade {c.human} gave: pairs, {c.automatic}'s mean grade, share higher, share lower"]
    lines += [f"  {b.human_grade}: {b.pairs:5d}  {_num(b.mean_automatic, 2):>5}  {_num(b.higher, 2):>5}  "
              f"{_num(b.lower, 2):>5}" for b in c.bias]
    over = sum(b.higher * b.pairs for b in c.bias if b.pairs)
    under = sum(b.lower * b.pairs for b in c.bias if b.pairs)
    lines.append(f"  {c.automatic} grades higher on {over:.0f} pairs and lower on {under:.0f}"
                 + (": it over-grades" if over > 2 * max(under, 1) else ""))
    if c.runs:
        lines += ["", "per run (pairs both graded in its top k): pairs, raw agreement, mean (automatic - human)"]
        lines += [f"  {r.run}: {r.pairs:5d}  {_num(r.raw)}  {_num(r.mean_difference, 3):>6}" for r in c.runs]
    for m in c.measures:
        order_h = sorted(m.human, key=m.human.__getitem__, reverse=True)
        order_a = sorted(m.automatic, key=m.automatic.__getitem__, reverse=True)
        lines += ["", f"{m.measure} on the pairs both graded: Kendall's tau {_num(m.kendall_tau)} between orderings",
                  f"  {c.human}: " + ", ".join(f"{n} {m.human[n]:.4f}" for n in order_h),
                  f"  {c.automatic}: " + ", ".join(f"{n} {m.automatic[n]:.4f}" for n in order_a)]
        for word, found in (("appear", m.appear), ("vanish", m.vanish), ("flip", m.flip)):
            if found:
                lines.append(f"  significant differences that {word}: " + ", ".join(f"{x} vs {y}" for x, y in found))
        if not (m.appear or m.vanish or m.flip):
            lines.append("  the same pairwise differences are significant under both labellings")
    return "\n".join(lines) + "\n"
