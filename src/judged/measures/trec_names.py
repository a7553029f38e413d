"""trec_eval's measure names, both ways: the one table that maps them to judged's measures.

trec_eval (and pytrec_eval, which runs its C code) names a measure by a table
entry and parameters: ``ndcg_cut.5,10`` asks for ``ndcg_cut_5`` and
``ndcg_cut_10``; a bare ``P`` asks for every default cutoff. judged's trec_eval
output (:mod:`judged.render.trec_eval`), its pytrec_eval call shape
(:mod:`judged.pytrec_eval`) and its presets read names from here.

>>> [(name, str(m)) for name, m in from_trec_eval("ndcg_cut.5,10")]  # doctest: +NORMALIZE_WHITESPACE
[('ndcg_cut_5', 'nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@5'),
 ('ndcg_cut_10', 'nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10')]
>>> from judged.measures import parse
>>> to_trec_eval(parse("AP@100"))
TrecName(printed='map_cut_100', entry='map_cut', cutoff=100)
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from judged.errors import MeasureError, UsageError
from judged.measures.spec import Gain, Measure

#: trec_eval's default cutoffs for ``P``, ``recall``, ``ndcg_cut`` and ``map_cut`` (m_P.c's ``long_cutoff_array``).
DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Entry:
    """One trec_eval table entry judged computes: the judged family and how trec_eval's parameters set it.

    ``cutoffs`` are the default rank cutoffs (``P_10``); ``levels`` the default
    values of the number convention ``level`` (``iprec_at_recall_0.10`` sets
    ``recall``, printed ``%3.2f`` as trec_eval does); ``coefficients`` the
    conventions one parameter list sets in order (``utility.2,-1,0,0``; a
    ``None`` slot is a coefficient judged does not offer, accepted only at 0),
    printed as written; ``numbers`` the list convention the whole parameter list sets (``11pt_avg..25,.5``
    sets ``levels``, printed as written). ``per_query`` is False for what trec_eval prints in
    the summary only (gm_map, gm_bpref, num_q). ``conventions`` are the
    values trec_eval fixes where judged's default differs (rbp's p = 0.9).
    """

    family: str
    cutoffs: tuple[int, ...] | None = None
    level: str | None = None
    levels: tuple[float, ...] = ()
    coefficients: tuple[str | None, ...] = ()
    numbers: str | None = None
    per_query: bool = True
    conventions: tuple[tuple[str, object], ...] = ()


#: trec_eval's default recall levels (m_iprec_at_recall.c) and multiples of R (m_Rprec_mult.c).
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

#: trec_eval's measure table, in its own order (the order trec_eval prints), for the entries judged computes.
#: trec_eval 10's order around the entries judged leaves out: runid first, relstring after P, yaap, rbp and
#: rbp_resid just before unj.
TABLE: dict[str, Entry] = {
    "num_q": Entry("NumQ", per_query=False),
    "num_ret": Entry("NumRet"),
    "num_rel": Entry("NumRel"),
    "num_rel_ret": Entry("NumRelRet"),
    "map": Entry("AP"),
    "gm_map": Entry("GMAP", per_query=False),
    "Rprec": Entry("Rprec"),
    "bpref": Entry("Bpref"),
    "recip_rank": Entry("RR"),
    "iprec_at_recall": Entry("IPrec", level="recall", levels=RECALL_LEVELS),
    "P": Entry("P", DEFAULT_CUTOFFS),
    "recall": Entry("R", DEFAULT_CUTOFFS),
    "infAP": Entry("infAP"),
    "gm_bpref": Entry("GMBpref", per_query=False),
    "Rprec_mult": Entry("Rprec_mult", level="mult", levels=R_MULTIPLES),
    "utility": Entry("Utility", coefficients=("rel_ret", "nonrel_ret", "rel_missed", None)),
    "11pt_avg": Entry("IPrec11pt", numbers="levels"),
    "binG": Entry("binG"),
    "G": Entry("G"),
    "dcg": Entry("DCG"),
    "ideal_dcg": Entry("IDCG"),
    "ndcg": Entry("nDCG"),
    "ndcg_rel": Entry("nDCG_rel"),
    "Rndcg": Entry("Rndcg"),
    "ndcg_cut": Entry("nDCG", DEFAULT_CUTOFFS),
    "map_cut": Entry("AP", DEFAULT_CUTOFFS),
    "relative_P": Entry("RelP", DEFAULT_CUTOFFS),
    "success": Entry("Success", (1, 5, 10)),
    "set_P": Entry("P"),
    "set_relative_P": Entry("RelP"),
    "set_recall": Entry("R"),
    "set_map": Entry("SetAP"),
    "set_F": Entry("SetF", coefficients=("beta",)),
    "num_nonrel_judged_ret": Entry("NumNonRelJudgedRet"),
    "yaap": Entry("yaap"),
    "rbp": Entry("RBP", conventions=(("p", 0.9), ("max_rel", "query"))),  # m_rbp.c: gains over the top grade
    "rbp_resid": Entry("RBP_resid", conventions=(("p", 0.9), ("max_rel", "query"))),
    "unj": Entry("Unjudged", (5, 10, 20)),
}

#: The entries whose parameters are a gain map, ``ndcg.1=3,2=9`` (trec_eval's setup_gains).
GAIN_MAPS = ("ndcg", "G", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg")

_NAME = re.compile(r"(?P<entry>[A-Za-z0-9_]+?)(?:[._](?P<params>[0-9.=,+-]+))?")


@dataclass(frozen=True)
class TrecName:
    """A measure as trec_eval prints it: the printed name, its table entry and its cutoff or level (0 for none)."""

    printed: str
    entry: str
    cutoff: float


def printed_names() -> list[str]:
    """Every table entry's name and the names it prints at its default parameters (``ndcg_cut_10``), for suggestions.

    >>> "ndcg_cut_10" in printed_names() and "gm_map" in printed_names()
    True
    """
    return list(TABLE) + [printed for entry in TABLE for printed, _ in from_trec_eval(entry)]


def is_trec_eval_name(name: str) -> bool:
    """Does ``name`` have the shape of a trec_eval measure name and name an entry judged computes?

    >>> is_trec_eval_name("ndcg_cut.10"), is_trec_eval_name("P_10"), is_trec_eval_name("nDCG@10")
    (True, True, False)
    """
    match = _NAME.fullmatch(name.strip())
    return match is not None and match.group("entry") in TABLE


def from_trec_eval(name: str, *, rel: int = 1, judged_only: bool = False) -> list[tuple[str, Measure]]:
    """The measures trec_eval computes for ``name`` (``-m name``), each with the name it prints.

    ``rel`` is trec_eval's ``-l`` and ``judged_only`` its ``-J``; both apply to
    every measure that has the convention, as in trec_eval. A gain map is
    written as trec_eval writes it: ``ndcg.1=3,2=9``.

    >>> [printed for printed, _ in from_trec_eval("success")]
    ['success_1', 'success_5', 'success_10']
    >>> str(from_trec_eval("P_5", rel=2)[0][1])
    'P(rel=2,unjudged=zero,ties=trec)@5'
    """
    match = _NAME.fullmatch(name.strip())
    entry = TABLE.get(match.group("entry")) if match else None
    if match is None or entry is None:
        raise UsageError(
            f"unknown trec_eval measure {name!r}; judged computes {', '.join(TABLE)}."
        )
    table_name, params = match.group("entry"), match.group("params")
    if table_name in GAIN_MAPS and params:
        measure = _with_flags(Measure(entry.family, gain=_gain_map(params, name)), rel, judged_only)
        return [(f"{table_name}_{params}", measure)]
    if entry.level is not None:
        levels = _numbers(params, name) if params else entry.levels
        return [(f"{table_name}_{v:3.2f}", _with_flags(_make(entry.family, {entry.level: v}, name), rel, judged_only))
                for v in sorted(set(levels))]
    if entry.numbers is not None and params:
        return [(f"{table_name}_{params}", _with_flags(_make(entry.family, {entry.numbers: _ascending(
            _numbers(params, name), name)}, name), rel, judged_only))]
    if entry.coefficients and params:
        measure = _make(entry.family, _coefficients(entry, _numbers(params, name), name), name)
        return [(f"{table_name}_{params}", _with_flags(measure, rel, judged_only))]
    if entry.cutoffs is None:
        if params:
            raise UsageError(f"trec_eval measure {table_name} takes no parameters in judged. Got {name!r}.")
        return [(table_name, _with_flags(Measure(entry.family, **dict(entry.conventions)), rel,  # type: ignore[arg-type]
                                         judged_only))]
    cutoffs = _cutoffs(params, name) if params else entry.cutoffs
    return [(f"{table_name}_{k}", _with_flags(Measure(entry.family, k), rel, judged_only)) for k in cutoffs]


def to_trec_eval(measure: Measure) -> TrecName:
    """How trec_eval names ``measure``, or a UsageError naming the convention it cannot express."""
    _require(measure, "ties", "trec", "trec_eval breaks ties by docid descending only")
    _require(measure, "norel", "0", "trec_eval scores a query with no relevant judgment 0")
    _require(measure, "ideal", "judged", "trec_eval builds the ideal list from every judged document")
    _require(measure, "rounding", "round", "trec_eval 10 meets a recall level at the lround(r R)-th relevant "
             "document; v9 is trec_eval 9's rule")
    if "rel" in measure.family.params and measure.rel < 0:
        raise _refuse(measure, f"rel={measure.rel}", "a negative grade marks a document pooled but not judged, "
                      "which judged never counts relevant; trec_eval's -l would")
    name, k = measure.name, measure.cutoff
    gain_entry = next((e for e in GAIN_MAPS if TABLE[e].family == name), None)
    if gain_entry and measure.gain.kind != "linear":
        problem = gain_problem(measure.gain, k)
        if problem:
            raise _refuse(measure, f"gain={measure.gain}", problem)
        pairs = ",".join(f"{g}={_number(v)}" for g, v in measure.gain.mapping)
        return TrecName(f"{gain_entry}_{pairs}", gain_entry, 0)
    for entry_name, entry in TABLE.items():
        if entry.family != name or (entry.cutoffs is None) != (k is None):
            continue
        if any(getattr(measure, c) != v for c, v in entry.conventions):
            continue
        if entry.level is not None:
            level = float(getattr(measure, entry.level))
            return TrecName(f"{entry_name}_{level:3.2f}", entry_name, level)
        if entry.coefficients:
            return TrecName(_coefficient_name(entry_name, entry, measure), entry_name, 0)
        if entry.numbers is not None and getattr(measure, entry.numbers) != getattr(Measure(entry.family),
                                                                                    entry.numbers):
            values = ",".join(_number(v) for v in getattr(measure, entry.numbers))
            return TrecName(f"{entry_name}_{values}", entry_name, 0)
        return TrecName(entry_name if k is None else f"{entry_name}_{k}", entry_name, k or 0)
    raise _refuse(measure, f"{name}{'@' + str(k) if k else ''}", "trec_eval has no such measure")


def _coefficient_name(entry_name: str, entry: Entry, measure: Measure) -> str:
    """``utility`` at trec_eval's default coefficients, else ``utility_2,-1,0`` with judged's values (and 0s)."""
    values = [getattr(measure, c) if c else 0.0 for c in entry.coefficients]
    defaults = [getattr(Measure(entry.family), c) if c else 0.0 for c in entry.coefficients]
    return entry_name if values == defaults else f"{entry_name}_{','.join(_number(v) for v in values)}"


def gain_problem(gain: Gain, cutoff: int | None) -> str | None:
    """Why trec_eval cannot compute nDCG with ``gain`` (and ``cutoff``) as judged does, or None if it can."""
    if cutoff is not None:
        return ("trec_eval's ndcg_cut takes no gain map: it uses the grade as the gain (m_ndcg_cut.c); only ndcg, "
                "without a cutoff, takes one")
    if gain.kind == "exp":
        return ("trec_eval's ndcg takes an explicit map (-m ndcg.1=1,2=3,3=7), not gain=exp; "
                "write gain={1:1,2:3,3:7} with the grades your judgments use")
    if any(grade < 0 for grade, _ in gain.mapping):
        return "in trec_eval a gain for a negative level applies to unjudged documents, which judged always gains 0"
    gains = sorted({value for _, value in gain.mapping})
    for low, high in itertools.pairwise(gains):
        if int(low) == int(high):  # C's (int) truncates toward zero, as comp_rel_gain compares
            return (f"trec_eval orders gains through an int (gain_init.c comp_rel_gain), so gains {_number(low)} "
                    f"and {_number(high)} compare equal there and its ideal list can be wrong")
    return None


def _with_flags(measure: Measure, rel: int, judged_only: bool) -> Measure:
    params = measure.family.params
    if judged_only and measure.name == "NumRet":  # -J's num_ret: the judged documents retrieved (grade >= 0)
        return Measure("NumRelRet", measure.cutoff, rel=0, unjudged="drop")
    if judged_only and measure.name == "Unjudged":
        raise UsageError("unj under trec_eval's -J is 0 by construction: -J removes every unjudged document "
                         "before unj counts them. Leave unj out, or -J.")
    changes: dict[str, object] = {}
    if "rel" in params:
        changes["rel"] = rel
    if "unjudged" in params and judged_only:
        changes["unjudged"] = "drop"
    return dataclasses.replace(measure, **changes)  # type: ignore[arg-type]


def _cutoffs(params: str, name: str) -> list[int]:
    """The cutoffs as trec_eval reads them (get_long_cutoffs): each by C's atol (its leading integer, so
    ``23.4`` is 23), in ascending order, the order it prints them in."""
    leading = [re.match(r"\s*[+-]?[0-9]+", p) for p in params.split(",")]
    cutoffs = [int(m.group()) if m else 0 for m in leading]
    if any(k < 1 for k in cutoffs):
        raise UsageError(f"trec_eval cutoffs must be integers >= 1, as in P.5,10. Got {name!r}.")
    return sorted(set(cutoffs))


def _numbers(params: str, name: str) -> list[float]:
    """trec_eval's comma-separated numbers (``.10,.20``, ``2,-1,0,0``), read as its atof would for well-formed ones."""
    try:
        return [float(p) for p in params.split(",")]
    except ValueError:
        raise UsageError(f"trec_eval parameters must be numbers separated by commas, as in "
                         f"iprec_at_recall.0.1,0.5. Got {name!r}.") from None


