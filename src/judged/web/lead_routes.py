"""The lead's side: efforts (a pool and its assignments), progress and agreement, adjudication, freezing, export.

Every route here requires the lead role: an assessor gets 403, so they can
neither see other assessors' grades, nor adjudicate, freeze or export. Forms
post with a CSRF token and answer with a redirect (303) to the page that
shows the result; an adjudication form carries an event id made when the page
was drawn, so submitting it twice records it once.
"""

from __future__ import annotations

import uuid
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from judged.errors import UsageError
from judged.judgments.accounts import User
from judged.judgments.freeze import RESOLVE
from judged.web.effort import Effort, EffortAgreement, calibrations, effort_agreement, summarise
from judged.web.errors import ApiError
from judged.web.pages import render
from judged.web.security import lead_user, lead_with_csrf
from judged.web.targeting import summary

router = APIRouter()
_Lead = Annotated[User, Depends(lead_user)]
_LeadPost = Annotated[User, Depends(lead_with_csrf)]


def _effort(request: Request, pool: str) -> tuple[Effort, EffortAgreement]:
    state = request.app.state
    if pool not in state.worklist.pools():
        raise ApiError(404, "not_found", f"there is no pool {pool!r}")
    assignments = state.worklist.assignments(pool)
    assessors = sorted({a.assessor for a in assignments})
    effort = summarise(pool, assignments, state.store.current(assessors=assessors),
                       {q.qid: q for q in state.store.queries()}, state.worklist.label_times(assessors))
    rubric = state.store.rubric()
    settings = state.settings
    agreed = effort_agreement(state.store.current_labels(assessors=assessors), assignments,
                              rubric.grades if rubric else None, min_pairs=settings.min_pairs,
                              min_kappa=settings.min_kappa, resamples=settings.resamples)
    return effort, agreed


def _set_spec(request: Request, spec: str):
    try:
        return request.app.state.store.judgment_set(spec)
    except UsageError as err:
        raise ApiError(404, "not_found", str(err)) from None


@router.get("/lead")
def dashboard(request: Request, user: _Lead) -> Response:
    """Every effort with its progress, the form to start one, the frozen sets and the form to freeze one."""
    state = request.app.state
    pools = state.worklist.pools()
    efforts = []
    labels = state.store.current()
    for pool in pools:
        assignments = state.worklist.assignments(pool)
        if assignments:
            efforts.append(summarise(pool, assignments, labels, {}, {}))
    assessors = [u.name for u in state.accounts.users()]
    rubric = state.store.rubric()
    calibrated = calibrations(state.store.current_labels(), state.store.automatic_assessors(),
                              rubric.grades if rubric else None)
    return render(request, "lead.html", {
        "pools": pools, "efforts": efforts, "users": assessors, "sets": state.store.judgment_sets(),
        "resolve": RESOLVE[:-1], "calibrations": calibrated,
        "targeted": {pool: _target(request, pool) for pool in state.store.targets()},
    })


@router.post("/lead/efforts")
async def create_effort(request: Request, user: _LeadPost) -> Response:
    """Assign a pool's unassigned pairs to the chosen assessors, with an overlap set (``Store.assign``)."""
    form = await request.form()
    pool = _field(form, "pool")
    assessors = [name for name in form.getlist("assessors") if isinstance(name, str)]
    known = {u.name for u in request.app.state.accounts.users()}
    unknown = [name for name in assessors if name not in known]
    if unknown:
        raise ApiError(422, "invalid", f"no user named {', '.join(map(repr, unknown))}")
    if pool not in request.app.state.worklist.pools():
        raise ApiError(404, "not_found", f"there is no pool {pool!r}; build it with `judged pool RUN... --depth K`")
    request.app.state.store.assign(
        assessors, pool=pool, overlap_queries=_number(form, "overlap_queries", int),
        overlap_fraction=_number(form, "overlap_fraction", float), seed=_number(form, "seed", int) or 0,
        target=_optional(form, "target"), by=user.name,
    )
    return RedirectResponse(f"/lead/efforts/{quote(pool)}", status_code=303)


