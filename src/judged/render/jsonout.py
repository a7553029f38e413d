"""JSON output: aggregates, optional per-query values and the full provenance record of each run."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from judged.engine.result import Result
from judged.render.table import judgment_set


def render_json(results: Sequence[Result], per_query: bool = True) -> str:
    """One JSON document: ``{"results": [{"run", "aggregate", "per_query", "provenance"}]}``.

    Results evaluated on a frozen judgment set add ``"judgments"``: its name, path, format, sha256 and heads.
    """
    document: dict = {"results": [_one(r, per_query) for r in results]}
    frozen = judgment_set(results)
    if frozen:
        document["judgments"] = frozen
    return json.dumps(document, indent=2) + "\n"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _one(result: Result, per_query: bool) -> dict:
    record = {
        "run": result.run,
        "measures": [str(m) for m in result.measures],
        "aggregate": {str(m): _number(result.aggregate[m]) for m in result.measures},
    }
    if per_query:
        record["per_query"] = {
            qid: {
                str(m): float(result.values[m][i])
                for m in result.measures
                if not math.isnan(result.values[m][i])
            }
            for i, qid in enumerate(result.qids)
        }
    record["provenance"] = result.provenance
    return record
