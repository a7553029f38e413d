"""``judged import``: bring qrels (as a named assessor), queries, documents and rubrics into the store."""

from __future__ import annotations

import click

from judged.cli.store_common import db_option, open_store
from judged.io import FORMATS as INPUT_FORMATS
from judged.io import read_qrels


@click.group("import")
def import_command() -> None:
    """Import qrels, queries, documents or a rubric into the judgment store (each in one transaction)."""


@import_command.command("qrels")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--assessor", "-a", required=True, help="Whose labels these are, e.g. nist or an automatic judge's name.")
@click.option("--rubric", help="Check grades against this stored rubric (NAME or NAME@VERSION) and record it.")
@click.option("--format", "fmt", type=click.Choice(INPUT_FORMATS), help="File format (default: from the name).")
@db_option
def qrels_command(path, assessor, rubric, fmt, db):
    """Record the labels of a qrels file as ASSESSOR's grades.

    Importing the same file again stores nothing new.

    \b
    Example:
      judged import qrels examples/qrels.txt --assessor nist
    """
    qrels = read_qrels(path, format=fmt)
    with open_store(db) as store:
        recorded = store.import_qrels(qrels, assessor=assessor, rubric=rubric)
    click.echo(f"{path}: {recorded.inserted} label(s) recorded for {assessor}"
               + (f", {recorded.already_stored} already stored" if recorded.already_stored else ""))


@import_command.command("queries")
@click.argument("path", type=click.Path(dir_okay=False))
@db_option
def queries_command(path, db):
    """Import queries from JSONL (qid, text, description, narrative) or TSV (qid, text, ...).

    \b
    Example:
      judged import queries examples/queries.jsonl
    """
    from judged.judgments.files import read_queries

    queries = read_queries(path)
    with open_store(db) as store:
        new = store.add_queries(queries)
    click.echo(f"{path}: {new} new of {len(queries)} queries")


@import_command.command("documents")
@click.argument("path", type=click.Path(dir_okay=False))
@db_option
def documents_command(path, db):
    """Import documents from JSONL (docid, title, text or url, metadata) or TSV (docid, title, text[, url]).

    \b
    Example:
      judged import documents examples/documents.jsonl
    """
    from judged.judgments.files import read_documents

    documents = read_documents(path)
    with open_store(db) as store:
        new = store.add_documents(documents)
    click.echo(f"{path}: {new} new of {len(documents)} documents")


@import_command.command("rubric")
@click.argument("path", type=click.Path(dir_okay=False))
@db_option
def rubric_command(path, db):
    """Import a rubric version from TOML or YAML (name, version, scale, [[level]] grade/label/description).

    \b
    Example:
      judged import rubric examples/rubric.toml
    """
    from judged.rubric import load_rubric

    rubric = load_rubric(path)
    with open_store(db) as store:
        new = store.add_rubric(rubric)
    click.echo(f"{path}: rubric {rubric.name}@{rubric.version} " + ("stored" if new else "already stored")
               + f" (grades {', '.join(map(str, rubric.grades))})")
