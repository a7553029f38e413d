"""``judged freeze`` and ``judged export``: versioned judgment sets, and their qrels with a pool sidecar."""

from __future__ import annotations

import click

from judged.cli.output import write_output
from judged.cli.store_common import db_option, open_store, table


@click.command("freeze")
@click.argument("name")
@click.option("--resolve", default="refuse", show_default=True, metavar="POLICY",
              help="Unadjudicated disagreements: refuse, min, max, median, or assessor:NAME (prefer that assessor).")
@click.option("--assessor", "-a", "assessors", multiple=True, help="Only these assessors' labels (repeat).")
@click.option("--no-adjudications", "skip_adjudications", is_flag=True, help="Ignore adjudicated grades.")
@click.option("--pool", help="Pool to record with the set (default: the pool named default, if any).")
@click.option("--effort", metavar="POOL",
              help="Freeze one effort: that pool's pairs, its assessors' labels and their adjudications only.")
@click.option("--include-automatic", is_flag=True,
              help="Also freeze automatic assessors' labels (the set's policy says so). Default: people's only.")
@db_option
def freeze_command(name, resolve, assessors, skip_adjudications, pool, effort, include_automatic, db):
    """Freeze the current labels as the next version of judgment set NAME.

    Adjudicated grades win; otherwise single-assessor or agreed grades; pairs
    whose assessors disagree make this fail unless --resolve names a policy.

    \b
    Examples:
      judged freeze tidewater
      judged freeze tidewater-v2 --effort second-pool
      judged freeze nist-only --assessor nist
    """
    with open_store(db) as store:
        frozen = store.freeze(name, resolve=resolve, assessors=list(assessors) or None,
                              adjudications=not skip_adjudications, pool=pool, effort=effort,
                              include_automatic=include_automatic)
    s = frozen.judgment_set
    click.echo((f"froze {s.id}" if frozen.new else f"unchanged: {s.id} already holds these labels")
               + f" sha256:{s.content_hash}")
    click.echo(table(["labels", "pairs"], list(s.counts.items())), nl=False)
    note = frozen.left_out.note("--include-automatic")
    if note:
        click.echo(note, err=True)


@click.command("export")
@click.argument("spec", metavar="NAME[@VERSION]")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the qrels to this file (atomically).")
@click.option("--sidecar", type=click.Path(dir_okay=False),
              help="Write the JSON sidecar here (default with -o: OUTPUT.sidecar.json).")
@db_option
def export_command(spec, output, sidecar, db):
    """Export a frozen judgment set as canonical TREC qrels, plus a JSON sidecar with pool membership.

    The qrels file's sha256 equals the set's content hash. The sidecar lists
    every pooled pair, so "pooled but not judged" and "never pooled" stay
    distinguishable.

    \b
    Example:
      judged export tidewater@2 -o qrels.txt
    """
    with open_store(db, must_exist=True) as store:
        qrels, meta = store.export(spec)
    write_output(qrels, output)
    sidecar = sidecar or (f"{output}.sidecar.json" if output and output != "-" else None)
    if sidecar:
        write_output(meta, sidecar)
