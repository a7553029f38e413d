"""The report's charts as Vega-Lite specs, built with altair from :mod:`judged.report.model` data.

Each function returns a plain dict (the JSON the page embeds). Data goes in
inline as ``alt.Data(values=...)`` records, so no chart ever loads a URL and
altair's row limit for DataFrames does not apply; unscored queries (NaN) are
left out. Colours follow the run order, the same in every chart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt

from judged.analysis.settle import Settlement
from judged.engine.result import Result
from judged.report.model import Curve
from judged.stats.compare import SignificanceMatrix

WIDTH = 640
DATA = alt.NamedData(name="values")


def _spec(chart, values: list[dict]) -> dict:
    """The chart's spec with its data as the top-level dataset ``values``.

    altair validates a spec against the Vega-Lite schema, which for inline
    data means every value; the records are plain numbers and strings, so
    they are attached after validation (10,000 queries take milliseconds, not seconds).
    """
    spec = chart.to_dict()
    spec["datasets"] = {DATA.name: values}
    return spec


def _run_colour(runs: Sequence[str]) -> alt.Color:
    return alt.Color("run:N", sort=list(runs), title="run", scale=alt.Scale(domain=list(runs)))


def distribution(results: Sequence[Result], measure: str) -> dict:
    """Per-query scores of each run: a box (quartiles, whiskers to the extremes) over one tick per query."""
    runs = [r.run for r in results]
    values = [{"run": r.run, "qid": q, "value": float(v)}
              for r in results for q, v in zip(r.qids, r.values[_key(r, measure)]) if not math.isnan(v)]
    base = alt.Chart(DATA).encode(
        x=alt.X("value:Q", title=short_name(measure), scale=alt.Scale(zero=True)),
        y=alt.Y("run:N", sort=runs, title=None),
    )
    box = base.mark_boxplot(extent="min-max", opacity=0.35, size=26).encode(color=_run_colour(runs))
    ticks = base.mark_tick(opacity=0.8, thickness=1.5, size=18).encode(
        color=_run_colour(runs),
        tooltip=[alt.Tooltip("run:N"), alt.Tooltip("qid:N"), alt.Tooltip("value:Q", format=".4f")]
    )
    return _spec(alt.layer(box, ticks).properties(width=WIDTH, height=alt.Step(40),
                                                  title=f"Per-query {short_name(measure)} by run"), values)


def differences(results: Sequence[Result], baseline: str, measure: str) -> dict:
    """Each run minus the baseline per query, queries sorted from the largest loss to the largest gain."""
    by_run = {r.run: r for r in results}
    base = dict(zip(by_run[baseline].qids, by_run[baseline].values[_key(by_run[baseline], measure)]))
    rows = []
    for r in results:
        if r.run == baseline:
            continue
        mine = dict(zip(r.qids, r.values[_key(r, measure)]))
        deltas = sorted((float(v - base[q]), q) for q, v in mine.items()
                        if q in base and not math.isnan(v) and not math.isnan(base[q]))
        rows += [{"run": r.run, "qid": q, "difference": d, "position": i + 1,
                  "direction": "gain" if d > 0 else "loss" if d < 0 else "tie"} for i, (d, q) in enumerate(deltas)]
    chart = alt.Chart(DATA).mark_bar().encode(
        x=alt.X("position:O", title="queries, sorted by difference", axis=alt.Axis(labels=False, ticks=False)),
        y=alt.Y("difference:Q", title=f"{short_name(measure)} minus {baseline}"),
        color=alt.Color("direction:N", scale=alt.Scale(domain=["loss", "tie", "gain"],
                                                        range=["#d6604d", "#999999", "#4393c3"]), title=None),
        tooltip=[alt.Tooltip("qid:N"), alt.Tooltip("difference:Q", format="+.4f")],
    ).properties(width=WIDTH, height=160)
    return _spec(chart.facet(row=alt.Row("run:N", title=None, sort=[r.run for r in results]))
                 .properties(title=f"Per-query difference from {baseline}, {short_name(measure)}"), rows)


def curve(c: Curve, title: str, *, log_x: bool = False) -> dict:
    """Mean score at every cutoff, one line per run."""
    runs = list(c.points)
    values = [{"run": run, "k": k, "mean": v} for run, points in c.points.items() for k, v in points.items()
              if not math.isnan(v)]
    chart = alt.Chart(DATA).mark_line(point=len(values) <= 60 * len(runs)).encode(
        x=alt.X("k:Q", title="cutoff k", scale=alt.Scale(type="log") if log_x else alt.Undefined),
        y=alt.Y("mean:Q", title=f"mean {title}", scale=alt.Scale(domain=[0, 1])),
        color=_run_colour(runs),
        tooltip=[alt.Tooltip("run:N"), alt.Tooltip("k:Q"), alt.Tooltip("mean:Q", format=".4f")],
    )
    return _spec(chart.properties(width=WIDTH, height=260, title=f"{title} at cutoffs 1..{max(_ks(c))}"), values)


def matrix(m: SignificanceMatrix, alpha: float, title: str) -> dict:
    """Adjusted p-value of every pair of runs as a heat map; darker is smaller, ``*`` marks p <= ``alpha``."""
    values = [{"row": a, "column": b, "p": p, "label": f"{p:.4f}" + ("*" if p <= alpha else "")}
              for i, a in enumerate(m.runs) for j, (b, p) in enumerate(zip(m.runs, m.p_values[i])) if i != j]
    base = alt.Chart(DATA).encode(
        x=alt.X("column:N", sort=list(m.runs), title=None, axis=alt.Axis(labelAngle=0, orient="top")),
        y=alt.Y("row:N", sort=list(m.runs), title=None),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("p:Q", scale=alt.Scale(domain=[0, 1], scheme="blues", reverse=True), title="p"),
        tooltip=[alt.Tooltip("row:N"), alt.Tooltip("column:N"), alt.Tooltip("p:Q", format=".4f")],
    )
    text = base.mark_text(fontSize=12).encode(
        text="label:N", color=alt.when(alt.datum.p < 0.4).then(alt.value("white")).otherwise(alt.value("black")),
    )
    size = max(48, min(90, 480 // max(len(m.runs), 1)))
    return _spec(alt.layer(cells, text).properties(width=alt.Step(size), height=alt.Step(size // 2 + 10),
                                                   title=title), values)


def settled(s: Settlement, title: str) -> dict:
    """Each pair's mean difference now (a dot) and its exact joint range (a bar), beside a rule at 0.

    A bar that does not cross the rule is a settled pair: no grade of the unjudged documents changes its sign.
    """
    values = [{"pair": f"{p.a} - {p.b}", "now": p.difference, "min": p.minimum, "max": p.maximum,
               "status": "open" if p.sign is None else "settled"} for p in s.pairs if not math.isnan(p.difference)]
    order = [f"{p.a} - {p.b}" for p in s.pairs if not math.isnan(p.difference)]
    colour = alt.Color("status:N", scale=alt.Scale(domain=["settled", "open"], range=["#2166ac", "#d6604d"]),
                       title=None)
    tooltip = [alt.Tooltip("pair:N"), alt.Tooltip("status:N"), alt.Tooltip("now:Q", format="+.4f"),
               alt.Tooltip("min:Q", format="+.4f"), alt.Tooltip("max:Q", format="+.4f")]
    base = alt.Chart(DATA).encode(y=alt.Y("pair:N", sort=order, title=None))
    ranges = base.mark_rule(strokeWidth=6, opacity=0.6).encode(
        x=alt.X("min:Q", title="mean difference, first minus second"), x2="max:Q", color=colour, tooltip=tooltip)
    now = base.mark_point(filled=True, size=60, color="black").encode(x="now:Q", tooltip=tooltip)
    zero = alt.Chart(DATA).mark_rule(color="#5b6475", strokeDash=[4, 3]).encode(x=alt.datum(0))
    return _spec(alt.layer(ranges, now, zero).properties(width=WIDTH, height=alt.Step(28), title=title), values)


def _ks(c: Curve) -> list[int]:
    return [k for points in c.points.values() for k in points] or [1]


def _key(result: Result, measure: str):
    return next(m for m in result.measures if str(m) == measure)


def short_name(measure: str) -> str:
    """A measure without its conventions, for titles (the full form is in the table and the provenance).

    >>> short_name("nDCG(gain=exp,ideal=judged)@10"), short_name("R(rel=2)"), short_name("P@5")
    ('nDCG@10', 'R', 'P@5')
    """
    name, _, rest = measure.partition("(")
    return name + (measure[measure.rindex("@"):] if "@" in measure else "") if rest else measure
