"""The provenance record every evaluation carries, whichever engine computed it.

Both the local engine (:func:`judged.evaluate`) and Spark (:func:`judged.spark.evaluate`)
fill in the same fields, so a number can be traced to its conventions, inputs and
counts the same way wherever it was computed.
"""

from __future__ import annotations

import datetime as _dt
import platform
import re
import sys
from collections.abc import Mapping, Sequence

from judged.version import __version__

_URL_PASSWORD = re.compile(r"(://[^/:@\s]*):[^@/\s]*@")


def masked_command(command: Sequence[str] | None) -> list[str] | None:
    """The command line as recorded: any password in a URL (``--db postgresql://u:pw@host/db``) shown as ``***``.

    >>> masked_command(["judged", "eval", "--db=postgresql://ana:s3cret@db/j", "run.txt"])
    ['judged', 'eval', '--db=postgresql://ana:***@db/j', 'run.txt']
    """
    return None if command is None else [_URL_PASSWORD.sub(r"\1:***@", part) for part in command]


def provenance_record(
    *,
    measures,
    missing: str,
    depth: int | None,
    command: Sequence[str] | None,
    config: dict | None,
    run: dict,
    qrels: dict,
    queries: dict,
    counts: Mapping,
    unjudged_at: dict[str, int],
    retrieved_at: dict[str, int],
    ties_across: dict[str, int],
    engine: dict | None = None,
) -> dict:
    """The record: version, time, command, platform, [engine], every measure's conventions, inputs, counts.

    >>> from judged.measures import parse
    >>> r = provenance_record(measures=[parse("P@5")], missing="skip", depth=None, command=None, config=None,
    ...     run={}, qrels={}, queries={}, counts={}, unjudged_at={}, retrieved_at={}, ties_across={})
    >>> r["measures"]["P(rel=1,unjudged=zero,ties=trec)@5"]["family"]
    'P'
    """

    record: dict[str, object] = {
        "judged_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "command": masked_command(command),
        "python": platform.python_version(),
        "platform": sys.platform,
    }
    if engine is not None:
        record["engine"] = engine
    record.update(
        {
            "measures": {str(m): {"family": m.name, "cutoff": m.cutoff, **m.params()} for m in measures},
            "options": {"missing": missing, "depth": depth},
            "config": config,
            "run": run,
            "qrels": qrels,
            "queries": queries,
            "per_measure": {
                str(m): {
                    "scored": c.scored,
                    "skipped_missing": c.skipped_missing,
                    "skipped_norel": c.skipped_norel,
                    "zero_missing": c.zero_missing,
                    "no_relevant": c.norel,
                }
                for m, c in counts.items()
            },
            "unjudged_in_top_k": unjudged_at,
            "retrieved_in_top_k": retrieved_at,
            "queries_with_ties_across_cutoff": ties_across,
        }
    )
    return record
