"""Presets for trec_eval and pytrec_eval: judged's defaults are theirs."""

from __future__ import annotations

import dataclasses

from judged.measures.spec import Measure
from judged.measures.trec_names import TABLE, gain_problem, to_trec_eval
from judged.presets.base import Check, Preset, _drop_ok, _rel_at_least, _Rule


def _trec_gain(value, m) -> str | None:
    return gain_problem(value, m.cutoff)


def _trec_name(m: Measure) -> str:
    """trec_eval's name for ``m`` (:mod:`judged.measures.trec_names`, the one table), with its -l and -J flags."""
    flags = []
    if "rel" in m.family.params and m.rel != 1:
        flags.append(f"-l{m.rel}")
    if "unjudged" in m.family.params and m.unjudged == "drop":
        flags.append("-J")
    named = dataclasses.replace(m, rounding="round") if "rounding" in m.family.params else m  # 9 and 10 name it alike
    return " ".join([to_trec_eval(named).printed, *flags])


#: The trec_eval entries pytrec_eval 0.5 computes (its supported_measures, less runid and relstring, which are
#: not numbers per query): the families both presets reproduce, so that the pytrec_eval peer tests verify them.
PYTREC_EVAL_ENTRIES = frozenset({
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
    "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret",
})


def _cutoffs() -> dict[str, str]:
    """Each family trec_eval and pytrec_eval compute, and whether it takes a cutoff there: ``optional`` when one of
    its entries takes rank cutoffs and another none (P_10, set_P), ``required`` or ``none`` when all agree."""
    kinds: dict[str, set[bool]] = {}
    for name, entry in TABLE.items():
        if name in PYTREC_EVAL_ENTRIES:
            kinds.setdefault(entry.family, set()).add(entry.cutoffs is not None)
    return {family: "optional" if len(cut) == 2 else "required" if True in cut else "none"
            for family, cut in kinds.items()}


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


#: A family's own coefficients, which trec_eval takes as the entry's parameters (set_F.0.5, utility.2,-1,0,0).
_COEFFICIENTS = ("beta", "recall", "mult", "rel_ret", "nonrel_ret", "rel_missed")


def _any(value, m) -> str | None:
    return None


def _trec_rules(min_rel: int | None, rel_why: str, rounding: str | None) -> dict[str, _Rule]:
    """The rules of every family trec_eval computes; ``rounding`` fixes IPrec's recall-level rule (pytrec_eval's
    trec_eval 9 meets levels its own way) or, when None, leaves it to the user (trec_eval 10 or 9)."""
    fixed: dict[str, object] = {"ideal": "judged", "ties": "trec", "norel": "0"}
    if rounding is not None:
        fixed["rounding"] = rounding
    rules = {}
    for name, cutoff in _cutoffs().items():
        free: dict[str, Check] = {"unjudged": _drop_ok, **dict.fromkeys(_COEFFICIENTS, _any)}
        free["rel"] = _rel_at_least(min_rel, rel_why) if min_rel is not None else _any
        if rounding is None:
            free["rounding"] = _any
        if name == "nDCG":
            free["gain"] = _trec_gain
        rules[name] = _Rule(_trec_name, cutoff=cutoff, fixed=fixed, free=free)
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
    _rules=_trec_rules(None, "", rounding=None),
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
    _rules=_trec_rules(1, "pytrec_eval refuses relevance_level < 1", rounding="v9"),
    _why=_TREC_WHY,
    _absent=_TREC_ABSENT,
)
