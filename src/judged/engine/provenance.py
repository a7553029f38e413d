"""The provenance record every evaluation carries, whichever engine computed it, and every JSON output.

Both the local engine (:func:`judged.evaluate`) and Spark (:func:`judged.spark.evaluate`)
fill in the same fields, so a number can be traced to its conventions, inputs and
counts the same way wherever it was computed. :func:`output_record` gives every
other JSON output (compare, report, bounds, sensitivity, explain, assessors,
agreement) the same environment, inputs and config, with each run's own
evaluation record when there is one.
"""

from __future__ import annotations

import datetime as _dt
import functools
import platform
import re
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata

from judged.engine.matching import ids_read_from
from judged.version import __version__

_URL_PASSWORD = re.compile(r"(://[^/:@\s]*):[^@/\s]*@")


def masked_command(command: Sequence[str] | None) -> list[str] | None:
    """The command line as recorded: any password in a URL (``--db postgresql://u:pw@host/db``) shown as ``***``.

    >>> masked_command(["judged", "eval", "--db=postgresql://ana:s3cret@db/j", "run.txt"])
    ['judged', 'eval', '--db=postgresql://ana:***@db/j', 'run.txt']
    """
    return None if command is None else [_URL_PASSWORD.sub(r"\1:***@", part) for part in command]


def environment(command: Sequence[str] | None) -> dict[str, object]:
    """The head of every record: judged's version, the time, the command line, Python, the platform and libraries.

    ``libraries`` holds the versions of numpy and scipy (None when not
    installed): a p-value can depend on them (scipy's Wilcoxon ``method="auto"``
    changed between versions).

    >>> sorted(environment(["judged", "compare"]))
    ['command', 'created', 'judged_version', 'libraries', 'platform', 'python']
    """
    return {
        "judged_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "command": masked_command(command),
        "python": platform.python_version(),
        "platform": sys.platform,
        "libraries": {name: _version(name) for name in ("numpy", "scipy")},
    }


@functools.cache  # reading a distribution's metadata takes ~10 ms; it cannot change while judged runs
def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def input_record(item) -> dict:
    """What the provenance says of one input (a ``Run`` or ``Qrels``): name, path, format, sha256, rows, queries,
    and where its ids were read from.

    A frozen judgment set reads as ``format: judgment-set`` with its id as the
    path and its content hash as the sha256, and ``heads``: the log's head it
    was frozen from and the store's head when it was read.

    >>> from judged.io.inputs import Qrels
    >>> input_record(Qrels.from_dict({"q1": {"d1": 1}}, "mine"))
    {'name': 'mine', 'path': None, 'format': 'memory', 'sha256': None, 'rows': 1, 'queries': 1, 'ids': 'mapping keys'}
    """
    source = item.source
    return {
        "name": item.name,
        "path": source.path if source else None,
        "format": source.format if source else "memory",
        "sha256": source.sha256 if source else None,
        "rows": len(item),
        "queries": item.num_queries,
        "ids": ids_read_from(source.format if source else "memory", getattr(item, "id_columns", None)),
        **({"heads": dict(source.heads)} if source is not None and source.heads else {}),
    }


def output_record(
    *,
    results: Sequence = (),
    inputs: Sequence = (),
    measures: Sequence = (),
    command: Sequence[str] | None = None,
    config: dict | None = None,
) -> dict:
    """The provenance of a JSON output: :func:`environment`, the measures, the config, the inputs, each run's record.

    ``results`` are evaluation results whose own records go under ``runs``
    (by run name); ``inputs`` the runs and judgments read (``Run``/``Qrels``,
    :func:`input_record`, or records already made); ``measures`` default to the results' measures;
    ``config`` is the team config's record (path, sha256, contents).

    >>> from judged.io.inputs import Qrels
    >>> record = output_record(inputs=[Qrels.from_dict({"q1": {"d1": 1}}, "mine")], command=["judged", "assessors"])
    >>> record["inputs"][0]["name"], record["command"], record["runs"]
    ('mine', ['judged', 'assessors'], {})
    """
    record = environment(command)
    chosen = list(measures) or (list(results[0].measures) if results else [])
    record["measures"] = {str(m): {"family": m.name, "cutoff": m.cutoff, **m.params()} for m in chosen}
    record["config"] = config
    record["inputs"] = [item if isinstance(item, dict) else input_record(item) for item in inputs]
    record["runs"] = {r.run: r.provenance for r in results}
    return record


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
    documents: dict | None = None,
    retrieved_at: dict[str, int],
    ties_across: dict[str, int],
    engine: dict | None = None,
    top_k: Mapping | None = None,
) -> dict:
    """The record: version, time, command, platform, [engine], every measure's conventions, inputs, counts.

    ``unjudged_at`` counts, per cutoff, the unjudged documents in the top k of
    the ranking that has the most there; ``top_k`` holds each measure's own
    ``(unjudged, retrieved)`` in its top k (a tie rule can put judged documents first);
    ``documents`` the shared queries' :class:`~judged.engine.matching.Matching` record.

    >>> from judged.measures import parse
    >>> r = provenance_record(measures=[parse("P@5")], missing="skip", depth=None, command=None, config=None,
    ...     run={}, qrels={}, queries={}, counts={}, unjudged_at={}, retrieved_at={}, ties_across={})
    >>> r["measures"]["P(rel=1,unjudged=zero,ties=trec)@5"]["family"]
    'P'
    """

    record = environment(command)
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
            "documents": documents,
            "per_measure": {
                str(m): {
                    "scored": c.scored,
                    "skipped_missing": c.skipped_missing,
                    "skipped_norel": c.skipped_norel,
                    "zero_missing": c.zero_missing,
                    "no_relevant": c.norel,
                    **(
                        {"unjudged_in_top_k": top_k[m][0], "retrieved_in_top_k": top_k[m][1]}
                        if top_k and m in top_k else {}
                    ),
                }
                for m, c in counts.items()
            },
            "unjudged_in_top_k": unjudged_at,
            "retrieved_in_top_k": retrieved_at,
            "queries_with_ties_across_cutoff": ties_across,
        }
    )
    return record
