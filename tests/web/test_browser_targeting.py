"""A targeted effort in headless Chromium against a real ``judged serve``: after each grade the page shows the pair
the re-ranked targeting order puts first, not the one that followed in the order it loaded.

Chromium comes from JUDGED_TEST_CHROMIUM, as for :mod:`test_browser` (skipped locally without it).
"""

from __future__ import annotations

import shutil

import pytest
from web_helpers import PASSWORDS, load_bench, target_effort, true_grades

from judged.judgments import Store

TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def served(template_db, tmp_path_factory):
    """``judged serve`` over a copy of the example effort's store with the ``targeted`` effort: (base URL, db)."""
    db = tmp_path_factory.mktemp("targeted") / "judged.db"
    shutil.copy(template_db, db)
    with Store.open(str(db)) as store:
        target_effort(store)
    with load_bench().serve(db) as base:
        yield base, db


def _order(db) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """alice's queue in the targeted order now, from the store alone, and the unlabelled pairs the target ranks."""
    with Store.open(str(db)) as store:
        held = [(p.qid, p.docid) for p in store.queue("alice", pending_only=False)]
        labelled = {(e.qid, e.docid) for e in store.current(assessors=["alice"])}
        ranked = [(q, d) for q, d, _ in store.target("targeted").ranking if (q, d) in set(held)]
    order = ranked + [pair for pair in held if pair not in set(ranked)]
    return [pair for pair in order if pair not in labelled], [pair for pair in ranked if pair not in labelled]


def _title(db, docid: str) -> str:
    with Store.open(str(db)) as store:
        document = store.document(docid)
    return document.title if document and document.title else docid


@pytest.fixture
def page(browser, served):
    """alice logged in on a fresh context's grading page, every console and page error collected."""
    base, _ = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.errors = []
    opened.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: opened.errors.append(str(e)))
    opened.goto(f"{base}/grade")
    opened.fill("#name", "alice")
    opened.fill("#password", PASSWORDS["alice"])
    opened.click("button[type=submit]")
    opened.wait_for_url(f"{base}/grade")
    yield opened
    context.close()


def test_the_page_shows_next_the_pair_the_re_ranked_order_puts_first(served, page):
    from playwright.sync_api import expect

    _, db = served
    grades = true_grades()
    pending, ranked = _order(db)
    total = len(pending)  # nothing is labelled yet
    shown = ranked[0]
    expect(page.locator("#doc-title")).to_have_text(_title(db, shown[1]))
    graded, changed = [], 0
    for _ in range(4):
        before = pending[pending.index(shown) + 1]  # next in the order before this grade: what a page keeping it shows
        grade = max(grades.get(shown, 0), 0)
        page.keyboard.press(str(grade))
        graded.append((shown, grade))
        expect(page.locator("#progress-text")).to_have_text(f"{len(graded)} of {total} judged")
        pending, ranked = _order(db)
        same = [pair for pair in ranked if pair[0] == shown[0]]
        shown = (same or ranked)[0]  # the query's batch while it lasts, then the re-ranked order's first
        expect(page.locator("#doc-title")).to_have_text(_title(db, shown[1]))
        expect(page.locator("#current-label")).to_have_text("Not judged yet.")
        changed += shown != before
    # grading re-ranked the queue: at least once the pair shown is not the one that came next before the grade
    assert changed >= 1
    with Store.open(str(db)) as store:
        stored = [(e.qid, e.docid, e.grade) for e in store.current(assessors=["alice"])]
    assert sorted(stored) == sorted((q, d, g) for (q, d), g in graded)  # each graded once, none other
    assert page.errors == []


def _asks_next(url: str) -> bool:
    return "/api/queue?" in url and "after=" in url


def _hold_next_queue(page) -> list:
    """Hold the page's queue requests that ask for the next pair (``after=``) until released; returns the held.

    Returns once Chromium is seen applying the route (HEAD probes answered by it), as test_browser does.
    """
    held, probes = [], []

    def route(request_route) -> None:
        if request_route.request.method == "HEAD":
            probes.append(request_route)
            request_route.fulfill(status=204)
        else:
            held.append(request_route)

    page.route(_asks_next, route)
    for _ in range(50):
        page.evaluate("fetch('/api/queue?after=1', {method: 'HEAD'}).catch(() => null)")
        if probes:
            return held
    raise AssertionError("the route for /api/queue?after= never applied")


def test_keys_wait_for_the_next_pair_and_an_undo_meanwhile_stays_on_the_pair(served, page):
    from playwright.sync_api import expect

    _, db = served
    _, ranked = _order(db)
    first = ranked[0]
    expect(page.locator("#doc-title")).to_have_text(_title(db, first[1]))
    held = _hold_next_queue(page)
    page.keyboard.press("1")
    expect(page.locator("#save-state")).to_have_text("Saved.")
    for _ in range(100):  # the page asks for the next pair, and the route holds the request
        if held:
            break
        page.wait_for_timeout(20)
    assert held
    page.keyboard.press("2")  # while the next pair is on its way: would grade the pair just graded
    page.keyboard.press("u")  # undo the grade before the next pair arrives
    expect(page.locator("#save-state")).to_have_text("Undone.")
    for request_route in held:
        request_route.continue_()
    page.unroute(_asks_next)
    expect(page.locator("#current-label")).to_have_text("Not judged yet.")
    page.wait_for_timeout(300)  # the held answer has come back: the page stays on the pair undone
    assert page.text_content("#doc-title") == _title(db, first[1])
    with Store.open(str(db)) as store:
        events = [(e.kind, e.grade) for e in store.history(*first) if e.assessor == "alice"]
    assert events == [("grade", 1), ("undo", None)]  # the 2 pressed meanwhile graded nothing
    assert page.errors == []
