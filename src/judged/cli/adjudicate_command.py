"""``judged adjudicate``: list the pairs whose assessors disagree, and record final grades."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from judged.cli.output import format_option, write_output
from judged.cli.store_common import db_option, open_store, table
from judged.errors import InputError
from judged.render.width import output_width


@click.group("adjudicate")
def adjudicate_command() -> None:
    """Settle disagreements between assessors."""


@adjudicate_command.command("list")
@click.option("--min-diff", type=click.IntRange(min=1), default=2, show_default=True,
              help="List pairs whose grades differ by at least this much.")
@click.option("--all", "show_all", is_flag=True, help="Include pairs already adjudicated.")
@click.option("--include-automatic", is_flag=True,
              help="Count automatic assessors' labels too (left out by default, as freeze leaves them out).")
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
@db_option
def list_command(min_diff, show_all, include_automatic, fmt, output, db):
    """List pairs whose assessors' current grades differ, with the query's text and the document's title,
    each assessor's grade and note side by side.

    \b
    Example:
      judged adjudicate list --min-diff 2
    """
    with open_store(db, must_exist=True) as store:
        found = store.disagreements(min_diff=min_diff, pending_only=not show_all, include_automatic=include_automatic)
        note = store.counted_assessors(include_automatic=include_automatic).note("--include-automatic")
        queries = {qid: store.query(qid) for qid in {d.qid for d in found}}
        documents = {docid: store.document(docid) for docid in {d.docid for d in found}}
    if note:
        click.echo(note, err=True)
    texts = {qid: q.text if q else "" for qid, q in queries.items()}
    titles = {docid: (d.title or "") if d else "" for docid, d in documents.items()}
    if fmt == "json":
        listed = [{**asdict(d), "query": texts[d.qid], "title": titles[d.docid]} for d in found]
        write_output(json.dumps(listed, indent=2, default=str) + "\n", output)
        return
    if not found:
        write_output(f"no pair's grades differ by {min_diff} or more" + ("" if show_all else " (pending)") + "\n",
                     output)
        return
    rows = [
        (d.qid, d.docid, d.difference,
         "; ".join(f"{label.assessor}: "
                   + (str(label.grade) if label.grade is not None else f"cannot judge ({label.reason})")
                   + (f" \"{label.note}\"" if label.note else "") for label in d.labels),
         f"{d.adjudication.grade} by {d.adjudication.adjudicator}" if d.adjudication else "",
         texts[d.qid], titles[d.docid])
        for d in found
    ]
    write_output(table(["qid", "docid", "diff", "labels", "adjudicated", "query", "title"], rows,
                       wrap=["labels", "query", "title"], width=None if output else output_width()), output)


@adjudicate_command.command("set")
@click.argument("qid")
@click.argument("docid")
@click.argument("grade", type=int)
@click.option("--adjudicator", required=True, help="Who decides.")
@click.option("--note", required=True, help="Why this grade (kept with the decision).")
@click.option("--event-id", help="A UUID for this decision: repeating the command with it stores it once.")
@db_option
def set_command(qid, docid, grade, adjudicator, note, event_id, db):
    """Record the final GRADE of a pair; a later decision on the same pair replaces it in new frozen sets.

    \b
    Example:
      judged adjudicate set q01 changelog/2024-03 1 --adjudicator lead --note "mentions rotation only in passing"
    """
    with open_store(db) as store:
        store.check_known(qid=qid, docid=docid)
        decided = store.adjudicate(qid, docid, grade, adjudicator=adjudicator, note=note, event_id=event_id)
    click.echo(f"#{decided.seq} {qid} {docid}: grade {decided.grade} by {decided.adjudicator} "
               f"[event {decided.event_id}]")


@adjudicate_command.command("apply")
@click.argument("path", type=click.Path(dir_okay=False, exists=True))
@click.option("--adjudicator", required=True, help="Who decides.")
@db_option
def apply_command(path, adjudicator, db):
    """Record a file of decisions in one transaction (all or none): one per line,
    QID<TAB>DOCID<TAB>GRADE<TAB>NOTE (a header line starting with qid is skipped).

    \b
    Example:
      judged adjudicate apply decisions.tsv --adjudicator lead
    """
    decisions = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or (n == 1 and line.split("\t")[0] == "qid"):
            continue
        fields = line.split("\t")
        if len(fields) != 4 or not fields[2].lstrip("-").isdigit() or not fields[3].strip():
            raise InputError("not a decision", path=str(path), line=n, text=line[:200],
                             expected="QID<TAB>DOCID<TAB>GRADE<TAB>NOTE with an integer grade and a note")
        decisions.append((fields[0], fields[1], int(fields[2]), fields[3]))
    with open_store(db) as store:
        for qid, docid, _, _ in decisions:
            store.check_known(qid=qid, docid=docid)
        count = store.adjudicate_many(decisions, adjudicator=adjudicator)
    click.echo(f"{count} decision(s) recorded by {adjudicator} from {path}")