def _field(form: FormData, name: str) -> str:
    value = form.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(422, "invalid", f"{name} is required")
    return value.strip()


def _optional(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _number(form: FormData, name: str, kind: type):
    value = form.get(name)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return kind(value)
    except ValueError:
        raise ApiError(422, "invalid", f"{name} must be a number. Got {value!r} instead.") from None


@router.post("/lead/targets")
def set_target(request: Request, user: _LeadPost, pool: str = Form(max_length=512),
               measure: str = Form(max_length=200)) -> Response:
    """Target the effort on a measure, change it, or stop targeting it (``off``); ``Store.set_target``.

    A measure the store refuses (one settle has no exact bounds for, a cutoff
    deeper than the pool, ...) answers 422 with the store's reason; a setting
    made joins the effort's log with the lead's user name.
    """
    state = request.app.state
    if pool not in state.worklist.pools():
        raise ApiError(404, "not_found", f"there is no pool {pool!r}")
    if not measure.strip():
        raise ApiError(422, "invalid", "measure is required: a measure such as nDCG@10, or off")
    state.store.set_target(pool, measure.strip(), by=user.name)
    return RedirectResponse(f"/lead/efforts/{quote(pool)}", status_code=303)


@router.get("/lead/efforts/{pool:path}")
def effort_page(request: Request, pool: str, user: _Lead) -> Response:
    """One effort: progress per assessor and per query, time per judgment, agreement and the gate, targeting."""
    effort, agreed = _effort(request, pool)
    return render(request, "effort.html", {"effort": effort, "agreement": agreed, "target": _target(request, pool),
                                           "target_log": request.app.state.worklist.target_log(pool)})


def _target(request: Request, pool: str) -> dict | None:
    """The targeted effort's settled and open comparisons and its stopping rule (``None``: not targeted)."""
    found = request.app.state.targets.get(pool)
    return None if found is None else summary(found)


@router.get("/api/efforts/{pool:path}")
def effort_api(request: Request, pool: str, user: _Lead) -> dict:
    """One effort's progress, pace and agreement as JSON (agreement as ``judged agreement --format json``).

    ``target_log``: every targeting setting, oldest first, with who made it (``changed_by``; ``null``: not recorded).
    """
    effort, agreed = _effort(request, pool)
    return {
        "pool": effort.pool, "pairs": effort.pairs, "assigned": effort.assigned, "done": effort.done,
        "assessors": [
            {"assessor": a.assessor, "assigned": a.assigned, "done": a.done, "cannot_judge": a.cannot_judge,
             "overlap_assigned": a.overlap_assigned, "overlap_done": a.overlap_done,
             "seconds_per_judgment": {"median": a.pace.median_seconds, "mean": a.pace.mean_seconds,
                                      "timed": a.pace.timed}}
            for a in effort.assessors
        ],
        "queries": [{"qid": q.qid, "pairs": q.pairs, "overlap": q.overlap, "done": q.done} for q in effort.queries],
        "agreement": agreed.as_json(),
        "agreement_note": agreed.note,
        "target": _target(request, pool),
        "target_log": [{"measure": setting.measure, "created": setting.created.isoformat(timespec="seconds"),
                        "changed_by": setting.changed_by}
                       for setting in request.app.state.worklist.target_log(pool)],
    }


@router.get("/lead/adjudicate")
def adjudication_queue(request: Request, user: _Lead, min_diff: Annotated[int, Query(ge=1, le=100)] = 2) -> Response:
    """Pairs whose grades differ by ``min_diff`` or more and are not adjudicated yet, labels side by side."""
    store = request.app.state.store
    found = store.disagreements(min_diff=min_diff)
    queries = {q.qid: q for q in store.queries()}
    items = [{"pair": d, "query": queries.get(d.qid), "document": store.document(d.docid),
              "event_id": str(uuid.uuid4())} for d in found]
    return render(request, "adjudicate.html", {"items": items, "min_diff": min_diff, "rubric": store.rubric()})


@router.post("/lead/adjudications")
def adjudicate(request: Request, user: _LeadPost, qid: str = Form(max_length=512), docid: str = Form(max_length=512),
               grade: int = Form(), note: str = Form(max_length=5000), event_id: uuid.UUID = Form(),
               min_diff: int = Form(2, ge=1, le=100)) -> Response:
    """Record the final grade of a pair with the lead's note, then go back to the queue."""
    request.app.state.store.adjudicate(qid, docid, grade, adjudicator=user.name, note=note, event_id=str(event_id))
    return RedirectResponse(f"/lead/adjudicate?min_diff={min_diff}", status_code=303)


@router.post("/lead/freeze")
def freeze(request: Request, user: _LeadPost, name: str = Form(max_length=200), pool: str = Form(max_length=512),
           resolve: str = Form("refuse", max_length=200)) -> Response:
    """Freeze the effort (its pool's pairs, its assessors' grades, their adjudications) as version n+1 of ``name``."""
    state = request.app.state
    if pool not in state.worklist.pools():
        raise ApiError(404, "not_found", f"there is no pool {pool!r}")
    assessors = sorted({a.assessor for a in state.worklist.assignments(pool)})
    if not assessors:
        raise ApiError(409, "conflict", f"pool {pool!r} has no assessors assigned, so there is nothing to freeze")
    if resolve == "refuse":
        _refuse_open_disagreements(state.store, set(assessors), {(a.qid, a.docid) for a in
                                                                 state.worklist.assignments(pool)})
    frozen = state.store.freeze(name, resolve=resolve, effort=pool)
    return RedirectResponse(f"/lead/sets/{quote(frozen.judgment_set.id, safe='/@')}", status_code=303)


def _refuse_open_disagreements(store, assessors: set[str], pairs: set[tuple[str, str]]) -> None:
    """409 when the effort's assessors disagree on one of its pairs no one has adjudicated (freezing would refuse)."""
    open_pairs = []
    for d in store.disagreements(min_diff=1):
        if (d.qid, d.docid) not in pairs:
            continue
        grades = [label.grade for label in d.labels if label.assessor in assessors and label.grade is not None]
        if len(set(grades)) > 1:
            open_pairs.append(f"{d.qid} {d.docid}")
    if open_pairs:
        shown = ", ".join(open_pairs[:5]) + (", ..." if len(open_pairs) > 5 else "")
        raise ApiError(409, "disagreements_open",
                       f"{len(open_pairs)} pair(s) have disagreeing grades and no adjudication ({shown}); "
                       "adjudicate them first, or choose a resolution policy")


@router.get("/lead/sets/{spec:path}/qrels")
def download_qrels(request: Request, spec: str, user: _Lead) -> Response:
    """The set's canonical TREC qrels (its sha256 is the set's content hash), as a download."""
    judgment_set = _set_spec(request, spec)
    qrels, _ = request.app.state.store.export(judgment_set.id)
    return Response(qrels, media_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{_filename(judgment_set.id)}.qrels"'})


@router.get("/lead/sets/{spec:path}/sidecar")
def download_sidecar(request: Request, spec: str, user: _Lead) -> Response:
    """The JSON sidecar that travels with the qrels: provenance, pool membership, unjudged pairs."""
    judgment_set = _set_spec(request, spec)
    _, sidecar = request.app.state.store.export(judgment_set.id)
    return Response(sidecar, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{_filename(judgment_set.id)}.json"'})


# after the downloads: a set name may hold "/", and {spec:path} would also match ".../qrels"
@router.get("/lead/sets/{spec:path}")
def set_page(request: Request, spec: str, user: _Lead) -> Response:
    """A frozen set: its id, content hash, how each pair was decided, and the downloads."""
    return render(request, "set.html", {"set": _set_spec(request, spec)})


def _filename(set_id: str) -> str:
    """A download name from a set id: letters, digits, ``-`` and ``_`` kept, anything else ``_``."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in set_id)
