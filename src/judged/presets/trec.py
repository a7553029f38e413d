"""Presets for trec_eval and pytrec_eval: judged's defaults are theirs."""

from __future__ import annotations

from judged.measures.spec import Measure
from judged.measures.trec_names import gain_problem
from judged.presets.base import Check, Namer, Preset, _drop_ok, _named, _rel_at_least, _Rule


def _trec_gain(value, m) -> str | None:
    return gain_problem(value, m.cutoff)


def _trec_name(m: Measure) -> str:
    if m.name == "nDCG" and m.gain.kind == "map":
        text = "ndcg_" + ",".join(f"{g}={int(v)}" for g, v in m.gain.mapping)
    else:
        text = _TREC_NAMES[m.name](m)
    flags = []
    if "rel" in m.family.params and m.rel != 1:
        flags.append(f"-l{m.rel}")
    if "unjudged" in m.family.params and m.unjudged == "drop":
        flags.append("-J")
    return " ".join([text, *flags])


_TREC_NAMES: dict[str, Namer] = {
    "nDCG": _named("ndcg_cut_{k}", "ndcg"),
    "P": _named("P_{k}", "set_P"),
    "R": _named("recall_{k}", "set_recall"),
    "AP": _named("map_cut_{k}", "map"),
    "RR": _named(None, "recip_rank"),
    "Success": _named("success_{k}", None),
    "Rprec": _named(None, "Rprec"),
    "Bpref": _named(None, "bpref"),
    "NumRet": _named(None, "num_ret"),
    "NumRel": _named(None, "num_rel"),
    "NumRelRet": _named(None, "num_rel_ret"),
}

_TREC_CUTOFF = {
    "nDCG": "optional", "P": "optional", "R": "optional", "AP": "optional", "RR": "none",
    "Success": "required", "Rprec": "none", "Bpref": "none", "NumRet": "none", "NumRel": "none",
    "NumRelRet": "none",
}

_TREC_WHY = {
    "gain": "trec_eval's ndcg_cut uses the grade as the gain",
    "ideal": "trec_eval builds the ideal list from every judged document of the query",
    "unjudged": "trec_eval scores unjudged documents 0, or drops them with -J",
    "ties": "trec_eval breaks tied scores by docid descending (form_res_rels.c comp_sim_docno) and nothing else",
    "norel": "trec_eval scores a query with no relevant judgment 0 and averages it in",
    "rel": "trec_eval's -l is the relevance threshold",
}

_TREC_ABSENT = {
    "DCG": "trec_eval's dcg is not in pytrec_eval, so this preset cannot verify it",
    "Judged": (
        "trec_eval has no judged share; its unj_k (v10 only) divides by k, judged's Judged@k by min(k, retrieved)"
    ),
}

_TREC_CAVEATS = (
    ("trec_eval stores run scores as C float: scores equal after rounding to 32 bits tie there (and fall to "
     "the docid rule) but not in judged; runs written with fewer than 7 significant digits are unaffected."),
    "trec_eval reads grades with atol, so a fractional grade is truncated there; judged refuses it.",
    ("Gain maps apply to ndcg without a cutoff only (-m ndcg.1=1,2=3,3=7), and no two gains may share an "
     "integer part: trec_eval compares gains through an int."),
)


def _trec_rules(min_rel: int | None, rel_why: str) -> dict[str, _Rule]:
    rules = {}
    for name, cutoff in _TREC_CUTOFF.items():
        free: dict[str, Check] = {"unjudged": _drop_ok}
        if min_rel is not None:
            free["rel"] = _rel_at_least(min_rel, rel_why)
        else:
            free["rel"] = lambda value, m: None
        if name == "nDCG":
            free["gain"] = _trec_gain
        rules[name] = _Rule(_trec_name, cutoff=cutoff, fixed={"ideal": "judged", "ties": "trec", "norel": "0"},
                            free=free)
    return rules


_TREC_EVAL = Preset(
    name="trec_eval",
    description="trec_eval 9.x (and 10.0 without -c): judged's defaults; queries missing from the run are skipped",
    library="trec_eval",
    options={"missing": "skip"},
    caveats=(
        ("Missing queries are skipped, as trec_eval 9.x and pytrec_eval do; trec_eval 10.0 refuses a judged "
         "query missing from the run unless -c is given, and -c scores it 0: use missing='zero' for -c."),
        *_TREC_CAVEATS,
        "trec_eval's -M depth is evaluate(depth=...); -J is unjudged=drop; -l is rel.",
    ),
    _rules=_trec_rules(None, ""),
    _why=_TREC_WHY,
    _absent=_TREC_ABSENT,
    also_missing=("zero",),  # -c
)

_PYTREC_EVAL = Preset(
    name="pytrec_eval",
    description="pytrec_eval (trec_eval's C code): judged's defaults; only queries in both run and judgments",
    library="pytrec_eval",
    options={"missing": "skip"},
    caveats=(
        ("pytrec_eval returns the queries that are in both the run and the judgments and leaves averaging to "
         "you; judged skips missing queries (missing='skip') and means the rest."),
        "relevance_level must be >= 1 in pytrec_eval (rel=0 raises TypeError there).",
        *_TREC_CAVEATS,
        ("A gain map reaches pytrec_eval only through its C extension (measure 'ndcg.1=1,2=3'), and an evaluator "
         "built with one fails on its second evaluate(); build a new one per call."),
    ),
    _rules=_trec_rules(1, "pytrec_eval refuses relevance_level < 1"),
    _why=_TREC_WHY,
    _absent=_TREC_ABSENT,
)
