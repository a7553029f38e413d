"""`judged report`: every section present, self-contained, escaped, deterministic, links that resolve."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_inputs import EXAMPLES, RUNS, SETTINGS

import judged
from judged.cli import main
from judged.render.compare import row_cells
from judged.report.model import curve_cutoffs
from judged.report.page import javascript
from judged.stats.compare import compare

SECTIONS = ("summary", "distributions", "differences", "curves", "judged", "significance", "settled", "queries",
            "explain", "provenance")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


class Page(HTMLParser):
    """Every element with its attributes, the raw text of every script, and the text of every table cell."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self.cells: list[str] = []
        self._script: dict | None = None
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._script is not None:
            self.scripts.append((self._script, data))
            self._script = None
        elif self._cell is not None:
            self._cell.append(data)

    def ids(self) -> set[str]:
        return {attrs["id"] for _, attrs in self.elements if "id" in attrs}

    def specs(self) -> list[dict]:
        return [json.loads(text) for attrs, text in self.scripts if attrs.get("type") == "application/json"]


@pytest.fixture(scope="module")
def html(example_report: Path) -> str:
    return example_report.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(html: str) -> Page:
    return Page(html)


def test_every_section_and_chart_is_present(page):
    assert set(SECTIONS) <= page.ids()
    charts = [attrs for tag, attrs in page.elements if attrs.get("class") == "vega"]
    # Per measure (2): distribution, differences, matrix; then nDCG and R curves and Judged@k; then the settled
    # pairs of each measure (settle bounds nDCG@10 and R@100 alike).
    assert len(charts) == 11
    specs = {attrs["id"]: json.loads(text) for attrs, text in page.scripts if attrs.get("type") == "application/json"}
    for chart in charts:
        spec = specs[chart["data-spec"]]
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")


def test_nothing_is_loaded_from_anywhere(page, html):
    for tag, attrs in page.elements:
        assert "src" not in attrs, (tag, attrs)  # every script is inline, there is no image or frame
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        assert attrs.get("href", "#").startswith("#"), attrs  # only links within the page
    for spec in page.specs():
        text = json.dumps(spec)
        assert '"url"' not in text  # chart data is inline
    for match in re.finditer(r"""(?:src|href|url)\s*=\s*["']?(https?:)""", html):
        pytest.fail(f"network reference at {match.start()}: {html[match.start():match.start() + 80]}")


def test_the_charting_javascript_is_inlined_once(page, html):
    bundle = javascript()
    assert html.count(bundle) == 1 and html.count("window.vegaEmbed=") == 1
    inline = [text for attrs, text in page.scripts if not attrs]
    assert len(inline) == 2 and bundle in inline[0] and "vegaEmbed(element" in inline[1]


def test_summary_table_is_the_compare_table(page):
    results = [judged.evaluate(run, EXAMPLES / "qrels.txt", ["nDCG@10", "R@100"]) for run in RUNS]
    c = compare(results, baseline="bm25", permutations=SETTINGS["permutations"], resamples=SETTINGS["resamples"],
                seed=SETTINGS["seed"], worst=10)
    expected = [cell for m in c.measures for row in m.runs for cell in row_cells(row, c)]
    assert page.cells[:len(expected)] == expected


def test_every_anchor_link_resolves_and_every_explained_query_is_linked(page):
    ids = page.ids()
    targets = [attrs["href"][1:] for _, attrs in page.elements if "href" in attrs]
    assert targets and all(t in ids for t in targets)
    explained = {attrs["id"] for tag, attrs in page.elements if tag == "article"}
    assert explained == {t for t in targets if t.startswith("explain-")}


def test_explained_queries_are_the_worst_and_most_changed(html):
    # worst=3. bm25 (baseline): its worst (nDCG q15 q03 q02; R q15 q01 q02) and every query another run
    # lost or gained most on (nDCG dense -q07 +q03 +q02 +q01, naive -q03 -q06 -q01 +q02 +q09; R dense -q12 -q01,
    # naive -q07 -q11 -q14). dense: worst q15 q14 q09 / q15 q12 q01 and its changes; naive likewise.
    expected = {
        "bm25": {"q15", "q03", "q02", "q01", "q07", "q06", "q09", "q12", "q11", "q14"},
        "dense": {"q15", "q14", "q09", "q07", "q03", "q02", "q01", "q12"},
        "naive": {"q15", "q03", "q01", "q06", "q02", "q09", "q07", "q11", "q14"},
    }
    shown = re.findall(r'<article class="explain" id="explain-\d+">\s*<h3>(\w+) &middot; (\w+)</h3>', html)
    assert len(shown) == 27 and {(r, q) for r, q in shown} == {(r, q) for r, qs in expected.items() for q in qs}


