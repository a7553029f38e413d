"""The report in headless Chromium: every chart drawn, no console error, no request, anchors that work.

Chromium comes from JUDGED_TEST_CHROMIUM (default /usr/bin/chromium, Debian's
package, installed by .ci/run). Without it the test is skipped locally and
fails under CI. A full-page screenshot is kept at test-artifacts/report.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def loaded(browser, example_report):
    """The report opened from its file, with every console error, page error and request it caused."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, requests = [], []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(example_report.as_uri())
    page.wait_for_selector("body[data-charts]", timeout=30_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    yield page, errors, requests, example_report
    page.close()


def test_every_chart_is_drawn(loaded):
    page = loaded[0]
    assert page.get_attribute("body", "data-charts") == "drawn"
    sizes = page.eval_on_selector_all(
        ".vega", """containers => containers.map(c => {
            const drawn = c.querySelector("svg, canvas");
            if (!drawn) return null;
            const box = drawn.getBoundingClientRect();
            return [c.id, box.width, box.height];
        })""")
    assert len(sizes) == 11  # 9 of compare and the curves, and the settled pairs of nDCG@10 and of R@100
    for entry in sizes:
        assert entry is not None and entry[1] > 50 and entry[2] > 50, entry
    count_marks = "svgs => svgs.map(s => s.querySelectorAll('path, rect, line').length)"
    marks = page.eval_on_selector_all(".vega svg", count_marks)
    assert all(count > 10 for count in marks), marks  # axes and marks, not an empty frame


def test_nothing_errors_and_nothing_is_fetched(loaded):
    _, errors, requests, path = loaded
    assert errors == []
    assert requests == [path.as_uri()]


def test_explain_links_lead_to_their_query(loaded):
    page = loaded[0]
    link = page.locator("table.worst a").first
    anchor, qid = link.get_attribute("href"), link.inner_text()
    link.click()
    assert page.evaluate("location.hash") == anchor
    target = page.locator(anchor)
    assert target.evaluate("element => element.matches(':target')")
    assert target.locator("h3").inner_text().endswith(qid)
    assert target.evaluate("element => element.getBoundingClientRect().top") < 50  # scrolled to the top
    broken = page.eval_on_selector_all(
        "a[href^='#']", "links => links.filter(a => !document.getElementById(a.hash.slice(1))).length")
    assert broken == 0


def test_screenshot_is_kept(loaded):
    shot = ARTIFACTS / "report.png"
    assert shot.stat().st_size > 50_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
