"""``judged db``: apply the store's migrations, and show what a store holds."""

from __future__ import annotations

import click

from judged.cli.store_common import db_option, open_store, table
from judged.errors import JudgedError


@click.group("db")
def db_command() -> None:
    """Create, migrate and inspect the judgment store."""


@db_command.command("upgrade")
@db_option
def upgrade_command(db):
    """Apply every pending schema migration (opening a store does this too).

    \b
    Example:
      judged db upgrade --db postgresql://postgres@localhost/judgments
    """
    with open_store(db, upgrade=False) as store:
        applied = store.upgrade()
        status = store.schema_status()
        click.echo(f"{store.url}: " + (f"applied {', '.join(applied)}; " if applied else "nothing to apply; ")
                   + f"at revision {status.current}")


@db_command.command("status")
@db_option
def status_command(db):
    """Show the store's schema revision, row counts and frozen judgment sets.

    \b
    Example:
      judged db status
    """
    with open_store(db, upgrade=False, must_exist=True) as store:
        status = store.schema_status()
        click.echo(f"store: {store.url}")
        if status.pending:
            click.echo(f"schema: revision {status.current or 'none'}, pending {', '.join(status.pending)} "
                       "(run `judged db upgrade`)")
            return
        click.echo(f"schema: revision {status.current} (up to date)")
        click.echo(table(["table", "rows"], list(store.counts().items())), nl=False)
        sets = store.judgment_sets()
        if sets:
            click.echo(table(
                ["judgment set", "content sha256", "created", "labels"],
                [(s.id, s.content_hash, s.created.isoformat(timespec="seconds"),
                  sum(n for state, n in s.counts.items() if state not in ("unjudged", "cannot_judge")))
                 for s in sets],
            ), nl=False)


@db_command.command("head")
@db_option
def head_command(db):
    """Print the history's anchor: each chain's last position and hash, one token to keep elsewhere (with a
    report, in a repository). `judged db verify --expect-head ANCHOR` later proves the store still holds it.

    \b
    Example:
      judged db head > anchor.txt
    """
    with open_store(db, must_exist=True) as store:
        click.echo(store.head())


@db_command.command("verify")
@click.option("--expect-head", metavar="ANCHOR",
              help="An anchor `judged db head` printed earlier: the chains must still hold it (catches a log cut "
              "short and an older copy restored).")
@db_option
def verify_command(expect_head, db):
    """Prove the store's history: recompute the judgment log's and adjudications' hash chains and every
    frozen set's content hash, and check an anchor kept from `judged db head`. Exits 1, naming where it
    breaks, when anything was changed behind the store.

    \b
    Example:
      judged db verify --expect-head "$(cat anchor.txt)"
    """
    with open_store(db, must_exist=True) as store:
        report = store.verify(expect_head.strip() if expect_head else None)
        click.echo(f"store: {store.url}")
    for c in report.chains:
        click.echo(f"{c.table}: {c.events} event(s) chained" + (f", head {c.head}" if c.head and c.ok else ""))
    anchored = report.sets - report.unanchored
    click.echo(f"judgment sets: {report.sets} checked, {anchored} re-derived from the log up to their head"
               + (f" ({report.unanchored} frozen before sets recorded a head: content hash and seal only)"
                  if report.unanchored else ""))
    if expect_head and report.ok:
        click.echo("anchor: held")
    if not report.ok:
        raise JudgedError("the store's history does not verify:\n  " + "\n  ".join(report.problems))
    click.echo("ok: the history is the one the store wrote")


@db_command.command("grant")
@click.argument("role")
@db_option
def grant_command(role, db):
    """PostgreSQL: let ROLE (the web app's) read and append to the store, never rewrite it.

    Run it as the role that owns the tables (the one that ran `judged db upgrade`). ROLE gets SELECT
    and INSERT, UPDATE and DELETE only on the web accounts' tables; not owning the tables, it cannot
    disable the append-only triggers. See docs/judgments.md, "Deploying on PostgreSQL".

    \b
    Example:
      judged db grant judged_app --db postgresql://judged_owner@db.internal/judgments
    """
    with open_store(db, must_exist=True) as store:
        store.grant_app_role(role)
        click.echo(f"{store.url}: granted {role} SELECT and INSERT (UPDATE and DELETE on web accounts only)")