def test_explain_view_of_a_worst_query_shows_grades_and_unjudged_marks(html):
    # bm25 q03 is among bm25's worst (nDCG@10 0.6291); rank 6, cli/env-command, has no judgment.
    e = judged.explain(RUNS[0], EXAMPLES / "qrels.txt", "q03", "nDCG@10")
    start = html.index("<h3>bm25 &middot; q03</h3>")
    section = html[start:html.index("</article>", start)]
    assert f"= {e.value:.4f}" in section and "= 0.6291" in section
    for step in e.ranking:
        grade = '<span class="unjudged">unjudged</span>' if step.grade is None else str(step.grade)
        assert (f'<td>{step.rank}</td><td class="docid">{step.docid}</td><td>{step.score:g}</td><td>{grade}</td>'
                f'<td>{step.gain:g}</td>') in section
    assert section.count("unjudged</span>") == 1 and '<td class="docid">cli/env-command</td>' in section


def test_provenance_is_complete(page, html):
    record = json.loads(unescape(html.split('<pre class="provenance">', 1)[1].split("</pre>", 1)[0]))
    assert record["report"]["statistics"] == {"alpha": 0.05, "correction": "holm", "permutations": 500,
                                              "resamples": 500, "seed": 3,
                                              "matrix": "paired randomization tests, holm over all pairs"}
    assert sorted(record["runs"]) == ["bm25", "dense", "naive"]
    for run in record["runs"].values():
        assert len(run["run"]["sha256"]) == 64 and run["qrels"]["path"].endswith("qrels.txt")
        assert run["measures"]["nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"]["cutoff"] == 10


def test_user_text_is_escaped_everywhere():
    evil = "<script>alert(1)</script>"
    qrels = {'q<1>&"': {evil: 2, "b": 1}, "q2": {"c": 1, "d": 2}}
    runs = [judged.Run.from_dict({'q<1>&"': {evil: 1.0, "b": 2.0}, "q2": {"c": 1.0, "x": 2.0}}, name="one<b>"),
            judged.Run.from_dict({'q<1>&"': {evil: 2.0, "b": 1.0}, "q2": {"d": 1.0, "c": 0.5}}, name="two")]
    text = judged.report(runs, qrels, ["nDCG@10"], permutations=99, resamples=99, title="<i>title</i>")
    assert evil not in text and "<b>" not in text and "<i>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "q&lt;1&gt;&amp;&#34;" in text
    assert "one&lt;b&gt;" in text and "&lt;i&gt;title&lt;/i&gt;" in text
    page = Page(text)
    # the bundle, the embedding script, and one spec per chart (3 per measure, 3 curves, 1 settled)
    assert sum(1 for tag, _ in page.elements if tag == "script") == 2 + 7
    assert evil in page.cells  # the docid still reads as itself
    values = json.dumps(page.specs())
    assert "one<b>" in values and 'q<1>&\\"' in values  # chart data keeps the text; JSON escaping made it inert


def test_same_seed_same_page_apart_from_the_timestamps(html):
    again = judged.report(RUNS, EXAMPLES / "qrels.txt", ["nDCG@10", "R@100"], baseline="bm25", **SETTINGS)
    assert TIMESTAMP.sub("T", again) == TIMESTAMP.sub("T", html)
    other = judged.report(RUNS, EXAMPLES / "qrels.txt", ["nDCG@10", "R@100"], baseline="bm25",
                          **{**SETTINGS, "seed": 4})
    assert TIMESTAMP.sub("T", other) != TIMESTAMP.sub("T", html)  # the seed reaches the numbers


