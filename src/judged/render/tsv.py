"""Tab-separated values: ``run qid measure value``, one line per run, query and measure, then ``all`` lines."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from judged.engine.result import Result

HEADER = "run\tqid\tmeasure\tvalue\n"


def render_tsv(results: Sequence[Result], per_query: bool = True) -> str:
    """TSV with a header; values at full precision (the shortest text that reads back to the same float)."""
    frames = []
    for result in results:
        if per_query:
            frames.append(result.per_query())
        frames.append(
            pl.DataFrame(
                {
                    "run": result.run,
                    "qid": "all",
                    "measure": [str(m) for m in result.measures],
                    "value": [result.aggregate[m] for m in result.measures],
                },
                schema={"run": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64},
            )
        )
    return pl.concat(frames).write_csv(separator="\t", quote_style="never")
