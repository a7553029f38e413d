"""The web app in headless Chromium against a real ``judged serve`` (uvicorn) on a free loopback port.

An assessor logs in, grades a query's pairs with the keyboard, undoes one, sees progress, loses the
connection mid-grade and retries; a lead sees agreement, adjudicates the disagreements, freezes and
downloads qrels that ``judged eval`` then evaluates. The planted document's script and event-handler
HTML must show as text and never run. Chromium comes from JUDGED_TEST_CHROMIUM (default
/usr/bin/chromium): skipped locally without it, a failure under CI. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from web_helpers import EVIL_DOCID, EVIL_TEXT, EVIL_TITLE, EXAMPLES, PASSWORDS, load_bench

from judged.cli import main
from judged.judgments import Store

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def server(template_db, tmp_path_factory):
    """``judged serve`` in a subprocess over a copy of the example effort's store: (base URL, db path)."""
    db = tmp_path_factory.mktemp("served") / "judged.db"
    shutil.copy(template_db, db)
    with load_bench().serve(db) as base:
        yield base, db


@pytest.fixture
def page(browser):
    """A fresh browser context and page, with every console error and page error collected."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.errors = []
    opened.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: opened.errors.append(str(e)))
    yield opened
    context.close()


def _log_in(page, base: str, name: str, path: str) -> None:
    page.goto(f"{base}{path}")
    assert page.url.startswith(f"{base}/login?next=")
    page.fill("#name", name)
    page.fill("#password", PASSWORDS[name])
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{path}")


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"web-{name}.png"), full_page=True)


def _check_planted_document_is_inert(page) -> None:
    assert page.text_content("#doc-title") == EVIL_TITLE
    assert page.text_content("#doc-text") == EVIL_TEXT
    assert page.locator("#doc-title *, #doc-text *").count() == 0  # no element was made from the document
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_assessor_grades_a_query_with_the_keyboard_undoes_and_sees_progress(server, page):
    from playwright.sync_api import expect

    base, db = server
    _log_in(page, base, "alice", "/grade?qid=q01")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 judged")
    shown = []
    for key, done in (("3", 1), ("2", 2), ("1", 3)):
        expect(page.locator("#current-label")).to_have_text("Not judged yet.")
        shown.append(page.text_content("#doc-title"))
        if shown[-1] == EVIL_TITLE:
            _check_planted_document_is_inert(page)
            _shot(page, "grade-planted-document")
        page.keyboard.press(key)
        expect(page.locator("#progress-text")).to_have_text(f"{done} of 3 judged")
    expect(page.locator("#save-state")).to_have_text("Saved.")
    expect(page.locator("#done")).to_be_visible()
    assert EVIL_TITLE in shown
    page.keyboard.press("u")
    expect(page.locator("#progress-text")).to_have_text("2 of 3 judged")
    expect(page.locator("#save-state")).to_have_text("Undone.")
    expect(page.locator("#current-label")).to_have_text("Not judged yet.")
    assert page.text_content("#doc-title") == shown[-1]
    _shot(page, "grade-after-undo")
    with Store.open(str(db)) as store:
        labels = {(e.docid, e.grade) for e in store.current(assessors=["alice"]) if e.qid == "q01"}
        kinds = [e.kind for e in store.history("q01", _docid(store, shown[-1])) if e.assessor == "alice"]
    assert len(labels) == 2 and {g for _, g in labels} == {3, 2}
    assert kinds == ["grade", "undo"]
    page.goto(f"{base}/assess")
    expect(page.locator('tr[data-qid="q01"] .count')).to_have_text("2 / 3")
    _shot(page, "assess-progress")
    assert page.errors == []


def _docid(store, title: str) -> str:
    return next(a.docid for a in store.queue("alice", pending_only=False)
                if a.qid == "q01" and (store.document(a.docid).title or a.docid) == title)


def test_a_lost_connection_shows_the_grade_unsaved_and_a_retry_stores_it_once(server, page):
    from playwright.sync_api import expect

    base, db = server
    _log_in(page, base, "bob", "/grade?qid=q02")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 judged")
    page.context.set_offline(True)
    page.keyboard.press("2")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "unsaved")
    expect(page.locator("#save-state")).to_contain_text("NOT saved")
    expect(page.locator("#retry")).to_be_visible()
    expect(page.locator("#progress-text")).to_have_text("0 of 3 judged")
    page.keyboard.press("3")  # a second grade is refused while the first is unsaved
    expect(page.locator("#save-state")).to_contain_text("the previous grade is still waiting")
    _shot(page, "grade-unsaved")
    with Store.open(str(db)) as store:
        assert [e for e in store.current(assessors=["bob"]) if e.qid == "q02"] == []
    page.context.set_offline(False)
    page.keyboard.press("r")
    expect(page.locator("#save-state")).to_have_text("Saved.")
    expect(page.locator("#progress-text")).to_have_text("1 of 3 judged")
    expect(page.locator("#retry")).to_be_hidden()
    with Store.open(str(db)) as store:
        events = [e for pair in store.queue("bob", pending_only=False) if pair.qid == "q02"
                  for e in store.history(pair.qid, pair.docid) if e.assessor == "bob"]
    assert [(e.kind, e.grade) for e in events] == [("grade", 2)]  # sent twice (aborted, retried), stored once
    expect(page.locator("#current-label")).to_have_text("Not judged yet.")  # keys count once the next pair is shown
    page.context.set_offline(True)
    page.keyboard.press("0")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "unsaved")
    page.context.set_offline(False)
    page.on("dialog", lambda dialog: dialog.accept())  # "leave the page with an unsaved grade?"
    page.reload()
    expect(page.locator("#save-state")).to_have_text("Saved.")  # the kept grade is sent again on load
    expect(page.locator("#progress-text")).to_have_text("2 of 3 judged")
    with Store.open(str(db)) as store:
        grades = sorted(e.grade for e in store.current(assessors=["bob"]) if e.qid == "q02")
    assert grades == [0, 2]
    assert [m for m in page.errors if "ERR_INTERNET_DISCONNECTED" not in m] == []


def test_lead_sees_agreement_adjudicates_freezes_and_downloads_qrels_that_evaluate(server, page, tmp_path):
    from playwright.sync_api import expect

    base, db = server
    with Store.open(str(db)) as store:
        overlap = sorted((a.qid, a.docid) for a in store.queue("bob", pending_only=False) if a.overlap)
        for assessor, grades in (("alice", [3, 2, 0, 1, 2, 3]), ("bob", [3, 1, 0, 1, 0, 3])):
            for (qid, docid), grade in zip(overlap, grades):
                if (qid, docid) not in {(e.qid, e.docid) for e in store.current(assessors=[assessor])}:
                    store.record(qid, docid, assessor=assessor, grade=grade, note=f"{assessor} says {grade}",
                                 event_id=str(uuid.uuid4()))
        store.record("q01", EVIL_DOCID, assessor="bob", grade=0, note="<script>window.__pwned=4</script>")
        store.record("q01", EVIL_DOCID, assessor="alice", grade=3)
        graded = {e.qid for e in store.current(assessors=["alice", "bob"]) if e.grade is not None}
    _log_in(page, base, "lena", "/lead")
    page.click('a[href="/lead/efforts/default"]')
    expect(page.locator("#gate")).to_contain_text("alice and bob")
    expect(page.locator(".pair-agreement h3")).to_contain_text("pairs graded by both")
    assert page.locator("table.confusion").count() == 1
    _shot(page, "lead-effort")
    page.goto(f"{base}/lead/adjudicate?min_diff=1")
    evil = page.locator(f'section.disagreement[data-docid="{EVIL_DOCID}"]')
    expect(evil.locator("h3")).to_have_text(EVIL_TITLE)
    assert evil.locator(".doc-text").text_content() == EVIL_TEXT and evil.locator("h3 *, .doc-text *").count() == 0
    assert "<script>window.__pwned=4</script>" in evil.locator("table.labels").text_content()
    assert page.evaluate("typeof window.__pwned") == "undefined"
    _shot(page, "lead-adjudicate")
    while page.locator("section.disagreement").count():
        section = page.locator("section.disagreement").first
        section.locator('input[name="grade"][value="1"]').check()
        section.locator("textarea").fill("final: partly useful")
        section.locator("button[type=submit]").click()
        page.wait_for_load_state()
    expect(page.locator("#none")).to_be_visible()
    page.goto(f"{base}/lead")
    page.fill("#set-name", "web")
    page.click("#freeze-form button[type=submit]")
    page.wait_for_url(f"{base}/lead/sets/web@1")
    content_hash = page.text_content("#content-hash")
    with page.expect_download() as download:
        page.click("#download-qrels")
    qrels = tmp_path / "web.qrels"
    download.value.save_as(qrels)
    _shot(page, "lead-set")
    result = CliRunner().invoke(main, ["eval", str(EXAMPLES / "runs" / "bm25.run"), "--qrels", str(qrels),
                                       "-m", "nDCG@10", "-m", "R@10", "--format", "json"])
    assert result.exit_code == 0, result.output
    evaluated = json.loads(result.stdout)["results"][0]
    assert evaluated["provenance"]["qrels"]["sha256"] == content_hash
    assert evaluated["provenance"]["qrels"]["queries"] == len(graded)  # the queries graded so far, no others
    assert all(0 <= value <= 1 for value in evaluated["aggregate"].values())
    with Store.open(str(db)) as store:
        assert qrels.read_text() == store.export("web@1")[0]
    assert page.errors == []


def _route_once_applied(page, path: str, handler) -> None:
    """Route POSTs to ``path`` to ``handler``, returning once Chromium is seen applying the route.

    Chromium once let a request through right after ``page.route`` returned (a CI run of the
    lost-connection test): HEAD probes, answered by the route itself, show it is in force.
    """
    probes = []

    def route(request_route) -> None:
        if request_route.request.method == "HEAD":
            probes.append(request_route)
            request_route.fulfill(status=204)
        else:
            handler(request_route)

    page.route(f"**{path}", route)
    for _ in range(50):
        page.evaluate(f"fetch({path!r}, {{method: 'HEAD'}}).catch(() => null)")
        if probes:
            return
    raise AssertionError(f"the route for {path} never applied")


def test_a_grade_made_while_another_is_saving_is_reported_unsaved(server, page):
    # runs after the lead's test, as do the ones below: their grades would otherwise join the set it freezes
    from playwright.sync_api import expect

    base, db = server
    with Store.open(str(db)) as store:
        qid = next(a.qid for a in store.queue("alice", pending_only=False) if not a.overlap)
    _log_in(page, base, "alice", f"/grade?qid={qid}")
    expect(page.locator("#progress-text")).to_contain_text(" judged")
    held = []
    _route_once_applied(page, "/api/judgments", held.append)  # the first save hangs in flight
    page.keyboard.press("2")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saving")
    page.keyboard.press("3")
    expect(page.locator("#save-state")).to_contain_text("the previous grade is still waiting")
    held[0].continue_()
    page.unroute("**/api/judgments")
    expect(page.locator("#save-state")).to_contain_text("the one made while it was saving was NOT")
    with Store.open(str(db)) as store:
        assert [e.grade for e in store.current(assessors=["alice"]) if e.qid == qid] == [2]


def _bobs_unjudged_query(db) -> str:
    """One of bob's own (not overlap) queries on which he has no label yet."""
    with Store.open(str(db)) as store:
        judged = {e.qid for e in store.current(assessors=["bob"])}
        return min({a.qid for a in store.queue("bob", pending_only=False) if not a.overlap} - judged)


