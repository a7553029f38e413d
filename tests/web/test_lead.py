"""The lead's routes: dashboard, efforts, progress and agreement, adjudication, freezing and export, and refusals."""

from __future__ import annotations

import hashlib
import json
import re
import uuid

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sklearn.metrics import cohen_kappa_score
from web_helpers import CHEAP, EVIL_DOCID, EXAMPLES, login

from judged.cli import main
from judged.io import read_run
from judged.judgments.accounts import Accounts
from judged.judgments.worklist import Worklist
from judged.web import WebSettings, create_app

#: Grades alice and bob give the six overlap pairs (q01 and q02, by qid and docid): one differs by 1, one by 2.
ALICE = [3, 2, 0, 1, 2, 3]
BOB = [3, 1, 0, 1, 0, 3]


def _overlap(store):
    return sorted((a.qid, a.docid) for a in store.queue("alice", pending_only=False) if a.overlap)


def _grade_overlap(store, alice, bob):
    pairs = _overlap(store)
    for session, grades in ((alice, ALICE), (bob, BOB)):
        for (qid, docid), grade in zip(pairs, grades):
            body = {"event_id": str(uuid.uuid4()), "qid": qid, "docid": docid, "grade": grade,
                    "note": f"{qid} {docid} looks like a {grade}"}
            assert session.post_json("/api/judgments", body).status_code == 201
    return pairs


def test_dashboard_lists_efforts_users_pools_and_sets(lena):
    page = lena.client.get("/lead")
    assert page.status_code == 200
    assert '<tr data-pool="default">' in page.text
    assert re.search(r'<tr data-pool="default">.*?0 / 48', page.text, re.S)  # 25 for alice + 23 for bob
    for name in ("alice", "bob", "lena"):
        assert f'name="assessors" value="{name}"' in page.text
    assert "None yet." in page.text


@pytest.mark.parametrize("method, url", [
    ("GET", "/lead"), ("GET", "/lead/efforts/default"), ("GET", "/api/efforts/default"),
    ("GET", "/lead/adjudicate"), ("GET", "/lead/sets/x@1"), ("GET", "/lead/sets/x@1/qrels"),
    ("GET", "/lead/sets/x@1/sidecar"), ("POST", "/lead/efforts"), ("POST", "/lead/adjudications"),
    ("POST", "/lead/freeze"), ("POST", "/lead/targets"),
])
def test_an_assessor_gets_403_on_every_lead_route(alice, method, url):
    response = alice.client.request(method, url, data={"csrf_token": alice.csrf} if method == "POST" else None)
    assert response.status_code == 403
    assert response.json() == {"error": {"code": "forbidden", "message": "only a lead can do this"}}
    page = alice.client.request(method, url, headers={"Accept": "text/html"},
                                data={"csrf_token": alice.csrf} if method == "POST" else None)
    assert page.status_code == 403 and "only a lead can do this" in page.text


def test_a_second_effort_sharing_pairs_with_the_first_can_be_started(lena, store):
    first = {(a.qid, a.docid) for a in store.queue("alice", pending_only=False)}
    store.build_pool([read_run(EXAMPLES / "runs" / "bm25.run", name="bm25")], depth=1, pool="again")
    shared = {(q, d) for q, d, _ in store.pool("again").rows()} & first
    assert shared  # the new pool repeats pairs alice already holds
    response = lena.post_form("/lead/efforts", {"pool": "again", "assessors": ["alice", "bob"],
                                                "overlap_queries": "2", "seed": "1"})
    assert response.status_code == 303, response.text
    again = Worklist(store).assignments("again")
    assert {(a.qid, a.docid) for a in again} == {(q, d) for q, d, _ in store.pool("again").rows()}  # shared too
    queue = store.queue("alice", pending_only=False)  # a pair held twice is shown once
    assert len(queue) == len({(p.qid, p.docid) for p in queue})


def test_creating_an_effort_assigns_the_pool(lena, store):
    store.build_pool([read_run(EXAMPLES / "runs" / "naive.run", name="naive")], depth=1, pool="naive")
    accounts = Accounts(store, hasher=CHEAP)
    for name in ("carol", "dave"):
        accounts.add_user(name, "assessor", f"{name}-password")
    response = lena.post_form("/lead/efforts", {"pool": "naive", "assessors": ["carol", "dave"],
                                                "overlap_queries": "1", "seed": "7"})
    assert response.status_code == 303 and response.headers["location"] == "/lead/efforts/naive"
    carol, dave = (store.queue(name, pending_only=False) for name in ("carol", "dave"))
    assert store.pool("naive").height == 15  # one pair a query
    assert len(carol) + len(dave) == 16  # the overlap query's pair goes to both
    assert [(a.qid, a.overlap) for a in carol if a.overlap] == [("q07", True)]  # seed 7's sample of one query
    page = lena.client.get("/lead/efforts/naive")
    assert page.status_code == 200 and "Effort: pool naive" in page.text