def _ascending(values: list[float], name: str) -> tuple[float, ...]:
    """The levels of 11pt_avg, which must ascend: m_11pt_avg.c meets them from the last one down, so what
    trec_eval prints for levels out of order is not their average."""
    if values != sorted(values):
        raise UsageError(f"trec_eval's 11pt_avg reads its recall levels in ascending order only (m_11pt_avg.c "
                         f"meets them from the last down); write them ascending. Got {name!r}.")
    return tuple(values)


def _make(family: str, values: Mapping[str, object], name: str) -> Measure:
    try:
        return Measure(family, **values)  # type: ignore[arg-type]
    except MeasureError as err:
        raise UsageError(f"cannot read trec_eval measure {name!r}: {err}") from None


def _coefficients(entry: Entry, values: list[float], name: str) -> dict[str, float]:
    if len(values) != len(entry.coefficients):
        raise UsageError(f"trec_eval measure {name.split('.')[0]} takes {len(entry.coefficients)} "
                         f"coefficient(s). Got {name!r}.")
    out = {}
    for convention, value in zip(entry.coefficients, values, strict=True):
        if convention is None:
            if value != 0:
                raise UsageError(f"{name}: a non-zero worth for non-relevant documents not retrieved needs the "
                                 "collection size (trec_eval's -N), which judged does not take; give it as 0.")
        else:
            out[convention] = value
    return out


def _gain_map(params: str, name: str) -> Gain:
    try:
        return Gain.parse("{" + params.replace("=", ":") + "}")
    except MeasureError as err:
        raise UsageError(f"trec_eval gain map must be grade=gain pairs, as in ndcg.1=3,2=9. Got {name!r}: "
                         f"{err}") from None


def _require(measure: Measure, param: str, value: str, why: str) -> None:
    if param in measure.family.params and str(getattr(measure, param)) != value:
        raise _refuse(measure, f"{param}={getattr(measure, param)}", why)


def _refuse(measure: Measure, convention: str, why: str) -> UsageError:
    return UsageError(f"{measure} cannot be written in trec_eval format: {convention} has no trec_eval "
                      f"equivalent ({why}). Use --format table, json or tsv.")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)