def _bobs_events(db, qid: str) -> list[tuple[str, int | None]]:
    with Store.open(str(db)) as store:
        return [(e.kind, e.grade) for pair in store.queue("bob", pending_only=False) if pair.qid == qid
                for e in store.history(pair.qid, pair.docid) if e.assessor == "bob"]


def test_after_a_click_enter_and_space_grade_nothing(server, page):
    from playwright.sync_api import expect

    base, db = server
    qid = _bobs_unjudged_query(db)
    _log_in(page, base, "bob", f"/grade?qid={qid}")
    expect(page.locator("#progress-text")).to_contain_text("0 of ")
    page.click('button.grade[data-grade="2"]')
    expect(page.locator("#save-state")).to_have_text("Saved.")
    expect(page.locator("#progress-text")).to_contain_text("1 of ")
    page.keyboard.press("Enter")
    page.keyboard.press(" ")
    page.wait_for_timeout(500)
    assert _bobs_events(db, qid) == [("grade", 2)]
    expect(page.locator("#progress-text")).to_contain_text("1 of ")
    assert page.evaluate("document.activeElement.id") == "pair"  # not the button just clicked
    assert page.errors == []


def test_two_login_tabs_both_log_in(server, page):
    base, _ = server
    other = page.context.new_page()
    page.goto(f"{base}/login")
    other.goto(f"{base}/login")
    for tab in (page, other):
        tab.fill("#name", "alice")
        tab.fill("#password", PASSWORDS["alice"])
        tab.click("button[type=submit]")
        tab.wait_for_url(f"{base}/assess")
    assert page.errors == []


def test_retry_after_a_new_login_in_another_tab_stores_the_grade_once(server, page):
    from playwright.sync_api import expect

    base, db = server
    qid = _bobs_unjudged_query(db)
    _log_in(page, base, "bob", f"/grade?qid={qid}")
    expect(page.locator("#progress-text")).to_contain_text("0 of ")
    other = page.context.new_page()
    other.goto(f"{base}/assess")
    other.click(".logout button[type=submit]")  # the session ends in the other tab
    other.wait_for_url(f"{base}/login")
    page.keyboard.press("1")
    expect(page.locator("#save-state")).to_contain_text("your session has ended")
    other.fill("#name", "bob")
    other.fill("#password", PASSWORDS["bob"])
    other.click("button[type=submit]")
    other.wait_for_url(f"{base}/assess")
    page.keyboard.press("r")  # this page's token is the old session's: it is renewed and the grade sent again
    expect(page.locator("#save-state")).to_have_text("Saved.")
    expect(page.locator("#progress-text")).to_contain_text("1 of ")
    assert _bobs_events(db, qid) == [("grade", 1)]
    assert [m for m in page.errors if "401" not in m and "403" not in m] == []
