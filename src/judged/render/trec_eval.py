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

#: trec_eval's measure table order, for the measures judged can print under trec_eval names.
_TABLE_ORDER = (
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P", "recall",
    "ndcg", "ndcg_cut", "map_cut", "success", "set_P", "set_recall",
)


def trec_eval_name(measure: Measure) -> tuple[str, str, int]:
    """``(printed name, table entry, cutoff)`` of ``measure`` in trec_eval, or a UsageError saying why not."""
    _require(measure, "ties", "trec", "trec_eval breaks ties by docid descending only")
    _require(measure, "norel", "0", "trec_eval scores a query with no relevant judgment 0")
    _require(measure, "ideal", "judged", "trec_eval builds the ideal list from every judged document")
    name, k = measure.name, measure.cutoff
    if name == "nDCG":
        if measure.gain.kind == "exp":
            raise _refuse(measure, "gain=exp", "trec_eval's ndcg takes a gain map only without a cutoff; "
                          "write the gains as gain={1:1,2:3,3:7} and drop the cutoff")
        if measure.gain.kind == "map":
            if k is not None:
                raise _refuse(measure, "gain map with a cutoff", "trec_eval's ndcg_cut takes no gain map")
            pairs = ",".join(f"{g}={_number(v)}" for g, v in measure.gain.mapping)
            return f"ndcg_{pairs}", "ndcg", 0
        return ("ndcg", "ndcg", 0) if k is None else (f"ndcg_cut_{k}", "ndcg_cut", k)
    simple = {
        ("AP", False): "map", ("Rprec", False): "Rprec", ("Bpref", False): "bpref",
        ("RR", False): "recip_rank", ("NumRet", False): "num_ret", ("NumRel", False): "num_rel",
        ("NumRelRet", False): "num_rel_ret", ("P", False): "set_P", ("R", False): "set_recall",
    }
    cut = {"AP": "map_cut", "P": "P", "R": "recall", "Success": "success"}
    if k is None and (name, False) in simple:
        return simple[(name, False)], simple[(name, False)], 0
    if k is not None and name in cut:
        return f"{cut[name]}_{k}", cut[name], k
    raise _refuse(measure, f"{name}{'@' + str(k) if k else ''}", "trec_eval has no such measure")


def _require(measure: Measure, param: str, value: str, why: str) -> None:
    if param in measure.family.params and str(getattr(measure, param)) != value:
        raise _refuse(measure, f"{param}={getattr(measure, param)}", why)


def _refuse(measure: Measure, convention: str, why: str) -> UsageError:
    return UsageError(f"{measure} cannot be written in trec_eval format: {convention} has no trec_eval "
                      f"equivalent ({why}). Use --format table, json or tsv.")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _global_flags(measures: Sequence[Measure]) -> None:
    """trec_eval's -l and -J apply to every measure at once: refuse a mix."""
    for param, flag in (("rel", "-l"), ("unjudged", "-J")):
        values = {str(getattr(m, param)) for m in measures if param in m.family.params}
        if len(values) > 1:
            raise UsageError(f"trec_eval format needs one {param} for all measures (trec_eval's {flag} is global); "
                             f"got {', '.join(sorted(values))}.")


def render_trec_eval(results: Sequence[Result], per_query: bool = True) -> str:
    """trec_eval text for each result in turn (as if trec_eval ran once per run)."""
    out: list[str] = []
    for result in results:
        _global_flags(result.measures)
        named = sorted(
            ((trec_eval_name(m), m) for m in result.measures),
            key=lambda item: (_TABLE_ORDER.index(item[0][1]), item[0][2], item[0][0]),
        )
        if per_query:
            for i in np.argsort(np.array(result.qids, dtype=object), kind="stable"):
                qid = result.qids[i]
                for (printed, _, _), m in named:
                    value = result.values[m][i]
                    if not np.isnan(value):
                        out.append(_line(printed, qid, value, m))
        for (printed, _, _), m in named:
            out.append(_line(printed, "all", result.aggregate[m], m))
    return "".join(out)


def _line(name: str, qid: str, value: float, measure: Measure) -> str:
    if measure.family.integer:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"
