"""Pieces shared by the judgment-store commands: the ``--db`` option and plain aligned tables."""

from __future__ import annotations

from collections.abc import Sequence

import click

db_option = click.option(
    "--db", metavar="URL|PATH",
    help="Judgment store: an SQLite file or a postgresql:// URL (default: $JUDGED_DB, else ./judged.db).",
)


def open_store(db: str | None, *, upgrade: bool = True, must_exist: bool = False):
    """Open the store for one command (imported lazily: other commands never load SQLAlchemy).

    Commands that only read pass ``must_exist``, so a mistyped path is an error, not a new empty store.
    """
    from judged.judgments import Store

    return Store.open(db, upgrade=upgrade, must_exist=must_exist)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces, one line per row, with a header line."""
    cells = [[str(c) for c in header]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n" for row in cells)
