"""``judged judge``: record grades from the command line, undo them, read a pair's history or an assessor's queue."""

from __future__ import annotations

import click

from judged.cli.store_common import db_option, open_store, table
from judged.errors import UsageError
from judged.render.width import output_width


@click.group("judge")
def judge_command() -> None:
    """Record judgments (an append-only log: nothing is ever overwritten)."""


@judge_command.command("record")
@click.argument("qid")
@click.argument("docid")
@click.argument("grade", type=int, required=False)
@click.option("--assessor", "-a", required=True, help="Who judges.")
@click.option("--cannot-judge", "cannot_judge", metavar="REASON",
              help="Record that the pair cannot be judged, and why.")
@click.option("--note", help="A note kept with the judgment.")
@click.option("--rubric", help="The rubric judged against, NAME[@VERSION] (default: the newest stored rubric).")
@click.option("--event-id", help="A UUID for this event: repeating the command with it stores the event once.")
@click.option("--new-assessor", is_flag=True, help="ASSESSOR is new to the store (else an unknown name is refused).")
@db_option
def record_command(qid, docid, grade, assessor, cannot_judge, note, rubric, event_id, new_assessor, db):
    """Record ASSESSOR's GRADE of document DOCID for query QID (a re-grade is a new event).

    A query, document or assessor the store does not know is refused, with the
    names it knows that are close ("Did you mean ...?").

    \b
    Examples:
      judged judge record q01 auth/api-keys-rotation 3 --assessor ana
      judged judge record q01 auth/mfa --cannot-judge "page does not load" --assessor ana
    """
    if (grade is None) == (cannot_judge is None):
        raise UsageError("give either a GRADE or --cannot-judge REASON.")
    with open_store(db) as store:
        store.check_known(qid=qid, docid=docid, assessor=None if new_assessor else assessor)
        event = store.record(qid, docid, assessor=assessor, grade=grade, cannot_judge=cannot_judge, note=note,
                             rubric=rubric, event_id=event_id)
    what = f"grade {event.grade}" if event.kind == "grade" else f"cannot judge ({event.reason})"
    click.echo(f"#{event.seq} {event.qid} {event.docid}: {what} by {event.assessor}"
               + (f" under rubric {event.rubric}" if event.rubric else "") + f" [event {event.event_id}]")


@judge_command.command("undo")
@click.argument("qid")
@click.argument("docid")
@click.option("--assessor", "-a", required=True, help="Whose current label to withdraw.")
@click.option("--event-id", help="A UUID for the undo event: repeating the command with it undoes once.")
@db_option
def undo_command(qid, docid, assessor, event_id, db):
    """Withdraw ASSESSOR's current label of the pair; the label before it (if any) is current again.

    \b
    Example:
      judged judge undo q01 auth/api-keys-rotation --assessor ana
    """
    with open_store(db) as store:
        event = store.undo(qid, docid, assessor=assessor, event_id=event_id)
    click.echo(f"#{event.seq} {qid} {docid}: undid event {event.undoes} of {assessor} [event {event.event_id}]")


@judge_command.command("history")
@click.argument("qid")
@click.argument("docid")
@db_option
def history_command(qid, docid, db):
    """Show every event of a pair, oldest first.

    \b
    Example:
      judged judge history q01 auth/api-keys-rotation
    """
    with open_store(db, must_exist=True) as store:
        events = store.history(qid, docid)
    if not events:
        click.echo(f"{qid} {docid}: no judgments")
        return
    rows = [
        (e.seq, e.created.isoformat(timespec="seconds"), e.assessor,
         {"grade": f"grade {e.grade}", "cannot_judge": f"cannot judge: {e.reason}", "undo": f"undo {e.undoes}"}[e.kind],
         e.note, e.rubric, e.event_id)
        for e in events
    ]
    click.echo(table(["#", "time (UTC)", "assessor", "event", "note", "rubric", "event id"], rows, wrap=["note"],
                     width=output_width()), nl=False)


@judge_command.command("queue")
@click.option("--assessor", "-a", required=True, help="Whose queue.")
@click.option("--all", "show_all", is_flag=True, help="Include pairs the assessor already labelled.")
@click.option("--limit", type=click.IntRange(min=1), help="Show at most this many pairs.")
@click.option("--rejudge-older", is_flag=True,
              help="Pairs graded under an older version of the newest rubric are to judge again.")
@db_option
def queue_command(assessor, show_all, limit, rejudge_older, db):
    """List ASSESSOR's assigned pairs in presentation order: query and document only, no runs, ranks or scores.

    \b
    Example:
      judged judge queue --assessor ana --limit 10
    """
    with open_store(db, must_exist=True) as store:
        pairs = store.queue(assessor, pending_only=not show_all, rejudge_older=rejudge_older)[:limit]
        rows = []
        for pair in pairs:
            query, document = store.query(pair.qid), store.document(pair.docid)
            rows.append((pair.position, pair.qid, pair.docid, query.text if query else None,
                         document.title if document else None))
    if not rows:
        click.echo(f"{assessor}: nothing to judge")
        return
    click.echo(table(["#", "qid", "docid", "query", "title"], rows, wrap=["query", "title"], width=output_width()),
               nl=False)
