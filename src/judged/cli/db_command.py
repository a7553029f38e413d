"""``judged db``: apply the store's migrations, and show what a store holds."""

from __future__ import annotations

import click

from judged.cli.store_common import db_option, open_store, table


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
