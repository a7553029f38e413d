"""The assessor's side: their queries with progress, the grading page, and the JSON API the page calls.

An assessor only ever sees their own queue and their own labels: pairs are
addressed by position in *their* queue, and nothing about runs, ranks,
scores or other assessors' grades is sent. Every write carries a
client-made event id, so a retried request stores its event once; a retry
whose content differs from what is stored under that id is a conflict (409).
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from judged.judgments.accounts import User
from judged.judgments.model import Judgment
from judged.web.errors import ApiError
from judged.web.pages import render
from judged.web.security import current_user, user_with_csrf
from judged.web.targeting import next_position

router = APIRouter()
_Id = Annotated[str, Field(min_length=1, max_length=512, pattern=r"^\S+$")]
#: The largest queue position there can be (the store keeps positions as 32-bit integers).
MAX_POSITION = 2**31 - 1


class GradeIn(BaseModel):
    """A grade, or cannot-judge with its reason, for one pair of the assessor's queue."""

    model_config = ConfigDict(extra="forbid")
    event_id: uuid.UUID
    qid: _Id
    docid: _Id
    grade: StrictInt | None = None
    cannot_judge: Annotated[str, Field(min_length=1, max_length=2000)] | None = None
    note: Annotated[str, Field(max_length=5000)] | None = None

    @model_validator(mode="after")
    def _one_label(self) -> GradeIn:
        if (self.grade is None) == (self.cannot_judge is None):
            raise ValueError("give either grade or cannot_judge (with the reason), not both and not neither")
        if self.cannot_judge is not None and not self.cannot_judge.strip():
            raise ValueError("cannot_judge needs a reason")
        return self


class UndoIn(BaseModel):
    """Withdraw the assessor's current label of one pair."""

    model_config = ConfigDict(extra="forbid")
    event_id: uuid.UUID
    qid: _Id
    docid: _Id


def label_json(event: Judgment | None) -> dict | None:
    """An assessor's own label as the page shows it (``None``: not labelled)."""
    if event is None:
        return None
    return {"event_id": event.event_id, "kind": event.kind, "grade": event.grade, "reason": event.reason,
            "note": event.note, "created": event.created.isoformat(timespec="seconds")}


def _queue(request: Request, user: User, qid: str | None) -> tuple[list[dict], int | None]:
    """The assessor's pairs as ``/api/queue`` sends them, and the position of the one they labelled last.

    The last is the pair whose label in force is the assessor's newest (an
    undone label is not in force), among these pairs; ``None`` when none is labelled.
    """
    store = request.app.state.store
    targets = request.app.state.targets
    labels = {(e.qid, e.docid): e for e in store.current(assessors=[user.name])}
    ahead = targets.ahead()
    shown = [p for p in targets.order(store.queue(user.name, pending_only=False)) if qid is None or p.qid == qid]
    if qid is not None and not shown:
        raise ApiError(404, "not_found", f"query {qid!r} has no pairs in your queue")
    pairs = [{"position": p.position, "qid": p.qid, "docid": p.docid,
              "label": label_json(labels.get((p.qid, p.docid))), "ahead": (p.qid, p.docid) in ahead}
             for p in shown]
    labelled = [p for p in shown if (p.qid, p.docid) in labels]
    last = max(labelled, key=lambda p: labels[(p.qid, p.docid)].seq, default=None)
    return pairs, None if last is None else last.position


@router.get("/assess")
def assess_page(request: Request, user: User = Depends(current_user)) -> Response:
    """The assessor's queries, in the order they are presented, with how many pairs of each are done."""
    pairs, _ = _queue(request, user, None)
    totals = Counter(p["qid"] for p in pairs)
    done = Counter(p["qid"] for p in pairs if p["label"] is not None)
    queries = {q.qid: q for q in request.app.state.store.queries()}
    rows = [{"qid": qid, "text": queries[qid].text if qid in queries else "", "pairs": n, "done": done[qid]}
            for qid, n in totals.items()]
    return render(request, "assess.html", {"queries": rows, "total": len(pairs), "done": sum(done.values())})


@router.get("/grade")
def grade_page(request: Request, qid: str | None = None, user: User = Depends(current_user)) -> Response:
    """The grading page: the rubric is drawn here, pairs are fetched by ``grade.js``."""
    pairs, _ = _queue(request, user, qid)
    return render(request, "grade.html", {"rubric": request.app.state.store.rubric(), "qid": qid or "",
                                          "total": len(pairs)})


