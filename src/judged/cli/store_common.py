"""Pieces shared by the judgment-store commands: the ``--db`` option and plain aligned tables."""

from __future__ import annotations

import json
import textwrap
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


def table(header: Sequence[str], rows: Sequence[Sequence[object]], *, wrap: Sequence[str] = (),
          width: int | None = None) -> str:
    """Left-aligned columns separated by two spaces, with a header line: one line per row, or, when ``width`` is
    given and the table is wider, the free-text columns named in ``wrap`` wrapped at whole words to fit
    (ids and numbers are never cut). A pipe or a file gets ``width=None``: one line per row, for grep and awk.

    >>> print(table(["qid", "query"], [("q1", "how do I rotate an API key")], wrap=["query"], width=20), end="")
    qid  query
    q1   how do I rotate
         an API key
    """
    cells = [[str(c) for c in header]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    free = [i for i, name in enumerate(header) if name in wrap]
    over = sum(widths) + 2 * (len(widths) - 1) - (width or 0)
    if width is None or over <= 0 or not free:
        return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n" for row in cells)
    room = max(width - sum(w for i, w in enumerate(widths) if i not in free) - 2 * (len(widths) - 1),
               _NARROWEST * len(free))
    natural = sum(widths[i] for i in free)
    for i in free:  # each free column's share of the room, in proportion to its natural width
        widths[i] = max(_NARROWEST, room * widths[i] // natural)
    out = []
    for row in cells:
        parts = [textwrap.wrap(c, widths[i], break_long_words=False) or [""] if i in free else [c]
                 for i, c in enumerate(row)]
        for line in range(max(len(p) for p in parts)):
            out.append("  ".join((p[line] if line < len(p) else "").ljust(w)
                                 for p, w in zip(parts, widths)).rstrip() + "\n")
    return "".join(out)


#: The narrowest a wrapped column gets, in characters.
_NARROWEST = 12


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
                                 "sha256": source.sha256, **({"heads": dict(source.heads)} if source.heads else {})}
        return json.dumps(document, indent=2) + "\n"
    if fmt == "table":
        return text + f"judgments: frozen set {qrels.name} (sha256 {source.sha256[:12]}) from {source.path}\n"
    return text