def test_chart_data_matches_the_results(page):
    specs = page.specs()
    distribution = next(s for s in specs if s.get("title") == "Per-query nDCG@10 by run")
    values = distribution["datasets"]["values"]
    assert len(values) == 45 and {v["run"] for v in values} == {"bm25", "dense", "naive"}
    difference = next(s for s in specs if s.get("title") == "Per-query difference from bm25, nDCG@10")
    rows = [v for v in difference["datasets"]["values"] if v["run"] == "dense"]
    assert [r["position"] for r in rows] == list(range(1, 16))
    assert [r["difference"] for r in rows] == sorted(r["difference"] for r in rows)
    assert rows[-1]["qid"] == "q03" and rows[-1]["difference"] == pytest.approx(0.3709, abs=1e-4)


def test_significance_chart_shows_the_matrix(page):
    results = [judged.evaluate(run, EXAMPLES / "qrels.txt", ["nDCG@10"]) for run in RUNS]
    c = compare(results, permutations=SETTINGS["permutations"], resamples=99, seed=SETTINGS["seed"], matrix=True)
    chart = next(s for s in page.specs() if s.get("title", "").startswith("nDCG@10: pairwise p"))
    shown = {(v["row"], v["column"]): v["p"] for v in chart["datasets"]["values"]}
    m = c.measures[0].matrix
    assert shown == {(a, b): m.p_values[i][j] for i, a in enumerate(m.runs) for j, b in enumerate(m.runs) if i != j}
    assert chart["title"] == "nDCG@10: pairwise p, paired randomization tests, Holm over 3 pairs"


def test_a_query_the_run_did_not_answer_is_explained_as_such():
    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
    runs = [judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 1.0}}, name="one"),
            judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}, "q3": {"x": 1.0}}, name="two")]
    text = judged.report(runs, qrels, ["nDCG@5"], permutations=99, resamples=99, missing="zero")
    section = text[text.index("<h3>two &middot; q2</h3>"):]
    assert section[:section.index("</article>")].count("returned nothing for this query; it is scored 0") == 1
    skipped = judged.report(runs, qrels, ["nDCG@5"], permutations=99, resamples=99)
    assert "<h3>two &middot; q2</h3>" not in skipped  # under missing=skip q2 is not scored, so not listed


def test_curve_cutoffs_follow_the_runs_depth():
    assert curve_cutoffs("nDCG", 100) == list(range(1, 101)) and curve_cutoffs("nDCG", 7) == list(range(1, 8))
    assert curve_cutoffs("R", 1000) == list(range(1, 101)) + list(range(110, 1001, 10))
    assert curve_cutoffs("R", 250) == list(range(1, 101)) + list(range(110, 251, 10))


def test_runs_sharing_a_name_are_told_apart(tmp_path):
    copy = tmp_path / "copy.run"
    copy.write_text(RUNS[0].read_text())
    text = judged.report([RUNS[0], copy], EXAMPLES / "qrels.txt", permutations=99, resamples=99)
    assert f"bm25 ({RUNS[0]})" in text and f"bm25 ({copy})" in text
    with pytest.raises(judged.UsageError, match="baseline 'bm25' names 2 runs"):
        judged.report([RUNS[0], copy], EXAMPLES / "qrels.txt", baseline="bm25", permutations=99, resamples=99)
    chosen = judged.report([RUNS[0], copy], EXAMPLES / "qrels.txt", baseline=f"bm25 ({copy})", permutations=99,
                           resamples=99)
    assert f"baseline bm25 ({copy})" in chosen


def test_cli_writes_the_file_atomically_and_checks_its_options(tmp_path):
    out = tmp_path / "report.html"
    args = ["report", *map(str, RUNS[:2]), "--qrels", str(EXAMPLES / "qrels.txt"), "--permutations", "99",
            "--resamples", "99", "-o", str(out)]
    result = CliRunner().invoke(main, args + ["--tukey", "--title", "two runs"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    assert result.stdout == "" and result.stderr.endswith(f"wrote {out} ({out.stat().st_size:,} bytes)\n")
    text = out.read_text()
    assert "<title>two runs</title>" in text and "randomised Tukey HSD over all runs" in text
    refused = CliRunner().invoke(main, args + ["--tukey", "--correction", "bh"])
    assert refused.exit_code == 2 and "--tukey adjusts for every pair" in refused.output
    missing = CliRunner().invoke(main, ["report", str(RUNS[0]), "--qrels", str(EXAMPLES / "qrels.txt")])
    assert missing.exit_code == 2 and "Missing option '--output'" in missing.output