@pytest.mark.parametrize("data, status, message", [
    ({"pool": "nope", "assessors": "alice"}, 404, "there is no pool 'nope'"),
    ({"pool": "default", "assessors": "mallory"}, 422, "no user named 'mallory'"),
    ({"assessors": "alice"}, 422, "pool is required"),
    ({"pool": "default", "assessors": "alice", "overlap_queries": "many"}, 422, "must be a number"),
    ({"pool": "default", "assessors": ["alice", "alice"]}, 422, "distinct assessors"),
    ({"pool": "default", "assessors": "alice", "overlap_queries": "1"}, 422, "two or more assessors"),
])
def test_effort_form_errors(lena, data, status, message):
    response = lena.post_form("/lead/efforts", data)
    assert response.status_code == status
    assert message in response.json()["error"]["message"]


def test_effort_form_needs_csrf(lena, store):
    response = lena.client.post("/lead/efforts", data={"pool": "default", "assessors": "alice"})
    assert response.status_code == 403 and response.json()["error"]["code"] == "csrf_failed"


def test_effort_progress_pace_and_agreement_match_the_agreement_module(lena, alice, bob, store):
    _grade_overlap(store, alice, bob)
    effort = lena.client.get("/api/efforts/default").json()
    assert (effort["pairs"], effort["assigned"], effort["done"]) == (42, 48, 12)
    by_name = {a["assessor"]: a for a in effort["assessors"]}
    assert by_name["alice"]["done"] == 6 and by_name["alice"]["assigned"] == 25
    assert by_name["bob"]["overlap_done"] == 6 and by_name["bob"]["overlap_assigned"] == 6
    assert by_name["alice"]["seconds_per_judgment"]["timed"] == 5  # six labels, five gaps
    q01 = next(q for q in effort["queries"] if q["qid"] == "q01")
    assert q01 == {"qid": "q01", "pairs": 3, "overlap": True, "done": {"alice": 3, "bob": 3}}
    agreed = effort["agreement"]
    assert agreed["overlap"] == 6 and agreed["assessors"] == ["alice", "bob"]
    pair = agreed["pairs"][0]
    kappas = {k["weights"]: k["value"] for k in pair["kappas"]}
    # linear: observed disagreement (1 + 2) / 3 / 6 = 18/108; expected from the marginals alice (1,1,2,2)/6 and
    # bob (2,2,0,2)/6 is 50/36 grade steps / 3 = 50/108; kappa = 1 - 18/50 = 0.64
    assert kappas["linear"] == pytest.approx(0.64)
    assert kappas["linear"] == pytest.approx(cohen_kappa_score(ALICE, BOB, labels=[0, 1, 2, 3], weights="linear"))
    assert kappas["quadratic"] == pytest.approx(
        cohen_kappa_score(ALICE, BOB, labels=[0, 1, 2, 3], weights="quadratic"))
    assert pair["raw"] == pytest.approx(4 / 6)
    assert pair["confusion"] == [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 2]]
    assert agreed["gate"]["passed"] is True  # 6 pairs (the test settings ask for 5) and 0.64 >= 0.6
    page = lena.client.get("/lead/efforts/default").text
    assert '<p class="verdict pass" id="gate">PASS: alice and bob agree well beyond chance' in page
    assert f'data-weights="linear">{kappas["linear"]:.3f}' in page
    assert "Confusion matrix: rows alice, columns bob" in page


def test_the_gate_fails_with_too_few_pairs_under_the_default_settings(store, alice, bob):
    _grade_overlap(store, alice, bob)
    lead = TestClient(create_app(store, WebSettings(resamples=0), hasher=CHEAP))
    login(lead, "lena")
    gate = lead.get("/api/efforts/default").json()["agreement"]["gate"]
    assert gate["passed"] is False and gate["min_pairs"] == 300
    assert "but only 6 pairs were graded by both, and the gate asks for 300" in gate["verdict"]
    assert '<p class="verdict fail" id="gate">FAIL' in lead.get("/lead/efforts/default").text


def test_effort_without_overlap_grades_explains_why_there_is_no_agreement(lena):
    effort = lena.client.get("/api/efforts/default").json()
    assert effort["agreement"] is None
    assert effort["agreement_note"] == "agreement needs grades from two assessors; none yet on this effort"
    assert "Agreement needs grades from two assessors" in lena.client.get("/lead/efforts/default").text
    assert lena.client.get("/api/efforts/nope").status_code == 404
    assert lena.client.get("/lead/efforts/nope").status_code == 404


