"""The report's "Settled by the judgments" section: settle's pairs, bounds and stopping rule, in the page."""

from __future__ import annotations

import json
import math
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_inputs import EXAMPLES, RUNS
from test_report_page import Page

import judged
from judged.analysis.settle import settle
from judged.cli import main

QUICK = {"permutations": 99, "resamples": 99}


def _section(html: str) -> str:
    start = html.index('<section id="settled">')
    return html[start:html.index("</section>", start)]


def _provenance(html: str) -> dict:
    return json.loads(unescape(html.split('<pre class="provenance">', 1)[1].split("</pre>", 1)[0]))


def _rows(html: str) -> list[list[str]]:
    """The cells of the pairs table, row by row (9 cells a row)."""
    cells = Page(_section(html)).cells
    table = _section(html).split('<table class="settle-pairs">', 1)[1].split("</table>", 1)[0]
    count = table.count("<tr class=")
    return [cells[9 * i:9 * i + 9] for i in range(count)]


@pytest.fixture(scope="module")
def small() -> str:
    """Three runs, two queries; only u (q1) is unjudged and pooled (top 2 of A and B).

    q1: A ranks a (grade 1), u; B ranks u, a; C ranks x, y (both grade 0). q2: every run ranks z (grade 1)
    first, nDCG 1 for all. nDCG@2, linear gain, discount 1/log2(r + 1): rank 2 is 1/log2 3 = 0.6309.
    """
    qrels = {"q1": {"a": 1, "x": 0, "y": 0}, "q2": {"z": 1}}
    runs = [judged.Run.from_dict({"q1": {"a": 2.0, "u": 1.0}, "q2": {"z": 1.0}}, name="A"),
            judged.Run.from_dict({"q1": {"u": 2.0, "a": 1.0}, "q2": {"z": 1.0}}, name="B"),
            judged.Run.from_dict({"q1": {"x": 2.0, "y": 1.0}, "q2": {"z": 1.0}}, name="C")]
    return judged.report(runs, qrels, ["nDCG@2", "AP@2"], **QUICK)


def test_an_open_and_a_settled_pair_worked_by_hand(small):
    # u = 0: A's q1 is 1 / 1 = 1, B's 0.6309 / 1; u = 1: both (1 + 0.6309) / (1 + 0.6309) = 1. So A - B on q1 lies
    # in [0, 0.3691] and the mean over q1 and q2 (difference 0) in [0, 0.1845]: it can tie, so it is open.
    # C scores 0 on q1 whatever u is (u is not in its top 2, the ideal is at least a's 1), so A - C = (1 + 0) / 2 =
    # 0.5 and B - C lies in [0.6309 / 2, 1 / 2] = [0.3155, 0.5]: both settled, C behind.
    assert _rows(small) == [
        ["A", "B", "+0.1845", "+0.0000", "+0.1845", "open", "1 of 2", "no significant difference",
         "estimate: none of 202 assignments changes it; not proved"],
        ["A", "C", "+0.5000", "+0.5000", "+0.5000", "first ahead (settled)", "0 of 2", "no significant difference",
         "cannot change: proved over every difference inside the bounds"],
        ["B", "C", "+0.3155", "+0.3155", "+0.5000", "first ahead (settled)", "1 of 2", "no significant difference",
         "cannot change: proved over every difference inside the bounds"],
    ]
    section = _section(small)
    assert '<tr class="open"><td>A</td><td class="text">B</td>' in section
    assert '<tr class="settled"><td>A</td><td class="text">C</td>' in section
    # one pooled document unjudged (u), and it can still move A - B's bound
    assert ("Stopping rule: not yet: 2 of 3 pairs settled on "
            "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@2; 1 pooled documents unjudged, "
            "1 of which can still move an open pair&#39;s bound.") in section
    assert "1 documents in some run&#39;s top k without a judgment may take grades 0..1" in section
    # each run's mean: A 1 always, B (0.6309 + 1) / 2 = 0.8155 up to 1, C 0.5
    runs = Page(section.split('<table class="settle-runs">', 1)[1]).cells
    assert runs == ["A", "1.0000", "1.0000", "1.0000", "B", "0.8155", "0.8155", "1.0000", "C", "0.5000", "0.5000",
                    "0.5000"]


