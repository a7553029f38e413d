"""Pieces shared by the judgment-store commands: the ``--db`` option and plain aligned tables."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from judged.errors import UsageError
from judged.io import read_qrels
from judged.io.inputs import Qrels

db_option = click.option(
    "--db", metavar="URL|PATH",
    help="Judgment store: an SQLite file or a postgresql:// URL (default: $JUDGED_DB, else ./judged.db).",
)

judgments_option = click.option(
    "--judgments", "-j", metavar="NAME[@VERSION]",
    help="Instead of --qrels: a frozen judgment set from the store (its id and hash go in the provenance).",
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


def read_judgments(qrels_path, qrels_format, judgments, db) -> Qrels:
    """The judgments from --qrels, or the frozen set --judgments names in the store (exactly one of them)."""
    if (qrels_path is None) == (judgments is None):
        raise UsageError("give the judgments with either --qrels FILE or --judgments NAME[@VERSION].")
    if qrels_path is not None:
        return read_qrels(qrels_path, format=qrels_format)
    with open_store(db, must_exist=True) as store:
        return store.qrels(judgments)


def with_judgment_set(text: str, qrels: Qrels, fmt: str) -> str:
    """``text`` naming the frozen set it was computed from: a ``judgments`` key in JSON, a last line in a table.

    Output from judgments read from a file, and other formats, is returned unchanged.

    >>> from judged.io.inputs import Source
    >>> frozen = Qrels.from_dict({"q1": {"d1": 1}}, "nist@1", Source("judged.db#nist@1", "judgment-set", "ab" * 32))
    >>> print(with_judgment_set('{"x": 1}', frozen, "json"))
    {
      "x": 1,
      "judgments": {
        "name": "nist@1",
        "path": "judged.db#nist@1",
        "format": "judgment-set",
        "sha256": "abababababababababababababababababababababababababababababababab"
      }
    }
    <BLANKLINE>
    >>> with_judgment_set("table\\n", frozen, "table")
    'table\\njudgments: frozen set nist@1 (sha256 abababababab) from judged.db#nist@1\\n'
    """
    source = qrels.source
    if source is None or source.format != "judgment-set":
        return text
    if fmt == "json":
        document = json.loads(text)
        document["judgments"] = {"name": qrels.name, "path": source.path, "format": source.format,
                                 "sha256": source.sha256}
        return json.dumps(document, indent=2) + "\n"
    if fmt == "table":
        return text + f"judgments: frozen set {qrels.name} (sha256 {source.sha256[:12]}) from {source.path}\n"
    return text