@router.get("/api/queue")
def queue_api(request: Request, qid: str | None = None,
              after: Annotated[int | None, Query(ge=1, le=MAX_POSITION)] = None,
              user: User = Depends(current_user)) -> dict:
    """The assessor's pairs in presentation order (optionally one query's), with their own current labels.

    ``ahead`` marks the pairs a targeted effort puts ahead; ``next`` is the
    position to show after the pair at ``after`` (the one just graded)
    (:func:`~judged.web.targeting.next_position`). Without ``after`` (the
    page opens, or is reloaded) ``next`` follows the pair the assessor
    labelled last (their newest label in force among these pairs), so a
    reload goes on with the query they were on; the answer's ``after`` says
    which pair ``next`` follows (``None``: nothing labelled yet, the queue
    starts at the top).
    """
    pairs, last = _queue(request, user, qid)
    if after is not None and not any(p["position"] == after for p in pairs):
        where = f"the pairs of query {qid!r} in your queue" if qid else "your queue"
        raise ApiError(404, "not_found", f"there is no pair {after} in {where}")
    follows = last if after is None else after
    return {"assessor": user.name, "qid": qid, "pairs": pairs, "after": follows,
            "next": next_position(pairs, follows), "done": sum(p["label"] is not None for p in pairs),
            "total": len(pairs)}


@router.get("/api/pairs/{position}")
def pair_api(request: Request, position: Annotated[int, Path(ge=1, le=MAX_POSITION)],
             user: User = Depends(current_user)) -> dict:
    """One pair of the assessor's queue: the query, the document, and their own current label."""
    view = request.app.state.worklist.pair(user.name, position)
    if view is None:
        raise ApiError(404, "not_found", f"there is no pair {position} in your queue")
    query, document = view.query, view.document
    return {
        "position": position,
        "qid": view.assignment.qid,
        "docid": view.assignment.docid,
        "query": {"text": query.text if query else None, "description": query.description if query else None,
                  "narrative": query.narrative if query else None},
        "document": {"title": document.title if document else None, "text": document.text if document else None,
                     "url": document.url if document else None},
        "label": label_json(view.label),
    }


def _assigned(request: Request, user: User, qid: str, docid: str):
    assignment = request.app.state.worklist.assignment(user.name, qid, docid)
    if assignment is None:
        raise ApiError(403, "not_assigned", f"{qid} {docid} is not in your queue")
    return assignment


@router.post("/api/judgments")
def record_api(request: Request, body: GradeIn, user: User = Depends(user_with_csrf)) -> Response:
    """Record a grade or cannot-judge: 201 when stored now, 200 when this event id was stored before."""
    _assigned(request, user, body.qid, body.docid)
    event_id = str(body.event_id)
    earlier = request.app.state.worklist.event(event_id)
    if earlier is not None:
        same = (earlier.kind, earlier.qid, earlier.docid, earlier.assessor, earlier.grade, earlier.reason,
                earlier.note) == ("grade" if body.cannot_judge is None else "cannot_judge", body.qid, body.docid,
                                  user.name, body.grade, body.cannot_judge, body.note)
        if not same:
            raise ApiError(409, "conflict", f"event id {event_id} is already stored for a different event")
        return JSONResponse({"judgment": label_json(earlier), "stored": "before"}, status_code=200)
    stored = request.app.state.store.record(
        body.qid, body.docid, assessor=user.name, grade=body.grade, cannot_judge=body.cannot_judge, note=body.note,
        event_id=event_id,
    )
    return JSONResponse({"judgment": label_json(stored), "stored": "now"}, status_code=201)


@router.post("/api/undo")
def undo_api(request: Request, body: UndoIn, user: User = Depends(user_with_csrf)) -> Response:
    """Withdraw the assessor's current label of a pair (an undo event); answers with the label now in force."""
    assignment = _assigned(request, user, body.qid, body.docid)
    worklist = request.app.state.worklist
    event_id = str(body.event_id)
    earlier = worklist.event(event_id)
    if earlier is not None:
        if (earlier.kind, earlier.qid, earlier.docid, earlier.assessor) != ("undo", body.qid, body.docid, user.name):
            raise ApiError(409, "conflict", f"event id {event_id} is already stored for a different event")
        status, undo = 200, earlier
    else:
        if worklist.pair(user.name, assignment.position).label is None:
            raise ApiError(409, "nothing_to_undo", f"you have no label of {body.qid} {body.docid} to undo")
        status = 201
        undo = request.app.state.store.undo(body.qid, body.docid, assessor=user.name, event_id=event_id)
    label = worklist.pair(user.name, assignment.position).label
    return JSONResponse({"undo": label_json(undo), "label": label_json(label), "position": assignment.position},
                        status_code=status)