def test_a_measure_settle_refuses_says_why_in_one_line(small):
    section = _section(small)
    assert section.count('class="note refused"') == 1
    line = section.split('<p class="note refused">', 1)[1].split("</p>", 1)[0]
    assert line.startswith("Not settled: settle has exact joint bounds for nDCG, R, DCG, P, RBP, SDCG, INSQ, RR, "
                           "Success, Rprec only, not for AP: ")
    assert line.endswith("Got AP(rel=1,unjudged=zero,ties=trec,norel=0)@2.")


def test_the_chart_holds_every_pair_with_its_range(small):
    chart = next(s for s in Page(small).specs() if s.get("title", "").startswith("nDCG@2: joint range"))
    values = chart["datasets"]["values"]
    assert [(v["pair"], v["status"]) for v in values] == [("A - B", "open"), ("A - C", "settled"),
                                                          ("B - C", "settled")]
    b_c = values[2]
    assert b_c["min"] == pytest.approx(1 / math.log2(3) / 2) and b_c["max"] == pytest.approx(0.5)


def test_the_example_report_shows_settle_on_its_judgments(example_report: Path):
    html = example_report.read_text(encoding="utf-8")
    s = settle(RUNS, EXAMPLES / "qrels.txt", "nDCG@10", seed=3)
    rows = _rows(html)
    assert [(r[0], r[1], r[3], r[4], r[5]) for r in rows] == [
        (p.a, p.b, f"{p.minimum:+.4f}", f"{p.maximum:+.4f}", "open" if p.sign is None else r[5])
        for p, r in zip(s.pairs, rows)]
    # on the bundled judgments dense > bm25 is settled; bm25 - naive and dense - naive are open
    assert [r[5] for r in rows] == ["first behind (settled)", "open", "open"]
    assert rows[0][3:5] == ["-0.1690", "-0.0508"] and rows[1][3:5] == ["-0.1841", "+0.0991"]
    assert f"Stopping rule: {s.stopping.statement}.".replace("'", "&#39;") in _section(html)
    assert "Not settled" not in _section(html)  # R@100 settles too
    settled = _provenance(html)["report"]["settled"]
    assert settled["nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"] == {
        "measure": "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10", "pool": "top_k",
        "grades": [0, 1, 2, 3], "alpha": 0.05, "queries": 15, "test": "paired t-test, two-sided, uncorrected",
        "seed": 3}
    recall = "R(rel=1,unjudged=zero,ties=trec,norel=0)@100"
    assert settled[recall]["measure"] == recall


def test_the_pool_can_be_a_pool_file_or_the_section_left_out(tmp_path):
    out = tmp_path / "report.html"
    args = ["report", *map(str, RUNS), "--qrels", str(EXAMPLES / "qrels.txt"), "--permutations", "99",
            "--resamples", "99", "-o", str(out)]
    assert CliRunner().invoke(main, args + ["--no-settle"]).exit_code == 0
    text = out.read_text()
    assert 'id="settled"' not in text and 'href="#settled"' not in text
    assert _provenance(text)["report"]["settled"] == {}
    # the example's own pool leaves 17 documents unjudged, and none of them can change an order (docs/settle.md)
    result = CliRunner().invoke(main, args + ["--settle-pool", str(EXAMPLES / "pool.tsv")])
    assert result.exit_code == 0, result.output
    section = _section(out.read_text())
    assert 'href="#settled"' in out.read_text() and "17 documents of the given pool without a judgment" in section
    assert [r[5] for r in _rows(out.read_text())] == ["first behind (settled)", "first ahead (settled)",
                                                      "first ahead (settled)"]
    assert "The order dense &gt; bm25 &gt; naive is settled." in section
    assert '<p class="stopping fires">Stopping rule: every pairwise order among these 3 runs' in section

