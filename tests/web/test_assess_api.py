"""The assessor's API and pages: queue, pair, grade, cannot-judge, undo, idempotent retries and every refusal."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from web_helpers import EVIL_DOCID, EVIL_TEXT, EVIL_TITLE


def _queue(session, qid=None):
    response = session.client.get("/api/queue", params={"qid": qid} if qid else None)
    assert response.status_code == 200
    return response.json()


def _grade(session, pair, grade=None, *, event_id=None, **extra):
    body = {"event_id": event_id or str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], **extra}
    if grade is not None:
        body["grade"] = grade
    return session.post_json("/api/judgments", body)


def _events(store, pair, assessor):
    return [e for e in store.history(pair["qid"], pair["docid"]) if e.assessor == assessor]


def test_queue_lists_own_pairs_in_presentation_order_without_run_information(alice, store):
    queue = _queue(alice)
    expected = store.queue("alice", pending_only=False)
    assert [(p["position"], p["qid"], p["docid"]) for p in queue["pairs"]] == \
        [(a.position, a.qid, a.docid) for a in expected]
    assert queue["total"] == len(expected) == 25 and queue["done"] == 0
    assert all(set(p) == {"position", "qid", "docid", "label", "ahead"} and not p["ahead"] for p in queue["pairs"])
    text = json.dumps(queue)
    assert not re.search(r"bm25|dense|planted|rank|score", text)


def test_queue_of_one_query_and_of_an_unknown_query(alice):
    q01 = _queue(alice, "q01")  # bm25 and dense agree on their top 2; plus the planted document
    assert {p["qid"] for p in q01["pairs"]} == {"q01"} and q01["total"] == 3
    missing = alice.client.get("/api/queue", params={"qid": "q99"})
    assert missing.status_code == 404
    assert missing.json() == {"error": {"code": "not_found", "message": "query 'q99' has no pairs in your queue"}}


def test_pair_shows_query_document_and_nothing_else(alice, store):
    first = _queue(alice)["pairs"][0]
    pair = alice.client.get(f"/api/pairs/{first['position']}").json()
    query, document = store.query(first["qid"]), store.document(first["docid"])
    assert pair == {
        "position": first["position"], "qid": first["qid"], "docid": first["docid"],
        "query": {"text": query.text, "description": query.description, "narrative": query.narrative},
        "document": {"title": document.title, "text": document.text, "url": document.url},
        "label": None,
    }


@pytest.mark.parametrize("position, status", [(999, 404), (0, 422), ("abc", 422)])
def test_pair_errors(alice, position, status):
    response = alice.client.get(f"/api/pairs/{position}")
    assert response.status_code == status
    assert set(response.json()["error"]) == {"code", "message"}


def test_a_grade_is_stored_and_becomes_the_label(alice, store):
    pair = _queue(alice)["pairs"][0]
    response = _grade(alice, pair, 2, note="covers the steps")
    assert response.status_code == 201
    stored = response.json()
    assert stored["stored"] == "now"
    assert stored["judgment"]["kind"] == "grade" and stored["judgment"]["grade"] == 2
    events = _events(store, pair, "alice")
    assert [(e.kind, e.grade, e.note, e.rubric) for e in events] == [("grade", 2, "covers the steps",
                                                                      "tidewater-docs@1")]
    assert alice.client.get(f"/api/pairs/{pair['position']}").json()["label"]["grade"] == 2
    assert _queue(alice)["done"] == 1


def test_a_retried_grade_is_stored_once(alice, store):
    pair = _queue(alice)["pairs"][0]
    event_id = str(uuid.uuid4())
    first = _grade(alice, pair, 3, event_id=event_id)
    again = _grade(alice, pair, 3, event_id=event_id)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["stored"] == "before"
    assert again.json()["judgment"] == first.json()["judgment"]
    assert len(_events(store, pair, "alice")) == 1


def test_reusing_an_event_id_for_another_grade_is_409(alice, store):
    pair = _queue(alice)["pairs"][0]
    event_id = str(uuid.uuid4())
    assert _grade(alice, pair, 3, event_id=event_id).status_code == 201
    clash = _grade(alice, pair, 1, event_id=event_id)
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "conflict"
    assert [e.grade for e in _events(store, pair, "alice")] == [3]


def test_a_regrade_is_a_new_event(alice, store):
    pair = _queue(alice)["pairs"][0]
    _grade(alice, pair, 1)
    _grade(alice, pair, 3)
    assert [e.grade for e in _events(store, pair, "alice")] == [1, 3]
    assert alice.client.get(f"/api/pairs/{pair['position']}").json()["label"]["grade"] == 3


def test_cannot_judge_records_the_reason(alice, store):
    pair = _queue(alice)["pairs"][1]
    response = _grade(alice, pair, cannot_judge="page is in Finnish", note="ask for a translator")
    assert response.status_code == 201
    assert [(e.kind, e.reason, e.note) for e in _events(store, pair, "alice")] == \
        [("cannot_judge", "page is in Finnish", "ask for a translator")]


@pytest.mark.parametrize("change, expected", [
    ({"grade": 7}, "grade 7 is not a level of the rubric"),
    ({"grade": True}, "grade"),
    ({"grade": "2"}, "grade"),
    ({"grade": 2, "cannot_judge": "both"}, "not both"),
    ({}, "either grade or cannot_judge"),
    ({"cannot_judge": "   "}, "needs a reason"),
    ({"grade": 2, "event_id": "not-a-uuid"}, "event_id"),
    ({"grade": 2, "rank": 3}, "rank"),
    ({"grade": 2, "qid": "has space"}, "qid"),
])
def test_invalid_grades_are_422_and_store_nothing(alice, store, change, expected):
    pair = _queue(alice)["pairs"][0]
    body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], **change}
    response = alice.post_json("/api/judgments", body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid" and expected in error["message"]
    assert store.history(pair["qid"], pair["docid"]) == []


def test_grading_a_pair_outside_the_queue_is_403(alice, bob):
    alice_only = {(p["qid"], p["docid"]) for p in _queue(alice)["pairs"]}
    bobs = next(p for p in _queue(bob)["pairs"] if (p["qid"], p["docid"]) not in alice_only)
    response = _grade(alice, bobs, 2)
    assert response.status_code == 403 and response.json()["error"]["code"] == "not_assigned"
    unknown = _grade(alice, {"qid": "q01", "docid": "no/such-doc"}, 2)
    assert unknown.status_code == 403


def test_grade_needs_the_csrf_token_and_this_origin(alice, store):
    pair = _queue(alice)["pairs"][0]
    body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], "grade": 2}
    missing = alice.client.post("/api/judgments", json=body)
    wrong = alice.client.post("/api/judgments", json=body, headers={"X-CSRF-Token": "A" * 43})
    foreign = alice.post_json("/api/judgments", body, headers={"Origin": "https://evil.example"})
    for response in (missing, wrong, foreign):
        assert response.status_code == 403 and response.json()["error"]["code"] == "csrf_failed"
    assert store.history(pair["qid"], pair["docid"]) == []
    same_origin = alice.post_json("/api/judgments", body, headers={"Origin": "http://testserver"})
    assert same_origin.status_code == 201


def test_a_token_of_another_session_is_refused(alice, bob):
    pair = _queue(alice)["pairs"][0]
    body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], "grade": 2}
    assert alice.client.post("/api/judgments", json=body, headers={"X-CSRF-Token": bob.csrf}).status_code == 403


def test_undo_withdraws_the_current_label_and_the_previous_returns(alice, store):
    pair = _queue(alice)["pairs"][0]
    _grade(alice, pair, 1)
    _grade(alice, pair, 3)
    body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"]}
    response = alice.post_json("/api/undo", body)
    assert response.status_code == 201
    answer = response.json()
    assert answer["undo"]["kind"] == "undo" and answer["label"]["grade"] == 1
    assert answer["position"] == pair["position"]
    retried = alice.post_json("/api/undo", body)
    assert retried.status_code == 200 and retried.json()["label"]["grade"] == 1
    assert [e.kind for e in _events(store, pair, "alice")] == ["grade", "grade", "undo"]
    assert alice.post_json("/api/undo", {**body, "event_id": str(uuid.uuid4())}).json()["label"] is None


def test_undo_refusals(alice, bob):
    pair = _queue(alice)["pairs"][0]
    nothing = alice.post_json("/api/undo", {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"]})
    assert nothing.status_code == 409 and nothing.json()["error"]["code"] == "nothing_to_undo"
    graded = _grade(alice, pair, 2).json()["judgment"]
    reused = alice.post_json("/api/undo", {"event_id": graded["event_id"], "qid": pair["qid"], "docid": pair["docid"]})
    assert reused.status_code == 409
    alice_only = {(p["qid"], p["docid"]) for p in _queue(alice)["pairs"]}
    bobs = next(p for p in _queue(bob)["pairs"] if (p["qid"], p["docid"]) not in alice_only)
    assert alice.post_json("/api/undo", {"event_id": str(uuid.uuid4()), "qid": bobs["qid"],
                                         "docid": bobs["docid"]}).status_code == 403
    assert alice.client.post("/api/undo", json={"event_id": str(uuid.uuid4()), "qid": pair["qid"],
                                                "docid": pair["docid"]}).status_code == 403
    assert alice.post_json("/api/undo", {"qid": pair["qid"]}).status_code == 422


def test_an_assessor_never_sees_another_assessors_grade_on_the_overlap_set(alice, bob):
    shared = _queue(alice, "q01")["pairs"][0]
    assert _grade(alice, shared, 3, note="alice thinks it is perfect").status_code == 201
    bobs = next(p for p in _queue(bob, "q01")["pairs"] if p["docid"] == shared["docid"])
    assert bobs["label"] is None
    pair = bob.client.get(f"/api/pairs/{bobs['position']}")
    assert pair.json()["label"] is None
    for response in (pair, bob.client.get("/api/queue"), bob.client.get("/assess"), bob.client.get("/grade")):
        assert "alice" not in response.text


def test_the_planted_document_is_sent_as_data_never_as_markup(alice):
    evil = next(p for p in _queue(alice, "q01")["pairs"] if p["docid"] == EVIL_DOCID)
    response = alice.client.get(f"/api/pairs/{evil['position']}")
    assert response.headers["content-type"] == "application/json"
    assert response.json()["document"] == {"title": EVIL_TITLE, "text": EVIL_TEXT, "url": None}


def test_assess_page_lists_queries_with_progress(alice):
    pairs = _queue(alice, "q01")["pairs"]
    for pair, grade in zip(pairs[:2], (0, 2)):
        _grade(alice, pair, grade)
    page = alice.client.get("/assess")
    assert page.status_code == 200
    row = re.search(r'<tr data-qid="q01">(.*?)</tr>', page.text, re.S).group(1)
    assert "2 / 3" in row and 'href="/grade?qid=q01"' in row
    assert "2 of 25 pairs judged" in page.text


def test_grade_page_shows_every_rubric_level_with_its_description(alice, store):
    page = alice.client.get("/grade?qid=q01")
    assert page.status_code == 200
    rubric = store.rubric()
    buttons = re.findall(r'<button type="button" class="grade" data-grade="(\d)"', page.text)
    assert buttons == ["3", "2", "1", "0"]
    for level in rubric.levels:
        assert level.label in page.text
        assert " ".join(level.description.split()[:6]) in " ".join(page.text.split())
    assert 'data-qid="q01"' in page.text and '<script src="/static/grade.js" defer></script>' in page.text
    assert alice.client.get("/grade?qid=q99").status_code == 404


def test_grade_page_without_a_rubric_says_so(tmp_path):
    from fastapi.testclient import TestClient
    from web_helpers import CHEAP, login

    from judged.judgments import Store
    from judged.judgments.accounts import Accounts
    from judged.web import create_app

    with Store.open(f"sqlite:///{tmp_path / 'bare.db'}") as store:
        Accounts(store, hasher=CHEAP).add_user("alice", "assessor", "alice-password")
        client = TestClient(create_app(store, hasher=CHEAP))
        login(client, "alice")
        page = client.get("/grade")
        assert page.status_code == 200 and "The store has no rubric" in page.text
        assert client.get("/api/queue").json()["pairs"] == []
