"""Render :class:`~judged.report.model.ReportData` as one self-contained HTML page.

The page is a Jinja2 template (``templates/report.html.j2``, package data)
with autoescaping on, so every run name, query id and docid is escaped. Each
chart is a Vega-Lite spec in a ``<script type="application/json">`` block
(Jinja's ``tojson`` escapes ``<``, ``>``, ``&`` and ``'`` there), and the
vega, vega-lite and vega-embed JavaScript is inlined once, taken from
``vl_convert``, so the page makes no network request.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass

import jinja2

from judged.analysis.settle import PairBound
from judged.render.compare import (
    columns,
    footnote,
    matrix_cells,
    matrix_title,
    row_cells,
)
from judged.render.settle import CONCLUSION, sign_label
from judged.report import charts
from judged.report.model import ReportData

#: Where the documents that may take a grade come from, for each pool of :func:`judged.analysis.settle.settle`.
POOL_WORDS = {"top_k": "in some run's top k", "retrieved": "that some run retrieved", "given": "of the given pool"}

#: Charts with more data points than this draw on a canvas: an SVG element per point would slow the page down.
SVG_POINTS = 5_000


@dataclass(frozen=True)
class Chart:
    """A chart placed on the page: its element id, Vega-Lite spec, how to read it, and the renderer to use."""

    id: str
    spec: dict
    caption: str

    @property
    def renderer(self) -> str:
        """``svg`` (crisp, printable) unless the chart has more than :data:`SVG_POINTS` points."""
        return "svg" if len(self.spec["datasets"][charts.DATA.name]) <= SVG_POINTS else "canvas"


def render(data: ReportData) -> str:
    """The report as an HTML document (a string)."""
    env = _environment()
    return env.get_template("report.html.j2").render(
        data=data,
        charts=_charts(data),
        table=lambda m: (columns(data.comparison), [row_cells(row, data.comparison) for row in m.runs]),
        footnote=footnote(data.comparison),
        matrix_title=matrix_title,
        matrix_cells=lambda m: matrix_cells(m, data.comparison.alpha),
        judged_at=_judged_at(data),
        pair_cells=pair_cells,
        pool_words=POOL_WORDS,
        provenance=json.dumps(data.provenance, indent=2, sort_keys=True, default=str),
        javascript=javascript(),
    )


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("judged.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "allow_nan": False}
    env.filters["num"] = _number
    return env


def _number(value, spec: str = ".4f") -> str:
    """``value`` formatted with ``spec``; ``n/a`` for None and NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return format(value, spec)


def _charts(data: ReportData) -> dict[str, list[Chart]]:
    """Every chart of the page by section, with ids numbered in page order."""
    counter = iter(range(1, 10_000))

    def chart(spec: dict, caption: str) -> Chart:
        return Chart(f"chart-{next(counter)}", spec, caption)

    alpha = data.comparison.alpha
    measures = [s.comparison for s in data.sections]
    return {
        "distribution": [chart(charts.distribution(data.results, m.measure),
                               f"{m.measure}: one tick per query; the box spans the quartiles, its line is the median, "
                               "the whiskers reach the lowest and highest query.") for m in measures],
        "difference": [chart(charts.differences(data.results, m.baseline, m.measure),
                             f"{m.measure}: one bar per query shared with {m.baseline}, from the largest loss (left) "
                             "to the largest gain (right). Many small bars on both sides mean noise; a few tall bars "
                             "mean a handful of queries carry the mean.") for m in measures],
        "curve": [chart(charts.curve(c, c.measure.partition("(")[0], log_x=c.measure.startswith("R")),
                        f"{c.measure}: the mean at every cutoff. Lines that cross mean the ranking of the runs "
                        "depends on the cutoff.") for c in data.curves],
        "judged": [chart(charts.curve(data.judged, "Judged"),
                         "The share of each run's top k that has a judgment. Where it drops, the scores above rest on "
                         "unjudged documents counted as non-relevant.")],
        "matrix": [chart(charts.matrix(m.matrix, alpha, f"{charts.short_name(m.measure)}: {matrix_title(m.matrix)}"),
                         f"{m.measure}: adjusted p-value of every pair of runs; * marks p <= {alpha}.")
                   for m in measures if m.matrix is not None],
        "settled": [chart(charts.settled(section.settlement, f"{charts.short_name(section.measure)}: joint range of "
                                                             "each pair's mean difference"),
                          f"{section.measure}: each bar spans the least and the greatest mean difference over every "
                          f"grade the unjudged documents {POOL_WORDS[section.settlement.pool]} could have (one grade "
                          "for both runs); the dot is the difference with unjudged as 0. A bar that does not cross 0 "
                          "is settled.")
                    for section in data.settled if section.settlement is not None],
    }


def pair_cells(p: PairBound) -> list[str]:
    """One pair's row of the settled section: runs, difference now, its joint range, status, queries, t-test.

    The queries column counts the queries whose difference can still move (its range is not a point).
    """
    moving = int((p.high > p.low).sum())
    test = ["n/a", "fewer than 2 queries"] if p.test is None else [CONCLUSION[p.test.conclusion],
                                                                   f"{p.test.state}: {p.test.how}"]
    return [p.a, p.b, _number(p.difference, "+.4f"), _number(p.minimum, "+.4f"), _number(p.maximum, "+.4f"),
            sign_label(p), f"{moving} of {len(p.low)}", *test]


def _judged_at(data: ReportData) -> tuple[list[int], list[tuple[str, list[float]]]]:
    """Judged@k for each run at the cutoffs of the measures (those the curve reaches), as table rows."""
    wanted = sorted({int(m.rpartition("@")[2]) for m in (s.comparison.measure for s in data.sections) if "@" in m})
    reached = next(iter(data.judged.points.values()))
    ks = [k for k in wanted if k in reached] or sorted(reached)[:1]
    return ks, [(run, [points[k] for k in ks]) for run, points in data.judged.points.items()]


@functools.cache
def javascript() -> str:
    """The vega, vega-lite and vega-embed bundle from ``vl_convert``, safe to place inside ``<script>``.

    Built for the Vega-Lite version altair writes (when vl_convert has it).
    A ``</script`` inside the bundle would end the element early; it can only
    sit in a string or a regular expression, where ``<\\/script`` means the
    same, so it is rewritten.
    """
    import altair as alt
    import vl_convert

    version = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    # vl_convert's stub marks ``snippet`` required; at run time it is optional and the bundle is the libraries alone
    bundle = vl_convert.javascript_bundle(  # type: ignore[call-arg]
        vl_version=version if version in vl_convert.get_vegalite_versions() else None)
    return re.sub(r"</(?=script)", r"<\\/", bundle, flags=re.IGNORECASE)