def test_adjudication_queue_shows_both_grades_and_notes_side_by_side(lena, alice, bob, store):
    pairs = _grade_overlap(store, alice, bob)
    page = lena.client.get("/lead/adjudicate").text
    wide = pairs[4]  # alice 2, bob 0
    section = re.search(rf'<section class="disagreement" data-qid="{wide[0]}" data-docid="{re.escape(wide[1])}">'
                        r"(.*?)</section>", page, re.S).group(1)
    assert "<th>alice</th><th>bob</th>" in section
    assert '<td class="grade-cell">grade 2</td><td class="grade-cell">grade 0</td>' in section
    assert f"{wide[0]} {wide[1]} looks like a 2" in section and f"{wide[0]} {wide[1]} looks like a 0" in section
    assert page.count('<section class="disagreement"') == 1
    assert lena.client.get("/lead/adjudicate?min_diff=1").text.count('<section class="disagreement"') == 2
    assert lena.client.get("/lead/adjudicate?min_diff=0").status_code == 422


def test_documents_on_lead_pages_are_escaped(lena, alice, bob, store):
    evil = next(p for p in _overlap(store) if p[1] == EVIL_DOCID)
    for session, grade in ((alice, 3), (bob, 0)):
        session.post_json("/api/judgments", {"event_id": str(uuid.uuid4()), "qid": evil[0], "docid": evil[1],
                                             "grade": grade, "note": "<script>window.__note=1</script>"})
    page = lena.client.get("/lead/adjudicate").text
    assert "&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;Quarterly notes" in page
    assert "&lt;script&gt;window.__pwned=2&lt;/script&gt;" in page
    assert "&lt;script&gt;window.__note=1&lt;/script&gt;" in page
    assert "<script>window" not in page and "<img" not in page and 'onmouseover="' not in page


def test_adjudicating_records_the_final_grade_once(lena, alice, bob, store):
    pairs = _grade_overlap(store, alice, bob)
    qid, docid = pairs[4]
    form = {"qid": qid, "docid": docid, "grade": "1", "note": "the steps are there but incomplete",
            "event_id": str(uuid.uuid4()), "min_diff": "2"}
    first = lena.post_form("/lead/adjudications", form)
    assert first.status_code == 303 and first.headers["location"] == "/lead/adjudicate?min_diff=2"
    assert lena.post_form("/lead/adjudications", form).status_code == 303  # the form sent twice
    assert store.disagreements(min_diff=2) == []
    decided = store.disagreements(min_diff=2, pending_only=False)[0].adjudication
    assert (decided.adjudicator, decided.grade, decided.note) == ("lena", 1, "the steps are there but incomplete")
    assert "No pair waits for adjudication" in lena.client.get("/lead/adjudicate").text


@pytest.mark.parametrize("change, status, expected", [
    ({"grade": "9"}, 422, "grade 9 is not a level of the rubric"),
    ({"note": "  "}, 422, "needs a note"),
    ({"grade": "high"}, 422, "grade"),
    ({"event_id": "nope"}, 422, "event_id"),
])
def test_adjudication_errors(lena, change, status, expected):
    form = {"qid": "q01", "docid": "auth/api-keys-rotation", "grade": "1", "note": "why",
            "event_id": str(uuid.uuid4()), **change}
    response = lena.post_form("/lead/adjudications", form)
    assert response.status_code == status and expected in response.json()["error"]["message"]


def test_adjudication_needs_csrf(lena):
    form = {"qid": "q01", "docid": "auth/api-keys-rotation", "grade": "1", "note": "why",
            "event_id": str(uuid.uuid4())}
    assert lena.client.post("/lead/adjudications", data=form).status_code == 403


