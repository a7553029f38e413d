"""The grading page's next pair follows the re-ranked targeting order, batched per query (``/api/queue?after=``),
and a reload goes on from the assessor's last label; the lead stops, sets and changes an effort's targeting from its
page (``POST /lead/targets``), logged with the lead's name."""

from __future__ import annotations

import itertools
import uuid

import pytest
from markupsafe import escape
from web_helpers import EXAMPLES, true_grades

from judged.io import read_run
from judged.judgments.worklist import Worklist

#: The measure the ``targeted`` fixture targets, as the store writes it.
NDCG3 = "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@3"


def _queue(session, **params) -> dict:
    answer = session.client.get("/api/queue", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _grade(session, qid: str, docid: str, grade: int) -> None:
    body = {"event_id": str(uuid.uuid4()), "qid": qid, "docid": docid, "grade": grade}
    assert session.post_json("/api/judgments", body).status_code == 201


def _expected_next(store, assessor: str, after_qid: str | None, pool: str = "targeted") -> int | None:
    """From the store alone: the first of the assessor's unlabelled pairs the target ranks, of ``after_qid`` if
    any of that query's are left, else of any query (``None``: the ranking holds none of theirs)."""
    held = {(p.qid, p.docid): p.position for p in store.queue(assessor, pending_only=False)}
    labelled = {(e.qid, e.docid) for e in store.current(assessors=[assessor])}
    ranked = [(q, d) for q, d, _ in store.target(pool).ranking if (q, d) in held and (q, d) not in labelled]
    same = [pair for pair in ranked if pair[0] == after_qid]
    return held[(same or ranked)[0]] if ranked else None


def test_the_next_pair_follows_the_re_ranked_order_one_query_at_a_time(targeted, alice):
    store = targeted
    grades = true_grades()
    by_position = {p.position: (p.qid, p.docid) for p in store.queue("alice", pending_only=False)}
    queue = _queue(alice)
    assert queue["next"] == _expected_next(store, "alice", None) == queue["pairs"][0]["position"]
    graded = []
    while store.target("targeted").ranking:
        qid, docid = by_position[queue["next"]]
        _grade(alice, qid, docid, max(grades.get((qid, docid), 0), 0))
        graded.append((qid, docid))
        queue = _queue(alice, after=queue["next"])
        ahead = {(q, d) for q, d, _ in store.target("targeted").ranking}
        assert [(p["qid"], p["docid"]) for p in queue["pairs"] if p["ahead"]] == \
            [(q, d) for q, d, _ in store.target("targeted").ranking]  # every ranked pair is alice's here
        if ahead:
            assert queue["next"] == _expected_next(store, "alice", qid)
    assert len(graded) == len(set(graded))  # no pair given twice
    queries = [qid for qid, _ in graded]
    # one query's documents read together: on this effort no query is left and come back to
    assert len([key for key, _ in itertools.groupby(queries)]) == len(set(queries))
    # the target is settled: the rest follow the assigned order, from the pair after the last one graded
    order = [(p["qid"], p["docid"]) for p in queue["pairs"]]
    last = order.index(graded[-1])
    rest = [p["position"] for p in queue["pairs"][last + 1:] if p["label"] is None]
    assert queue["next"] == rest[0] and not any(p["ahead"] for p in queue["pairs"])


def test_a_query_s_batch_lasts_though_another_query_s_best_pair_moves_ahead(targeted, alice):
    queue = _queue(alice)
    first = queue["pairs"][0]
    _grade(alice, first["qid"], first["docid"], 0)
    after = _queue(alice, after=first["position"])
    shown = next(p for p in after["pairs"] if p["position"] == after["next"])
    # the re-ranked order now puts another query first, but the page stays on the query being read
    assert after["pairs"][0]["qid"] != first["qid"] and after["pairs"][0]["ahead"]
    assert shown["qid"] == first["qid"] and shown["ahead"] and shown["label"] is None


def test_another_assessor_s_grade_re_ranks_the_queue(store, alice, bob):
    runs = [read_run(EXAMPLES / "runs" / f"{name}.run", name=name) for name in ("bm25", "dense")]
    store.build_pool(runs, depth=3, pool="shared")
    store.assign(["alice", "bob"], pool="shared", overlap_queries=0, target="nDCG@3")
    before = _queue(alice)["next"]
    assert before == _expected_next(store, "alice", None, "shared")
    mine = {(p.qid, p.docid) for p in store.queue("bob", pending_only=False)}
    qid, docid, _ = next(item for item in store.target("shared").ranking if item[:2] in mine)
    _grade(bob, qid, docid, 1)  # a grade of bob's moves another pair first in alice's queue
    after = _queue(alice)["next"]
    assert after == _expected_next(store, "alice", None, "shared") and after != before


def test_an_untargeted_queue_goes_on_in_its_assigned_order_and_wraps(store, alice):
    positions = [p.position for p in store.queue("alice", pending_only=False)]
    queue = _queue(alice)
    assert queue["next"] == positions[0] and not any(p["ahead"] for p in queue["pairs"])
    assert _queue(alice, after=positions[3])["next"] == positions[4]
    assert _queue(alice, after=positions[-1])["next"] == positions[0]  # from the start again: nothing is left out
    for pair in queue["pairs"][1:]:
        _grade(alice, pair["qid"], pair["docid"], 1)
    assert _queue(alice, after=positions[-1])["next"] == positions[0]  # the one pair still unlabelled
    _grade(alice, queue["pairs"][0]["qid"], queue["pairs"][0]["docid"], 2)
    assert _queue(alice, after=positions[0])["next"] is None  # all done


def test_a_reload_goes_on_from_the_assessor_s_last_label_in_the_query_s_batch(targeted, alice, bob):
    first = _queue(alice)
    assert first["after"] is None  # nothing labelled: the queue starts at the top
    pair = first["pairs"][0]
    _grade(alice, pair["qid"], pair["docid"], 0)
    reloaded = _queue(alice)  # the page opens again and names no pair
    assert reloaded["after"] == pair["position"]
    assert reloaded["next"] == _queue(alice, after=pair["position"])["next"] == _expected_next(targeted, "alice",
                                                                                              pair["qid"])
    # the batch lasts though the re-ranked order now puts another query first (as after a grade)
    shown = next(p for p in reloaded["pairs"] if p["position"] == reloaded["next"])
    assert reloaded["pairs"][0]["qid"] != pair["qid"] and shown["qid"] == pair["qid"]
    assert _queue(bob)["after"] is None  # another assessor's label is not theirs to go on from


def test_a_reload_of_an_untargeted_queue_goes_on_after_the_newest_label_in_force(store, alice):
    positions = [p.position for p in store.queue("alice", pending_only=False)]
    pairs = {p["position"]: p for p in _queue(alice)["pairs"]}
    for position in (positions[0], positions[2]):  # positions[1] skipped (N)
        _grade(alice, pairs[position]["qid"], pairs[position]["docid"], 1)
    reloaded = _queue(alice)
    assert (reloaded["after"], reloaded["next"]) == (positions[2], positions[3])  # the skipped pair waits its turn
    undo = {"event_id": str(uuid.uuid4()), "qid": pairs[positions[2]]["qid"], "docid": pairs[positions[2]]["docid"]}
    assert alice.post_json("/api/undo", undo).status_code == 201
    reloaded = _queue(alice)  # an undone label is not in force: the page goes on from the one before
    assert (reloaded["after"], reloaded["next"]) == (positions[0], positions[1])
    # one query's page follows that query's own newest label, or starts at its top when it has none
    labelled = pairs[positions[0]]["qid"]
    assert _queue(alice, qid=labelled)["after"] == positions[0]
    fresh = next(p["qid"] for p in pairs.values() if p["qid"] not in {labelled, pairs[positions[2]]["qid"]})
    one = _queue(alice, qid=fresh)
    assert one["after"] is None and one["next"] == one["pairs"][0]["position"]


def test_after_must_be_a_pair_of_the_queue_asked_for(store, alice):
    positions = [p.position for p in store.queue("alice", pending_only=False)]
    q01 = _queue(alice, qid="q01")
    outside = next(p for p in positions if p not in {e["position"] for e in q01["pairs"]})
    missing = alice.client.get("/api/queue", params={"after": max(positions) + 1})
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == f"there is no pair {max(positions) + 1} in your queue"
    other = alice.client.get("/api/queue", params={"qid": "q01", "after": outside})
    assert other.status_code == 404
    assert other.json()["error"]["message"] == f"there is no pair {outside} in the pairs of query 'q01' in your queue"
    assert alice.client.get("/api/queue", params={"after": 0}).status_code == 422


def _log(session, pool: str) -> list[str | None]:
    return [s["measure"] for s in session.client.get(f"/api/efforts/{pool}").json()["target_log"]]


def _changed_by(session, pool: str) -> list[str | None]:
    return [s["changed_by"] for s in session.client.get(f"/api/efforts/{pool}").json()["target_log"]]


def test_the_lead_stops_targeting_and_the_queue_goes_back_to_the_assigned_order(targeted, alice, lena):
    assert any(p["ahead"] for p in _queue(alice)["pairs"])
    stopped = lena.post_form("/lead/targets", {"pool": "targeted", "measure": "off"})
    assert stopped.status_code == 303 and stopped.headers["location"] == "/lead/efforts/targeted"
    assert targeted.targets() == {}
    queue = _queue(alice)
    assert [(p["qid"], p["docid"]) for p in queue["pairs"]] == \
        [(p.qid, p.docid) for p in targeted.queue("alice", pending_only=False)]
    assert not any(p["ahead"] for p in queue["pairs"]) and queue["next"] == queue["pairs"][0]["position"]
    assert _log(lena, "targeted") == [NDCG3, None]
    assert _changed_by(lena, "targeted") == [None, "lena"]  # the fixture's setting records no one: unknown
    page = lena.client.get("/lead/efforts/targeted").text
    assert 'id="target"' not in page and 'id="stop-target-form"' not in page
    assert "<td>the assigned order (targeting stopped)</td>" in page and f"<td>{NDCG3}</td>" in page
    assert "<th>Changed by</th>" in page
    assert page.index("<td>unknown</td>") < page.index("<td>lena</td>")
    again = lena.post_form("/lead/targets", {"pool": "targeted", "measure": "off"})
    assert again.status_code == 422
    assert again.json()["error"]["message"] == ("the effort on pool 'targeted' is not targeted, so there is no "
                                                "targeting to stop.")
    assert _log(lena, "targeted") == [NDCG3, None]


def test_the_lead_changes_the_target_measure_and_the_queue_follows_it(targeted, alice, lena):
    changed = lena.post_form("/lead/targets", {"pool": "targeted", "measure": " nDCG@2 "})
    assert changed.status_code == 303
    ndcg2 = NDCG3.replace("@3", "@2")
    assert targeted.targets() == {"targeted": ndcg2}
    ranking = [(q, d) for q, d, _ in targeted.target("targeted").ranking]
    assert str(targeted.target("targeted").settlement.measure) == ndcg2
    assert [(p["qid"], p["docid"]) for p in _queue(alice)["pairs"] if p["ahead"]] == ranking
    data = lena.client.get("/api/efforts/targeted").json()
    assert data["target"]["measure"] == ndcg2 and _log(lena, "targeted") == [NDCG3, ndcg2]
    assert _changed_by(lena, "targeted") == [None, "lena"]
    page = lena.client.get("/lead/efforts/targeted").text
    assert f"Targeted on {ndcg2}" in page and page.index(f"<td>{NDCG3}</td>") < page.index(f"<td>{ndcg2}</td>")


@pytest.mark.parametrize("measure, reason", [
    ("nDCG@10", "targeting 'targeted' needs a cutoff of at most 3: the pool holds each run's top 3 only. Got "
                "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10."),
    ("nDCG(ties=input)@3", "pool 'targeted' ranked run 'bm25' with ties=trec, so its top k under ties=input is not "
                           "known; target a measure with ties=trec."),
    ("nDGC@3", "unknown measure 'nDGC'. Did you mean 'nDCG', 'Rndcg', 'nDCG_p'? `judged measures` lists them all."),
])
def test_a_refused_measure_answers_422_with_the_store_s_reason_and_changes_nothing(targeted, lena, measure, reason):
    answer = lena.post_form("/lead/targets", {"pool": "targeted", "measure": measure})
    assert answer.status_code == 422
    assert answer.json() == {"error": {"code": "invalid", "message": reason}}
    page = lena.post_form("/lead/targets", {"pool": "targeted", "measure": measure},
                          headers={"Accept": "text/html"})
    assert page.status_code == 422 and "<h1>422: invalid</h1>" in page.text
    assert f'<p class="error" role="alert">{escape(reason)}</p>' in page.text
    assert targeted.targets() == {"targeted": NDCG3} and _log(lena, "targeted") == [NDCG3]
    assert _changed_by(lena, "targeted") == [None]


def test_the_effort_page_offers_targeting_to_an_untargeted_effort(store, lena):
    page = lena.client.get("/lead/efforts/default").text
    assert "Never targeted: queues follow the pool's assigned order." in page
    assert 'id="stop-target-form"' not in page and 'action="/lead/targets" id="target-form"' in page
    assert f'name="csrf_token" value="{lena.csrf}"' in page
    assert '<input type="hidden" name="pool" value="default">' in page
    started = lena.post_form("/lead/targets", {"pool": "default", "measure": "nDCG@2"})
    assert started.status_code == 303 and store.targets() == {"default": NDCG3.replace("@3", "@2")}
    page = lena.client.get("/lead/efforts/default").text
    assert 'id="stop-target-form"' in page and 'id="target"' in page and "Never targeted" not in page
    [setting] = Worklist(store).target_log("default")
    assert (setting.measure, setting.changed_by) == (NDCG3.replace("@3", "@2"), "lena")
    assert f"<td>{setting.created.strftime('%Y-%m-%d %H:%M:%S')}</td>" in page


def test_targeting_a_pool_that_does_not_exist_or_without_a_measure_is_refused(store, lena):
    missing = lena.post_form("/lead/targets", {"pool": "nowhere", "measure": "nDCG@2"})
    assert missing.status_code == 404 and missing.json()["error"]["message"] == "there is no pool 'nowhere'"
    blank = lena.post_form("/lead/targets", {"pool": "default", "measure": "  "})
    assert blank.status_code == 422
    assert blank.json()["error"]["message"] == "measure is required: a measure such as nDCG@10, or off"
    assert store.targets() == {} and Worklist(store).target_log("default") == []


def test_an_effort_started_targeted_from_the_dashboard_records_the_lead(store, lena):
    runs = [read_run(EXAMPLES / "runs" / f"{name}.run", name=name) for name in ("bm25", "dense")]
    store.build_pool(runs, depth=3, pool="second")
    started = lena.post_form("/lead/efforts", {"pool": "second", "assessors": "alice", "overlap_queries": "0",
                                               "target": "nDCG@3"})
    assert started.status_code == 303
    assert _log(lena, "second") == [NDCG3] and _changed_by(lena, "second") == ["lena"]
    assert "<td>lena</td>" in lena.client.get("/lead/efforts/second").text
