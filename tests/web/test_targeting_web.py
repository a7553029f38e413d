"""A targeted effort in the web app: the assessor's queue in impact order, re-ranked as grades arrive, and the
lead's view of the settled and open comparisons."""

from __future__ import annotations

import uuid

from web_helpers import EXAMPLES, true_grades

from judged.io import read_run


def _pairs(session) -> list[tuple[str, str]]:
    return [(p["qid"], p["docid"]) for p in session.client.get("/api/queue").json()["pairs"]]


def test_the_queue_follows_the_ranking_and_is_re_ranked_as_grades_arrive(targeted, alice):
    store = targeted
    target = store.target("targeted")
    held = {(p.qid, p.docid) for p in store.queue("alice")}
    ranked = [(q, d) for q, d, _ in target.ranking if (q, d) in held]
    shown = _pairs(alice)
    assert ranked and shown[:len(ranked)] == ranked  # the pairs that can settle something first, by impact
    assert sorted(shown) == sorted(held)  # and nothing else changed: the same pairs, each once
    untargeted = [(p.qid, p.docid) for p in store.queue("alice") if (p.qid, p.docid) not in set(ranked)]
    assert shown[len(ranked):] == untargeted  # the rest in their assigned order
    qid, docid = shown[0]
    answer = alice.post_json("/api/judgments", {"event_id": str(uuid.uuid4()), "qid": qid, "docid": docid,
                                                "grade": 0})
    assert answer.status_code == 201
    again = store.target("targeted")
    assert again.state[0] == target.state[0] + 1 and (qid, docid) not in {(q, d) for q, d, _ in again.ranking}
    now_ranked = [(q, d) for q, d, _ in again.ranking if (q, d) in held]
    assert _pairs(alice)[:len(now_ranked)] == now_ranked  # the next fetch is ranked on that grade


def test_an_untargeted_queue_keeps_the_assigned_order(store, alice):
    assert store.targets() == {}
    assert _pairs(alice) == [(p.qid, p.docid) for p in store.queue("alice", pending_only=False)]


def test_the_lead_sees_the_comparisons_and_whether_judging_can_stop(targeted, lena):
    target = targeted.target("targeted")
    data = lena.client.get("/api/efforts/targeted").json()["target"]
    assert data["measure"] == "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@3"
    assert data["can_stop"] is False and data["statement"] == target.settlement.stopping.statement
    assert [(p["first"], p["second"], p["min"], p["max"]) for p in data["pairs"]] == [
        ("bm25", "dense", target.settlement.pairs[0].minimum, target.settlement.pairs[0].maximum)]
    assert [(n["qid"], n["docid"]) for n in data["next"]] == [(q, d) for q, d, _ in target.ranking[:20]]
    page = lena.client.get("/lead/efforts/targeted").text
    assert "Targeted on nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@3" in page
    assert '<p class="verdict fail" id="stopping">not yet: 0 of 1 pairs settled' in page
    assert '<tr data-first="bm25" data-second="dense" class="open">' in page
    dashboard = lena.client.get("/lead").text
    assert '<td class="target">0 of 1 comparisons settled</td>' in dashboard
    assert lena.client.get("/api/efforts/default").json()["target"] is None
    assert 'id="target"' not in lena.client.get("/lead/efforts/default").text


def test_judging_every_pair_that_matters_lets_the_effort_stop(targeted, alice, lena):
    grades = true_grades()
    pooled = targeted.target("targeted").settlement.stopping.unjudged
    # grade, in queue order, every pair the target still ranks; each grade re-ranks what is left
    graded = 0
    while ranking := targeted.target("targeted").ranking:
        qid, docid, _ = ranking[0]
        alice.post_json("/api/judgments", {"event_id": str(uuid.uuid4()), "qid": qid, "docid": docid,
                                           "grade": max(grades.get((qid, docid), 0), 0)})
        graded += 1
    final = targeted.target("targeted")
    assert final.can_stop and final.ranking == ()
    # it stops with pairs unjudged: 28 of the 59 pooled judged (docs/settle.md), none of the 31 left can change
    # the order
    assert (graded, final.settlement.stopping.unjudged, pooled) == (28, 31, 59)
    page = lena.client.get("/lead/efforts/targeted").text
    assert '<p class="verdict pass" id="stopping">Judging can stop: every pairwise order among these 2 runs' in page
    assert "1 of 1 comparisons settled; judging can stop" in lena.client.get("/lead").text


def test_the_lead_can_target_an_effort_from_the_form(lena, store):
    runs = [read_run(EXAMPLES / "runs" / f"{name}.run", name=name) for name in ("bm25", "dense")]
    store.build_pool(runs, depth=3, pool="second")
    form = {"pool": "second", "assessors": "alice", "overlap_queries": "0"}
    refused = lena.post_form("/lead/efforts", {**form, "target": "nDCG@10"})
    # the pool holds each run's top 3 only; the refusal leaves nothing assigned
    assert refused.status_code == 422 and "needs a cutoff of at most 3" in refused.json()["error"]["message"]
    assert store.targets() == {} and store.pool_report("second").total > 0
    assert not [a for a in lena.client.get("/api/efforts/second").json()["assessors"]]
    created = lena.post_form("/lead/efforts", {**form, "target": " nDCG@3 "})
    assert created.status_code == 303 and store.targets() == {
        "second": "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@3"}
    assert 'id="target"' in lena.client.get("/lead/efforts/second").text