def test_freezing_refuses_open_disagreements_then_exports_qrels_that_evaluate(lena, alice, bob, store, tmp_path):
    pairs = _grade_overlap(store, alice, bob)
    refused = lena.post_form("/lead/freeze", {"name": "tidewater", "pool": "default"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "disagreements_open"
    assert "2 pair(s) have disagreeing grades" in refused.json()["error"]["message"]
    for (qid, docid), grade in ((pairs[1], 2), (pairs[4], 1)):
        lena.post_form("/lead/adjudications", {"qid": qid, "docid": docid, "grade": str(grade), "note": "decided",
                                               "event_id": str(uuid.uuid4())})
    frozen = lena.post_form("/lead/freeze", {"name": "tidewater", "pool": "default"})
    assert frozen.status_code == 303 and frozen.headers["location"] == "/lead/sets/tidewater@1"
    page = lena.client.get("/lead/sets/tidewater@1").text
    judgment_set = store.judgment_set("tidewater@1")
    assert judgment_set.counts == {"adjudicated": 2, "agreed": 4, "unjudged": 36}
    assert f'<code id="content-hash">{judgment_set.content_hash}</code>' in page
    download = lena.client.get("/lead/sets/tidewater%401/qrels")
    assert download.status_code == 200
    assert download.headers["content-disposition"] == 'attachment; filename="tidewater_1.qrels"'
    assert download.text == store.export("tidewater@1")[0]
    assert hashlib.sha256(download.content).hexdigest() == judgment_set.content_hash
    assert download.text.splitlines()[0] == f"{pairs[0][0]} 0 {pairs[0][1]} 3"
    sidecar = lena.client.get("/lead/sets/tidewater@1/sidecar")
    assert json.loads(sidecar.text)["judgment_set"]["id"] == "tidewater@1"
    qrels = tmp_path / "tidewater.qrels"
    qrels.write_bytes(download.content)
    result = CliRunner().invoke(main, ["eval", str(EXAMPLES / "runs" / "bm25.run"), "--qrels", str(qrels),
                                       "-m", "nDCG@10", "--format", "json"])
    assert result.exit_code == 0, result.output
    provenance = json.loads(result.stdout)["results"][0]["provenance"]
    assert provenance["qrels"]["sha256"] == judgment_set.content_hash and provenance["qrels"]["rows"] == 6
    assert "tidewater@1" in lena.client.get("/lead").text


def test_the_freeze_form_freezes_the_effort_and_nothing_else(lena, alice, bob, store):
    _grade_overlap(store, alice, bob)
    for (qid, docid), grade in ((_overlap(store)[1], 2), (_overlap(store)[4], 1)):
        store.adjudicate(qid, docid, grade, adjudicator="lena", note="decided")
    store.record("q09", "elsewhere/doc", assessor="alice", grade=3, note="a label outside the effort")
    store.record("q09", "elsewhere/doc", assessor="bob", grade=0)  # disagreeing, and not the effort's business
    assert lena.post_form("/lead/freeze", {"name": "effort", "pool": "default"}).status_code == 303
    frozen = store.judgment_set("effort@1")
    assert sum(frozen.counts.values()) == store.pool("default").height == 42 and frozen.policy["effort"] == "default"
    assert "elsewhere/doc" not in store.export("effort@1")[0]


@pytest.mark.parametrize("form, status, expected", [
    ({"name": "a@b", "pool": "default", "resolve": "min"}, 422, "cannot contain '@'"),
    ({"name": "x", "pool": "nope"}, 404, "there is no pool 'nope'"),
    ({"name": "x", "pool": "default", "resolve": "coin"}, 422, "resolve must be one of"),
    ({"pool": "default"}, 422, "name"),
])
def test_freeze_errors(lena, form, status, expected):
    response = lena.post_form("/lead/freeze", form)
    assert response.status_code == status and expected in response.json()["error"]["message"]


def test_freeze_needs_csrf_and_unknown_sets_are_404(lena):
    assert lena.client.post("/lead/freeze", data={"name": "x", "pool": "default"}).status_code == 403
    for url in ("/lead/sets/nope@1", "/lead/sets/nope@1/qrels", "/lead/sets/nope/sidecar"):
        response = lena.client.get(url)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_dashboard_shows_the_calibration_of_an_automatic_assessor(lena, store, alice, bob, tmp_path):
    import hashlib

    from judged.judgments.automatic import AutomaticAssessor

    pairs = _grade_overlap(store, alice, bob)
    labels = tmp_path / "llm.jsonl"  # one grade above alice's on every pair she graded, capped at 3
    labels.write_text("".join(json.dumps({"qid": q, "docid": d, "grade": min(3, g + 1)}) + "\n"
                              for (q, d), g in zip(pairs, ALICE)))
    store.import_automatic(labels, AutomaticAssessor("llm", "m", hashlib.sha256(b"p").hexdigest()))
    page = lena.client.get("/lead").text
    assert '<h3 data-automatic="llm">llm against alice</h3>' in page
    assert "6 pairs graded by both, raw agreement 0.333" in page  # alice's two 3s stay 3: 2 of 6 identical
    assert "<tr><td>0</td><td class=\"num\">1</td>" in page
    # the confusion matrix of the same pairs: one grade higher everywhere, so off the diagonal but at 3
    caption = re.search(r"<caption>Confusion matrix: rows (\w+), columns (\w+)</caption>", page)
    assert caption and set(caption.groups()) == {"llm", "alice"}
    human_first = caption.group(1) == "alice"
    for grade in range(4):
        row = [0] * 4
        for g in ALICE:
            human, machine = g, min(3, g + 1)
            if (human if human_first else machine) == grade:
                row[machine if human_first else human] += 1
        cells = "".join(f'<td class="num{" diagonal" if j == grade else ""}">{n}</td>' for j, n in enumerate(row))
        assert f"<tr><th>{grade}</th>{cells}</tr>" in page, (grade, row)
