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
@click.option("--replace", "mode", flag_value="replace",
              help="ASSESSOR has labels: this file becomes them (a new revision; pairs it lacks are withdrawn).")
@click.option("--add", "mode", flag_value="add", help="ASSESSOR has labels: this file's join them.")
@db_option
def qrels_command(path, assessor, rubric, fmt, mode, db):
    """Record the labels of a qrels file as ASSESSOR's grades.

    Only what changes is recorded: importing a file that is already
    ASSESSOR's labels changes nothing. Importing another file for an assessor
    who has labels needs --replace (the file becomes exactly their labels,
    whatever was imported before) or --add.

    \b
    Example:
      judged import qrels examples/qrels.txt --assessor nist
    """
    qrels = read_qrels(path, format=fmt)
    with open_store(db) as store:
        recorded = store.import_qrels(qrels, assessor=assessor, rubric=rubric, mode=mode)
    if not recorded.inserted and not recorded.withdrawn:
        click.echo(f"{path}: already {assessor}'s labels ({recorded.already_stored}); nothing changed")
        return
    changed = f"{path}: {recorded.inserted} label(s) recorded for {assessor}"
    if mode == "replace":
        changed += f", {recorded.already_stored} already current, {recorded.withdrawn} withdrawn"
    elif recorded.already_stored:
        changed += f", {recorded.already_stored} already current"
    click.echo(changed)


@import_command.command("automatic")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--assessor", "-a", required=True, help="The automatic assessor's name (one per model and prompt).")
@click.option("--model", required=True, help="The model that produced the labels, e.g. gpt-4o-2024-08-06.")
@click.option("--prompt", "prompt", type=click.Path(dir_okay=False, exists=True),
              help="The prompt file (its sha256 is recorded), or give --prompt-sha256.")
@click.option("--prompt-sha256", help="The sha256 of the prompt, when the file is not at hand.")
@click.option("--rubric", help="The stored rubric the model was given (NAME or NAME@VERSION).")
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE",
              help="A generation parameter (repeat): temperature=0, seed=7, ...")
@db_option
def automatic_command(path, assessor, model, prompt, prompt_sha256, rubric, params, db):
    """Import an automatic assessor's labels (JSON Lines: qid, docid, grade or cannot_judge, confidence,
    rationale) with the model, prompt hash, rubric and parameters. They are marked automatic: not frozen,
    nor in agreement, unless named.

    \b
    Example:
      judged import automatic examples/automatic/llm-judge.jsonl -a llm-judge --model small-llm \
          --prompt examples/automatic/prompt.txt --rubric tidewater-docs --param temperature=0
    """
    import hashlib
    from pathlib import Path

    from judged.errors import UsageError
    from judged.judgments.automatic import AutomaticAssessor

    if (prompt is None) == (prompt_sha256 is None):
        raise UsageError("give the prompt as --prompt FILE or --prompt-sha256 HEX.")
    digest = hashlib.sha256(Path(prompt).read_bytes()).hexdigest() if prompt else prompt_sha256.lower()
    parameters = {}
    for param in params:
        key, sep, value = param.partition("=")
        if not sep or not key:
            raise UsageError(f"a parameter is KEY=VALUE. Got {param!r} instead.")
        parameters[key] = value
    with open_store(db) as store:
        recorded = store.import_automatic(path, AutomaticAssessor(assessor, model, digest, parameters, rubric))
    click.echo(f"{assessor} (automatic, {model}): {recorded.inserted} new label(s), "
               f"{recorded.already_stored} already stored")


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
