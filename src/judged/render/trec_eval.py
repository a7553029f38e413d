"""trec_eval-compatible text: byte for byte what ``trec_eval -q`` prints for the same measures.

Each measure is printed under trec_eval's own name (``nDCG@10`` ->
``ndcg_cut_10``, ``AP`` -> ``map``, ...). A measure whose conventions
trec_eval cannot express is refused with the convention named. Lines follow
trec_eval: per query (qid in byte order) the measures in trec_eval's table
order with cutoffs ascending, then the ``all`` lines; ``%-22s\\t%s\\t%6.4f``
for values and ``%ld`` for counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from judged.engine.result import Result
from judged.errors import UsageError
from judged.measures.spec import Measure
from judged.measures.trec_names import TABLE, to_trec_eval


def _global_flags(measures: Sequence[Measure]) -> None:
    """trec_eval's -l and -J apply to every measure at once: refuse a mix."""
    for param, flag in (("rel", "-l"), ("unjudged", "-J")):
        values = {str(getattr(m, param)) for m in measures if param in m.family.params}
        if len(values) > 1:
            raise UsageError(f"trec_eval format needs one {param} for all measures (trec_eval's {flag} is global); "
                             f"got {', '.join(sorted(values))}.")
    if "drop" in {m.unjudged for m in measures} and any(m.name == "NumRet" for m in measures):
        raise UsageError("trec_eval format cannot print NumRet beside unjudged=drop measures: trec_eval's -J "
                         "also drops unjudged documents from num_ret, which judged's NumRet counts.")


def render_trec_eval(results: Sequence[Result], per_query: bool = True) -> str:
    """trec_eval text for each result in turn (as if trec_eval ran once per run)."""
    out: list[str] = []
    for result in results:
        _global_flags(result.measures)
        order = list(TABLE)
        named = sorted(
            ((to_trec_eval(m), m) for m in result.measures),
            key=lambda item: (order.index(item[0].entry), item[0].cutoff, item[0].printed),
        )
        if per_query:
            for i in np.argsort(np.array(result.qids, dtype=object), kind="stable"):
                qid = result.qids[i]
                for name, m in named:
                    value = result.values[m][i]
                    if TABLE[name.entry].per_query and not np.isnan(value):  # gm_map, num_q: summary only
                        out.append(_line(name.printed, qid, value, m))
        for name, m in named:
            out.append(_line(name.printed, "all", result.aggregate[m], m))
    return "".join(out)


def _line(name: str, qid: str, value: float, measure: Measure) -> str:
    if measure.family.integer:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"
