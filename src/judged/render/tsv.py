"""Tab-separated values: ``run qid measure value``, one line per run, query and measure, then ``all`` lines."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judged.result import Result

HEADER = "run\tqid\tmeasure\tvalue\n"


def render_tsv(results: Sequence[Result], per_query: bool = True) -> str:
    """TSV with a header; values printed with full precision (``repr`` of the float)."""
    out = [HEADER]
    for result in results:
        if per_query:
            for m in result.measures:
                values = result.values[m]
                for qid, value in zip(result.qids, values):
                    if not np.isnan(value):
                        out.append(f"{result.run}\t{qid}\t{m}\t{float(value)!r}\n")
        for m in result.measures:
            out.append(f"{result.run}\tall\t{m}\t{result.aggregate[m]!r}\n")
    return "".join(out)
