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


def test_the_page_shows_next_the_pair_the_re_ranked_order_puts_first(served, browser):
    from playwright.sync_api import expect

    base, db = served
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/grade")
    page.fill("#name", "alice")
    page.fill("#password", PASSWORDS["alice"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/grade")
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
    assert errors == []
    context.close()
